"""Element-wise binary math of `tf.math` beyond the operators: `atan2`, truncating division,
the NaN-safe products and quotients, `squared_difference`, `polyval`.

Inputs follow TF's conversion rules (see `_dispatch`): the generated ops
(`atan2`, `xlogy`, `truncatediv`, ...) are *matched* (Python values take the
first tensor's dtype, tensors must agree); `divide_no_nan` and
`multiply_no_nan` are TF Python wrappers with their own rules and
`TypeError`s. Shapes broadcast as numpy's.

TF's kernels, not torch's, define the special values, and TF's gradient
formulas are kept where torch's differ:

* `xlogy(0, y) = 0` for every `y`, NaN included (`torch.xlogy(0, nan)` is
  NaN); `xdivy(0, y) = 0`; `divide_no_nan(x, 0) = 0`;
  `multiply_no_nan(x, 0) = 0` even for `x = inf` or NaN;
* their gradients are TF's: `d xlogy/dy = xdivy(x, y)` (0, not NaN, at
  `x = y = 0`), `divide_no_nan`'s gradient is 0 where `y == 0`, ...;
* `truncatediv`/`truncatemod` round toward zero (C's `/` and `fmod`);
  integer division by zero is TF's `InternalError` on CPU, and
  `INT_MIN / -1` wraps (torch would crash the process).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import dtypes, errors
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like
from . import _dispatch as D
from ._indices import checks_on_host
from .math_ops import _TRUEDIV_FLOAT, add, multiply
from .unary_math_ops import no_kernel

__all__ = ["atan2", "squared_difference", "truncatediv", "truncatemod", "divide_no_nan",
           "multiply_no_nan", "xlogy", "xdivy", "polyval"]

_FLOATS_COMPLEX = D.FLOATS | D.COMPLEX


class _Atan2(torch.autograd.Function):
    """`torch.atan2` with TF's gradient `(x, -y) * (g / (x^2 + y^2))`: NaN at the origin
    (torch's gives 0 there)."""

    @staticmethod
    def forward(ctx: Any, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(y, x)
        return torch.atan2(y, x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        y, x = ctx.saved_tensors
        grad_inv = grad / (torch.square(x) + torch.square(y))
        return D.reduce_to(x * grad_inv, y.shape), D.reduce_to(-y * grad_inv, x.shape)


def atan2(y: Any, x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.atan2` (also `tf.atan2`): the angle of `(x, y)` in `[-pi, pi]` (`torch.atan2`).

    Note TF's argument order: `y` first. Floating only; TF's gradient
    `(x, -y) * g / (x^2 + y^2)`, NaN at the origin.
    """
    yt, xt = D.matched("Atan2", y, x, allowed=D.FLOATS)
    if torch.is_grad_enabled() and (yt.requires_grad or xt.requires_grad):
        if yt.device != xt.device:
            yt, xt = D.same_device((yt, xt))
        if yt.shape != xt.shape and not D.broadcastable(yt.shape, xt.shape):
            raise errors.invalid_argument(
                f"Incompatible shapes: {D.fmt_shape(yt.shape)} vs. {D.fmt_shape(xt.shape)}",
                "Atan2")
        return _Atan2.apply(yt, xt)
    return D.run(torch.atan2, yt, xt)


def squared_difference(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.squared_difference`: `(x - y)^2`; `(x - y) * conj(x - y)` for complex.

    Floating, complex, int32 and int64 (TF registers no other integer kernel).
    """
    xt, yt = D.matched("SquaredDifference", x, y,
                       allowed=_FLOATS_COMPLEX | {torch.int32, torch.int64})
    d = D.run(torch.sub, xt, yt)
    return d * d.conj() if d.is_complex() else torch.square(d)


def _integer_divisor(op: str, y: Any, yt: torch.Tensor) -> torch.Tensor:
    """The divisor torch may use for integer `truncatediv`/`truncatemod`.

    TF's CPU kernels fail on a zero divisor (as `InternalError`, TF 2.21's
    class for it); they are checked where reading is free (see
    `checks_on_host`). Zero and -1 are then replaced by 1 (the callers fix
    -1's result), because torch's integer division traps on them (SIGFPE
    for `INT_MIN / -1`) where TF's GPU kernels return a value.
    """
    zero = (y == 0) if type(y) is int else (checks_on_host(yt) and bool((yt == 0).any()))
    if zero:
        raise errors.InternalError(
            None, None, "Unexpected error in binary operator (only integer div and mod should "
            f"have errors): integer division by zero [Op:{op}]")
    one = torch.ones((), dtype=yt.dtype, device=yt.device)
    if yt.dtype is torch.uint8:
        return torch.where(yt == 0, one, yt)
    return torch.where((yt == 0) | (yt == -1), one, yt)


def truncatediv(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.truncatediv`: `x / y` rounded toward zero (C's integer `/`; `trunc(x / y)` for floats).

    Real dtypes; complex is `NotFoundError`. Integer division by zero is
    TF's `InternalError` on CPU; `INT_MIN / -1` wraps to `INT_MIN`. No gradient (TF's is None).
    """
    xt, yt = D.matched("TruncateDiv", x, y, allowed=D.REAL | D.COMPLEX)
    if xt.dtype in D.COMPLEX:
        raise no_kernel("TruncateDiv", xt.dtype, "truncatediv")
    if xt.dtype in D.FLOATS:
        return D.run(torch.div, xt, yt, rounding_mode="trunc").detach()
    safe = _integer_divisor("TruncateDiv", y, yt)
    q = D.run(torch.div, xt, safe, rounding_mode="trunc")
    if xt.dtype is not torch.uint8:
        q = torch.where(yt == -1, torch.neg(xt), q)  # negation wraps, as C++'s on TF's CPU
    return q


class _NotDifferentiable(torch.autograd.Function):
    """An op TF registers no gradient for: differentiating through it is TF's LookupError."""

    @staticmethod
    def forward(ctx: Any, out: torch.Tensor, op: str) -> torch.Tensor:
        ctx.op = op
        return out.view_as(out)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        raise LookupError(f"gradient registry has no entry for: {ctx.op} (TF defines no gradient "
                          "for it; wrap the call in tf.stop_gradient if you do not need one)")


_TRUNCATEMOD = frozenset({torch.float32, torch.float64, torch.int32, torch.int64})


def truncatemod(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.truncatemod`: the remainder of `truncatediv`, with the sign of `x` (C's `fmod`).

    float32/float64/int32/int64 only (half precision is `NotFoundError`, as
    TF's CPU kernels); integer division by zero is `InternalError` on CPU.
    TF registers no gradient: differentiating through it is TF's `LookupError`.
    """
    xt, yt = D.matched("TruncateMod", x, y, allowed=_TRUNCATEMOD | {torch.float16,
                                                                     torch.bfloat16})
    if xt.dtype not in _TRUNCATEMOD:
        raise no_kernel("TruncateMod", xt.dtype, "truncatemod")
    if xt.dtype in D.FLOATS:
        out = D.run(torch.fmod, xt, yt)
        if out.requires_grad:
            return _NotDifferentiable.apply(out, "TruncateMod")
        return out
    safe = _integer_divisor("TruncateMod", y, yt)
    r = D.run(torch.fmod, xt, safe)
    return torch.where(yt == -1, torch.zeros_like(r), r)


# -- the NaN-safe ops --------------------------------------------------------------------

def _where_zero(cond: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    if cond.shape != value.shape:
        cond = cond.expand(value.shape)
    return value.masked_fill(cond, 0)


def _xlogy_value(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return _where_zero(torch.eq(x, 0), torch.mul(x, torch.log(y)))


def _xdivy_value(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return _where_zero(torch.eq(x, 0), torch.div(x, y))


def _xlog1py_value(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return _where_zero(torch.eq(x, 0), torch.mul(x, torch.log1p(y)))


def _div_no_nan_value(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return _where_zero(torch.eq(y, 0), torch.div(x, y))


def _mul_no_nan_value(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return _where_zero(torch.eq(y, 0), torch.mul(x, y))


class _SafeBinary(torch.autograd.Function):
    """A NaN-safe binary op (`kind`) with TF's registered gradient."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, y: torch.Tensor, kind: str) -> torch.Tensor:
        ctx.save_for_backward(x, y)
        ctx.kind = kind
        return _VALUES[kind](x, y)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, y = ctx.saved_tensors
        kind = ctx.kind
        if kind == "xlogy":  # TF: xlogy(x != 0, y) and xdivy(x, y)
            nonzero = (x != 0).to(x.dtype)
            gx, gy = _xlogy_value(nonzero, y) * grad, _xdivy_value(x, y) * grad
        elif kind == "xlog1py":  # TF: xlog1py(x != 0, y) and xdivy(x, y + 1)
            nonzero = (x != 0).to(x.dtype)
            gx, gy = _xlog1py_value(nonzero, y) * grad, _xdivy_value(x, y + 1) * grad
        elif kind == "xdivy":  # TF: xdivy(x != 0, y) and xdivy(-x, y^2)
            nonzero = (x != 0).to(x.dtype)
            gx, gy = _xdivy_value(nonzero, y) * grad, _xdivy_value(-x, y * y) * grad
        elif kind == "div_no_nan":
            # TF: div_no_nan(g, conj(y)) and g * div_no_nan(div_no_nan(-x, y), y)
            cx, cy = x.conj(), y.conj()
            gx = _div_no_nan_value(grad, cy)
            gy = grad * _div_no_nan_value(_div_no_nan_value(-cx, cy), cy)
        else:  # mul_no_nan; TF: mul_no_nan(g, y), mul_no_nan(x, g)
            gx, gy = _mul_no_nan_value(grad, y), _mul_no_nan_value(x, grad)
        return D.reduce_to(gx, x.shape), D.reduce_to(gy, y.shape), None


_VALUES = {"xlogy": _xlogy_value, "xlog1py": _xlog1py_value, "xdivy": _xdivy_value,
           "div_no_nan": _div_no_nan_value,
           "mul_no_nan": _mul_no_nan_value}


def _safe(op: str, kind: str, xt: torch.Tensor, yt: torch.Tensor) -> torch.Tensor:
    if xt.device != yt.device:
        xt, yt = D.same_device((xt, yt))
    if xt.shape != yt.shape and not D.broadcastable(xt.shape, yt.shape):
        raise errors.invalid_argument(
            f"Incompatible shapes: {D.fmt_shape(xt.shape)} vs. {D.fmt_shape(yt.shape)}", op)
    if torch.is_grad_enabled() and (xt.requires_grad or yt.requires_grad):
        return _SafeBinary.apply(xt, yt, kind)
    return _VALUES[kind](xt, yt)


def xlogy(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.xlogy`: `0` where `x == 0` (even for `y` 0 or NaN), else `x * log(y)`.

    Floating and complex; TF's gradient (`xlogy(x != 0, y)`, `xdivy(x, y)`).
    """
    xt, yt = D.matched("Xlogy", x, y, allowed=_FLOATS_COMPLEX)
    return _safe("Xlogy", "xlogy", xt, yt)


def xdivy(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.xdivy`: `0` where `x == 0` (even for `y == 0`), else `x / y`.

    Floating and complex; TF's gradient (`xdivy(x != 0, y)`, `xdivy(-x, y^2)`).
    """
    xt, yt = D.matched("Xdivy", x, y, allowed=_FLOATS_COMPLEX)
    return _safe("Xdivy", "xdivy", xt, yt)


_DIV_NO_NAN_TYPES = ("tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
                     "tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, "
                     "tf.complex128")


def _same_dtype(xt: torch.Tensor, yt: torch.Tensor) -> None:
    if xt.dtype is not yt.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got "
                        f"tf.{dtypes.from_torch(xt.dtype).name} != "
                        f"tf.{dtypes.from_torch(yt.dtype).name}.")


def divide_no_nan(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.divide_no_nan`: `0` where `y == 0` (even for `x` inf or NaN), else `x / y`.

    Integers are divided as `tf.math.truediv` (int8/16 to float32, int32/64
    to float64); bool is a `TypeError`. The gradient is TF's: 0 where `y == 0`.
    """
    if not is_tensor_like(x) and is_tensor_like(y):
        yt = convert_to_tensor(y)
        xt = convert_to_tensor_on(yt.device, x, dtype=yt.dtype)
    else:
        xt = convert_to_tensor(x)
        yt = convert_to_tensor_on(xt.device, y, dtype_hint=xt.dtype)
    _same_dtype(xt, yt)
    if xt.dtype is torch.bool:
        raise TypeError(f"Invalid dtype tf.bool in tf.math.divide_no_nan. Expected one of "
                        f"{{{_DIV_NO_NAN_TYPES}}}.")
    target = _TRUEDIV_FLOAT.get(xt.dtype)
    if target is not None:
        xt, yt = xt.to(target), yt.to(target)
    return _safe("DivNoNan", "div_no_nan", xt, yt)


def divide_no_nan_same(xt: torch.Tensor, yt: torch.Tensor) -> torch.Tensor:
    """`divide_no_nan` of two tensors (fast paths' call: no conversion when both are
    floating tensors of one dtype; otherwise `divide_no_nan` itself)."""
    if xt.dtype is not yt.dtype or not xt.is_floating_point():
        return divide_no_nan(xt, yt)
    return _safe("DivNoNan", "div_no_nan", xt, yt)


def multiply_no_nan(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.multiply_no_nan`: `0` where `y == 0` (even for `x` inf or NaN), else `x * y`.

    `y` is converted to `x`'s dtype (a tensor of another dtype is TF's
    `ValueError`); floating and complex only. TF's
    gradient: `mul_no_nan(g, y)` and `mul_no_nan(x, g)`.
    """
    xt = convert_to_tensor(x)
    yt = convert_to_tensor_on(xt.device, y, dtype=xt.dtype)  # a tensor of another dtype: ValueError
    D.check_dtype("MulNoNan", xt.dtype, _FLOATS_COMPLEX)
    return _safe("MulNoNan", "mul_no_nan", xt, yt)


def polyval(coeffs: Any, x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.polyval`: `coeffs[0] * x^(n-1) + ... + coeffs[n-1]` by Horner's rule, as TF.

    `coeffs` must be a Python list (`ValueError` otherwise); each step is
    `c + p * x` with TF's operator rules, so the rounding is TF's. An empty
    list gives `zeros_like(x)`.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    xt = convert_to_tensor(x)
    if not coeffs:
        return torch.zeros_like(xt)
    cs = [convert_to_tensor(c) for c in coeffs]
    p = cs[0]
    for c in cs[1:]:
        p = add(c, multiply(p, xt))
    return p
