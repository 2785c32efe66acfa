"""Probabilistic losses: the crossentropies (binary, categorical, sparse, and their focal
forms), KL divergence and Poisson, with tf_keras's numerics.

Probabilities are clipped to `[epsilon, 1 - epsilon]` (epsilon cast to the input dtype)
before any log, categorical outputs are renormalized to sum to 1 along `axis`, and
`from_logits=True` goes through TF's fused `*_cross_entropy_with_logits`.

The logits fast path: tf_keras's `softmax`/`sigmoid` activations attach their input to the
output as `output._keras_logits`; a crossentropy given such an output uses those logits
(and `from_logits=True`) instead of the clipped probabilities, so a saturated softmax still
gives an exact loss and gradient. tfcompat tensors are plain `torch.Tensor`s, which accept
attributes, so the same attribute is the contract here: tfcompat's Keras activations set it,
anything else (a raw `torch.softmax`, `tf.nn.softmax`) is taken as probabilities, exactly
as eager tf_keras takes `tf.nn.softmax`'s output (its op-type sniffing only runs in graphs).
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import torch

from .. import backend
from ...framework import tensor_conversion
from ...ops import array_ops, clip_ops, indexing_ops, math_ops, nn_ops, reduction_ops
from ...ops import unary_ops
from .loss import LossFunctionWrapper, ReductionV2

__all__ = [
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "sparse_categorical_crossentropy", "kl_divergence",
    "poisson", "backend_binary_crossentropy", "backend_binary_focal_crossentropy",
    "backend_categorical_crossentropy", "backend_categorical_focal_crossentropy",
    "backend_sparse_categorical_crossentropy", "BinaryCrossentropy", "BinaryFocalCrossentropy",
    "CategoricalCrossentropy", "CategoricalFocalCrossentropy", "SparseCategoricalCrossentropy",
    "KLDivergence", "Poisson",
]


def _epsilon_like(x: torch.Tensor) -> torch.Tensor:
    # TF converts epsilon to the output's dtype first (1e-7 is 1.19e-7 in float16).
    return tensor_conversion.convert_to_tensor(backend.epsilon(), dtype=x.dtype)


def _get_logits(output: Any, from_logits: bool, activation: str, fn_name: str) -> tuple:
    """`(logits_or_probabilities, from_logits)`: the `_keras_logits` fast path."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was '
            f"produced by a {activation} activation and thus does not represent logits. "
            "Was this intended?", stacklevel=3)
    return logits, True


def _assert_compatible(target: torch.Tensor, output: torch.Tensor) -> None:
    a, b = tuple(target.shape), tuple(output.shape)
    if len(a) != len(b) or any(x != y for x, y in zip(a, b)):
        raise ValueError(f"Shapes {a} and {b} are incompatible")


def backend_binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> torch.Tensor:
    """`tf.keras.backend.binary_crossentropy`: elementwise, no reduction.

    Probabilities: `-(t log(p + eps) + (1 - t) log(1 - p + eps))`, `p` clipped to
    `[eps, 1 - eps]`; logits: `sigmoid_cross_entropy_with_logits`.
    """
    target = tensor_conversion.convert_to_tensor(target)
    output = tensor_conversion.convert_to_tensor(output)
    output, from_logits = _get_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = _epsilon_like(output)
    output = clip_ops.clip_by_value(output, eps, math_ops.subtract(1.0, eps))
    bce = math_ops.multiply(target, unary_ops.log(math_ops.add(output, backend.epsilon())))
    bce = math_ops.add(bce, math_ops.multiply(
        math_ops.subtract(1, target),
        unary_ops.log(math_ops.add(math_ops.subtract(1, output), backend.epsilon()))))
    return math_ops.negative(bce)


def backend_binary_focal_crossentropy(target: Any, output: Any, apply_class_balancing: bool = False,
                                      alpha: float = 0.25, gamma: float = 2.0,
                                      from_logits: bool = False) -> torch.Tensor:
    """`tf.keras.backend.binary_focal_crossentropy`: `(1 - p_t)^gamma * bce`, times
    `alpha` (positives) / `1 - alpha` (negatives) when `apply_class_balancing`."""
    sigmoidal = unary_ops.sigmoid(output) if from_logits else output
    p_t = math_ops.add(math_ops.multiply(target, sigmoidal),
                       math_ops.multiply(math_ops.subtract(1, target),
                                         math_ops.subtract(1, sigmoidal)))
    focal_factor = math_ops.pow(math_ops.subtract(1.0, p_t), gamma)
    bce = backend_binary_crossentropy(target, output, from_logits=from_logits)
    focal_bce = math_ops.multiply(focal_factor, bce)
    if apply_class_balancing:
        weight = math_ops.add(math_ops.multiply(target, alpha),
                              math_ops.multiply(math_ops.subtract(1, target), 1 - alpha))
        focal_bce = math_ops.multiply(weight, focal_bce)
    return focal_bce


def backend_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                     axis: int = -1) -> torch.Tensor:
    """`tf.keras.backend.categorical_crossentropy`: `-sum(t log(p), axis)` with `p`
    renormalized along `axis` and clipped, or `softmax_cross_entropy_with_logits`."""
    target = tensor_conversion.convert_to_tensor(target)
    output = tensor_conversion.convert_to_tensor(output)
    _assert_compatible(target, output)
    output, from_logits = _get_logits(output, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    output = math_ops.truediv(output, reduction_ops.reduce_sum(output, axis, True))
    eps = _epsilon_like(output)
    output = clip_ops.clip_by_value(output, eps, math_ops.subtract(1.0, eps))
    return math_ops.negative(
        reduction_ops.reduce_sum(math_ops.multiply(target, unary_ops.log(output)), axis))


def backend_categorical_focal_crossentropy(target: Any, output: Any, alpha: float = 0.25,
                                           gamma: float = 2.0, from_logits: bool = False,
                                           axis: int = -1) -> torch.Tensor:
    """`tf.keras.backend.categorical_focal_crossentropy`:
    `sum(alpha (1 - p)^gamma (-t log p), axis)` on renormalized, clipped `p`."""
    target = tensor_conversion.convert_to_tensor(target)
    output = tensor_conversion.convert_to_tensor(output)
    _assert_compatible(target, output)
    output, from_logits = _get_logits(output, from_logits, "Softmax",
                                      "categorical_focal_crossentropy")
    if from_logits:
        output = nn_ops.softmax(output, axis=axis)
    output = math_ops.truediv(output, reduction_ops.reduce_sum(output, axis=axis, keepdims=True))
    eps = _epsilon_like(output)
    output = clip_ops.clip_by_value(output, eps, math_ops.subtract(1.0, eps))
    cce = math_ops.multiply(math_ops.negative(target), unary_ops.log(output))
    modulating = math_ops.pow(math_ops.subtract(1.0, output), gamma)
    focal = math_ops.multiply(math_ops.multiply(modulating, alpha), cce)
    return reduction_ops.reduce_sum(focal, axis=axis)


def backend_sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                            axis: int = -1,
                                            ignore_class: Optional[int] = None) -> torch.Tensor:
    """`tf.keras.backend.sparse_categorical_crossentropy`: integer labels against
    probabilities (clipped, then logged) or logits along `axis`.

    `ignore_class`: labels equal to it give a loss of 0, and the result carries the valid
    entries as its `_keras_mask` (so `Loss.__call__` averages over the valid ones only).
    """
    target = tensor_conversion.convert_to_tensor(target)
    output = tensor_conversion.convert_to_tensor(output)
    target = math_ops.cast(target, "int64")
    output, from_logits = _get_logits(output, from_logits, "Softmax",
                                      "sparse_categorical_crossentropy")
    if not from_logits:
        eps = _epsilon_like(output)
        output = unary_ops.log(clip_ops.clip_by_value(output, eps, math_ops.subtract(1, eps)))
    output_rank = len(output.shape)
    axis %= output_rank
    if axis != output_rank - 1:
        perm = list(range(axis)) + list(range(axis + 1, output_rank)) + [axis]
        output = array_ops.transpose(output, perm=perm)
    output_shape = tuple(output.shape)
    update_shape = len(target.shape) != output_rank - 1
    if update_shape and output_shape[-1] > 0:
        # (both are tensors with a known class count here: torch's reshape is TF's Reshape)
        target = target.reshape(-1)
        output = output.reshape(-1, output_shape[-1])
    elif update_shape:
        target = array_ops.reshape(target, [-1])
        output = array_ops.reshape(output, [-1, output_shape[-1]])
    valid_mask = None
    if ignore_class is not None:
        valid_mask = math_ops.not_equal(target, math_ops.cast(ignore_class, target.dtype))
        target = indexing_ops.boolean_mask(target, valid_mask)
        output = indexing_ops.boolean_mask(output, valid_mask)
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if valid_mask is not None:
        res_shape = list(output_shape[:-1])
        valid_mask = array_ops.reshape(valid_mask, res_shape)
        res = indexing_ops.scatter_nd(indexing_ops.where(valid_mask), res, res_shape)
        res._keras_mask = valid_mask
        return res
    if update_shape and output_rank >= 3:
        res = array_ops.reshape(res, list(output_shape[:-1]))
    return res


def _smooth_binary(y_true: torch.Tensor, label_smoothing: torch.Tensor) -> torch.Tensor:
    return math_ops.add(math_ops.multiply(y_true, math_ops.subtract(1.0, label_smoothing)),
                        math_ops.multiply(0.5, label_smoothing))


def _smoothing(label_smoothing: Any, dtype: torch.dtype) -> torch.Tensor:
    return tensor_conversion.convert_to_tensor(label_smoothing, dtype=dtype)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> torch.Tensor:
    """`mean(backend.binary_crossentropy(y_true, y_pred), axis)`; labels smoothed towards
    0.5 by `label_smoothing` (`t (1 - s) + 0.5 s`)."""
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    smoothing = _smoothing(label_smoothing, y_pred.dtype)
    if bool(smoothing):
        y_true = _smooth_binary(y_true, smoothing)
    return reduction_ops.reduce_mean(
        backend_binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0, from_logits: bool = False,
                              label_smoothing: float = 0.0, axis: int = -1) -> torch.Tensor:
    """`mean(backend.binary_focal_crossentropy(...), axis)` with binary label smoothing."""
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    smoothing = _smoothing(label_smoothing, y_pred.dtype)
    if bool(smoothing):
        y_true = _smooth_binary(y_true, smoothing)
    return reduction_ops.reduce_mean(backend_binary_focal_crossentropy(
        y_true, y_pred, apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
        from_logits=from_logits), axis=axis)


def _check_axis(axis: Any) -> None:
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")


def _warn_single_class(y_pred: torch.Tensor, fn_name: str) -> None:
    if len(y_pred.shape) and y_pred.shape[-1] == 1:
        warnings.warn(
            f"In loss {fn_name}, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={_shape_str(y_pred)}. "
            "Consider using 'binary_crossentropy' if you only have 2 classes.",
            SyntaxWarning, stacklevel=3)


def _shape_str(x: torch.Tensor) -> str:
    return "(" + ", ".join(str(d) for d in x.shape) + ("," if len(x.shape) == 1 else "") + ")"


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> torch.Tensor:
    """One-hot labels against probabilities (or logits) along `axis`; labels smoothed as
    `t (1 - s) + s / num_classes`."""
    _check_axis(axis)
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    smoothing = _smoothing(label_smoothing, y_pred.dtype)
    _warn_single_class(y_pred, "categorical_crossentropy")
    if bool(smoothing):
        num_classes = math_ops.cast(y_true.shape[axis], y_pred.dtype)
        y_true = math_ops.add(math_ops.multiply(y_true, math_ops.subtract(1.0, smoothing)),
                              math_ops.truediv(smoothing, num_classes))
    return backend_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> torch.Tensor:
    """The focal categorical crossentropy; smoothing counts the classes of the *last* axis
    (as tf_keras, whatever `axis` is)."""
    _check_axis(axis)
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    smoothing = _smoothing(label_smoothing, y_pred.dtype)
    _warn_single_class(y_pred, "categorical_focal_crossentropy")
    if bool(smoothing):
        num_classes = math_ops.cast(y_true.shape[-1], y_pred.dtype)
        y_true = math_ops.add(math_ops.multiply(y_true, math_ops.subtract(1.0, smoothing)),
                              math_ops.truediv(smoothing, num_classes))
    return backend_categorical_focal_crossentropy(y_true, y_pred, alpha=alpha, gamma=gamma,
                                                  from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    axis: int = -1,
                                    ignore_class: Optional[int] = None) -> torch.Tensor:
    """Integer labels against probabilities (or logits) along `axis`."""
    return backend_sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                                   ignore_class=ignore_class, axis=axis)


def kl_divergence(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`sum(t log(t / p), axis=-1)` with both clipped to `[epsilon, 1]`."""
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    eps = backend.epsilon()
    y_true = clip_ops.clip_by_value(y_true, eps, 1)
    y_pred = clip_ops.clip_by_value(y_pred, eps, 1)
    return reduction_ops.reduce_sum(
        math_ops.multiply(y_true, unary_ops.log(math_ops.truediv(y_true, y_pred))), -1)


def poisson(y_true: Any, y_pred: Any) -> torch.Tensor:
    """`mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)`."""
    y_pred = tensor_conversion.convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return reduction_ops.reduce_mean(math_ops.subtract(
        y_pred, math_ops.multiply(y_true, unary_ops.log(math_ops.add(y_pred, backend.epsilon())))),
        -1)


class BinaryCrossentropy(LossFunctionWrapper):
    """`tf.keras.losses.BinaryCrossentropy(from_logits, label_smoothing, axis)`."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "binary_crossentropy") -> None:
        super().__init__(binary_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """`tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing, alpha, gamma, ...)`."""

    def __init__(self, apply_class_balancing: bool = False, alpha: float = 0.25,
                 gamma: float = 2.0, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "binary_focal_crossentropy") -> None:
        super().__init__(binary_focal_crossentropy, apply_class_balancing=apply_class_balancing,
                         alpha=alpha, gamma=gamma, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.apply_class_balancing = apply_class_balancing
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self) -> dict:
        config = {"apply_class_balancing": self.apply_class_balancing, "alpha": self.alpha,
                  "gamma": self.gamma}
        return dict(list(super().get_config().items()) + list(config.items()))


class CategoricalCrossentropy(LossFunctionWrapper):
    """`tf.keras.losses.CategoricalCrossentropy(from_logits, label_smoothing, axis)`."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "categorical_crossentropy") -> None:
        super().__init__(categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """`tf.keras.losses.CategoricalFocalCrossentropy(alpha, gamma, from_logits, ...)`."""

    def __init__(self, alpha: float = 0.25, gamma: float = 2.0, from_logits: bool = False,
                 label_smoothing: float = 0.0, axis: int = -1, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "categorical_focal_crossentropy") -> None:
        super().__init__(categorical_focal_crossentropy, alpha=alpha, gamma=gamma, name=name,
                         reduction=reduction, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.alpha = alpha
        self.gamma = gamma

    def get_config(self) -> dict:
        config = {"alpha": self.alpha, "gamma": self.gamma}
        return dict(list(super().get_config().items()) + list(config.items()))


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """`tf.keras.losses.SparseCategoricalCrossentropy(from_logits, ignore_class)`."""

    def __init__(self, from_logits: bool = False, ignore_class: Optional[int] = None,
                 reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "sparse_categorical_crossentropy") -> None:
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, ignore_class=ignore_class)


class KLDivergence(LossFunctionWrapper):
    """`tf.keras.losses.KLDivergence`: `sum(y_true * log(y_true / y_pred))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO,
                 name: Optional[str] = "kl_divergence") -> None:
        super().__init__(kl_divergence, name=name, reduction=reduction)


class Poisson(LossFunctionWrapper):
    """`tf.keras.losses.Poisson`: `mean(y_pred - y_true * log(y_pred))`."""

    def __init__(self, reduction: str = ReductionV2.AUTO, name: Optional[str] = "poisson") -> None:
        super().__init__(poisson, name=name, reduction=reduction)
