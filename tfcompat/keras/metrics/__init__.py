"""`tf.keras.metrics` (tf_keras 2.21): the metric classes, the metric functions, and
`get` / `serialize` / `deserialize`.

Every metric is a `Metric` (a stateful `Layer`, `base_metric.py`); its state variables are
sync-on-read, so under a `tf.distribute` strategy each replica accumulates its own part and
`result()` is the metric over the global batch. The families live in `accuracy_metrics`,
`confusion_metrics` (+ `confusion_matrix`, the threshold accumulation), `regression_metrics`,
`probabilistic_metrics`, `hinge_metrics` and `iou_metrics`.

The function forms are tf_keras's: the accuracy functions, and the losses package's
per-sample functions under their metric names and aliases (`mse`, `mae`, `mape`, `msle`,
`kld`, `logcosh`, ...). `get("accuracy")`, `get("MeanSquaredError")`, `get({"class_name":
...})` resolve through the custom-object scopes, the registry, then this module's names.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

from ..losses.hinge import categorical_hinge, hinge, squared_hinge
from ..losses.probabilistic import (binary_crossentropy, binary_focal_crossentropy,
                                    categorical_crossentropy, categorical_focal_crossentropy,
                                    kl_divergence, poisson, sparse_categorical_crossentropy)
from ..losses.regression import (log_cosh, mean_absolute_error, mean_absolute_percentage_error,
                                 mean_squared_error, mean_squared_logarithmic_error)
from ..saving import serialization
from .accuracy_metrics import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                               SparseCategoricalAccuracy, SparseTopKCategoricalAccuracy,
                               TopKCategoricalAccuracy, accuracy, binary_accuracy,
                               categorical_accuracy, sparse_categorical_accuracy,
                               sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .base_metric import (Mean, MeanMetricWrapper, MeanTensor, Metric, Reduce, Sum,
                          SumOverBatchSize, SumOverBatchSizeMetricWrapper, clone_metric,
                          clone_metrics)
from .confusion_metrics import (AUC, FalseNegatives, FalsePositives, Precision,
                                PrecisionAtRecall, Recall, RecallAtPrecision,
                                SensitivityAtSpecificity, SensitivitySpecificityBase,
                                SpecificityAtSensitivity, TrueNegatives, TruePositives)
from .hinge_metrics import CategoricalHinge, Hinge, SquaredHinge
from .iou_metrics import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from .probabilistic_metrics import (BinaryCrossentropy, CategoricalCrossentropy, KLDivergence,
                                    Poisson, SparseCategoricalCrossentropy)
from .regression_metrics import (CosineSimilarity, LogCoshError, MeanAbsoluteError,
                                 MeanAbsolutePercentageError, MeanRelativeError,
                                 MeanSquaredError, MeanSquaredLogarithmicError, R2Score,
                                 RootMeanSquaredError, cosine_similarity)

# tf_keras's aliases (module names; `deserialize` and `compile` find them).
acc = ACC = accuracy
bce = BCE = binary_crossentropy
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
cosine_proximity = cosine_similarity

# tf.keras.metrics' public names in TF 2.21 (F1Score / FBetaScore are not built here).
__all__ = [
    "AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "BinaryIoU",
    "CategoricalAccuracy", "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity",
    "FalseNegatives", "FalsePositives", "Hinge", "IoU", "KLD", "KLDivergence", "LogCoshError",
    "MAE", "MAPE", "MSE", "MSLE", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanIoU", "MeanMetricWrapper", "MeanRelativeError", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "MeanTensor", "Metric", "OneHotIoU", "OneHotMeanIoU",
    "Poisson", "Precision", "PrecisionAtRecall", "R2Score", "Recall", "RecallAtPrecision",
    "RootMeanSquaredError", "SensitivityAtSpecificity", "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy",
    "SpecificityAtSensitivity", "SquaredHinge", "Sum", "TopKCategoricalAccuracy",
    "TrueNegatives", "TruePositives", "binary_accuracy", "binary_crossentropy",
    "binary_focal_crossentropy", "categorical_accuracy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "deserialize", "get", "hinge", "kl_divergence", "kld",
    "kullback_leibler_divergence", "log_cosh", "logcosh", "mae", "mape",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "mean_squared_logarithmic_error", "mse", "msle", "poisson", "serialize",
    "sparse_categorical_accuracy", "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy", "squared_hinge", "top_k_categorical_accuracy",
]

# Public attributes that tf_keras's metrics module does not define itself (they come from
# the public API's re-export of the losses): its `deserialize("kld")` does not find them
# and hands the name back unchanged.
_NOT_MODULE_OBJECTS = frozenset({"kld", "KLD"})

# The metric functions' public names (the classes export themselves where defined); the
# loss functions keep their canonical `keras.losses` names.
for _name in ("accuracy", "binary_accuracy", "categorical_accuracy",
              "sparse_categorical_accuracy", "top_k_categorical_accuracy",
              "sparse_top_k_categorical_accuracy"):
    serialization.keras_export(f"keras.metrics.{_name}")(globals()[_name])


def serialize(metric: Any, use_legacy_format: bool = False) -> Optional[Union[dict, str]]:
    """`tf.keras.metrics.serialize`: a `Metric` as `{"module", "class_name", "config",
    "registered_name"}` (legacy: `{"class_name", "config"}`); anything else with tf_keras's
    warning."""
    if metric is None:
        return None
    serialization.warn_if_not_instance("metrics", "Metric", metric, (Metric,))
    if use_legacy_format:
        return serialization.legacy_serialize_keras_object(metric)
    return serialization.serialize_keras_object(metric)


def deserialize(config: Union[str, dict], custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """`tf.keras.metrics.deserialize`: a name or a serialized dict back to a metric (a
    class name gives an instance with the defaults, a function name the function)."""
    module_objects = {k: v for k, v in globals().items()
                      if not k.startswith("_") and k not in _NOT_MODULE_OBJECTS}
    if use_legacy_format:
        return serialization.legacy_deserialize_keras_object(
            config, module_objects=module_objects, custom_objects=custom_objects,
            printable_module_name="metric function")
    return serialization.deserialize_keras_object(
        config, module_objects=module_objects, custom_objects=custom_objects,
        printable_module_name="metric function")


def get(identifier: Any) -> Callable:
    """`tf.keras.metrics.get`: a serialized dict, a name, or a callable (returned as is)
    to a metric; anything else is tf_keras's `ValueError`."""
    if isinstance(identifier, dict):
        return deserialize(identifier, use_legacy_format="module" not in identifier)
    if isinstance(identifier, str):
        return deserialize(str(identifier))
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
