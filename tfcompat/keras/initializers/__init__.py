"""`tf.keras.initializers`: the tf_keras 2.21 initializers and `get`/`serialize`/`deserialize`.

Every class has its snake_case alias (`glorot_uniform` is `GlorotUniform`, ...), and
`deserialize` also knows tf_keras's old names: `"normal"`, `"uniform"`, `"one"`, `"zero"`
and the `"...V2"` class names of TF 2.0-era configs.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Optional

from ..saving import serialization as _serialization
from .constant_initializers import Constant, Identity, Ones, Zeros
from .initializer import Initializer
from .random_initializers import (GlorotNormal, GlorotUniform, HeNormal, HeUniform, LecunNormal,
                                  LecunUniform, Orthogonal, RandomNormal, RandomUniform,
                                  TruncatedNormal, VarianceScaling)

constant = Constant
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
identity = Identity
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
ones = Ones
orthogonal = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
zeros = Zeros

__all__ = [
    "Initializer", "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform",
    "Identity", "LecunNormal", "LecunUniform", "Ones", "Orthogonal", "RandomNormal",
    "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros", "constant",
    "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity", "lecun_normal",
    "lecun_uniform", "ones", "orthogonal", "random_normal", "random_uniform",
    "truncated_normal", "variance_scaling", "zeros", "get", "serialize", "deserialize",
]

_CLASSES = (Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Identity, LecunNormal,
            LecunUniform, Ones, Orthogonal, RandomNormal, RandomUniform, TruncatedNormal,
            VarianceScaling, Zeros)


def _snake_case(name: str) -> str:
    # tf_keras's generic_utils.to_snake_case, for CamelCase class names.
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()


def _all_objects() -> Dict[str, Any]:
    objects: Dict[str, Any] = {}
    for cls in _CLASSES:
        objects[cls.__name__ + "V2"] = cls
    for cls in (Initializer,) + _CLASSES:
        objects[cls.__name__] = cls
        objects[_snake_case(cls.__name__)] = cls
    objects["normal"] = RandomNormal
    objects["uniform"] = RandomUniform
    objects["one"] = Ones
    objects["zero"] = Zeros
    return objects


_ALL_OBJECTS = _all_objects()


def serialize(initializer: Any, use_legacy_format: bool = False) -> Any:
    """The config of `initializer` (tf_keras 2.21's format; the legacy one on request).

    Warns, as tf_keras, for an object that is not one of these initializers.
    """
    if initializer is None:
        return None
    _serialization.warn_if_not_instance("initializers", "Initializer", initializer,
                                        tuple(_ALL_OBJECTS.values()))
    if use_legacy_format:
        return _serialization.legacy_serialize_keras_object(initializer)
    return _serialization.serialize_keras_object(initializer)


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """The initializer a config (or name) describes."""
    if use_legacy_format:
        return _serialization.legacy_deserialize_keras_object(
            config, module_objects=_ALL_OBJECTS, custom_objects=custom_objects,
            printable_module_name="initializer")
    return _serialization.deserialize_keras_object(
        config, module_objects=_ALL_OBJECTS, custom_objects=custom_objects,
        printable_module_name="initializer")


def get(identifier: Any) -> Any:
    """`tf.keras.initializers.get`: None stays None; a dict is a config (legacy when it has
    no `"module"`); a string is a class name (`"glorot_uniform"`; unknown: TF's
    `ValueError`); a class is instantiated; another callable is returned as is."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier, use_legacy_format="module" not in identifier)
    if isinstance(identifier, str):
        return get({"class_name": str(identifier), "config": {}})
    if callable(identifier):
        if isinstance(identifier, type):
            identifier = identifier()
        return identifier
    raise ValueError("Could not interpret initializer identifier: " + str(identifier))
