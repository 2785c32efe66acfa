"""Special functions and small helpers of `tf.math`: inverse error functions, Bessel
functions, incomplete gamma, zeta/polygamma, `lbeta`, `xlog1py`, `nextafter`,
`cumulative_logsumexp`, monotonicity tests, `zero_fraction`, `scalar_mul`.

Each accepts the dtypes TF 2.21's CPU kernels register (`NotFoundError` where
TF lists a dtype without a CPU kernel, `InvalidArgumentError` otherwise);
the torch function behind each is in its docstring. TF's Python-level
compositions (`erfcinv`, `lbeta`, `reciprocal_no_nan`, `zero_fraction`) are
computed with TF's formula.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from .binary_math_ops import _safe, divide_no_nan
from .reduction_ops import scan_axis
from .unary_math_ops import _in_float32, _tf_gradient, _unary, no_kernel

__all__ = ["erfinv", "ndtri", "erfcinv", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e",
           "igamma", "igammac", "zeta", "polygamma", "lbeta", "xlog1py", "reciprocal_no_nan",
           "nextafter", "cumulative_logsumexp", "is_non_decreasing", "is_strictly_increasing",
           "zero_fraction", "scalar_mul"]

_F32_64 = frozenset({torch.float32, torch.float64})
_HALF = frozenset({torch.float16, torch.bfloat16})
_NO_BF16 = frozenset({torch.float16, torch.float32, torch.float64})

erfinv = _unary("Erfinv", torch.erfinv, _F32_64, "erfinv",
                "`tf.math.erfinv`: the inverse error function (`torch.erfinv`); float32/float64 "
                "(half precision is `NotFoundError`).", not_found=_HALF)
ndtri = _unary("Ndtri", torch.special.ndtri, _F32_64, "ndtri",
               "`tf.math.ndtri`: the inverse of the standard normal CDF (`torch.special.ndtri`); "
               "float32/float64.", not_found=_HALF)


def erfcinv(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.erfcinv`: the inverse of `erfc`, as TF's `-ndtri(0.5 * x) * sqrt(0.5)`.

    Float32/float64 (an integer input fails converting `0.5`, a `TypeError`, as TF).
    """
    xt = convert_to_tensor(x)
    if not (xt.is_floating_point() or xt.is_complex()):
        raise TypeError(f"Cannot convert 0.5 to EagerTensor of dtype "
                        f"{dtypes.from_torch(xt.dtype).name}")
    return -ndtri(0.5 * xt) * math.sqrt(0.5)




class _BesselI1(torch.autograd.Function):
    """`torch.special.i1` with TF's gradient: `i0(x) - i1(x) / x`, and 1 (sic, TF's) at 0."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = torch.special.i1(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        x, y = ctx.saved_tensors
        one = torch.ones((), dtype=x.dtype, device=x.device)
        return grad * torch.where(x == 0, one, torch.special.i0(x) - y / x)


def _i1(x: torch.Tensor) -> torch.Tensor:
    if x.requires_grad and torch.is_grad_enabled():
        return _BesselI1.apply(x)
    return torch.special.i1(x)


# torch's float16 Bessel kernels evaluate their series in float16; Eigen's in float32.
bessel_i0 = _unary("BesselI0", _in_float32(torch.special.i0), _NO_BF16, "bessel_i0",
                   "`tf.math.bessel_i0`: the modified Bessel function of order 0 "
                   "(`torch.special.i0`); bfloat16 is `NotFoundError`.", not_found={torch.bfloat16})
bessel_i0e = _unary("BesselI0e", _in_float32(torch.special.i0e), _NO_BF16, "bessel_i0e",
                    "`tf.math.bessel_i0e`: `exp(-|x|) * bessel_i0(x)` (`torch.special.i0e`).",
                    not_found={torch.bfloat16})
bessel_i1 = _unary("BesselI1", _in_float32(_i1), _NO_BF16, "bessel_i1",
                   "`tf.math.bessel_i1`: the modified Bessel function of order 1 "
                   "(`torch.special.i1`).\n\nTF's gradient `i0(x) - i1(x) / x`, which TF sets to "
                   "1 at `x = 0` (the true derivative is 0.5).", not_found={torch.bfloat16})
# TF's BesselI1e gradient: i0e(x) - y * (sign(x) + 1 / x), 0.5 at 0 (NaN at NaN; torch: 0.5).
_i1e = _tf_gradient(torch.special.i1e, lambda x, y: torch.where(
    x == 0, torch.full((), 0.5, dtype=x.dtype, device=x.device),
    torch.special.i0e(x) - y * (torch.sign(x) + torch.reciprocal(x))), "_BesselI1e")
bessel_i1e = _unary("BesselI1e", _in_float32(_i1e), _NO_BF16, "bessel_i1e",
                    "`tf.math.bessel_i1e`: `exp(-|x|) * bessel_i1(x)` (`torch.special.i1e`).",
                    not_found={torch.bfloat16})


def _binary(op: str, fn: Callable, allowed: frozenset, tf_name: str, doc: str,
            not_found: frozenset = frozenset(), first: str = "x", second: str = "y") -> Callable:
    def binary(a: Any, b: Any, name: Optional[str] = None) -> torch.Tensor:
        at, bt = D.matched(op, a, b, allowed=allowed | not_found)
        if at.dtype in not_found:
            raise no_kernel(op, at.dtype, tf_name)
        return D.run(fn, at, bt)
    binary.__name__ = binary.__qualname__ = tf_name
    binary.__doc__ = doc
    return binary


igamma = _binary("Igamma", torch.special.gammainc, _F32_64, "igamma",
                 "`tf.math.igamma(a, x)`: the regularized lower incomplete gamma function "
                 "(`torch.special.gammainc`); float32/float64.\n\nDifferentiable in `x` only: "
                 "torch has no derivative in `a` (TF's IgammaGradA), so a gradient with respect "
                 "to `a` raises torch's NotImplementedError.", not_found=_HALF)
igammac = _binary("Igammac", torch.special.gammaincc, _F32_64, "igammac",
                  "`tf.math.igammac(a, x)`: the regularized upper incomplete gamma function "
                  "(`torch.special.gammaincc`); float32/float64.\n\nDifferentiable in `x` only, "
                  "as `igamma`.", not_found=_HALF)
zeta = _binary("Zeta", torch.special.zeta, _F32_64, "zeta",
               "`tf.math.zeta(x, q)`: the Hurwitz zeta function (`torch.special.zeta`); "
               "float32/float64.")


def _polygamma(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    # TF's order is a tensor; torch's polygamma takes one int. The value is
    # (-1)^(n+1) n! zeta(n+1, x) for integer n >= 1, digamma for n = 0, NaN otherwise.
    a, x = torch.broadcast_tensors(a, x)
    n = torch.where(a == torch.floor(a), a, torch.full_like(a, float("nan")))
    sign = torch.where(torch.remainder(n, 2) == 0, -1.0, 1.0).to(a.dtype)
    zeta_value = torch.special.zeta(n + 1, x)
    zeta_value = torch.where(torch.isposinf(x), torch.zeros_like(zeta_value), zeta_value)
    rest = sign * torch.exp(torch.lgamma(n + 1)) * zeta_value
    out = torch.where(n == 0, torch.digamma(x), rest)
    return torch.where((n < 0) | torch.isnan(n), torch.full_like(out, float("nan")), out)


polygamma = _binary("Polygamma", _polygamma, _F32_64, "polygamma",
                    "`tf.math.polygamma(a, x)`: the `a`-th derivative of `digamma` "
                    "(`torch.digamma`, `torch.special.zeta`); NaN for a non-integer or negative "
                    "`a`; float32/float64.")


def xlog1py(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.xlog1py`: `0` where `x == 0` (even for `y` NaN), else `x * log1p(y)`.

    (`torch.special.xlog1py` gives NaN for `y` NaN.) Floating and complex;
    TF's gradient (`xlog1py(x != 0, y)`, `xdivy(x, y + 1)`).
    """
    xt, yt = D.matched("Xlog1py", x, y, allowed=D.FLOATS | D.COMPLEX)
    return _safe("Xlog1py", "xlog1py", xt, yt)


def reciprocal_no_nan(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.reciprocal_no_nan`: `1 / x`, and 0 where `x == 0` (TF's `div_no_nan(1, x)`)."""
    xt = convert_to_tensor(x)
    D.check_dtype("DivNoNan", xt.dtype, D.FLOATS | D.COMPLEX)
    return divide_no_nan(torch.ones((), dtype=xt.dtype, device=xt.device), xt)


nextafter = _binary("NextAfter", torch.nextafter, _F32_64, "nextafter",
                    "`tf.math.nextafter(x1, x2)`: the next representable value after `x1` toward "
                    "`x2` (`torch.nextafter`); float32/float64.\n\nTF converts NumPy inputs of "
                    "another float dtype to the op's default float32; tfcompat keeps their dtype "
                    "(float64 stays float64, float16 is refused).")


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
                         name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.cumulative_logsumexp`: `log(cumsum(exp(x)))` along `axis` (`torch.logcumsumexp`).

    Computed stably; `exclusive` starts from `-inf`, `reverse` from the end.
    Floating only.
    """
    xt = convert_to_tensor(x)
    D.check_dtype("CumulativeLogsumexp", xt.dtype, D.FLOATS)
    a = scan_axis(axis, xt.dim(), "CumulativeLogsumexp")
    if reverse:
        xt = xt.flip(a)
    out = torch.logcumsumexp(xt, a)
    if exclusive:
        n = out.shape[a]
        first = torch.full_like(out.narrow(a, 0, min(1, n)), -float("inf"))
        out = torch.cat([first, out.narrow(a, 0, max(n - 1, 0))], dim=a)
    return out.flip(a) if reverse else out


def lbeta(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.lbeta`: `log|B(x)|` over the last axis, TF's `sum(lgamma(x)) - lgamma(sum(x))`.

    An empty last axis gives `-inf`, as TF (`lgamma(0) = inf`).
    """
    xt = convert_to_tensor(x)
    if xt.dtype is torch.bfloat16:
        raise no_kernel("Lgamma", xt.dtype, "lbeta")
    D.check_dtype("Lgamma", xt.dtype, _NO_BF16)
    if xt.dim() == 0:
        raise invalid("Invalid reduction dimension (-1 for input with 0 dimension(s)", "Sum")
    return torch.sum(torch.lgamma(xt), dim=-1) - torch.lgamma(torch.sum(xt, dim=-1))


def _monotonic(x: Any, strict: bool) -> torch.Tensor:
    xt = convert_to_tensor(x)
    if xt.dtype is torch.bool or xt.is_complex():
        if xt.dtype is torch.bool:
            raise TypeError(f"Expected x to be numeric, instead found: {xt!r}")
        D.check_dtype("Greater" if strict else "GreaterEqual", xt.dtype, D.REAL)
    flat = xt.reshape(-1)
    if flat.numel() < 2:
        return torch.ones((), dtype=torch.bool, device=xt.device)
    cmp = torch.gt if strict else torch.ge
    return torch.all(cmp(flat[1:], flat[:-1]))


def is_non_decreasing(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.is_non_decreasing`: whether `x` (flattened) satisfies `x[i] <= x[i + 1]`.

    True for fewer than two elements, as TF; a bool scalar.
    """
    return _monotonic(x, False)


def is_strictly_increasing(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.is_strictly_increasing`: whether `x` (flattened) satisfies `x[i] < x[i + 1]`."""
    return _monotonic(x, True)


def zero_fraction(value: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.zero_fraction`: the fraction of zeros in `value`, as float32 (NaN when empty)."""
    xt = convert_to_tensor(value)
    nonzero = xt if xt.dtype is torch.bool else torch.ne(xt, 0)
    size = xt.numel()
    zeros = size - torch.sum(nonzero, dtype=torch.int64)
    return zeros.to(torch.float32) / torch.tensor(float(size), dtype=torch.float32,
                                                   device=xt.device)


def scalar_mul(scalar: Any, x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.scalar_mul`: `scalar * x` for a 0-d `scalar` (`ValueError` otherwise).

    The scalar is converted to `x`'s dtype, as TF.
    """
    xt = convert_to_tensor(x)
    st = convert_to_tensor(scalar, dtype=dtypes.from_torch(xt.dtype)) \
        if not isinstance(scalar, torch.Tensor) else scalar
    if st.dim() != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape "
                         f"{tuple(st.shape)}.")
    if st.dtype is not xt.dtype:
        raise D.mismatch("Mul", 1, st.dtype, xt.dtype)
    return torch.mul(st, xt) if st.device == xt.device else torch.mul(xt, st)
