"""`tf.keras.layers.Dropout`: in training, zero inputs with probability `rate` and scale the
rest by `1 / (1 - rate)`; otherwise the identity.

The mask is `tf.nn.dropout`'s (`tfcompat.ops.nn_ops.dropout`, seeded by `seed` and the global
seed); the random stream is torch's, so the masks are not tf_keras's bit for bit.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, nn_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["Dropout"]


@keras_export("keras.layers.Dropout")
class Dropout(Layer):
    """Dropout (tf_keras `Dropout`); `noise_shape` entries of None take the input's size."""

    def __init__(self, rate: Any, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value "
                             "between 0 and 1.")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs: Any) -> Any:
        if self.noise_shape is None:
            return None
        return [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs: Any, training: Any = None) -> Any:
        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return array_ops.identity(inputs)
        if training is None:
            training = backend.learning_phase()
        if not training:
            return array_ops.identity(inputs)
        return nn_ops.dropout(inputs, self.rate, noise_shape=self._get_noise_shape(inputs),
                              seed=self.seed)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config
