"""`tf.keras.layers.ActivityRegularization`: the identity, with an `L1L2(l1, l2)` activity
regularizer, so each call adds `(l1 * sum|y| + l2 * sum y^2) / batch_size` to
`layer.losses` (the engine's activity-regularization step, as tf_keras)."""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ... import regularizers
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["ActivityRegularization"]


@keras_export("keras.layers.ActivityRegularization")
class ActivityRegularization(Layer):
    """Pass the inputs through and penalise them by `l1`/`l2` in the layer's losses."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:  # noqa: E741
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.supports_masking = True
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {"l1": self.l1, "l2": self.l2}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
