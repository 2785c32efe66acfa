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
  GPU:0 when CUDA is present); ops convert a Python operand onto the device
  of the tensor it meets instead (`convert_to_tensor_on`). A Python scalar
  is made by a fill kernel on that device, never copied from the host.

Objects such as variables and `TensorShape` register a conversion function, as
in TF; registering makes a type convertible, not a tensor (`is_tensor_like`).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Callable, Optional

import numpy as np
import torch

from . import device as device_lib
from . import dtypes, errors
from . import symbolic_dispatch
from .dtypes import DType
from .numpy_interop import BFLOAT16, to_numpy
from .tensor_shape import TensorShape, as_shape
from .variable_protocol import is_variable

__all__ = [
    "convert_to_tensor", "constant", "register_tensor_conversion_function",
    "is_tensor", "is_tensor_like", "format_tensor", "conversion_error",
]

# (type, function, priority); a function is `fn(value, dtype=None, name=None, as_ref=False)`.
_conversion_registry: list = []
_conversion_cache: dict = {}

_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_CPU = torch.device("cpu")


def register_tensor_conversion_function(base_type: Any, conversion_func: Callable,
                                        priority: int = 100) -> None:
    """`tf.register_tensor_conversion_function`: teach `convert_to_tensor` a type.

    `conversion_func(value, dtype=None, name=None, as_ref=False)` must return
    a `torch.Tensor` (or `NotImplemented` to let a later function try).
    Registering a type makes it convertible, not a tensor: `tf.is_tensor`
    stays False for it, as in TF.
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
    _plain_reads.clear()


# The conversion function `tf.Variable` registers (a plain read), and the variable classes
# for which it is the first registered function and `_dense_var_to_tensor` is the base's:
# `convert_to_tensor` reads those with `value()` directly.
_variable_read: Optional[Callable] = None
_variable_base: Optional[type] = None
_plain_reads: set = set()


def plain_read_types() -> set:
    """The variable classes `convert_to_tensor` reads with `value()` directly (fast paths
    may do the same for these, and only these)."""
    return _plain_reads


def register_variable_read(variable_type: type, conversion_func: Callable) -> None:
    """`register_tensor_conversion_function` for `tf.Variable` itself (`variables` calls it):
    a variable class for which it is the first function, and which keeps the base class's
    `_dense_var_to_tensor`, converts by `value()` directly, without the registry's call."""
    global _variable_read, _variable_base
    _variable_read, _variable_base = conversion_func, variable_type
    register_tensor_conversion_function(variable_type, conversion_func)


def _registered_functions(cls: type) -> list:
    found = _conversion_cache.get(cls)
    if found is None:
        found = [fn for types, fn, _ in _conversion_registry if issubclass(cls, types)]
        _conversion_cache[cls] = found
        if (found and found[0] is _variable_read and _variable_base is not None
                and getattr(cls, "_dense_var_to_tensor", None)
                is getattr(_variable_base, "_dense_var_to_tensor", None)):
            _plain_reads.add(cls)
    return found


def is_tensor_like(x: Any) -> bool:
    """Whether ops treat `x` as a dense tensor: a torch tensor or a variable.

    TF's ops and auto-packing take these as tensors of their own dtype (they
    are `core.Tensor`s in TF); anything else (Python values, NumPy arrays,
    `IndexedSlices`, `TensorShape`, registered types) is a value converted
    with the op's dtype. Tensor-like classes set `_tfcompat_tensor_like`.
    """
    return isinstance(x, torch.Tensor) or getattr(x, "_tfcompat_tensor_like", False)


def is_tensor(x: Any) -> bool:
    """`tf.is_tensor`: a tensor, a variable, or a composite tensor (`IndexedSlices`).

    A `TensorShape` or another type with a registered conversion function is
    not a tensor (it converts to one), as in TF.
    """
    return is_tensor_like(x) or getattr(x, "_tfcompat_composite_tensor", False)


def format_tensor(t: torch.Tensor) -> str:
    """TF's rendering of an eager tensor: `<tf.Tensor: shape=(2,), dtype=float32, numpy=...>`."""
    try:
        dtype_name = dtypes.from_torch(t.dtype).name
    except TypeError:
        dtype_name = str(t.dtype)
    return (f"<tf.Tensor: shape={TensorShape(tuple(t.shape))}, dtype={dtype_name}, "
            f"numpy={numpy_repr(t)}>")


def numpy_repr(t: torch.Tensor) -> str:
    """The value as TF's reprs show it: `repr` of the array, of a Python scalar for 0-d.

    (bfloat16 arrays are `ml_dtypes.bfloat16`, as TF shows them:
    `array([1.5, 2], dtype=bfloat16)`.)
    """
    value = to_numpy(t)
    return repr(value.item()) if np.ndim(value) == 0 else repr(value)


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
        if isinstance(x, TensorShape):  # a sequence of its dims, as TF reads it
            len(x)  # TF's ValueError for an unknown rank
            x = x.as_list()
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
            if k is None and all(isinstance(v, (str, bytes)) for v in self.scalars):
                # TF builds a tf.string tensor here; torch has no string dtype.
                raise TypeError(
                    f"tfcompat tensors hold numbers only: cannot convert a sequence of strings "
                    f"({x!r}, ...) to a Tensor (TF's tf.string has no torch counterpart; keep "
                    "strings in Python or NumPy object arrays).")
            if k is None:
                if symbolic_dispatch.is_symbolic(x):
                    raise _symbolic_error(x)
                if kind is None and not isinstance(x, (str, bytes)):  # the first decides TF's message
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
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                     f"{dtypes.tf_type_name(dtype)}")


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
        return _from_numpy(_array(scan, value, dtype.as_numpy_dtype), dtype, device, owned=True)
    kind = scan.inferred()
    if dtype is None:
        inferred = _default_dtype(scan, kind, intermediate=False)
        return _from_numpy(_array(scan, value, inferred.as_numpy_dtype), inferred, device,
                           owned=True)
    inferred = _default_dtype(scan, kind, intermediate=True)
    if not _cast_allowed(kind, dtype):
        raise _cannot_convert(value, dtype)
    return _from_numpy(_array(scan, value, inferred.as_numpy_dtype), dtype, device, owned=True)


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return is_tensor_like(value)


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
    if is_tensor_like(value):
        return dtypes.as_dtype(value.dtype)
    return None


def _pack(value: Any, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    """Auto-packing: a (nested) list holding tensors becomes one stacked tensor.

    As TF: the first tensor's dtype is the default; a requested dtype casts
    the tensors (Python values are converted to it); packed tensors of
    different dtypes or shapes are `InvalidArgumentError`.
    """
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
                    raise errors.dtype_mismatch("Pack", i, first.dtype, p.dtype)
                if p.shape != first.shape:
                    raise errors.invalid_argument(
                        f"Shapes of all inputs must match: values[0].shape = {list(first.shape)} "
                        f"!= values[{i}].shape = {list(p.shape)}", "Pack")
            return torch.stack([p.to(device) for p in parts])
        if is_tensor_like(x):
            t = convert_to_tensor(x)
            return t.to(dtype.as_torch) if cast else t
        return _convert(x, dtype, None, device)

    return build(value)


def _from_numpy(array: np.ndarray, dtype: Optional[DType], device: torch.device,
                owned: bool = False) -> torch.Tensor:
    """A tensor with `array`'s values cast to `dtype` (TF's quiet casts), on `device`.

    The tensor never aliases the caller's array: it is copied unless `owned`
    (a fresh array built by this module).
    """
    if array.dtype.kind in "OUSV" and array.dtype != BFLOAT16:
        raise TypeError(
            f"tfcompat tensors hold numbers only: cannot convert a NumPy array of dtype "
            f"{array.dtype} (TF's string and object tensors have no torch counterpart).")
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)
    # torch takes no ml_dtypes array: bfloat16 goes through float32 (exact for a
    # bfloat16 array), then rounds once.
    target = np.dtype(np.float32 if dtype is dtypes.bfloat16 else dtype.as_numpy_dtype)
    if array.dtype != target:
        with warnings.catch_warnings():  # TF casts quietly (complex to real, overflow)
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                array = array.astype(target, order="C")
    elif not (owned and array.flags.c_contiguous and array.flags.writeable):
        array = np.array(array, order="C", copy=True)
    t = torch.from_numpy(array)
    if dtype is dtypes.bfloat16:
        return t.to(device=device, dtype=torch.bfloat16)
    return t.to(device=device)


# -- Python scalars -----------------------------------------------------------------
#
# The common operand (`x * 2.0`, `tf.maximum(x, 0)`) skips NumPy: a 0-d tensor
# made by a fill kernel on the target device (torch.full), not a host-to-device
# copy (torch.tensor), which on an accelerator would wait for the stream.


def _python_scalar(value: Any, requested: Optional[DType],
                   device: torch.device) -> Optional[torch.Tensor]:
    """A Python `int`/`float`/`bool` as a 0-d tensor, or None where TF's general rules apply.

    Values are TF's: ints go to floats through a double (`PyLong_AsDouble`, as
    TF's converter), floats round once from double; whatever does not fit the
    dtype takes the general path and its errors or wrapping.
    """
    kind = type(value)
    if requested is None:
        if kind is float:
            if not math.isfinite(value) or abs(value) <= _F32_MAX:
                return torch.full((), value, dtype=torch.float32, device=device)
        elif kind is int:
            if _INT32[0] <= value <= _INT32[1]:
                return torch.full((), value, dtype=torch.int32, device=device)
        else:
            return torch.full((), value, dtype=torch.bool, device=device)
        return None
    if kind is bool:
        if requested is dtypes.bool or requested.name in _FAST_ACCEPTS:  # those take a bool
            return torch.full((), value, dtype=requested.as_torch, device=device)
        return None
    if requested.is_floating or requested.is_complex:
        if (kind is int and requested.name not in _FAST_ACCEPTS
                and not _INT64[0] <= value <= _INT64[1]):
            return None
        if abs(value) > requested.real_dtype.max:  # False for NaN
            return None
        return torch.full((), float(value), dtype=requested.as_torch, device=device)
    if kind is int and requested.is_integer and requested.min <= value <= requested.max:
        return torch.full((), value, dtype=requested.as_torch, device=device)
    return None


def _convert_value(value: Any, requested: Optional[DType], device: torch.device) -> torch.Tensor:
    """Python numbers and sequences, NumPy values and lists holding tensors (no registry)."""
    kind = type(value)
    if kind is float or kind is int or kind is bool:
        t = _python_scalar(value, requested, device)
        if t is not None:
            return t
    if isinstance(value, (np.ndarray, np.generic)):
        return _from_numpy(np.asarray(value), requested, device)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _pack(value, requested, device)
    if isinstance(value, (list, tuple)) and _contains_array(value):
        # Lists of NumPy arrays convert through NumPy, keeping the arrays' dtype (as TF).
        return _from_numpy(np.array(value), requested, device, owned=True)
    if isinstance(value, (numbers.Number, list, tuple, TensorShape)):
        return _from_python(value, requested, device)
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"tfcompat tensors hold numbers only: cannot convert the string {value!r} to a "
            "Tensor (TF's tf.string has no torch counterpart).")
    if symbolic_dispatch.is_symbolic(value):
        raise _symbolic_error(value)
    if hasattr(type(value), "__array__"):
        # Array-likes (a pandas DataFrame or Series, ...) convert through their NumPy value,
        # as TF's converter does; an object array (mixed columns) is TF's ValueError below.
        array = np.asarray(value)
        if array.dtype != object:  # (np.asarray may alias the object's memory: not owned)
            return _from_numpy(array, requested, device)
    raise ValueError(
        f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
        "Tensor.")


def _symbolic_error(value: Any) -> ValueError:
    """A Keras symbolic tensor has no value: TF ops called on one dispatch (a TFOpLambda
    layer); anything else that needs its value gets this error."""
    return symbolic_dispatch.SymbolicTensorError(
        f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
        "Tensor: a Keras symbolic input/output has no value. TF ops called on it build a "
        "layer of the functional model; other computations belong in a layer's `call`.")


def _convert(value: Any, dtype: Any, dtype_hint: Any, device: Optional[torch.device],
             name: Optional[str] = None) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        if dtype is not None and value.dtype != dtypes.to_torch(dtype):
            raise conversion_error(dtypes.as_dtype(dtype), value)
        return value
    if dtype is None and dtype_hint is not None:
        try:
            return _convert(value, dtype_hint, None, device, name)
        except (TypeError, ValueError):
            return _convert(value, None, None, device, name)
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    for fn in _registered_functions(type(value)):
        result = fn(value, dtype=requested, name=name, as_ref=False)
        if result is not NotImplemented:
            return result
    return _convert_value(value, requested,
                          device_lib.current_torch_device() if device is None else device)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.convert_to_tensor`: a `torch.Tensor` for `value`, by TF's rules.

    A torch tensor passes through unchanged (a requested dtype that differs is
    a `ValueError`, as TF). Variables read their value. Python values and
    numpy arrays are copied onto the current device. `dtype_hint` is a
    preference that is dropped when it cannot be honoured.
    """
    if dtype is None:
        if isinstance(value, torch.Tensor):
            return value
        if type(value) in _plain_reads:  # the common case: a variable, read
            return value.value()
    return _convert(value, dtype, dtype_hint, None, name)


def convert_to_tensor_on(device: Optional[torch.device], value: Any, dtype: Any = None,
                         dtype_hint: Any = None) -> torch.Tensor:
    """`convert_to_tensor`, creating new tensors on `device` instead of the current `tf.device`.

    For op inputs: a Python operand is made where its tensor operand lives, so
    the op needs no cross-device copy. Tensors and variables are returned as
    they are (`None` means the current device).
    """
    if dtype is None:
        if isinstance(value, torch.Tensor):
            return value
        if type(value) in _plain_reads:
            return value.value()
    return _convert(value, dtype, dtype_hint, device)


def _shape_to_tensor(shape: TensorShape, dtype: Optional[DType] = None, name: Any = None,
                     as_ref: bool = False) -> torch.Tensor:
    """`tf.convert_to_tensor(TensorShape)`: an int32 vector of the dims (int64 if one needs it).

    In host memory, like `tf.shape`: reading it back costs no device sync.
    """
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    large = any(d > _INT32[1] for d in dims)
    if dtype is None:
        dtype = dtypes.int64 if large else dtypes.int32
    elif dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert TensorShape {shape} to dtype {dtype}. Allowed dtypes are "
                        "tf.int32 and tf.int64.")
    elif dtype is dtypes.int32 and large:
        raise ValueError(f"Cannot convert TensorShape {shape} to dtype int32; a dimension is too "
                         "large. Consider using tf.int64.")
    return torch.tensor(dims, dtype=dtype.as_torch, device=_CPU)


register_tensor_conversion_function(TensorShape, _shape_to_tensor)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> torch.Tensor:
    """`tf.constant`: a new tensor from `value`, optionally of `dtype` and `shape`.

    Stricter than `convert_to_tensor` where TF is: a tensor of another dtype
    is a `TypeError` (a variable is cast), lists holding tensors and
    `IndexedSlices` are rejected (use `tf.stack` / `tf.convert_to_tensor`).
    NumPy arrays are cast to `dtype`. A `shape` reshapes a value with as many
    elements, or fills it from a scalar.
    """
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    if is_variable(value):
        t = value.value()  # a snapshot: memory nobody else can write
        if requested is not None:
            t = t.to(requested.as_torch)
    elif isinstance(value, torch.Tensor):
        if requested is not None and value.dtype != requested.as_torch:
            raise TypeError(
                f"Expected tensor {to_numpy(value)} with dtype tf.{requested.name}, but got "
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
    elif is_tensor(value):  # IndexedSlices
        raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                         f"({type(value)}) to a Tensor: tf.constant takes numbers, lists and "
                         "arrays; use tf.convert_to_tensor.")
    else:
        # Registered conversions are convert_to_tensor's, not constant's: a TensorShape is a
        # sequence of ints here (so any dtype goes), other registered types are refused.
        t = _convert_value(value, requested, device_lib.current_torch_device())
    if shape is not None:
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
                f"{to_numpy(t)} (converted from {value!r}) has {t.numel()} elements, but got "
                f"`shape` {target} with {count} elements).")
    return t
