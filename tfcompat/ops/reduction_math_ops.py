"""Statistical reductions and scans of `tf.math`: `reduce_logsumexp`, `reduce_variance`,
`reduce_std`, `reduce_euclidean_norm`, `count_nonzero`, `argmin`, `cumprod`, `accumulate_n`.

Each follows TF's formula, so its rounding is TF's:

* `reduce_logsumexp` is `log(sum(exp(x - m))) + m` with `m` the
  (gradient-stopped) max, replaced by 0 where it is not finite, so `+inf`
  entries give `inf`, an all `-inf` slice `-inf`;
* `reduce_variance` is the population variance computed as TF does:
  `mean(square(x - mean(x)))` (complex: `mean(real(conj(d) * d))`),
  `reduce_std` its `sqrt`; integer inputs are a `TypeError`;
* `reduce_euclidean_norm` is `sqrt(sum(x * conj(x)))` in the input's dtype
  (integers square and sum with wrap-around, then the root is truncated), and
  its gradient is TF's `x / (norm / g)` (NaN at a zero norm, as TF);
* `cumprod` shifts the inclusive product for `exclusive`, and its gradient
  is TF's `div_no_nan(cumsum(prod * g, reverse=not reverse), x)`: 0 at an
  input that is 0, as TF (torch's own cumprod gradient is exact there).
"""

from __future__ import annotations

from typing import Any, Optional

import collections

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from ._shape_args import reduction_axes, single_axis
from .reduction_ops import add_n, arg_extreme, reduce_max, reduce_mean, reduce_sum, scan_axis
from . import exact_math

__all__ = ["reduce_logsumexp", "reduce_variance", "reduce_std", "reduce_euclidean_norm",
           "count_nonzero", "argmin", "cumprod", "accumulate_n", "approx_max_k", "approx_min_k"]


_LOGSUMEXP_FAST = frozenset({torch.float32, torch.float64})


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_logsumexp` (also `tf.reduce_logsumexp`): `log(sum(exp(x)))` over `axis`.

    TF's stable formula: the max over `axis` (gradient stopped, 0 where not
    finite) is subtracted before `exp` and added back after `log`. Floating only.
    """
    x = convert_to_tensor(input_tensor)
    if (x.dtype in _LOGSUMEXP_FAST and x.dim() > 0 and (axis is None or type(axis) is int)
            and not x.requires_grad):
        # torch's kernel computes TF's forward formula step for step (max, 0 where not
        # finite, subtract, exp, sum, log, add) in one call. Its backward rounds the softmax
        # differently from TF's, so a tensor that requires grad takes the formula below.
        if axis is not None and not -x.dim() <= axis < x.dim():
            reduce_max(x, axis=axis)  # TF's error for the axis
        dims = tuple(range(x.dim())) if axis is None else axis
        return torch.logsumexp(x, dims, keepdim=bool(keepdims))
    raw_max = reduce_max(x, axis=axis, keepdims=True)
    D.check_dtype("Exp", x.dtype, D.FLOATS | D.COMPLEX)
    my_max = torch.where(torch.isfinite(raw_max), raw_max, torch.zeros((), dtype=x.dtype,
                                                                       device=x.device)).detach()
    result = torch.log(reduce_sum(torch.exp(x - my_max), axis=axis, keepdims=keepdims))
    if not keepdims:
        my_max = my_max.reshape(result.shape)
    return result + my_max


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_variance`: population variance `mean(square(x - mean(x)))` over `axis`.

    Complex inputs give the real `mean(real(conj(d) * d))`; integers are a
    `TypeError` (as TF: cast to a float first).
    """
    x = convert_to_tensor(input_tensor)
    means = reduce_mean(x, axis=axis, keepdims=True)
    if means.dtype in D.INTS:
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"<dtype: '{dtypes.from_torch(means.dtype).name}'>.")
    diff = x - means
    if diff.is_complex():
        squared = torch.real(torch.conj_physical(diff) * diff)
    else:
        squared = torch.square(diff)
    return reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_std`: `sqrt(reduce_variance(x))`, the population standard deviation."""
    return exact_math.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def _sum(t: torch.Tensor, dims: tuple, keepdim: bool) -> torch.Tensor:
    """`torch.sum` over `dims`, where `()` reduces nothing (torch would reduce everything)."""
    return t if dims == () else torch.sum(t, dim=dims, keepdim=keepdim, dtype=t.dtype)


class _EuclideanNorm(torch.autograd.Function):
    """`sqrt(sum(x * x))` with TF's EuclideanNorm gradient `x / (norm / g)`."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, dims: tuple, keepdims: bool) -> torch.Tensor:
        kept = exact_math.sqrt(_sum(x * x, dims, True))
        ctx.save_for_backward(x, kept)
        ctx.keepdims = keepdims
        return kept if keepdims or dims == () else kept.squeeze(dims)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, kept = ctx.saved_tensors
        if not ctx.keepdims:
            grad = grad.reshape(kept.shape)
        return x / (kept / grad), None, None


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reduce_euclidean_norm`: `sqrt(sum(x * conj(x)))` over `axis`, in the input's dtype.

    Integers square and sum with wrap-around and the root is truncated (as
    TF's kernel); complex inputs give a complex result with zero imaginary
    part. The gradient is TF's `x / (norm / g)`.
    """
    x = convert_to_tensor(input_tensor)
    D.check_dtype("EuclideanNorm", x.dtype, D.NUMERIC)
    dims = reduction_axes(axis, x.dim(), "EuclideanNorm")
    dims = tuple(range(x.dim())) if dims is None else dims
    keep = bool(keepdims)
    if x.dtype in D.INTS:
        return torch.sqrt(_sum(x * x, dims, keep).to(torch.float64)).to(x.dtype)
    if x.is_complex():
        return torch.sqrt(_sum(x * x.conj(), dims, keep))
    if torch.is_grad_enabled() and x.requires_grad:
        return _EuclideanNorm.apply(x, dims, keep)
    return exact_math.sqrt(_sum(x * x, dims, keep))


def count_nonzero(input: Any, axis: Any = None, keepdims: Optional[bool] = None,  # noqa: A002
                  dtype: Any = dtypes.int64, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.count_nonzero`: the number of non-zero entries over `axis` (NaN counts).

    Counted in int64 and cast to `dtype` (default int64), as TF.
    """
    x = convert_to_tensor(input)
    predicate = x if x.dtype is torch.bool else x != 0
    counts = reduce_sum(predicate.to(torch.int64), axis=axis, keepdims=bool(keepdims))
    return counts.to(dtypes.to_torch(dtype))


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64,  # noqa: A002 - TF name
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.argmin` (also `tf.argmin`): index of the smallest value along `axis` (default 0).

    Ties go to the first index; NaN never wins (as TF's CPU kernel), so an
    all-NaN slice gives 0. `output_type` int64 by default, or int16/int32.
    bool inputs are allowed, complex ones not.
    """
    return arg_extreme("ArgMin", torch.argmin, float("inf"), D.REAL | {torch.bool}, input, axis,
                       output_type)


# Axes up to this length are scanned step by step in the dtype (TF's Eigen scan rounds every
# step to the dtype; torch's CPU cumsum/cumprod accumulate float32 and half in double/float,
# so they are *more* precise than TF). Longer axes use torch's scan and may differ from TF
# in the last bits.
_STEPWISE_MAX = 4096
_WIDE_ACCUMULATION = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.complex64})


def _inclusive(fn: Any, step: Any, x: torch.Tensor, a: int) -> torch.Tensor:
    n = x.shape[a]
    if x.dtype not in _WIDE_ACCUMULATION or n > _STEPWISE_MAX or n <= 1 or x.device.type != "cpu":
        return fn(x, dim=a, dtype=x.dtype)
    parts = list(x.unbind(a))
    for i in range(1, n):
        parts[i] = step(parts[i - 1], parts[i])
    return torch.stack(parts, a)


def _scan(fn: Any, x: torch.Tensor, a: int, exclusive: bool, reverse: bool,
          identity: int) -> torch.Tensor:
    """An inclusive scan `fn` along `a`; `exclusive` shifts it by one, starting at `identity`."""
    if reverse:
        x = x.flip(a)
    step = torch.mul if fn is torch.cumprod else torch.add
    out = _inclusive(fn, step, x, a)
    if exclusive:
        n = out.shape[a]
        first = torch.full_like(out.narrow(a, 0, min(1, n)), identity)
        out = torch.cat([first, out.narrow(a, 0, max(n - 1, 0))], dim=a)
    if reverse:
        out = out.flip(a)
    return out


class _Cumprod(torch.autograd.Function):
    """cumprod with TF's gradient: `div_no_nan(cumsum(prod * g, reverse=not reverse), x)`."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: int, exclusive: bool, reverse: bool) -> torch.Tensor:
        out = _scan(torch.cumprod, x, a, exclusive, reverse, 1)
        ctx.save_for_backward(x, out)
        ctx.args = (a, exclusive, reverse)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, prod = ctx.saved_tensors
        a, exclusive, reverse = ctx.args
        out = _scan(torch.cumsum, prod * grad, a, exclusive, not reverse, 0)
        zero = torch.zeros((), dtype=out.dtype, device=out.device)
        return torch.where(x == 0, zero, out / x), None, None, None


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.cumprod`: running product along `axis`, in the input's dtype (`torch.cumprod`).

    `exclusive` starts from 1 (each output excludes its own element),
    `reverse` multiplies from the end. TF's gradient (0 at zero inputs).
    """
    xt = convert_to_tensor(x)
    D.check_dtype("Cumprod", xt.dtype, D.NUMERIC)
    a = scan_axis(axis, xt.dim(), "Cumprod")
    if torch.is_grad_enabled() and xt.requires_grad:
        return _Cumprod.apply(xt, a, bool(exclusive), bool(reverse))
    return _scan(torch.cumprod, xt, a, bool(exclusive), bool(reverse), 1)


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None,
                 name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.accumulate_n`: `add_n` of a list of same-shaped, same-dtype tensors (TF 2 does so).

    A non-list, an empty list or mixed dtypes are `ValueError`; shapes that
    disagree with each other or with `shape` are `ValueError`; `tensor_dtype`
    other than the inputs' is `TypeError`. One input is returned as it is.
    """
    message = "inputs must be a list of at least one Tensor with the same dtype and shape"
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(message)
    tensors = [x if isinstance(x, IndexedSlices) else convert_to_tensor(x) for x in inputs]
    if any(isinstance(t, IndexedSlices) for t in tensors):
        raise ValueError(message)
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise ValueError(message)
    merged = TensorShape(None) if shape is None else TensorShape(shape)
    for t in tensors:
        merged = merged.merge_with(TensorShape(list(t.shape)))
    if tensor_dtype is not None and dtypes.to_torch(tensor_dtype) is not tensors[0].dtype:
        got, want = dtypes.from_torch(tensors[0].dtype), dtypes.as_dtype(tensor_dtype)
        raise TypeError(f"The `tensor_dtype` argument is <dtype: '{want.name}'>, but `input` is "
                        f"of type <dtype: '{got.name}'>. These must be equal. Try casting the "
                        "input to the desired type.")
    if len(tensors) == 1:
        return tensors[0]
    return add_n(tensors)


ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
_APPROX_TOP_K = frozenset({torch.float16, torch.bfloat16, torch.float32})


def _approx_top_k(op_name: str, operand: Any, k: int, reduction_dimension: int,
                  largest: bool) -> ApproxTopK:
    x = convert_to_tensor(operand)
    D.check_dtype("ApproxTopK", x.dtype, _APPROX_TOP_K)
    if x.dim() == 0:
        raise invalid(f"input must be >= 1-D, got shape {D.fmt_shape(x.shape)}", "ApproxTopK")
    dim = single_axis(reduction_dimension, "ApproxTopK")
    if not -x.dim() <= dim < x.dim():
        raise invalid(f"reduction_dimension {dim} is out of range for rank {x.dim()}",
                      "ApproxTopK")
    if k < 0 or k > x.shape[dim]:
        raise invalid(f"input must have at least k columns. Had {x.shape[dim]}, needed {k}",
                      "ApproxTopK")
    # A stable sort keeps tied values in index order, as TF's CPU kernel (exact top-k).
    values, indices = torch.sort(x, dim=dim, descending=largest, stable=True)
    return ApproxTopK(values.narrow(dim, 0, k), indices.narrow(dim, 0, k).to(torch.int32))


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: Optional[str] = None) -> ApproxTopK:
    """`tf.math.approx_max_k`: the `k` largest values along `reduction_dimension` and their indices.

    As TF's CPU kernel, the result is the exact top k (`recall_target` and
    the other tuning arguments only matter on TPU), sorted, ties in index
    order, indices int32; float16/bfloat16/float32 only. TF 2.21's CPU kernel
    takes only `reduction_dimension=-1` (others are `NotFoundError` there);
    tfcompat takes any axis. NaN sorts as the largest value (torch's order;
    TF's CPU order for NaN is unspecified).
    """
    return _approx_top_k("approx_max_k", operand, k, reduction_dimension, True)


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: Optional[str] = None) -> ApproxTopK:
    """`tf.math.approx_min_k`: the `k` smallest values along `reduction_dimension`, with indices.

    The exact bottom k, sorted ascending, ties in index order. TF 2.21 has
    no CPU kernel for it at all (`NotFoundError`; GPU/TPU only); tfcompat
    computes it on every device.
    """
    return _approx_top_k("approx_min_k", operand, k, reduction_dimension, False)
