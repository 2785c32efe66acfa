"""Metrics over the confusion matrix at thresholds (tf_keras 2.21's `confusion_metrics.py`).

* `TruePositives`, `FalsePositives`, `TrueNegatives`, `FalseNegatives`: weighted counts at
  each threshold (default 0.5; `y_pred > t` is positive), a scalar for one threshold;
* `Precision` = TP / (TP + FP), `Recall` = TP / (TP + FN) (`divide_no_nan`), with `top_k`
  (default threshold then `-1e10`: the top `k` count as positive) and `class_id`;
* `SensitivityAtSpecificity`, `SpecificityAtSensitivity`, `PrecisionAtRecall`,
  `RecallAtPrecision`: the best of one rate where the other reaches `value`, over
  `num_thresholds` evenly spaced thresholds in [0, 1];
* `AUC`: the area under the ROC, PR or PR-gain curve from `num_thresholds` (200) evenly
  spaced thresholds `[-eps, 1/(n-1), ..., 1+eps]` (or given ones), summed by trapezoids,
  minoring or majoring rectangles; PR with interpolation uses tf_keras's (Davis &
  Goadrich) formula; `multi_label` keeps one curve per label and averages the areas
  (weighted by `label_weights`); `from_logits` applies a sigmoid first.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np
import torch

from ...framework.tensor_conversion import convert_to_tensor
from ...ops import math_ops, unary_ops
from ...ops.binary_math_ops import divide_no_nan
from .. import backend
from ..saving import serialization
from .base_metric import Metric
from .confusion_matrix import (NEG_INF, AUCCurve, AUCSummationMethod, ConfusionMatrix,
                               is_evenly_distributed_thresholds, parse_init_thresholds,
                               to_list, update_confusion_matrix_variables)

__all__ = [
    "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives", "Precision",
    "Recall", "SensitivityAtSpecificity", "SpecificityAtSensitivity", "PrecisionAtRecall",
    "RecallAtPrecision", "AUC",
]


def _t(v: Any) -> torch.Tensor:
    return convert_to_tensor(v)


def _zero(variables: Sequence[Any]) -> None:
    for v in variables:
        v.assign(torch.zeros(tuple(v.shape), dtype=_t(v).dtype), read_value=False)


class _ConfusionMatrixConditionCount(Metric):
    """One confusion-matrix cell, counted at each threshold."""

    def __init__(self, confusion_matrix_cond: ConfusionMatrix, thresholds: Any = None,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._confusion_matrix_cond = confusion_matrix_cond
        self.init_thresholds = thresholds
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=0.5)
        self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(self.thresholds)
        self.accumulator = self.add_weight("accumulator", shape=(len(self.thresholds),),
                                           initializer="zeros")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the weighted count of this cell at each threshold."""
        update_confusion_matrix_variables(
            {self._confusion_matrix_cond: self.accumulator}, y_true, y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight)

    def result(self) -> torch.Tensor:
        value = _t(self.accumulator)
        return value[0] if len(self.thresholds) == 1 else value

    def reset_state(self) -> None:
        _zero(self.variables)

    def get_config(self) -> dict:
        config = {"thresholds": self.init_thresholds}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@serialization.keras_export("keras.metrics.FalsePositives")
class FalsePositives(_ConfusionMatrixConditionCount):
    """`tf.keras.metrics.FalsePositives` at `thresholds` (default 0.5)."""

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(ConfusionMatrix.FALSE_POSITIVES, thresholds=thresholds, name=name,
                         dtype=dtype)


@serialization.keras_export("keras.metrics.FalseNegatives")
class FalseNegatives(_ConfusionMatrixConditionCount):
    """`tf.keras.metrics.FalseNegatives` at `thresholds` (default 0.5)."""

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(ConfusionMatrix.FALSE_NEGATIVES, thresholds=thresholds, name=name,
                         dtype=dtype)


@serialization.keras_export("keras.metrics.TrueNegatives")
class TrueNegatives(_ConfusionMatrixConditionCount):
    """`tf.keras.metrics.TrueNegatives` at `thresholds` (default 0.5)."""

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(ConfusionMatrix.TRUE_NEGATIVES, thresholds=thresholds, name=name,
                         dtype=dtype)


@serialization.keras_export("keras.metrics.TruePositives")
class TruePositives(_ConfusionMatrixConditionCount):
    """`tf.keras.metrics.TruePositives` at `thresholds` (default 0.5)."""

    def __init__(self, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(ConfusionMatrix.TRUE_POSITIVES, thresholds=thresholds, name=name,
                         dtype=dtype)


class _PrecisionRecallBase(Metric):
    _second: ConfusionMatrix
    _second_name: str

    def __init__(self, thresholds: Any = None, top_k: Optional[int] = None,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default_threshold = 0.5 if top_k is None else NEG_INF
        self.thresholds = parse_init_thresholds(thresholds, default_threshold=default_threshold)
        self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(self.thresholds)
        self.true_positives = self.add_weight("true_positives", shape=(len(self.thresholds),),
                                              initializer="zeros")
        setattr(self, self._second_name,
                self.add_weight(self._second_name, shape=(len(self.thresholds),),
                                initializer="zeros"))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the weighted true positives and the second count at each threshold."""
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives,
             self._second: getattr(self, self._second_name)},
            y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight)

    def result(self) -> torch.Tensor:
        tp = _t(self.true_positives)
        value = divide_no_nan(tp, math_ops.add(tp, _t(getattr(self, self._second_name))))
        return value[0] if len(self.thresholds) == 1 else value

    def reset_state(self) -> None:
        _zero((self.true_positives, getattr(self, self._second_name)))

    def get_config(self) -> dict:
        config = {"thresholds": self.init_thresholds, "top_k": self.top_k,
                  "class_id": self.class_id}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@serialization.keras_export("keras.metrics.Precision")
class Precision(_PrecisionRecallBase):
    """`tf.keras.metrics.Precision`: TP / (TP + FP) at each threshold."""

    _second = ConfusionMatrix.FALSE_POSITIVES
    _second_name = "false_positives"


@serialization.keras_export("keras.metrics.Recall")
class Recall(_PrecisionRecallBase):
    """`tf.keras.metrics.Recall`: TP / (TP + FN) at each threshold."""

    _second = ConfusionMatrix.FALSE_NEGATIVES
    _second_name = "false_negatives"


class SensitivitySpecificityBase(Metric):
    """The four counts at `num_thresholds` evenly spaced thresholds in [0, 1] (one: 0.5)."""

    def __init__(self, value: float, num_thresholds: int = 200, class_id: Optional[int] = None,
                 name: Optional[str] = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        self.value = value
        self.class_id = class_id
        for var in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, var, self.add_weight(var, shape=(num_thresholds,),
                                               initializer="zeros"))
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0] + inner + [1.0]
            self._thresholds_distributed_evenly = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives,
             ConfusionMatrix.TRUE_NEGATIVES: self.true_negatives,
             ConfusionMatrix.FALSE_POSITIVES: self.false_positives,
             ConfusionMatrix.FALSE_NEGATIVES: self.false_negatives},
            y_true, y_pred, thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id, sample_weight=sample_weight)

    def reset_state(self) -> None:
        _zero((self.true_positives, self.true_negatives, self.false_positives,
               self.false_negatives))

    def get_config(self) -> dict:
        config = {"class_id": self.class_id}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))

    def _rates(self) -> dict:
        tp, tn = _t(self.true_positives), _t(self.true_negatives)
        fp, fn = _t(self.false_positives), _t(self.false_negatives)
        return {"sensitivity": divide_no_nan(tp, tp + fn),
                "specificity": divide_no_nan(tn, tn + fp),
                "precision": divide_no_nan(tp, tp + fp)}

    def _find_max_under_constraint(self, constrained: torch.Tensor, dependent: torch.Tensor
                                   ) -> torch.Tensor:
        """The largest `dependent` where `constrained >= value`, else 0."""
        feasible = constrained >= torch.tensor(self.value, dtype=constrained.dtype)
        if not bool(feasible.any()):
            return torch.zeros((), dtype=dependent.dtype)
        return dependent[feasible].max()

    @staticmethod
    def _check_range(arg: str, value: float) -> None:
        if value < 0 or value > 1:
            raise ValueError(f"Argument `{arg}` must be in the range [0, 1]. Received: "
                             f"{arg}={value}")


def _at_metric(cls_name: str, arg: str, constrained: str, dependent: str, doc: str) -> type:
    def __init__(self: Any, value: float, num_thresholds: int = 200,
                 class_id: Optional[int] = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        SensitivitySpecificityBase._check_range(arg, value)
        setattr(self, arg, value)
        self.num_thresholds = num_thresholds
        SensitivitySpecificityBase.__init__(self, value, num_thresholds=num_thresholds,
                                            class_id=class_id, name=name, dtype=dtype)

    # the constructor's first parameter carries the metric's own name (`specificity`, ...)
    import inspect
    params = list(inspect.signature(__init__).parameters.values())
    params[1] = params[1].replace(name=arg)
    signature = inspect.Signature(params)

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        values.pop("self")
        __init__(self, values.pop(arg), **values)

    init.__signature__ = signature  # type: ignore[attr-defined]

    def result(self: Any) -> torch.Tensor:
        rates = self._rates()
        return self._find_max_under_constraint(rates[constrained], rates[dependent])

    def get_config(self: Any) -> dict:
        config = {"num_thresholds": self.num_thresholds, arg: getattr(self, arg)}
        base_config = SensitivitySpecificityBase.get_config(self)
        return dict(list(base_config.items()) + list(config.items()))

    cls = type(cls_name, (SensitivitySpecificityBase,),
               {"__init__": init, "result": result, "get_config": get_config, "__doc__": doc,
                "__module__": __name__, "__qualname__": cls_name})
    return serialization.keras_export(f"keras.metrics.{cls_name}")(cls)


SensitivityAtSpecificity = _at_metric(
    "SensitivityAtSpecificity", "specificity", "specificity", "sensitivity",
    "`tf.keras.metrics.SensitivityAtSpecificity`: the best sensitivity where the "
    "specificity is >= `specificity`.")
SpecificityAtSensitivity = _at_metric(
    "SpecificityAtSensitivity", "sensitivity", "sensitivity", "specificity",
    "`tf.keras.metrics.SpecificityAtSensitivity`: the best specificity where the "
    "sensitivity is >= `sensitivity`.")
PrecisionAtRecall = _at_metric(
    "PrecisionAtRecall", "recall", "sensitivity", "precision",
    "`tf.keras.metrics.PrecisionAtRecall`: the best precision where the recall is >= "
    "`recall`.")
RecallAtPrecision = _at_metric(
    "RecallAtPrecision", "precision", "precision", "sensitivity",
    "`tf.keras.metrics.RecallAtPrecision`: the best recall where the precision is >= "
    "`precision`.")


@serialization.keras_export("keras.metrics.AUC")
class AUC(Metric):
    """`tf.keras.metrics.AUC`: the area under the ROC / PR / PR-gain curve (see the module
    docstring)."""

    def __init__(self, num_thresholds: int = 200, curve: Any = "ROC",
                 summation_method: Any = "interpolation", name: Optional[str] = None,
                 dtype: Any = None, thresholds: Optional[List[float]] = None,
                 multi_label: bool = False, num_labels: Optional[int] = None,
                 label_weights: Any = None, from_logits: bool = False) -> None:
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = is_evenly_distributed_thresholds(
                np.array([0.0] + thresholds + [1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        eps = backend.epsilon()
        self._thresholds = np.array([0.0 - eps] + list(thresholds) + [1.0 + eps])
        self.curve = curve if isinstance(curve, AUCCurve) else AUCCurve.from_str(curve)
        self.summation_method = (summation_method
                                 if isinstance(summation_method, AUCSummationMethod)
                                 else AUCSummationMethod.from_str(summation_method))
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        if label_weights is not None:
            label_weights = math_ops.cast(convert_to_tensor(label_weights), self.dtype)
            if bool((label_weights < 0).any()):
                from ...framework import errors
                raise errors.InvalidArgumentError(
                    None, None, "All values of `label_weights` must be non-negative.")
            self.label_weights = label_weights
        else:
            self.label_weights = None
        self._from_logits = from_logits
        self._built = False
        if self.multi_label:
            if num_labels:
                self._build((None, num_labels))
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self) -> list:
        """The thresholds, the `-eps` and `1 + eps` end points included."""
        return list(self._thresholds)

    def _build(self, shape: Any) -> None:
        if self.multi_label:
            if shape is None or len(shape) != 2:
                rank = None if shape is None else len(shape)
                raise ValueError(
                    f"`y_pred` must have rank 2 when `multi_label=True`. Found rank {rank}. "
                    f"Full shape received for `y_pred`: {_shape_text(shape)}")
            self._num_labels = shape[1]
            variable_shape = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        object.__setattr__(self, "_build_input_shape", shape)
        for var in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, var, self.add_weight(var, shape=variable_shape, initializer="zeros"))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the four counts at every threshold (per label with `multi_label`)."""
        y_pred = convert_to_tensor(y_pred)
        if not self._built:
            self._build(tuple(y_pred.shape))
        if self.multi_label or self.label_weights is not None:
            self._check_label_shapes(convert_to_tensor(y_true))
        label_weights = None if self.multi_label else self.label_weights
        if self._from_logits:
            y_pred = unary_ops.sigmoid(y_pred)
        update_confusion_matrix_variables(
            {ConfusionMatrix.TRUE_POSITIVES: self.true_positives,
             ConfusionMatrix.TRUE_NEGATIVES: self.true_negatives,
             ConfusionMatrix.FALSE_POSITIVES: self.false_positives,
             ConfusionMatrix.FALSE_NEGATIVES: self.false_negatives},
            y_true, y_pred, self._thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=label_weights)

    def _check_label_shapes(self, y_true: torch.Tensor) -> None:
        """tf_keras's `assert_shapes`: `y_true` is `[N, L]`, the counts `[T, L]`, the label
        weights `[L]`, with one `L`."""
        from ...framework import errors
        labels = None
        if y_true.dim() != 2:
            raise ValueError("Number of labels is not consistent.  Tensor y_true must have "
                             f"rank 2.  Received rank {y_true.dim()}")
        labels = y_true.shape[1]
        dims = []
        if self.multi_label:
            dims.append(self.true_positives.shape[1])
        if self.label_weights is not None:
            dims.append(self.label_weights.shape[0])
        if any(d != labels for d in dims):
            raise errors.InvalidArgumentError(None, None, "Number of labels is not consistent.")

    def interpolate_pr_auc(self) -> torch.Tensor:
        """tf_keras's interpolated PR-AUC: precision interpolated between thresholds as
        `dTP / dP` (Davis & Goadrich 2006), integrated in closed form per interval."""
        n = self.num_thresholds
        tp, fp, fn = _t(self.true_positives), _t(self.false_positives), _t(self.false_negatives)
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        prec_slope = divide_no_nan(dtp, torch.clamp_min(dp, 0))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = torch.where((p[:n - 1] > 0) & (p[1:] > 0),
                                   divide_no_nan(p[:n - 1], torch.clamp_min(p[1:], 0)),
                                   torch.ones_like(p[1:]))
        pr_auc_increment = divide_no_nan(
            prec_slope * (dtp + intercept * unary_ops.log(safe_p_ratio)),
            torch.clamp_min(tp[1:] + fn[1:], 0))
        return self._combine(pr_auc_increment)

    def _combine(self, terms: torch.Tensor) -> torch.Tensor:
        if self.multi_label:
            by_label_auc = terms.sum(dim=0)
            if self.label_weights is None:
                return by_label_auc.mean()
            return divide_no_nan((by_label_auc * self.label_weights).sum(),
                                 self.label_weights.sum())
        return terms.sum()

    def result(self) -> torch.Tensor:
        if (self.curve == AUCCurve.PR
                and self.summation_method == AUCSummationMethod.INTERPOLATION):
            return self.interpolate_pr_auc()
        n = self.num_thresholds
        tp, tn = _t(self.true_positives), _t(self.true_negatives)
        fp, fn = _t(self.false_positives), _t(self.false_negatives)
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == AUCCurve.ROC:
            x, y = divide_no_nan(fp, fp + tn), recall
        elif self.curve == AUCCurve.PR:
            x, y = recall, divide_no_nan(tp, tp + fp)
        else:  # PR_GAIN
            scaling_factor = divide_no_nan(tp + fn, fp + tn)
            recall_gain = 1.0 - scaling_factor * divide_no_nan(fn, tp)
            precision_gain = 1.0 - scaling_factor * divide_no_nan(fp, tp)
            recall_gain = torch.where(tp == 0.0, torch.zeros_like(recall_gain), recall_gain)
            precision_gain = torch.where(tp == 0.0, torch.ones_like(precision_gain),
                                         precision_gain)
            x, y = torch.clamp_min(recall_gain, 0), precision_gain
        if self.summation_method == AUCSummationMethod.INTERPOLATION:
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == AUCSummationMethod.MINORING:
            heights = torch.minimum(y[:n - 1], y[1:])
        else:
            heights = torch.maximum(y[:n - 1], y[1:])
        return self._combine((x[:n - 1] - x[1:]) * heights)

    def reset_state(self) -> None:
        if self._built:
            _zero((self.true_positives, self.true_negatives, self.false_positives,
                   self.false_negatives))

    def get_config(self) -> dict:
        label_weights = self.label_weights
        if isinstance(label_weights, torch.Tensor):
            label_weights = backend.eval(label_weights)
        config = {
            "num_thresholds": self.num_thresholds, "curve": self.curve.value,
            "summation_method": self.summation_method.value, "multi_label": self.multi_label,
            "num_labels": self.num_labels, "label_weights": label_weights,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "<unknown>"
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


del to_list  # (re-exported by confusion_matrix; not part of this module)
