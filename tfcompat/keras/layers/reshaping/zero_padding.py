"""`ZeroPadding1D/2D/3D`: pad each spatial axis with `(before, after)` zeros (`tf.pad`).

The arguments are tf_keras's: `ZeroPadding1D(padding=1)` takes an int or a pair;
`ZeroPadding2D/3D(padding)` an int, one int per axis, or one `(before, after)` pair per
axis, in `data_format`.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ..convolutional.conv_arguments import normalize_tuple
from .spatial_arguments import normalize_pairs, spatial_axes

__all__ = ["ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"]


class _ZeroPadding(Layer):
    _rank = 0

    def __init__(self, padding: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = padding
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _axes(self) -> Tuple[int, ...]:
        return spatial_axes(getattr(self, "data_format", "channels_last"), self._rank)

    def _pairs(self) -> Tuple[Tuple[int, int], ...]:
        return self.padding

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        for axis, (before, after) in zip(self._axes(), self._pairs()):
            if shape[axis] is not None:
                shape[axis] = shape[axis] + before + after
        return TensorShape(shape)

    def call(self, inputs: Any) -> Any:
        paddings = [[0, 0] for _ in range(inputs.dim())]
        for axis, pair in zip(self._axes(), self._pairs()):
            paddings[axis] = list(pair)
        return array_ops.pad(inputs, paddings)

    def get_config(self) -> dict:
        config = {"padding": self.padding}
        if hasattr(self, "data_format"):
            config["data_format"] = self.data_format
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.ZeroPadding1D")
class ZeroPadding1D(_ZeroPadding):
    """Pads the time axis of `[batch, steps, features]` with zeros."""

    _rank = 1

    def __init__(self, padding: Any = 1, **kwargs: Any) -> None:
        super().__init__(normalize_tuple(padding, 2, "padding", allow_zero=True), **kwargs)

    def _pairs(self) -> Tuple[Tuple[int, int], ...]:
        return (self.padding,)


@keras_export("keras.layers.ZeroPadding2D")
class ZeroPadding2D(_ZeroPadding):
    """Pads the two spatial axes of an image with zeros."""

    _rank = 2

    def __init__(self, padding: Any = (1, 1), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        pairs = normalize_pairs(
            padding, 2, "padding",
            "`padding` should be either an int, a tuple of 2 ints (symmetric_height_pad, "
            "symmetric_width_pad), or a tuple of 2 tuples of 2 ints ((top_pad, bottom_pad), "
            "(left_pad, right_pad)).")
        super().__init__(pairs, **kwargs)
        self.data_format = data_format


@keras_export("keras.layers.ZeroPadding3D")
class ZeroPadding3D(_ZeroPadding):
    """Pads the three spatial axes of a volume with zeros."""

    _rank = 3

    def __init__(self, padding: Any = (1, 1, 1), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        pairs = normalize_pairs(
            padding, 3, "padding",
            "`padding` should be either an int, a tuple of 3 ints (symmetric_dim1_pad, "
            "symmetric_dim2_pad, symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints "
            "((left_dim1_pad, right_dim1_pad), (left_dim2_pad, right_dim2_pad), "
            "(left_dim3_pad, right_dim2_pad)).")
        super().__init__(pairs, **kwargs)
        self.data_format = data_format
