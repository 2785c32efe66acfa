"""Hinge metrics (tf_keras 2.21's `hinge_metrics.py`): the weighted means of the losses
package's hinge, squared hinge and categorical hinge per sample."""

from __future__ import annotations

from typing import Any

from ..losses.hinge import categorical_hinge, hinge, squared_hinge
from ..saving import serialization
from .base_metric import MeanMetricWrapper

__all__ = ["Hinge", "SquaredHinge", "CategoricalHinge"]


@serialization.keras_export("keras.metrics.Hinge")
class Hinge(MeanMetricWrapper):
    """`tf.keras.metrics.Hinge`: the mean of `max(1 - y_true * y_pred, 0)` (0/1 labels
    become -1/1)."""

    def __init__(self, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(hinge, name, dtype=dtype)


@serialization.keras_export("keras.metrics.SquaredHinge")
class SquaredHinge(MeanMetricWrapper):
    """`tf.keras.metrics.SquaredHinge`: the mean of `max(1 - y_true * y_pred, 0)^2`."""

    def __init__(self, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(squared_hinge, name, dtype=dtype)


@serialization.keras_export("keras.metrics.CategoricalHinge")
class CategoricalHinge(MeanMetricWrapper):
    """`tf.keras.metrics.CategoricalHinge`: the mean of `max(neg - pos + 1, 0)`."""

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(categorical_hinge, name, dtype=dtype)
