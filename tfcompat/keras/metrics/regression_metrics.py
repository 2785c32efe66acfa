"""Regression metrics (tf_keras 2.21's `regression_metrics.py`): weighted means of the
losses package's per-sample errors, plus `RootMeanSquaredError` (the square root of the
weighted mean squared difference), `MeanRelativeError` (`|y_true - y_pred| / normalizer`),
`CosineSimilarity` (the mean cosine, *not* negated as the loss is) and `R2Score`.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import torch

from ...framework.tensor_conversion import convert_to_tensor
from ...ops import binary_math_ops, math_ops, normalization_ops, reduction_ops, unary_ops
from ...ops.binary_math_ops import divide_no_nan
from .. import backend
from ..losses import loss as losses_utils
from ..losses.regression import (log_cosh, mean_absolute_error, mean_absolute_percentage_error,
                                 mean_squared_error, mean_squared_logarithmic_error)
from ..saving import serialization
from .base_metric import Mean, MeanMetricWrapper, Metric, _cast
from .weighting import broadcast_weights

__all__ = [
    "MeanRelativeError", "CosineSimilarity", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "RootMeanSquaredError", "LogCoshError",
    "R2Score", "cosine_similarity",
]


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> torch.Tensor:
    """The cosine of the angle between `y_true` and `y_pred` along `axis` (l2-normalized
    dot product)."""
    y_true = normalization_ops.l2_normalize(y_true, axis=axis)
    y_pred = normalization_ops.l2_normalize(y_pred, axis=axis)
    return reduction_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)


@serialization.keras_export("keras.metrics.MeanRelativeError")
class MeanRelativeError(Mean):
    """`tf.keras.metrics.MeanRelativeError`: the weighted mean of
    `|y_true - y_pred| / normalizer` (`divide_no_nan`)."""

    def __init__(self, normalizer: Any, name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.normalizer = _cast(normalizer, self._dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true = _cast(y_true, self._dtype)
        y_pred = _cast(y_pred, self._dtype)
        y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
        y_pred, self.normalizer = losses_utils.remove_squeezable_dimensions(y_pred,
                                                                            self.normalizer)
        if tuple(y_pred.shape) != tuple(y_true.shape):
            raise ValueError(f"Shapes {tuple(y_pred.shape)} and {tuple(y_true.shape)} are "
                             "incompatible")
        relative_errors = divide_no_nan(math_ops.abs(y_true - y_pred), self.normalizer)
        return super().update_state(relative_errors, sample_weight=sample_weight)

    def get_config(self) -> dict:
        n = self.normalizer
        config = {"normalizer": backend.eval(n) if isinstance(n, torch.Tensor) else n}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


def _wrapper(cls_name: str, fn: Any, default_name: str, doc: str) -> type:
    def __init__(self: Any, name: str = default_name, dtype: Any = None) -> None:
        MeanMetricWrapper.__init__(self, fn, name, dtype=dtype)

    cls = type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc,
                                                  "__module__": __name__,
                                                  "__qualname__": cls_name})
    return serialization.keras_export(f"keras.metrics.{cls_name}")(cls)


@serialization.keras_export("keras.metrics.CosineSimilarity")
class CosineSimilarity(MeanMetricWrapper):
    """`tf.keras.metrics.CosineSimilarity`: the mean cosine similarity along `axis`."""

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None,
                 axis: int = -1) -> None:
        super().__init__(cosine_similarity, name, dtype=dtype, axis=axis)


MeanAbsoluteError = _wrapper("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
                             "`tf.keras.metrics.MeanAbsoluteError`: the mean of |y_true - y_pred|.")
MeanAbsolutePercentageError = _wrapper(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error,
    "mean_absolute_percentage_error",
    "`tf.keras.metrics.MeanAbsolutePercentageError`: 100 * |y_true - y_pred| / |y_true|.")
MeanSquaredError = _wrapper("MeanSquaredError", mean_squared_error, "mean_squared_error",
                            "`tf.keras.metrics.MeanSquaredError`: the mean of (y_true - y_pred)^2.")
MeanSquaredLogarithmicError = _wrapper(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error",
    "`tf.keras.metrics.MeanSquaredLogarithmicError`: the mean of the squared log1p errors.")
LogCoshError = _wrapper("LogCoshError", log_cosh, "logcosh",
                        "`tf.keras.metrics.LogCoshError`: the mean of log(cosh(y_pred - y_true)).")


@serialization.keras_export("keras.metrics.RootMeanSquaredError")
class RootMeanSquaredError(Mean):
    """`tf.keras.metrics.RootMeanSquaredError`: `sqrt(total / count)` of the weighted
    squared differences."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true = _cast(y_true, self._dtype)
        y_pred = _cast(y_pred, self._dtype)
        y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
        error_sq = binary_math_ops.squared_difference(y_pred, y_true)
        return super().update_state(error_sq, sample_weight=sample_weight)

    def result(self) -> torch.Tensor:
        return unary_ops.sqrt(divide_no_nan(self.total, self.count))


@serialization.keras_export("keras.metrics.R2Score")
class R2Score(Metric):
    """`tf.keras.metrics.R2Score`: the coefficient of determination per output, averaged
    (`uniform_average`), variance-weighted, or per output (`None`); adjusted for
    `num_regressors` when that is possible."""

    def __init__(self, class_aggregation: Optional[str] = "uniform_average",
                 num_regressors: int = 0, name: str = "r2_score", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of "
                             f"{valid}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self.num_samples = self.add_weight(name="num_samples", dtype="int32")
        object.__setattr__(self, "built", False)

    def build(self, y_true_shape: Any, y_pred_shape: Any) -> None:  # type: ignore[override]
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                "R2Score expects 2D inputs with shape (batch_size, output_dim). Received input "
                f"shapes: y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")
        num_classes = y_pred_shape[-1]
        for var, name in (("squared_sum", "squared_sum"), ("sum", "sum"),
                          ("total_mse", "residual"), ("count", "count")):
            setattr(self, var, self.add_weight(name=name, shape=[num_classes],
                                               initializer="zeros"))
        object.__setattr__(self, "built", True)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true = _cast(y_true, self.dtype)
        y_pred = _cast(y_pred, self.dtype)
        if not self.built:
            self.build(tuple(y_true.shape), tuple(y_pred.shape))
        if sample_weight is None:
            sample_weight = 1
        sample_weight = _cast(sample_weight, self.dtype)
        if sample_weight.dim() == 1:
            sample_weight = sample_weight.unsqueeze(1)
        sample_weight = broadcast_weights(sample_weight, y_true)
        weighted_y_true = y_true * sample_weight
        self.sum.assign_add(reduction_ops.reduce_sum(weighted_y_true, axis=0))
        self.squared_sum.assign_add(reduction_ops.reduce_sum(y_true * weighted_y_true, axis=0))
        self.total_mse.assign_add(
            reduction_ops.reduce_sum((y_true - y_pred) ** 2 * sample_weight, axis=0))
        self.count.assign_add(reduction_ops.reduce_sum(sample_weight, axis=0))
        self.num_samples.assign_add(torch.tensor(y_true.numel(), dtype=torch.int32))

    def result(self) -> torch.Tensor:
        s, count = convert_to_tensor(self.sum), convert_to_tensor(self.count)
        mean = s / count
        total = convert_to_tensor(self.squared_sum) - s * mean
        raw_scores = 1 - convert_to_tensor(self.total_mse) / total
        raw_scores = torch.where(torch.isinf(raw_scores), torch.zeros_like(raw_scores),
                                 raw_scores)
        if self.class_aggregation == "uniform_average":
            r2_score = raw_scores.mean()
        elif self.class_aggregation == "variance_weighted_average":
            r2_score = (total * raw_scores).sum() / total.sum()
        else:
            r2_score = raw_scores
        if self.num_regressors != 0:
            num_samples = int(convert_to_tensor(self.num_samples))
            if self.num_regressors > num_samples - 1:
                warnings.warn("More independent predictors than datapoints in adjusted R2 "
                              "score. Falling back to standard R2 score.", stacklevel=2)
            elif self.num_regressors == num_samples - 1:
                warnings.warn("Division by zero in Adjusted R2 score. Falling back to "
                              "standard R2 score.", stacklevel=2)
            else:
                n = torch.tensor(float(num_samples), dtype=torch.float32)
                p = torch.tensor(float(self.num_regressors), dtype=torch.float32)
                r2_score = 1.0 - ((1.0 - r2_score) * (n - 1.0)) / ((n - p) - 1.0)
        return r2_score

    def reset_state(self) -> None:
        for v in self.variables:
            v.assign(torch.zeros(tuple(v.shape), dtype=convert_to_tensor(v).dtype),
                     read_value=False)

    def get_config(self) -> dict:
        config = {"class_aggregation": self.class_aggregation,
                  "num_regressors": self.num_regressors}
        return {**super().get_config(), **config}
