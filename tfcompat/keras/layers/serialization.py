"""`tf.keras.layers.serialize` / `deserialize`: a layer as its config record and back.

`serialize(layer)` is tf_keras 2.21's record, `{"module", "class_name", "config",
"registered_name"}` (plus `"build_config"` for a built layer); `use_legacy_format=True`
gives the older `{"class_name", "config"}`. `deserialize` takes either form and resolves
the class among the built-in layers and models, then `custom_objects` and the registered
serializables: nothing in a config executes code.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from ..engine.input_layer import InputLayer
from ..saving.serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["serialize", "deserialize"]


def _builtin_objects() -> Dict[str, Any]:
    from .. import layers as layers_module
    from ..engine.functional import Functional
    from ..engine.input_layer import InputLayer
    from ..engine.sequential import Sequential
    from ..engine.training import Model
    objects = {name: getattr(layers_module, name) for name in dir(layers_module)}
    objects.update({"InputLayer": InputLayer, "Functional": Functional, "Model": Model,
                    "Sequential": Sequential})
    return objects


def _shape_tuples(shape: Any) -> Any:
    """A build shape as tf_keras's `get_build_config` shows it: tuples, nested in lists."""
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list()) if shape.rank is not None else None
    if isinstance(shape, (list, tuple)) and shape and all(
            d is None or isinstance(d, int) for d in shape):
        return tuple(shape)
    if isinstance(shape, (list, tuple)):
        return [_shape_tuples(s) for s in shape]
    if isinstance(shape, dict):
        return {k: _shape_tuples(v) for k, v in shape.items()}
    return shape


def serialize(layer: Any, use_legacy_format: bool = False) -> dict:
    """`tf.keras.layers.serialize`: the layer's config record."""
    record = serialize_keras_object(layer)
    shape = getattr(layer, "_build_input_shape", None)
    if shape is not None and isinstance(record, dict) and "build_config" not in record and \
            not isinstance(layer, InputLayer):
        record["build_config"] = {"input_shape": _shape_tuples(shape)}
    if use_legacy_format and isinstance(record, dict):
        return {"class_name": record["class_name"], "config": record["config"]}
    return record


def deserialize(config: Any, custom_objects: Optional[dict] = None,
                use_legacy_format: bool = False) -> Any:
    """`tf.keras.layers.deserialize`: the layer (or model) a config record describes."""
    if not config:
        raise ValueError(f"Cannot deserialize empty config. Received: config={config}")
    return deserialize_keras_object(config, module_objects=_builtin_objects(),
                                    custom_objects=custom_objects,
                                    printable_module_name="layer")
