"""`tf.keras.metrics.Metric` and the reducing metrics (tf_keras 2.21's `base_metric.py`).

A metric is a `Layer` holding state variables: `add_weight` makes them non-trainable,
zero-initialized, `synchronization=ON_READ` with `aggregation=SUM` by default, so under a
`tf.distribute` strategy each replica accumulates into its own component and a read in
cross-replica context sums (or averages) them. `result()` is wrapped (for every subclass,
at class creation) so that, called inside a replica, it leaves for cross-replica context
through `merge_call` (as tf_keras's `result_wrapper`): every replica gets the metric over
the global batch.

* `update_state(...)` accumulates; `result()` reads; `__call__` does both (per replica when
  called in cross-replica context under a strategy, as tf_keras's `call_replica_local_fn`).
* `reset_state()` zeroes every variable; `merge_state(metrics)` adds other metrics' state.
* `Reduce` (`Sum`, `Mean`, `SumOverBatchSize`): `total` (and `count`), with tf_keras's
  sample-weight rules: cast to the metric dtype, squeezed or expanded by one rank
  (`squeeze_or_expand_dimensions`), broadcast to the values (TF's `broadcast_weights`),
  or, when it cannot be, the values averaged (summed for `Sum`) over the dimensions the
  weight lacks.
* `MeanMetricWrapper(fn)`: the weighted mean of `fn(y_true, y_pred, **kwargs)`, inputs cast
  to the metric dtype; a Keras mask on the result folds into the weight.
* `MeanTensor`: the element-wise weighted mean, its shape fixed by the first update.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Optional

import torch

from ...distribute import distribute_lib
from ...framework import dtypes, nest
from ...framework import variable_protocol as protocol
from ...framework.tensor_conversion import convert_to_tensor, plain_read_types
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, reduction_ops
from ...ops.binary_math_ops import divide_no_nan, divide_no_nan_same
from ...variables.enums import VariableAggregation, VariableSynchronization
from .. import backend
from ..engine.base_layer import Layer
from ..engine.keras_tensor import KerasTensor
from ..optimizers import multi_tensor
from ..losses import loss as losses_utils
from ..saving import serialization
from .weighting import Reduction, broadcast_weights

__all__ = [
    "Metric", "Reduce", "Sum", "Mean", "MeanMetricWrapper", "MeanTensor", "SumOverBatchSize",
    "SumOverBatchSizeMetricWrapper", "clone_metric", "clone_metrics",
]


def _identity_result(metric: "Metric", raw: Any) -> Any:
    """A result as tf_keras's `tf.identity` leaves it: a tensor (a variable is read), or a
    dict of tensors; anything else is tf_keras's `RuntimeError`."""
    if isinstance(raw, torch.Tensor) and not protocol.is_variable(raw):
        return raw
    if isinstance(raw, dict):
        return nest.map_structure(convert_to_tensor, raw)
    try:
        return convert_to_tensor(raw)
    except (ValueError, TypeError):
        raise RuntimeError(
            "The output of `metric.result()` can only be a single Tensor/Variable, or a dict "
            f"of Tensors/Variables. For metric {metric.name}, got result {raw}.") from None


def _merge_result(strategy: Any, result_fn: Callable, metric: "Metric") -> Any:
    del strategy
    return _identity_result(metric, result_fn(metric))


def _wrap_result(result_fn: Callable) -> Callable:
    """tf_keras's `result_wrapper`: inside a replica of a strategy, compute the result once
    in cross-replica context (`merge_call`), where sync-on-read state reads aggregated."""

    @functools.wraps(result_fn)
    def result(self: "Metric") -> Any:
        replica_context = distribute_lib.get_replica_context()
        if replica_context is None or replica_context._is_default:
            return _identity_result(self, result_fn(self))
        return replica_context.merge_call(_merge_result, args=(result_fn, self))

    result._tfcompat_result_wrapped = True  # type: ignore[attr-defined]
    return result


@serialization.keras_export("keras.metrics.Metric")
class Metric(Layer):
    """The base of Keras metrics (tf_keras 2.x `Metric`): a stateful `Layer`.

    Subclasses create state with `add_weight` in `__init__` (or on the first update),
    implement `update_state(*args, **kwargs)` and `result()`, and may override
    `reset_state()`. `metric(*args)` updates, then returns `result()`.
    """

    # The Layer base routes attributes holding metrics to `_metrics` and keeps them out of
    # its module walk (weights, losses): a layer's metrics are not its sublayers.
    _is_keras_metric = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("result")
        if own is not None and not getattr(own, "_tfcompat_result_wrapped", False):
            cls.result = _wrap_result(own)

    def __init__(self, name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.stateful = True  # every metric carries state
        object.__setattr__(self, "built", True)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """`update_state(*args, **kwargs)` then `result()`; with KerasTensor arguments only
        `result()` (tf_keras skips the update while building a functional model)."""

        def replica_local_fn(*a: Any, **kw: Any) -> Any:
            if not any(isinstance(x, KerasTensor) for x in nest.flatten((a, kw))):
                self.update_state(*a, **kw)
            return self.result()

        strategy = kwargs.pop("strategy", None)
        if strategy is None and distribute_lib.has_strategy():
            strategy = distribute_lib.get_strategy()
        if strategy is not None and distribute_lib.in_cross_replica_context():
            with strategy.scope():
                result_t = strategy.extended.call_for_each_replica(replica_local_fn, args,
                                                                   kwargs)
        else:
            result_t = replica_local_fn(*args, **kwargs)
        if isinstance(result_t, dict):
            result_t = _MetricDict(**result_t)
        try:
            result_t._metric_obj = self
        except AttributeError:
            pass
        return result_t

    def __str__(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"

    def __deepcopy__(self, memo: Optional[dict] = None) -> "Metric":
        try:
            new_self = self.from_config(self.get_config())
        except NotImplementedError as e:
            raise NotImplementedError(
                "Calling `__deepcopy__()` on a TF-Keras metric requires the metric to be "
                "serializable,  i.e. it should implement `get_config()`.\n\nError encountered "
                f"during serialization: [{e}]") from e
        if self.weights:
            new_self.set_weights(self.get_weights())
        if memo is not None:
            memo[id(self)] = new_self
        return new_self

    @property
    def _dtype(self) -> Optional[str]:
        return self._dtype_policy.variable_dtype

    def get_config(self) -> dict:
        """`{"name", "dtype"}` (subclasses add their constructor arguments)."""
        return {"name": self.name, "dtype": self.dtype}

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        """Accumulate statistics for a batch (override)."""
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self) -> Any:
        """The metric value from the state: a scalar tensor or a dict of them (override)."""
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_state(self) -> None:
        """Zero every state variable (between epochs); a subclass that still overrides the
        deprecated `reset_states()` has it called, with tf_keras's warning."""
        if type(self).reset_states is not Metric.reset_states:
            warnings.warn(
                f"Metric {type(self).__name__} implements a `reset_states()` method; rename it "
                'to `reset_state()` (without the final "s"). The name `reset_states()` has '
                "been deprecated to improve API consistency.", stacklevel=2)
            return self.reset_states()
        for v in self.variables:
            v.assign(torch.zeros(tuple(v.shape), dtype=_torch_dtype(v)), read_value=False)
        return None

    def reset_states(self) -> None:
        """Deprecated alias of `reset_state()`."""
        return self.reset_state()

    def merge_state(self, metrics: Any) -> list:
        """Add the state of each metric in `metrics` to this one's (weight by weight); a
        metric with a different number of weights is tf_keras's `ValueError`."""
        metrics = list(metrics)
        for metric in metrics:
            if len(self.weights) != len(metric.weights):
                raise ValueError(f"Metric {metric} is not compatible with {self}")
        ops = []
        for metric in metrics:
            for weight, weight_to_add in zip(self.weights, metric.weights):
                ops.append(weight.assign_add(convert_to_tensor(weight_to_add)))
        return ops

    def add_weight(self, name: Optional[str] = None, shape: Any = (),  # type: ignore[override]
                   aggregation: Any = VariableAggregation.SUM,
                   synchronization: Any = VariableSynchronization.ON_READ,
                   initializer: Any = None, dtype: Any = None) -> Any:
        """A state variable: non-trainable, sync-on-read, summed across replicas unless
        told otherwise, in the metric's dtype."""
        return super().add_weight(
            name=name, shape=shape, dtype=self._dtype if dtype is None else dtype,
            trainable=False, initializer=initializer, collections=[],
            synchronization=synchronization, aggregation=aggregation)

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        weights = list(self._trainable_weights)
        for m in self._metrics:
            weights += m.trainable_weights
        return self._dedup_weights(weights)

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            weights = list(self._non_trainable_weights)
            for m in self._metrics:
                weights += m.non_trainable_weights
        else:
            weights = self._non_trainable_weights + self._trainable_weights
            for m in self._metrics:
                weights += m.weights
        return self._dedup_weights(weights)


_REDUCTIONS = (Reduction.SUM, Reduction.SUM_OVER_BATCH_SIZE, Reduction.WEIGHTED_MEAN)


@functools.lru_cache(maxsize=64)
def _metric_torch_dtype(name: Any) -> Optional[torch.dtype]:
    return dtypes.to_torch(name) if name is not None else None


def _torch_dtype(v: Any) -> torch.dtype:
    from ...framework import dtypes
    return dtypes.to_torch(v.dtype)


class _MetricDict(dict):
    """A dict result of `Metric.__call__` (carries `_metric_obj`, as tf_keras's)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._metric_obj = None


def _cast(values: Any, dtype: Any) -> torch.Tensor:
    return math_ops.cast(convert_to_tensor(values), dtype)


_NOT_PLAIN = object()


class Reduce(Metric):
    """A metric reducing its values: `reduction` is a `Reduction` (`SUM`,
    `SUM_OVER_BATCH_SIZE`, `WEIGHTED_MEAN`); state `total` (and `count`)."""

    def __init__(self, reduction: Reduction, name: Optional[str], dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction in (Reduction.SUM_OVER_BATCH_SIZE, Reduction.WEIGHTED_MEAN):
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Add `sum(values * sample_weight)` to `total` and the count (the number of values,
        or for `WEIGHTED_MEAN` with weights, the sum of the broadcast weights)."""
        if type(values) is torch.Tensor and (sample_weight is None or (
                type(sample_weight) in (int, float) and values.dim() == 0)):
            done = self._update_plain(values, sample_weight)
            if done is not _NOT_PLAIN:
                return done
        try:
            values = _cast(values, self._dtype)
        except (ValueError, TypeError):
            msg = ("The output of a metric function can only be a single Tensor. "
                   f"Received: {values}. ")
            if isinstance(values, dict):
                msg += "To return a dict of values, implement a custom Metric subclass."
            raise RuntimeError(msg) from None
        if sample_weight is not None:
            sample_weight = _cast(sample_weight, self._dtype)
            values, _, sample_weight = losses_utils.squeeze_or_expand_dimensions(
                values, sample_weight=sample_weight)
            try:
                sample_weight = broadcast_weights(sample_weight, values)
            except ValueError:
                # tf_keras: reduce the values over the dimensions the weight lacks
                axes = list(range(sample_weight.dim(), values.dim()))
                if self.reduction == Reduction.SUM:
                    values = reduction_ops.reduce_sum(values, axis=axes)
                else:
                    values = reduction_ops.reduce_mean(values, axis=axes)
            values = math_ops.multiply(values, sample_weight)
        value_sum = reduction_ops.reduce_sum(values)
        update_total = self.total.assign_add(value_sum)
        if self.reduction == Reduction.SUM:
            return update_total
        if self.reduction == Reduction.SUM_OVER_BATCH_SIZE or sample_weight is None:
            num_values = math_ops.cast(array_ops.size(values), self._dtype)
        elif self.reduction == Reduction.WEIGHTED_MEAN:
            num_values = reduction_ops.reduce_sum(sample_weight)
        else:
            raise NotImplementedError(
                f'Reduction "{self.reduction}" not implemented. Expected "sum", '
                '"weighted_mean", or "sum_over_batch_size".')
        return self.count.assign_add(num_values)

    def _update_plain(self, values: torch.Tensor, sample_weight: Any) -> Any:
        """`update_state`'s common calls outside strategies -- values already a tensor of the
        metric's dtype, no weight, or a Python number weighting one scalar (fit's loss means:
        the batch size) --
        as the same TF ops without their conversions: the sum, the product by the weight
        converted as TF converts it, and the count added as a constant. `_NOT_PLAIN` for any
        other call."""
        target = _metric_torch_dtype(self._dtype)
        if (values.dtype is not target or self.reduction not in _REDUCTIONS
                or distribute_lib.has_strategy()):
            # (under a strategy each replica's update must be its own tensor: a shared constant
            # would regroup into one value, not a per-replica one)
            return _NOT_PLAIN
        device = values.device
        if sample_weight is None:
            update_total = self.total.assign_add(torch.sum(values))
            if self.reduction == Reduction.SUM:
                return update_total
            return self.count.assign_add(multi_tensor.scalar(values.numel(), target, device))
        if type(sample_weight) is int and not -2 ** 31 <= sample_weight < 2 ** 31:
            return _NOT_PLAIN  # (TF converts a Python int to int32: the full path's error)
        # (a Python float converts to float32 first, an int to int32, as `tf.cast` takes them)
        weight = multi_tensor.scalar(sample_weight, target, device,
                                     via=torch.float32 if type(sample_weight) is float else None)
        update_total = self.total.assign_add(torch.mul(values, weight))
        if self.reduction == Reduction.SUM:
            return update_total
        if self.reduction == Reduction.SUM_OVER_BATCH_SIZE:
            return self.count.assign_add(multi_tensor.scalar(1, target, device))
        return self.count.assign_add(weight)

    def result(self) -> torch.Tensor:
        if self.reduction == Reduction.SUM:
            return convert_to_tensor(self.total)
        if self.reduction in (Reduction.WEIGHTED_MEAN, Reduction.SUM_OVER_BATCH_SIZE):
            total, count = self.total, self.count
            plain = plain_read_types()
            if type(total) in plain and type(count) in plain:
                # (the common state: two plain variables -- the division of their reads,
                # without `divide_no_nan`'s conversions; its checks stay)
                return divide_no_nan_same(total.value(), count.value())
            return divide_no_nan(total, count)
        raise NotImplementedError(
            f'Reduction "{self.reduction}" not implemented. Expected "sum", "weighted_mean", '
            'or "sum_over_batch_size".')


@serialization.keras_export("keras.metrics.Sum")
class Sum(Reduce):
    """`tf.keras.metrics.Sum`: the (weighted) sum of the values (state `total`)."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(reduction=Reduction.SUM, name=name, dtype=dtype)


@serialization.keras_export("keras.metrics.Mean")
class Mean(Reduce):
    """`tf.keras.metrics.Mean`: the weighted mean `total / count` (`divide_no_nan`: 0
    before any update)."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(reduction=Reduction.WEIGHTED_MEAN, name=name, dtype=dtype)


def _plain(v: Any) -> Any:
    if isinstance(v, torch.Tensor) or protocol.is_variable(v):
        return backend.eval(v)
    return v


@serialization.keras_export("keras.metrics.MeanMetricWrapper")
class MeanMetricWrapper(Mean):
    """`tf.keras.metrics.MeanMetricWrapper`: the weighted mean of
    `fn(y_true, y_pred, **kwargs)` over every sample seen."""

    def __init__(self, fn: Callable, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Cast both to the metric dtype, align their ranks, and add the weighted values of
        `fn` (a Keras mask on them joins the weight)."""
        y_true = _cast(y_true, self._dtype)
        y_pred = _cast(y_pred, self._dtype)
        y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        mask = losses_utils.get_mask(matches)
        sample_weight = losses_utils.apply_valid_mask(matches, sample_weight, mask,
                                                      self.reduction)
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = {k: _plain(v) for k, v in self._fn_kwargs.items()}
        if type(self) is MeanMetricWrapper:
            config["fn"] = self._fn
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict) -> "MeanMetricWrapper":
        from . import get
        config = dict(config)
        fn = config.pop("fn", None)
        if cls is MeanMetricWrapper:
            return cls(get(fn), **config)
        return super().from_config(config)


@serialization.keras_export("keras.metrics.MeanTensor")
class MeanTensor(Metric):
    """`tf.keras.metrics.MeanTensor`: the element-wise weighted mean of tensors of one
    shape (set by `shape` or the first update; another shape is tf_keras's `ValueError`)."""

    def __init__(self, name: str = "mean_tensor", dtype: Any = None, shape: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._shape = None
        self._total = None
        self._count = None
        self._built = False
        if shape is not None:
            self._build(shape)

    def _build(self, shape: Any) -> None:
        self._shape = TensorShape(shape)
        object.__setattr__(self, "_build_input_shape", self._shape)
        self._total = self.add_weight(name="total", shape=shape, initializer="zeros")
        self._count = self.add_weight(name="count", shape=shape, initializer="zeros")
        self._built = True

    @property
    def total(self) -> Any:
        return self._total if self._built else None

    @property
    def count(self) -> Any:
        return self._count if self._built else None

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        values = _cast(values, self._dtype)
        if not self._built:
            self._build(tuple(values.shape))
        elif TensorShape(tuple(values.shape)) != self._shape:
            raise ValueError(
                "MeanTensor input values must always have the same shape. Expected shape "
                f"(set during the first call): {self._shape}. Got: "
                f"{TensorShape(tuple(values.shape))}.")
        num_values = torch.ones_like(values)
        if sample_weight is not None:
            sample_weight = _cast(sample_weight, self._dtype)
            values, _, sample_weight = losses_utils.squeeze_or_expand_dimensions(
                values, sample_weight=sample_weight)
            try:
                sample_weight = broadcast_weights(sample_weight, values)
            except ValueError:
                axes = list(range(sample_weight.dim(), values.dim()))
                values = reduction_ops.reduce_mean(values, axis=axes)
            num_values = math_ops.multiply(num_values, sample_weight)
            values = math_ops.multiply(values, sample_weight)
        self._total.assign_add(values)
        return self._count.assign_add(num_values)

    def result(self) -> torch.Tensor:
        if not self._built:
            raise ValueError(
                "MeanTensor does not have any value yet. Please call the MeanTensor instance "
                "or use `.update_state(value)` before retrieving the result.")
        return divide_no_nan(self.total, self.count)

    def reset_state(self) -> None:
        if self._built:
            for v in self.variables:
                v.assign(torch.zeros(tuple(v.shape), dtype=_torch_dtype(v)), read_value=False)

    def get_config(self) -> dict:
        return super().get_config()


class SumOverBatchSize(Reduce):
    """The weighted sum over the number of values (tf_keras's internal metric)."""

    def __init__(self, name: str = "sum_over_batch_size", dtype: Any = None) -> None:
        super().__init__(reduction=Reduction.SUM_OVER_BATCH_SIZE, name=name, dtype=dtype)


class SumOverBatchSizeMetricWrapper(SumOverBatchSize):
    """`fn(y_true, y_pred, **kwargs)` reduced by `SumOverBatchSize`."""

    def __init__(self, fn: Callable, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_true = _cast(y_true, self._dtype)
        y_pred = _cast(y_pred, self._dtype)
        y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        mask = losses_utils.get_mask(matches)
        sample_weight = losses_utils.apply_valid_mask(matches, sample_weight, mask,
                                                      self.reduction)
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = {k: _plain(v) for k, v in self._fn_kwargs.items()}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


def clone_metric(metric: Any) -> Any:
    """A fresh metric of the same config when `metric` is a `Metric`, else `metric`."""
    if isinstance(metric, Metric):
        return type(metric).from_config(metric.get_config())
    return metric


def clone_metrics(metrics: Any) -> Any:
    """`clone_metric` over a list or dict of metrics."""
    return nest.map_structure(clone_metric, metrics)
