"""`tf.distribute.MultiWorkerMirroredStrategy`: synchronous training over processes.

One process per worker, joined by a `torch.distributed` process group
(gloo on CPU, NCCL on CUDA; `collectives.py`), started by `torchrun`
(`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`) or from
TF's `TF_CONFIG` cluster spec (`cluster_resolver.py`), as TF programs
start it. Each worker computes on its local device: `cuda:LOCAL_RANK` when
there are GPUs (torchrun's one-process-per-GPU layout; TF gives a worker
every local GPU), else the CPU.

Everything `MirroredStrategy` does locally, plus:

* variables are initialized identically on every worker: the chief's
  initial value is broadcast when a variable is created (every worker
  creates the same variables in the same order, as TF requires);
* `reduce`, `ReplicaContext.all_reduce`, `all_gather`, `merge_call`
  reductions and the optimizer's gradient sum go across workers (after the
  local replicas' values are combined), in size-capped buckets;
* DDP's overlap: inside `strategy.run`, `tape.gradient` hooks the reads of
  the variables it differentiates, and each bucket of gradients starts its
  all-reduce as soon as backward has produced it, while backward still
  computes earlier layers (`gradient_reducer.py`). `apply_gradients` waits
  for the buckets only when it needs the sums. Gradients changed between
  `tape.gradient` and `apply_gradients` (clipped, scaled, replaced) are
  reduced afresh: the early sums are of what the tape returned.

Under it the chief is `task_type == "worker"`, `task_id == 0` (or the
`chief` task of a `TF_CONFIG` with one), as TF reports through
`strategy.cluster_resolver`.
"""

from __future__ import annotations

import atexit
import weakref
from typing import Any, Callable, Optional

import torch

from ..framework import variable_protocol as protocol
from ..framework import nest
from ..framework.indexed_slices import IndexedSlices
from . import collectives as collectives_lib
from . import values as values_lib
from .cluster_resolver import (ClusterResolver, TFConfigClusterResolver,
                               TorchElasticClusterResolver, process_group_settings)
from .distribute_lib import Strategy
from .gradient_reducer import BucketedGradientReducer
from .mirrored_strategy import MirroredExtended
from .reduce_util import ReduceOp

__all__ = ["MultiWorkerMirroredStrategy", "CollectiveAllReduceExtended"]


def _local_devices(settings: Any) -> tuple:
    if torch.cuda.is_available() and torch.cuda.device_count() > 0:
        return (f"/device:GPU:{settings.local_rank % torch.cuda.device_count()}",)
    return ("/device:CPU:0",)


class CollectiveAllReduceExtended(MirroredExtended):
    """MirroredExtended whose reductions continue across the workers' process group."""

    def __init__(self, container_strategy: Strategy, cluster_resolver: Optional[ClusterResolver],
                 communication_options: Any = None) -> None:
        settings = process_group_settings(cluster_resolver)
        self._settings = settings
        super().__init__(container_strategy, _local_devices(settings))
        if torch.cuda.is_available() and torch.cuda.device_count() > 0:
            # NCCL's communicators use the current CUDA device: this worker's.
            torch.cuda.set_device(settings.local_rank % torch.cuda.device_count())
        self._collectives = collectives_lib.init_process_group(settings)
        if settings.world_size > 1:
            # Leave the group before the interpreter tears down: gloo's threads destroyed with
            # the process still in a group abort it ("terminate called without an active
            # exception") after a run that succeeded.
            atexit.register(collectives_lib.shutdown_process_group)
        self._num_workers = settings.world_size
        self._rank = settings.rank
        self._communication_options = communication_options
        self._reducers: dict = {}
        # (GradientReduction, {id(gradient): (index, gradient)}) per recent tape.gradient call
        self._pending: list = []
        self._observer = _OverlapObserver(self)

    # -- workers ----------------------------------------------------------------------
    def _worker_count(self) -> int:
        return self._num_workers

    def _worker_index(self) -> int:
        return self._rank

    def _global_replica_id(self, local_id: int) -> int:
        return self._rank * self._local_replicas() + local_id

    def _any_worker_has_data(self, mine: bool) -> bool:
        flag = torch.tensor([1.0 if mine else 0.0])
        return bool(self._collectives.all_reduce([flag], "SUM")[0].item() > 0)

    @property
    def should_checkpoint(self) -> bool:
        return bool(self._settings.is_chief)

    @property
    def should_save_summary(self) -> bool:
        return bool(self._settings.is_chief)

    @property
    def experimental_between_graph(self) -> bool:
        return True

    @property
    def experimental_should_init(self) -> bool:
        return True

    def _in_multi_worker_mode(self) -> bool:
        return self._num_workers > 1

    # -- variables: the chief's initial values everywhere ---------------------------------
    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        var = super()._create_variable(next_creator, **kwargs)
        if self._num_workers > 1:
            parts = protocol.update_components(var)
            with protocol.recorder.paused(), torch.no_grad():
                (chief,) = self._collectives.broadcast([parts[0].read_value()], src=0)
                for component in parts:
                    component.assign(chief, read_value=False)
        return var

    # -- replica runs: the gradient observer for DDP's overlap ------------------------------
    def _call_for_each_replica(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        if self._num_workers > 1 and self._local_replicas() == 1:
            with protocol.observing_gradients(self._observer):
                return super()._call_for_each_replica(fn, args, kwargs)
        return super()._call_for_each_replica(fn, args, kwargs)

    # -- reductions ---------------------------------------------------------------------
    def _non_distributed(self, reduce_op: ReduceOp, value: Any) -> Any:
        # With one local replica, a plain value is this worker's replica value.
        return value

    def _reduce_to(self, reduce_op: ReduceOp, value: Any, destinations: Any) -> Any:
        if isinstance(value, values_lib.Mirrored) and reduce_op is ReduceOp.MEAN:
            return value
        if nest.is_nested(value):  # as TF: each leaf
            return nest.map_structure(
                lambda v: self._reduce_to(reduce_op, v, destinations), value)
        if not isinstance(value, values_lib.DistributedValues) and self._local_replicas() > 1:
            return super()._reduce_to(reduce_op, value, destinations)
        return self._batch_reduce_to(reduce_op, [(value, destinations)])[0]

    def _batch_reduce_to(self, reduce_op: ReduceOp, pairs: list) -> list:
        early = self._take_early_sums(reduce_op, pairs)
        if early is not None:
            return early
        if self._local_replicas() == 1:
            # One local replica: what each value stands for is this worker's value.
            pairs = [(value if isinstance(value, values_lib.DistributedValues)
                      else values_lib.PerReplica((value,)), dest) for value, dest in pairs]
        return super()._batch_reduce_to(reduce_op, pairs)

    def _cross_worker_reduce(self, reduce_op: ReduceOp, reduced: list) -> list:
        if self._num_workers == 1 or not reduced:
            return reduced
        out = list(reduced)
        dense = [i for i, r in enumerate(reduced) if isinstance(r, torch.Tensor)]
        if dense:
            summed = self._collectives.all_reduce([reduced[i] for i in dense], reduce_op.name)
            for i, t in zip(dense, summed):
                out[i] = t
        for i, r in enumerate(reduced):
            if isinstance(r, IndexedSlices):
                values = self._collectives.all_gather(r.values, 0)
                indices = self._collectives.all_gather(r.indices, 0)
                if reduce_op is ReduceOp.MEAN:
                    values = values / self._num_workers
                out[i] = IndexedSlices(values, indices, r.dense_shape)
        return out

    def _gather_to(self, value: Any, axis: int) -> Any:
        local = super()._gather_to(value, axis)
        if self._num_workers == 1:
            return local
        return self._collectives.all_gather(local, axis)

    # -- DDP's overlap ------------------------------------------------------------------
    _MAX_PENDING = 4  # tape.gradient calls whose early sums wait for an apply_gradients

    def _take_early_sums(self, reduce_op: ReduceOp, pairs: list) -> Optional[list]:
        """The sums the tape's hooks started, if `pairs` are exactly gradients one
        `tape.gradient` call returned (the same tensor objects, unchanged since)."""
        if reduce_op is not ReduceOp.SUM or not self._pending or not pairs:
            return None
        for k, (step, entries) in enumerate(self._pending):
            hits = [entries.get(id(value)) for value, _ in pairs]
            if all(h is not None and h[1] is value for h, (value, _) in zip(hits, pairs)):
                del self._pending[k]
                sums = step.wait()
                return [self._place(sums[index], self._destination_devices(dest, value))
                        for (value, dest), (index, _) in zip(pairs, hits)]
        return None

    def _add_pending(self, step: Any, gradients: list) -> None:
        entries = {id(g): (i, g) for i, g in enumerate(gradients) if g is not None}
        if not entries:
            step.wait()
            return
        self._pending.append((step, entries))
        while len(self._pending) > self._MAX_PENDING:
            # Never applied: wait (every worker waits for what it launched) and forget.
            old, _ = self._pending.pop(0)
            old.wait()


class _OverlapObserver:
    """The strategy's side of the tape's gradient observer seam (see `variable_protocol`)."""

    def __init__(self, extended: CollectiveAllReduceExtended) -> None:
        self._extended = weakref.proxy(extended)

    def before(self, sources: list, leaves: list) -> Optional["_OverlapStep"]:
        ext = self._extended
        if not leaves or any(leaf is None or not leaf.is_floating_point() for leaf in leaves):
            return None
        if not all(getattr(s, "_distribute_strategy", None) is ext._container_strategy
                   for s in sources):
            return None
        key = (tuple(id(s) for s in sources),
               tuple((leaf.dtype, leaf.device, tuple(leaf.shape)) for leaf in leaves))
        reducer = ext._reducers.get(key)
        if reducer is None:
            reducer = ext._reducers[key] = BucketedGradientReducer(
                leaves, ReduceOp.SUM, ext._collectives)
        return _OverlapStep(ext, reducer.watch(leaves))


class _OverlapStep:
    def __init__(self, extended: Any, step: Any) -> None:
        self._extended = extended
        self._step = step

    def finish(self, gradients: list) -> None:
        self._extended._add_pending(self._step, gradients)


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training over workers (`tf.distribute.MultiWorkerMirroredStrategy`).

    `cluster_resolver`: where this worker stands (default: `TF_CONFIG`, else
    torchrun's environment, else a single local worker).
    `communication_options` is accepted for TF's signature.
    """

    def __init__(self, cluster_resolver: Optional[ClusterResolver] = None,
                 communication_options: Any = None) -> None:
        if cluster_resolver is None:
            import os
            if os.environ.get("TF_CONFIG") is None and all(
                    os.environ.get(v) for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR")):
                cluster_resolver = TorchElasticClusterResolver()
            else:
                cluster_resolver = TFConfigClusterResolver()
        self._cluster_resolver = cluster_resolver
        super().__init__(CollectiveAllReduceExtended(self, cluster_resolver, communication_options))

    @property
    def cluster_resolver(self) -> ClusterResolver:
        return self._cluster_resolver

    def __repr__(self) -> str:
        ext = self._extended
        return (f"<tf.distribute.MultiWorkerMirroredStrategy worker {ext._rank} of "
                f"{ext._num_workers}, devices={list(ext._devices)}>")


class _ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """`tf.distribute.experimental.MultiWorkerMirroredStrategy(communication=..., cluster_resolver=...)`."""

    def __init__(self, communication: Any = None, cluster_resolver: Optional[ClusterResolver] = None,
                 communication_options: Any = None) -> None:
        super().__init__(cluster_resolver=cluster_resolver,
                         communication_options=communication_options)
