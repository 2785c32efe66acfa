"""`tf.nn` statistics and normalization: `moments`, `weighted_moments`, `batch_normalization`,
`l2_normalize`, as TF's composite formulas.

* `moments`: `mean = reduce_mean(x, axes)`, then `variance =
  reduce_mean(squared_difference(x, stop_gradient(mean)), axes)` (the
  shift-free two-pass formula; the population variance). float16 inputs are
  computed in float32 and the results cast back, as TF does.
* `weighted_moments`: `sum(w * x) / sum(w)` and `sum(w * (x - mean)^2) /
  sum(w)`, each division `div_no_nan` (zero total weight gives 0).
* `batch_normalization`: `inv = rsqrt(variance + epsilon) * scale`, then
  `x * inv + (offset - mean * inv)`, in that order, so the rounding is TF's.
* `l2_normalize`: `x * rsqrt(max(sum(x^2, axis), epsilon))` (epsilon is
  converted to `x`'s dtype: in float16 the default 1e-12 becomes 0).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from . import _dispatch as D
from ._shape_args import reduction_axes
from .reduction_ops import reduce_mean, reduce_sum

__all__ = ["moments", "weighted_moments", "batch_normalization", "l2_normalize"]


def _squeeze(t: torch.Tensor, dims: Optional[tuple]) -> torch.Tensor:
    # tf.squeeze(t, axes): no axes (None or []) squeezes every size-1 dimension.
    if not dims:
        return t.squeeze() if t.dim() else t
    return t.squeeze(dims)


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
            name: Optional[str] = None) -> tuple:
    """`tf.nn.moments`: `(mean, variance)` of `x` over `axes` (population variance).

    `shift` is unused, as in TF. float16 is computed in float32 and rounded
    back; integer inputs give TF's truncated integer means.
    """
    xt = convert_to_tensor(x)
    y = xt.float() if xt.dtype is torch.float16 else xt
    dims = reduction_axes(axes, y.dim(), "Mean")
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(torch.square(y - mean.detach()), axes, keepdims=True)
    if not keepdims:
        mean, variance = _squeeze(mean, dims), _squeeze(variance, dims)
    if xt.dtype is torch.float16:
        return mean.half(), variance.half()
    return mean, variance


def _div_no_nan(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # TF's DivNoNan: 0 where the divisor is 0 (the gradient too), else a / b.
    zero = b == 0
    return torch.where(zero, torch.zeros((), dtype=a.dtype, device=a.device),
                       a / torch.where(zero, torch.ones((), dtype=b.dtype, device=b.device), b))


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False,
                     name: Optional[str] = None) -> tuple:
    """`tf.nn.weighted_moments`: the `frequency_weights`-weighted mean and variance over `axes`.

    The weights broadcast against `x` and are cast to its dtype; a zero total
    weight gives 0 (`div_no_nan`). float16 is computed in float32.
    """
    xt = convert_to_tensor(x)
    w = convert_to_tensor_on(xt.device, frequency_weights)
    half = xt.dtype is torch.float16
    if half:
        xt = xt.float()
    if w.dtype != xt.dtype:
        w = w.to(xt.dtype)
    if not D.broadcastable(w.shape, xt.shape):
        raise D.errors.invalid_argument(
            f"Incompatible shapes: {list(w.shape)} vs. {list(xt.shape)}", "Mul")
    dims = reduction_axes(axes, xt.dim(), "Sum")
    weighted_sum = reduce_sum(w * xt, axes, keepdims=True)
    sum_of_weights = reduce_sum(w + torch.zeros_like(xt), axes, keepdims=True)
    mean = _div_no_nan(weighted_sum, sum_of_weights)
    distsq = reduce_sum(w * torch.square(xt - mean), axes, keepdims=True)
    variance = _div_no_nan(distsq, sum_of_weights)
    if not keepdims:
        mean, variance = _squeeze(mean, dims), _squeeze(variance, dims)
    if half:
        return mean.half(), variance.half()
    return mean, variance


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.batch_normalization`: `x * inv + (offset - mean * inv)`, `inv = rsqrt(variance +
    variance_epsilon) * scale`.

    `offset` and `scale` may be None. The statistics broadcast against `x`
    (usually 1-D over the last axis, or `moments(..., keepdims=True)`);
    `inv` and the shift are cast to `x`'s dtype, as TF does.
    """
    xt = convert_to_tensor(x)
    # TF's wrapper uses Python operators, so a numpy or Python operand takes the dtype of the
    # tensor it meets (matched conversion), and two tensors must agree.
    var, eps = D.matched("AddV2", variance, variance_epsilon)
    D.check_dtype("Rsqrt", var.dtype, D.FLOATS | D.COMPLEX)
    inv = torch.rsqrt(D.run(torch.add, var, eps))
    if scale is not None:
        inv, s = D.matched("Mul", inv, scale)
        inv = D.run(torch.mul, inv, s)
    m, inv_m = D.matched("Mul", mean, inv)
    mean_inv = D.run(torch.mul, m, inv_m)
    if offset is not None:
        off, mi = D.matched("Sub", offset, mean_inv)
        shift = D.run(torch.sub, off, mi)
    else:
        shift = -mean_inv
    if inv.dtype != xt.dtype:
        inv, shift = inv.to(xt.dtype), shift.to(xt.dtype)
    return D.run(torch.add, D.run(torch.mul, xt, inv), shift)


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None,
                 dim: Any = None) -> torch.Tensor:
    """`tf.nn.l2_normalize`: `x * rsqrt(max(reduce_sum(x**2, axis, keepdims=True), epsilon))`.

    `axis` None normalizes over everything; `dim` is TF's deprecated alias.
    `epsilon` is converted to `x`'s dtype (an integer `x` fails, as in TF).
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    xt = convert_to_tensor(x)
    if xt.is_complex():
        sq = torch.square(xt.real) + torch.square(xt.imag)
        ss = reduce_sum(sq, axis, keepdims=True)
        e = convert_to_tensor_on(ss.device, epsilon, dtype=_dtype_of(ss))
        inv = torch.rsqrt(torch.maximum(ss, e))
        return torch.complex(xt.real * inv, xt.imag * inv)
    ss = reduce_sum(torch.square(xt), axis, keepdims=True)
    e = convert_to_tensor_on(ss.device, epsilon, dtype=_dtype_of(ss))
    D.check_dtype("Rsqrt", ss.dtype, D.FLOATS | D.COMPLEX)
    return xt * torch.rsqrt(torch.maximum(ss, e))


def _dtype_of(t: torch.Tensor) -> Any:
    return dtypes.from_torch(t.dtype)
