"""`tf.keras.layers.AlphaDropout`: dropout that keeps SELU's self-normalisation.

In training (and only for `0 < rate < 1`) an element is kept where a `[0, 1)` uniform draw
(float32, of `noise_shape` or the input's shape) is `>= rate`, else set to SELU's negative
saturation `alpha' = -alpha * scale`; then `a * x + b` with
`a = ((1 - rate) * (1 + rate * alpha'^2)) ** -0.5` and `b = -a * alpha' * rate`, the
constants rounded to the input's dtype as TF converts them. As in tf_keras, `noise_shape` is
not in the config. The draws come from torch's random stream.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import random_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export
from .gaussian_noise import training_value

__all__ = ["AlphaDropout"]

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


@keras_export("keras.layers.AlphaDropout")
class AlphaDropout(Layer):
    """Alpha dropout (Klambauer et al., 2017) for SELU networks, active only in training."""

    def __init__(self, rate: Any, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs: Any) -> tuple:
        if not self.noise_shape:
            return tuple(inputs.shape)
        # None entries take the input's size (tf_keras would fail on them)
        return tuple(inputs.shape[i] if d is None else int(d)
                     for i, d in enumerate(self.noise_shape))

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0.0 < self.rate < 1.0 or not training_value(training):
            return inputs
        rate = self.rate
        alpha_p = -_ALPHA * _SCALE
        uniform = random_ops.uniform_on(inputs.device, self._get_noise_shape(inputs),
                                        dtypes.as_dtype(backend.floatx()), self.seed)
        kept = (uniform >= rate).to(inputs.dtype)

        def const(v: float) -> torch.Tensor:
            return torch.tensor(v, dtype=inputs.dtype, device=inputs.device)

        a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * rate
        x = inputs * kept + const(alpha_p) * (const(1.0) - kept)
        return const(a) * x + const(b)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"rate": self.rate, "seed": self.seed}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
