"""Variables that read in the layer's compute dtype under a mixed policy (tf_keras's
`AutoCastVariable`).

`enable_auto_cast_variables(dtype)` is the scope a layer's `__call__` opens around `call`:
inside it, an AutoCastVariable created by `add_weight` under a mixed policy reads as `dtype`
(float16/bfloat16) while its storage stays float32.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

import torch

from ...framework import dtypes
from ...framework import variable_protocol as protocol
from ...framework.tensor_conversion import numpy_repr
from ...variables.variable import Variable

__all__ = ["AutoCastVariable", "enable_auto_cast_variables", "autocast_dtype", "create_autocast_variable",
           "is_autocast_variable"]


class _State(threading.local):
    def __init__(self) -> None:
        self.dtype: Any = None


_state = _State()


def autocast_dtype() -> Any:
    """The dtype AutoCastVariables read as in this thread (None: their own dtype)."""
    return _state.dtype


@contextlib.contextmanager
def enable_auto_cast_variables(dtype: Any) -> Iterator[None]:
    """Read AutoCastVariables as `dtype` (a floating dtype, or None to disable) in the block."""
    previous = _state.dtype
    _state.dtype = dtype
    try:
        yield
    finally:
        _state.dtype = previous


def _cast(value: torch.Tensor) -> torch.Tensor:
    """`value` in the thread's autocast dtype, if it is floating and one is set."""
    target = _state.dtype
    if target is None or not value.is_floating_point():
        return value
    target = dtypes.to_torch(target)
    return value if value.dtype is target else value.to(target)


class AutoCastVariable(Variable):
    """A float32 variable that reads as the layer's compute dtype inside its `call`.

    As tf_keras: `dtype` is the dtype reads return (the autocast dtype inside
    `enable_auto_cast_variables`, else the variable's), `true_dtype` the stored one.
    Reads are `cast(inner.value())`, so the tape records a read of the inner variable
    and the gradient flows back to it in float32; updates, the storage protocol, the
    tape's watch targets and checkpoints all go to the inner variable.
    """

    def __init__(self, variable: Any) -> None:
        if not protocol.is_variable(variable):
            raise ValueError(f"variable must be of type tf.ResourceVariable, but got: {variable}")
        if not dtypes.as_dtype(variable.dtype).is_floating:
            raise ValueError("variable must be a floating point variable but has type: "
                             f"{dtypes.as_dtype(variable.dtype).name}")
        self._variable = variable

    # -- reads ------------------------------------------------------------
    def value(self) -> torch.Tensor:
        return _cast(self._variable.value())

    def read_value(self) -> torch.Tensor:
        return _cast(self._variable.read_value())

    def sparse_read(self, indices: Any, name: Any = None) -> torch.Tensor:
        return _cast(self._variable.sparse_read(indices, name=name))

    def gather_nd(self, indices: Any, name: Any = None) -> torch.Tensor:
        return _cast(self._variable.gather_nd(indices, name=name))

    def numpy(self) -> Any:
        return self._variable.numpy()

    # `convert_to_tensor` calls this (AutoCastVariable is not a plain read): a requested
    # dtype other than the read dtype is TF's ValueError, as for any variable.
    def _dense_var_to_tensor(self, dtype: Any = None, name: Any = None,
                             as_ref: bool = False) -> torch.Tensor:
        value = self.value()
        if dtype is not None and value.dtype is not dtypes.to_torch(dtype):
            raise ValueError(
                f"Incompatible type conversion requested to type {dtypes.as_dtype(dtype).name} "
                f"for AutoCastVariable which is casted to type {self.dtype.name}")
        return value

    # -- the variable protocols: everything but reads is the inner variable's ----------
    def _watch_targets(self) -> tuple:
        return tuple(self._variable._watch_targets())

    def _storage(self) -> Any:
        return protocol.storage(self._variable)

    def _update_components(self) -> tuple:
        return protocol.update_components(self._variable)

    def _current_shape(self) -> tuple:
        return self._variable._current_shape()

    def _torch_device(self) -> torch.device:
        return self._variable._torch_device()

    def _serialize_to_tensors(self) -> dict:
        # Saved as the inner variable (float32, same key), as tf_keras does.
        return self._variable._serialize_to_tensors()

    def _restore_from_tensors(self, restored_tensors: dict) -> Any:
        return self._variable._restore_from_tensors(restored_tensors)

    # -- properties -----------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        """The dtype reads return (the autocast dtype inside a mixed layer's call)."""
        cast = _state.dtype
        return dtypes.as_dtype(cast) if cast is not None else self._variable.dtype

    @property
    def true_dtype(self) -> dtypes.DType:
        """The dtype of the stored variable."""
        return self._variable.dtype

    @property
    def _cast_dtype(self) -> dtypes.DType:
        return self.dtype

    name = property(lambda self: self._variable.name)
    shape = property(lambda self: self._variable.shape)
    device = property(lambda self: self._variable.device)
    trainable = property(lambda self: self._variable.trainable)
    constraint = property(lambda self: self._variable.constraint)
    synchronization = property(lambda self: self._variable.synchronization)
    aggregation = property(lambda self: self._variable.aggregation)
    handle = property(lambda self: self._variable.handle)
    initializer = property(lambda self: self._variable.initializer)
    initial_value = property(lambda self: self._variable.initial_value)
    _shared_name = property(lambda self: self._variable._shared_name)

    def get_shape(self) -> Any:
        return self._variable.get_shape()

    def __getattr__(self, name: str) -> Any:
        # Anything else (`_unique_id`, a distributed variable's `values`, ...) is the
        # inner variable's. `_variable` itself must exist (set in __init__).
        if name == "_variable":
            raise AttributeError(name)
        return getattr(self._variable, name)

    # -- updates ----------------------------------------------------------------
    def _wrap(self, result: Any) -> Any:
        # tf_keras returns the AutoCastVariable itself for `read_value=False`-less updates
        # eagerly; a tensor result is the new value, read as this variable reads.
        if result is self._variable:
            return self
        return _cast(result) if isinstance(result, torch.Tensor) else result

    def assign(self, value: Any, use_locking: Any = None, name: Any = None,
               read_value: bool = True) -> Any:
        return self._wrap(self._variable.assign(value, use_locking, name, read_value))

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._wrap(self._variable.assign_add(delta, use_locking, name, read_value))

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._wrap(self._variable.assign_sub(delta, use_locking, name, read_value))

    def _strided_slice_assign(self, key: Any, value: Any, read_value: bool = True) -> Any:
        return self._wrap(self._variable._strided_slice_assign(key, value, read_value))

    def scatter_add(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_add(*args, **kwargs))

    def scatter_sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_sub(*args, **kwargs))

    def scatter_update(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_update(*args, **kwargs))

    def scatter_nd_update(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_nd_update(*args, **kwargs))

    def scatter_nd_add(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_nd_add(*args, **kwargs))

    def scatter_nd_sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrap(self._variable.scatter_nd_sub(*args, **kwargs))

    def __repr__(self) -> str:
        return (f"<AutoCastVariable '{self.name}' shape={self.shape} "
                f"dtype={self.true_dtype.name} dtype_to_cast_to={self.dtype.name}, "
                f"numpy={numpy_repr(self._variable.value())}>")

    __str__ = __repr__


def create_autocast_variable(variable: Any) -> AutoCastVariable:
    """Wrap `variable` so reads inside `enable_auto_cast_variables` are cast."""
    return AutoCastVariable(variable)


def is_autocast_variable(value: Any) -> bool:
    return isinstance(value, AutoCastVariable)
