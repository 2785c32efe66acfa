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

from typing import Any, Optional

import torch

from ..framework import dtypes, errors
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D

__all__ = [
    "add", "subtract", "multiply", "truediv", "divide", "floordiv", "floormod", "mod",
    "pow", "matmul", "maximum", "minimum", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "negative", "abs", "cast", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "saturate_cast",
]


def add(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.add`: `x + y` with broadcasting; both of one dtype (no bool)."""
    xt, yt = D.hinted("AddV2", x, y)
    D.check_dtype("AddV2", xt, D.NUMERIC)
    return D.run(torch.add, xt, yt)


def subtract(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.subtract`: `x - y`."""
    xt, yt = D.matched("Sub", x, y)
    D.check_dtype("Sub", xt, D.NUMERIC)
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
    xt = convert_to_tensor(x)
    yt = y if isinstance(y, torch.Tensor) else convert_to_tensor(y, dtype_hint=xt.dtype)
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


def _check_int_divisor(op: str, yt: torch.Tensor) -> None:
    if yt.dtype in D.INTS and bool((yt == 0).any()):
        raise errors.InvalidArgumentError(None, None, f"Integer division by zero [Op:{op}]")


def floordiv(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.floordiv`: rounds toward -inf; on floats `floor(x / y)` as TF's kernel."""
    xt, yt = D.matched("FloorDiv", x, y)
    D.check_dtype("FloorDiv", xt, D.REAL)
    if xt.dtype in D.FLOATS:
        return torch.floor(D.run(torch.div, xt, yt))
    _check_int_divisor("FloorDiv", yt)
    return D.run(torch.div, xt, yt, rounding_mode="floor")


def floormod(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.floormod`: remainder with the sign of the divisor (Python's `%`)."""
    xt, yt = D.matched("FloorMod", x, y)
    D.check_dtype("FloorMod", xt, D.REAL)
    if xt.dtype in D.FLOATS:
        trunc = D.run(torch.fmod, xt, yt)
        fix = (trunc != 0) & ((yt < 0) != (trunc < 0))
        return torch.where(fix, trunc + yt, trunc)
    _check_int_divisor("FloorMod", yt)
    return D.run(torch.remainder, xt, yt)


mod = floormod


def pow(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001 - TF name
    """`tf.math.pow`: `x ** y`; integers to negative integer powers are an error."""
    xt, yt = D.matched("Pow", x, y)
    D.check_dtype("Pow", xt, D.NUMERIC)
    if xt.dtype in D.INTS and bool((yt < 0).any()):
        raise errors.InvalidArgumentError(
            None, None, "Integers to negative integer powers are not allowed [Op:Pow]")
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
    at, bt = D.hinted("MatMul", a, b)
    D.check_dtype("MatMul", at, D.NUMERIC)
    for i, t in enumerate((at, bt)):
        if t.dim() < 2:
            raise errors.InvalidArgumentError(
                None, None, f"In[{i}] ndims must be >= 2 (got shape {tuple(t.shape)}) [Op:MatMul]. "
                "Use tf.reshape or tf.expand_dims to make a matrix.")
    if transpose_a or adjoint_a:
        at = at.transpose(-1, -2)
        at = at.conj() if adjoint_a else at
    if transpose_b or adjoint_b:
        bt = bt.transpose(-1, -2)
        bt = bt.conj() if adjoint_b else bt
    if at.shape[-1] != bt.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None,
            f"Matrix size-incompatible: In[0]: {list(at.shape)}, In[1]: {list(bt.shape)} [Op:MatMul]")
    out = D.run(torch.matmul, at, bt)
    if output_type is not None:
        out = out.to(dtypes.to_torch(output_type))
    return out


def maximum(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.maximum`: element-wise max with broadcasting."""
    xt, yt = D.matched("Maximum", x, y)
    D.check_dtype("Maximum", xt, D.REAL)
    return D.run(torch.maximum, xt, yt)


def minimum(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.minimum`: element-wise min with broadcasting."""
    xt, yt = D.matched("Minimum", x, y)
    D.check_dtype("Minimum", xt, D.REAL)
    return D.run(torch.minimum, xt, yt)


def _broadcastable(a: torch.Size, b: torch.Size) -> bool:
    for da, db in zip(reversed(a), reversed(b)):
        if da != db and da != 1 and db != 1:
            return False
    return True


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
    if not _broadcastable(xt.shape, yt.shape):
        return torch.tensor(negate, device=xt.device)
    return D.run(torch.ne if negate else torch.eq, xt, yt)


def _comparison(op: str, fn: Any) -> Any:
    def compare(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
        xt, yt = D.matched(op, x, y)
        D.check_dtype(op, xt, D.REAL)
        return D.run(fn, xt, yt)
    return compare


less = _comparison("Less", torch.lt)
less.__doc__ = "`tf.math.less`: element-wise `x < y`."
less_equal = _comparison("LessEqual", torch.le)
less_equal.__doc__ = "`tf.math.less_equal`: element-wise `x <= y`."
greater = _comparison("Greater", torch.gt)
greater.__doc__ = "`tf.math.greater`: element-wise `x > y`."
greater_equal = _comparison("GreaterEqual", torch.ge)
greater_equal.__doc__ = "`tf.math.greater_equal`: element-wise `x >= y`."


def _logical(op: str, fn: Any) -> Any:
    def logical(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
        xt = convert_to_tensor(x, dtype=dtypes.bool)
        yt = convert_to_tensor(y, dtype=dtypes.bool)
        return D.run(fn, xt, yt)
    return logical


logical_and = _logical("LogicalAnd", torch.logical_and)
logical_and.__doc__ = "`tf.math.logical_and` of two bool tensors."
logical_or = _logical("LogicalOr", torch.logical_or)
logical_or.__doc__ = "`tf.math.logical_or` of two bool tensors."
logical_xor = _logical("LogicalXor", torch.logical_xor)
logical_xor.__doc__ = "`tf.math.logical_xor` of two bool tensors."


def logical_not(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.logical_not` of a bool tensor."""
    return torch.logical_not(convert_to_tensor(x, dtype=dtypes.bool))


def _bitwise(op: str, fn: Any) -> Any:
    def bitwise(x: Any, y: Any, name: Optional[str] = None) -> torch.Tensor:
        xt, yt = D.matched(op, x, y)
        D.check_dtype(op, xt, D.INTS)
        return D.run(fn, xt, yt)
    return bitwise


bitwise_and = _bitwise("BitwiseAnd", torch.bitwise_and)
bitwise_or = _bitwise("BitwiseOr", torch.bitwise_or)
bitwise_xor = _bitwise("BitwiseXor", torch.bitwise_xor)


def invert(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.bitwise.invert`: bitwise NOT of an integer tensor."""
    xt = convert_to_tensor(x)
    D.check_dtype("Invert", xt, D.INTS)
    return torch.bitwise_not(xt)


def negative(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.negative`: `-x` (signed types only, as TF's Neg)."""
    xt = convert_to_tensor(x)
    D.check_dtype("Neg", xt, D.SIGNED)
    return torch.neg(xt)


def abs(x: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001 - TF name
    """`tf.math.abs`: absolute value; complex inputs give their real magnitude."""
    xt = convert_to_tensor(x)
    D.check_dtype("Abs", xt, D.SIGNED)
    return torch.abs(xt)


def cast(x: Any, dtype: Any, name: Optional[str] = None) -> Any:
    """`tf.cast`: convert to `dtype`. Floats to ints truncate toward zero (as TF);

    complex to real drops the imaginary part. `IndexedSlices` cast their values.
    """
    from ..framework.indexed_slices import IndexedSlices
    target = dtypes.to_torch(dtype)
    if isinstance(x, IndexedSlices):
        return IndexedSlices(cast(x.values, dtype), x.indices, x.dense_shape)
    xt = convert_to_tensor(x)
    if xt.dtype is target:
        return xt
    if xt.is_complex() and not target.is_complex:
        xt = xt.real
    return xt.to(target)


def saturate_cast(value: Any, dtype: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.dtypes.saturate_cast`: cast, clamping to the target's range first."""
    xt = convert_to_tensor(value)
    target = dtypes.as_dtype(dtype)
    if not target.is_bool and not target.is_complex and xt.dtype is not torch.bool:
        lo, hi = target.min, target.max
        if xt.is_floating_point() or xt.is_complex():
            xt = xt.real if xt.is_complex() else xt
            xt = torch.clamp(xt, lo, hi)
        else:
            info = torch.iinfo(xt.dtype)
            xt = torch.clamp(xt, max(lo, info.min), min(hi, info.max))
    return cast(xt, target)
