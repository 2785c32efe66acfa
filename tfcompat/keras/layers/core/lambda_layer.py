"""`tf.keras.layers.Lambda`: wraps a function of the inputs as a layer.

As tf_keras 2.21: `arguments` are passed to the function as keywords, and `mask` / `training`
too when the function's signature names them; a variable the function creates (and the
layer does not track) is tf_keras's `ValueError`; `output_shape` (a shape without the batch
axis, a structure of them, or a function of the input shape) fixes `compute_output_shape`,
which otherwise runs the function on stand-in tensors; `mask` (a callable
`(inputs, mask) -> mask` or a fixed value) is the output mask.

Serialization never executes code (docs/differences.md): `get_config` records a named
function by its name and module as tf_keras does, but a Python `lambda` by the placeholder
`"<lambda>"` instead of its marshalled bytecode; `from_config` of a `"lambda"` entry raises
a `ValueError` that names the fix (a named function, registered or passed in
`custom_objects`). Named functions resolve from the custom objects, the registered objects
or their module when it is already imported (never imported for the config's sake).
"""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any, Callable, Optional

import numpy as np

from ....framework import nest
from ....framework.tensor_shape import TensorShape
from ....variables.creator import variable_creator_scope
from ...engine.base_layer import Layer
from ...saving import object_registration
from ...saving.serialization import keras_export

__all__ = ["Lambda"]

LAMBDA_PLACEHOLDER = "<lambda>"


def _signature_args(function: Callable) -> list:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


def _serialize_function(value: Any, allow_raw: bool = False) -> tuple:
    """`(value, type, module)` as tf_keras's Lambda records a function entry."""
    if isinstance(value, types.LambdaType) and value.__name__ == "<lambda>":
        return LAMBDA_PLACEHOLDER, "lambda", value.__module__
    if callable(value):
        return value.__name__, "function", value.__module__
    if allow_raw:
        return value, "raw", None
    raise ValueError(f"Invalid input for serialization, type: {type(value)} ")


def _resolve_function(name: Any, module: Optional[str], entry: str) -> Any:
    if isinstance(name, str):
        found = object_registration.get_registered_object(name)
        if found is None:  # a registered function is recorded by its bare `__name__`
            found = next((f for key, f in object_registration.get_custom_objects().items()
                          if key.split(">")[-1] == name and callable(f)), None)
        if found is None and module in sys.modules:
            found = getattr(sys.modules[module], name, None)
        if callable(found):
            return found
    raise ValueError(f"Unknown {entry} in Lambda layer: '{name}' (module {module!r}). Please "
                     "ensure you are using a `keras.utils.custom_object_scope` and that this "
                     "object is included in the scope, or pass it in `custom_objects`.")


def _parse_function(config: dict, key: str, module_key: str, type_key: str) -> Any:
    module = config.pop(module_key, None)
    kind = config.pop(type_key)
    value = config[key]
    if kind == "function":
        return _resolve_function(value, module, "function")
    if kind == "lambda":
        raise ValueError(
            f"This Lambda layer's config holds a Python lambda for `{key}`. tfcompat never "
            "deserializes Python bytecode (that would execute code read from a file). Define "
            "the function with `def`, pass it in `custom_objects` (or register it with "
            "`tf.keras.utils.register_keras_serializable`) and replace the config's entry by "
            f"its name with `{type_key}='function'`, or rebuild the layer as "
            "`tf.keras.layers.Lambda(your_function)`.")
    if kind == "raw":
        return value
    raise TypeError("Unsupported value for `function_type` argument. Received: "
                    f"function_type={kind}. Expected one of ['function', 'lambda', 'raw']")


@keras_export("keras.layers.Lambda")
class Lambda(Layer):
    """Wraps `function(inputs, **arguments)` as a layer (tf_keras 2.x `Lambda`)."""

    def __init__(self, function: Callable, output_shape: Any = None, mask: Any = None,
                 arguments: Optional[dict] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.arguments = arguments or {}
        self.function = function
        if mask is not None:
            self.supports_masking = True
        self.mask = mask
        self._output_shape = output_shape
        names = _signature_args(function)
        self._fn_expects_training_arg = "training" in names
        self._fn_expects_mask_arg = "mask" in names

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_expects_mask_arg:
            kwargs["mask"] = mask
        if self._fn_expects_training_arg:
            kwargs["training"] = training
        created: list = []

        def record(next_creator: Callable, **kw: Any) -> Any:
            variable = next_creator(**kw)
            created.append(variable)
            return variable

        with variable_creator_scope(record):
            result = self.function(inputs, **kwargs)
        if created:
            self._refuse_untracked(created)
        return result

    def _refuse_untracked(self, created: list) -> None:
        """tf_keras refuses variables made inside a Lambda that the layer does not track."""
        tracked = {id(w) for w in self.weights}
        untracked = [v for v in created if id(v) not in tracked and "StateVar" not in v.name]
        if untracked:
            names = "\n".join(f"  {v}" for v in untracked)
            raise ValueError(
                f"\nThe following Variables were created within a Lambda layer ({self.name})\n"
                f"but are not tracked by said layer:\n{names}\nThe layer cannot safely "
                "ensure proper Variable reuse across multiple\ncalls, and consequently this "
                "behavior is disallowed for safety. Lambda\nlayers are not well suited to "
                "stateful computation; instead, writing a\nsubclassed Layer is the recommend "
                "way to define layers with\nVariables.")

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return _to_shapes(self._output_shape(input_shape))
        first = _first_shape(_to_shapes(input_shape)) if input_shape else None
        batch = first.as_list()[0] if first is not None and first.rank else None
        return nest.map_structure(lambda s: TensorShape([batch] + s.as_list()),
                                  _to_shapes(self._output_shape))

    def get_config(self) -> dict:
        function = _serialize_function(self.function)
        output_shape = _serialize_function(self._output_shape, allow_raw=True)
        config = {
            "function": function[0], "function_type": function[1], "module": function[2],
            "output_shape": output_shape[0], "output_shape_type": output_shape[1],
            "output_shape_module": output_shape[2],
        }
        if self.mask is not None:
            mask = _serialize_function(self.mask)
            config.update({"mask": mask[0], "mask_type": mask[1], "mask_module": mask[2]})
        config["arguments"] = dict(self.arguments)
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Lambda":
        config = dict(config)
        with object_registration.custom_object_scope(custom_objects or {}):
            function = _parse_function(config, "function", "module", "function_type")
            output_shape = _parse_function(config, "output_shape", "output_shape_module",
                                           "output_shape_type")
            mask = (_parse_function(config, "mask", "mask_module", "mask_type")
                    if "mask" in config else None)
        config.update(function=function, output_shape=output_shape, mask=mask)
        arguments = dict(config.get("arguments") or {})
        for key, value in arguments.items():
            if isinstance(value, dict) and value.get("type") == "ndarray":
                arguments[key] = np.array(value["value"])
        config["arguments"] = arguments
        return cls(**config)


def _is_shape(value: Any) -> bool:
    return isinstance(value, TensorShape) or (
        isinstance(value, (list, tuple)) and all(v is None or isinstance(v, int) for v in value))


def _to_shapes(value: Any) -> Any:
    """A shape, or a structure of shapes (tuples/lists of ints), as TensorShape(s)."""
    if value is None:
        return None
    if _is_shape(value):
        return TensorShape(value)
    if isinstance(value, dict):
        return {k: _to_shapes(v) for k, v in value.items()}
    return type(value)(_to_shapes(v) for v in value)


def _first_shape(value: Any) -> Optional[TensorShape]:
    if isinstance(value, TensorShape) or value is None:
        return value
    items = value.values() if isinstance(value, dict) else value
    for item in items:
        found = _first_shape(item)
        if found is not None:
            return found
    return None
