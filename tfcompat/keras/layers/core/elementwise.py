"""`Activation`, `Identity` and `Masking`: core layers that keep the input's shape.

`Masking(mask_value)` is tf_keras's: a timestep (all but the last axis) is masked when every
feature equals `mask_value`; masked timesteps are zeroed in the output, and the output's
`_keras_mask` is set in `call` (the layer computes output and mask together).
"""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, math_ops, reduction_ops
from ... import activations
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["Activation", "Identity", "Masking"]


@keras_export("keras.layers.Activation")
class Activation(Layer):
    """Applies `activation` (a name, a config or a callable) to its input (tf_keras 2.x)."""

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"activation": activations.serialize(self.activation)}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.Identity")
class Identity(Layer):
    """Returns its input unchanged (tf_keras 2.x `Identity`; any structure passes)."""

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        try:
            return TensorShape(input_shape)
        except (TypeError, ValueError):  # a structure of shapes passes as it is
            return input_shape


@keras_export("keras.layers.Masking")
class Masking(Layer):
    """Masks (and zeroes) the timesteps whose features all equal `mask_value` (tf_keras)."""

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.mask_value = mask_value
        self._compute_output_and_mask_jointly = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduction_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = reduction_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1,
                                        keepdims=True)
        outputs = inputs * math_ops.cast(keep, inputs.dtype)
        outputs._keras_mask = array_ops.squeeze(keep, axis=-1)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"mask_value": self.mask_value}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
