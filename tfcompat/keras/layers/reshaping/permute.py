"""`tf.keras.layers.Permute(dims)`: reorders the axes of each sample (tf_keras `Permute`).

`dims` is a permutation of `1 ... rank` (1-based: the batch axis 0 never moves), so
`Permute((2, 1))` swaps the two axes of a `[batch, a, b]` input.
"""

from __future__ import annotations

from typing import Any

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["Permute"]


@keras_export("keras.layers.Permute")
class Permute(Layer):
    """Permutes the non-batch axes of the input by the 1-based `dims`."""

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in "
                f"`dims` must be consecutive and start from 1. Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        out = list(shape)
        for i, dim in enumerate(self.dims):
            out[i + 1] = shape[dim]
        return TensorShape(out)

    def call(self, inputs: Any) -> Any:
        return array_ops.transpose(inputs, perm=(0,) + self.dims)

    def get_config(self) -> dict:
        config = {"dims": self.dims}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
