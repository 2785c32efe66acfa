"""The table of `tensor <op> NumPy value` and `NumPy value <op> tensor` cases, shared by the
fixture generator (`gen_numpy_operands.py`, under TensorFlow) and the test.

Every binary operator, in both orders, over tensors of each dtype TF code uses and NumPy
operands of each kind (arrays of float64/float32/int64/int32/bool, a 0-d array, NumPy
scalars). `fn(tf)` builds the operands with the given module (TensorFlow or tfcompat) and
applies the operator; `grad_fn(tf, v)` puts the operand through `tf.identity` so the tensor
side is a tensor (not a variable) on the tape.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Dict, NamedTuple

import numpy as np

OPERATORS: Dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "matmul": operator.matmul, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge, "eq": operator.eq, "ne": operator.ne, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor,
}
DIFFERENTIABLE = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")

_FLOAT_VALUES = np.array([[1.5, -2.25], [3.0, 0.5]])
_INT_VALUES = np.array([[1, -2], [3, 4]])
_BOOL_VALUES = np.array([[True, False], [True, True]])
TENSOR_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")

# name -> a NumPy operand (no zeros among the integers: integer division by zero is an error)
NUMPY_OPERANDS: Dict[str, Any] = {
    "f64_array": np.array([[0.1, 2.0], [-1.5, 4.0]]),
    "f32_array": np.array([[0.1, 2.0], [-1.5, 4.0]], np.float32),
    "i64_array": np.array([[1, 2], [-3, 4]]),
    "i32_array": np.array([[1, 2], [-3, 4]], np.int32),
    "bool_array": np.array([[True, False], [False, True]]),
    "f64_0d": np.array(0.3),
    "f64_scalar": np.float64(0.3),
    "f32_scalar": np.float32(0.3),
    "i64_scalar": np.int64(3),
    "bool_scalar": np.bool_(True),
}


def tensor(tf: Any, dtype: str) -> Any:
    values = {"bool": _BOOL_VALUES}.get(dtype, _INT_VALUES if dtype.startswith("int")
                                        else _FLOAT_VALUES)
    return tf.cast(tf.constant(values), getattr(tf, dtype))


class OperandCase(NamedTuple):
    op: str
    reflected: bool  # True: NumPy value on the left
    dtype: str
    operand: str

    @property
    def name(self) -> str:
        order = "numpy_first" if self.reflected else "tensor_first"
        return f"{self.op}:{order}:{self.dtype}:{self.operand}"

    def apply(self, tf: Any, x: Any) -> Any:
        a, fn = NUMPY_OPERANDS[self.operand], OPERATORS[self.op]
        return fn(a, x) if self.reflected else fn(x, a)

    def fn(self, tf: Any) -> Any:
        return self.apply(tf, tensor(tf, self.dtype))

    def grad_fn(self, tf: Any, v: Any) -> Any:
        return self.apply(tf, tf.identity(v))


CASES = [OperandCase(op, reflected, dtype, operand)
         for op in OPERATORS for reflected in (False, True)
         for dtype in TENSOR_DTYPES for operand in NUMPY_OPERANDS]
GRADIENT_CASES = [c for c in CASES if c.op in DIFFERENTIABLE and c.dtype in FLOAT_DTYPES]
