"""Reductions of per-replica values inside one process (TF's `cross_device_ops.py`).

`reduce_values` and `batch_reduce_values` combine one tensor per replica
into one result per destination device:

* dense tensors are summed in TF's `add_n` order (left to right, the order
  `ReductionToOneDevice` uses), so a strategy's sum rounds as TF's does;
  `MEAN` divides the sum by the number of values;
* `IndexedSlices` are concatenated (values and indices), as TF aggregates
  sparse gradients; `MEAN` divides the values;
* the replicas' values must agree in dtype and shape: a mismatch is an
  `InvalidArgumentError` (as TF's `AddN` and collectives) naming both
  replicas' values;
* results for replicas on the same torch device are copy-on-write clones of
  one tensor (no copy unless somebody writes, and a write never reaches the
  other replica's result); on other devices a copy there.

`batch_reduce_values` sums many values with one multi-tensor op per
replica per (device, dtype) group (`torch._foreach_add`), not one op per
value: the gradient reduction of a training step. On several GPUs,
`torch.cuda.comm.reduce_add_coalesced` does the same with coalesced
transfers (written for, and tested on, machines with two GPUs).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch

from ..framework.copy_on_write import snapshot_of
from ..framework import dtypes
from ..framework.dtypes import tf_type_name
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor
from ..ops import reduction_ops
from . import cuda_comm
from .reduce_util import ReduceOp

__all__ = ["reduce_values", "batch_reduce_values", "copy_to_devices", "check_compatible",
           "check_gatherable"]


def _describe(t: Any) -> str:
    if isinstance(t, IndexedSlices):
        return (f"IndexedSlices(values shape={list(t.values.shape)}, "
                f"dtype={dtypes.from_torch(t.values.dtype).name})")
    return f"shape={list(t.shape)} dtype={dtypes.from_torch(t.dtype).name}"


def _mismatch(what: str, first: Any, i: int, v: Any, a: Any, b: Any) -> InvalidArgumentError:
    """TF's error class for replicas whose values differ (`AddN`'s, the collectives'), naming
    both replicas' values."""
    if a.dtype != b.dtype:
        problem = (f"replica {i}'s value was expected to be a {tf_type_name(a.dtype)} tensor but "
                   f"is a {tf_type_name(b.dtype)} tensor")
    else:
        problem = "Shape mismatch"
    return InvalidArgumentError(
        None, None,
        f"Cannot {what} across replicas ({problem}): replica 0 has {_describe(first)} but "
        f"replica {i} has {_describe(v)}; every replica must pass values of the same dtype and "
        "shape.")


def check_compatible(values: Sequence[Any], what: str = "reduce") -> None:
    """Raise an `InvalidArgumentError` naming the first two replicas whose values differ in
    dtype or shape."""
    first = values[0]
    for i, v in enumerate(values[1:], 1):
        if isinstance(first, IndexedSlices) or isinstance(v, IndexedSlices):
            a = first.values if isinstance(first, IndexedSlices) else first
            b = v.values if isinstance(v, IndexedSlices) else v
            if a.dtype != b.dtype or a.shape[1:] != b.shape[1:]:
                raise _mismatch(what, first, i, v, a, b)
            continue
        if v.dtype != first.dtype or v.shape != first.shape:
            raise _mismatch(what, first, i, v, first, v)


def check_gatherable(values: Sequence[torch.Tensor], axis: int) -> None:
    """What a gather along `axis` needs of the replicas' values, with TF's exception classes:
    rank >= 1 (`ValueError`), one dtype and the same shape off `axis` (`InvalidArgumentError`)."""
    first = values[0]
    if first.dim() == 0:
        raise ValueError("Cannot gather scalars across replicas: every replica's value needs "
                         "rank >= 1 (add an axis first, e.g. tf.expand_dims(value, 0)).")
    rank = first.dim()
    if not -rank <= axis < rank:
        raise ValueError(f"Cannot gather along axis {axis}: the replicas' values have rank {rank}.")
    a = axis % rank
    for i, v in enumerate(values[1:], 1):
        if v.dtype != first.dtype or v.dim() != rank or \
                v.shape[:a] != first.shape[:a] or v.shape[a + 1:] != first.shape[a + 1:]:
            raise _mismatch("gather", first, i, v, first, v)


def _as_tensors(values: Sequence[Any]) -> list:
    return [v if isinstance(v, (torch.Tensor, IndexedSlices)) else convert_to_tensor(v) for v in values]


def _sum_sparse(values: list) -> IndexedSlices:
    parts = [v if isinstance(v, IndexedSlices) else _dense_as_slices(v) for v in values]
    device = parts[0].values.device
    vals = torch.cat([p.values.to(device) for p in parts])
    idx = torch.cat([p.indices.to(device) for p in parts])
    return IndexedSlices(vals, idx, parts[0].dense_shape)


def _dense_as_slices(t: torch.Tensor) -> IndexedSlices:
    idx = torch.arange(t.shape[0], device=t.device)
    return IndexedSlices(t, idx, torch.tensor(list(t.shape)))


def reduce_values(reduce_op: ReduceOp, values: Sequence[Any]) -> Any:
    """One replica-value per replica -> their sum or mean (a tensor or `IndexedSlices`)."""
    values = _as_tensors(values)
    check_compatible(values)
    if any(isinstance(v, IndexedSlices) for v in values):
        out = _sum_sparse(values)
        if reduce_op is ReduceOp.MEAN:
            out = IndexedSlices(out.values / len(values), out.indices, out.dense_shape)
        return out
    device = values[0].device
    same = [v if v.device == device else v.to(device) for v in values]
    with torch.no_grad():
        total = snapshot_of(same[0].detach()) if len(same) == 1 else reduction_ops.add_n(same)
        if reduce_op is ReduceOp.MEAN:
            total = _divide(total, len(values))
    return total


def _divide(t: torch.Tensor, n: int) -> torch.Tensor:
    if t.is_floating_point() or t.is_complex():
        return t / n
    return torch.div(t, n, rounding_mode="trunc")  # TF's integer division of a sum


def batch_reduce_values(reduce_op: ReduceOp, per_value: Sequence[Sequence[Any]]) -> list:
    """Reduce many values at once: `per_value[k]` holds value k's component per replica.

    Dense float values that share a (device, dtype) are summed with one
    `_foreach_add` per extra replica, in replica order (the sum `add_n`
    computes for up to nine replicas); values with one replica per GPU are
    summed into the first GPU with coalesced transfers (`cuda_comm.py`);
    everything else goes through `reduce_values` one by one.
    """
    results: list = [None] * len(per_value)
    groups: dict = {}
    gpu_groups: dict = {}
    n_replicas = len(per_value[0]) if per_value else 0
    for k, comps in enumerate(per_value):
        first = comps[0]
        if (n_replicas <= 9 and type(first) is torch.Tensor and first.is_floating_point()
                and all(type(c) is torch.Tensor for c in comps)):
            check_compatible(comps)
            dev = first.device
            if all(c.device == dev for c in comps):
                groups.setdefault((dev, first.dtype), []).append(k)
                continue
            if cuda_comm.on_distinct_gpus(comps):
                gpu_groups.setdefault((tuple(c.device for c in comps), first.dtype), []).append(k)
                continue
        results[k] = reduce_values(reduce_op, comps)
    for idx in gpu_groups.values():
        # One replica per GPU: coalesced transfers into the first GPU (torch.cuda.comm).
        sums = cuda_comm.sum_across_gpus([[per_value[k][r] for k in idx] for r in range(n_replicas)])
        if reduce_op is ReduceOp.MEAN:
            sums = torch._foreach_div(sums, float(n_replicas))
        for k, t in zip(idx, sums):
            results[k] = t
    with torch.no_grad():
        for idx in groups.values():
            columns = [[per_value[k][r] for k in idx] for r in range(n_replicas)]
            # (one replica: its values, off the graph and never aliased by the result)
            total = [snapshot_of(t.detach()) for t in columns[0]] if n_replicas == 1 else \
                torch._foreach_add(columns[0], columns[1])
            for r in range(2, n_replicas):
                torch._foreach_add_(total, columns[r])
            if reduce_op is ReduceOp.MEAN and n_replicas > 1:
                total = torch._foreach_div(total, float(n_replicas))
            for k, t in zip(idx, total):
                results[k] = t
    return results


def copy_to_devices(value: Any, devices: Sequence[torch.device]) -> tuple:
    """`value` once per destination device: copy-on-write clones where it already is."""
    out = []
    for i, dev in enumerate(devices):
        if isinstance(value, IndexedSlices):
            if value.values.device == dev:
                out.append(value if i == 0 else IndexedSlices(
                    snapshot_of(value.values), snapshot_of(value.indices), value.dense_shape))
            else:
                out.append(IndexedSlices(value.values.to(dev, non_blocking=True),
                                         value.indices.to(dev, non_blocking=True), value.dense_shape))
            continue
        if value.device == dev:
            # (memory numpy lent, e.g. a tf.constant of a list, is copied: torch cannot share it)
            out.append(value if i == 0 else snapshot_of(value))
        else:
            out.append(value.to(dev, non_blocking=True))
    return tuple(out)


def value_device(value: Any) -> Optional[torch.device]:
    if isinstance(value, IndexedSlices):
        return value.values.device
    return getattr(value, "device", None) if isinstance(value, torch.Tensor) else None
