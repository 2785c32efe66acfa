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

import numbers
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
        raise TypeError("Cannot register conversions for Python numbers, NumPy arrays or tensors.")
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
    """`repr(t.numpy())` as TF prints it (bfloat16 is shown through float32)."""
    if t.dtype == torch.bfloat16:
        return repr(t.detach().to("cpu", torch.float32).numpy())
    return repr(t.detach().to("cpu").resolve_conj().resolve_neg().numpy())


def conversion_error(requested: DType, t: torch.Tensor) -> ValueError:
    return ValueError(
        f"Tensor conversion requested dtype {requested.name} for Tensor with dtype "
        f"{dtypes.from_torch(t.dtype).name}: {format_tensor(t)}. Use tf.cast to change "
        "a tensor's dtype explicitly.")


def _python_dtype(value: Any) -> Optional[DType]:
    """TF's inferred dtype for a (nested) Python value, or None when it holds none."""
    kinds: set = set()
    big = [False]

    def visit(x: Any) -> None:
        if isinstance(x, bool) or isinstance(x, np.bool_):
            kinds.add("bool")
        elif isinstance(x, numbers.Integral):
            kinds.add("int")
            xi = int(x)
            if not _INT32[0] <= xi <= _INT32[1]:
                if not _INT64[0] <= xi <= _INT64[1]:
                    raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
                big[0] = True
        elif isinstance(x, numbers.Real):
            kinds.add("float")
        elif isinstance(x, numbers.Complex):
            kinds.add("complex")
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)
        else:
            raise ValueError(
                f"Attempt to convert a value ({x!r}) with an unsupported type ({type(x)}) to a "
                "Tensor.")

    visit(value)
    if not kinds:
        return None
    if kinds == {"bool"}:
        return dtypes.bool
    if "bool" in kinds or ("complex" in kinds and kinds != {"complex"}):
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if "complex" in kinds:
        return dtypes.complex128
    if "float" in kinds:
        return dtypes.float32
    return dtypes.int64 if big[0] else dtypes.int32


def _check_python_cast(value: Any, inferred: DType, requested: DType) -> None:
    ok = (inferred is requested
          or (inferred is dtypes.bool and not requested.is_bool)
          or (inferred.is_integer and not requested.is_bool)
          or (inferred.is_floating and (requested.is_floating or requested.is_complex))
          or (inferred.is_complex and requested.is_complex))
    if not ok:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {requested.name}")


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return isinstance(value, torch.Tensor) or bool(_registered_functions(type(value)))


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
    """Auto-packing: a (nested) list holding tensors becomes one stacked tensor."""
    if dtype is None:
        dtype = _first_tensor_dtype(value)

    def build(x: Any) -> torch.Tensor:
        if isinstance(x, (list, tuple)):
            parts = [build(item) for item in x]
            if not parts:
                return torch.empty((0,), dtype=dtype.as_torch, device=device)
            return torch.stack([p.to(device) for p in parts])
        return convert_to_tensor(x, dtype=dtype)

    return build(value)


def _from_python(value: Any, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    inferred = _python_dtype(value)
    if inferred is None:  # empty (nested) list
        inferred = dtypes.float32
    if dtype is None:
        dtype = inferred
    else:
        _check_python_cast(value, inferred, dtype)
    try:
        array = np.array(value, dtype=inferred.as_numpy_dtype if inferred is not dtypes.int64 else np.int64)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    return _from_numpy(array, dtype, device)


def _from_numpy(array: np.ndarray, dtype: Optional[DType], device: torch.device) -> torch.Tensor:
    if array.dtype.kind in "OUSV":
        raise TypeError(
            f"tfcompat tensors hold numbers only: cannot convert a NumPy array of dtype "
            f"{array.dtype} (TF's string and object tensors have no torch counterpart).")
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype)
    if dtype is dtypes.bfloat16:
        return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(
            device=device, dtype=torch.bfloat16)
    with np.errstate(all="ignore"):  # TF wraps and overflows quietly on casts
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
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return _from_numpy(np.asarray(value), requested, device)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _pack(value, requested, device)
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

    Unlike `convert_to_tensor`, a NumPy array is cast to `dtype`; a tensor of
    another dtype is a `TypeError`. A `shape` reshapes a value with as many
    elements, or fills it from a scalar.
    """
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, torch.Tensor) or _registered_functions(type(value)):
        t = convert_to_tensor(value)
        if requested is not None and t.dtype != requested.as_torch:
            raise TypeError(
                f"Expected tensor {numpy_repr(t)} with dtype tf.{requested.name}, but got dtype "
                f"tf.{dtypes.from_torch(t.dtype).name}.")
        t = t.clone()
    else:
        t = convert_to_tensor(value, dtype=requested)
    if shape is not None:
        from .tensor_shape import as_shape
        target = tuple(as_shape(shape).as_list())
        if t.numel() == 1 and target != tuple(t.shape):
            t = t.reshape(()).expand(target).clone()
        elif t.numel() == int(np.prod(target, dtype=np.int64)):
            t = t.reshape(target)
        else:
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor "
                f"{numpy_repr(t)} (converted from {value!r}) has {t.numel()} elements, but got "
                f"`shape` {target} with {int(np.prod(target, dtype=np.int64))} elements).")
    return t
