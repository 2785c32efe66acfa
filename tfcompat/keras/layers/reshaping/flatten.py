"""`tf.keras.layers.Flatten`: `[batch, d1, ..., dk]` -> `[batch, d1 * ... * dk]`.

As tf_keras: channels_first inputs are moved to channels last first (so the flattened order
is the channels_last one, and a Dense after it reads the same weights in either format); a
rank-1 input becomes `[batch, 1]`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["Flatten"]


@keras_export("keras.layers.Flatten")
class Flatten(Layer):
    """Flattens every axis but the batch one (tf_keras `Flatten`)."""

    def __init__(self, data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = backend.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self._channels_first = self.data_format == "channels_first"

    def call(self, inputs: Any) -> Any:
        rank = inputs.dim()
        if self._channels_first and rank > 1:
            inputs = inputs.permute(0, *range(2, rank), 1)
        return array_ops.reshape(inputs, [inputs.shape[0], -1])

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if not shape:
            return TensorShape([1])
        rest = shape[1:]
        if all(rest):
            return TensorShape([shape[0], int(np.prod(rest, dtype=int))])
        return TensorShape([shape[0], None])

    def get_config(self) -> dict:
        config = super().get_config()
        config["data_format"] = self.data_format
        return config
