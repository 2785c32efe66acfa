"""`tf.keras.layers.GaussianNoise`: in training, add `N(0, stddev^2)` noise drawn in the
input's dtype (`tf.random.normal(shape, 0.0, stddev, dtype, seed)`); otherwise the identity.
The draws come from torch's random stream (seeded by `seed` and the global seed as
`tf.random.normal`), not TF's Philox values."""

from __future__ import annotations

from typing import Any, Optional

import torch

from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import random_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["GaussianNoise"]


def training_value(training: Any) -> bool:
    """`training` resolved as `backend.in_train_phase` does (None: the learning phase)."""
    if training is None:
        training = backend.learning_phase()
    if isinstance(training, torch.Tensor):
        training = bool(training)
    return bool(training)


def normal_like(inputs: torch.Tensor, mean: float, stddev: Any,
                seed: Optional[int]) -> torch.Tensor:
    """`tf.random.normal(tf.shape(inputs), mean, stddev, inputs.dtype, seed)` on `inputs`'s
    device."""
    z = random_ops.normal(tuple(inputs.shape), mean=mean, stddev=stddev,
                          dtype=dtypes.from_torch(inputs.dtype), seed=seed)
    return z if z.device == inputs.device else z.to(inputs.device)


@keras_export("keras.layers.GaussianNoise")
class GaussianNoise(Layer):
    """Additive zero-centred Gaussian noise, active only in training."""

    def __init__(self, stddev: Any, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.stddev = stddev
        self.seed = seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not training_value(training):
            return inputs
        return inputs + normal_like(inputs, 0.0, self.stddev, self.seed)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"stddev": self.stddev, "seed": self.seed}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
