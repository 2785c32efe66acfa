"""What the normalization layers share: the `axis` argument (its type check at construction,
its validation against the input shape at build), and the `gamma`/`beta` arguments
(initializers, regularizers, constraints), their weights and their config entries."""

from __future__ import annotations

from typing import Any, List

from ....framework.tensor_shape import TensorShape
from ... import constraints, initializers, regularizers

__all__ = ["AXIS_TYPE_ERROR", "axis_argument", "validate_axis", "set_affine_arguments",
           "add_affine_weights", "affine_config"]

# tf_keras's TypeError of LayerNormalization and BatchNormalization for an `axis` of another type
AXIS_TYPE_ERROR = ("Expected an int or a list/tuple of ints for the argument 'axis', "
                   "but received: {axis!r}")


def axis_argument(axis: Any, error: str = AXIS_TYPE_ERROR) -> Any:
    """`axis` as the layers keep it: a list (from a list or tuple) or an int; anything else
    raises `TypeError(error.format(axis=axis))`."""
    if isinstance(axis, (list, tuple)):
        return list(axis)
    if isinstance(axis, int):
        return axis
    raise TypeError(error.format(axis=axis))


def validate_axis(axis: Any, input_shape: Any) -> List[int]:
    """tf_keras's `tf_utils.validate_axis`: `axis` (an int or ints, negatives allowed) as a list
    of non-negative axes of `input_shape`, or its `ValueError` (negatives are resolved first,
    so the message shows them resolved)."""
    input_shape = TensorShape(input_shape)
    rank = input_shape.rank
    if not rank:
        raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}")
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = [rank + a if a < 0 else a for a in axes]
    for a in axes:
        if a < 0 or a >= rank:
            raise ValueError("Invalid value for `axis` argument. Expected 0 <= axis < "
                             f"inputs.rank (with inputs.rank={rank}). Received: "
                             f"axis={tuple(axes)}")
    if len(axes) != len(set(axes)):
        raise ValueError(f"Duplicate axis: {tuple(axes)}")
    return axes


def set_affine_arguments(layer: Any, beta_initializer: Any, gamma_initializer: Any,
                         beta_regularizer: Any, gamma_regularizer: Any, beta_constraint: Any,
                         gamma_constraint: Any) -> None:
    """Resolves the `beta_*`/`gamma_*` arguments onto `layer` (`initializers.get`, ...)."""
    layer.beta_initializer = initializers.get(beta_initializer)
    layer.gamma_initializer = initializers.get(gamma_initializer)
    layer.beta_regularizer = regularizers.get(beta_regularizer)
    layer.gamma_regularizer = regularizers.get(gamma_regularizer)
    layer.beta_constraint = constraints.get(beta_constraint)
    layer.gamma_constraint = constraints.get(gamma_constraint)


def add_affine_weights(layer: Any, shape: Any, **kwargs: Any) -> None:
    """`layer.gamma` (if `layer.scale`) then `layer.beta` (if `layer.center`) of `shape`, else
    None; `kwargs` go to both `add_weight` calls (dtype, trainable, experimental_autocast)."""
    layer.gamma = layer.add_weight(
        name="gamma", shape=shape, initializer=layer.gamma_initializer,
        regularizer=layer.gamma_regularizer, constraint=layer.gamma_constraint,
        **kwargs) if layer.scale else None
    layer.beta = layer.add_weight(
        name="beta", shape=shape, initializer=layer.beta_initializer,
        regularizer=layer.beta_regularizer, constraint=layer.beta_constraint,
        **kwargs) if layer.center else None


def affine_config(layer: Any, between: Any = None) -> dict:
    """The `beta_*`/`gamma_*` config entries in tf_keras's order: the initializers, then
    `between` (a dict: BatchNormalization's moving initializers), then the regularizers and
    the constraints."""
    config = {
        "beta_initializer": initializers.serialize(layer.beta_initializer),
        "gamma_initializer": initializers.serialize(layer.gamma_initializer),
    }
    config.update(between or {})
    config.update({
        "beta_regularizer": regularizers.serialize(layer.beta_regularizer),
        "gamma_regularizer": regularizers.serialize(layer.gamma_regularizer),
        "beta_constraint": constraints.serialize(layer.beta_constraint),
        "gamma_constraint": constraints.serialize(layer.gamma_constraint),
    })
    return config
