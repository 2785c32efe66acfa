"""How global batches become replica steps: TF's split rules and the placement of pieces.

`input_lib` builds distributed datasets and iterators; this module holds
what they run per batch: `replica_bounds` (DATA sharding, one step per
global batch), `rebatch_sizes` and `unsharded_steps` (a dataset no worker
shards: TF's batch-size-aware rebatch), `dealt_steps` (per-replica batches
from input functions), and how a piece reaches its replica's device
(`host_leaf`, `place`). See `input_lib`'s docstring for the rules.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple

import numpy as np
import torch

from ..framework import nest
from ..framework.tensor_conversion import convert_to_tensor_on
from .input_specs import is_tf_dataset

__all__ = ["replica_bounds", "rebatch_sizes", "host_leaf", "place", "empty_like", "Step",
           "batch_leaves", "split_steps", "unsharded_steps", "dealt_steps", "MISSING", "pull"]

_HOST = torch.device("cpu")


# -- The split rule -------------------------------------------------------------------

def replica_bounds(batch_size: int, num_replicas_in_sync: int, num_workers: int = 1,
                   worker_index: int = 0) -> List[Tuple[int, int]]:
    """The `[start, stop)` rows of a global batch each local replica of a worker gets.

    TF's rule for `experimental_distribute_dataset` (see the module
    docstring): `n = num_replicas_in_sync` chunks of `ceil(b / n)` rows,
    the tail ones short or empty; local replica `r` of worker `w` takes
    chunk `w + r * num_workers`.
    """
    n = num_replicas_in_sync
    per_worker = n // num_workers
    k = -(-batch_size // n)  # ceil without floats
    bounds = []
    for r in range(per_worker):
        c = worker_index + r * num_workers
        start = min(c * k, batch_size)
        bounds.append((start, min(start + k, batch_size)))
    return bounds


def rebatch_sizes(num_replicas_in_sync: int, num_workers: int, worker_index: int,
                  static_batch_size: int) -> List[int]:
    """The piece sizes TF's batch-size-aware rebatch cycles through on a worker: `G // n`
    rows, plus one for the first `G % n`, rotated by `worker_index * R` (TF's
    `batch_sizes_for_worker`; 7 over 3 replicas: 3, 2, 2)."""
    n = num_replicas_in_sync
    q, extra = divmod(static_batch_size, n)
    sizes = [q + (1 if c < extra else 0) for c in range(n)]
    shift = worker_index * (n // num_workers)
    return sizes[shift:] + sizes[:shift]


# -- Leaves and placement -------------------------------------------------------------

# NumPy dtypes torch.from_numpy takes with TF's dtype (a borrowed view, copied per component).
_BORROWABLE = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32,
    np.float64, np.complex64, np.complex128))


def host_leaf(value: Any) -> Tuple[torch.Tensor, bool]:
    """`(tensor, borrowed)`: a leaf as a tensor; `borrowed` when it shares a NumPy array's memory.

    A borrowed tensor is never handed out: `place` copies it (a device
    transfer is that copy). Everything else NumPy or Python goes through
    tfcompat's conversion (TF's dtypes, a fresh tensor).
    """
    if isinstance(value, torch.Tensor):
        return value, False
    if (type(value) is np.ndarray and value.dtype in _BORROWABLE and value.dtype.isnative
            and value.flags.writeable and all(s >= 0 for s in value.strides)):
        return torch.from_numpy(value), True
    return convert_to_tensor_on(_HOST, value), False


def place(piece: torch.Tensor, device: torch.device, borrowed: bool) -> torch.Tensor:
    """A replica's component on its device: no copy if it is there and ours to share.

    `Tensor.to` returns the tensor itself when it is on `device` already, so
    only a borrowed NumPy view bound for the host needs an explicit copy.
    """
    if borrowed and device.type == "cpu":
        return piece.clone()
    # Only host->accelerator or accelerator->accelerator copies may be asynchronous: a
    # non-blocking copy *to* the host could be read before it lands.
    return piece.to(device, non_blocking=device.type != "cpu")


def empty_like(component: torch.Tensor, device: torch.device) -> torch.Tensor:
    """TF's dummy value for a replica without data: no rows (a scalar becomes a zero)."""
    if component.dim() == 0:
        return torch.zeros((), dtype=component.dtype, device=device)
    return torch.empty((0,) + tuple(component.shape[1:]), dtype=component.dtype, device=device)


# -- Steps --------------------------------------------------------------------------

# A step is the element's structure and, per leaf, one component per local replica.
Step = Tuple[Any, List[Tuple[torch.Tensor, ...]]]


def batch_leaves(batch: Any, n: int) -> List[Tuple[torch.Tensor, bool]]:
    leaves = [host_leaf(leaf) for leaf in nest.flatten(batch)]
    if n > 1:
        for t, _ in leaves:
            if t.dim() == 0:
                raise ValueError(
                    f"Splitting a batch across {n} replicas needs tensors with a leading batch "
                    f"dimension, but the batch holds a scalar ({t!r}). Batch the input (TF: "
                    "`dataset.batch(GLOBAL_BATCH_SIZE)`; torch: DataLoader(..., "
                    "batch_size=GLOBAL_BATCH_SIZE)).")
    return leaves


def split_steps(source: Iterable[Any], n: int, num_workers: int, worker_index: int,
                 devices: Tuple[torch.device, ...]) -> Iterator[Step]:
    """One step per global batch: each tensor cut by `replica_bounds`, placed per replica."""
    for batch in source:
        leaves = batch_leaves(batch, n)
        if n == 1:
            yield batch, [(place(t, devices[0], borrowed),) for t, borrowed in leaves]
            continue
        columns = []
        for t, borrowed in leaves:
            bounds = replica_bounds(t.shape[0], n, num_workers, worker_index)
            columns.append(tuple(place(t.narrow(0, start, stop - start), device, borrowed)
                                 for (start, stop), device in zip(bounds, devices)))
        yield batch, columns


def unsharded_steps(source: Iterable[Any], n: int, num_workers: int, worker_index: int,
                     devices: Tuple[torch.device, ...], static_batch_size: int,
                     dataset: Any = None) -> Iterator[Step]:
    """Steps of a dataset no worker shards (`auto_shard_policy` OFF; FILE on one worker).

    Every worker reads every batch, and TF rebatches the stream into pieces
    that the worker's `R` replicas take `R` at a time. With a static batch
    size `G`: pieces cycle through `rebatch_sizes` across batch boundaries,
    a piece cut short where its batch ends (a last batch of 5 for 3 replicas
    and G = 7: 3, 2, then the next batch). Without one (`G = -1`, e.g. a
    `map` after the `batch`): each batch makes `n` pieces of `ceil(b / n)`
    rows (the legacy rebatch). A last step with too few pieces gives the
    other replicas empty batches (of the `dataset`'s spec, unknown dims 0).
    """
    local = len(devices)
    sizes = (rebatch_sizes(n, num_workers, worker_index, static_batch_size)
             if static_batch_size > 0 else None)
    turn = 0  # index into `sizes`, carried across batches
    pending: List[Tuple[Any, List[torch.Tensor]]] = []  # this step's pieces so far

    def step() -> Step:
        structure = pending[0][0]
        columns = list(zip(*[[place(p, device, borrowed) for p, borrowed in parts]
                             for (_, parts), device in zip(pending, devices)]))
        if len(pending) < local:
            # TF's dummy for a replica without data: the spec's shape, unknown dims as 0.
            template = [t for t, _ in pending[-1][1]]
            if is_tf_dataset(dataset):
                specs = nest.flatten(dataset.element_spec)
                template = [torch.empty([0] + [d or 0 for d in s.shape.as_list()[1:]],
                                        dtype=t.dtype) for s, t in zip(specs, template)]
            for device in devices[len(pending):]:
                columns = [c + (empty_like(t, device),) for c, t in zip(columns, template)]
        return structure, [tuple(c) for c in columns]

    for batch in source:
        leaves = batch_leaves(batch, n)
        rows = leaves[0][0].shape[0]
        if sizes is None:
            k = -(-rows // n)
            bounds = [(min(c * k, rows), min(c * k + k, rows)) for c in range(n)]
        else:
            bounds, start = [], 0
            while start < rows:
                stop = min(start + sizes[turn % n], rows)
                bounds.append((start, stop))
                start, turn = stop, turn + 1
        for start, stop in bounds:
            pending.append((batch, [(t.narrow(0, start, stop - start), borrowed)
                                    for t, borrowed in leaves]))
            if len(pending) == local:
                yield step()
                pending = []
    if pending:
        yield step()


MISSING = object()  # a replica's slot in a step its pipeline could not fill


def pull(iterator: Iterator[Any]) -> Any:
    try:
        return next(iterator)
    except StopIteration:
        return MISSING


def dealt_steps(iterators: List[Iterator[Any]], devices: Tuple[torch.device, ...],
                 per_replica: bool, drop_partial: Callable[[], bool], multi_worker: bool,
                 any_worker_has_data: Optional[Callable[[bool], bool]]) -> Iterator[Step]:
    """Steps of one element per replica: in turn from one pipeline, or one pipeline each."""
    live = [True] * len(iterators)
    template: Optional[List[torch.Tensor]] = None  # the last element seen, for empty batches
    structure: Any = None
    while True:
        elements: List[Any] = []
        for r in range(len(devices)):
            i = r if per_replica else 0
            element = pull(iterators[i]) if live[i] else MISSING
            live[i] = element is not MISSING
            elements.append(element)
        missing = sum(e is MISSING for e in elements)
        has_data = missing < len(devices)
        if any_worker_has_data is not None:
            has_data = bool(any_worker_has_data(has_data))
        if not has_data:
            return
        columns_by_replica: List[Optional[List[torch.Tensor]]] = []
        for element, device in zip(elements, devices):
            if element is MISSING:
                columns_by_replica.append(None)
                continue
            if structure is None:
                structure = element
            else:
                nest.assert_same_structure(structure, element)
            flat = [place(t, device, borrowed)
                    for t, borrowed in map(host_leaf, nest.flatten(element))]
            columns_by_replica.append(flat)
            template = flat
        if missing:
            if template is None:
                raise ValueError("This worker's input pipeline produced no element, so it cannot "
                                 "give its replicas empty batches while other workers have data.")
            # Single-worker TF drops a partial step when the element shapes are static (TF's
            # drop_remainder batches; scalars); otherwise, and always with several workers,
            # the replicas without data get empty batches.
            static = all(t.dim() == 0 for t in template) or drop_partial()
            if not multi_worker and static:
                return
            columns_by_replica = [
                c if c is not None else [empty_like(t, d) for t in template]
                for c, d in zip(columns_by_replica, devices)]
        yield structure, [tuple(c) for c in zip(*columns_by_replica)]
