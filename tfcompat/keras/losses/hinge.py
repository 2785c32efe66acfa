"""Hinge losses for "maximum-margin" classification (tf_keras's formulas).

`hinge` and `squared_hinge` take labels in {-1, 1}; labels that are all 0 or 1 are mapped
to {-1, 1} first (`2 t - 1`), as tf_keras does, decided over the whole tensor.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import tensor_conversion
from ...ops import math_ops, reduction_ops, unary_ops
from .loss import LossFunctionWrapper, ReductionV2

__all__ = ["hinge", "squared_hinge", "categorical_hinge", "Hinge", "SquaredHinge",
           "CategoricalHinge"]


def _maybe_convert_labels(y_true: torch.Tensor) -> torch.Tensor:
    is_binary = bool(reduction_ops.reduce_all(math_ops.logical_or(
        math_ops.equal(y_true, 0), math_ops.equal(y_true, 1))))
    if is_binary:
        return math_ops.subtract(math_ops.multiply(2.0, y_true), 1.0)
    return y_true


def _prepare(y_true: Any, y_pred: Any) -> tuple:
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    return _maybe_convert_labels(math_ops.cast(y_true, y_pred.dtype)), y_pred


def hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(maximum(1 - y_true * y_pred, 0), axis=-1)`."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction_ops.reduce_mean(
        math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0), -1)


def squared_hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return reduction_ops.reduce_mean(unary_ops.square(
        math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0)), -1)


def categorical_hinge(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`maximum(neg - pos + 1, 0)`: `pos = sum(t p)`, `neg = max((1 - t) p)` over the last
    axis (one-hot labels)."""
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    pos = reduction_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=-1)
    neg = reduction_ops.reduce_max(
        math_ops.multiply(math_ops.subtract(1.0, y_true), y_pred), axis=-1)
    zero = math_ops.cast(0.0, y_pred.dtype)
    return math_ops.maximum(math_ops.add(math_ops.subtract(neg, pos), 1.0), zero)


class Hinge(LossFunctionWrapper):
    """`tf.keras.losses.Hinge`: `mean(maximum(1 - y_true * y_pred, 0))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO, name: Optional[str] = "hinge") -> None:
        super().__init__(hinge, name=name, reduction=reduction)


class SquaredHinge(LossFunctionWrapper):
    """`tf.keras.losses.SquaredHinge`: `mean(square(maximum(1 - y_true * y_pred, 0)))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "squared_hinge") -> None:
        super().__init__(squared_hinge, name=name, reduction=reduction)


class CategoricalHinge(LossFunctionWrapper):
    """`tf.keras.losses.CategoricalHinge`: `maximum(neg - pos + 1, 0)`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "categorical_hinge") -> None:
        super().__init__(categorical_hinge, name=name, reduction=reduction)
