"""The input side of `tf.distribute`: distributed datasets and their iterators.

A strategy's `experimental_distribute_dataset(dataset)` and
`distribute_datasets_from_function(dataset_fn)` are thin calls into this
module (`tfcompat.distribute` strategies pass their replica layout):

    distribute_dataset(source, *, num_replicas_in_sync, local_devices,
                       num_workers=1, worker_index=0, wrap=PerReplica,
                       options=None) -> DistributedDataset
    distribute_from_function(dataset_fn, *, num_replicas_in_sync, local_devices,
                             num_workers=1, worker_index=0, wrap=PerReplica,
                             options=None, any_worker_has_data=None)
        -> DistributedDatasetsFromFunction

`local_devices` holds one torch device per local replica (`(cpu, cpu)` for
two logical CPUs, `(cuda:0, cuda:1)`); a worker is a process, and
`worker_index` is its rank among `num_workers`.

**Sources.** A source is a `tf.data.Dataset` (`tfcompat.data`:
`tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL)` runs unchanged)
or any other *re-iterable of batches*: each item a nest (tuple, list, dict,
namedtuple) of torch tensors, NumPy arrays or Python numbers, e.g.
`torch.utils.data.DataLoader(TensorDataset(x, y), batch_size=GLOBAL)` (an
`IterableDataset` goes in a `DataLoader` too), or a list of batches. A bare
array, a `(x, y)` tuple of arrays, a dict or a torch `Dataset` is refused
with a `TypeError`: those are one element, or examples, not batches, and
iterating them would silently mean something else. Each `iter()` of a
distributed dataset calls `iter(source)` again (an epoch), so a generator
gives one pass, as a one-shot iterator does. A `tf.data.Dataset` (recognised
without importing `tfcompat.data`, see `input_specs.py`) is such an iterable,
and more: its `options()` give the auto-shard policy and its `element_spec`
the distributed dataset's `element_spec`.

**`experimental_distribute_dataset`: each batch is a global batch.** TF 2.21
with the AUTO shard policy on a dataset that reads no files (every tfcompat
source) cuts each tensor of a batch, on its own, along dim 0 into
`n = num_replicas_in_sync` chunks of `k = ceil(b / n)` rows: chunk `c` holds
rows `[c*k, min((c+1)*k, b))`, so the tail chunks may be short or empty
(b=4, n=3: 2, 2, 0; b=7, n=3: 3, 3, 1; b=1, n=2: 1, 0). The local replica
`r` of worker `w` (of `W`) takes chunk `w + r*W`: TF splits every batch
into all `n` chunks and deals them to workers in turn (its DATA sharding).
Every worker reads every batch, so all workers make one step per batch and
nothing is dropped. With `n == 1` batches pass whole. (TF reaches this by
rewriting its batch-size-aware rebatch into the legacy one whenever it
shards by data, one worker included.) A `tf.data.Dataset` whose options set
`experimental_distribute.auto_shard_policy` to OFF (or FILE, on one worker:
there are no files) is not sharded: every worker reads every batch, and the
stream is rebatched TF's batch-size-aware way (7 over 3: 3, 2, 2; see
`input_steps.unsharded_steps`). FILE with several workers is TF's
`NotFoundError` (no files to shard). A scalar cannot be split: `ValueError`.

**`element_spec`** (a `tf.data.Dataset` source only): each component's
`TensorSpec` with the batch dim divided by `n` where it divides evenly
(else unknown), as a `PerReplicaSpec` of one spec per local replica (a
plain spec with one replica and one worker), as TF's.

**`distribute_datasets_from_function`: each element is a per-replica
batch.** `dataset_fn(InputContext(W, w, n))` is called once per input
pipeline, when the distributed dataset is made; its elements are dealt to
the local replicas in turn (step `s`, replica `r`: element `s*R + r`). When
the pipeline ends inside a step, the replicas left without an element get an
empty batch (dim 0 of size 0, the other dims and dtype of the step's first
element), as TF does for elements without fully static shapes and always
with several workers. Single-worker TF drops that partial step when the
element shapes are static; tfcompat does for sources that promise full
batches (`DataLoader(drop_last=True)`, a `tf.data.Dataset` whose
`element_spec` is fully defined) and for scalar elements. Its
`element_spec` is the function's datasets' spec, per local replica. With
`options.experimental_replication_mode == PER_REPLICA`, `dataset_fn` is
called once per local replica with `InputContext(R, r, R)` and each replica
reads its own pipeline. Several workers need `any_worker_has_data` (an
all-reduce of a flag, which the strategy owns) to keep going while another
worker still has data, as TF's all-reduce does; without it a worker stops
when its own pipeline does.

**Values and placement.** An element is the batch's nest with each tensor
replaced by `wrap(tuple_of_components)` (`PerReplica`), one component per
local replica; with one local replica and one worker, plain tensors, as TF.
Each component is placed on its replica's device: no copy when it is
there already (a view of the batch), otherwise `Tensor.to(device,
non_blocking=True)` for accelerators (asynchronous from pinned memory, so
use `DataLoader(pin_memory=True)`; from pageable memory the copy has read
the source by the time it returns). NumPy arrays are never aliased: a CPU
component is a copy, so writing into the array afterwards changes nothing.
Torch tensors are taken as values, as `tf.convert_to_tensor` takes them: a
CPU component may be a view of the batch you passed, so do not write into a
batch after handing it over. `InputOptions(experimental_fetch_to_device=False)`
keeps every component on the host CPU.

Iterators (`iter(dist_ds)`) support `next()`, `get_next()` (TF's
`OutOfRangeError` at the end) and `get_next_as_optional()`. The seed's
`PerDeviceDataset` / `PerDeviceDataIterator` (elements dealt to devices,
the remainder dropped) keep their names, with `make_one_shot_iterator()`;
`MultiIterator` / `PerIteration` group `iterations` steps for
`experimental_run_steps_on_iterator`. The seed's `MultiWorkerDataset` (one
process driving every worker) has no counterpart: here a process is a
worker, and `num_workers` / `worker_index` say which.
"""

from __future__ import annotations

import collections
import collections.abc
import enum
import threading
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.utils.data

from ..framework import device as device_lib
from ..framework import errors
from ..framework import nest
from ..framework.optional import OptionalValue
from .input_specs import (PerReplicaSpec, cardinality_of, dataset_spec, is_tf_dataset,
                          per_replica_spec, shard_policy, static_batch_size, static_spec)
from .input_steps import (MISSING, Step, dealt_steps, pull, replica_bounds, split_steps,
                          unsharded_steps)
from .values import PerReplica

__all__ = [
    "InputContext", "InputOptions", "InputReplicationMode", "PerReplicaSpec", "DistributedDataset",
    "DistributedDatasetsFromFunction", "DistributedIterator", "DistributedOptional",
    "distribute_dataset", "distribute_from_function", "replica_bounds",
    "PerDeviceDataset", "PerDeviceDataIterator", "MultiIterator", "PerIteration",
]

_HOST = torch.device("cpu")


# -- TF's small option and context types ----------------------------------------------

class InputContext:
    """What an input function learns about its pipeline (`tf.distribute.InputContext`).

    `num_input_pipelines` pipelines feed `num_replicas_in_sync` replicas;
    this one is `input_pipeline_id`. Use the id to shard (e.g. a
    `DistributedSampler(num_replicas=ctx.num_input_pipelines,
    rank=ctx.input_pipeline_id)`) and `get_per_replica_batch_size` for the
    batch size each element should have.
    """

    __slots__ = ("_num_input_pipelines", "_input_pipeline_id", "_num_replicas_in_sync")

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """`global_batch_size // num_replicas_in_sync`; a `ValueError` (TF's text) if it
        does not divide."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync!r} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")

    __repr__ = __str__


class InputReplicationMode(enum.Enum):
    """Whether an input function runs once per worker or once per replica."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputOptions(collections.namedtuple("InputOptions", [
        "experimental_fetch_to_device", "experimental_replication_mode",
        "experimental_place_dataset_on_device", "experimental_per_replica_buffer_size"])):
    """Options for distributing a dataset (`tf.distribute.InputOptions`).

    `experimental_fetch_to_device=False` keeps components on the host CPU;
    `experimental_replication_mode=PER_REPLICA` runs the input function once
    per replica. `experimental_place_dataset_on_device` only validates (a
    tfcompat pipeline is Python: it runs on the host);
    `experimental_per_replica_buffer_size` is accepted and ignored
    (components are copied when the step is asked for, not prefetched).
    """

    def __new__(cls, experimental_fetch_to_device: Optional[bool] = None,
                experimental_replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
                experimental_place_dataset_on_device: bool = False,
                experimental_per_replica_buffer_size: int = 1) -> "InputOptions":
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(cls, experimental_fetch_to_device, experimental_replication_mode,
                               experimental_place_dataset_on_device,
                               experimental_per_replica_buffer_size)


# -- Sources and the replica layout ---------------------------------------------------

def _check_source(source: Any, what: str) -> None:
    """Refuse what is one element or a set of examples rather than an iterable of batches."""
    recipe = ("pass an iterable of batches, e.g. torch.utils.data.DataLoader(TensorDataset(x, y), "
              "batch_size=GLOBAL_BATCH_SIZE) or a list of (x, y) batches")
    if isinstance(source, (torch.Tensor, np.ndarray)):
        raise TypeError(f"{what} got a single {type(source).__name__}: iterating it would give "
                        f"its rows, not batches; {recipe}.")
    if isinstance(source, (tuple, dict, collections.abc.Mapping)):
        raise TypeError(f"{what} got a {type(source).__name__}, which TF reads as one nested "
                        f"element (as in from_tensor_slices((x, y))); {recipe}.")
    if isinstance(source, torch.utils.data.Dataset):
        raise TypeError(f"{what} got a torch {type(source).__name__}, which yields examples; wrap "
                        "it: DataLoader(ds, batch_size=GLOBAL_BATCH_SIZE), or DataLoader(ds, "
                        "batch_size=None) for one that already yields batches.")
    if not isinstance(source, collections.abc.Iterable):
        raise TypeError(f"{what} needs an iterable of batches, got {type(source).__name__}; "
                        f"{recipe}.")


def _sampler_of(loader: torch.utils.data.DataLoader) -> Any:
    batch_sampler = getattr(loader, "batch_sampler", None)
    return getattr(batch_sampler, "sampler", None) or getattr(loader, "sampler", None)


def _torch_device(device: Any) -> torch.device:
    """A torch device, with the current index for an indexed accelerator (`cuda` -> `cuda:0`),
    so the components' devices read as the tensors' own do."""
    if not isinstance(device, torch.device):
        try:
            device = torch.device(device)
        except (RuntimeError, TypeError):
            device = device_lib.torch_device_for(device)  # a TF name: "/gpu:1"
    module = getattr(torch, device.type, None)
    if device.type != "cpu" and device.index is None and hasattr(module, "current_device"):
        device = torch.device(device.type, module.current_device())
    return device


def _layout(num_replicas_in_sync: int, local_devices: Sequence[Any], num_workers: int,
            worker_index: int, options: Optional[InputOptions]) -> Tuple[torch.device, ...]:
    """Validate the replica layout; the devices components go to."""
    if num_workers < 1 or not 0 <= worker_index < num_workers:
        raise ValueError(f"worker_index must be in [0, {num_workers}), got {worker_index}.")
    if num_replicas_in_sync % num_workers:
        raise ValueError(
            "tf.distribute expects every worker to have the same number of replicas. However, "
            f"encountered `num_replicas_in_sync` ({num_replicas_in_sync}) that cannot be "
            f"divided by `num_workers` ({num_workers})")
    devices = tuple(_torch_device(d) for d in local_devices)
    if not devices or len(devices) != num_replicas_in_sync // num_workers:
        raise ValueError(f"{num_replicas_in_sync} replicas in sync over {num_workers} worker(s) "
                         f"need {num_replicas_in_sync // num_workers} local device(s), got "
                         f"{len(devices)}: {devices}.")
    if options is not None and not options.experimental_fetch_to_device:
        return (_HOST,) * len(devices)
    return devices


# -- Iterators ------------------------------------------------------------------------

# What `get_next_as_optional()` returns (`tf.experimental.Optional`'s eager API).
DistributedOptional = OptionalValue


class DistributedIterator:
    """An iterator over a distributed dataset (`tf.distribute.DistributedIterator`).

    Each element is the input nest with every tensor replaced by
    `wrap(components)`, one component per local replica (plain tensors when
    `always_wrap` is false and there is one replica). Once exhausted it stays
    exhausted. As TF's (and `tf.data`'s), one iterator may be shared by
    threads: each element goes to exactly one caller (a lock per iterator).
    """

    def __init__(self, steps: Iterator[Step], wrap: Callable[[tuple], Any],
                 always_wrap: bool, dataset: Any = None) -> None:
        self._steps = steps
        self._lock = threading.RLock()
        self._wrap = wrap
        self._always_wrap = always_wrap
        self._dataset = dataset

    @property
    def element_spec(self) -> Any:
        """The distributed dataset's `element_spec` (a `tf.data.Dataset` source only)."""
        if self._dataset is None:
            raise TypeError("This iterator's source has no element_spec.")
        return self._dataset.element_spec

    def __iter__(self) -> "DistributedIterator":
        return self

    def __next__(self) -> Any:
        with self._lock:
            structure, columns = next(self._steps)  # StopIteration ends the iteration
        if self._always_wrap:
            leaves = [self._wrap(components) for components in columns]
        else:
            leaves = [components[0] for components in columns]
        return nest.pack_sequence_as(structure, leaves)

    def get_next(self) -> Any:
        """The next element; TF's `OutOfRangeError` when there is none."""
        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> DistributedOptional:
        """The next element as an optional that is empty at the end (no exception)."""
        try:
            return DistributedOptional(next(self), True)
        except StopIteration:
            return DistributedOptional()


PerDeviceDataIterator = DistributedIterator  # the seed's name


# -- Distributed datasets -------------------------------------------------------------

class DistributedDataset:
    """A source whose global batches are split across replicas (`tf.distribute.DistributedDataset`).

    Iterable any number of times (each `iter()` is an epoch over the source);
    see the module docstring for the split and sharding rules.
    """

    def __init__(self, source: Iterable[Any], *, num_replicas_in_sync: int,
                 local_devices: Sequence[Any], num_workers: int = 1, worker_index: int = 0,
                 wrap: Callable[[tuple], Any] = PerReplica,
                 options: Optional[InputOptions] = None) -> None:
        _check_source(source, "experimental_distribute_dataset")
        if options is not None and (options.experimental_replication_mode
                                    is InputReplicationMode.PER_REPLICA):
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`distribute_datasets_from_function`.")
        if num_workers > 1 and isinstance(source, torch.utils.data.DataLoader) and isinstance(
                _sampler_of(source), torch.utils.data.distributed.DistributedSampler):
            raise ValueError(
                "This DataLoader's DistributedSampler already shards the data per worker, and "
                "experimental_distribute_dataset shards it again (each worker keeps 1/num_workers "
                "of every batch). Build the per-worker loader in "
                "strategy.distribute_datasets_from_function(lambda ctx: loader), whose "
                "elements are per-replica batches, or give this one a plain sampler.")
        policy = shard_policy(source)
        if num_workers > 1 and policy == "FILE":
            raise errors.NotFoundError(
                None, None, "Found an unshardable source dataset: a tf.data.Dataset in tfcompat "
                "reads no files, so AutoShardPolicy.FILE cannot shard it; use DATA or AUTO.")
        # OFF (and FILE on one worker, which TF leaves unsharded): every worker reads every
        # batch, rebatched by TF's batch-size-aware rule (`input_steps.unsharded_steps`).
        self._unsharded_batch_size = (static_batch_size(source) if policy in ("OFF", "FILE")
                                      else None)
        self._source = source
        self._devices = _layout(num_replicas_in_sync, local_devices, num_workers, worker_index,
                                options)
        self._n = num_replicas_in_sync
        self._num_workers = num_workers
        self._worker_index = worker_index
        self._wrap = wrap
        self._always_wrap = num_workers > 1 or len(self._devices) > 1

    @property
    def num_replicas_in_sync(self) -> int:
        return self._n

    @property
    def cardinality(self) -> np.int64:
        """The source's element count (TF's: global batches, -1 infinite, -2 unknown)."""
        return cardinality_of(self._source)

    @property
    def element_spec(self) -> Any:
        """Each replica's view of the source's spec (see the module docstring)."""
        spec = dataset_spec(self._source, "DistributedDataset")
        return per_replica_spec(spec, len(self._devices), self._always_wrap,
                                 self._n if self._n > 1 else None)

    def __iter__(self) -> DistributedIterator:
        if self._unsharded_batch_size is None or self._n == 1:
            steps = split_steps(iter(self._source), self._n, self._num_workers,
                                 self._worker_index, self._devices)
        else:
            steps = unsharded_steps(iter(self._source), self._n, self._num_workers,
                                     self._worker_index, self._devices,
                                     self._unsharded_batch_size, self._source)
        return DistributedIterator(steps, self._wrap, self._always_wrap, self)

    def make_one_shot_iterator(self) -> DistributedIterator:
        """The seed's (TF 1) spelling of `iter(dataset)`."""
        return iter(self)


class DistributedDatasetsFromFunction:
    """Per-replica batches from an input function, dealt to replicas
    (`strategy.distribute_datasets_from_function`).

    The function runs here, once per input pipeline (see the module
    docstring); each `iter()` iterates the pipelines it returned again.
    """

    def __init__(self, dataset_fn: Callable[[InputContext], Iterable[Any]], *,
                 num_replicas_in_sync: int, local_devices: Sequence[Any], num_workers: int = 1,
                 worker_index: int = 0, wrap: Callable[[tuple], Any] = PerReplica,
                 options: Optional[InputOptions] = None,
                 any_worker_has_data: Optional[Callable[[bool], bool]] = None) -> None:
        mode = InputReplicationMode.PER_WORKER if options is None else (
            options.experimental_replication_mode)
        per_replica = mode is InputReplicationMode.PER_REPLICA
        if options is not None and options.experimental_place_dataset_on_device:
            if not per_replica:
                raise ValueError("When `experimental_place_dataset_on_device` is set for dataset "
                                 "placement, you must also specify `PER_REPLICA` for the "
                                 "replication mode")
            if options.experimental_fetch_to_device:
                raise ValueError("`experimental_place_dataset_on_device` can not be set to True "
                                 "when experimental_fetch_to_device is True and replication mode "
                                 "is set to `PER_REPLICA`")
        if per_replica and num_workers > 1:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`distribute_datasets_from_function` of "
                                      "tf.distribute.MirroredStrategy")
        # PER_REPLICA: each replica's pipeline is its own input worker, so the placement on the
        # replica's device holds whatever experimental_fetch_to_device says (as TF).
        self._devices = _layout(num_replicas_in_sync, local_devices, num_workers, worker_index,
                                None if per_replica else options)
        local = len(self._devices)
        if per_replica:
            contexts = [InputContext(local, r, num_replicas_in_sync) for r in range(local)]
        else:
            contexts = [InputContext(num_workers, worker_index, num_replicas_in_sync)]
        self._sources = []
        for context in contexts:
            source = dataset_fn(context)
            _check_source(source, "The dataset_fn of distribute_datasets_from_function")
            self._sources.append(source)
        self._per_replica = per_replica
        # A loader that promises full batches stands for TF's statically shaped elements.
        self._drop_partial = all(
            isinstance(s, torch.utils.data.DataLoader) and s.drop_last and s.batch_size is not None
            for s in self._sources)
        if all(is_tf_dataset(s) for s in self._sources):
            # Read when a partial step happens: a map's spec runs its function on a sample.
            self._drop_partial = lambda: all(static_spec(s) for s in self._sources)
        self._multi_worker = num_workers > 1
        self._any_worker_has_data = any_worker_has_data
        self._n = num_replicas_in_sync
        self._wrap = wrap
        self._always_wrap = num_workers > 1 or local > 1

    @property
    def num_replicas_in_sync(self) -> int:
        return self._n

    @property
    def cardinality(self) -> np.int64:
        """The element count of `dataset_fn`'s dataset (per-replica batches, as TF)."""
        return cardinality_of(self._sources[0])

    @property
    def element_spec(self) -> Any:
        """The spec of `dataset_fn`'s datasets, per local replica (a `PerReplicaSpec`)."""
        spec = dataset_spec(self._sources[0], "DistributedDatasetsFromFunction")
        return per_replica_spec(spec, len(self._devices), self._always_wrap, None)

    def __iter__(self) -> DistributedIterator:
        drop = self._drop_partial
        steps = dealt_steps([iter(s) for s in self._sources], self._devices, self._per_replica,
                             drop if callable(drop) else (lambda: drop), self._multi_worker,
                             self._any_worker_has_data)
        return DistributedIterator(steps, self._wrap, self._always_wrap, self)

    def make_one_shot_iterator(self) -> DistributedIterator:
        """The seed's (TF 1) spelling of `iter(dataset)`."""
        return iter(self)


def distribute_dataset(source: Iterable[Any], *, num_replicas_in_sync: int,
                       local_devices: Sequence[Any], num_workers: int = 1, worker_index: int = 0,
                       wrap: Callable[[tuple], Any] = PerReplica,
                       options: Optional[InputOptions] = None) -> DistributedDataset:
    """`strategy.experimental_distribute_dataset(source, options)` for a strategy's layout.

    `source` yields global batches; each step gives this worker's local
    replicas their chunks (`replica_bounds`), on `local_devices`.
    """
    return DistributedDataset(source, num_replicas_in_sync=num_replicas_in_sync,
                              local_devices=local_devices, num_workers=num_workers,
                              worker_index=worker_index, wrap=wrap, options=options)


def distribute_from_function(dataset_fn: Callable[[InputContext], Iterable[Any]], *,
                             num_replicas_in_sync: int, local_devices: Sequence[Any],
                             num_workers: int = 1, worker_index: int = 0,
                             wrap: Callable[[tuple], Any] = PerReplica,
                             options: Optional[InputOptions] = None,
                             any_worker_has_data: Optional[Callable[[bool], bool]] = None,
                             ) -> DistributedDatasetsFromFunction:
    """`strategy.distribute_datasets_from_function(dataset_fn, options)` for a strategy's layout.

    `dataset_fn(InputContext)` runs now and returns an iterable of
    per-replica batches. `any_worker_has_data(flag) -> bool`, for several
    workers, reduces "this worker still has data" across workers once per
    step (one all-reduce, as TF), so that workers stop together.
    """
    return DistributedDatasetsFromFunction(
        dataset_fn, num_replicas_in_sync=num_replicas_in_sync, local_devices=local_devices,
        num_workers=num_workers, worker_index=worker_index, wrap=wrap, options=options,
        any_worker_has_data=any_worker_has_data)


class PerDeviceDataset(DistributedDatasetsFromFunction):
    """The seed's per-device dataset: `dataset` yields one batch per device, dealt in turn.

    As the seed (which batched `len(devices)` elements with
    `drop_remainder=True`), a last group smaller than the device count is
    dropped. `prefetch_on_device` (graph-mode prefetching) is accepted and
    ignored.
    """

    def __init__(self, dataset: Iterable[Any], devices: Sequence[Any],
                 prefetch_on_device: Optional[bool] = None) -> None:
        super().__init__(lambda context: dataset, num_replicas_in_sync=len(devices),
                         local_devices=devices)
        self._drop_partial = True


# -- Several steps at once (the seed's MultiIterator, for experimental_run_steps_on_iterator) ---

class PerIteration:
    """The inputs of several steps: `get(i)` is step `i`'s input.

    The seed held them leaf by leaf (for a graph-mode `gather`); eagerly a
    step loop wants them step by step, so `values` is a tuple with one
    element per iteration (a tuple of `batches_per_iteration` elements when
    that is more than one).
    """

    __slots__ = ("_values",)

    def __init__(self, values: Sequence[Any]) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        return self._values

    def get(self, iteration: int) -> Any:
        return self._values[iteration]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __repr__(self) -> str:
        return f"PerIteration({list(self._values)!r})"


class MultiIterator:
    """Pull the inputs of `iterations` steps at once from a distributed iterator.

    `get_next()` returns a `PerIteration` of up to `iterations` step inputs:
    short when the data ends inside the group (the caller runs the steps it
    got), `OutOfRangeError` when there is none. A step that would be left
    with fewer than `batches_per_iteration` batches is dropped.
    """

    def __init__(self, dataset_iterator: Any, iterations: int,
                 batches_per_iteration: int = 1) -> None:
        if iterations < 1 or batches_per_iteration < 1:
            raise ValueError(f"iterations ({iterations}) and batches_per_iteration "
                             f"({batches_per_iteration}) must be positive.")
        self._iterator = iter(dataset_iterator)  # an iterator is its own iter()
        self._iterations = iterations
        self._batches_per_iteration = batches_per_iteration

    def get_next(self) -> PerIteration:
        steps = []
        for _ in range(self._iterations):
            batches = []
            for _ in range(self._batches_per_iteration):
                element = pull(self._iterator)
                if element is MISSING:
                    break
                batches.append(element)
            if len(batches) < self._batches_per_iteration:
                break
            steps.append(batches[0] if self._batches_per_iteration == 1 else tuple(batches))
        if not steps:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        return PerIteration(steps)

    def __iter__(self) -> Iterator[PerIteration]:
        while True:
            try:
                yield self.get_next()
            except errors.OutOfRangeError:
                return
