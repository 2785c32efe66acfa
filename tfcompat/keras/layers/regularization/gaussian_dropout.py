"""`tf.keras.layers.GaussianDropout`: in training (and only for `0 < rate < 1`), multiply by
noise drawn from `N(1, rate / (1 - rate))` in the input's dtype; otherwise the identity.
The draws come from torch's random stream (see `GaussianNoise`)."""

from __future__ import annotations

import math
from typing import Any, Optional

from ....framework.tensor_shape import TensorShape
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export
from .gaussian_noise import normal_like, training_value

__all__ = ["GaussianDropout"]


@keras_export("keras.layers.GaussianDropout")
class GaussianDropout(Layer):
    """Multiplicative 1-centred Gaussian noise with variance `rate / (1 - rate)`."""

    def __init__(self, rate: Any, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.rate = rate
        self.seed = seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0 < self.rate < 1 or not training_value(training):
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * normal_like(inputs, 1.0, stddev, self.seed)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"rate": self.rate, "seed": self.seed}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
