"""Intersection-over-union metrics (tf_keras 2.21's `iou_metrics.py`).

State: `total_confusion_matrix` `[num_classes, num_classes]` (rows true class, columns
predicted class, `tf.math.confusion_matrix` of the flattened labels, weighted); labels equal
to `ignore_class` drop out. `IoU` = TP / (TP + FP + FN) per class, averaged over the
`target_class_ids` whose denominator is not 0. One-hot inputs (`sparse_y_true=False` /
`sparse_y_pred=False`) are argmax-ed along `axis` first; `BinaryIoU` thresholds `y_pred`
at `threshold` (`>=`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch

from ...framework.tensor_conversion import convert_to_tensor
from ...ops import counting_ops, math_ops, reduction_ops
from ...ops.binary_math_ops import divide_no_nan
from ..saving import serialization
from .base_metric import Metric, _cast

__all__ = ["IoU", "BinaryIoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]


class _IoUBase(Metric):
    """The confusion-matrix state and update shared by the IoU metrics."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        shape=(num_classes, num_classes), initializer="zeros")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Add the (weighted) confusion matrix of this batch."""
        if not self.sparse_y_true:
            y_true = reduction_ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = reduction_ops.argmax(y_pred, axis=self.axis)
        y_true = _cast(y_true, self._dtype)
        y_pred = _cast(y_pred, self._dtype)
        if y_pred.dim() > 1:
            y_pred = y_pred.reshape(-1)
        if y_true.dim() > 1:
            y_true = y_true.reshape(-1)
        if sample_weight is not None:
            sample_weight = _cast(sample_weight, self._dtype)
            if sample_weight.dim() > 1:
                sample_weight = sample_weight.reshape(-1)
        if self.ignore_class is not None:
            valid = y_true != torch.tensor(self.ignore_class, dtype=y_true.dtype)
            y_true, y_pred = y_true[valid], y_pred[valid]
            if sample_weight is not None:
                sample_weight = sample_weight[valid]
        current_cm = counting_ops.confusion_matrix(y_true, y_pred, self.num_classes,
                                                   weights=sample_weight, dtype=self._dtype)
        return self.total_cm.assign_add(current_cm)

    def reset_state(self) -> None:
        self.total_cm.assign(torch.zeros((self.num_classes, self.num_classes),
                                         dtype=convert_to_tensor(self.total_cm).dtype),
                             read_value=False)


@serialization.keras_export("keras.metrics.IoU")
class IoU(_IoUBase):
    """`tf.keras.metrics.IoU`: the mean IoU over `target_class_ids`."""

    def __init__(self, num_classes: int, target_class_ids: Sequence[int],
                 name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, num_classes=num_classes, ignore_class=ignore_class,
                         sparse_y_true=sparse_y_true, sparse_y_pred=sparse_y_pred, axis=axis,
                         dtype=dtype)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which "
                             f"is [{0}, {num_classes}).")
        self.target_class_ids = list(target_class_ids)

    def result(self) -> torch.Tensor:
        cm = convert_to_tensor(self.total_cm)
        sum_over_row = cm.sum(dim=0)
        sum_over_col = cm.sum(dim=1)
        true_positives = torch.diagonal(cm)
        denominator = sum_over_row + sum_over_col - true_positives
        ids = torch.tensor(self.target_class_ids, dtype=torch.int64, device=cm.device)
        true_positives = true_positives[ids]
        denominator = denominator[ids]
        num_valid_entries = (denominator != 0).to(cm.dtype).sum()
        iou = divide_no_nan(true_positives, denominator)
        return divide_no_nan(iou.sum(), num_valid_entries)

    def get_config(self) -> dict:
        config = {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                  "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                  "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@serialization.keras_export("keras.metrics.BinaryIoU")
class BinaryIoU(IoU):
    """`tf.keras.metrics.BinaryIoU`: IoU of the two classes, `y_pred >= threshold`
    predicting class 1."""

    def __init__(self, target_class_ids: Sequence[int] = (0, 1), threshold: float = 0.5,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name,
                         dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_pred = _cast(y_pred, self._dtype)
        y_pred = math_ops.cast(y_pred >= torch.tensor(self.threshold, dtype=y_pred.dtype),
                               self._dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict:
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self._dtype}


@serialization.keras_export("keras.metrics.MeanIoU")
class MeanIoU(IoU):
    """`tf.keras.metrics.MeanIoU`: the mean IoU over every class."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, num_classes=num_classes,
                         target_class_ids=list(range(num_classes)), axis=axis, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@serialization.keras_export("keras.metrics.OneHotIoU")
class OneHotIoU(IoU):
    """`tf.keras.metrics.OneHotIoU`: `IoU` with one-hot `y_true` (and `y_pred` unless
    `sparse_y_pred`)."""

    def __init__(self, num_classes: int, target_class_ids: Sequence[int],
                 name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, target_class_ids=target_class_ids, name=name,
                         dtype=dtype, ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self._dtype, "ignore_class": self.ignore_class,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


@serialization.keras_export("keras.metrics.OneHotMeanIoU")
class OneHotMeanIoU(MeanIoU):
    """`tf.keras.metrics.OneHotMeanIoU`: `MeanIoU` with one-hot `y_true`."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes=num_classes, axis=axis, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred)

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "name": self.name, "dtype": self._dtype,
                "ignore_class": self.ignore_class, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}
