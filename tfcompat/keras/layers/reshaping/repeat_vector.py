"""`tf.keras.layers.RepeatVector(n)`: `[batch, features]` -> `[batch, n, features]`."""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["RepeatVector"]


@keras_export("keras.layers.RepeatVector")
class RepeatVector(Layer):
    """Repeats each 2-D sample `n` times along a new axis 1 (tf_keras `RepeatVector`)."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = n
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.input_spec = InputSpec(ndim=2)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        return TensorShape([shape[0], self.n, shape[1]])

    def call(self, inputs: Any) -> Any:
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self) -> dict:
        config = {"n": self.n}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
