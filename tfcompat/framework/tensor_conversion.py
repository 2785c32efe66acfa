"""`tf.convert_to_tensor` and `tf.constant`: Python, numpy and variables to torch.

Every tensor tfcompat hands out is a plain `torch.Tensor`. Conversion follows
TF's rules, not torch's:

* dtype inference: Python `int` -> int32 (int64 when it does not fit),
  `float` -> float32, `bool` -> bool, `complex` -> complex128; numpy keeps
  its dtype; a list mixing ints and floats is float32, mixing bools or
  complex with numbers is an error;
* a requested `dtype` may widen Python ints (wrapping as TF does) but never
  turns a Python float into an int (`TypeError`), and never silently casts
  a tensor (`ValueError`: use `tf.cast`);
* new tensors are placed on the current `tf.device` (TF's default placement:
  GPU:0 when CUDA is present).

Objects such as variables register a conversion function, as in TF.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Callable, Optional

import numpy as np
import torch

from . import device as device_lib
from . import dtypes
from .dtypes import DType

__all__ = [
    "convert_to_tensor", "constant", "register_tensor_conversion_function",
    "is_tensor", "format_tensor", "conversion_error",
]

# (type, function, priority); a function is `fn(value, dtype=None, name=None, as_ref=False)`.
_conversion_registry: list = []
_conversion_cache: dict = {}

_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def register_tensor_conversion_function(base_type: Any, conversion_func: Callable,
                                        priority: int = 100) -> None:
    """`tf.register_tensor_conversion_function`: teach `convert_to_tensor` a type.

    `conversion_func(value, dtype=None, name=None, as_ref=False)` must return
    a `torch.Tensor` (or `NotImplemented` to let a later function try).
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if any(issubclass(t, (torch.Tensor, np.ndarray, numbers.Number)) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy scalars "
                        "and arrays (or torch tensors): they convert natively.")
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    _conversion_registry.append((types, conversion_func, priority))
    _conversion_registry.sort(key=lambda entry: entry[2])
    _conversion_cache.clear()


def _registered_functions(cls: type) -> list:
    found = _conversion_cache.get(cls)
    if found is None:
        found = [fn for types, fn, _ in _conversion_registry if issubclass(cls, types)]
        _conversion_cache[cls] = found
    return found


def is_tensor(x: Any) -> bool:
    """`tf.is_tensor`: a torch tensor or a tensor-like tfcompat object (variables)."""
    return isinstance(x, torch.Tensor) or bool(_registered_functions(type(x)))


def format_tensor(t: torch.Tensor) -> str:
    """TF's rendering of an eager tensor: `<tf.Tensor: shape=(2,), dtype=float32, numpy=...>`."""
    from .tensor_shape import TensorShape
    try:
        dtype_name = dtypes.from_torch(t.dtype).name
    except TypeError:
        dtype_name = str(t.dtype)
    return (f"<tf.Tensor: shape={TensorShape(tuple(t.shape))}, dtype={dtype_name}, "
            f"numpy={numpy_repr(t)}>")


def numpy_repr(t: torch.Tensor) -> str:
    """The value as TF's reprs show it: `repr` of the array, of a Python scalar for 0-d.

    (bfloat16 is shown through float32: numpy has no bfloat16.)
    """
    value = _numpy_value(t)
    return repr(value.item()) if np.ndim(value) == 0 else repr(value)


def _numpy_value(t: torch.Tensor) -> Any:
    """`t.numpy()` as TF would show it (a numpy scalar for 0-d tensors)."""
    t = t.detach().to("cpu")
    arr = t.float().numpy() if t.dtype is torch.bfloat16 else t.resolve_conj().resolve_neg().numpy()
    return arr[()] if arr.ndim == 0 else arr


def conversion_error(requested: DType, t: torch.Tensor) -> ValueError:
    return ValueError(
        f"Tensor conversion requested dtype {requested.name} for Tensor with dtype "
        f"{dtypes.from_torch(t.dtype).name}: {format_tensor(t)}. Use tf.cast to change "
        "a tensor's dtype explicitly.")


# -- Python values ---------------------------------------------------------------
#
# TF converts nested Python lists in two ways, and the difference shows:
#
# * with no dtype, or a dtype outside the "fast" set, it first *infers* one
#   kind for the whole sequence, element by element, in order: a bool after a
#   number counts as that number, a float after an int promotes to float,
#   anything else (a number after a bool, a complex after an int, None) is
#   "mixed types". The inferred values are then cast to the requested
#   dtype, if that cast is allowed;
# * with a dtype in the fast set, each element is converted directly, and
#   the first element that does not fit decides the error.

_FAST_ACCEPTS = {
    "float16": {"bool", "int", "float", "npfloat"},
    "float32": {"bool", "int", "float", "npfloat"},
    "float64": {"bool", "int", "float", "npfloat"},
    "complex128": {"bool", "int", "float", "npfloat", "complex"},
    "int32": {"bool", "int"},
    "int64": {"bool", "int"},
}
_F32_MAX = float(np.finfo(np.float32).max)


def _kind(x: Any) -> Optional[str]:
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, np.bool_):
        return "npbool"
    if isinstance(x, (numbers.Integral, np.integer)):
        return "int"
    if isinstance(x, np.floating):
        return "npfloat"
    if isinstance(x, numbers.Real):
        return "float"
    if isinstance(x, (numbers.Complex, np.complexfloating)):
        return "complex"
    return None


_MERGE = {
    ("int", "bool"): "int", ("float", "bool"): "float", ("float", "int"): "float",
    ("int", "float"): "float", ("npfloat", "bool"): "npfloat", ("npfloat", "int"): "npfloat",
    ("npfloat", "float"): "npfloat", ("int", "npfloat"): "npfloat", ("float", "npfloat"): "float",
    ("npbool", "bool"): "npbool", ("bool", "npbool"): "bool",
    ("complex", "bool"): "complex", ("complex", "int"): "complex", ("complex", "float"): "complex",
    ("complex", "npfloat"): "complex",
}


class _Scan:
    """One pass over a nested Python sequence: its shape, scalars and inferred kind."""

    def __init__(self, value: Any) -> None:
        self.scalars: list = []
        self.shape = self._shape(value)

    def _shape(self, x: Any) -> tuple:
        if isinstance(x, (list, tuple)):
            shapes = [self._shape(item) for item in x]
            if any(sh != shapes[0] for sh in shapes[1:]):
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
            return (len(x),) + (shapes[0] if shapes else ())
        self.scalars.append(x)
        return ()

    def inferred(self) -> Optional[str]:
        """TF's kind for the whole sequence (None when it is empty)."""
        kind = None
        npfloat_dtype = None
        for x in self.scalars:
            k = _kind(x)
            if k is None:
                if kind is None and not self.shape:
                    raise ValueError(f"Attempt to convert a value ({x!r}) with an unsupported type "
                                     f"({type(x)}) to a Tensor.")
                raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
            if k == "npfloat" and npfloat_dtype is None:
                npfloat_dtype = np.asarray(x).dtype
            if kind is None or kind == k:
                kind = k
            elif (kind, k) in _MERGE:
                kind = _MERGE[(kind, k)]
            else:
                raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        self.npfloat_dtype = npfloat_dtype
        return kind

    def ints_fit(self, lo: int, hi: int) -> bool:
        return all(lo <= int(x) <= hi for x in self.scalars
                   if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool))


def _cannot_convert(value: Any, dtype: DType) -> TypeError:
    from ..ops._dispatch import tf_type_name
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {tf_type_name(dtype.as_torch)}")


def _out_of_range_int() -> ValueError:
    return ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")


def _array(scan: _Scan, value: Any, np_dtype: Any) -> np.ndarray:
    """The scalars as an array of `np_dtype` (ints wrap, floats overflow quietly)."""
    if not scan.scalars:
        return np.zeros(scan.shape, dtype=np_dtype)
    flat = scan.scalars
    if np.issubdtype(np_dtype, np.integer):
        flat = [int(x) & 0xFFFFFFFFFFFFFFFF for x in flat]  # two's complement, then wrap
        arr = np.array(flat, dtype=np.uint64).astype(np_dtype)
    else:
        with np.errstate(all="ignore"):
            arr = np.array([complex(x) if isinstance(x, (complex, np.complexfloating)) else x
                            for x in flat], dtype=np_dtype)
    return arr.reshape(scan.shape)


def _default_dtype(scan: _Scan, kind: Optional[str], intermediate: bool) -> DType:
    """The dtype TF infers for `kind`; `intermediate` keeps Python floats in float64."""
    if kind is None:
        return dtypes.float32
    if kind in ("bool", "npbool"):
        return dtypes.bool
    if kind == "int":
        if not scan.ints_fit(*_INT64):
            raise _out_of_range_int()
        return dtypes.int64 if intermediate or not scan.ints_fit(*_INT32) else dtypes.int32
    if kind == "npfloat":
        return dtypes.as_dtype(scan.npfloat_dtype)
    if kind == "complex":
        return dtypes.complex128
    if intermediate:
        return dtypes.float64
    if any(isinstance(x, float) and math.isfinite(x) and abs(x) > _F32_MAX for x in scan.scalars):
        raise ValueError("Can't convert Python sequence with a value out of range for a "
                         "double-precision float.")
    return dtypes.float32


def _cast_allowed(kind: Optional[str], target: DType) -> bool:
    """Whether inferred values of `kind` may be cast to a non-fast `target`."""
    if kind is None:
        return True
    if kind == "int":
        return not target.is_bool
    if kind in ("float", "npfloat"):
        return target.is_floating or target.is_complex
    if kind == "complex":
        return target.is_complex
    return target.is_bool


def _from_python(value: Any, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    scan = _Scan(value)
    if dtype is not None and dtype.name in _FAST_ACCEPTS:
        accepts = _FAST_ACCEPTS[dtype.name]
        for position, x in enumerate(scan.scalars):
            k = _kind(x)
            if k in accepts:
                continue
            if k is None and position > 0:
                raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
            if k is None:
                _Scan(value).inferred()  # raises TF's unsupported-type error
            if position == 0 or (k in ("float", "npfloat") and dtype.is_integer):
                raise _cannot_convert(value, dtype)
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        if dtype.is_integer and not scan.ints_fit(*_INT64):
            raise _out_of_range_int()
        return _to_torch(_array(scan, value, dtype.as_numpy_dtype), dtype, device)
    kind = scan.inferred()
    if dtype is None:
        inferred = _default_dtype(scan, kind, intermediate=False)
        return _to_torch(_array(scan, value, inferred.as_numpy_dtype), inferred, device)
    inferred = _default_dtype(scan, kind, intermediate=True)
    if not _cast_allowed(kind, dtype):
        raise _cannot_convert(value, dtype)
    return _from_numpy(_array(scan, value, inferred.as_numpy_dtype), dtype, device)


def _to_torch(array: np.ndarray, dtype: DType, device: torch.device) -> torch.Tensor:
    if dtype is dtypes.bfloat16:
        return torch.from_numpy(np.array(array, dtype=np.float32)).to(device=device, dtype=torch.bfloat16)
    return torch.from_numpy(np.array(array, dtype=dtype.as_numpy_dtype, copy=True)).to(device=device)


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return isinstance(value, torch.Tensor) or bool(_registered_functions(type(value)))


def _contains_array(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_array(v) for v in value)
    return isinstance(value, np.ndarray)


def _first_tensor_dtype(value: Any) -> Optional[DType]:
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        return None
    if isinstance(value, torch.Tensor):
        return dtypes.from_torch(value.dtype)
    if _registered_functions(type(value)):
        return dtypes.as_dtype(value.dtype)
    return None


def _pack(value: Any, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    """Auto-packing: a (nested) list holding tensors becomes one stacked tensor.

    As TF: the first tensor's dtype is the default; a requested dtype casts
    the tensors (Python values are converted to it); packed tensors of
    different dtypes or shapes are `InvalidArgumentError`.
    """
    from . import errors
    inferred = _first_tensor_dtype(value)
    cast = dtype is not None and dtype != inferred
    dtype = dtype or inferred

    def build(x: Any) -> torch.Tensor:
        if isinstance(x, (list, tuple)):
            parts = [build(item) for item in x]
            if not parts:
                return torch.empty((0,), dtype=dtype.as_torch, device=device)
            first = parts[0]
            for i, p in enumerate(parts[1:], start=1):
                if p.dtype != first.dtype:
                    from ..ops._dispatch import mismatch
                    raise mismatch("Pack", i, first.dtype, p.dtype)
                if p.shape != first.shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shapes of all inputs must match: values[0].shape = "
                        f"{list(first.shape)} != values[{i}].shape = {list(p.shape)} [Op:Pack]")
            return torch.stack([p.to(device) for p in parts])
        if isinstance(x, torch.Tensor) or _registered_functions(type(x)):
            t = convert_to_tensor(x)
            return t.to(dtype.as_torch) if cast else t
        return convert_to_tensor(x, dtype=dtype)

    return build(value)


def _from_numpy(array: np.ndarray, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    if array.dtype.kind in "OUSV":
        raise TypeError(
            f"tfcompat tensors hold numbers only: cannot convert a NumPy array of dtype "
            f"{array.dtype} (TF's string and object tensors have no torch counterpart).")
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)
    with warnings.catch_warnings():  # TF casts quietly (complex to real, overflow)
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            if dtype is dtypes.bfloat16:
                return torch.from_numpy(np.array(array, dtype=np.float32)).to(
                    device=device, dtype=torch.bfloat16)
            # Always a fresh buffer: the tensor must never alias the caller's array.
            array = np.array(array, dtype=dtype.as_numpy_dtype, order="C", copy=True)
    return torch.from_numpy(array).to(device=device)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.convert_to_tensor`: a `torch.Tensor` for `value`, by TF's rules.

    A torch tensor passes through unchanged (a requested dtype that differs is
    a `ValueError`, as TF). Variables read their value. Python values and
    numpy arrays are copied onto the current device. `dtype_hint` is a
    preference that is dropped when it cannot be honoured.
    """
    if isinstance(value, torch.Tensor):
        if dtype is not None and value.dtype != dtypes.to_torch(dtype):
            raise conversion_error(dtypes.as_dtype(dtype), value)
        return value
    if dtype is None and dtype_hint is not None:
        try:
            return convert_to_tensor(value, dtype=dtype_hint, name=name)
        except (TypeError, ValueError):
            return convert_to_tensor(value, name=name)
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    for fn in _registered_functions(type(value)):
        result = fn(value, dtype=requested, name=name, as_ref=False)
        if result is not NotImplemented:
            return result
    device = device_lib.current_torch_device()
    kind = type(value)
    if kind is float or kind is int:  # the common scalar: no NumPy round trip
        if requested is None:
            if kind is float and (not math.isfinite(value) or abs(value) <= _F32_MAX):
                return torch.tensor(value, dtype=torch.float32, device=device)
            if kind is int and _INT32[0] <= value <= _INT32[1]:
                return torch.tensor(value, dtype=torch.int32, device=device)
        elif (kind is float or requested.name in _FAST_ACCEPTS or _INT64[0] <= value <= _INT64[1]) and (
                (requested.is_floating and not abs(value) > requested.max) or requested.is_complex
                or (kind is int and requested.is_integer and requested.min <= value <= requested.max)):
            if requested.is_floating or requested.is_complex or requested.name in _FAST_ACCEPTS:
                return torch.tensor(value, dtype=requested.as_torch, device=device)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return _from_numpy(np.asarray(value), requested, device)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _pack(value, requested, device)
    if isinstance(value, (list, tuple)) and _contains_array(value):
        # Lists of NumPy arrays convert through NumPy, keeping the arrays' dtype (as TF).
        return _from_numpy(np.array(value), requested, device)
    if isinstance(value, (numbers.Number, list, tuple)):
        return _from_python(value, requested, device)
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"tfcompat tensors hold numbers only: cannot convert the string {value!r} to a "
            "Tensor (TF's tf.string has no torch counterpart).")
    raise ValueError(
        f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
        "Tensor.")


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> torch.Tensor:
    """`tf.constant`: a new tensor from `value`, optionally of `dtype` and `shape`.

    Stricter than `convert_to_tensor` where TF is: a tensor of another dtype
    is a `TypeError` (a variable is cast), lists holding tensors and
    `IndexedSlices` are rejected (use `tf.stack` / `tf.convert_to_tensor`).
    NumPy arrays are cast to `dtype`. A `shape` reshapes a value with as many
    elements, or fills it from a scalar.
    """
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    if getattr(value, "_tfcompat_variable", False):
        t = value.value()
        t = (t.to(requested.as_torch) if requested is not None else t).clone()
    elif isinstance(value, torch.Tensor):
        if requested is not None and value.dtype != requested.as_torch:
            raise TypeError(
                f"Expected tensor {_numpy_value(value)} with dtype tf.{requested.name}, but got "
                f"dtype tf.{dtypes.from_torch(value.dtype).name}.")
        t = value.detach().clone()
    elif isinstance(value, (list, tuple)) and _contains_tensor(value):
        first = value
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        if not _contains_tensor(first):  # a number came first: TF sees mixed element types
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        raise ValueError("TypeError: Scalar tensor has no `len()`: tf.constant does not pack "
                         "tensors; use tf.stack or tf.convert_to_tensor for a list of tensors.")
    elif _registered_functions(type(value)):
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value)}) to a Tensor: tf.constant takes numbers, lists and "
                         "arrays; use tf.convert_to_tensor.")
    else:
        t = convert_to_tensor(value, dtype=requested)
    if shape is not None:
        from .tensor_shape import as_shape
        dims = as_shape(shape)
        if not dims.is_fully_defined():
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             f"(<class 'NoneType'>) to a Tensor: tf.constant needs a fully "
                             f"defined shape, got {dims}.")
        target = tuple(dims.as_list())
        count = int(np.prod(target, dtype=np.int64))
        if t.numel() == 1 and target != tuple(t.shape):
            t = t.reshape(()).expand(target).clone()
        elif t.numel() == count:
            t = t.reshape(target)
        else:
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor "
                f"{_numpy_value(t)} (converted from {value!r}) has {t.numel()} elements, but got "
                f"`shape` {target} with {count} elements).")
    return t
