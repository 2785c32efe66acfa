"""`tf.dynamic_partition` and `tf.dynamic_stitch`: split data by partition ids, and merge it back.

Both have data-dependent output shapes, so they read their index tensors
on the host (as TF's kernels do, on any device). `dynamic_stitch` is the
inverse of `dynamic_partition` given `dynamic_partition(range(n), ...)`
as indices; with duplicate indices the last one written wins (TF's CPU
kernel writes in order), and positions no index names are zero.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like
from . import _dispatch as D
from ._indices import position

__all__ = ["dynamic_partition", "dynamic_stitch"]


def _int32_indices(value: Any, device: Optional[torch.device] = None) -> torch.Tensor:
    if is_tensor_like(value):
        t = convert_to_tensor(value)
        if t.dtype is not torch.int32:
            raise D.mismatch("DynamicPartition", 1, torch.int32, t.dtype)
        return t
    return convert_to_tensor_on(device, value, dtype=dtypes.int32)


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: Optional[str] = None) -> list:
    """`tf.dynamic_partition`: `num_partitions` tensors; output i holds the slices of `data` whose id is i.

    `partitions` (int32) has the shape of `data`'s leading axes; slices keep
    their order. An id outside `[0, num_partitions)` is an
    `InvalidArgumentError` (checked on the host on every device, as the
    output sizes need the ids there anyway).
    """
    if not isinstance(num_partitions, int) or num_partitions < 1:
        raise invalid(f"Value for attr 'num_partitions' of {num_partitions} must be at least "
                      "minimum 1")
    d = convert_to_tensor(data)
    p = _int32_indices(partitions, d.device)
    if tuple(d.shape[:p.dim()]) != tuple(p.shape):
        raise invalid(f"data.shape must start with partitions.shape, got data.shape = "
                      f"{D.fmt_shape(d.shape)}, partitions.shape = {D.fmt_shape(p.shape)}",
                      "DynamicPartition")
    flat_p = p.reshape(-1).to(d.device, torch.int64)
    bad = (flat_p < 0) | (flat_p >= num_partitions)
    if flat_p.numel() and bool(bad.any()):
        pos = int(torch.argmax(bad.to(torch.uint8)))
        raise invalid(f"partitions{position(tuple(p.shape), pos)} = {int(flat_p[pos])} is not in "
                      f"[0, {num_partitions})", "DynamicPartition")
    rows = d.reshape((flat_p.numel(),) + tuple(d.shape[p.dim():]))
    # One stable sort by id, then split by the counts: one host read for all the sizes.
    order = torch.sort(flat_p, stable=True).indices
    counts = torch.bincount(flat_p, minlength=num_partitions).tolist()
    return list(torch.split(rows.index_select(0, order), counts))


def dynamic_stitch(indices: Any, data: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.dynamic_stitch`: `merged[indices[m][i...], ...] = data[m][i..., ...]`.

    The first axis has size `max(indices) + 1`; each `data[m]`'s shape must
    start with `indices[m]`'s and end with the common element shape. Data
    share the first one's dtype; a negative index is an `InvalidArgumentError`.
    """
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError("Expected list for 'indices' and 'data' arguments to 'dynamic_stitch'.")
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must "
                         f"match length {len(indices)} of argument 'indices'.")
    ds = D.matched("DynamicStitch", *data) if data else []
    if not ds:
        raise invalid("DynamicStitch needs at least one (indices, data) pair", "DynamicStitch")
    device = ds[0].device
    idx = [_int32_indices(i, device) for i in indices]
    tail = None
    for m, (i, x) in enumerate(zip(idx, ds)):
        if tuple(x.shape[:i.dim()]) != tuple(i.shape):
            raise invalid(f"data[{m}].shape = {D.fmt_shape(x.shape)} does not start with "
                          f"indices[{m}].shape = {D.fmt_shape(i.shape)}", "DynamicStitch")
        rest = tuple(x.shape[i.dim():])
        if tail is None:
            tail = rest
        elif rest != tail:
            raise invalid(f"Need data[0].shape[{idx[0].dim()}:] = {D.fmt_shape(tail)} to match "
                          f"data[{m}].shape[{i.dim()}:] = {D.fmt_shape(rest)}", "DynamicStitch")
    flat_i = torch.cat([i.reshape(-1).to(device, torch.int64) for i in idx])
    flat_d = torch.cat([x.reshape((-1,) + tail) for x in D.same_device(ds)])
    n = int(flat_i.max()) + 1 if flat_i.numel() else 0
    if flat_i.numel() and bool((flat_i < 0).any()):
        pos = int(torch.argmax((flat_i < 0).to(torch.uint8)))
        raise invalid(f"indices[{pos}] is out of range", "DynamicStitch")
    # Last writer wins: keep, for every target row, the last source row naming it.
    source = torch.arange(flat_i.numel(), device=device)
    last = torch.full((n,), -1, dtype=torch.int64, device=device).scatter_reduce(
        0, flat_i, source, reduce="amax")
    hit = last >= 0
    picked = flat_d.index_select(0, last.clamp(min=0))
    zero = torch.zeros((), dtype=flat_d.dtype, device=device)
    return torch.where(hit.reshape((n,) + (1,) * len(tail)), picked, zero) if n else \
        flat_d.new_zeros((0,) + tail)
