"""`UpSampling1D/2D/3D`: enlarge the spatial axes by integer factors.

As tf_keras: `UpSampling1D(size)` and `UpSampling3D(size)` repeat every element `size`
times along each axis (`backend.repeat_elements`); `UpSampling2D(size, interpolation)`
resizes with `tf.image.resize` to `size * (height, width)`:

* `"nearest"`: with integer factors and half-pixel centres every output pixel reads the
  input pixel it lies in, i.e. the same repetition; the dtype is kept.
* `"bilinear"`: TF's `ResizeBilinear` kernel with `half_pixel_centers=True`, computed in
  float32 as that kernel does (the output is float32 whatever the input dtype, as in
  tf_keras): for output row `i`, `in = (i + 0.5) * scale - 0.5` with
  `scale = in_size / out_size` in float32, rows `max(floor(in), 0)` and
  `min(ceil(in), in_size - 1)`, weight `in - floor(in)`; each value is
  `top + (bottom - top) * y_lerp` of `left + (right - left) * x_lerp`.

tf_keras also accepts the other `tf.image.resize` methods ("area", "bicubic", "gaussian",
"lanczos3", "lanczos5", "mitchellcubic"); they configure and serialize here, and calling the
layer with one of them raises NotImplementedError.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
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
_SUPPORTED = ("nearest", "bilinear")


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


def _bilinear_weights(in_size: int, out_size: int, device: Any) -> Tuple[Any, Any, Any]:
    """Lower and upper source rows and the lerp weight of each output row (TF's kernel)."""
    scale = torch.tensor(in_size, dtype=torch.float32) / torch.tensor(out_size,
                                                                      dtype=torch.float32)
    position = (torch.arange(out_size, dtype=torch.float32) + 0.5) * scale - 0.5
    floor = torch.floor(position)
    lower = torch.clamp(floor.to(torch.int64), min=0)
    upper = torch.clamp(torch.ceil(position).to(torch.int64), max=in_size - 1)
    lerp = position - floor
    return lower.to(device), upper.to(device), lerp.to(device)


class _ResizeBilinear(torch.autograd.Function):
    """TF's `ResizeBilinear` (half-pixel centres) and its `ResizeBilinearGrad`.

    The gradient is TF's kernel: each output cotangent `g` (float32) sends
    `g * y_weight * x_weight` (two float32 products, in that order) to its four source
    pixels, each term cast to the input's dtype and accumulated there, so a float64 input
    gets a float64 sum of float32 terms and a float16 input a float16 one, as in TF.
    """

    @staticmethod
    def forward(ctx: Any, images: Any, height: int, width: int) -> Any:
        x = images.to(torch.float32)
        y_lo, y_hi, y_lerp = _bilinear_weights(x.shape[1], height, x.device)
        x_lo, x_hi, x_lerp = _bilinear_weights(x.shape[2], width, x.device)
        ctx.save_for_backward(y_lo, y_hi, y_lerp, x_lo, x_hi, x_lerp)
        ctx.input_shape, ctx.input_dtype = tuple(images.shape), images.dtype
        xl = x_lerp.view(1, 1, -1, 1)

        def across(rows: Any) -> Any:
            left, right = rows.index_select(2, x_lo), rows.index_select(2, x_hi)
            return left + (right - left) * xl

        top, bottom = across(x.index_select(1, y_lo)), across(x.index_select(1, y_hi))
        return top + (bottom - top) * y_lerp.view(1, -1, 1, 1)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        y_lo, y_hi, y_lerp, x_lo, x_hi, x_lerp = ctx.saved_tensors
        g = grad.to(torch.float32)
        out = torch.zeros(ctx.input_shape, dtype=ctx.input_dtype, device=grad.device)
        yw = {False: (1.0 - y_lerp).view(1, -1, 1, 1), True: y_lerp.view(1, -1, 1, 1)}
        xw = {False: (1.0 - x_lerp).view(1, 1, -1, 1), True: x_lerp.view(1, 1, -1, 1)}
        rows = {False: y_lo, True: y_hi}
        cols = {False: x_lo, True: x_hi}
        for bottom in (False, True):
            for right in (False, True):
                term = (g * yw[bottom] * xw[right]).to(ctx.input_dtype)
                index = (rows[bottom].view(-1, 1).expand(-1, cols[right].numel()),
                         cols[right].view(1, -1).expand(rows[bottom].numel(), -1))
                # (H, W, N, C) view of the gradient: scatter-add each output pixel's term
                out.permute(1, 2, 0, 3).index_put_(index, term.permute(1, 2, 0, 3),
                                                   accumulate=True)
        return out, None, None


def resize_bilinear_half_pixel(images: Any, height: int, width: int) -> Any:
    """`tf.image.resize(images, (height, width), "bilinear")` of NHWC images, in float32."""
    return _ResizeBilinear.apply(images, height, width)


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
    """Enlarges images by `size = (rows, cols)` with nearest or bilinear interpolation."""

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
        if self.interpolation == "nearest":
            return super().call(inputs)
        if self.interpolation not in _SUPPORTED:
            raise NotImplementedError(
                f"UpSampling2D(interpolation={self.interpolation!r}) is not implemented in "
                f"tfcompat; supported: {list(_SUPPORTED)}")
        first = self.data_format == "channels_first"
        images = array_ops.transpose(inputs, [0, 2, 3, 1]) if first else inputs
        out = resize_bilinear_half_pixel(images, images.shape[1] * self.size[0],
                                         images.shape[2] * self.size[1])
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
