"""What `Layer` needs beside the class: the call context, the call signature, variables.

* `CallContext` (thread-local, as tf_keras's): whether a layer call is in progress (so the
  outermost call clears the per-call losses), the `training` value propagated to nested
  layers, and the layer stack.
* `CallSpec`: what a layer's `call` signature accepts (`training`, `mask`, `**kwargs`), its
  defaults, and where a positional `training` sits, computed once per class.
* `make_variable`: the getter `add_weight` hands to `Trackable._add_variable_with_custom_getter`;
  it builds a `tf.Variable` (so the creator stack, strategies included, decide what it is).
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
from typing import Any, Callable, Dict, Optional, Tuple

from ...framework import dtypes
from ...variables import variable as variable_lib
from ...variables.enums import VariableAggregation, VariableSynchronization

__all__ = ["CallContext", "call_context", "CallSpec", "make_variable", "to_snake_case",
           "has_weights", "validate_kwargs"]


class CallContext(threading.local):
    """Per-thread state of the layer calls in progress."""

    def __init__(self) -> None:
        self.depth = 0
        self.training: Any = None
        self.layer: Any = None

    @property
    def in_call(self) -> bool:
        return self.depth > 0


_call_context = CallContext()


def call_context() -> CallContext:
    return _call_context


_NO_DEFAULT = inspect.Parameter.empty


class CallSpec:
    """The facts about a `call` signature that `Layer.__call__` needs, computed once."""

    def __init__(self, call_fn: Callable) -> None:
        signature = inspect.signature(call_fn)
        params = list(signature.parameters.values())
        # bound method: `self` is already gone; the first parameter is `inputs`
        self.arg_names = [p.name for p in params
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.accepts_var_kwargs = any(p.kind == p.VAR_KEYWORD for p in params)
        names = {p.name for p in params}
        self.expects_training_arg = "training" in names or self.accepts_var_kwargs
        self.expects_mask_arg = "mask" in names or self.accepts_var_kwargs
        self.first_arg_name = self.arg_names[0] if self.arg_names else None
        defaults = {p.name: p.default for p in params if p.default is not _NO_DEFAULT}
        self.default_training_arg = defaults.get("training")
        # index into the positional args *after* `inputs`
        self.training_position: Optional[int] = (
            self.arg_names.index("training") - 1 if "training" in self.arg_names else None)
        self.mask_position: Optional[int] = (
            self.arg_names.index("mask") - 1 if "mask" in self.arg_names else None)
        self.explicit_training = "training" in names

    def split_out_first_arg(self, args: tuple, kwargs: dict) -> Tuple[Any, tuple, dict]:
        """`(inputs, rest_of_args, kwargs)`: `inputs` is the first positional argument or
        the keyword named like `call`'s first parameter."""
        if args:
            return args[0], args[1:], kwargs
        if self.first_arg_name is not None and self.first_arg_name in kwargs:
            kwargs = dict(kwargs)
            inputs = kwargs.pop(self.first_arg_name)
            return inputs, args, kwargs
        raise ValueError("The first argument to `Layer.call` must always be passed.")

    def arg_was_passed(self, name: str, position: Optional[int], args: tuple,
                       kwargs: dict) -> bool:
        if name in kwargs:
            return True
        return position is not None and position < len(args)

    def get_arg(self, name: str, position: Optional[int], args: tuple, kwargs: dict) -> Any:
        if name in kwargs:
            return kwargs[name]
        if position is not None and position < len(args):
            return args[position]
        return None

    def set_arg(self, name: str, position: Optional[int], value: Any, args: tuple,
                kwargs: dict) -> Tuple[tuple, dict]:
        if position is not None and position < len(args):
            args = args[:position] + (value,) + args[position + 1:]
            return args, kwargs
        kwargs[name] = value
        return args, kwargs


def make_variable(name: str, shape: Any = None, dtype: Any = dtypes.float32,
                  initializer: Any = None, trainable: Optional[bool] = None,
                  caching_device: Any = None, validate_shape: bool = True,
                  constraint: Optional[Callable] = None, use_resource: Any = None,
                  collections: Any = None,
                  synchronization: Any = VariableSynchronization.AUTO,
                  aggregation: Any = VariableAggregation.NONE, partitioner: Any = None,
                  layout: Any = None) -> Any:
    """A `tf.Variable` named `name` holding `initializer(shape, dtype=dtype)` (tf_keras's).

    The initial value is a callable, so a strategy's creator builds it on each device, and a
    checkpoint waiting for this weight hands its value in as the initializer.
    """
    dtype = dtypes.as_dtype(dtype)
    if isinstance(initializer, type):
        initializer = initializer()
    if callable(initializer):
        init_val: Any = functools.partial(initializer, shape, dtype=dtype)
    else:
        init_val = initializer
    return variable_lib.Variable(
        initial_value=init_val, name=name, trainable=trainable, caching_device=caching_device,
        dtype=dtype, validate_shape=validate_shape, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation,
        shape=shape if validate_shape else None)


def to_snake_case(name: str) -> str:
    """tf_keras's class-name-to-layer-name rule (`Conv2D` -> `conv2d`, `_Foo` -> `private_foo`)."""
    intermediate = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    if insecure[0] != "_":
        return insecure
    return "private" + insecure


def has_weights(obj: Any) -> bool:
    """Whether `obj` is an object (not a class) exposing Keras' weight properties."""
    return (not isinstance(obj, type) and hasattr(type(obj), "trainable_weights")
            and hasattr(type(obj), "non_trainable_weights"))


def validate_kwargs(kwargs: Dict[str, Any], allowed: set,
                    error_message: str = "Keyword argument not understood:") -> None:
    """tf_keras's `TypeError(error_message, kwarg)` for the first unknown keyword."""
    for kwarg in kwargs:
        if kwarg not in allowed:
            raise TypeError(error_message, kwarg)
