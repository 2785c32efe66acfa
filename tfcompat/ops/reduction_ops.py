"""Reductions and scans: `reduce_*`, `argmax`, `cumsum`, `add_n`, with TF's dtype rules.

Where TF and torch differ, TF wins:

* results keep the input dtype: an int32 sum is int32 (wrapping on
  overflow, as TF), and `reduce_mean` of ints is the truncated integer mean
  (accumulated wide, so `[255, 255]` as uint8 means 255);
* `axis` is None (everything), an int, or a list (possibly empty: then
  nothing is reduced, where torch would reduce everything); duplicates and
  out-of-range axes are `InvalidArgumentError`;
* an empty `reduce_max` is the dtype's lowest value (`-inf`), `reduce_min`
  its highest, as TF's identity elements (torch raises);
* `argmax` ignores NaN as TF's CPU kernel does (torch returns the NaN's
  index), returns int64 unless `output_type` says otherwise, and breaks ties
  towards the first index.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor, is_tensor_like
from . import _dispatch as D
from ._shape_args import reduction_axes, single_axis

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_any", "reduce_all", "argmax", "cumsum", "add_n"]

# Sum/Mean/Prod/Cumsum accept every numeric type; Max/Min/ArgMax every real one.
_SUMMABLE = D.NUMERIC
_ORDERED = D.REAL


def _prepare(op: str, input_tensor: Any, axis: Any, allowed: frozenset) -> tuple:
    x = convert_to_tensor(input_tensor)
    D.check_dtype(op, x.dtype, allowed)
    return x, reduction_axes(axis, x.dim(), op)


def _all_dims(x: torch.Tensor, dims: Optional[tuple]) -> tuple:
    return tuple(range(x.dim())) if dims is None else dims


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_sum`: sum over `axis` (all axes when None), in the input's dtype."""
    if axis is None and not keepdims:  # the common call, in fewer steps
        x = convert_to_tensor(input_tensor)
        if x.dtype in D.FLOATS:
            return torch.sum(x)
    x, dims = _prepare("Sum", input_tensor, axis, _SUMMABLE)
    if dims is None and not keepdims:  # (torch sums integers to int64 unless told otherwise)
        return torch.sum(x) if x.is_floating_point() else torch.sum(x, dtype=x.dtype)
    if dims == ():
        return x
    return torch.sum(x, dim=_all_dims(x, dims), keepdim=bool(keepdims), dtype=x.dtype)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_mean`: mean over `axis`; integer inputs give the truncated integer mean."""
    x, dims = _prepare("Mean", input_tensor, axis, _SUMMABLE)
    if dims == ():
        return x
    floating = x.is_floating_point() or x.is_complex()
    if dims is None and not keepdims and floating:
        return torch.mean(x)
    all_dims = _all_dims(x, dims)
    if floating:
        return torch.mean(x, dim=all_dims, keepdim=bool(keepdims))
    total = torch.sum(x, dim=all_dims, keepdim=bool(keepdims), dtype=torch.int64)
    count = math.prod(x.shape[d] for d in all_dims)
    if count == 0:
        return torch.zeros_like(total, dtype=x.dtype)
    return torch.div(total, count, rounding_mode="trunc").to(x.dtype)


def _extreme(op: str, input_tensor: Any, axis: Any, keepdims: bool, largest: bool) -> torch.Tensor:
    x, dims = _prepare(op, input_tensor, axis, _ORDERED)
    if dims == ():
        return x
    all_dims = _all_dims(x, dims)
    if x.numel() == 0:
        # TF returns the reduction's identity; torch refuses empty max/min.
        shape = [1 if d in all_dims else n for d, n in enumerate(x.shape)]
        if not keepdims:
            shape = [n for d, n in enumerate(shape) if d not in all_dims]
        dt = dtypes.from_torch(x.dtype)
        fill = (-float("inf") if largest else float("inf")) if x.is_floating_point() else (
            dt.min if largest else dt.max)
        return torch.full(shape, fill, dtype=x.dtype, device=x.device)
    fn = torch.amax if largest else torch.amin  # amax/amin split ties' gradient evenly, as TF
    return fn(x, dim=all_dims, keepdim=bool(keepdims))


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_max`: NaN propagates; an empty reduction gives the dtype's lowest value."""
    return _extreme("Max", input_tensor, axis, keepdims, True)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_min`: NaN propagates; an empty reduction gives the dtype's highest value."""
    return _extreme("Min", input_tensor, axis, keepdims, False)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_prod`: product over `axis`, in the input's dtype (ints wrap)."""
    x, dims = _prepare("Prod", input_tensor, axis, _SUMMABLE)
    if dims == ():
        return x
    all_dims = _all_dims(x, dims)
    # torch.prod takes one dim: move the reduced dims last and flatten them.
    kept = [d for d in range(x.dim()) if d not in all_dims]
    moved = x.permute(kept + list(all_dims)).reshape([x.shape[d] for d in kept] + [-1])
    out = torch.prod(moved, dim=-1, dtype=x.dtype)
    if keepdims:
        out = out.reshape([1 if d in all_dims else n for d, n in enumerate(x.shape)])
    return out


def _logical_reduce(op: str, fn: Any, input_tensor: Any, axis: Any, keepdims: bool) -> torch.Tensor:
    if is_tensor_like(input_tensor):
        x = convert_to_tensor(input_tensor)
        if x.dtype is not torch.bool:
            raise D.mismatch(op, 0, torch.bool, x.dtype)
    else:  # as TF's op input of fixed type: numpy arrays are cast, Python ints refused
        x = convert_to_tensor(input_tensor, dtype=dtypes.bool)
    dims = reduction_axes(axis, x.dim(), op)
    if dims == ():
        return x
    return fn(x, dim=_all_dims(x, dims), keepdim=bool(keepdims))


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_any`: logical or over `axis`, of a bool tensor only."""
    return _logical_reduce("Any", torch.any, input_tensor, axis, keepdims)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_all`: logical and over `axis`, of a bool tensor only."""
    return _logical_reduce("All", torch.all, input_tensor, axis, keepdims)


_ARGMAX_OUTPUT = frozenset({torch.int16, torch.int32, torch.int64})


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64,  # noqa: A002 - TF name
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.argmax`: index of the largest value along `axis` (default 0).

    Ties go to the first index; NaN never wins (TF's CPU kernel compares
    with `>`), so an all-NaN slice gives 0. `output_type` is int64 by
    default, or int16/int32.
    """
    return arg_extreme("ArgMax", torch.argmax, -float("inf"), _ORDERED | {torch.bool}, input,
                       axis, output_type)


def arg_extreme(op: str, fn: Any, nan_as: float, allowed: frozenset, input: Any, axis: Any,  # noqa: A002
                output_type: Any) -> torch.Tensor:
    """`tf.math.argmax`/`argmin` (kernel `op`, torch's `fn`): TF's checks, NaN read as
    `nan_as` so it never wins, bools compared as 0/1."""
    x = convert_to_tensor(input)
    D.check_dtype(op, x.dtype, allowed)
    out_dtype = dtypes.to_torch(output_type)
    D.check_dtype(op, out_dtype, _ARGMAX_OUTPUT, attr="output_type",
                  names=("int16", "uint16", "int32", "int64"))  # TF's list (no uint16 in torch)
    if isinstance(axis, (list, tuple)):
        raise TypeError("axis must be int or Tensor with integer datatype")
    a = 0 if axis is None else single_axis(axis, op)
    rank = x.dim()
    if not -rank <= a < rank:
        raise invalid(f"Expected dimension in the range [{-rank}, {rank}), but got {a}", op)
    if x.shape[a] == 0:
        raise invalid(f"Reduction axis {a % rank} is empty in shape {list(x.shape)}", op)
    if x.dtype is torch.bool:
        x = x.to(torch.uint8)
    elif x.is_floating_point():
        x = torch.nan_to_num(x, nan=nan_as, posinf=float("inf"), neginf=-float("inf"))
    return fn(x, dim=a).to(out_dtype)


def scan_axis(axis: Any, rank: int, op: str) -> int:
    """The scan ops' `axis` (cumsum, cumprod, cumulative_logsumexp) in `[0, rank)`, with TF's
    error when it is out of range."""
    a = single_axis(axis, op)
    if not -rank <= a < rank:
        raise invalid(f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {a}", op)
    return a % rank


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.cumsum`: running sum along `axis`, in the input's dtype.

    `exclusive` starts from 0 (each output excludes its own element);
    `reverse` sums from the end. Exclusive sums are shifted inclusive sums,
    so they are bit-for-bit the sums TF computes.
    """
    xt = convert_to_tensor(x)
    D.check_dtype("Cumsum", xt.dtype, _SUMMABLE)
    a = scan_axis(axis, xt.dim(), "Cumsum")
    if reverse:
        xt = xt.flip(a)
    out = torch.cumsum(xt, dim=a, dtype=xt.dtype)
    if exclusive:
        n = out.shape[a]
        zero = torch.zeros_like(out.narrow(a, 0, min(1, n)))
        out = torch.cat([zero, out.narrow(a, 0, max(n - 1, 0))], dim=a)
    if reverse:
        out = out.flip(a)
    return out


def add_n(inputs: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.add_n`: the element-wise sum of same-shaped, same-dtype tensors.

    No broadcasting, as TF. `IndexedSlices` are densified; a single input is
    returned as is. Sums in the order of TF's kernel (below), so the rounding is TF's.
    """
    try:
        items = list(inputs)
    except TypeError:
        items = []
    if not items:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape.")
    tensor = torch.Tensor
    if all(type(x) is tensor for x in items):  # (a loss summed per variable: 2000 inputs)
        tensors = items
    else:
        tensors = [x.to_dense() if isinstance(x, IndexedSlices) else convert_to_tensor(x)
                   for x in items]
    first = tensors[0]
    D.check_dtype("AddN", first.dtype, _SUMMABLE)
    if len({t.dtype for t in tensors}) > 1 or len({t.shape for t in tensors}) > 1:
        for i, t in enumerate(tensors[1:], 1):
            if t.dtype is not first.dtype:
                raise D.mismatch("AddN", i, first.dtype, t.dtype)
            if t.shape != first.shape:
                raise invalid("Inputs to operation AddN of type AddN must have the same size "
                              f"and shape.  Input 0: {list(first.shape)} != input {i}: "
                              f"{list(t.shape)}", "AddN")
    n = len(tensors)
    if n == 1:
        return first
    if len({t.device for t in tensors}) > 1:
        tensors = D.same_device(tensors)
    if n <= 9 or n * first.numel() > _STACKED_ADD_N_LIMIT:
        return _add_n_in_order(tensors)
    if not torch.is_grad_enabled() or not any(t.requires_grad for t in tensors):
        return _add_n_in_order(tensors)
    # Differentiable: the value is TF's (computed in its order, off the graph), carried by one
    # sum whose gradient, 1 for every input, does not depend on the order. Two autograd nodes
    # instead of n/8 + 16.
    stacked = torch.stack(tensors)
    with torch.no_grad():
        exact = _add_n_in_order(tensors, stacked.detach())
    out = stacked.sum(0)
    with torch.no_grad():
        out.copy_(exact)
    return out


# Inputs (count x elements) up to which add_n stacks them (memory: one stacked copy).
_STACKED_ADD_N_LIMIT = 1 << 24


# Dtypes whose sequential sum NumPy's `add.accumulate` computes with each add rounded in the
# dtype, as torch's `add_` (float16: the exact sum of two halves, rounded once).
_NUMPY_ACCUMULATES = frozenset({torch.float16, torch.float32, torch.float64})


def _accumulate(out: torch.Tensor, sums: torch.Tensor) -> torch.Tensor:
    """`out + sums[0] + sums[1] + ...`, left to right, each add rounded in the dtype.

    On the host, one `np.add.accumulate` (a sequential scan in the array's own dtype;
    torch's `cumsum` accumulates float32 in float64) instead of an `add_` per row.
    """
    if (out.device.type == "cpu" and out.dtype in _NUMPY_ACCUMULATES and not out.requires_grad
            and not sums.requires_grad):
        rows = torch.cat([out.unsqueeze(0), sums]).numpy()
        total = np.add.accumulate(rows, axis=0)[-1:]  # (a slice: a 0-d sum stays an array)
        return torch.from_numpy(total.reshape(out.shape).copy())
    for row in sums.unbind(0):
        out = out.add_(row)
    return out


def _add_n_in_order(tensors: list, stacked: Optional[torch.Tensor] = None) -> torch.Tensor:
    """The sum of `tensors` in the order of TF's AddN kernel, each add rounded in the dtype.

    TF sums the first n % 8 inputs (8 if none, 9 if one) left to right, then does
    `out += c0 + c1 + ... + c7` for each following chunk of 8, each chunk left to right. The
    chunks' sums are computed together (one op per position in the chunk).
    """
    n = len(tensors)
    head = n % 8 or 8
    if head == 1:
        head = 9
    # In place on our own fresh results: autograd allows it (add needs no saved values).
    out = D.run(torch.add, tensors[0], tensors[1])
    for t in tensors[2:head]:
        out = out.add_(t)
    if head < n:
        first = tensors[0]
        rest = stacked[head:] if stacked is not None else torch.stack(tensors[head:])
        chunks = rest.view((n - head) // 8, 8, *first.shape)
        sums = chunks[:, 0] + chunks[:, 1]
        for j in range(2, 8):
            sums = sums.add_(chunks[:, j])
        out = _accumulate(out, sums)
    return out
