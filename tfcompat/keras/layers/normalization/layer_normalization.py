"""`tf.keras.layers.LayerNormalization` (tf_keras 2.x): normalise each example over `axis`.

Weights: `gamma` (if `scale`) then `beta` (if `center`), each of shape
`[input_shape[a] for a in axis]` in the layer's variable dtype (float32 under a mixed policy;
never autocast: tf_keras creates them with `experimental_autocast=False`).

Numerics follow the two paths tf_keras takes:
* fused, when the (sorted) axes are the trailing ones, `epsilon >= 1.001e-5` and the variable
  dtype is float32 (so also under `mixed_float16`): the input is seen as `[pre, n]` and
  normalised per row as TF's CPU FusedBatchNorm does, in float32 even for half inputs:
  `mean = sum(x) * (1/n)`, `var = sum((x - mean)^2) * (1/n)`,
  `y = (x - mean) * rsqrt(var + eps)`, rounded to the input dtype; then `y * gamma + beta`
  in the input dtype (gamma and beta cast to it).
* otherwise `tf.nn.moments` (keepdims) and `tf.nn.batch_normalization`; half inputs are
  computed in float32 when the variable dtype is float32 (a mixed policy), else in their own
  dtype (a `float16` layer), and the result is cast back.
"""

from __future__ import annotations

from typing import Any

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, normalization_ops
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export
from ._norm_args import (add_affine_weights, affine_config, axis_argument,
                         set_affine_arguments, validate_axis)

__all__ = ["LayerNormalization", "validate_axis"]


def _fused_rows(x: torch.Tensor, first_axis: int, epsilon: float) -> torch.Tensor:
    """TF's CPU FusedBatchNorm (training, unit scale, zero offset) over `[1, pre, n, 1]` NCHW:
    each row of `pre` is normalised over its `n` trailing elements in float32 (float64 stays
    float64) and the result rounded to `x`'s dtype."""
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    shape = x.shape
    pre = 1
    for d in shape[:first_axis]:
        pre *= int(d)
    rows = work.reshape(pre, -1)
    n = rows.shape[1]
    inv_n = torch.tensor(1.0 / max(n, 1), dtype=work.dtype, device=x.device)
    mean = rows.sum(dim=1, keepdim=True) * inv_n
    centered = rows - mean
    variance = (centered * centered).sum(dim=1, keepdim=True) * inv_n
    eps = torch.tensor(epsilon, dtype=work.dtype, device=x.device)
    out = centered * torch.rsqrt(variance + eps)
    return out.reshape(shape).to(x.dtype)


@keras_export("keras.layers.LayerNormalization")
class LayerNormalization(Layer):
    """Normalise each example over `axis`, then scale by `gamma` and shift by `beta`."""

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis_argument(axis)
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        set_affine_arguments(self, beta_initializer, gamma_initializer, beta_regularizer,
                             gamma_regularizer, beta_constraint, gamma_constraint)
        self.supports_masking = True
        self._fused = None

    def _fused_can_be_used(self, ndims: int) -> bool:
        axis = sorted(self.axis)
        contiguous_trailing = axis[-1] == ndims - 1 and axis[-1] - axis[0] == len(axis) - 1
        return contiguous_trailing and self.epsilon >= 1.001e-5 and self.dtype == "float32"

    def build(self, input_shape: Any) -> None:
        axes = validate_axis(self.axis, input_shape)
        input_shape = TensorShape(input_shape)
        param_shape = [input_shape[a] for a in axes]
        self.axis = axes
        add_affine_weights(self, param_shape, trainable=True, experimental_autocast=False)
        self._fused = self._fused_can_be_used(input_shape.rank)
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        if self.compute_dtype is not None:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        ndims = inputs.dim()
        broadcast_shape = [1] * ndims
        for a in self.axis:
            broadcast_shape[a] = int(inputs.shape[a])

        def broadcast(v: Any) -> Any:
            if v is None:
                return None
            v = v.read_value()
            if v.dim() != ndims and self.axis != [ndims - 1]:
                return v.reshape(broadcast_shape)  # a reshape, as tf_keras (not a transpose)
            return v

        if not self._fused:
            input_dtype = inputs.dtype
            x = inputs
            if input_dtype in (torch.float16, torch.bfloat16) and self.dtype == "float32":
                x = x.float()
            mean, variance = normalization_ops.moments(x, self.axis, keepdims=True)
            outputs = normalization_ops.batch_normalization(
                x, mean, variance, offset=broadcast(self.beta), scale=broadcast(self.gamma),
                variance_epsilon=self.epsilon)
            return outputs.to(input_dtype) if outputs.dtype != input_dtype else outputs
        outputs = _fused_rows(inputs, min(self.axis), self.epsilon)
        gamma, beta = broadcast(self.gamma), broadcast(self.beta)
        if gamma is not None:
            outputs = outputs * gamma.to(outputs.dtype)
        if beta is not None:
            outputs = outputs + beta.to(outputs.dtype)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **affine_config(self),
        }
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
