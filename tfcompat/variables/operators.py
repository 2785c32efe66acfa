"""TF's binary operators for variables, both sides, from one table.

`variable <op> x` (the dunders installed on `Variable`), `x <op> variable`
(the reflected dunders), `tensor <op> variable` (which torch routes to
`Variable.__torch_function__` as `Tensor.add`, `Tensor.mul`, ...) and
`tensor <op> ndarray` / `ndarray <op> tensor` (which NumPy routes to
`Tensor.__array_ufunc__`, see `framework.numpy_dispatch`) all follow TF's
rules: no dtype promotion, Python and NumPy values converted to the tensor's
or variable's dtype, `int / int` is float64. Each row of `OPERATORS` names
the TF op once; the four entry points are generated from it, so they cannot
drift apart.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, NamedTuple, Optional

import numpy as np
import torch

from ..framework import dtypes, numpy_dispatch
from ..framework.numpy_interop import to_numpy
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from ..framework.variable_protocol import is_variable
from ..ops import _dispatch, math_ops

__all__ = ["OPERATORS", "TENSOR_OPERATORS", "install"]

_NUMERIC = _dispatch.NUMERIC
_FLOATING = _dispatch.FLOATS | _dispatch.COMPLEX
_ALL = _NUMERIC | {torch.bool}


def _logical(op: str, fn: Any) -> Callable[[Any, Any], Any]:
    def logical(x: torch.Tensor, y: Any) -> torch.Tensor:
        xt, yt = _dispatch.matched(op, x, y)
        return _dispatch.run(fn, xt, yt)
    return logical


def _bitwise_or_logical(logical: Callable, bitwise: Callable) -> Callable[[Any, Any], Any]:
    """TF's `&`, `|`, `^`: logical on bool tensors, bitwise on integers."""
    def op(x: Any, y: Any) -> Any:
        xt = convert_to_tensor(x)
        return (logical if xt.dtype is torch.bool else bitwise)(xt, y)
    return op


_and = _bitwise_or_logical(_logical("LogicalAnd", torch.logical_and), math_ops.bitwise_and)
_or = _bitwise_or_logical(_logical("LogicalOr", torch.logical_or), math_ops.bitwise_or)
# TF computes x ^ y as (x | y) & ~(x & y): its first op, LogicalOr, names the error.
_xor = _bitwise_or_logical(_logical("LogicalOr", torch.logical_xor), math_ops.bitwise_xor)


def _bool_product(xt: torch.Tensor, y: Any) -> torch.Tensor:
    as_int = math_ops.multiply(math_ops.cast(xt, dtypes.int32), math_ops.cast(y, dtypes.int32))
    return math_ops.cast(as_int, dtypes.bool)


def _mul(x: Any, y: Any) -> Any:
    """TF's `*`: a bool `x`, or a bool *tensor* `y`, makes it an int32 product cast to bool.

    A bool variable on the right does not (`float_tensor * bool_variable` is
    TF's dtype error, while `bool_variable * float_tensor` is bool): TF's
    operator looks at `y`'s dtype only when `y` is a tensor.
    """
    xt = convert_to_tensor(x)
    if xt.dtype is torch.bool or (isinstance(y, torch.Tensor) and y.dtype is torch.bool):
        return _bool_product(xt, y)
    return math_ops.multiply(xt, y)


def _mul_by_variable(x: Any, y: torch.Tensor) -> Any:
    """`x * variable`, given the variable's value `y`: only `x`'s dtype picks the bool rule."""
    xt = convert_to_tensor(x)
    if xt.dtype is torch.bool:
        return _bool_product(xt, y)
    return math_ops.multiply(xt, y)


def _not_equal(x: Any, y: Any) -> Any:
    return math_ops.tensor_equals(x, y, negate=True)


class _Operator(NamedTuple):
    """One binary operator of TF's tensors, for both sides of a variable.

    `fn` is the TF op (`fn(x, y)`). `torch_fn` is a shortcut for the common
    case TF's rules pass unchanged (two tensors of one dtype in `allowed`),
    so `v + x` and `x + v` cost about what torch's `t + x` does. `by_variable`
    replaces `fn` when the right operand was a variable (read to a tensor)
    where TF treats that differently (only `*`). `tensor_methods` are the
    `torch.Tensor` methods `tensor <op> variable` reaches `__torch_function__`
    as (torch reports `t + v` as `Tensor.add`).
    """
    dunder: str
    fn: Callable[[Any, Any], Any]
    reflected: bool
    tensor_methods: tuple
    torch_fn: Any = None
    allowed: frozenset = frozenset()
    by_variable: Optional[Callable[[Any, Any], Any]] = None


OPERATORS = (
    _Operator("add", math_ops.add, True, ("add",), torch.add, _NUMERIC),
    _Operator("sub", math_ops.subtract, True, ("sub",), torch.sub, _NUMERIC),
    _Operator("mul", _mul, True, ("mul",), torch.mul, _NUMERIC, _mul_by_variable),
    _Operator("truediv", math_ops.truediv, True, ("div",), torch.div, _FLOATING),
    _Operator("floordiv", math_ops.floordiv, True, ("__floordiv__",)),
    _Operator("mod", math_ops.floormod, True, ("remainder",)),
    _Operator("pow", math_ops.pow, True, ("__pow__",)),
    _Operator("matmul", math_ops.matmul, True, ("matmul",)),
    _Operator("lt", math_ops.less, False, ("lt",), torch.lt, _dispatch.REAL),
    _Operator("le", math_ops.less_equal, False, ("le",), torch.le, _dispatch.REAL),
    _Operator("gt", math_ops.greater, False, ("gt",), torch.gt, _dispatch.REAL),
    _Operator("ge", math_ops.greater_equal, False, ("ge",), torch.ge, _dispatch.REAL),
    _Operator("eq", math_ops.tensor_equals, False, ("eq",), torch.eq, _ALL),
    _Operator("ne", _not_equal, False, ("ne",), torch.ne, _ALL),
    _Operator("and", _and, True, ("__and__",)),
    _Operator("or", _or, True, ("__or__",)),
    _Operator("xor", _xor, True, ("__xor__",)),
)


# `variable <op> python_number` straight to torch where that is exactly TF's computation: TF
# converts the number to the variable's dtype, then runs the op; torch passes the number to the
# kernel, which rounds it to the op's compute type. For float32 and float64 the compute type is
# the variable's dtype, so both round the number once, the same way. (Half precision computes
# in float32: the number would not be rounded to half first. Division may be a multiplication
# by the reciprocal in torch's kernels. Both take the TF op.)
_SCALAR_OPS = {"add": torch.add, "sub": torch.sub, "mul": torch.mul}
_REFLECTED_SCALAR_OPS = {"add": torch.add, "sub": torch.rsub, "mul": torch.mul}
_SCALAR_DTYPES = (torch.float32, torch.float64)


def _exact_scalar_operand(x: torch.Tensor, other: Any) -> bool:
    kind = type(other)
    return ((kind is float or kind is int) and x.dtype in _SCALAR_DTYPES
            and -3.0e38 < other < 3.0e38)


def _forward(op: _Operator) -> Callable[[Any, Any], Any]:
    """`variable <op> other` through the TF op.

    As TF's operator wrapper: when the op rejects `other` with a TypeError or
    ValueError, `other`'s reflected operator gets a chance (a NumPy array
    computes `array.__rtruediv__(tensor)`), else the original error stands.
    """
    fn, torch_fn, allowed = op.fn, op.torch_fn, op.allowed
    scalar_fn = _SCALAR_OPS.get(op.dunder)
    reflected_name = f"__r{op.dunder}__" if op.reflected else None

    tensor = torch.Tensor

    def forward(self: Any, other: Any) -> Any:
        x = self.value()
        kind = type(other)
        y = other
        if kind is not tensor:
            if scalar_fn is not None and (kind is float or kind is int):
                if x.dtype in _SCALAR_DTYPES and -3.0e38 < other < 3.0e38:
                    return scalar_fn(x, other)
            elif is_variable(other):
                y = x if other is self else other.value()  # (`v * v`: one read, as good as two)
        if torch_fn is not None and type(y) is tensor:
            dtype = x.dtype
            if y.dtype is dtype and dtype in allowed:
                try:
                    return torch_fn(x, y)
                except RuntimeError:
                    pass  # devices differ, shapes don't broadcast...: the TF op says it properly
        try:
            return fn(x, other)
        except (TypeError, ValueError):
            reflected = getattr(other, reflected_name, None) if reflected_name else None
            if reflected is not None and not isinstance(other, (torch.Tensor, numbers.Number)):
                # NumPy would defer back to torch's reflected operator; give it an array.
                out = reflected(to_numpy(x) if isinstance(other, np.ndarray) else x)
                if out is not NotImplemented:
                    return out
            raise
    forward.__name__ = f"__{op.dunder}__"
    return forward


def _reflected(op: _Operator) -> Callable[[Any, Any], Any]:
    """`other <op> variable` when `other` did not handle it: TF's reflected operator.

    A torch tensor only lands here when torch turned the TF op's TypeError
    into NotImplemented; running the op with the tensor first restores TF's
    error. Other values are converted to the variable's dtype, as TF does.
    """
    fn = op.by_variable or op.fn
    scalar_fn = _REFLECTED_SCALAR_OPS.get(op.dunder)

    def backward(self: Any, other: Any) -> Any:
        x = self.value()
        if scalar_fn is not None and _exact_scalar_operand(x, other):
            return scalar_fn(x, other)
        if isinstance(other, torch.Tensor):
            return fn(other, x)
        return fn(convert_to_tensor(other, dtype=dtypes.from_torch(x.dtype)), x)
    backward.__name__ = f"__r{op.dunder}__"
    return backward


def _tensor_side(op: _Operator) -> Callable[[torch.Tensor, Any], Any]:
    """`tensor <op> variable`, reached from `__torch_function__`: the variable is read first."""
    fn, torch_fn, allowed = op.by_variable or op.fn, op.torch_fn, op.allowed

    def tensor_op(t: torch.Tensor, var: Any) -> Any:
        y = var.value()
        if (torch_fn is not None and type(t) is torch.Tensor and t.dtype is y.dtype
                and y.dtype in allowed):
            try:
                return torch_fn(t, y)
            except RuntimeError:
                pass
        return fn(t, y)
    return tensor_op


# torch function -> `tensor <op> variable`. The method forms (`t.add(v)`, `t.div(v)`) are the
# same functions, so they follow TF's rules too; `torch.add(t, v)` keeps torch's.
TENSOR_OPERATORS = {getattr(torch.Tensor, name): _tensor_side(op)
                    for op in OPERATORS for name in op.tensor_methods}


def install(cls: type) -> None:
    """Give `cls` (the `Variable` base) every operator of the table, and its reflection."""
    for op in OPERATORS:
        setattr(cls, f"__{op.dunder}__", _forward(op))
        if op.reflected:
            setattr(cls, f"__r{op.dunder}__", _reflected(op))


# The ufunc NumPy calls for each operator (`ndarray - tensor` is `np.subtract(ndarray, tensor)`),
# and for comparisons the operator torch and TF run with the tensor first (`a < t` is `t > a`).
_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
           "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
           "matmul": np.matmul, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal, "and": np.bitwise_and,
           "or": np.bitwise_or, "xor": np.bitwise_xor}
_SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def _numpy_reflected(fn: Callable[[Any, Any], Any]) -> Callable[[Any, torch.Tensor], Any]:
    """TF's `ndarray <op> tensor`: the array becomes a tensor of the tensor's dtype, on its device."""
    def reflected(a: Any, t: torch.Tensor) -> Any:
        return fn(convert_to_tensor_on(t.device, a, dtype=dtypes.from_torch(t.dtype)), t)
    return reflected


def _numpy_forward(fn: Callable[[Any, Any], Any], dunder: str) -> Callable[[torch.Tensor, Any], Any]:
    """TF's `tensor <op> ndarray`: the TF op; where it rejects the operands with a TypeError or
    ValueError, the NumPy value's reflected operator on the tensor's value, as TF's operator
    wrapper does (`bool_tensor / ndarray` is NumPy's float64 array in TF)."""
    reflected_name = f"__r{dunder}__"

    def forward(t: torch.Tensor, a: Any) -> Any:
        try:
            return fn(t, a)
        except (TypeError, ValueError):
            reflected = getattr(a, reflected_name, None)
            if reflected is not None:
                out = reflected(to_numpy(t))
                if out is not NotImplemented:
                    return out
            raise
    return forward


def _numpy_operators() -> dict:
    by_dunder = {op.dunder: op for op in OPERATORS}
    table = {}
    for op in OPERATORS:
        tf_forward = op.fn
        if op.reflected:
            reflected_name, tf_reflected = f"__r{op.dunder}__", _numpy_reflected(op.fn)
            tf_forward = _numpy_forward(op.fn, op.dunder)
        else:  # a comparison: `a < t` is TF's (and torch's) `t > a`
            swapped = by_dunder[_SWAPPED[op.dunder]].fn
            reflected_name = f"__{_SWAPPED[op.dunder]}__"
            tf_reflected = (lambda f: lambda a, t: f(t, a))(swapped)
        table[_UFUNCS[op.dunder]] = numpy_dispatch.NumpyOperator(
            f"__{op.dunder}__", reflected_name, tf_forward, tf_reflected,
            comparison=not op.reflected)
    return table


numpy_dispatch.register_operators(_numpy_operators())
