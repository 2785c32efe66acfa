"""Segment reductions: `tf.math.segment_*` (sorted ids) and `unsorted_segment_*`.

`out[i] = reduce(data[j...] for segment_ids[j...] == i)` over torch's
`index_add` / `scatter_reduce` (with `include_self=False`, so an empty
segment keeps the value the output starts with). TF's rules:

* sorted ops (`segment_sum/mean/max/min/prod`): `segment_ids` is a vector
  as long as `data`'s first axis, sorted; the output has `ids[-1] + 1` rows
  (read from the device: the shape depends on the data, as in TF). Empty
  segments are 0 (1 for `segment_prod`). On CPU unsorted or negative ids are
  TF's `InvalidArgumentError` ("segment ids are not increasing"); TF's GPU
  kernels do not check, and neither does tfcompat on an accelerator.
* unsorted ops take `num_segments`; `segment_ids` may have any shape that
  `data`'s shape starts with; negative ids are dropped; ids
  `>= num_segments` are an error on CPU and dropped on an accelerator.
  Empty segments get TF's identity values: the dtype's lowest finite value
  for `max` (`-3.4e38` for float32, not `-inf`), its highest for `min`, 1
  for `prod`, 0 for `mean` and `sqrt_n`.
* `unsorted_segment_mean`/`sqrt_n` are TF's compositions: the sum divided
  by `max(count, 1)` (its `sqrt`) with `/`, so integer data gives a float
  mean (float64 for int32/int64) and `sqrt_n` of integers fails.
* Gradients: max/min split a segment's gradient evenly among its tied
  maxima and give 0 to a segment whose result is NaN, as TF; prod's is the
  product of the other entries (exact with zeros).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._indices import checks_on_host, first_bad, in_range, index_tensor, position
from ._shape_args import int_values
from .indexing_ops import unsorted_segment_sum
from .math_ops import maximum, truediv
from .unary_ops import sqrt

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
           "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_min",
           "unsorted_segment_prod", "unsorted_segment_sqrt_n"]


def _identity(dtype: torch.dtype, reduce: str) -> Any:
    if reduce == "prod":
        return 1
    info = torch.finfo(dtype) if dtype.is_floating_point else torch.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce(src: torch.Tensor, flat_ids: torch.Tensor, num: int, reduce: str,
            empty: Any) -> torch.Tensor:
    """Rows `0..num-1` of the reduction of `src`'s rows (one per id) by segment id.

    Ids outside `[0, num)` go to an extra row that is cut off; `empty` is
    the value of a segment with no entries.
    """
    tail = tuple(src.shape[1:])
    target = torch.where(in_range(flat_ids, num), flat_ids, torch.full_like(flat_ids, num))
    if reduce == "sum":
        out = torch.zeros((num + 1,) + tail, dtype=src.dtype, device=src.device)
        return out.index_add(0, target, src)[:num]
    if reduce != "prod" and torch.is_grad_enabled() and src.requires_grad:
        return _Extreme.apply(src, target, num, reduce, empty)
    return _scatter(src, target, num, reduce, empty)[:num]


def _scatter(src: torch.Tensor, target: torch.Tensor, num: int, reduce: str,
             empty: Any) -> torch.Tensor:
    tail = tuple(src.shape[1:])
    out = torch.full((num + 1,) + tail, empty, dtype=src.dtype, device=src.device)
    index = target.view((-1,) + (1,) * len(tail)).expand(src.shape)
    return out.scatter_reduce(0, index, src, reduce, include_self=False)


class _Extreme(torch.autograd.Function):
    """Segment max/min with TF's gradient (`_SegmentMinOrMaxGrad`, `_UnsortedSegmentMinOrMaxGrad`).

    A segment's gradient is split evenly among the entries equal to its
    result; a NaN result selects nothing, so its entries get 0 (torch's
    scatter_reduce gradient would give NaN).
    """

    @staticmethod
    def forward(ctx: Any, src: torch.Tensor, target: torch.Tensor, num: int, reduce: str,
                empty: Any) -> torch.Tensor:
        full = _scatter(src, target, num, reduce, empty)
        ctx.save_for_backward(src, target, full)
        ctx.num = num
        return full[:num]

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        src, target, full = ctx.saved_tensors
        num = ctx.num
        valid = (target < num).view((-1,) + (1,) * (src.dim() - 1))
        selected = (src == full.index_select(0, target)) & valid
        counts = torch.zeros(full.shape, dtype=grad.dtype, device=grad.device).index_add(
            0, target, selected.to(grad.dtype))
        padded = torch.cat([grad, torch.zeros((1,) + tuple(grad.shape[1:]), dtype=grad.dtype,
                                              device=grad.device)])
        share = (padded / counts).index_select(0, target)
        return torch.where(selected, share, torch.zeros((), dtype=grad.dtype,
                                                        device=grad.device)), None, None, None, None


# -- sorted segments ---------------------------------------------------------------------

def _sorted_inputs(op: str, data: Any, segment_ids: Any, allowed: frozenset) -> tuple:
    d = convert_to_tensor(data)
    D.check_dtype(op, d.dtype, allowed)
    ids = index_tensor(segment_ids, op, allowed=D.INT32_64, device=d.device)
    if ids.dim() != 1:
        raise invalid("segment_ids should be a vector.", op)
    if d.dim() == 0 or ids.shape[0] != d.shape[0]:
        raise invalid("segment_ids should be the same size as dimension 0 of input.", op)
    if ids.device != d.device:
        ids = ids.to(d.device)
    ids = ids.to(torch.int64)
    # TF reads the last id for the output's size: the one host read the shape needs.
    num = int(ids[-1]) + 1 if ids.numel() else 0
    if checks_on_host(ids) and ids.numel():
        if ids.numel() > 1 and bool((ids[1:] < ids[:-1]).any()):
            raise invalid("segment ids are not increasing", op)
        first = int(ids[0])
        if first < 0:
            raise invalid(f"Segment id {first} out of range [0, {num}), possibly because "
                          "'segment_ids' input is not sorted.", op)
    return d, ids, max(num, 0)


def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.segment_sum`: sums over sorted segments (`index_add`); empty segments are 0."""
    d, ids, num = _sorted_inputs("SegmentSum", data, segment_ids, D.NUMERIC)
    return _reduce(d, ids, num, "sum", 0)


def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.segment_mean`: the segment sum divided by its size, in the data's dtype.

    Integer means truncate toward zero (as TF's kernel); empty segments are 0.
    """
    d, ids, num = _sorted_inputs("SegmentMean", data, segment_ids, D.NUMERIC)
    total = _reduce(d, ids, num, "sum", 0)
    counts = _reduce(torch.ones_like(ids), ids, num, "sum", 0)
    counts = counts.clamp_min(1).view((num,) + (1,) * (total.dim() - 1))
    if d.dtype in D.INTS:
        return torch.div(total, counts, rounding_mode="trunc").to(d.dtype)
    return total / counts.to(d.dtype)


def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.segment_max`: maxima over sorted segments (`scatter_reduce` amax); empty ones 0.

    A segment's gradient is shared evenly by its tied maxima, as TF.
    """
    d, ids, num = _sorted_inputs("SegmentMax", data, segment_ids, D.REAL)
    return _reduce(d, ids, num, "amax", 0)


def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.segment_min`: minima over sorted segments (`scatter_reduce` amin); empty ones 0."""
    d, ids, num = _sorted_inputs("SegmentMin", data, segment_ids, D.REAL)
    return _reduce(d, ids, num, "amin", 0)


def segment_prod(data: Any, segment_ids: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.segment_prod`: products over sorted segments (`scatter_reduce`); empty ones 1."""
    d, ids, num = _sorted_inputs("SegmentProd", data, segment_ids, D.NUMERIC)
    return _reduce(d, ids, num, "prod", 1)


# -- unsorted segments -------------------------------------------------------------------

def _unsorted_inputs(op: str, data: Any, segment_ids: Any, num_segments: Any,
                     allowed: frozenset) -> tuple:
    """`data`, the flat int64 ids and `num_segments`, checked as TF's UnsortedSegment kernels."""
    d = convert_to_tensor(data)
    D.check_dtype(op, d.dtype, allowed)
    ids = index_tensor(segment_ids, op, allowed=D.INT32_64, device=d.device)
    num = int_values(num_segments, op, attr="Tnumsegments")
    if isinstance(num, list):
        raise invalid(f"num_segments should be a scalar, got {num}", op)
    if num < 0:
        raise invalid(f"Input num_segments == {num} must not be negative.", op)
    if tuple(d.shape[:ids.dim()]) != tuple(ids.shape):
        raise invalid(f"data.shape = {D.fmt_shape(d.shape)} does not start with "
                      f"segment_ids.shape = {D.fmt_shape(ids.shape)}", op)
    if ids.device != d.device:
        ids = ids.to(d.device)
    flat = ids.reshape(-1).to(torch.int64)
    if checks_on_host(flat) and flat.numel() and bool(flat.max() >= num):
        pos = first_bad(flat >= num)
        raise invalid(f"segment_ids{position(tuple(ids.shape), pos)} = {int(flat[pos])} is out "
                      f"of range [0, {num})", op)
    src = d.reshape((flat.numel(),) + tuple(d.shape[ids.dim():]))
    return src, flat, num


def _unsorted(op: str, reduce: str, data: Any, segment_ids: Any, num_segments: Any,
              allowed: frozenset) -> torch.Tensor:
    src, flat, num = _unsorted_inputs(op, data, segment_ids, num_segments, allowed)
    return _reduce(src, flat, num, reduce, _identity(src.dtype, reduce))


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_max`: maxima per segment; empty segments the dtype's lowest value.

    (`torch.finfo(dtype).min`, i.e. `-3.4e38` for float32, as TF; not
    `-inf`.) Tied maxima share the gradient evenly.
    """
    return _unsorted("UnsortedSegmentMax", "amax", data, segment_ids, num_segments, D.REAL)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_min`: minima per segment; empty ones the dtype's highest value."""
    return _unsorted("UnsortedSegmentMin", "amin", data, segment_ids, num_segments, D.REAL)


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_prod`: products per segment (`scatter_reduce`); empty ones 1."""
    return _unsorted("UnsortedSegmentProd", "prod", data, segment_ids, num_segments, D.NUMERIC)


def _segment_counts(data: Any, segment_ids: Any, num_segments: Any) -> tuple:
    """TF's `_unsorted_segment_N`: `max(count, 1)` per segment, shaped to broadcast with sums."""
    d = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids)
    ones = torch.ones(ids.shape, dtype=d.dtype, device=d.device)
    n = unsorted_segment_sum(ones, ids, num_segments)
    n = n.reshape(tuple(n.shape) + (1,) * (d.dim() - ids.dim()))
    return d, ids, maximum(n, 1)


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_mean`: `unsorted_segment_sum / max(count, 1)` with TF's `/`.

    Integer data gives a float mean (float64 for int32/int64, float32 for
    8/16-bit ints); complex data fails (TF's `maximum` of the counts).
    """
    d, ids, n = _segment_counts(data, segment_ids, num_segments)
    return truediv(unsorted_segment_sum(d, ids, num_segments), n)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.unsorted_segment_sqrt_n`: `unsorted_segment_sum / sqrt(max(count, 1))`.

    Floating only (TF's `sqrt` of integer counts fails).
    """
    d, ids, n = _segment_counts(data, segment_ids, num_segments)
    return truediv(unsorted_segment_sum(d, ids, num_segments), sqrt(n))
