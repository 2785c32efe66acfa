"""`tf.function` and `tf.TensorSpec`: eager execution of TF's graph-function API.

tfcompat has no graph mode: a `tf.function` runs its Python function
eagerly on every call, which is what TF does under
`tf.config.run_functions_eagerly(True)`. Semantics are therefore TF's eager
semantics (Python side effects run every call; there is no retracing).

`jit_compile=True` is accepted and also runs eagerly. XLA has no drop-in
torch counterpart that keeps TF's variable side effects: `torch.compile`
can only be applied by the user to pure functions of tensors, and wrapping
stateful TF code in it would graph-break on every assign. The argument is
kept so that ported code runs unchanged.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import torch

from . import dtypes
from .tensor_shape import TensorShape, as_shape

__all__ = ["function", "Function", "TensorSpec"]


class TensorSpec:
    """`tf.TensorSpec(shape, dtype=tf.float32, name=None)`: a tensor's type."""

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        return cls(TensorShape(tuple(tensor.shape)), dtypes.as_dtype(tensor.dtype), name)

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        other_dtype = dtypes.as_dtype(spec_or_tensor.dtype)
        other_shape = spec_or_tensor.shape
        if isinstance(other_shape, torch.Size):
            other_shape = tuple(other_shape)
        return self.dtype == other_dtype and self.shape.is_compatible_with(other_shape)

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"


class Function:
    """A `tf.function`: calls the wrapped Python function eagerly.

    With an `input_signature`, calls are checked against it (a wrong number
    of arguments or an incompatible tensor is an error, as in TF).
    """

    def __init__(self, python_function: Callable[..., Any], input_signature: Any = None,
                 jit_compile: Optional[bool] = None, name: Optional[str] = None) -> None:
        self._python_function = python_function
        self._input_signature = None if input_signature is None else list(input_signature)
        self._name = name or getattr(python_function, "__name__", "function")
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable[..., Any]:
        return self._python_function

    @property
    def input_signature(self) -> Optional[list]:
        return self._input_signature

    @property
    def function_spec(self) -> Any:
        return self._input_signature

    def _check_signature(self, args: tuple) -> None:
        if self._input_signature is None:
            return
        if len(args) != len(self._input_signature):
            raise TypeError(f"{self._name} takes {len(self._input_signature)} positional arguments "
                            f"under its input_signature, got {len(args)}.")
        for i, (arg, spec) in enumerate(zip(args, self._input_signature)):
            if isinstance(spec, TensorSpec) and hasattr(arg, "dtype") and hasattr(arg, "shape"):
                if not spec.is_compatible_with(arg):
                    raise ValueError(f"Argument {i} of {self._name} ({arg!r}) is not compatible "
                                     f"with its input_signature entry {spec!r}.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_signature(args)
        return self._python_function(*args, **kwargs)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        bound = functools.partial(self.__call__, instance)
        functools.update_wrapper(bound, self._python_function)
        return bound

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        """The function itself: tfcompat has no traced graphs."""
        return self._python_function

    def experimental_get_tracing_count(self) -> int:
        return 0


def function(func: Optional[Callable[..., Any]] = None, input_signature: Any = None,
             autograph: bool = True, jit_compile: Optional[bool] = None,
             reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None, experimental_attributes: Any = None,
             experimental_relax_shapes: Any = None, experimental_compile: Any = None,
             experimental_follow_type_hints: Any = None) -> Any:
    """`tf.function`: accepted with all of TF's arguments; runs eagerly (see module doc)."""
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile

    def decorate(fn: Callable[..., Any]) -> Function:
        return Function(fn, input_signature=input_signature, jit_compile=jit_compile)

    return decorate if func is None else decorate(func)
