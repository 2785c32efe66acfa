"""`tf.keras.backend`: the global Keras configuration and the helpers layer code calls.

As tf_keras 2.x in eager mode: `floatx()` (default `"float32"`), `epsilon()` (`1e-7`),
`image_data_format()` (`"channels_last"`), per-prefix layer-name uids (`get_uid`), the
learning phase (`learning_phase()` is 0 unless set; `set_learning_phase` is deprecated in
tf_keras but still honoured), and `clear_session()`, which resets the uids, the learning
phase and the config-independent global state. Settings are process-wide, as tf_keras's.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import warnings
from typing import Any, Iterator, Optional

import numpy as np
import torch

from ..framework import dtypes as _dtypes
from ..framework import tensor_conversion as _conversion
from ..framework.name_scope import name_scope as _name_scope
from ..ops import array_ops as _array_ops
from ..ops import creation_ops as _creation_ops
from ..ops import math_ops as _math_ops

__all__ = [
    "floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
    "set_image_data_format", "get_uid", "reset_uids", "clear_session", "learning_phase",
    "set_learning_phase", "learning_phase_scope", "int_shape", "ndim", "dtype", "cast",
    "cast_to_floatx", "count_params", "is_keras_tensor", "backend", "name_scope", "constant",
    "zeros", "ones", "eval", "get_value", "batch_get_value", "set_value", "batch_set_value",
    "shape", "variable",
]

# `tf.keras.utils.set_random_seed` puts a `random.Random(seed)` here as `.generator`;
# unseeded initializers draw their seed from it when present (tf_keras's `_SEED_GENERATOR`).
_SEED_GENERATOR = threading.local()

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_ALLOWED_FLOATX = ("float16", "bfloat16", "float32", "float64")


def backend() -> str:
    """The backend's name, `"tensorflow"`, as tf_keras reports it."""
    return "tensorflow"


def floatx() -> str:
    """The default float type as a string (`"float32"` unless `set_floatx` changed it)."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float type; one of float16, bfloat16, float32, float64."""
    global _FLOATX
    if value not in _ALLOWED_FLOATX:
        raise ValueError(f"Unknown dtype: {value}. Expected one of {set(_ALLOWED_FLOATX)}")
    _FLOATX = str(value)


def epsilon() -> float:
    """The fuzz factor used in numeric expressions (`1e-07`)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = value


def image_data_format() -> str:
    """`"channels_last"` or `"channels_first"`: the default `data_format` of image layers."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    global _IMAGE_DATA_FORMAT
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = str(data_format)


def normalize_data_format(value: Optional[str]) -> str:
    """`value` lowercased, or the global `image_data_format()` when None (tf_keras's)."""
    if value is None:
        value = image_data_format()
    data_format = value.lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}")
    return data_format


# Layer-name uids: tf_keras keeps one counter per graph and prefix; eager code has one graph.
_uids_lock = threading.Lock()
_uids: "collections.defaultdict[str, int]" = collections.defaultdict(int)


# tf_keras builds a functional model's layers in its global Keras graph: a layer created
# while a layer is called on Keras tensors (in that layer's `build` or `call`) is named by that
# graph's counters, apart from the eager ones (`MultiHeadAttention`'s inner `dropout` does not
# make the next eager `Dropout` `dropout_1`).
_graph = threading.local()


def _graph_key() -> str:
    return "keras_graph\x00" if getattr(_graph, "depth", 0) else ""


@contextlib.contextmanager
def keras_graph_scope() -> Iterator[None]:
    """Name the layers created inside by the Keras graph's uid counters (see above). Entered
    from eager code, the block also starts at the top name scope, as that graph's own name
    scope stack does: `Input` + `Dense` built under an eager `tf.name_scope("outer")` (or in
    a layer's `call`) name their weights `dense/kernel:0`."""
    outermost = not getattr(_graph, "depth", 0)
    _graph.depth = getattr(_graph, "depth", 0) + 1
    try:
        if outermost:
            with _name_scope(""):
                yield
        else:
            yield
    finally:
        _graph.depth -= 1


def get_uid(prefix: str = "") -> int:
    """The next uid for `prefix`, starting at 1 (`dense` then `dense_1`: the caller names
    the first `prefix` and later ones `prefix_{uid-1}`)."""
    key = _graph_key() + prefix
    with _uids_lock:
        _uids[key] += 1
        return _uids[key]


def reset_uids() -> None:
    """Restart every prefix's uid count (layer names start again at `dense`)."""
    with _uids_lock:
        _uids.clear()
        _observed_names.clear()


# The learning phase: None means "not set" (layers then use training=False outside fit).
_learning_phase: Optional[int] = None
_clear_session_hooks: list = []


def register_clear_session_hook(fn: Any) -> None:
    """Call `fn()` from every `clear_session()` (packages with global Keras state use it)."""
    _clear_session_hooks.append(fn)


def clear_session() -> None:
    """Reset Keras' global state: layer-name uids and the learning phase (as tf_keras)."""
    global _learning_phase
    reset_uids()
    _learning_phase = None
    for hook in _clear_session_hooks:
        hook()


def learning_phase() -> int:
    """0 (test) or 1 (train): the value set by `set_learning_phase`, else 0."""
    return 0 if _learning_phase is None else _learning_phase


def global_learning_phase_is_set() -> bool:
    return _learning_phase is not None


def set_learning_phase(value: int) -> None:
    """Deprecated in tf_keras (pass `training=` instead) but honoured: 0 test, 1 train."""
    global _learning_phase
    warnings.warn(
        "`tf.keras.backend.set_learning_phase` is deprecated and will be removed after "
        "2020-10-11. To update it, simply pass a True/False value to the `training` argument "
        "of the `__call__` method of your layer or model.", stacklevel=2)
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    _learning_phase = value


@contextlib.contextmanager
def learning_phase_scope(value: int) -> Iterator[None]:
    """Set the learning phase for the block, restoring it after."""
    global _learning_phase
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    previous = _learning_phase
    _learning_phase = value
    try:
        yield
    finally:
        _learning_phase = previous


def is_keras_tensor(x: Any) -> bool:
    """True for the symbolic tensors of the functional API (`tf.keras.Input(...)`)."""
    from .engine.keras_tensor import KerasTensor
    if not isinstance(x, (torch.Tensor, KerasTensor)) and not hasattr(x, "dtype"):
        raise ValueError(
            f"Unexpectedly found an instance of type `{type(x)}`. Expected a symbolic tensor "
            "instance.")
    return isinstance(x, KerasTensor)


def int_shape(x: Any) -> Optional[tuple]:
    """The shape as a tuple of ints / None (None for an unknown rank)."""
    try:
        shape = x.shape
        if hasattr(shape, "as_list") and not isinstance(shape, torch.Size):
            dims = shape.as_list() if shape.rank is not None else None
            return tuple(dims) if dims is not None else None
        return tuple(int(d) for d in shape)
    except ValueError:
        return None


def ndim(x: Any) -> Optional[int]:
    shape = int_shape(x)
    return None if shape is None else len(shape)


def shape(x: Any) -> torch.Tensor:
    """The dynamic shape as an int32 tensor (`tf.shape`)."""
    return _array_ops.shape(x)


def dtype(x: Any) -> str:
    """The dtype's name as a string (`"float32"`)."""
    return _dtypes.as_dtype(x.dtype).name


def cast(x: Any, dtype: Any) -> torch.Tensor:
    return _math_ops.cast(x, dtype)


def cast_to_floatx(x: Any) -> Any:
    """`x` as a `floatx()` array or tensor (NumPy stays NumPy, as tf_keras)."""
    if isinstance(x, (torch.Tensor,)) or _is_variable(x):
        return _math_ops.cast(x, floatx())
    return np.asarray(x, dtype=floatx())


def constant(value: Any, dtype: Any = None, shape: Any = None, name: Optional[str] = None
             ) -> torch.Tensor:
    return _conversion.constant(value, dtype=dtype or floatx(), shape=shape)


def zeros(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    from .. import variables
    return variables.Variable(_creation_ops.zeros(shape, dtype=dtype or floatx()), name=name)


def ones(shape: Any, dtype: Any = None, name: Optional[str] = None) -> Any:
    from .. import variables
    return variables.Variable(_creation_ops.ones(shape, dtype=dtype or floatx()), name=name)


def variable(value: Any, dtype: Any = None, name: Optional[str] = None,
             constraint: Any = None) -> Any:
    """A `tf.Variable` of `value` in `dtype` (default `floatx()`)."""
    from .. import variables
    return variables.Variable(_conversion.convert_to_tensor(value, dtype=dtype or floatx()),
                              name=name, constraint=constraint)


def count_params(x: Any) -> int:
    """The number of scalars in `x` (a variable or tensor)."""
    return int(np.prod(int_shape(x) or ()))


def get_value(x: Any) -> np.ndarray:
    """`x`'s value as a NumPy array."""
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def eval(x: Any) -> np.ndarray:  # noqa: A001 - tf_keras's public name
    return get_value(x)


def batch_get_value(tensors: list) -> list:
    return [get_value(x) for x in tensors]


def set_value(x: Any, value: Any) -> None:
    """Assign `value` (NumPy or Python) to the variable `x`."""
    x.assign(np.asarray(value, dtype=_dtypes.as_dtype(x.dtype).as_numpy_dtype))


def batch_set_value(tuples: list) -> None:
    for x, value in tuples:
        set_value(x, value)


def name_scope(name: str) -> Any:
    from ..framework.name_scope import name_scope as scope
    return scope(name)


def _is_variable(x: Any) -> bool:
    from ..framework import variable_protocol
    return variable_protocol.is_variable(x)


# Object names: auto-generated layer names avoid nothing but their own prefix's earlier names
# (tf_keras's `unique_object_name(..., zero_based=True)`); explicit names are observed.
_observed_names: set = set()


def observe_object_name(name: str) -> None:
    _observed_names.add(name)


def unique_object_name(name: str, namespace: str = "", zero_based: bool = False,
                       avoid_observed_names: bool = False) -> str:
    """`name`, `name_1`, ... (zero-based) or `name_1`, `name_2`, ... per `(namespace, name)`."""
    avoid = _observed_names if avoid_observed_names else set()
    key = f"{_graph_key()}{namespace}\x00{name}"
    while True:
        with _uids_lock:
            number = _uids[key]
            _uids[key] += 1
        if zero_based:
            proposed = f"{name}_{number}" if number else name
        else:
            proposed = f"{name}_{number + 1}"
        if proposed not in avoid:
            return proposed
