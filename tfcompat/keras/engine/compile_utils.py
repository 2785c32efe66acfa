"""What `Model.compile` builds from its `loss`, `loss_weights`, `metrics` and
`weighted_metrics` (tf_keras 2.x `engine/compile_utils.py`).

* `LossesContainer`: per output, a `Loss` object (strings and functions wrapped), its weight;
  `__call__` returns the total loss to differentiate (each output's loss times its weight,
  `SUM_OVER_BATCH_SIZE` losses divided by the replicas in sync, plus the regularization
  losses) and updates the `loss` mean -- weighted by the batch size, so an epoch's `loss` is
  the sample-weighted mean of its batches' -- and, for several outputs, `<output>_loss`.
* `MetricsContainer`: per output, the metric objects (`"accuracy"` resolved from the shapes
  of the first batch and the loss, as tf_keras: binary, sparse categorical or categorical;
  functions wrapped in `MeanMetricWrapper`), names prefixed with the output's for several
  outputs; `weighted_metrics` receive the sample weights, `metrics` only the mask.

Both are built on the first batch (`build(y_pred)`): before it, `metrics` is `[]`, as in
tf_keras (so `model.metrics_names` is empty until the model has trained or evaluated).
"""

from __future__ import annotations

import copy
import threading
from typing import Any, List, Optional

import torch

from ...distribute import distribute_lib
from ...framework import nest
from ...ops import array_ops, math_ops
from .. import losses as losses_mod
from .. import metrics as metrics_mod
from ..losses.loss import ReductionV2, apply_mask, get_mask, scale_loss_for_distribution
from . import base_layer_utils

__all__ = ["LossesContainer", "MetricsContainer", "match_dtype_and_rank",
           "create_pseudo_output_names", "map_to_output_names", "get_custom_object_name"]


class _Container:
    """Mapping of user structures (dicts by output name, one object for all outputs) onto the
    model's outputs."""

    def __init__(self, output_names: Optional[List[str]] = None) -> None:
        self._output_names = output_names

    def build(self, y_pred: Any) -> None:
        if self._output_names is None:
            self._output_names = create_pseudo_output_names(y_pred)

    def _conform_to_outputs(self, outputs: Any, struct: Any) -> Any:
        struct = map_to_output_names(outputs, self._output_names, struct)
        struct = map_missing_dict_keys(outputs, struct)
        if not nest.is_nested(struct) and nest.is_nested(outputs):
            struct = nest.map_structure(lambda _: struct, outputs)
        return struct

    def _maybe_broadcast_to_outputs(self, outputs: Any, objects: Any) -> Any:
        """One loss or metric list given for a model with several outputs applies to each
        (a copy per output for metric objects: each keeps its own state)."""
        if not self._should_broadcast(objects):
            return objects
        copies = len(nest.flatten(outputs)) > 1

        def per_output(_: Any) -> Any:
            return nest.map_structure(self._copy_object, objects) if copies else objects
        return nest.map_structure(per_output, outputs)

    def _should_broadcast(self, objects: Any) -> bool:
        raise NotImplementedError

    def _copy_object(self, obj: Any) -> Any:
        raise NotImplementedError


class _Tracing(threading.local):
    """While this thread traces a compiled step's region (`compiled_step.py`), the loss
    metrics' updates are collected in `updates`, `(metric, value, weight)`, and applied after
    each run of the region: the region stays a pure function of its inputs."""
    updates: Optional[list] = None


tracing = _Tracing()


def _update_loss_metric(metric: Any, value: torch.Tensor, weight: Any) -> None:
    """`metric.update_state(value, sample_weight=weight)` with autograd off (a metric's state
    takes no gradient: no graph for it), or deferred while a compiled region is traced."""
    updates = tracing.updates
    if updates is not None:
        updates.append((metric, value, weight))
        return
    with torch.no_grad():
        metric.update_state(value, sample_weight=weight)


class LossesContainer(_Container):
    """The losses given to `compile` (see the module docstring)."""

    def __init__(self, losses: Any, loss_weights: Any = None,
                 output_names: Optional[List[str]] = None, total_loss_mean: Any = None) -> None:
        super().__init__(output_names=output_names)
        self._user_losses = losses
        self._user_loss_weights = loss_weights
        self._losses = losses
        self._loss_weights = loss_weights
        self._per_output_metrics: Optional[list] = None
        self._total_loss_mean = total_loss_mean or metrics_mod.Mean(name="loss")
        self._built = False

    @property
    def metrics(self) -> list:
        """The `loss` mean, then one `<output>_loss` mean per output (several outputs only)."""
        if not self._built:
            return []
        per_output = [m for m in nest.flatten(self._per_output_metrics) if m is not None]
        return [self._total_loss_mean] + per_output

    @property
    def built(self) -> bool:
        return self._built

    def build(self, y_pred: Any) -> None:
        super().build(y_pred)
        losses = self._maybe_broadcast_to_outputs(y_pred, self._losses)
        losses = self._conform_to_outputs(y_pred, losses)
        self._losses = nest.flatten(nest.map_structure(self._get_loss_object, losses)
                                    if nest.is_nested(losses) else self._get_loss_object(losses))
        weights = self._maybe_broadcast_to_outputs(y_pred, self._loss_weights)
        weights = self._conform_to_outputs(y_pred, weights)
        self._loss_weights = nest.flatten(weights)
        if len(self._output_names) == 1:
            self._per_output_metrics = [None]
        else:
            self._per_output_metrics = [
                None if loss is None else metrics_mod.Mean(name + "_loss")
                for loss, name in zip(self._losses, self._output_names)]
        self._built = True

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None,
                 regularization_losses: Optional[list] = None) -> Optional[torch.Tensor]:
        """The total loss to differentiate (None when nothing gives a loss)."""
        if (self._built and type(y_pred) is torch.Tensor and type(y_true) is torch.Tensor
                and sample_weight is None and not regularization_losses
                and len(self._losses) == 1 and self._losses[0] is not None
                and self._loss_weights == [None]
                and getattr(y_pred, "_keras_mask", None) is None):
            return self._one_output(y_true, y_pred, self._losses[0])
        y_true = self._conform_to_outputs(y_pred, y_true)
        sample_weight = self._conform_to_outputs(y_pred, sample_weight)
        if not self._built:
            self.build(y_pred)
        y_pred = nest.flatten(y_pred)
        y_true = nest.flatten(y_true)
        sample_weight = nest.flatten(sample_weight)
        loss_values: list = []  # what is differentiated
        mean_values: list = []  # what the `loss` metric averages
        batch_dim = None
        replicas = None
        for y_t, y_p, sw, loss_obj, loss_weight, metric in zip(
                y_true, y_pred, sample_weight, self._losses, self._loss_weights,
                self._per_output_metrics):
            if y_t is None or loss_obj is None:  # (an output may have no loss)
                continue
            y_t, y_p, sw = match_dtype_and_rank(y_t, y_p, sw)
            sw = apply_mask(y_p, sw, get_mask(y_p))
            loss_value = loss_obj(y_t, y_p, sample_weight=sw)
            mean_value = loss_value
            if loss_obj.reduction == ReductionV2.SUM:
                if replicas is None:
                    replicas = distribute_lib.get_strategy().num_replicas_in_sync
                mean_value = mean_value * replicas
            if batch_dim is None:
                batch_dim = y_t.shape[0] if y_t.dim() else 1
            if metric is not None:
                _update_loss_metric(metric, mean_value, batch_dim)
            if loss_weight is not None:
                loss_value = loss_value * loss_weight
                mean_value = mean_value * loss_weight
            if loss_obj.reduction in (ReductionV2.SUM_OVER_BATCH_SIZE, ReductionV2.AUTO):
                loss_value = scale_loss_for_distribution(loss_value)
            loss_values.append(loss_value)
            mean_values.append(mean_value)
        if regularization_losses:
            reg_loss = _add_n(cast_losses_to_common_dtype(list(regularization_losses)))
            mean_values.append(reg_loss)
            loss_values.append(scale_loss_for_distribution(reg_loss))
        if not loss_values:
            return None
        with torch.no_grad():
            total_mean = _add_n(cast_losses_to_common_dtype(mean_values))
        _update_loss_metric(self._total_loss_mean, total_mean,
                            1 if batch_dim is None else batch_dim)
        if len(loss_values) == 1:
            return loss_values[0]  # (one output, no regularization: the sum is the value)
        return _add_n(cast_losses_to_common_dtype(loss_values))

    def _one_output(self, y_true: torch.Tensor, y_pred: torch.Tensor, loss_obj: Any) -> Any:
        """`__call__` for what most models compile: one output given as a tensor, its labels a
        tensor, one loss without a weight, no sample weight, mask or regularization loss --
        the loop below for that case, without its structure handling."""
        y_t, y_p, _ = match_dtype_and_rank(y_true, y_pred, None)
        loss_value = loss_obj(y_t, y_p, sample_weight=None)
        mean_value = loss_value
        reduction = loss_obj.reduction
        if reduction == ReductionV2.SUM:
            mean_value = mean_value * distribute_lib.get_strategy().num_replicas_in_sync
        elif reduction in (ReductionV2.SUM_OVER_BATCH_SIZE, ReductionV2.AUTO):
            loss_value = scale_loss_for_distribution(loss_value)
        _update_loss_metric(self._total_loss_mean, mean_value, y_t.shape[0] if y_t.dim() else 1)
        return loss_value

    def reset_state(self) -> None:
        """Reset the loss metrics."""
        if not self._built:
            return
        for metric in [self._total_loss_mean] + nest.flatten(self._per_output_metrics):
            if metric is not None:
                metric.reset_state()

    def _get_loss_object(self, loss: Any) -> Any:
        if loss is None:
            return None
        loss = losses_mod.get(loss)
        if not isinstance(loss, losses_mod.Loss):
            name = get_custom_object_name(loss)
            if name is None:
                raise ValueError(f"Loss should be a callable, received: {loss}")
            loss = losses_mod.LossFunctionWrapper(loss, name=name)
        loss._allow_sum_over_batch_size = True  # (fit scales by the replicas itself)
        return loss

    def _should_broadcast(self, objects: Any) -> bool:
        return not nest.is_nested(objects)

    def _copy_object(self, obj: Any) -> Any:
        return obj  # (losses are stateless: one object serves every output)


class MetricsContainer(_Container):
    """The metrics given to `compile` (see the module docstring)."""

    def __init__(self, metrics: Any = None, weighted_metrics: Any = None,
                 output_names: Optional[List[str]] = None, from_serialized: bool = False) -> None:
        super().__init__(output_names=output_names)
        self._check_duplicated_metrics(metrics, weighted_metrics)
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self._metrics = metrics
        self._weighted_metrics = weighted_metrics
        self._built = False
        self._from_serialized = from_serialized
        self._metrics_in_order: list = []

    @staticmethod
    def _check_duplicated_metrics(metrics: Any, weighted_metrics: Any) -> None:
        seen: list = []
        duplicated = []
        for m in nest.flatten(metrics) + nest.flatten(weighted_metrics):
            if not isinstance(m, metrics_mod.Metric):
                continue
            if any(m is s for s in seen):
                duplicated.append(m)
            seen.append(m)
        if duplicated:
            raise ValueError(
                "Found duplicated metrics object in the user provided metrics and weighted "
                "metrics. This will cause the same metric object to be updated multiple "
                "times, and report wrong results. \n"
                f"Duplicated items: {duplicated}")

    @property
    def metrics(self) -> list:
        """Per output: its metrics, then its weighted metrics ([] before the first batch)."""
        return self._metrics_in_order if self._built else []

    @property
    def unweighted_metrics(self) -> Optional[list]:
        return nest.flatten(self._metrics) if self._built else None

    @property
    def weighted_metrics(self) -> Optional[list]:
        return nest.flatten(self._weighted_metrics) if self._built else None

    @property
    def built(self) -> bool:
        return self._built

    def build(self, y_pred: Any, y_true: Any) -> None:
        super().build(y_pred)
        metrics = self._conform_to_outputs(
            y_pred, self._maybe_broadcast_to_outputs(y_pred, self._metrics))
        weighted = self._conform_to_outputs(
            y_pred, self._maybe_broadcast_to_outputs(y_pred, self._weighted_metrics))
        flat_pred = nest.flatten(y_pred)
        flat_true = _flatten_up_to(y_pred, y_true) if y_true is not None else \
            [None] * len(flat_pred)
        per_output = _flatten_up_to(y_pred, metrics)
        per_output_weighted = _flatten_up_to(y_pred, weighted)
        self._metrics = [self._get_metric_objects(m, y_t, y_p)
                         for m, y_t, y_p in zip(per_output, flat_true, flat_pred)]
        self._weighted_metrics = [self._get_metric_objects(m, y_t, y_p)
                                  for m, y_t, y_p in zip(per_output_weighted, flat_true, flat_pred)]
        if not self._from_serialized:
            self._set_metric_names()
        self._metrics_in_order = []
        for output_metrics, output_weighted in zip(self._metrics, self._weighted_metrics):
            self._metrics_in_order.extend(m for m in output_metrics if m is not None)
            self._metrics_in_order.extend(m for m in output_weighted if m is not None)
        self._built = True

    def _set_metric_names(self) -> None:
        """Unique names: `<output>_<metric>` for several outputs, `weighted_` for a weighted
        metric whose name is taken (tf_keras's rules and errors)."""
        names: set = set()
        multi = len(self._output_names) > 1
        for output_name, output_metrics, output_weighted in zip(
                self._output_names, self._metrics, self._weighted_metrics):
            for m in output_metrics:
                if m is None:
                    continue
                if multi:
                    m._name = output_name + "_" + m._name
                if m._name in names:
                    raise ValueError(f"Found two metrics with the same name: {m._name}. All the "
                                     "metrics added to the model need to have unique names.")
                names.add(m._name)
            for wm in output_weighted:
                if wm is None:
                    continue
                if multi:
                    if output_name + "_" + wm._name in names:
                        wm._name = output_name + "_weighted_" + wm._name
                    else:
                        wm._name = output_name + "_" + wm._name
                elif wm._name in names:
                    wm._name = "weighted_" + wm._name
                if wm._name in names:
                    raise ValueError(f"Found two weighted metrics with the same name: "
                                     f"{wm._name}.All the metrics added to the model need to "
                                     "have unique names.")
                names.add(wm._name)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Update every output's metrics (weighted ones with `sample_weight` and the mask).

        Under `torch.no_grad()`: metric state takes no gradient (TF's assign ops have none),
        so the updates record no autograd graph on the model's outputs."""
        with torch.no_grad():
            self._update_state(y_true, y_pred, sample_weight)

    def _update_state(self, y_true: Any, y_pred: Any, sample_weight: Any) -> None:
        if (self._built and type(y_pred) is torch.Tensor and type(y_true) is torch.Tensor
                and sample_weight is None and len(self._metrics) == 1
                and getattr(y_pred, "_keras_mask", None) is None):
            # (one output given as a tensor, its labels a tensor, no weight or mask: the loop
            # below for that case, without its structure handling)
            y_t, y_p, _ = match_dtype_and_rank(y_true, y_pred, None)
            for metric in self._metrics[0] + self._weighted_metrics[0]:
                if metric is not None:
                    metric.update_state(y_t, y_p, sample_weight=None)
            return
        y_true = self._conform_to_outputs(y_pred, y_true)
        sample_weight = self._conform_to_outputs(y_pred, sample_weight)
        if not self._built:
            self.build(y_pred, y_true)
        y_pred = nest.flatten(y_pred)
        y_true = nest.flatten(y_true) if y_true is not None else []
        sample_weight = nest.flatten(sample_weight)
        for y_t, y_p, sw, metric_objs, weighted_objs in zip(
                y_true, y_pred, sample_weight, self._metrics, self._weighted_metrics):
            if y_t is None or (all(m is None for m in metric_objs)
                               and all(m is None for m in weighted_objs)):
                continue
            y_t, y_p, sw = match_dtype_and_rank(y_t, y_p, sw)
            mask = get_mask(y_p)
            sw = apply_mask(y_p, sw, mask)
            for metric in metric_objs:
                if metric is not None:
                    metric.update_state(y_t, y_p, sample_weight=mask)
            for metric in weighted_objs:
                if metric is not None:
                    metric.update_state(y_t, y_p, sample_weight=sw)

    def reset_state(self) -> None:
        metrics = self._metrics_in_order if self._built else (
            nest.flatten(self._user_metrics) + nest.flatten(self._user_weighted_metrics))
        for metric in metrics:
            if isinstance(metric, metrics_mod.Metric):
                metric.reset_state()

    def _get_metric_objects(self, metrics: Any, y_t: Any, y_p: Any) -> list:
        return [self._get_metric_object(m, y_t, y_p) for m in nest.flatten(metrics)]

    def _get_metric_object(self, metric: Any, y_t: Any, y_p: Any) -> Any:
        if metric is None:
            return None
        if str(metric).lower() not in ("accuracy", "acc", "crossentropy", "ce"):
            metric_obj = metrics_mod.get(metric)
        else:
            t_rank, p_rank = y_t.dim(), y_p.dim()
            t_last = y_t.shape[-1] if t_rank else None
            p_last = y_p.shape[-1] if p_rank else None
            is_binary = p_last == 1
            is_sparse = t_rank < p_rank or (t_last == 1 and p_last is not None and p_last > 1)
            if str(metric).lower() in ("accuracy", "acc"):
                metric_obj = (metrics_mod.binary_accuracy if is_binary else
                              metrics_mod.sparse_categorical_accuracy if is_sparse else
                              metrics_mod.categorical_accuracy)
            else:
                metric_obj = (metrics_mod.binary_crossentropy if is_binary else
                              metrics_mod.sparse_categorical_crossentropy if is_sparse else
                              metrics_mod.categorical_crossentropy)
        if isinstance(metric_obj, losses_mod.Loss):
            metric_obj._allow_sum_over_batch_size = True
        if not isinstance(metric_obj, metrics_mod.Metric):
            if isinstance(metric, str):
                name = metric
            else:
                name = get_custom_object_name(metric)
                if name is None:
                    raise ValueError(f"Metric should be a callable, received: {metric}")
            metric_obj = metrics_mod.MeanMetricWrapper(metric_obj, name=name)
        return metric_obj

    def _should_broadcast(self, obj: Any) -> bool:
        if not nest.is_nested(obj):
            return True
        return isinstance(obj, (list, tuple)) and not any(nest.is_nested(o) for o in obj)

    def _copy_object(self, obj: Any) -> Any:
        if isinstance(obj, metrics_mod.Metric):
            return obj.__class__.from_config(obj.get_config())
        return obj


# -- helpers ----------------------------------------------------------------------------------

def _flatten_up_to(shallow: Any, deep: Any) -> list:
    """`deep`'s entries at the leaves of `shallow` (the model's outputs), in flatten order."""
    if not nest.is_nested(shallow):
        return [deep]
    if isinstance(shallow, dict):
        keys = sorted(shallow)
        if not isinstance(deep, dict):
            raise ValueError(f"Expected a dict with keys {keys}, got {deep!r}.")
        out: list = []
        for k in keys:
            out.extend(_flatten_up_to(shallow[k], deep.get(k)))
        return out
    if not isinstance(deep, (list, tuple)) or len(deep) != len(shallow):
        raise ValueError(f"The structure {deep!r} does not match the model's outputs "
                         f"({len(shallow)} of them).")
    out = []
    for s, d in zip(shallow, deep):
        out.extend(_flatten_up_to(s, d))
    return out


def _add_n(values: list) -> torch.Tensor:
    if len(values) == 1:
        return values[0]
    total = values[0]
    for v in values[1:]:
        total = math_ops.add(total, v)
    return total


def cast_losses_to_common_dtype(losses: list) -> list:
    """All to the widest floating dtype among them (complex losses: left as they are)."""
    if len(losses) == 1:
        return losses
    highest = None
    for loss in losses:
        if not isinstance(loss, torch.Tensor):
            continue
        if loss.is_complex():
            return losses
        if loss.is_floating_point() and (highest is None or
                                         torch.finfo(loss.dtype).bits > torch.finfo(highest).bits):
            highest = loss.dtype
    if highest is None:
        return losses
    return [loss.to(highest) if isinstance(loss, torch.Tensor) else
            torch.as_tensor(loss, dtype=highest) for loss in losses]


def match_dtype_and_rank(y_t: Any, y_p: Any, sw: Any) -> tuple:
    """Rank-1 labels and weights against rank-2 outputs gain a last axis; floating (or
    integer) labels take the outputs' dtype; weights take it always."""
    if not isinstance(y_t, torch.Tensor):
        y_t = torch.as_tensor(y_t) if not hasattr(y_t, "read_value") else y_t.read_value()
    if y_t.dim() == 1 and y_p.dim() == 2:
        y_t = array_ops.expand_dims(y_t, -1)
    if sw is not None:
        if not isinstance(sw, torch.Tensor):
            sw = torch.as_tensor(sw)
        if sw.dim() == 1 and y_p.dim() == 2:
            sw = array_ops.expand_dims(sw, -1)
    if (y_t.is_floating_point() and y_p.is_floating_point()) or (
            _is_integer(y_t) and _is_integer(y_p)):
        if y_t.dtype != y_p.dtype:
            y_t = y_t.to(y_p.dtype)
    if sw is not None and sw.dtype != y_p.dtype:
        sw = sw.to(y_p.dtype)
    return y_t, y_p, sw


def _is_integer(t: torch.Tensor) -> bool:
    return not (t.is_floating_point() or t.is_complex()) and t.dtype is not torch.bool


def create_pseudo_output_names(outputs: Any) -> list:
    """`output_1`, `output_2`, ... (a dict's keys, paths joined by `_`) for a subclassed model."""
    return _pseudo_names(outputs, "output_")


def _pseudo_names(tensors: Any, prefix: str) -> list:
    paths: list = []

    def walk(node: Any, path: tuple) -> None:
        if isinstance(node, dict):
            for k in sorted(node):
                walk(node[k], path + (k,))
        elif isinstance(node, (list, tuple)):
            for i, child in enumerate(node):
                walk(child, path + (i + 1,))
        else:
            paths.append(path)
    walk(tensors, ())
    names = []
    for path in paths:
        if not path:
            names.append(prefix + "1")
        else:
            name = "_".join(str(p) for p in path)
            names.append(prefix + name if isinstance(path[0], int) else name)
    return names


def map_to_output_names(y_pred: Any, output_names: Optional[list], struct: Any) -> Any:
    """A dict keyed by output names, for a single output or a flat list of outputs, becomes
    the list in output order (unknown keys: tf_keras's ValueError)."""
    single = not nest.is_nested(y_pred)
    flat_list = (not single and isinstance(y_pred, (list, tuple))
                 and not any(nest.is_nested(y) for y in y_pred))
    if (single or flat_list) and isinstance(struct, dict):
        output_names = output_names or create_pseudo_output_names(y_pred)
        struct = copy.copy(struct)
        new_struct = [struct.pop(name, None) for name in output_names]
        if struct:
            raise ValueError(
                "Found unexpected losses or metrics that do not correspond to any Model "
                f"output: {struct.keys()}. Valid mode output names: {output_names}. Received "
                f"struct is: {struct}.")
        return new_struct[0] if len(new_struct) == 1 else new_struct
    return struct


def map_missing_dict_keys(y_pred: Any, struct: Any) -> Any:
    if not isinstance(y_pred, dict) or not isinstance(struct, dict):
        return struct
    struct = copy.copy(struct)
    for k in y_pred:
        struct.setdefault(k, None)
    return struct


def get_custom_object_name(obj: Any) -> Optional[str]:
    """A custom loss's or metric's name: its `name`, its `__name__`, or its class in
    snake case."""
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return obj.__name__
    if hasattr(obj, "__class__"):
        return base_layer_utils.to_snake_case(obj.__class__.__name__)
    return None
