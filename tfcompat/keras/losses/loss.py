"""The `Loss` base, `Reduction`, `LossFunctionWrapper` and the reduction helpers.

tf_keras splits this between `losses.py` (the classes) and `utils/losses_utils.py` (how a
per-sample loss becomes the reported value); both live here because the classes are thin
over the helpers:

* `squeeze_or_expand_dimensions`: labels/predictions whose ranks differ by one in a trailing
  dimension of size 1 are squeezed to match; a sample weight one rank above the loss is
  squeezed, one rank below is expanded (a `[batch]` weight scales every loss of a sample).
* `compute_weighted_loss`: `losses * sample_weight` (TF broadcasting, TF's error for
  incompatible shapes), then `NONE` (as is), `SUM` (sum of all) or `SUM_OVER_BATCH_SIZE`
  (the sum divided by the number of loss elements, `divide_no_nan` so an empty batch is 0).
* Under a `tf.distribute` strategy (`has_strategy()`: inside `strategy.scope()` or a replica
  context), `AUTO` and `SUM_OVER_BATCH_SIZE` raise tf_keras's `ValueError`: the per-replica
  mean would be divided by the replica's batch, not the global one. `compile`/`fit` lifts
  the check (`_allow_sum_over_batch_size`) and scales by `scale_loss_for_distribution`.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import numpy as np
import torch

from ...distribute import distribute_lib
from ...framework import tensor_conversion
from ...ops import array_ops, math_ops, reduction_ops
from ...ops.binary_math_ops import divide_no_nan
from ..optimizers import multi_tensor

__all__ = [
    "Reduction", "ReductionV2", "Loss", "LossFunctionWrapper", "compute_weighted_loss",
    "reduce_weighted_loss", "squeeze_or_expand_dimensions", "remove_squeezable_dimensions",
    "scale_loss_for_distribution", "get_mask", "apply_mask", "apply_valid_mask",
]


class ReductionV2:
    """`tf.keras.losses.Reduction`: how a `Loss` reduces its per-sample values.

    `AUTO` (the default) means `SUM_OVER_BATCH_SIZE` outside `fit`; `NONE` keeps the
    per-sample shape; `SUM` adds every weighted loss; `SUM_OVER_BATCH_SIZE` divides that
    sum by the number of loss elements.
    """

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> tuple:
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key: Any) -> None:
        """TF's `ValueError` for anything but the four keys."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


Reduction = ReductionV2

_DISTRIBUTED_REDUCTION_ERROR = (
    # tf_keras's text, its "looop" typo included, so code matching on it keeps working.
    "Please use `tf.keras.losses.Reduction.SUM` or `tf.keras.losses.Reduction.NONE` for loss "
    "reduction when losses are used with `tf.distribute.Strategy`, except for specifying "
    "losses in `Model.compile()` for use by the built-in training looop `Model.fit()`.\n"
    "Please see https://www.tensorflow.org/tutorials/distribute/custom_training for more "
    "details.")


def _is_tensor(x: Any) -> bool:
    return tensor_conversion.is_tensor(x)


def _rank(x: Any) -> int:
    return len(x.shape)


def remove_squeezable_dimensions(labels: Any, predictions: Any,
                                 expected_rank_diff: int = 0) -> tuple:
    """Squeeze a trailing size-1 dimension of whichever side is one rank too high.

    Returns `(labels, predictions)`. Eager shapes are always known, so only tf_keras's
    static branch exists here.
    """
    if not _is_tensor(predictions):
        predictions = tensor_conversion.convert_to_tensor(predictions)
    if not _is_tensor(labels):
        labels = tensor_conversion.convert_to_tensor(labels)
    rank_diff = _rank(predictions) - _rank(labels)
    if rank_diff == expected_rank_diff + 1 and predictions.shape[-1] == 1:
        predictions = array_ops.squeeze(predictions, [-1])
    elif rank_diff == expected_rank_diff - 1 and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, [-1])
    return labels, predictions


def squeeze_or_expand_dimensions(y_pred: Any, y_true: Any = None,
                                 sample_weight: Any = None) -> tuple:
    """tf_keras's rank alignment: `(y_pred, y_true)` or `(y_pred, y_true, sample_weight)`.

    `y_true`/`y_pred` go through `remove_squeezable_dimensions` unless `y_pred` is exactly
    one rank higher with a last dimension other than 1 (sparse labels). A non-scalar
    `sample_weight` one rank above `y_pred` loses its last dimension; one rank below gains
    one.
    """
    if y_true is not None:
        if _rank(y_pred) - _rank(y_true) != 1 or y_pred.shape[-1] == 1:
            y_true, y_pred = remove_squeezable_dimensions(y_true, y_pred)
    if sample_weight is None:
        return y_pred, y_true
    weights_rank = _rank(sample_weight)
    if weights_rank == 0:
        return y_pred, y_true, sample_weight
    pred_rank = _rank(y_pred)
    if weights_rank - pred_rank == 1:
        sample_weight = array_ops.squeeze(sample_weight, [-1])
    elif pred_rank - weights_rank == 1:
        sample_weight = array_ops.expand_dims(sample_weight, -1)
    return y_pred, y_true, sample_weight


def reduce_weighted_loss(weighted_losses: torch.Tensor,
                         reduction: str = ReductionV2.SUM_OVER_BATCH_SIZE) -> torch.Tensor:
    """`NONE`: as is; `SUM`: `reduce_sum`; `SUM_OVER_BATCH_SIZE`: that sum over the element
    count (`divide_no_nan`: 0 for no elements)."""
    if reduction == ReductionV2.NONE:
        return weighted_losses
    loss = reduction_ops.reduce_sum(weighted_losses)
    if reduction == ReductionV2.SUM_OVER_BATCH_SIZE:
        # The element count is known on the host: TF's divide_no_nan is a plain division by
        # it (the same rounding) unless it is 0, without a Python backward in autograd.
        count = weighted_losses.numel()
        if count:
            # (a cached constant: read only, here and by the division's backward)
            loss = torch.div(loss, multi_tensor.scalar(count, loss.dtype, loss.device))
        else:
            loss = divide_no_nan(loss, math_ops.cast(0, weighted_losses.dtype))
    return loss


def compute_weighted_loss(losses: Any, sample_weight: Any = None,
                          reduction: str = ReductionV2.SUM_OVER_BATCH_SIZE,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.keras.__internal__.losses.compute_weighted_loss`: weight, then reduce.

    `sample_weight` (default 1) is cast to the loss dtype and aligned by
    `squeeze_or_expand_dimensions`; integer losses are computed in float32 and cast back.
    """
    del name  # (a name scope in tf_keras; eager tfcompat has no graph names to set)
    ReductionV2.validate(reduction)
    if reduction == ReductionV2.AUTO:
        reduction = ReductionV2.SUM_OVER_BATCH_SIZE
    losses = tensor_conversion.convert_to_tensor(losses)
    input_dtype = None
    if not (losses.is_floating_point() or losses.is_complex()):
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, "float32")
    if sample_weight is None and reduction != ReductionV2.NONE:
        # tf_keras weights by 1.0, then reduces: the same values and gradients without the
        # multiply (`NONE` keeps it: the result is then a new tensor, not `losses` itself)
        weighted = losses
    else:
        if sample_weight is None:
            sample_weight = 1.0
        sample_weight = math_ops.cast(tensor_conversion.convert_to_tensor(sample_weight),
                                      losses.dtype)
        losses, _, sample_weight = squeeze_or_expand_dimensions(losses, None, sample_weight)
        weighted = math_ops.multiply(losses, sample_weight)
    loss = reduce_weighted_loss(weighted, reduction)
    if input_dtype is not None:
        loss = math_ops.cast(loss, input_dtype)
    return loss


def scale_loss_for_distribution(loss_value: Any) -> Any:
    """`loss_value / num_replicas_in_sync` when there is more than one replica (what `fit`
    does to a `SUM_OVER_BATCH_SIZE` loss, so summed replica gradients average the global
    batch)."""
    num_replicas = distribute_lib.get_strategy().num_replicas_in_sync
    if num_replicas > 1:
        loss_value = math_ops.multiply(loss_value, 1.0 / num_replicas)
    return loss_value


def get_mask(y_p: Any) -> Optional[torch.Tensor]:
    """The Keras mask a tensor carries (`_keras_mask`, as tf_keras), else None."""
    return getattr(y_p, "_keras_mask", None)


def apply_mask(y_p: Any, sw: Any, mask: Any) -> Any:
    """Fold a mask into the sample weight (`sw * mask`, or the mask alone)."""
    if mask is not None:
        mask = math_ops.cast(mask, y_p.dtype)
        if sw is not None:
            sw = math_ops.cast(tensor_conversion.convert_to_tensor(sw), mask.dtype)
            mask, _, sw = squeeze_or_expand_dimensions(mask, sample_weight=sw)
            sw = math_ops.multiply(sw, mask)
        else:
            sw = mask
    return sw


def apply_valid_mask(losses: Any, sw: Any, mask: Any, reduction: str) -> Any:
    """As `apply_mask`, rescaling the mask by `total / valid` for the averaging reductions
    so the mean runs over the valid entries only."""
    if mask is not None:
        mask = math_ops.cast(mask, losses.dtype)
        if reduction in (ReductionV2.AUTO, ReductionV2.SUM_OVER_BATCH_SIZE):
            total = math_ops.cast(array_ops.size(mask), losses.dtype)
            valid = reduction_ops.reduce_sum(mask)
            mask = math_ops.multiply(mask, total / valid)
    return apply_mask(losses, sw, mask)


class Loss:
    """`tf.keras.losses.Loss`: subclasses implement `call(y_true, y_pred)` (per-sample
    losses); `__call__` applies masks, `sample_weight` and the reduction.

    Under a `tf.distribute` strategy use `SUM` or `NONE` and reduce explicitly (e.g.
    `tf.nn.compute_average_loss`): `AUTO`/`SUM_OVER_BATCH_SIZE` raise `ValueError` there,
    except inside `Model.fit`.
    """

    def __init__(self, reduction: str = ReductionV2.AUTO, name: Optional[str] = None) -> None:
        ReductionV2.validate(reduction)
        self.reduction = reduction
        self.name = name
        # `compile` sets this: fit divides by the global batch itself.
        self._allow_sum_over_batch_size = False
        self._set_name_scope()

    def _set_name_scope(self) -> None:
        if self.name is None:
            self._name_scope = self.__class__.__name__.strip("_")
        elif self.name == "<lambda>":
            self._name_scope = "lambda"
        else:
            self._name_scope = self.name.strip("_")

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> torch.Tensor:
        """The weighted, reduced loss: shape `[batch, d0, .. dN-1]` for `NONE`, else a
        scalar. `sample_weight`: a scalar scales the loss, `[batch]` scales each sample,
        `[batch, d0, .. dN-1]` (or broadcastable) scales each loss element."""
        # tf_keras's order: `call` first (its shape errors win), then the reduction, whose
        # strategy check raises before anything is weighted.
        losses = self.call(y_true, y_pred)
        in_mask, out_mask = get_mask(y_pred), get_mask(losses)
        if in_mask is not None and out_mask is not None:
            mask = math_ops.logical_and(in_mask, out_mask)
        else:
            mask = in_mask if in_mask is not None else out_mask
        reduction = self._get_reduction()
        sample_weight = apply_valid_mask(losses, sample_weight, mask, reduction)
        return compute_weighted_loss(losses, sample_weight, reduction=reduction)

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Loss":
        return cls(**config)

    def get_config(self) -> Dict[str, Any]:
        return {"reduction": self.reduction, "name": self.name}

    # (abstract in tf_keras only by convention: `Loss` has no ABCMeta there, so `Loss()` can
    # be built and raises only when called; the same here)
    def call(self, y_true: Any, y_pred: Any) -> torch.Tensor:
        """Per-sample losses, shape `[batch_size, d0, .. dN-1]`."""
        raise NotImplementedError("Must be implemented in subclasses.")

    def _get_reduction(self) -> str:
        if (not self._allow_sum_over_batch_size and distribute_lib.has_strategy()
                and self.reduction in (ReductionV2.AUTO, ReductionV2.SUM_OVER_BATCH_SIZE)):
            raise ValueError(_DISTRIBUTED_REDUCTION_ERROR)
        if self.reduction == ReductionV2.AUTO:
            return ReductionV2.SUM_OVER_BATCH_SIZE
        return self.reduction


class LossFunctionWrapper(Loss):
    """A `Loss` around `fn(y_true, y_pred, **kwargs)` (every built-in loss class is one).

    When both inputs are tensors their ranks are aligned first
    (`squeeze_or_expand_dimensions`); Python lists are passed through as tf_keras does.
    """

    def __init__(self, fn: Callable, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> torch.Tensor:
        if _is_tensor(y_pred) and _is_tensor(y_true):
            y_pred, y_true = squeeze_or_expand_dimensions(y_pred, y_true)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> Dict[str, Any]:
        config = {}
        for key, value in self._fn_kwargs.items():
            if isinstance(value, torch.Tensor) or hasattr(value, "read_value"):
                value = np.asarray(tensor_conversion.convert_to_tensor(value).detach().cpu())
            config[key] = value
        # tf_keras 2.21 saves in its v3 format by default, which names the function.
        from ..saving.object_registration import get_registered_name

        config["fn"] = get_registered_name(self.fn)
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "LossFunctionWrapper":
        config = dict(config)
        fn_name = config.pop("fn", None)
        if fn_name and cls is LossFunctionWrapper:
            from . import get

            config["fn"] = get(fn_name)
        return cls(**config)
