"""TF's attributes on `torch.Size`, `torch.dtype` and `torch.device`: `x.shape.as_list()`, `x.dtype.name`.

TF code reads a tensor's shape and dtype through TF's types: `x.shape.as_list()`,
`x.shape.rank`, `x.dtype.name`, `x.dtype.is_floating`, `x.device.endswith("GPU:0")`.
tfcompat's tensors are plain `torch.Tensor`s, whose `shape` is a `torch.Size`, whose
`dtype` a `torch.dtype` and whose `device` a `torch.device`. This module adds TF's
names to those three types, so that such lines run unchanged:

* `torch.Size`: `tf.TensorShape`'s API for a fully known shape (`as_list()`, `rank`,
  `ndims`, `dims`, `is_fully_defined()`, `num_elements()`, `is_compatible_with()`,
  `merge_with()`, `concatenate()`, `with_rank*()`, `assert_*()`, `as_proto()`, ...).
  Each is `tf.TensorShape(size)`'s: where TF returns a `TensorShape`
  (`merge_with`, `concatenate`, `with_rank`), so does this;
* `torch.dtype`: `tf.DType`'s properties (`name`, `as_numpy_dtype`, `is_floating`,
  `is_integer`, `is_bool`, `is_unsigned`, `is_quantized`, `min`, `max`, `size`,
  `as_datatype_enum`, `limits`, ...), each the value `tf.as_dtype(d)` has.
  `base_dtype` and `real_dtype` are torch dtypes (equal to TF's `DType`s, and
  accepted by torch's functions). A torch dtype with no TF dtype in tfcompat
  (`torch.uint16`, quantized and float8 types) raises `AttributeError` for them;
* `torch.device`: the string methods TF code calls on `x.device` (TF's device is a
  string): `endswith`, `startswith`, `"GPU" in x.device`, `lower`, `split`, `find`,
  `replace`, ... They act on TF's full name of the device,
  `/job:localhost/replica:0/task:0/device:CPU:0` (`cuda:1` is `.../device:GPU:1`).

Additive only: a name one of these types already has (torch's `is_complex`,
`itemsize`, `numel`, `index`, `count`, ...) is never replaced, and nothing else
about the types changes (repr, hash, equality, pickling, `torch.Size` being a
tuple). The types are C types whose `__dict__` is a read-only proxy; the entries
go into the dictionary behind it, followed by `PyType_Modified` (CPython's
attribute cache). `in` needs the type's `sq_contains` slot as well: `torch.device`
gets a sequence-methods table holding only CPython's generic `__contains__` slot
function (`PySequence_Check` stays False: no `sq_item`). Where this cannot be done
(another interpreter, a changed type layout), `install()` warns once and adds
nothing; tfcompat keeps working (spell `tf.TensorShape(x.shape).as_list()` and
`tf.as_dtype(x.dtype).name`).

`tensor_methods` installs, lists and removes these together with the tensor
methods (and `TFCOMPAT_TENSOR_METHODS=0` leaves them out): `installed()` names them
`"torch.Size.as_list"`, `"torch.dtype.name"`, `"torch.device.endswith"`.
"""

from __future__ import annotations

import ctypes
import gc
import platform
import sys
import threading
import warnings
from typing import Any, Callable, Dict, Optional, Tuple

import torch

from . import dtypes as _dtypes
from .tensor_shape import TensorShape

__all__ = ["install", "uninstall", "installed", "tf_device_name"]

_ABSENT = object()
_lock = threading.RLock()
# (type, name) -> what was written into the type's dictionary.
_added: Dict[Tuple[type, str], Any] = {}
_warned = False
# What install() changed in torch.device's C struct for `in`, to put back: (field address,
# previous pointer) pairs, in the order written.
_slot_writes: list = []


# -- torch.Size: tf.TensorShape's API on a fully known shape ---------------------------

def _delegating_method(owner: str, name: str, target: Callable, convert: Callable,
                       doc: str) -> Callable:
    """`<owner>.<name>(...)` as `target(convert(self), ...)`, named and documented as added."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return target(convert(self), *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"{owner}.{name}"
    method.__module__ = __name__
    method.__wrapped__ = target
    method.__doc__ = doc
    return method


def _shape_method(name: str) -> Callable:
    """`size.<name>(...)` as `tf.TensorShape(size).<name>(...)`."""
    shape_method = getattr(TensorShape, name)
    return _delegating_method(
        "Size", name, shape_method, TensorShape,
        f"TF's `TensorShape.{name}` (added by tfcompat): `tf.TensorShape(size).{name}(...)`."
        "\n\n" + (shape_method.__doc__ or ""))


def _shape_property(name: str, doc: str) -> property:
    getter = getattr(TensorShape, name).fget

    def get(self: torch.Size) -> Any:
        return getter(TensorShape(self))

    get.__name__ = name
    get.__qualname__ = f"Size.{name}"
    return property(get, doc=f"TF's `TensorShape.{name}` (added by tfcompat): {doc}")


def _as_list(self: torch.Size) -> list:
    """TF's `TensorShape.as_list()` (added by tfcompat): the dims as a list of ints."""
    return list(self)


def _rank(self: torch.Size) -> int:
    return len(self)


def _is_fully_defined(self: torch.Size) -> bool:
    """TF's `TensorShape.is_fully_defined()` (added by tfcompat): always True for a torch.Size."""
    return True


def _is_subtype_of(self: torch.Size, other: Any) -> bool:
    """TF's `TensorShape.is_subtype_of` (added by tfcompat): False unless `other` is a `TensorShape`.

    (TF's is a tracing-type relation: a list or a tuple is no subtype partner.)
    """
    return isinstance(other, TensorShape) and TensorShape(self).is_subtype_of(other)


# The `TensorShapeProto` builder: the checkpoint layer's (`train.format.protos` registers it
# when imported; framework imports no higher layer).
_shape_proto: list = []


def register_shape_proto(builder: Callable[[tuple], Any]) -> None:
    """Called by `tfcompat.train.format.protos`: how `torch.Size.as_proto()` builds its proto."""
    _shape_proto[:] = [builder]


def _as_proto(self: torch.Size) -> Any:
    """TF's `TensorShape.as_proto()` (added by tfcompat): a `TensorShapeProto` of the dims."""
    return _shape_proto[0](tuple(self))  # (registered: `import tfcompat` imports train)


_as_list.__name__, _as_list.__qualname__ = "as_list", "Size.as_list"
_is_fully_defined.__name__, _is_fully_defined.__qualname__ = "is_fully_defined", "Size.is_fully_defined"
_as_proto.__name__, _as_proto.__qualname__ = "as_proto", "Size.as_proto"
_is_subtype_of.__name__, _is_subtype_of.__qualname__ = "is_subtype_of", "Size.is_subtype_of"
_rank.__name__, _rank.__qualname__ = "rank", "Size.rank"

_RANK = property(_rank, doc="TF's `TensorShape.rank` (added by tfcompat): the number of dims.")

# Delegated to TensorShape (which is TF's semantics, TF-conformance tested).
_SHAPE_METHODS = ("num_elements", "is_compatible_with", "assert_is_compatible_with",
                  "assert_is_fully_defined", "assert_has_rank", "assert_same_rank",
                  "merge_with", "concatenate", "most_specific_compatible_shape",
                  "with_rank", "with_rank_at_least", "with_rank_at_most")


def _size_attributes() -> Dict[str, Any]:
    found: Dict[str, Any] = {
        "as_list": _as_list, "rank": _RANK, "ndims": _RANK,
        "dims": _shape_property("dims", "the dims as `tf.compat.v1.Dimension`s."),
        "is_fully_defined": _is_fully_defined, "as_proto": _as_proto,
        "is_subtype_of": _is_subtype_of,
    }
    found.update((name, _shape_method(name)) for name in _SHAPE_METHODS)
    return found


# -- torch.dtype: tf.DType's properties --------------------------------------------------

def _tf_dtype(d: torch.dtype, attribute: str) -> _dtypes.DType:
    found = _dtypes._BY_TORCH.get(d)
    if found is None:
        raise AttributeError(
            f"'torch.dtype' object {d} has no attribute '{attribute}': tfcompat has no "
            f"TensorFlow dtype for {d} (tf.as_dtype({d}) raises TypeError); use str(dtype) "
            "or torch's own attributes (is_floating_point, is_signed, itemsize)")
    return found


def _dtype_property(name: str, compute: Callable[[_dtypes.DType, torch.dtype], Any]) -> property:
    def get(self: torch.dtype) -> Any:
        return compute(_tf_dtype(self, name), self)

    get.__name__ = name
    get.__qualname__ = f"dtype.{name}"
    return property(get, doc=f"TF's `DType.{name}` (added by tfcompat): `tf.as_dtype(d).{name}`.")


def _from_tf(name: str) -> Callable[[_dtypes.DType, torch.dtype], Any]:
    getter = getattr(_dtypes.DType, name).fget
    return lambda tf_dtype, _: getter(tf_dtype)


def _dtype_attributes() -> Dict[str, Any]:
    found: Dict[str, Any] = {
        name: _dtype_property(name, _from_tf(name))
        for name in ("name", "as_numpy_dtype", "as_datatype_enum", "is_floating", "is_integer",
                     "is_complex", "is_bool", "is_unsigned", "is_numpy_compatible",
                     "min", "max", "limits")
    }
    found.update({
        # Bytes per element: torch's itemsize is the same number, without a tensor.
        "size": _dtype_property("size", lambda _, d: d.itemsize),
        # Quantized TF types (qint8, ...) have no tfcompat dtype: False for every one it has.
        "is_quantized": _dtype_property("is_quantized", lambda _, d: False),
        # The torch dtype (TF gives a DType; they compare equal, and torch takes this one).
        "base_dtype": _dtype_property("base_dtype", lambda _, d: d),
        "real_dtype": _dtype_property("real_dtype", lambda t, _: t.real_dtype.as_torch),
        # A property giving the bound method: absent (hasattr False) where the dtype has no TF one.
        "is_compatible_with": _dtype_property("is_compatible_with",
                                              lambda t, _: t.is_compatible_with),
    })
    return found


# -- torch.device: str's methods on TF's full device name -----------------------------

def tf_device_name(device: torch.device) -> str:
    """TF's full name of a torch device: `/job:localhost/replica:0/task:0/device:CPU:0`.

    `cuda:i` is `GPU:i` (the logical GPU the runtime maps to that card, where
    logical devices are configured).
    """
    from . import device as _device  # placement state lives there; it imports more of tfcompat
    name = _device.name_of_torch_device(device)
    prefix, _, kind = name.rpartition("/device:")
    if device.type == "cuda" and kind.startswith("CUDA:"):  # a card the runtime does not list
        name = f"{prefix}/device:GPU:{kind[len('CUDA:'):]}"
    return name


_DEVICE_STRING_METHODS = ("startswith", "endswith", "lower", "upper", "casefold", "split",
                          "rsplit", "partition", "rpartition", "find", "rfind", "replace",
                          "strip", "__contains__")


def _device_method(name: str) -> Callable:
    """`device.<name>(...)` as `str.<name>` of TF's full device name."""
    return _delegating_method(
        "device", name, getattr(str, name), tf_device_name,
        f"`str.{name}` of TF's full device name (added by tfcompat), as on TF's `x.device` "
        "(`/job:localhost/replica:0/task:0/device:CPU:0`).")


def _device_attributes() -> Dict[str, Any]:
    return {name: _device_method(name) for name in _DEVICE_STRING_METHODS}


# -- the mechanism -------------------------------------------------------------------

_TYPES = ((torch.Size, "torch.Size", _size_attributes),
          (torch.dtype, "torch.dtype", _dtype_attributes),
          (torch.device, "torch.device", _device_attributes))


def _real_dict(cls: type) -> Optional[dict]:
    """The dictionary behind `cls.__dict__` (a read-only proxy), or None if not found."""
    proxy = cls.__dict__
    for referent in gc.get_referents(proxy):
        if type(referent) is dict and referent.keys() == proxy.keys():
            return referent
    return None


def _type_modified() -> Callable[[type], None]:
    fn = ctypes.pythonapi.PyType_Modified
    fn.argtypes = [ctypes.py_object]
    fn.restype = None
    return fn


# CPython's PyTypeObject on a 64-bit build with the standard object header: checked
# against each type's `__flags__` and name before anything is written.
_POINTER = ctypes.sizeof(ctypes.c_void_p)
_TP_NAME = 3 * _POINTER
_TP_AS_SEQUENCE = 13 * _POINTER
_TP_FLAGS = 21 * _POINTER
_SQ_CONTAINS = 7  # index in PySequenceMethods (10 pointers)
_SEQUENCE_FIELDS = 10
_sequence_table: Optional[int] = None  # a raw, never-freed PySequenceMethods for torch.device


def _layout_matches(cls: type) -> bool:
    if platform.python_implementation() != "CPython" or _POINTER != 8:
        return False
    address = id(cls)
    flags = ctypes.c_ulong.from_address(address + _TP_FLAGS).value
    name = ctypes.c_char_p.from_address(address + _TP_NAME).value
    return flags == cls.__flags__ and name is not None and name.decode() in (
        cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}")


class _ContainsProbe:
    def __contains__(self, item: Any) -> bool:  # pragma: no cover - never called
        return False


def _generic_sq_contains() -> Optional[int]:
    """CPython's slot function that calls a type's `__contains__` (`slot_sq_contains`),
    read from a Python class that defines only `__contains__`."""
    if not _layout_matches(_ContainsProbe):
        return None
    table = ctypes.c_void_p.from_address(id(_ContainsProbe) + _TP_AS_SEQUENCE).value
    if not table:
        return None
    fields = (ctypes.c_void_p * _SEQUENCE_FIELDS).from_address(table)
    set_fields = [i for i in range(_SEQUENCE_FIELDS) if fields[i]]
    return fields[_SQ_CONTAINS] if set_fields == [_SQ_CONTAINS] else None


def _enable_contains(cls: type) -> bool:
    """Point `cls`'s `sq_contains` slot at CPython's generic one (so `in` calls the
    `__contains__` in its dictionary). False, with nothing written, where it cannot be done."""
    global _sequence_table
    slot = _generic_sq_contains()
    if slot is None or not _layout_matches(cls):
        return False
    field = id(cls) + _TP_AS_SEQUENCE
    table = ctypes.c_void_p.from_address(field).value
    if table:  # torch gave the type sequence methods: use its table if `in` is free there
        contains = table + _SQ_CONTAINS * _POINTER
        if ctypes.c_void_p.from_address(contains).value:
            return False
        _slot_writes.append((contains, None))
        ctypes.c_void_p.from_address(contains).value = slot
        return True
    if _sequence_table is None:
        calloc = ctypes.pythonapi.PyMem_RawCalloc
        calloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
        calloc.restype = ctypes.c_void_p
        # Never freed: the type may point at it until the interpreter is gone.
        _sequence_table = calloc(_SEQUENCE_FIELDS, _POINTER)
        if not _sequence_table:
            return False
    ctypes.c_void_p.from_address(_sequence_table + _SQ_CONTAINS * _POINTER).value = slot
    _slot_writes.append((field, None))
    ctypes.c_void_p.from_address(field).value = _sequence_table
    return True


def _undo_slot_writes() -> None:
    while _slot_writes:
        address, previous = _slot_writes.pop()
        ctypes.c_void_p.from_address(address).value = previous


def _warn_once(reason: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"tfcompat could not add TF's attributes to torch.Size, torch.dtype and torch.device "
        f"on this interpreter ({reason}); tfcompat works without them: write "
        "tf.TensorShape(x.shape).as_list() for x.shape.as_list() and tf.as_dtype(x.dtype).name "
        "for x.dtype.name.", RuntimeWarning, stacklevel=3)


def _plan() -> Optional[list]:
    """[(cls, qualified prefix, real dict, {name: value})], or None (after a warning)."""
    if platform.python_implementation() != "CPython":
        _warn_once(f"{platform.python_implementation()} is not CPython")
        return None
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        _warn_once("a free-threaded interpreter: a type's dictionary cannot be extended safely")
        return None
    plan = []
    for cls, prefix, attributes in _TYPES:
        real = _real_dict(cls)
        if real is None:
            _warn_once(f"the dictionary behind {prefix}.__dict__ was not found")
            return None
        # Additive only: whatever the type (or a base) already answers to stays torch's.
        wanted = {name: value for name, value in attributes().items() if not hasattr(cls, name)}
        plan.append((cls, prefix, real, wanted))
    return plan


def install() -> Dict[str, Any]:
    """Adds TF's attributes to `torch.Size`, `torch.dtype`, `torch.device` (idempotent).

    Returns `installed()`. Names a type already has are skipped; where the
    interpreter does not allow extending these types, warns once and adds nothing.
    """
    with _lock:
        if _added:
            return installed()
        try:
            plan = _plan()
            modified = _type_modified() if plan is not None else None
        except (AttributeError, OSError, TypeError, ValueError) as e:
            _warn_once(f"{type(e).__name__}: {e}")
            plan = None
        if plan is None:
            return installed()
        for cls, prefix, real, wanted in plan:
            if "__contains__" in wanted and not _enable_contains(cls):
                del wanted["__contains__"]  # `in` stays torch's TypeError; the rest still works
            for name, value in wanted.items():
                real[name] = value
                _added[(cls, name)] = value
            modified(cls)
        return installed()


def uninstall() -> None:
    """Takes back exactly what `install()` added (a name since replaced by someone else stays)."""
    with _lock:
        if not _added and not _slot_writes:
            return
        modified = _type_modified()
        for cls, _, _ in _TYPES:
            if cls is torch.device:
                # `in` back to torch's TypeError first: the slot calls the __contains__ below.
                _undo_slot_writes()
                modified(cls)
            real = _real_dict(cls)
            for (owner, name), value in list(_added.items()):
                if owner is not cls:
                    continue
                if real is not None and real.get(name, _ABSENT) is value:
                    del real[name]
                    # Before our reference goes: CPython's attribute cache holds borrowed ones.
                    modified(cls)
                del _added[(owner, name)]
        _undo_slot_writes()


def installed() -> Dict[str, Any]:
    """What was added, by qualified name (`"torch.Size.as_list"`); empty when nothing."""
    prefixes = {cls: prefix for cls, prefix, _ in _TYPES}
    return {f"{prefixes[cls]}.{name}": value for (cls, name), value in _added.items()}
