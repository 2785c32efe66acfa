"""`tf.keras.losses` (tf_keras 2.21): every built-in loss as a class and a function, the
`Reduction` keys, and `get` / `serialize` / `deserialize`.

`get("mse")`, `get("MeanSquaredError")` and `get({"class_name": ..., "config": ...})`
resolve through the active `custom_object_scope`, the `register_keras_serializable`
registry, then this module's names (aliases included: `mse`, `MSE`, `bce`, `kld`, ...).
`compile` resolves string losses through `get`; metrics wrap the functions.

`serialize`/`deserialize` write and read tf_keras's v3 dicts (`module`, `class_name`,
`config`, `registered_name`) and, with `use_legacy_format=True`, the older
`{"class_name", "config"}` form; they are implemented here against the registry
(`saving/object_registration.py`) rather than a shared serialization module.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable, Dict, Optional, Union

from ..saving import object_registration
from .hinge import CategoricalHinge, Hinge, SquaredHinge, categorical_hinge, hinge, squared_hinge
from .loss import Loss, LossFunctionWrapper, Reduction, ReductionV2, compute_weighted_loss
from .probabilistic import (BinaryCrossentropy, BinaryFocalCrossentropy, CategoricalCrossentropy,
                            CategoricalFocalCrossentropy, KLDivergence, Poisson,
                            SparseCategoricalCrossentropy, binary_crossentropy,
                            binary_focal_crossentropy, categorical_crossentropy,
                            categorical_focal_crossentropy, kl_divergence, poisson,
                            sparse_categorical_crossentropy)
from .regression import (CosineSimilarity, Huber, LogCosh, MeanAbsoluteError,
                         MeanAbsolutePercentageError, MeanSquaredError,
                         MeanSquaredLogarithmicError, cosine_similarity, huber, log_cosh,
                         mean_absolute_error, mean_absolute_percentage_error,
                         mean_squared_error, mean_squared_logarithmic_error)

# tf_keras's aliases (module names; `deserialize` finds them too).
bce = BCE = binary_crossentropy
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
huber_loss = huber

# tf.keras.losses' public names in TF 2.21 (bce/BCE/huber_loss are module-only there).
__all__ = [
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalHinge", "CosineSimilarity", "Hinge", "Huber",
    "KLD", "KLDivergence", "LogCosh", "Loss", "MAE", "MAPE", "MSE", "MSLE", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson",
    "Reduction", "SparseCategoricalCrossentropy", "SquaredHinge", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_hinge", "cosine_similarity", "deserialize", "get", "hinge", "huber",
    "kl_divergence", "kld", "kullback_leibler_divergence", "log_cosh", "logcosh", "mae", "mape",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "mse", "msle", "poisson", "serialize",
    "sparse_categorical_crossentropy", "squared_hinge",
]


def _module_objects() -> Dict[str, Any]:
    return {name: value for name, value in globals().items()
            if inspect.isclass(value) and issubclass(value, Loss) or inspect.isfunction(value)}


def _unknown(name: str) -> ValueError:
    return ValueError(
        f"Unknown loss function: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
        "https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details.")


def _resolve(name: str, custom_objects: Optional[Dict[str, Any]]) -> Any:
    obj = object_registration.get_registered_object(name, custom_objects, _module_objects())
    if obj is None:
        raise _unknown(name)
    return obj


def serialize(loss: Any, use_legacy_format: bool = False) -> Optional[Union[dict, str]]:
    """`tf.keras.losses.serialize`: a `Loss` as `{"module", "class_name", "config",
    "registered_name"}` (legacy: `{"class_name", "config"}`); a function as tf_keras writes
    it (with its warning that only `Loss` objects are meant)."""
    if loss is None:
        return None
    if not isinstance(loss, Loss):
        warnings.warn("The `keras.losses.serialize()` API should only be used for objects of "
                      f"type `keras.losses.Loss`. Found an instance of type {type(loss)}, which "
                      "may lead to improper serialization.", stacklevel=2)
        name = object_registration.get_registered_name(loss)
        if use_legacy_format:
            return name
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}
    cls = type(loss)
    builtin = cls.__module__.startswith("tfcompat.keras.losses")
    if use_legacy_format:
        name = cls.__name__ if builtin else object_registration.get_registered_name(cls)
        return {"class_name": name, "config": loss.get_config()}
    # tf_keras: built-ins are `keras.losses` with no registered name; anything else keeps
    # its module (None for `__main__`) and its registered name (`package>Name`, else the
    # class name).
    if builtin:
        module, registered = "keras.losses", None
    else:
        module = None if cls.__module__ == "__main__" else cls.__module__
        registered = object_registration.get_registered_name(cls)
    return {"module": module, "class_name": cls.__name__, "config": loss.get_config(),
            "registered_name": registered}


def deserialize(name: Union[str, dict], custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """`tf.keras.losses.deserialize`: a name (a function or a class, instantiated with its
    defaults) or a serialized dict back to a loss."""
    del use_legacy_format  # both dict forms are read alike
    if isinstance(name, str):
        obj = _resolve(name, custom_objects)
        return obj() if inspect.isclass(obj) else obj
    if isinstance(name, dict):
        class_name = name.get("class_name")
        config = name.get("config", {})
        if class_name == "function":
            return _resolve(config, custom_objects)
        key = name.get("registered_name") or class_name
        cls = object_registration.get_registered_object(key, custom_objects, _module_objects())
        if cls is None and key != class_name:
            cls = object_registration.get_registered_object(class_name, custom_objects,
                                                            _module_objects())
        if cls is None:
            module = name.get("module")
            if module and module != "keras.losses":
                raise TypeError(
                    f"Cannot deserialize object of type `{class_name}`. If `{class_name}` is a "
                    "custom class, please register it using the "
                    "`@keras.saving.register_keras_serializable()` decorator.")
            raise _unknown(class_name)
        if inspect.isclass(cls):
            return cls.from_config(dict(config))
        return cls
    raise ValueError(f"Could not interpret loss function identifier: {name}")


def get(identifier: Any) -> Optional[Callable]:
    """`tf.keras.losses.get`: None, a name, a serialized dict or a callable (returned as
    is) to a loss; anything else is tf_keras's `ValueError`."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


def is_categorical_crossentropy(loss: Any) -> bool:
    """Whether `loss` is categorical crossentropy in any form (`compile` picks the
    categorical accuracy metric for it)."""
    return (isinstance(loss, CategoricalCrossentropy)
            or (isinstance(loss, LossFunctionWrapper) and loss.fn == categorical_crossentropy)
            or getattr(loss, "__name__", None) == "categorical_crossentropy"
            or loss == "categorical_crossentropy")
