"""`UpSampling1D/2D/3D`: enlarge the spatial axes by integer factors.

As tf_keras: `UpSampling1D(size)` and `UpSampling3D(size)` repeat every element `size`
times along each axis (`backend.repeat_elements`); `UpSampling2D(size, interpolation)`
resizes with `tf.image.resize` (`tfcompat.ops.image_ops.resize`, TF's kernels) to
`size * (height, width)`, channels-first images through an NHWC transpose:

* `"nearest"` keeps the dtype (with integer factors it repeats every pixel);
* `"bilinear"`, `"bicubic"` and `"area"` return float32 whatever the input dtype, as in
  tf_keras; bilinear's gradient is TF's `ResizeBilinearGrad`.

tf_keras also accepts "gaussian", "lanczos3", "lanczos5" and "mitchellcubic"; they
configure and serialize here, and calling the layer with one of them raises the image op's
NotImplementedError.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, image_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ..convolutional.conv_arguments import normalize_tuple
from .spatial_arguments import spatial_axes

__all__ = ["UpSampling1D", "UpSampling2D", "UpSampling3D"]

# tf_keras's image_utils table, in its order (the error text lists its keys)
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                   "mitchellcubic")


def _get_interpolation(interpolation: str) -> str:
    name = interpolation.lower()
    if name not in _INTERPOLATIONS:
        keys = {k: None for k in _INTERPOLATIONS}.keys()
        raise NotImplementedError(f"Value not recognized for `interpolation`: {name}. "
                                  f"Supported values are: {keys}")
    return name


def _repeat(inputs: Any, axes: Tuple[int, ...], sizes: Tuple[int, ...]) -> Any:
    out = inputs
    for axis, size in zip(axes, sizes):
        out = torch.repeat_interleave(out, size, dim=axis)
    return out


class _UpSampling(Layer):
    _rank = 0

    def __init__(self, size: Tuple[int, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = size
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _sizes(self) -> Tuple[int, ...]:
        return self.size

    def _axes(self) -> Tuple[int, ...]:
        return spatial_axes(getattr(self, "data_format", "channels_last"), self._rank)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        for axis, size in zip(self._axes(), self._sizes()):
            if shape[axis] is not None:
                shape[axis] = size * shape[axis]
        return TensorShape(shape)

    def call(self, inputs: Any) -> Any:
        return _repeat(inputs, self._axes(), self._sizes())

    def get_config(self) -> dict:
        config: dict = {"size": self.size}
        if hasattr(self, "data_format"):
            config["data_format"] = self.data_format
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.UpSampling1D")
class UpSampling1D(_UpSampling):
    """Repeats each timestep of `[batch, steps, features]` `size` times."""

    _rank = 1

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(int(size), **kwargs)

    def _sizes(self) -> Tuple[int, ...]:
        return (self.size,)


@keras_export("keras.layers.UpSampling2D")
class UpSampling2D(_UpSampling):
    """Enlarges images by `size = (rows, cols)` with `tf.image.resize`'s `interpolation`."""

    _rank = 2

    def __init__(self, size: Any = (2, 2), data_format: Optional[str] = None,
                 interpolation: str = "nearest", **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        size = normalize_tuple(size, 2, "size")
        interpolation = _get_interpolation(interpolation)
        super().__init__(size, **kwargs)
        self.data_format = data_format
        self.interpolation = interpolation

    def call(self, inputs: Any) -> Any:
        first = self.data_format == "channels_first"
        images = array_ops.transpose(inputs, [0, 2, 3, 1]) if first else inputs
        size = [images.shape[1] * self.size[0], images.shape[2] * self.size[1]]
        out = image_ops.resize(images, size, method=self.interpolation)
        return array_ops.transpose(out, [0, 3, 1, 2]) if first else out

    def get_config(self) -> dict:
        config = super().get_config()
        config["interpolation"] = self.interpolation
        return config


@keras_export("keras.layers.UpSampling3D")
class UpSampling3D(_UpSampling):
    """Repeats the elements of a volume `size = (d1, d2, d3)` times along its spatial axes."""

    _rank = 3

    def __init__(self, size: Any = (2, 2, 2), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        size = normalize_tuple(size, 3, "size")
        super().__init__(size, **kwargs)
        self.data_format = data_format
