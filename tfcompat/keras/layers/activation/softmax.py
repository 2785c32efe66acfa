"""`tf.keras.layers.Softmax`: softmax over `axis` (an int or several), with an optional mask.

As tf_keras: a mask adds `(1 - mask) * large_negative` to the logits (or, with
`robust_masking`, replaces masked logits by it), where the large negative is -1e9, or the
float16 minimum for float16; several axes use `exp(x - logsumexp(x))`.
"""

from __future__ import annotations

from typing import Any

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import indexing_ops, math_ops, nn_ops, reduction_math_ops, unary_ops
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["Softmax"]


def _large_negative(dtype: torch.dtype) -> float:
    return -32752.0 if dtype is torch.float16 else -1e9  # float16.min / 2, as tf_keras


@keras_export("keras.layers.Softmax")
class Softmax(Layer):
    """Softmax activation layer (tf_keras `Softmax`)."""

    def __init__(self, axis: Any = -1, robust_masking: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.robust_masking = robust_masking
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:
            negative = _large_negative(inputs.dtype)
            if self.robust_masking:
                keep = mask if mask.dtype is torch.bool else math_ops.greater(mask, 0.5)
                inputs = indexing_ops.where(keep, inputs,
                                            torch.tensor(negative, dtype=inputs.dtype))
            else:
                adder = (1.0 - math_ops.cast(mask, inputs.dtype)) * negative
                inputs = inputs + adder
        axis = self.axis
        if isinstance(axis, (tuple, list)):
            if len(axis) > 1:
                return unary_ops.exp(inputs - reduction_math_ops.reduce_logsumexp(
                    inputs, axis=list(axis), keepdims=True))
            axis = axis[0]
        return nn_ops.softmax(inputs, axis=axis)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config["axis"] = self.axis
        if self.robust_masking:
            config["robust_masking"] = True
        return config
