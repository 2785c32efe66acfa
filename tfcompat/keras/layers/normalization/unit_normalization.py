"""`tf.keras.layers.UnitNormalization` (tf_keras 2.x): scale each example to unit L2 norm over
`axis`, as `tf.math.l2_normalize(x, axis)`: `x * rsqrt(max(sum(x^2), 1e-12))` in the compute
dtype (in float16 the epsilon rounds to 0, as in TF). No weights."""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, normalization_ops
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export
from ._norm_args import axis_argument, validate_axis

__all__ = ["UnitNormalization"]


@keras_export("keras.layers.UnitNormalization")
class UnitNormalization(Layer):
    """L2-normalise the inputs over `axis` (an int or a list of ints; kept as given)."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis_argument(
            axis, "Invalid value for `axis` argument: expected an int or a list/tuple of ints. "
                  "Received: axis={axis}")
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        validate_axis(self.axis, input_shape)
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        if self.compute_dtype is not None:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        return normalization_ops.l2_normalize(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"axis": self.axis})
        return config
