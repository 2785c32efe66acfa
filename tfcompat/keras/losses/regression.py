"""Regression losses: squared, absolute, percentage, squared-log errors, Huber, log-cosh,
cosine similarity (tf_keras's formulas, op for op, so results round as TF's).

Each function reduces the last axis (`mean(..., axis=-1)`) and returns per-sample values;
`y_true` is cast to `y_pred`'s dtype. `huber` alone computes in `floatx()` (tf_keras casts
both inputs and `delta` there), so float64 or float16 inputs give a `floatx()` result.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from .. import backend
from ...framework import tensor_conversion
from ...ops import binary_math_ops, indexing_ops, math_ops, normalization_ops, reduction_ops
from ...ops import unary_math_ops, unary_ops
from .loss import LossFunctionWrapper, ReductionV2

__all__ = [
    "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error", "huber", "log_cosh", "cosine_similarity",
    "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError", "Huber", "LogCosh", "CosineSimilarity",
]


def _prepare(y_true: Any, y_pred: Any) -> tuple:
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    return math_ops.cast(y_true, y_pred.dtype), y_pred


def mean_squared_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(square(y_pred - y_true), axis=-1)` (TF's `squared_difference`)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction_ops.reduce_mean(binary_math_ops.squared_difference(y_pred, y_true), -1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(abs(y_pred - y_true), axis=-1)`."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction_ops.reduce_mean(math_ops.abs(math_ops.subtract(y_pred, y_true)), -1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), epsilon)), axis=-1)`."""
    y_true, y_pred = _prepare(y_true, y_pred)
    denom = math_ops.maximum(math_ops.abs(y_true), backend.epsilon())
    diff = math_ops.abs(math_ops.truediv(math_ops.subtract(y_true, y_pred), denom))
    return math_ops.multiply(100.0, reduction_ops.reduce_mean(diff, -1))


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)`."""
    y_true, y_pred = _prepare(y_true, y_pred)
    eps = backend.epsilon()
    first = unary_ops.log(math_ops.add(math_ops.maximum(y_pred, eps), 1.0))
    second = unary_ops.log(math_ops.add(math_ops.maximum(y_true, eps), 1.0))
    return reduction_ops.reduce_mean(binary_math_ops.squared_difference(first, second), -1)


def huber(y_true: Any, y_pred: Any, delta: Any = 1.0) -> torch.Tensor:
    """`mean(where(|e| <= delta, 0.5 e^2, delta |e| - 0.5 delta^2), axis=-1)`, `e = y_pred -
    y_true`, everything cast to `floatx()` first."""
    floatx = backend.floatx()
    y_pred = math_ops.cast(y_pred, floatx)
    y_true = math_ops.cast(y_true, floatx)
    delta = math_ops.cast(delta, floatx)
    error = math_ops.subtract(y_pred, y_true)
    abs_error = math_ops.abs(error)
    half = tensor_conversion.convert_to_tensor(0.5, dtype=abs_error.dtype)
    quadratic = math_ops.multiply(half, unary_ops.square(error))
    linear = math_ops.subtract(math_ops.multiply(delta, abs_error),
                               math_ops.multiply(half, unary_ops.square(delta)))
    return reduction_ops.reduce_mean(
        indexing_ops.where(math_ops.less_equal(abs_error, delta), quadratic, linear), -1)


def log_cosh(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(x + softplus(-2 x) - log(2), axis=-1)`, `x = y_pred - y_true`.

    As tf_keras, `log(2)` is computed in float32 and then cast to the input dtype (so float64
    uses float32's `log(2)`).
    """
    y_true, y_pred = _prepare(y_true, y_pred)
    x = math_ops.subtract(y_pred, y_true)
    log2 = math_ops.cast(unary_ops.log(tensor_conversion.convert_to_tensor(2.0)), x.dtype)
    value = math_ops.subtract(
        math_ops.add(x, unary_math_ops.softplus(math_ops.multiply(-2.0, x))), log2)
    return reduction_ops.reduce_mean(value, -1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> torch.Tensor:
    """`-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`: -1 for aligned vectors,
    0 when either is zero."""
    y_true = normalization_ops.l2_normalize(y_true, axis=axis)
    y_pred = normalization_ops.l2_normalize(y_pred, axis=axis)
    return math_ops.negative(reduction_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis))


class MeanSquaredError(LossFunctionWrapper):
    """`tf.keras.losses.MeanSquaredError`: `mean(square(y_true - y_pred))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "mean_squared_error") -> None:
        super().__init__(mean_squared_error, name=name, reduction=reduction)


class MeanAbsoluteError(LossFunctionWrapper):
    """`tf.keras.losses.MeanAbsoluteError`: `mean(abs(y_true - y_pred))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "mean_absolute_error") -> None:
        super().__init__(mean_absolute_error, name=name, reduction=reduction)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """`tf.keras.losses.MeanAbsolutePercentageError`: `100 * mean(|y_true - y_pred| /
    max(|y_true|, eps))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "mean_absolute_percentage_error") -> None:
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """`tf.keras.losses.MeanSquaredLogarithmicError`: `mean(square(log1p(y_pred) -
    log1p(y_true)))` with both clipped below at epsilon."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "mean_squared_logarithmic_error") -> None:
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction)


class Huber(LossFunctionWrapper):
    """`tf.keras.losses.Huber(delta=1.0)`: quadratic within `delta`, linear beyond."""

    def __init__(self, delta: float = 1.0, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "huber_loss") -> None:
        super().__init__(huber, name=name, reduction=reduction, delta=delta)


class LogCosh(LossFunctionWrapper):
    """`tf.keras.losses.LogCosh`: `mean(log(cosh(y_pred - y_true)))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO, name: Optional[str] = "log_cosh") -> None:
        super().__init__(log_cosh, name=name, reduction=reduction)


class CosineSimilarity(LossFunctionWrapper):
    """`tf.keras.losses.CosineSimilarity(axis=-1)`: the negated cosine similarity."""

    def __init__(self, axis: int = -1, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "cosine_similarity") -> None:
        super().__init__(cosine_similarity, reduction=reduction, name=name, axis=axis)
