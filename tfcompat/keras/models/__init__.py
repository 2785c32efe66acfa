"""`tf.keras.models`: `Model`, `Sequential`, and building models from configs."""

from __future__ import annotations

import json
from typing import Any, Optional

from ..engine.functional import Functional
from ..engine.sequential import Sequential
from ..engine.training import Model

__all__ = ["Model", "Sequential", "Functional", "model_from_config", "model_from_json",
           "clone_model", "save_model", "load_model"]


def __getattr__(name: str) -> Any:
    if name in ("save_model", "load_model"):
        from ..saving import save as save_lib
        return getattr(save_lib, name)
    raise AttributeError(f"module 'tfcompat.keras.models' has no attribute {name!r}")


def model_from_config(config: dict, custom_objects: Optional[dict] = None) -> Model:
    """A model from `{"class_name": ..., "config": ...}` (tf_keras's `model_from_config`)."""
    from ..saving.serialization import deserialize_keras_object
    objects = {"Model": Functional, "Functional": Functional, "Sequential": Sequential}
    return deserialize_keras_object(config, module_objects=objects,
                                    custom_objects=custom_objects, printable_module_name="layer")


def model_from_json(json_string: str, custom_objects: Optional[dict] = None) -> Model:
    """A model from `model.to_json()`'s string (plain JSON: nothing in it executes code)."""
    return model_from_config(json.loads(json_string), custom_objects=custom_objects)


def clone_model(model: Model, input_tensors: Any = None, clone_function: Any = None) -> Model:
    """A new model of the same structure with new weights (tf_keras's `clone_model`) for
    Sequential and functional models: each layer rebuilt from its config (or by
    `clone_function(layer)`)."""
    if input_tensors is not None:
        raise NotImplementedError("clone_model(input_tensors=...) is not supported yet.")
    from ..engine.functional_config import network_from_config
    clone = clone_function or (lambda layer: type(layer).from_config(layer.get_config()))
    if isinstance(model, Sequential):
        return Sequential([clone(layer) for layer in model.layers], name=model.name) \
            if not model._is_graph_network else Sequential(
                [model.inputs[0]._keras_history.layer.__class__.from_config(
                    model.inputs[0]._keras_history.layer.get_config())]
                + [clone(layer) for layer in model.layers], name=model.name)
    if isinstance(model, Functional):
        return network_from_config(Functional, model.get_config())
    raise ValueError("Expected `model` argument to be a functional `Model` instance, but got "
                     f"a subclassed model instead: {model}")
