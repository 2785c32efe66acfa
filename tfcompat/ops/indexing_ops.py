"""Gather, scatter, segment and mask ops: TF's indexing semantics over torch's index ops.

| TF op                       | torch                                       |
|-----------------------------|---------------------------------------------|
| gather                      | `index_select` (advanced indexing with      |
|                             | `batch_dims`); variables: `sparse_read`     |
| gather_nd                   | advanced indexing with the index columns    |
| scatter_nd, tensor_scatter_*| `index_put` on a view whose first axis      |
|                             | enumerates the indexed leading axes         |
| unsorted_segment_sum        | `index_add` into `num_segments` rows        |
| boolean_mask, where(cond)   | `nonzero` (data-dependent shape: one sync)  |
| unique                      | `torch.unique` re-ordered by first occurrence|

Out-of-range indices follow TF per device (see `_indices`): an error on
CPU; on an accelerator a gather reads zeros and a scatter drops the update.
"""

from __future__ import annotations

import collections
import math
from typing import Any, Optional

import torch

from ..framework import dtypes, errors
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from ._indices import (all_in_range, checks_on_host, first_bad, in_range, index_tensor,
                       position)
from ._shape_args import int_values, shape_arg, single_axis
from ..framework.variable_protocol import is_variable as _is_variable

__all__ = ["gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update",
           "tensor_scatter_nd_add", "unsorted_segment_sum", "boolean_mask", "where", "unique",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_min", "tensor_scatter_nd_max",
           "unique_with_counts", "unravel_index"]


def _is_zero_axis(axis: Any) -> bool:
    return axis is None or (not isinstance(axis, (list, tuple)) and single_axis(axis, "GatherV2") == 0)


# ---------------------------------------------------------------------------
# gather
# ---------------------------------------------------------------------------

def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None,
           batch_dims: int = 0, name: Optional[str] = None) -> torch.Tensor:
    """`tf.gather`: slices of `params` along `axis` at `indices`.

    Output shape `params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]`. With `batch_dims = b` the first `b` axes of
    params and indices are batch axes gathered pairwise. A variable with
    `axis` 0 reads through `sparse_read`, so its gradient is
    `tf.IndexedSlices`, as in TF.
    """
    if _is_variable(params) and batch_dims == 0 and _is_zero_axis(axis):
        return params.sparse_read(indices)
    p = convert_to_tensor(params)
    idx = index_tensor(indices, "GatherV2", device=p.device)
    bd = int(batch_dims)
    if bd < 0:
        bd += idx.dim()
    a = bd if axis is None else single_axis(axis, "GatherV2")
    if a < 0:
        a += p.dim()
    if p.dim() == 0:
        raise invalid("params must be at least 1 dimensional", "GatherV2")
    if not 0 <= a < p.dim():
        raise invalid(f"Shape must be at least rank {a + 1} but is rank {p.dim()}", "GatherV2")
    if not 0 <= bd <= idx.dim() or bd > a:
        raise invalid(f"batch_dims ({batch_dims}) must be in [0, rank(indices) = {idx.dim()}] and "
                      f"<= axis ({a})", "GatherV2")
    if tuple(p.shape[:bd]) != tuple(idx.shape[:bd]):
        raise invalid(f"params.shape[:batch_dims] = {list(p.shape[:bd])} must equal "
                      f"indices.shape[:batch_dims] = {list(idx.shape[:bd])}", "GatherV2")
    if idx.device != p.device:
        idx = idx.to(p.device)
    n = p.shape[a]
    valid = _guard_gather(idx, n)
    safe = idx if valid is None else idx.clamp(0, max(n - 1, 0))
    if safe.dtype is torch.int16:
        safe = safe.to(torch.int64)  # index_select takes int32 and int64
    if n == 0 and safe.numel():
        out_shape = tuple(p.shape[:a]) + tuple(idx.shape[bd:]) + tuple(p.shape[a + 1:])
        return torch.zeros(out_shape, dtype=p.dtype, device=p.device)
    if bd == 0:
        out = torch.index_select(p, a, safe.reshape(-1)).reshape(
            tuple(p.shape[:a]) + tuple(idx.shape) + tuple(p.shape[a + 1:]))
    else:
        out = _batched_gather(p, safe, a, bd)
    if valid is not None:
        lead, rest = a - bd, p.dim() - a - 1
        mask = valid.reshape(tuple(idx.shape[:bd]) + (1,) * lead + tuple(idx.shape[bd:]) + (1,) * rest)
        out = torch.where(mask, out, torch.zeros((), dtype=out.dtype, device=out.device))
    return out


def _guard_gather(idx: torch.Tensor, n: int) -> Optional[torch.Tensor]:
    """Raise TF's CPU error for a bad index; on an accelerator return the valid mask instead."""
    if checks_on_host(idx):
        if all_in_range(idx, n):
            return None
        pos = first_bad(~in_range(idx, n))
        if pos >= 0:
            value = int(idx.reshape(-1)[pos])
            raise invalid(f"indices{position(tuple(idx.shape), pos)} = {value} is not in [0, {n})",
                          "GatherV2")
        return None
    return in_range(idx, n)


def _batched_gather(p: torch.Tensor, idx: torch.Tensor, a: int, bd: int) -> torch.Tensor:
    """`gather` with `batch_dims = bd > 0`: one gather per batch element, by advanced indexing."""
    batch = tuple(p.shape[:bd])
    nb = math.prod(batch)
    pf = p.reshape((nb,) + tuple(p.shape[bd:])).movedim(a - bd + 1, 1)  # [nb, n, middle..., rest...]
    inner = tuple(idx.shape[bd:])
    i = idx.reshape((nb,) + inner)
    rows = torch.arange(nb, device=p.device).reshape((nb,) + (1,) * len(inner))
    out = pf[rows, i]  # [nb, inner..., middle..., rest...]
    k, m = len(inner), a - bd
    order = [0] + list(range(k + 1, k + 1 + m)) + list(range(1, k + 1)) + list(
        range(k + 1 + m, out.dim()))
    out = out.permute(order)
    return out.reshape(batch + tuple(out.shape[1:]))


# ---------------------------------------------------------------------------
# gather_nd / scatter_nd
# ---------------------------------------------------------------------------

def _nd_rows(idx: torch.Tensor, lead: tuple, op: str, bad_row: str) -> tuple:
    """`(linear, valid)`: each index row of `idx` as a position in the flattened `lead` axes.

    On CPU a bad row raises TF's error (`bad_row` is its tail, after
    "indices[i] = [..] ") and `valid` is None; on an accelerator `valid`
    marks the rows TF's GPU kernels skip. Bounds and strides are Python ints
    applied column by column: no small tensors copied to the device.
    """
    k = len(lead)
    outer = tuple(idx.shape[:-1])
    rows = idx.reshape(math.prod(outer), k).to(torch.int64)
    ok = torch.ones(rows.shape[0], dtype=torch.bool, device=idx.device)
    linear = torch.zeros(rows.shape[0], dtype=torch.int64, device=idx.device)
    stride = 1
    for i in range(k - 1, -1, -1):
        col = rows[:, i]
        ok &= (col >= 0) & (col < lead[i])
        linear += col * stride
        stride *= lead[i]
    valid = None
    if checks_on_host(idx):
        pos = first_bad(~ok)
        if pos >= 0:
            raise invalid(f"indices{position(outer, pos)} = {rows[pos].tolist()} {bad_row}", op)
    else:
        valid = ok
    return linear, valid


def gather_nd(params: Any, indices: Any, batch_dims: int = 0,
              name: Optional[str] = None) -> torch.Tensor:
    """`tf.gather_nd`: slices of `params` at the index vectors in `indices`' last axis.

    Output shape `indices.shape[:-1] + params.shape[indices.shape[-1]:]`
    (after `batch_dims` leading batch axes). Variables use their own
    `gather_nd`, as TF.
    """
    if _is_variable(params) and batch_dims == 0:
        return params.gather_nd(indices)
    p = convert_to_tensor(params)
    idx = index_tensor(indices, "GatherNd", device=p.device)
    if idx.dim() == 0:
        raise invalid("indices must be at least a vector", "GatherNd")
    bd = int(batch_dims)
    k = idx.shape[-1]
    if k > p.dim() - bd:
        raise invalid(f"index innermost dimension length must be <= params rank; saw: {k} vs. "
                      f"{p.dim() - bd}", "GatherNd")
    if tuple(p.shape[:bd]) != tuple(idx.shape[:bd]):
        raise invalid(f"Batch dimensions of params {list(p.shape[:bd])} and indices "
                      f"{list(idx.shape[:bd])} must match", "GatherNd")
    if idx.device != p.device:
        idx = idx.to(p.device)
    batch = tuple(p.shape[:bd])
    lead = tuple(p.shape[bd:bd + k])
    tail = tuple(p.shape[bd + k:])
    inner = tuple(idx.shape[bd:-1])
    linear, valid = _nd_rows(idx, lead, "GatherNd", f"does not index into param shape "
                             f"{D.fmt_shape(p.shape)}, node name: GatherNd")
    m = math.prod(lead)
    if bd:
        # Batch b's rows live at b * m in the flattened params.
        linear = linear + (torch.arange(math.prod(batch), device=p.device) * m).repeat_interleave(
            math.prod(inner))
    flat = p.reshape((math.prod(batch) * m,) + tail)
    if valid is not None:
        linear = torch.where(valid, linear, torch.zeros_like(linear))
    if flat.shape[0] == 0:
        out = torch.zeros((linear.numel(),) + tail, dtype=p.dtype, device=p.device)
    else:
        out = flat.index_select(0, linear)
    if valid is not None:
        out = torch.where(valid.reshape((-1,) + (1,) * len(tail)), out,
                          torch.zeros((), dtype=out.dtype, device=out.device))
    return out.reshape(batch + inner + tail)


def _scatter(op: str, base: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor,
             accumulate: bool = False, reduce: Optional[str] = None) -> torch.Tensor:
    """`base` with `upd` written (or added, or with `reduce` "amin"/"amax" combined) at the
    index rows of `idx`; out of place."""
    if idx.dim() == 0:
        raise invalid("indices must be at least a vector", op)
    k = idx.shape[-1]
    shape = tuple(base.shape)
    if k > len(shape):
        raise invalid(f"indices.shape[-1] must be <= params.dims(): {k} vs. {len(shape)}", op)
    outer = tuple(idx.shape[:-1])
    tail = shape[k:]
    if tuple(upd.shape) != outer + tail:
        raise invalid(f"updates.shape {list(upd.shape)} must be indices.shape[:-1] + "
                      f"shape[indices.shape[-1]:] = {list(outer + tail)} (indices.shape = "
                      f"{list(idx.shape)}, shape = {list(shape)})", op)
    if idx.device != base.device:
        idx = idx.to(base.device)
    if upd.device != base.device:
        upd = upd.to(base.device)
    lead = shape[:k]
    linear, valid = _nd_rows(idx, lead, op, f"does not index into shape {D.fmt_shape(shape)}")
    m = math.prod(lead)
    flat = base.reshape((m,) + tail)
    rows = upd.reshape((linear.numel(),) + tail)
    if valid is not None:
        # Rows TF's GPU kernel would skip land in one extra row, dropped afterwards.
        linear = torch.where(valid, linear, torch.full_like(linear, m))
        flat = torch.cat([flat, flat.new_zeros((1,) + tail)])
    if reduce is None:
        out = flat.index_put((linear,), rows, accumulate=accumulate)
    else:
        target = linear.reshape((-1,) + (1,) * len(tail)).expand(rows.shape)
        out = flat.scatter_reduce(0, target, rows, reduce=reduce, include_self=True)
    if valid is not None:
        out = out[:m]
    return out.reshape(shape)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.scatter_nd`: zeros of `shape` with `updates` added at `indices` (duplicates sum)."""
    idx = index_tensor(indices, "ScatterNd")
    upd = convert_to_tensor(updates)
    dims = shape_arg(shape, "ScatterNd", allow_scalar=False)
    base = torch.zeros(dims, dtype=upd.dtype, device=upd.device)
    return _scatter("ScatterNd", base, idx, upd, accumulate=True)


def _tensor_scatter_inputs(op: str, tensor: Any, indices: Any, updates: Any) -> tuple:
    t = convert_to_tensor(tensor)
    idx = index_tensor(indices, op, device=t.device)
    if is_tensor_like(updates):
        upd = convert_to_tensor(updates)
        if upd.dtype is not t.dtype:
            raise D.mismatch(op, 2, t.dtype, upd.dtype)
    else:
        upd = convert_to_tensor_on(t.device, updates, dtype=dtypes.from_torch(t.dtype))
    return t, idx, upd


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any,
                             name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensor_scatter_nd_update`: a copy of `tensor` with `updates` written at `indices`.

    With duplicate indices one of the updates wins (which one is unspecified,
    in TF as in torch).
    """
    t, idx, upd = _tensor_scatter_inputs("TensorScatterUpdate", tensor, indices, updates)
    return _scatter("TensorScatterUpdate", t, idx, upd, accumulate=False)


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensor_scatter_nd_add`: a copy of `tensor` with `updates` added at `indices`."""
    t, idx, upd = _tensor_scatter_inputs("TensorScatterAdd", tensor, indices, updates)
    if t.dtype is torch.bool:
        raise errors.NotFoundError(
            None, None, "TensorScatterAdd has no kernel for bool tensors (as in TF): use "
            "tf.tensor_scatter_nd_update, or cast to an integer dtype first.")
    return _scatter("TensorScatterAdd", t, idx, upd, accumulate=True)


# ---------------------------------------------------------------------------
# segments, masks, where, unique
# ---------------------------------------------------------------------------

def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_sum`: `out[i] = sum of data[j...] where segment_ids[j...] == i`.

    Output shape `[num_segments] + data.shape[segment_ids.ndim:]`; negative
    ids are dropped, as in TF; ids `>= num_segments` are an error on CPU.
    """
    d = convert_to_tensor(data)
    D.check_dtype("UnsortedSegmentSum", d.dtype, D.NUMERIC)
    ids = index_tensor(segment_ids, "UnsortedSegmentSum", device=d.device)
    num = int_values(num_segments, "UnsortedSegmentSum", attr="Tnumsegments")
    if isinstance(num, list):
        raise invalid(f"num_segments should be a scalar, got {num}", "UnsortedSegmentSum")
    if num < 0:
        raise invalid(f"Input num_segments == {num} must not be negative.", "UnsortedSegmentSum")
    if tuple(d.shape[:ids.dim()]) != tuple(ids.shape):
        raise invalid(f"data.shape = {D.fmt_shape(d.shape)} does not start with "
                      f"segment_ids.shape = {D.fmt_shape(ids.shape)}", "UnsortedSegmentSum")
    if ids.device != d.device:
        ids = ids.to(d.device)
    flat_ids = ids.reshape(-1).to(torch.int64)
    if checks_on_host(flat_ids) and flat_ids.numel() and bool(flat_ids.max() >= num):
        pos = first_bad(flat_ids >= num)
        if pos >= 0:
            raise invalid(f"segment_ids{position(tuple(ids.shape), pos)} = {int(flat_ids[pos])} is "
                          f"out of range [0, {num})", "UnsortedSegmentSum")
    tail = tuple(d.shape[ids.dim():])
    # Dropped ids (negative; too large on an accelerator) go to an extra row, cut off after.
    target = torch.where(in_range(flat_ids, num), flat_ids, torch.full_like(flat_ids, num))
    out = torch.zeros((num + 1,) + tail, dtype=d.dtype, device=d.device)
    out = out.index_add(0, target, d.reshape((flat_ids.numel(),) + tail))
    return out[:num]


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> torch.Tensor:
    """`tf.boolean_mask`: the entries of `tensor` where `mask` (over axes `axis..`) is true.

    The mask's shape must match `tensor.shape[axis:axis + mask.ndim]`; a
    non-bool mask counts non-zeros as true, as TF's `where`. The result's
    size depends on the data, so this reads the mask on the host.
    """
    t = convert_to_tensor(tensor)
    m = convert_to_tensor_on(t.device, mask)
    k = m.dim()
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    a = 0 if axis is None else single_axis(axis, "boolean_mask")
    covered = tuple(t.shape)[a:a + k]  # Python slicing, exactly as TF checks it
    if covered != tuple(m.shape):
        raise ValueError(f"Shapes {TensorShape(covered)} and {TensorShape(tuple(m.shape))} are "
                         "incompatible")
    a %= t.dim()
    n = math.prod(covered)
    flat = t.reshape(tuple(t.shape[:a]) + (n,) + tuple(t.shape[a + k:]))
    keep = m.reshape(-1)
    if keep.device != t.device:
        keep = keep.to(t.device)
    picked = torch.nonzero(keep).reshape(-1)
    return torch.index_select(flat, a, picked)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.where` (TF 2's `where_v2`).

    With `x` and `y`: elements of `x` where `condition` is true, else of
    `y`, all three broadcast; `x` and `y` share one dtype. With `condition`
    alone: the int64 coordinates `[num_true, rank]` of its true (non-zero)
    entries, which reads the data on the host.
    """
    if x is None and y is None:
        c = convert_to_tensor(condition)
        if c.dim() == 0:
            raise invalid("WhereOp : Unhandled input dimensions: 0", "Where")
        return torch.nonzero(c)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    c = condition if (type(condition) is torch.Tensor and condition.dtype is torch.bool) else (
        convert_to_tensor(condition, dtype=dtypes.bool))
    xt, yt = D.matched("SelectV2", x, y)
    try:  # torch broadcasts the three as TF does; TF's wording comes only after a failure
        return torch.where(c, xt, yt)
    except RuntimeError:
        pass
    if not D.broadcastable(c.shape, xt.shape, yt.shape):
        raise invalid(f"condition {D.fmt_shape(c.shape)}, then {D.fmt_shape(xt.shape)}, and else "
                      f"{D.fmt_shape(yt.shape)} must be broadcastable", "SelectV2")
    return D.run(torch.where, c, xt, yt)


Unique = collections.namedtuple("Unique", ["y", "idx"])

def unique(x: Any, out_idx: Any = dtypes.int32, name: Optional[str] = None) -> Unique:
    """`tf.unique`: `(y, idx)`: the distinct values in order of first occurrence, and

    for each input element the position of its value in `y` (`x == y[idx]`).
    Each NaN is distinct, as in TF. The output size depends on the data.
    """
    t = convert_to_tensor(x)
    if t.dim() != 1:
        raise invalid("unique expects a 1D vector.", "Unique")
    idx_dtype = dtypes.to_torch(out_idx)
    D.check_dtype("Unique", idx_dtype, D.INT32_64, attr="out_idx")
    values, inverse = torch.unique(t, sorted=True, return_inverse=True)
    n = t.shape[0]
    # torch sorts the distinct values; TF lists them by first occurrence.
    positions = torch.arange(n, device=t.device)
    first = torch.full((values.shape[0],), n, dtype=torch.int64, device=t.device)
    first = first.scatter_reduce(0, inverse, positions, reduce="amin")
    order = torch.argsort(first)
    rank_of = torch.empty_like(order)
    rank_of[order] = torch.arange(order.shape[0], device=t.device)
    return Unique(values[order], rank_of[inverse].to(idx_dtype))


# ---------------------------------------------------------------------------
# issue 9: tensor_scatter_nd_sub/min/max, unique_with_counts
# ---------------------------------------------------------------------------

def _no_bool(op: str, t: torch.Tensor) -> None:
    if t.dtype is torch.bool:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_BOOL]: "
            "TF has no bool kernel for it; cast to an integer dtype first.")


def tensor_scatter_nd_sub(tensor: Any, indices: Any, updates: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensor_scatter_nd_sub`: a copy of `tensor` with `updates` subtracted at `indices` (duplicates add up)."""
    t, idx, upd = _tensor_scatter_inputs("TensorScatterSub", tensor, indices, updates)
    _no_bool("TensorScatterSub", t)
    return _scatter("TensorScatterSub", t, idx, -upd, accumulate=True)


def _scatter_extreme(op: str, tensor: Any, indices: Any, updates: Any, reduce: str) -> torch.Tensor:
    t, idx, upd = _tensor_scatter_inputs(op, tensor, indices, updates)
    _no_bool(op, t)
    return _scatter(op, t, idx, upd, reduce=reduce)


def tensor_scatter_nd_min(tensor: Any, indices: Any, updates: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensor_scatter_nd_min`: a copy of `tensor` with each indexed element the min of itself and its updates."""
    return _scatter_extreme("TensorScatterMin", tensor, indices, updates, "amin")


def tensor_scatter_nd_max(tensor: Any, indices: Any, updates: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensor_scatter_nd_max`: a copy of `tensor` with each indexed element the max of itself and its updates."""
    return _scatter_extreme("TensorScatterMax", tensor, indices, updates, "amax")


UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32,
                       name: Optional[str] = None) -> UniqueWithCounts:
    """`tf.unique_with_counts`: `tf.unique`'s `(y, idx)` plus how often each value of `y` occurs.

    `count` has `out_idx`'s dtype, as TF. Reads the data on the host (the
    output size depends on it).
    """
    y, idx = unique(x, out_idx=out_idx)
    count = torch.bincount(idx.to(torch.int64), minlength=y.shape[0]).to(idx.dtype)
    return UniqueWithCounts(y, idx, count)


def unravel_index(indices: Any, dims: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.unravel_index`: the coordinates `[len(dims)] + indices.shape` of flat `indices` in an array of shape `dims`.

    Row-major (C order), as numpy's `unravel_index`; `dims` takes the
    indices' dtype (int32 or int64). An index outside `[0, prod(dims))` is
    an `InvalidArgumentError` on CPU.
    """
    idx = index_tensor(indices, "UnravelIndex", attr="Tidx", allowed=D.INT32_64)
    if idx.dim() > 1:
        raise invalid(f'The indices can only be scalar or vector, got "{D.fmt_shape(idx.shape)}"',
                      "UnravelIndex")
    shape = int_values(dims, "UnravelIndex", attr="Tidx", python_dtype=idx.dtype)
    shape = [shape] if isinstance(shape, int) else shape
    total = math.prod(shape)
    if checks_on_host(idx) and idx.numel() and not all_in_range(idx, total):
        raise invalid("index is out of bound as with dims", "UnravelIndex")
    rest = idx.to(torch.int64)
    coords = []
    for d in reversed(shape):
        coords.append(torch.remainder(rest, d) if d else torch.zeros_like(rest))
        rest = torch.div(rest, d, rounding_mode="floor") if d else rest
    return torch.stack(coords[::-1]).to(idx.dtype)
