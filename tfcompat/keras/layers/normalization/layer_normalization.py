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

from typing import Any, List

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, normalization_ops
from ... import constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["LayerNormalization", "validate_axis"]


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
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Expected an int or a list/tuple of ints for the argument 'axis', "
                            f"but received: {axis!r}")
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
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
        if self.scale:
            self.gamma = self.add_weight(
                name="gamma", shape=param_shape, initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                trainable=True, experimental_autocast=False)
        else:
            self.gamma = None
        if self.center:
            self.beta = self.add_weight(
                name="beta", shape=param_shape, initializer=self.beta_initializer,
                regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                trainable=True, experimental_autocast=False)
        else:
            self.beta = None
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
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        }
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
