"""`tf.keras.layers.Reshape`: reshape every sample to `target_shape` (one entry may be -1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["Reshape"]


def _resolve_unknown(input_shape: list, target: tuple) -> list:
    """`target` with its -1 replaced so the sizes match (NumPy's rule); tf_keras's errors."""
    out = list(target)
    message = ("total size of new array must be unchanged, input_shape = "
               f"{input_shape}, output_shape = {out}")
    known, unknown = 1, None
    for index, dim in enumerate(out):
        if dim < 0:
            if unknown is not None:
                raise ValueError("There must be at most one unknown dimension in output_shape. "
                                 f"Received: output_shape={out}.")
            unknown = index
        else:
            known *= dim
    original = int(np.prod(input_shape, dtype=int))
    if unknown is not None:
        if known == 0 or original % known != 0:
            raise ValueError(message)
        out[unknown] = original // known
    elif original != known:
        raise ValueError(message)
    return out


@keras_export("keras.layers.Reshape")
class Reshape(Layer):
    """Reshapes each sample (the batch axis is kept) to `target_shape` (tf_keras `Reshape`)."""

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs: Any) -> Any:
        return array_ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if None in shape[1:]:
            return TensorShape([shape[0]] + [None if s == -1 else s for s in self.target_shape])
        return TensorShape([shape[0]] + _resolve_unknown(shape[1:], self.target_shape))

    def get_config(self) -> dict:
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config
