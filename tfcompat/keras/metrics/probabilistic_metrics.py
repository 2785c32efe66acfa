"""Probabilistic metrics (tf_keras 2.21's `probabilistic_metrics.py`): the weighted means
of the losses package's crossentropies, KL divergence and Poisson loss per sample."""

from __future__ import annotations

from typing import Any, Optional

from ..losses.probabilistic import (binary_crossentropy, categorical_crossentropy,
                                    kl_divergence, poisson, sparse_categorical_crossentropy)
from ..saving import serialization
from .base_metric import MeanMetricWrapper

__all__ = ["Poisson", "KLDivergence", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy"]


@serialization.keras_export("keras.metrics.Poisson")
class Poisson(MeanMetricWrapper):
    """`tf.keras.metrics.Poisson`: the mean of `y_pred - y_true * log(y_pred + eps)`."""

    def __init__(self, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(poisson, name, dtype=dtype)


@serialization.keras_export("keras.metrics.KLDivergence")
class KLDivergence(MeanMetricWrapper):
    """`tf.keras.metrics.KLDivergence`: the mean of `sum(y_true * log(y_true / y_pred))`."""

    def __init__(self, name: str = "kullback_leibler_divergence", dtype: Any = None) -> None:
        super().__init__(kl_divergence, name, dtype=dtype)


@serialization.keras_export("keras.metrics.BinaryCrossentropy")
class BinaryCrossentropy(MeanMetricWrapper):
    """`tf.keras.metrics.BinaryCrossentropy`: the mean binary crossentropy."""

    def __init__(self, name: str = "binary_crossentropy", dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0) -> None:
        super().__init__(binary_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


@serialization.keras_export("keras.metrics.CategoricalCrossentropy")
class CategoricalCrossentropy(MeanMetricWrapper):
    """`tf.keras.metrics.CategoricalCrossentropy`: the mean categorical crossentropy."""

    def __init__(self, name: str = "categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False, label_smoothing: float = 0, axis: int = -1) -> None:
        super().__init__(categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


@serialization.keras_export("keras.metrics.SparseCategoricalCrossentropy")
class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """`tf.keras.metrics.SparseCategoricalCrossentropy`: the mean sparse categorical
    crossentropy (`ignore_class` labels masked out of the mean)."""

    def __init__(self, name: str = "sparse_categorical_crossentropy", dtype: Any = None,
                 from_logits: bool = False, ignore_class: Optional[int] = None,
                 axis: int = -1) -> None:
        super().__init__(sparse_categorical_crossentropy, name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
