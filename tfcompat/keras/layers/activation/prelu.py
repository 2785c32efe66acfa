"""`PReLU` (a learned slope per element, optionally shared over axes) and `ThresholdedReLU`.

As tf_keras: PReLU's `alpha` has the input's shape without the batch axis, with size 1 on
`shared_axes`; the output is `relu(x) - alpha * relu(-x)`, and after building the non-shared
axes are fixed in the input spec. ThresholdedReLU is `x * (x > theta)`.
"""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, nn_ops
from ... import backend, constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["PReLU", "ThresholdedReLU"]


@keras_export("keras.layers.PReLU")
class PReLU(Layer):
    """Parametric ReLU, `x` for `x >= 0`, else `alpha * x` with a learned `alpha`."""

    def __init__(self, alpha_initializer: Any = "zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif not isinstance(shared_axes, (list, tuple)):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape).as_list()
        param_shape = list(shape[1:])
        for axis in self.shared_axes or ():
            param_shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=param_shape, name="alpha",
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        axes = {}
        if self.shared_axes:
            axes = {i: shape[i] for i in range(1, len(shape)) if i not in self.shared_axes}
        self.input_spec = InputSpec(ndim=len(shape), axes=axes)
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        return nn_ops.relu(inputs) + (-self.alpha) * nn_ops.relu(-inputs)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
            "alpha_constraint": constraints.serialize(self.alpha_constraint),
            "shared_axes": None if self.shared_axes is None else list(self.shared_axes),
        }
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.ThresholdedReLU")
class ThresholdedReLU(Layer):
    """`x` for `x > theta`, else 0 (tf_keras `ThresholdedReLU`, theta 1.0)."""

    def __init__(self, theta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError("Theta of a Thresholded ReLU layer cannot be None, expecting a "
                             f"float. Received: {theta}")
        if theta < 0:
            raise ValueError("The theta value of a Thresholded ReLU layer should be >=0. "
                             f"Received: {theta}")
        self.supports_masking = True
        self.theta = backend.cast_to_floatx(theta)
        self._theta = float(self.theta)

    def call(self, inputs: Any) -> Any:
        return inputs * math_ops.cast(inputs > self._theta, inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"theta": float(self.theta)}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
