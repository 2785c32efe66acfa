"""The deterministic image layers: `Resizing`, `CenterCrop`, `Rescaling`.

Images are `(..., height, width, channels)` ("channels_last"), 3-D or 4-D; the resize math
is `tf.image.resize`'s (`tfcompat.ops.image_ops`), float32 inside, then cast to the layer's
compute dtype, as tf_keras.
"""

from __future__ import annotations

from typing import Any

import torch

from ....framework import dtypes
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import image_ops, math_ops
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["Resizing", "CenterCrop", "Rescaling"]

H_AXIS, W_AXIS = -3, -2

_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                   "gaussian", "mitchellcubic")


def get_interpolation(interpolation: str) -> str:
    """tf_keras's `image_utils.get_interpolation`: the lower-cased method, or its error."""
    method = interpolation.lower()
    if method not in _INTERPOLATIONS:
        keys = "dict_keys([" + ", ".join(repr(k) for k in _INTERPOLATIONS) + "])"
        raise NotImplementedError(f"Value not recognized for `interpolation`: "
                                  f"{interpolation}. Supported values are: {keys}")
    return method


def convert_inputs(inputs: Any, dtype: Any = None) -> torch.Tensor:
    """tf_keras's `convert_inputs`: a tensor (cast to `dtype`); dicts are refused."""
    if isinstance(inputs, dict):
        raise ValueError(
            "This layer can only process a tensor representing an image or a batch of "
            f"images. Received: type(inputs)={type(inputs)}.If you need to pass a dict "
            "containing images, labels, and bounding boxes, you should instead use the "
            "preprocessing and augmentation layers from `keras_cv.layers`. See docs at "
            "https://keras.io/api/keras_cv/layers/")
    tensor = convert_to_tensor(inputs)
    if dtype is not None and dtypes.from_torch(tensor.dtype) != dtypes.as_dtype(dtype):
        tensor = math_ops.cast(tensor, dtype)
    return tensor


def _image_output_shape(layer: Any, input_shape: Any) -> TensorShape:
    shape = TensorShape(input_shape).as_list()
    shape[H_AXIS] = layer.height
    shape[W_AXIS] = layer.width
    return TensorShape(shape)


@keras_export("keras.layers.Resizing", "keras.layers.experimental.preprocessing.Resizing")
class Resizing(Layer):
    """Resize images to `(height, width)` (tf_keras `Resizing`); `crop_to_aspect_ratio`
    takes the largest centred crop of the target's aspect ratio first (`smart_resize`)."""

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, **kwargs: Any) -> None:
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self._interpolation_method = get_interpolation(interpolation)
        super().__init__(**kwargs)

    def call(self, inputs: Any) -> torch.Tensor:
        dtype = self.compute_dtype if self.interpolation == "nearest" else "float32"
        inputs = convert_inputs(inputs, dtype=dtype)
        size = [self.height, self.width]
        if self.crop_to_aspect_ratio:
            outputs = image_ops.smart_resize(inputs, size, self._interpolation_method)
        else:
            outputs = image_ops.resize(inputs, size, method=self._interpolation_method)
        return math_ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return _image_output_shape(self, input_shape)

    def get_config(self) -> dict:
        config = {"height": self.height, "width": self.width,
                  "interpolation": self.interpolation,
                  "crop_to_aspect_ratio": self.crop_to_aspect_ratio}
        return {**super().get_config(), **config}


@keras_export("keras.layers.CenterCrop", "keras.layers.experimental.preprocessing.CenterCrop")
class CenterCrop(Layer):
    """Crop the central `(height, width)` window (tf_keras `CenterCrop`); an image smaller
    than the target is `smart_resize`d instead. Start offsets `int((size - target) / 2)`."""

    def __init__(self, height: int, width: int, **kwargs: Any) -> None:
        self.height = height
        self.width = width
        super().__init__(**kwargs, autocast=False)

    def call(self, inputs: Any) -> torch.Tensor:
        inputs = convert_inputs(inputs, self.compute_dtype)
        h_diff = inputs.shape[H_AXIS] - self.height
        w_diff = inputs.shape[W_AXIS] - self.width
        if h_diff >= 0 and w_diff >= 0:
            return image_ops.crop_to_bounding_box(inputs, int(h_diff / 2), int(w_diff / 2),
                                                  self.height, self.width)
        outputs = image_ops.smart_resize(inputs, [self.height, self.width])
        return math_ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return _image_output_shape(self, input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}


@keras_export("keras.layers.Rescaling", "keras.layers.experimental.preprocessing.Rescaling")
class Rescaling(Layer):
    """`inputs * scale + offset` in the compute dtype (tf_keras `Rescaling`); `scale` and
    `offset` may be scalars or arrays that broadcast."""

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        self.scale = scale
        self.offset = offset
        super().__init__(**kwargs)

    def call(self, inputs: Any) -> torch.Tensor:
        dtype = self.compute_dtype
        inputs = convert_inputs(inputs, dtype=dtype)
        scale = math_ops.cast(convert_to_tensor(self.scale), dtype)
        offset = math_ops.cast(convert_to_tensor(self.offset), dtype)
        return inputs * scale.to(inputs.device) + offset.to(inputs.device)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}
