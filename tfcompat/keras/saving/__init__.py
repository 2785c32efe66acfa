"""`tf.keras.saving`: object registration, config serialization and weights files.

Submodules: `object_registration` (custom-object registry), `serialization` (configs),
`weights_api` (`Model.save_weights` / `load_weights`), `hdf5_format` (Keras 2's `.h5`
layout), `save` (`save_model` / `load_model`). Only `object_registration` and
`serialization` load eagerly: the engine imports them while it is itself loading.
"""

from __future__ import annotations

from typing import Any

from .object_registration import (CustomObjectScope, custom_object_scope, get_custom_objects,
                                  get_registered_name, get_registered_object,
                                  register_keras_serializable)
from .serialization import public_deserialize_keras_object as deserialize_keras_object
from .serialization import serialize_keras_object

__all__ = [
    "CustomObjectScope", "custom_object_scope", "get_custom_objects", "get_registered_name",
    "get_registered_object", "register_keras_serializable", "serialize_keras_object",
    "deserialize_keras_object", "load_model", "save_model", "save_weights", "load_weights",
]

# name -> submodule defining it, imported on first use (they import the engine)
_LAZY = {"load_model": "save", "save_model": "save", "save_weights": "weights_api",
         "load_weights": "weights_api"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
