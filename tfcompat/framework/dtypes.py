"""TensorFlow's `DType` objects, each bound to the torch dtype that stores it.

`tf.float32 == torch.float32`, `tf.float32 == "float32"` and
`tf.float32 == np.float32` all hold, so code that compares dtypes keeps
working whichever vocabulary it speaks.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np
import torch

__all__ = [
    "DType", "as_dtype",
    "float16", "half", "bfloat16", "float32", "float64", "double",
    "int8", "int16", "int32", "int64", "uint8", "bool",
    "complex64", "complex128",
]

# TF's C++ type names, as its error messages print them ("float", not "float32").
_TF_TYPE_NAMES = {
    torch.float32: "float", torch.float64: "double", torch.float16: "half",
    torch.bfloat16: "bfloat16", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool",
    torch.complex64: "complex64", torch.complex128: "complex128",
}


def tf_type_name(dtype: Any) -> str:
    """TF's C++ type name (`float`, `double`, `half`, `int32`), as its errors print it.

    Takes a torch dtype or a `DType`.
    """
    if isinstance(dtype, DType):
        dtype = dtype.as_torch
    return _TF_TYPE_NAMES.get(dtype, str(dtype))


class DType:
    """A TensorFlow dtype (`tf.DType`): TF's name and properties, torch's storage.

    `as_torch` is the torch dtype a tensor of this type has; `as_numpy_dtype`
    the numpy scalar type, as in TF (`ml_dtypes.bfloat16` for `bfloat16`, the
    type TF's own `numpy()` returns).
    """

    __slots__ = ("_name", "_torch", "_numpy", "_enum")

    def __init__(self, name: str, torch_dtype: torch.dtype, numpy_type: Any, enum: int):
        self._name = name
        self._torch = torch_dtype
        self._numpy = numpy_type
        self._enum = enum

    # -- identity --------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def as_torch(self) -> torch.dtype:
        return self._torch

    @property
    def as_numpy_dtype(self) -> type:
        return self._numpy

    @property
    def as_datatype_enum(self) -> int:
        """TF's `DataType` enum value (as in `types.proto`); checkpoints use it."""
        return self._enum

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def real_dtype(self) -> "DType":
        return {complex64: float32, complex128: float64}.get(self, self)

    # -- classification --------------------------------------------------
    @property
    def is_floating(self) -> bool:
        return self._torch.is_floating_point

    @property
    def is_complex(self) -> bool:
        return self._torch.is_complex

    @property
    def is_integer(self) -> bool:
        return not (self.is_floating or self.is_complex or self is bool)

    @property
    def is_unsigned(self) -> bool:
        return self is uint8

    @property
    def is_bool(self) -> bool:
        return self is bool

    @property
    def is_numpy_compatible(self) -> bool:
        """Whether numpy holds this dtype: True for all of tfcompat's (bfloat16 via ml_dtypes).

        (TF's False cases, quantized types, resources and variants, have no
        torch counterpart.)
        """
        return True

    @property
    def size(self) -> int:
        """Bytes per element."""
        return torch.empty((), dtype=self._torch).element_size()

    def _no_extreme(self, which: str) -> TypeError:
        return TypeError(f"Cannot find {which} value of {self} with type {self}.")

    @property
    def min(self) -> Any:
        """The smallest value of this dtype (`TypeError` for bool and complex, as TF)."""
        limits = _LIMITS.get(self._name)
        if limits is None:
            raise self._no_extreme("minimum")
        return limits[0]

    @property
    def max(self) -> Any:
        """The largest value of this dtype (`TypeError` for bool and complex, as TF)."""
        limits = _LIMITS.get(self._name)
        if limits is None:
            raise self._no_extreme("maximum")
        return limits[1]

    @property
    def limits(self) -> tuple:
        """TF's image-intensity limits: `(0, 1)` for float32/64, `(0, max)` for ints.

        (`(0, True)` for bool; float16, bfloat16 and complex have none.)
        """
        if self.is_bool:
            return (0, True)
        if self in (float32, float64):
            return (0, 1)
        if self.is_integer:
            return (0, self.max)
        raise ValueError(f"{self} does not have defined limits.")

    def is_compatible_with(self, other: Any) -> bool:
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    # -- protocol --------------------------------------------------------
    def __eq__(self, other: Any) -> bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("tfcompat.DType", self._name))

    def __repr__(self) -> str:
        return f"tf.{self._name}"

    def __str__(self) -> str:
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return (as_dtype, (self._name,))


# TF's DataType enum numbers (tensorflow/core/framework/types.proto).
float32 = DType("float32", torch.float32, np.float32, 1)
float64 = DType("float64", torch.float64, np.float64, 2)
int32 = DType("int32", torch.int32, np.int32, 3)
uint8 = DType("uint8", torch.uint8, np.uint8, 4)
int16 = DType("int16", torch.int16, np.int16, 5)
int8 = DType("int8", torch.int8, np.int8, 6)
complex64 = DType("complex64", torch.complex64, np.complex64, 8)
int64 = DType("int64", torch.int64, np.int64, 9)
bool = DType("bool", torch.bool, np.bool_, 10)  # noqa: A001 - TF's public name
bfloat16 = DType("bfloat16", torch.bfloat16, ml_dtypes.bfloat16, 14)
complex128 = DType("complex128", torch.complex128, np.complex128, 18)
float16 = DType("float16", torch.float16, np.float16, 19)
half = float16
double = float64

_ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, bool,
        complex64, complex128)
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_TORCH = {d.as_torch: d for d in _ALL}
_BY_NUMPY = {np.dtype(d.as_numpy_dtype): d for d in _ALL}
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_PYTHON = {float: float32, builtins.bool: bool}


def _limits(d: DType) -> tuple:
    if d.is_floating:
        info = torch.finfo(d.as_torch)
        return float(info.min), float(info.max)
    info = torch.iinfo(d.as_torch)
    return int(info.min), int(info.max)


# `(min, max)` by name, built once: conversions and clamps ask on every call
# (bool and complex have none).
_LIMITS = {d.name: _limits(d) for d in _ALL if not (d.is_bool or d.is_complex)}


def as_dtype(type_value: Any) -> DType:
    """Converts a `DType`, a name, a numpy dtype, a torch dtype or a TF enum to a `DType`.

    Raises `TypeError` (as TF) for anything else, including types TF has but
    torch cannot store (strings, resource handles, variants).
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, torch.dtype):
        found = _BY_TORCH.get(type_value)
    elif isinstance(type_value, str):
        found = _BY_NAME.get(type_value)
    elif isinstance(type_value, int) and not isinstance(type_value, builtins.bool):
        found = _BY_ENUM.get(type_value)
    elif type_value is float or type_value is builtins.bool:
        found = _BY_PYTHON[type_value]
    elif type_value is None or type_value is int or type_value is builtins.complex:  # TF names no dtype
        found = None
    else:
        try:
            found = _BY_NUMPY.get(np.dtype(type_value))
        except TypeError:
            found = None
    if found is None:
        raise TypeError(
            f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow "
            f"DType supported by tfcompat (one of {sorted(d.name for d in _ALL)}).")
    return found


def from_torch(torch_dtype: torch.dtype) -> DType:
    """The `DType` of a torch tensor's dtype (fast path of `as_dtype`)."""
    try:
        return _BY_TORCH[torch_dtype]
    except KeyError:
        raise TypeError(f"torch dtype {torch_dtype} has no TensorFlow counterpart in tfcompat") from None


def to_torch(dtype: Any) -> torch.dtype:
    """The torch dtype that stores `dtype` (anything `as_dtype` takes)."""
    if isinstance(dtype, torch.dtype):
        return dtype
    return as_dtype(dtype).as_torch
