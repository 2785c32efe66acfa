"""The accuracy metrics (tf_keras 2.21's `accuracy_metrics.py` and its match helpers).

Each class is a `MeanMetricWrapper` over a per-sample match function (1.0 match, 0.0 not,
in `floatx`):

* `accuracy`: `y_true == y_pred` after casting `y_pred` to `y_true`'s dtype;
* `binary_matches`: `y_true == (y_pred > threshold)` (strictly greater, as tf_keras);
  `binary_accuracy` averages it over the last axis;
* `sparse_categorical_matches`: `y_true == argmax(y_pred, -1)` (ties: the first maximum,
  as TF's `argmax`); a `y_true` of `y_pred`'s rank loses its last axis first and the
  matches take `y_true`'s shape back; `categorical_accuracy` is it over `argmax(y_true)`;
* `sparse_top_k_categorical_matches`: `tf.math.in_top_k` (a tie with the k-th value counts
  as in), predictions flattened to `[-1, classes]`, labels to `[-1]` and back.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import dtypes
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import array_ops, counting_ops, math_ops, reduction_ops
from .. import backend
from ..saving import serialization
from .base_metric import MeanMetricWrapper

__all__ = [
    "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
    "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy", "accuracy", "binary_accuracy",
    "categorical_accuracy", "sparse_categorical_accuracy", "top_k_categorical_accuracy",
    "sparse_top_k_categorical_accuracy", "binary_matches", "sparse_categorical_matches",
    "sparse_top_k_categorical_matches",
]


def _tensor(x: Any) -> torch.Tensor:
    return convert_to_tensor(x)


def _assert_compatible(a: torch.Tensor, b: torch.Tensor) -> None:
    if a.dim() != b.dim() or any(x != y for x, y in zip(a.shape, b.shape)):
        raise ValueError(f"Shapes {_shape_str(a)} and {_shape_str(b)} are incompatible")


def _shape_str(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ("," if t.dim() == 1 else "") + ")"


def binary_matches(y_true: Any, y_pred: Any, threshold: Any = 0.5) -> torch.Tensor:
    """1.0 where `y_true == (y_pred > threshold)`, else 0.0 (floatx)."""
    y_pred = _tensor(y_pred)
    threshold = math_ops.cast(threshold, y_pred.dtype)
    y_pred = math_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), backend.floatx())


def sparse_categorical_matches(y_true: Any, y_pred: Any) -> torch.Tensor:
    """1.0 where the integer label equals `argmax(y_pred, -1)`, else 0.0 (floatx)."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
    if (y_pred.dim() >= 1 and y_pred.is_floating_point()
            and (y_true.is_floating_point() or y_true.dtype in (torch.int32, torch.int64))
            and y_true.dim() in (y_pred.dim(), y_pred.dim() - 1)
            and (y_true.dim() < y_pred.dim() or y_true.shape[-1] == 1)):
        # The common call (labels as ints, or as floats once MeanMetricWrapper has cast them;
        # float scores): TF's ArgMax (NaN never wins, its errors), then the cast to the labels'
        # dtype, the comparison and the 0/1 cast in torch -- the same values as below.
        labels = y_true.squeeze(-1) if y_true.dim() == y_pred.dim() else y_true
        predicted = reduction_ops.argmax(y_pred, axis=-1)
        matches = torch.eq(labels, predicted.to(labels.dtype)).to(
            dtypes.to_torch(backend.floatx()))
        return matches.reshape(y_true.shape)
    y_true_org_shape = tuple(y_true.shape)
    reshape_matches = False
    if y_true.dim() == y_pred.dim():
        y_true = array_ops.squeeze(y_true, [-1])
        reshape_matches = True
    y_pred = reduction_ops.argmax(y_pred, axis=-1)
    if y_pred.dtype != y_true.dtype:
        y_pred = math_ops.cast(y_pred, dtypes.as_dtype(y_true.dtype))
    matches = math_ops.cast(math_ops.equal(y_true, y_pred), backend.floatx())
    if reshape_matches:
        matches = array_ops.reshape(matches, y_true_org_shape)
    return matches


def sparse_top_k_categorical_matches(y_true: Any, y_pred: Any, k: int = 5) -> torch.Tensor:
    """1.0 where the integer label is among the top `k` predictions (`in_top_k`)."""
    y_true = _tensor(y_true)
    y_pred = _tensor(y_pred)
    y_true_org_shape = tuple(y_true.shape)
    reshape_matches = False
    if y_pred.dim() > 2:
        y_pred = array_ops.reshape(y_pred, [-1, y_pred.shape[-1]])
    if y_true.dim() > 1:
        reshape_matches = True
        y_true = array_ops.reshape(y_true, [-1])
    matches = math_ops.cast(
        counting_ops.in_top_k(predictions=y_pred, targets=math_ops.cast(y_true, "int32"), k=k),
        backend.floatx())
    if reshape_matches:
        return array_ops.reshape(matches, y_true_org_shape)
    return matches


def accuracy(y_true: Any, y_pred: Any) -> torch.Tensor:
    """1.0 where `y_true == y_pred` (same shape; `y_pred` cast to `y_true`'s dtype)."""
    y_pred = _tensor(y_pred)
    y_true = _tensor(y_true)
    _assert_compatible(y_true, y_pred)
    if y_true.dtype != y_pred.dtype:
        y_pred = math_ops.cast(y_pred, dtypes.as_dtype(y_true.dtype))
    return math_ops.cast(math_ops.equal(y_true, y_pred), backend.floatx())


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> torch.Tensor:
    """`tf.keras.metrics.binary_accuracy`: the mean of `binary_matches` over the last axis."""
    return reduction_ops.reduce_mean(binary_matches(y_true, y_pred, threshold), axis=-1)


def categorical_accuracy(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`tf.keras.metrics.categorical_accuracy`: `argmax(y_true) == argmax(y_pred)`."""
    return sparse_categorical_matches(reduction_ops.argmax(y_true, axis=-1), y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`tf.keras.metrics.sparse_categorical_accuracy` (a trailing size-1 axis dropped)."""
    matches = sparse_categorical_matches(y_true, y_pred)
    if matches.dim() > 1 and matches.shape[-1] == 1:
        matches = array_ops.squeeze(matches, [-1])
    return matches


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> torch.Tensor:
    """`tf.keras.metrics.top_k_categorical_accuracy`: `argmax(y_true)` in the top `k`."""
    return sparse_top_k_categorical_matches(reduction_ops.argmax(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> torch.Tensor:
    """`tf.keras.metrics.sparse_top_k_categorical_accuracy`."""
    return sparse_top_k_categorical_matches(y_true, y_pred, k)


def _categorical_matches(y_true: Any, y_pred: Any) -> torch.Tensor:
    return sparse_categorical_matches(reduction_ops.argmax(y_true, axis=-1), y_pred)


def _top_k_matches(yt: Any, yp: Any, k: int) -> torch.Tensor:
    return sparse_top_k_categorical_matches(reduction_ops.argmax(yt, axis=-1), yp, k)


@serialization.keras_export("keras.metrics.Accuracy")
class Accuracy(MeanMetricWrapper):
    """`tf.keras.metrics.Accuracy`: how often `y_pred` equals `y_true`."""

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name, dtype=dtype)


@serialization.keras_export("keras.metrics.BinaryAccuracy")
class BinaryAccuracy(MeanMetricWrapper):
    """`tf.keras.metrics.BinaryAccuracy`: how often `y_pred > threshold` equals `y_true`."""

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None,
                 threshold: float = 0.5) -> None:
        super().__init__(binary_matches, name, dtype=dtype, threshold=threshold)


@serialization.keras_export("keras.metrics.CategoricalAccuracy")
class CategoricalAccuracy(MeanMetricWrapper):
    """`tf.keras.metrics.CategoricalAccuracy`: `argmax(y_true) == argmax(y_pred)`."""

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(_categorical_matches, name, dtype=dtype)


@serialization.keras_export("keras.metrics.SparseCategoricalAccuracy")
class SparseCategoricalAccuracy(MeanMetricWrapper):
    """`tf.keras.metrics.SparseCategoricalAccuracy`: integer labels vs `argmax(y_pred)`."""

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_matches, name, dtype=dtype)


@serialization.keras_export("keras.metrics.TopKCategoricalAccuracy")
class TopKCategoricalAccuracy(MeanMetricWrapper):
    """`tf.keras.metrics.TopKCategoricalAccuracy`: `argmax(y_true)` in the top `k`."""

    def __init__(self, k: int = 5, name: str = "top_k_categorical_accuracy",
                 dtype: Any = None) -> None:
        super().__init__(_top_k_matches, name, dtype=dtype, k=k)


@serialization.keras_export("keras.metrics.SparseTopKCategoricalAccuracy")
class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """`tf.keras.metrics.SparseTopKCategoricalAccuracy`: integer labels in the top `k`."""

    def __init__(self, k: int = 5, name: str = "sparse_top_k_categorical_accuracy",
                 dtype: Optional[Any] = None) -> None:
        super().__init__(sparse_top_k_categorical_matches, name, dtype=dtype, k=k)
