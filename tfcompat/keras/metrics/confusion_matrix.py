"""Confusion-matrix accumulation at thresholds (tf_keras's `metrics_utils` for TP/FP/TN/FN).

`update_confusion_matrix_variables` adds to the given `tp`/`fp`/`tn`/`fn` variables, for each
threshold `t`, the weighted count of (label, `y_pred > t`) pairs, as tf_keras:

* `y_true`/`y_pred` are cast to the variables' dtype and rank-aligned
  (`squeeze_or_expand_dimensions`, with the sample weight); their shapes must then agree
  (TF's `ValueError` "Shapes ... are incompatible");
* `top_k` keeps the `k` largest predictions of the last axis (the rest become `-1e10`),
  `class_id` keeps one column;
* the sample weight is broadcast to `y_pred` (TF's `broadcast_weights`), `label_weights`
  (one per label) likewise;
* without `multi_label` everything is flattened: one count per threshold; with it, one per
  threshold and label (`[thresholds, labels]`).

Evenly spaced thresholds (AUC's default) take tf_keras's bucket path: each prediction
(clipped to [0, 1]) falls in bucket `ceil(p * (T - 1)) - 1`, the buckets' weighted labels
are summed (`unsorted_segment_sum`: a negative bucket drops out) and accumulated from the
top (`cumsum(reverse=True)`), so `tp[i]` counts `p > thresholds[i]` in O(T + N).
"""

from __future__ import annotations

import enum
from typing import Any, Dict, Optional, Sequence

import numpy as np
import torch

from ...framework import dtypes
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import array_ops, clip_ops, math_ops, reduction_ops, sort_ops
from .. import backend
from ..losses import loss as losses_utils
from .weighting import broadcast_weights

__all__ = [
    "NEG_INF", "ConfusionMatrix", "AUCCurve", "AUCSummationMethod", "assert_thresholds_range",
    "parse_init_thresholds", "is_evenly_distributed_thresholds",
    "update_confusion_matrix_variables", "filter_top_k", "to_list",
]

NEG_INF = -1e10


class ConfusionMatrix(enum.Enum):
    TRUE_POSITIVES = "tp"
    FALSE_POSITIVES = "fp"
    TRUE_NEGATIVES = "tn"
    FALSE_NEGATIVES = "fn"


class AUCCurve(enum.Enum):
    """The curve under which `AUC` integrates: `ROC`, `PR` or `PR_GAIN`."""

    ROC = "ROC"
    PR = "PR"
    PR_GAIN = "PR_GAIN"

    @staticmethod
    def from_str(key: str) -> "AUCCurve":
        if key in ("pr", "PR"):
            return AUCCurve.PR
        if key in ("roc", "ROC"):
            return AUCCurve.ROC
        if key in ("pr_gain", "prgain", "PR_GAIN", "PRGAIN"):
            return AUCCurve.PR_GAIN
        raise ValueError(f'Invalid AUC curve value: "{key}". Expected values are '
                         '["PR", "ROC", "PR_GAIN"]')


class AUCSummationMethod(enum.Enum):
    """How `AUC` sums the curve: `interpolation` (trapezoids; for PR, Davis & Goadrich's
    interpolation of the counts), `minoring` or `majoring` (the lower / upper rectangles)."""

    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"

    @staticmethod
    def from_str(key: str) -> "AUCSummationMethod":
        if key in ("interpolation", "Interpolation"):
            return AUCSummationMethod.INTERPOLATION
        if key in ("majoring", "Majoring"):
            return AUCSummationMethod.MAJORING
        if key in ("minoring", "Minoring"):
            return AUCSummationMethod.MINORING
        raise ValueError(f'Invalid AUC summation method value: "{key}". Expected values are '
                         '["interpolation", "majoring", "minoring"]')


def to_list(x: Any) -> list:
    if isinstance(x, list):
        return x
    if isinstance(x, tuple):
        return list(x)
    return [x]


def assert_thresholds_range(thresholds: Optional[Sequence]) -> None:
    if thresholds is not None:
        invalid = [t for t in thresholds if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")


def parse_init_thresholds(thresholds: Any, default_threshold: float = 0.5) -> list:
    if thresholds is not None:
        assert_thresholds_range(to_list(thresholds))
    return to_list(default_threshold if thresholds is None else thresholds)


def is_evenly_distributed_thresholds(thresholds: Any) -> bool:
    """Whether `thresholds` are `i / (n - 1)` for `i < n` (n >= 3), to `epsilon()`."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=backend.epsilon()))


def filter_top_k(x: torch.Tensor, k: int) -> torch.Tensor:
    """`x` with all but the `k` largest entries of the last axis set to `NEG_INF`."""
    _, idx = sort_ops.top_k(x, k, sorted=False)
    mask = torch.zeros_like(x).scatter_(-1, idx.to(torch.int64), 1.0)
    return x * mask + NEG_INF * (1 - mask)


def _shape_str(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ("," if t.dim() == 1 else "") + ")"


def update_confusion_matrix_variables(variables_to_update: Optional[Dict[ConfusionMatrix, Any]],
                                      y_true: Any, y_pred: Any, thresholds: Any,
                                      top_k: Optional[int] = None,
                                      class_id: Optional[int] = None,
                                      sample_weight: Any = None, multi_label: bool = False,
                                      label_weights: Any = None,
                                      thresholds_distributed_evenly: bool = False) -> None:
    """Add the weighted TP/FP/TN/FN counts at each threshold to `variables_to_update`
    (keys `ConfusionMatrix`); see the module docstring for tf_keras's rules."""
    if multi_label and label_weights is not None:
        raise ValueError("`label_weights` for multilabel data should be handled outside of "
                         "`update_confusion_matrix_variables` when `multi_label` is True.")
    if variables_to_update is None:
        return
    if not any(key for key in variables_to_update if key in list(ConfusionMatrix)):
        raise ValueError(
            "Please provide at least one valid confusion matrix variable to update. Valid "
            f'variable key options are: "{list(ConfusionMatrix)}". Received: '
            f'"{variables_to_update.keys()}"')
    invalid_keys = [key for key in variables_to_update if key not in list(ConfusionMatrix)]
    if invalid_keys:
        raise ValueError(f'Invalid keys: "{invalid_keys}". Valid variable key options are: '
                         f'"{list(ConfusionMatrix)}"')
    variable_dtype = dtypes.as_dtype(list(variables_to_update.values())[0].dtype)
    y_true = math_ops.cast(convert_to_tensor(y_true), variable_dtype)
    y_pred = math_ops.cast(convert_to_tensor(y_pred), variable_dtype)
    thresholds_with_epsilon = False
    if thresholds_distributed_evenly:
        thresholds_with_epsilon = bool(thresholds[0] < 0.0 or thresholds[-1] > 1.0)
    thresholds = convert_to_tensor(np.asarray(thresholds), dtype=variable_dtype)
    if sample_weight is None:
        y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
    else:
        sample_weight = math_ops.cast(convert_to_tensor(sample_weight), variable_dtype)
        y_pred, y_true, sample_weight = losses_utils.squeeze_or_expand_dimensions(
            y_pred, y_true, sample_weight=sample_weight)
    if tuple(y_pred.shape) != tuple(y_true.shape):
        raise ValueError(f"Shapes {_shape_str(y_pred)} and {_shape_str(y_true)} are "
                         "incompatible")
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id, None]
        y_pred = y_pred[..., class_id, None]
    if label_weights is not None:
        label_weights = convert_to_tensor(label_weights)
    if thresholds_distributed_evenly:
        _update_by_buckets(variables_to_update, y_true, y_pred, thresholds, multi_label,
                           sample_weight, label_weights, thresholds_with_epsilon)
        return
    _update_by_comparison(variables_to_update, y_true, y_pred, thresholds, multi_label,
                          sample_weight, label_weights)


def _update_by_comparison(variables: dict, y_true: torch.Tensor, y_pred: torch.Tensor,
                          thresholds: torch.Tensor, multi_label: bool, sample_weight: Any,
                          label_weights: Any) -> None:
    """Every prediction against every threshold: `[T, N]` (or `[T, N, L]`) comparisons."""
    if multi_label:
        preds = y_pred.unsqueeze(0)
        labels = y_true.to(torch.bool).unsqueeze(0)
        thresh = thresholds.reshape(-1, *([1] * y_pred.dim()))
    else:
        preds = y_pred.reshape(1, -1)
        labels = y_true.to(torch.bool).reshape(1, -1)
        thresh = thresholds.reshape(-1, 1)
    pred_is_pos = preds > thresh
    weights = None
    if sample_weight is not None:
        weights = broadcast_weights(sample_weight, y_pred).reshape(preds.shape)
    if label_weights is not None and not multi_label:
        lw = broadcast_weights(array_ops.expand_dims(label_weights, 0), y_pred)
        lw = lw.reshape(preds.shape)
        weights = lw if weights is None else math_ops.multiply(weights, lw)
    need_fn = ConfusionMatrix.FALSE_NEGATIVES in variables
    need_fp = ConfusionMatrix.FALSE_POSITIVES in variables
    need_tn = ConfusionMatrix.TRUE_NEGATIVES in variables
    conditions = {ConfusionMatrix.TRUE_POSITIVES: lambda: labels & pred_is_pos}
    if need_fn or need_tn:
        conditions[ConfusionMatrix.FALSE_NEGATIVES] = lambda: labels & ~pred_is_pos
    if need_fp or need_tn:
        conditions[ConfusionMatrix.FALSE_POSITIVES] = lambda: ~labels & pred_is_pos
        conditions[ConfusionMatrix.TRUE_NEGATIVES] = lambda: ~labels & ~pred_is_pos
    for key, condition in conditions.items():
        if key not in variables:
            continue
        var = variables[key]
        counts = condition().to(dtypes.to_torch(var.dtype))
        if weights is not None:
            counts = counts * weights.to(counts.dtype)
        var.assign_add(reduction_ops.reduce_sum(counts, axis=1))


def _update_by_buckets(variables: dict, y_true: torch.Tensor, y_pred: torch.Tensor,
                       thresholds: torch.Tensor, multi_label: bool, sample_weights: Any,
                       label_weights: Any, thresholds_with_epsilon: bool) -> None:
    """tf_keras's `_update_confusion_matrix_variables_optimized`."""
    num_thresholds = thresholds.shape[0]
    if sample_weights is None:
        sample_weights = 1.0
    else:
        sample_weights = broadcast_weights(math_ops.cast(sample_weights, y_pred.dtype), y_pred)
        if not multi_label:
            sample_weights = sample_weights.reshape(-1)
    if label_weights is None:
        label_weights = 1.0
    else:
        label_weights = broadcast_weights(array_ops.expand_dims(label_weights, 0), y_pred)
        if not multi_label:
            label_weights = label_weights.reshape(-1)
    weights = math_ops.cast(math_ops.multiply(sample_weights, label_weights),
                            dtypes.as_dtype(y_true.dtype))
    y_pred = clip_ops.clip_by_value(y_pred, 0.0, 1.0)
    y_true = y_true.to(torch.bool).to(y_true.dtype)
    if not multi_label:
        y_true = y_true.reshape(-1)
        y_pred = y_pred.reshape(-1)
    true_labels = y_true * weights
    false_labels = (1.0 - y_true) * weights
    buckets = torch.ceil(y_pred * (num_thresholds - 1)) - 1
    if thresholds_with_epsilon:
        buckets = torch.relu(buckets)
    buckets = buckets.to(torch.int64)
    if multi_label:
        # [N, L] -> per label: segment ids offset by label * T, summed in one pass
        true_labels = true_labels.transpose(0, 1)
        false_labels = false_labels.transpose(0, 1)
        buckets = buckets.transpose(0, 1)
        num_labels = buckets.shape[0]
        offsets = torch.arange(num_labels, device=buckets.device).unsqueeze(1) * num_thresholds
        tp_buckets = _segment_sum(true_labels, buckets, offsets, num_labels * num_thresholds)
        fp_buckets = _segment_sum(false_labels, buckets, offsets, num_labels * num_thresholds)
        tp_buckets = tp_buckets.reshape(num_labels, num_thresholds)
        fp_buckets = fp_buckets.reshape(num_labels, num_thresholds)
        tp = reduction_ops.cumsum(tp_buckets, axis=1, reverse=True).transpose(0, 1)
        fp = reduction_ops.cumsum(fp_buckets, axis=1, reverse=True).transpose(0, 1)
    else:
        tp = reduction_ops.cumsum(_segment_sum(true_labels, buckets, 0, num_thresholds),
                                  reverse=True)
        fp = reduction_ops.cumsum(_segment_sum(false_labels, buckets, 0, num_thresholds),
                                  reverse=True)
    if ConfusionMatrix.TRUE_NEGATIVES in variables or ConfusionMatrix.FALSE_NEGATIVES in variables:
        axis = 1 if multi_label else None
        total_true = reduction_ops.reduce_sum(true_labels, axis=axis)
        total_false = reduction_ops.reduce_sum(false_labels, axis=axis)
    if ConfusionMatrix.TRUE_POSITIVES in variables:
        variables[ConfusionMatrix.TRUE_POSITIVES].assign_add(tp)
    if ConfusionMatrix.FALSE_POSITIVES in variables:
        variables[ConfusionMatrix.FALSE_POSITIVES].assign_add(fp)
    if ConfusionMatrix.TRUE_NEGATIVES in variables:
        variables[ConfusionMatrix.TRUE_NEGATIVES].assign_add(total_false - fp)
    if ConfusionMatrix.FALSE_NEGATIVES in variables:
        variables[ConfusionMatrix.FALSE_NEGATIVES].assign_add(total_true - tp)


def _segment_sum(data: torch.Tensor, ids: torch.Tensor, offsets: Any,
                 num_segments: int) -> torch.Tensor:
    """`unsorted_segment_sum` with negative ids dropped (TF's rule), ids offset per row."""
    valid = ids >= 0
    flat_ids = (ids + offsets)[valid]
    data = torch.broadcast_to(data, ids.shape)[valid]
    out = torch.zeros(num_segments, dtype=data.dtype, device=data.device)
    return out.index_add_(0, flat_ids, data)
