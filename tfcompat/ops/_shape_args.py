"""How TF ops read their shape, axis and size arguments.

TF takes these as Python ints, lists, numpy arrays, `TensorShape`s or int
tensors (`tf.reshape(x, tf.shape(y))`). Torch wants Python ints, so each is
read to the host here: free for Python values; for a tensor it is the one
read TF also does on the host (shape inputs live in host memory in TF).
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np
import torch

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, is_tensor_like
from ..framework.tensor_shape import Dimension, TensorShape
from . import _dispatch as D

__all__ = ["int_values", "shape_arg", "reduction_axes", "single_axis"]


def _is_int(x: Any) -> bool:
    return isinstance(x, (numbers.Integral, Dimension)) and not isinstance(x, (bool, np.bool_))


def int_values(value: Any, op: str, attr: str = "Tidx", python_dtype: Any = None,
               allowed: frozenset = D.INT32_64) -> Any:
    """`value` as a Python int or (nested) list of ints.

    Python values that are not all ints fail as TF fails for them: with
    `python_dtype` set (ops whose Python wrapper converts with a dtype, like
    `tf.zeros`) that is `TypeError: Cannot convert ...`; otherwise the op's
    attr check (`InvalidArgumentError: Value for attr 'Tshape' of float ...`).
    """
    if type(value) is int:
        return value
    if type(value) in (list, tuple) and all(type(v) is int for v in value):
        return list(value)  # the common case, checked cheaply (bool is not `int` by type)
    if _is_int(value):
        return int(value) if not isinstance(value, Dimension) else _dim(value)
    if isinstance(value, TensorShape):
        if value.rank is None or any(d is None for d in value.as_list()):
            raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor "
                             f"for {op}: give every dimension a value.")
        return value.as_list()
    if isinstance(value, (list, tuple)) and all(_is_int(v) for v in value):
        return [int(v) if not isinstance(v, Dimension) else _dim(v) for v in value]
    if python_dtype is not None and not is_tensor_like(value):
        t = convert_to_tensor(value, dtype=python_dtype)
    else:
        t = convert_to_tensor(value)
    D.check_dtype(op, t.dtype, allowed, attr=attr)
    return t.tolist()


def _dim(d: Dimension) -> int:
    if d.value is None:
        raise ValueError("Cannot use an unknown Dimension (None) as a size.")
    return d.value


def shape_arg(shape: Any, op: str, allow_scalar: bool = True) -> tuple:
    """A TF `shape` argument as a tuple of non-negative ints.

    `tf.zeros(3)` means `[3]` (`allow_scalar`); the random ops insist on a
    vector, as TF's kernels do.
    """
    if isinstance(shape, tuple) and all(type(d) is int and d >= 0 for d in shape):
        return shape  # fast path: the common case costs nothing
    dims = int_values(shape, op, attr="T", python_dtype=torch.int32)
    if isinstance(dims, int):
        if not allow_scalar:
            raise invalid("shape must be a vector of {int32,int64}, got shape []", op)
        dims = [dims]
    if any(isinstance(d, list) for d in dims):
        raise invalid(f"shape must be a vector, got {dims}", op)
    for d in dims:
        if d < 0:
            raise invalid(f"Dimension {d} must be >= 0", op)
    return tuple(dims)


def _flatten(x: Any) -> list:
    if isinstance(x, list):
        return [y for item in x for y in _flatten(item)]
    return [x]


def reduction_axes(axis: Any, rank: int, op: str) -> Optional[tuple]:
    """The dims a `reduce_*` op reduces: None for all, else sorted, non-negative and unique."""
    if axis is None:
        return None
    if type(axis) is int:
        values = [axis]
    else:
        values = _flatten(int_values(axis, op, python_dtype=torch.int32))
    out = []
    for a in values:
        if not -rank <= a < rank:
            raise invalid(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)", op)
        a %= rank
        if a in out:
            raise invalid(f"Invalid reduction arguments: Axes contains duplicate dimension: {a}", op)
        out.append(a)
    return tuple(sorted(out))


def single_axis(axis: Any, op: str) -> int:
    """A scalar `axis` argument as an int (a 0-d or 1-element int tensor is read)."""
    if type(axis) is int:
        return axis
    value = int_values(axis, op, python_dtype=torch.int32)
    if isinstance(value, list):
        flat = _flatten(value)
        if len(flat) != 1:
            raise invalid(f"axis must be a scalar, got {value}", op)
        value = flat[0]
    return value
