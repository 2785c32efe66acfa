"""`Conv1DTranspose` / `Conv2DTranspose` / `Conv3DTranspose`: transposed convolutions.

tf_keras's layout: kernel `[k..., filters, in_channels]` (output channels before input
channels, the layout of `tf.nn.conv2d_transpose`), then bias `[filters]`. The output length
along each spatial axis is tf_keras's `deconv_output_length`; the op is TF's gradient of a
convolution with TF's `SAME`/`VALID` padding for that output size. 1-D and 2-D run through
`conv_ops.conv2d_transpose` (1-D on a width-1 image, as `tf.nn.conv1d_transpose` does);
3-D has no tfcompat op yet, so `_conv3d_transpose` below computes the full transposed
convolution with torch and crops it to TF's window (tf_keras passes no dilation there).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import torch
import torch.nn.functional as F

from ....framework import dtypes
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, conv_ops, math_ops, nn_ops
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from .base_conv import Conv
from .conv_arguments import normalize_tuple

__all__ = ["Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "deconv_output_length"]


def deconv_output_length(length: Optional[int], kernel: int, padding: str,
                         output_padding: Optional[int] = None, stride: int = 0,
                         dilation: int = 1) -> Optional[int]:
    """tf_keras's output length of a transposed convolution along one axis."""
    if length is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(kernel - stride, 0)
        if padding == "full":
            return length * stride - (stride + kernel - 2)
        return length * stride  # same
    pad = {"same": kernel // 2, "valid": 0, "full": kernel - 1}[padding]
    return (length - 1) * stride + kernel - 2 * pad + output_padding


def _same_before(size: int, kernel: int, stride: int) -> int:
    """TF's SAME padding before the first element, for a forward input of `size`."""
    out = -(-size // stride)
    return max((out - 1) * stride + kernel - size, 0) // 2


def _conv3d_transpose(x: torch.Tensor, kernel: torch.Tensor, sizes: Sequence[int],
                      strides: Sequence[int], padding: str, cf: bool) -> torch.Tensor:
    """TF's `conv3d_transpose` of `x` with a `[d, h, w, out, in]` kernel onto `sizes`."""
    dtype = x.dtype
    if x.device.type == "cpu" and dtype in (torch.float16, torch.bfloat16):
        # TF's CPU kernels accumulate in float32 and round once
        x, kernel = x.float(), kernel.float()
    xt = x if cf else x.permute(0, 4, 1, 2, 3)
    weight = kernel.to(xt.dtype).permute(4, 3, 0, 1, 2)  # -> [in, out, d, h, w]
    full = F.conv_transpose3d(xt, weight, None, tuple(strides))
    for axis, (size, k, s) in enumerate(zip(sizes, kernel.shape[:3], strides)):
        start = _same_before(size, k, s) if padding == "same" else 0
        have = full.shape[2 + axis] - start
        if have < size:  # TF's window reaches past the full result: zeros there
            pad = [0, 0] * (2 - axis) + [0, size - have]
            full = F.pad(full, pad)
        full = full.narrow(2 + axis, start, size)
    out = full if cf else full.permute(0, 2, 3, 4, 1)
    return out.to(dtype) if out.dtype != dtype else out


class _ConvTranspose(Conv):
    """The shared transposed convolution (N = `rank`)."""

    _rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 output_padding: Any = None, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(self._rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
        self._fast_conv2d = False
        self.output_padding = output_padding
        if output_padding is not None:
            self.output_padding = normalize_tuple(output_padding, self._rank, "output_padding",
                                                  allow_zero=True)
            for stride, pad in zip(self.strides, self.output_padding):
                if pad >= stride:
                    raise ValueError("Strides must be greater than output padding. Received "
                                     f"strides={self.strides}, "
                                     f"output_padding={self.output_padding}.")

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        rank = self._rank + 2
        if input_shape.rank != rank:
            raise ValueError(f"Inputs should have rank {rank}. Received "
                             f"input_shape={input_shape}.")
        axis = 1 if self._channels_first else -1
        channels = input_shape.as_list()[axis]
        if channels is None:
            raise ValueError(f"The channel dimension of the inputs to `{type(self).__name__}` "
                             f"should be defined. The input_shape received is {input_shape}, "
                             f"where axis {axis} (0-based) is the channel dimension, which "
                             "found to be `None`.")
        self.input_spec = InputSpec(ndim=rank, axes={axis: channels})
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (self.filters, channels),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        else:
            self.bias = None
        Layer.build(self, input_shape)

    def _dilations(self) -> tuple:
        return self.dilation_rate

    def _out_sizes(self, spatial: Sequence[Optional[int]]) -> List[Optional[int]]:
        pads = self.output_padding or (None,) * self._rank
        dilations = self._dilations()
        return [deconv_output_length(n, k, self.padding, p, s, d) for n, k, p, s, d in
                zip(spatial, self.kernel_size, pads, self.strides, dilations)]

    def _transpose(self, inputs: Any, sizes: List[int]) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is not None and inputs.dtype != dtypes.to_torch(compute):
            inputs = math_ops.cast(inputs, compute)
        spatial = inputs.shape[2:] if self._channels_first else inputs.shape[1:-1]
        outputs = self._transpose(inputs, self._out_sizes(list(spatial)))
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias,
                                      data_format="NCHW" if self._channels_first else "NHWC")
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if self._channels_first:
            return TensorShape(shape[:1] + [self.filters] + self._out_sizes(shape[2:]))
        return TensorShape(shape[:1] + self._out_sizes(shape[1:-1]) + [self.filters])

    def get_config(self) -> dict:
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config


@keras_export("keras.layers.Conv1DTranspose", "keras.layers.Convolution1DTranspose")
class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (tf_keras 2.x): kernel `[k, filters, in]`."""

    _rank = 1

    def _transpose(self, inputs: Any, sizes: List[int]) -> Any:
        # a width-1 image, as tf.nn.conv1d_transpose: [N, 1, W, C] or [N, C, 1, W]
        axis = 2 if self._channels_first else 1
        fmt = "NCHW" if self._channels_first else "NHWC"
        batch = inputs.shape[0]
        shape = [batch, self.filters, 1, sizes[0]] if self._channels_first else [
            batch, 1, sizes[0], self.filters]
        out = conv_ops.conv2d_transpose(
            array_ops.expand_dims(inputs, axis), array_ops.expand_dims(self.kernel, 0), shape,
            strides=[1, self.strides[0]], padding=self.padding.upper(), data_format=fmt,
            dilations=[1, self.dilation_rate[0]])
        return array_ops.squeeze(out, axis)


@keras_export("keras.layers.Conv2DTranspose", "keras.layers.Convolution2DTranspose")
class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution (tf_keras 2.x): kernel `[kh, kw, filters, in]`."""

    _rank = 2

    def _transpose(self, inputs: Any, sizes: List[int]) -> Any:
        batch = inputs.shape[0]
        shape = ([batch, self.filters] + sizes if self._channels_first
                 else [batch] + sizes + [self.filters])
        return conv_ops.conv2d_transpose(
            inputs, self.kernel, shape, strides=list(self.strides),
            padding=self.padding.upper(), data_format=self._tf_data_format,
            dilations=list(self.dilation_rate))


@keras_export("keras.layers.Conv3DTranspose", "keras.layers.Convolution3DTranspose")
class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution (tf_keras 2.x): kernel `[kd, kh, kw, filters, in]`; as in
    tf_keras, `dilation_rate` is recorded but not applied."""

    _rank = 3

    def _dilations(self) -> tuple:
        return (1, 1, 1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("dilation_rate")  # tf_keras leaves it out (and never applies it)
        return config

    def _transpose(self, inputs: Any, sizes: List[int]) -> Any:
        return _conv3d_transpose(inputs, convert_to_tensor(self.kernel), sizes, self.strides, self.padding,
                                 self._channels_first)
