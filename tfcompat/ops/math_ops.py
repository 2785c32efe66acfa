"""Element-wise arithmetic, comparison and logic with TF's dtype rules.

These are the ops behind the TF tensor operators (`+ - * / // % ** @`,
comparisons, `& | ^ ~`), so variables and `tf.*` calls agree. Where TF and
torch differ, TF wins:

* no dtype promotion (see `_dispatch`), `int / int` is float64 for 32/64-bit
  ints and float32 for 8/16-bit ints (`tf.truediv`);
* `//` on floats is `floor(x / y)` and `%` is the floor remainder computed
  from `fmod`, as TF's FloorDiv/FloorMod kernels do;
* integer division by zero and integers to negative powers are
  `InvalidArgumentError`, not garbage.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

from ..framework import dtypes, errors
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from . import _dispatch as D
from ._blas import matmul_2d
from ._indices import checks_on_host
from .unary_ops import make_unary

__all__ = [
    "add", "subtract", "multiply", "truediv", "divide", "floordiv", "floormod", "mod",
    "pow", "matmul", "maximum", "minimum", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "negative", "abs", "cast", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "saturate_cast",
]


def add(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.add`: `x + y` with broadcasting; both of one dtype (no bool)."""
    xt, yt = D.hinted("AddV2", x, y, allowed=D.NUMERIC)
    return D.run(torch.add, xt, yt)


def subtract(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.subtract`: `x - y`."""
    xt, yt = D.matched("Sub", x, y, allowed=D.NUMERIC)
    return D.run(torch.sub, xt, yt)


def multiply(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.multiply`: `x * y` (bool inputs allowed, as TF's Mul)."""
    xt, yt = D.matched("Mul", x, y)
    if xt.dtype is torch.bool:
        return D.run(torch.logical_and, xt, yt)
    return D.run(torch.mul, xt, yt)


_TRUEDIV_FLOAT = {
    torch.int8: torch.float32, torch.int16: torch.float32, torch.uint8: torch.float32,
    torch.int32: torch.float64, torch.int64: torch.float64,
}


def truediv(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.truediv`: true division; 8/16-bit ints give float32, 32/64-bit float64."""
    xt = convert_to_tensor_on(y.device if isinstance(y, torch.Tensor) else None, x)
    yt = convert_to_tensor_on(xt.device, y, dtype_hint=xt.dtype)
    if xt.dtype is not yt.dtype:
        raise TypeError(
            f"`x` and `y` must have the same dtype, got tf.{dtypes.from_torch(xt.dtype).name} != "
            f"tf.{dtypes.from_torch(yt.dtype).name}.")
    if xt.dtype is torch.bool:
        raise TypeError(
            "Invalid dtype tf.bool in __truediv__. Expected one of {tf.uint8, tf.int8, tf.int16, "
            "tf.int32, tf.int64, tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.complex64, "
            "tf.complex128}.")
    target = _TRUEDIV_FLOAT.get(xt.dtype)
    if target is not None:
        xt, yt = xt.to(target), yt.to(target)
    return D.run(torch.div, xt, yt)


def divide(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.divide`: Python 3 division semantics, i.e. `truediv`."""
    return truediv(x, y)


def _check_int_divisor(op: str, y: Any, yt: torch.Tensor) -> None:
    """TF's CPU kernels reject an integer zero divisor; its GPU kernels do not look.

    A Python divisor is checked before it becomes a tensor; a tensor divisor
    where reading it is free (`checks_on_host`), so accelerators never sync.
    """
    if yt.dtype not in D.INTS:
        return
    zero = (y == 0) if type(y) is int else (checks_on_host(yt) and bool((yt == 0).any()))
    if zero:
        raise errors.invalid_argument("Integer division by zero", op)


def floordiv(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.floordiv`: rounds toward -inf; on floats `floor(x / y)` as TF's kernel."""
    xt, yt = D.matched("FloorDiv", x, y, allowed=D.REAL)
    if xt.dtype in D.FLOATS:  # TF registers a None gradient: the result is not on the tape
        return torch.floor(D.run(torch.div, xt, yt)).detach()
    _check_int_divisor("FloorDiv", y, yt)
    return D.run(torch.div, xt, yt, rounding_mode="floor")


def floormod(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.floormod`: remainder with the sign of the divisor (Python's `%`)."""
    xt, yt = D.matched("FloorMod", x, y, allowed=D.REAL)
    if xt.dtype in D.FLOATS:
        trunc = D.run(torch.fmod, xt, yt)
        fix = (trunc != 0) & ((yt < 0) != (trunc < 0))
        return torch.where(fix, trunc + yt, trunc)
    _check_int_divisor("FloorMod", y, yt)
    return D.run(torch.remainder, xt, yt)


mod = floormod


class _Pow(torch.autograd.Function):
    """`torch.pow` with TF's gradient: `g * y * x^(y-1)` for `x` (unmasked: NaN at `x = y = 0`,
    where torch's is 0), and `g * z * log(x)` for `y` with `log(x)` taken as 0 where `x <= 0`
    (torch's is NaN for a negative base, -inf at 0 with a negative power)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        z = torch.pow(x, y)
        ctx.save_for_backward(x, y, z)
        return z

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, y, z = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = D.reduce_to(grad * y.conj() * torch.pow(x.conj(), y.conj() - 1), x.shape)
        if ctx.needs_input_grad[1]:
            mask = x != 0 if x.is_complex() else x.real > 0
            log_x = torch.where(mask, torch.log(torch.where(mask, x, torch.ones_like(x))),
                                torch.zeros_like(x)).conj()
            gy = D.reduce_to(grad * z.conj() * log_x, y.shape)
        return gx, gy


def pow(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001 - TF name
    """`tf.math.pow`: `x ** y`; integers to negative integer powers are an error.

    (Checked on the host only, as TF's CPU kernel: see `_check_int_divisor`.) The
    gradient is TF's (`_Pow`).
    """
    xt, yt = D.matched("Pow", x, y, allowed=D.SIGNED)  # TF has no unsigned Pow kernel
    if xt.dtype in D.INTS:
        negative = (y < 0) if type(y) is int else (checks_on_host(yt) and bool((yt < 0).any()))
        if negative:
            raise errors.invalid_argument("Integers to negative integer powers are not allowed",
                                          "Pow")
    elif torch.is_grad_enabled() and (xt.requires_grad or yt.requires_grad):
        if xt.device != yt.device:
            xt, yt = D.same_device((xt, yt))
        if xt.shape != yt.shape and not D.broadcastable(xt.shape, yt.shape):
            raise errors.invalid_argument(
                f"Incompatible shapes: {D.fmt_shape(xt.shape)} vs. {D.fmt_shape(yt.shape)}", "Pow")
        return _Pow.apply(xt, yt)
    return D.run(torch.pow, xt, yt)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, output_type: Any = None,
           grad_a: bool = False, grad_b: bool = False, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.matmul`: (batched, broadcasting) matrix product of rank >= 2 inputs.

    `transpose_*` swaps the last two axes, `adjoint_*` also conjugates;
    `output_type` is only meaningful for int8 inputs in TF and is honoured as
    a final cast.
    """
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a (and of transpose_b and "
                         "adjoint_b) can be True.")
    at, bt = D.hinted("MatMul", a, b, allowed=D.NUMERIC)
    if (at.dim() >= 2 and bt.dim() >= 2 and output_type is None
            and not (transpose_a or adjoint_a or transpose_b or adjoint_b)):
        try:  # the common call; torch refuses what TF refuses here, TF's words come below
            return matmul_2d(at, bt)
        except RuntimeError:
            pass
    for i, t in enumerate((at, bt)):
        if t.dim() < 2:
            # TF's kernels word this two ways (MKL float32 vs the others); say both.
            differ = (f"In[0] and In[1] has different ndims: {D.fmt_shape(at.shape)} vs. "
                      f"{D.fmt_shape(bt.shape)}; " if at.dim() != bt.dim() else "")
            raise errors.invalid_argument(
                f"{differ}In[{i}] ndims must be >= 2 (got shape {tuple(t.shape)}) [Op:MatMul]. "
                "Use tf.reshape or tf.expand_dims to make a matrix.")
    if transpose_a or adjoint_a:
        at = at.transpose(-1, -2)
        at = at.conj() if adjoint_a else at
    if transpose_b or adjoint_b:
        bt = bt.transpose(-1, -2)
        bt = bt.conj() if adjoint_b else bt
    if at.shape[-1] != bt.shape[-2]:
        raise errors.invalid_argument(
            f"Matrix size-incompatible: In[0]: {D.fmt_shape(at.shape)}, In[1]: "
            f"{D.fmt_shape(bt.shape)}", "MatMul")
    out = D.run(torch.matmul, at, bt)
    if output_type is not None:
        out = out.to(dtypes.to_torch(output_type))
    return out


class _MaxMin(torch.autograd.Function):
    """`torch.maximum`/`minimum` with TF's gradient.

    torch splits the gradient of a tie half and half; TF's `Maximum` sends
    all of it to `x` (mask `x >= y`; `x <= y` for `Minimum`), which matters
    for `clip_by_value` at its bounds and for `relu`-like uses.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, y: torch.Tensor, is_max: bool) -> torch.Tensor:
        ctx.save_for_backward(x, y)
        ctx.is_max = is_max
        return torch.maximum(x, y) if is_max else torch.minimum(x, y)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, y = ctx.saved_tensors
        take_x = (x >= y) if ctx.is_max else (x <= y)
        zero = torch.zeros((), dtype=grad.dtype, device=grad.device)
        gx = gy = None
        if ctx.needs_input_grad[0]:
            # Summed down to the input's shape, undoing broadcasting (TF's _ReduceGradientArgs).
            gx = torch.where(take_x, grad, zero).sum_to_size(x.shape)
        if ctx.needs_input_grad[1]:
            gy = torch.where(take_x, zero, grad).sum_to_size(y.shape)
        return gx, gy, None


def _scalar_bound(x: Any, y: Any) -> bool:
    """Whether `max/min(x, y)` can be `clamp(x, y)`: a real tensor and a Python number it takes.

    Then no tensor is made for `y`, and clamp's gradient is TF's (a tie goes to `x`).
    """
    if not isinstance(x, torch.Tensor) or type(y) not in (int, float):
        return False
    if x.is_floating_point():
        return True
    if type(y) is not int or x.dtype not in D.INTS:
        return False
    dt = dtypes.from_torch(x.dtype)
    return dt.min <= y <= dt.max


def _max_min(op: str, x: Any, y: Any, is_max: bool) -> torch.Tensor:
    if _scalar_bound(x, y):
        return torch.clamp_min(x, y) if is_max else torch.clamp_max(x, y)
    xt, yt = D.matched(op, x, y, allowed=D.REAL)
    if torch.is_grad_enabled() and (xt.requires_grad or yt.requires_grad):
        if xt.device != yt.device:
            xt, yt = D.same_device((xt, yt))
        try:
            return _MaxMin.apply(xt, yt, is_max)
        except RuntimeError as e:
            raise errors.invalid_argument(str(e), op) from None
    return D.run(torch.maximum if is_max else torch.minimum, xt, yt)


def maximum(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.maximum`: element-wise max with broadcasting; NaN propagates.

    On a tie the gradient goes to `x` only, as in TF (torch would split it).
    """
    return _max_min("Maximum", x, y, True)


def minimum(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.minimum`: element-wise min with broadcasting; NaN propagates.

    On a tie the gradient goes to `x` only, as in TF (torch would split it).
    """
    return _max_min("Minimum", x, y, False)


def equal(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.equal`: element-wise `x == y` (shapes must broadcast)."""
    xt, yt = D.matched("Equal", x, y)
    return D.run(torch.eq, xt, yt)


def not_equal(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.not_equal`: element-wise `x != y` (shapes must broadcast)."""
    xt, yt = D.matched("NotEqual", x, y)
    return D.run(torch.ne, xt, yt)


def tensor_equals(x: Any, y: Any, negate: bool = False) -> Any:
    """The `==`/`!=` operator of TF 2 tensors and variables.

    Element-wise when the shapes broadcast; a scalar `False` (`True` for `!=`)
    when they cannot, as `equal(..., incompatible_shape_error=False)`.
    """
    op = "NotEqual" if negate else "Equal"
    xt, yt = D.matched(op, x, y)
    if not D.broadcastable(xt.shape, yt.shape):
        return torch.full((), negate, device=xt.device)
    return D.run(torch.ne if negate else torch.eq, xt, yt)


def _binary(op: str, fn: Callable, allowed: Optional[frozenset], tf_name: str,
            doc: str) -> Callable:
    """A matched binary op over `fn` whose kernel takes the dtypes in `allowed`."""
    def binary(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
        xt, yt = D.matched(op, x, y, allowed=allowed)
        return D.run(fn, xt, yt)
    binary.__name__ = binary.__qualname__ = tf_name
    binary.__doc__ = doc
    return binary


less = _binary("Less", torch.lt, D.REAL, "less", "`tf.math.less`: element-wise `x < y`.")
less_equal = _binary("LessEqual", torch.le, D.REAL, "less_equal",
                     "`tf.math.less_equal`: element-wise `x <= y`.")
greater = _binary("Greater", torch.gt, D.REAL, "greater",
                  "`tf.math.greater`: element-wise `x > y`.")
greater_equal = _binary("GreaterEqual", torch.ge, D.REAL, "greater_equal",
                        "`tf.math.greater_equal`: element-wise `x >= y`.")
bitwise_and = _binary("BitwiseAnd", torch.bitwise_and, D.INTS, "bitwise_and",
                      "`tf.bitwise.bitwise_and` of two integer tensors.")
bitwise_or = _binary("BitwiseOr", torch.bitwise_or, D.INTS, "bitwise_or",
                     "`tf.bitwise.bitwise_or` of two integer tensors.")
bitwise_xor = _binary("BitwiseXor", torch.bitwise_xor, D.INTS, "bitwise_xor",
                      "`tf.bitwise.bitwise_xor` of two integer tensors.")


def _logical(fn: Callable, tf_name: str, doc: str) -> Callable:
    def logical(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
        xt = convert_to_tensor_on(y.device if isinstance(y, torch.Tensor) else None, x,
                                  dtype=dtypes.bool)
        yt = convert_to_tensor_on(xt.device, y, dtype=dtypes.bool)
        return D.run(fn, xt, yt)
    logical.__name__ = logical.__qualname__ = tf_name
    logical.__doc__ = doc
    return logical


logical_and = _logical(torch.logical_and, "logical_and",
                       "`tf.math.logical_and` of two bool tensors.")
logical_or = _logical(torch.logical_or, "logical_or", "`tf.math.logical_or` of two bool tensors.")
logical_xor = _logical(torch.logical_xor, "logical_xor",
                       "`tf.math.logical_xor` of two bool tensors.")


def logical_not(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.logical_not` of a bool tensor."""
    return torch.logical_not(convert_to_tensor(x, dtype=dtypes.bool))


invert = make_unary("Invert", torch.bitwise_not, D.INTS, "invert",
                    "`tf.bitwise.invert`: bitwise NOT of an integer tensor.")
negative = make_unary("Neg", torch.neg, D.SIGNED, "negative",
                      "`tf.math.negative`: `-x` (signed types only, as TF's Neg).")
abs = make_unary("Abs", torch.abs, D.SIGNED, "abs",  # noqa: A001 - TF name
                 "`tf.math.abs`: absolute value; complex inputs give their real magnitude.")


def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Any:
    """`tf.cast`: convert to `dtype`. Floats to ints truncate toward zero (as TF);

    complex to real drops the imaginary part. `IndexedSlices` cast their values.
    """
    target = dtypes.to_torch(dtype)
    if isinstance(x, IndexedSlices):
        return IndexedSlices(cast(x.values, dtype), x.indices, x.dense_shape)
    xt = convert_to_tensor(x)
    if xt.dtype is target:
        return xt
    if xt.is_complex() and not target.is_complex:
        xt = xt.real
    return xt.to(target)


def _inside(bound: Any, dtype: torch.dtype, up: bool) -> torch.Tensor:
    """`bound` in `dtype`, moved one step inward if rounding put it outside (0-d tensor)."""
    t = torch.tensor(float(bound), dtype=torch.float64).to(dtype)
    if (float(t) > bound) if not up else (float(t) < bound):
        t = torch.nextafter(t, torch.tensor(float("-inf") if not up else float("inf"), dtype=dtype))
    return t


def saturate_cast(value: Any, dtype: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.dtypes.saturate_cast`: cast, clamping to the target's range first."""
    xt = convert_to_tensor(value)
    target = dtypes.as_dtype(dtype)
    if not target.is_bool and not target.is_complex and xt.dtype is not torch.bool:
        lo, hi = target.min, target.max
        if xt.is_floating_point() or xt.is_complex():
            xt = xt.real if xt.is_complex() else xt
            # As TF: the bounds are the input dtype's values nearest inside the target's range
            # (float32 to int32 clamps at 2147483520: 2**31 - 1 rounds up to 2**31 in float32)
            xt = torch.clamp(xt, _inside(lo, xt.dtype, up=True), _inside(hi, xt.dtype, up=False))
        else:
            own = dtypes.from_torch(xt.dtype)
            xt = torch.clamp(xt, max(lo, own.min), min(hi, own.max))
    return cast(xt, target)
