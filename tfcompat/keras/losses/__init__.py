"""`tf.keras.losses` (tf_keras 2.21): every built-in loss as a class and a function, the
`Reduction` keys, and `get` / `serialize` / `deserialize`.

`get("mse")`, `get("MeanSquaredError")` and `get({"class_name": ..., "config": ...})`
resolve through the active `custom_object_scope`, the `register_keras_serializable`
registry, then this module's names (aliases included: `mse`, `MSE`, `bce`, `kld`, ...).
`compile` resolves string losses through `get`; metrics wrap the functions.

`serialize`/`deserialize` write and read tf_keras's v3 dicts (`module`, `class_name`,
`config`, `registered_name`) and, with `use_legacy_format=True`, the older
`{"class_name", "config"}` form, through `saving/serialization.py`.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Optional, Union

from ..saving import serialization
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


# Public names, so serialization writes `"module": "keras.losses"` for the built-ins and
# resolves "keras.losses.Huber" (each object's own name first: it is the canonical one).
_EXPORTED = [n for n in __all__ if n in globals()]  # (the loss objects; get & co. follow)
for _name in sorted(_EXPORTED, key=lambda n: n != globals()[n].__name__):
    serialization.keras_export(f"keras.losses.{_name}")(globals()[_name])
serialization.keras_export("keras.losses.LossFunctionWrapper")(LossFunctionWrapper)


def serialize(loss: Any, use_legacy_format: bool = False) -> Optional[Union[dict, str]]:
    """`tf.keras.losses.serialize`: a `Loss` as `{"module", "class_name", "config",
    "registered_name"}` (legacy: `{"class_name", "config"}`); a function as tf_keras writes
    it (with its warning that only `Loss` objects are meant)."""
    if loss is None:
        return None
    serialization.warn_if_not_instance("losses", "Loss", loss, (Loss,))
    if use_legacy_format:
        return serialization.legacy_serialize_keras_object(loss)
    return serialization.serialize_keras_object(loss)


def deserialize(name: Union[str, dict], custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """`tf.keras.losses.deserialize`: a name (a function, or a class instantiated with its
    defaults) or a serialized dict back to a loss, resolved through the custom-object
    scopes, the registry, `custom_objects` and this module's names."""
    module_objects = {k: v for k, v in globals().items() if not k.startswith("_")}
    if use_legacy_format:
        return serialization.legacy_deserialize_keras_object(
            name, module_objects=module_objects, custom_objects=custom_objects,
            printable_module_name="loss function")
    return serialization.deserialize_keras_object(
        name, module_objects=module_objects, custom_objects=custom_objects,
        printable_module_name="loss function")


def get(identifier: Any) -> Optional[Callable]:
    """`tf.keras.losses.get`: None, a name, a serialized dict or a callable (returned as
    is) to a loss; anything else is tf_keras's `ValueError`."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        # tf_keras reads a bare name in the legacy way (it raises for unknown names)
        return deserialize(identifier, use_legacy_format="module" not in identifier)
    if isinstance(identifier, dict):
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
