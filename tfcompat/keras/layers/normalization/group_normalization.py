"""`tf.keras.layers.GroupNormalization` (tf_keras 2.x): split the `axis` channels into
`groups` and normalise each example over every non-batch axis of its group.

The input is reshaped to `[..., groups, channels // groups, ...]` (the group axis inserted
at `axis`), the statistics are `tf.nn.weighted_moments` with the mask (ones when none) as
frequency weights over every axis but the batch and group ones, and the result is
`tf.nn.batch_normalization` with `gamma` and `beta` (shape `[channels]`, autocast under a
mixed policy as tf_keras creates them) reshaped to the group layout. `groups=-1` means one
group per channel. `axis` keeps the value given (it may stay negative), as in tf_keras.
"""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import broadcast_ops, creation_ops, math_ops, normalization_ops
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ._norm_args import add_affine_weights, affine_config, set_affine_arguments, validate_axis

__all__ = ["GroupNormalization"]


@keras_export("keras.layers.GroupNormalization")
class GroupNormalization(Layer):
    """Group normalization (Wu and He, 2018): per-example statistics over channel groups."""

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        set_affine_arguments(self, beta_initializer, gamma_initializer, beta_regularizer,
                             gamma_regularizer, beta_constraint, gamma_constraint)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        validate_axis(self.axis, input_shape)
        dim = input_shape[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension "
                             f"but the layer received an input with shape {input_shape}.")
        groups = dim if self.groups == -1 else self.groups
        if dim < groups:
            raise ValueError(f"Number of groups ({groups}) cannot be more than the number of "
                             f"channels ({dim}).")
        if dim % groups != 0:
            raise ValueError(f"Number of groups ({groups}) must be a multiple of the number of "
                             f"channels ({dim}).")
        self.groups = groups
        self.input_spec = InputSpec(ndim=input_shape.rank, axes={self.axis: dim})
        add_affine_weights(self, (dim,))
        super().build(input_shape)

    def _group_shape(self, shape: list, fill: Any = None) -> list:
        # tf_keras's list surgery, kept literally so a negative `axis` lands where it does there
        group_shape = list(shape) if fill is None else [fill] * len(shape)
        group_shape[self.axis] = int(shape[self.axis]) // self.groups
        group_shape.insert(self.axis, self.groups)
        return group_shape

    def call(self, inputs: Any, mask: Any = None) -> Any:
        shape = [int(d) for d in inputs.shape]
        if mask is None:
            mask = creation_ops.ones_like(inputs)
        else:
            mask = broadcast_ops.broadcast_to(mask, shape)
        grouped = inputs.reshape(self._group_shape(shape))
        grouped_mask = mask.reshape(self._group_shape(shape))
        reduction_axes = list(range(1, grouped.dim()))
        reduction_axes.pop(self.axis - 1)
        weights = math_ops.cast(grouped_mask, grouped.dtype)
        mean, variance = normalization_ops.weighted_moments(
            grouped, reduction_axes, frequency_weights=weights, keepdims=True)
        broadcast_shape = self._group_shape(shape, fill=1)
        gamma = None if self.gamma is None else self.gamma.read_value().reshape(broadcast_shape)
        beta = None if self.beta is None else self.beta.read_value().reshape(broadcast_shape)
        outputs = normalization_ops.batch_normalization(
            grouped, mean, variance, offset=beta, scale=gamma, variance_epsilon=self.epsilon)
        return outputs.reshape(shape)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **affine_config(self),
        }
        base = super().get_config()
        return {**base, **config}
