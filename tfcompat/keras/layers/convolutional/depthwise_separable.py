"""Depthwise and separable convolutions: `DepthwiseConv1D/2D`, `SeparableConv1D/2D`.

tf_keras's layouts: a depthwise kernel `[k..., in_channels, depth_multiplier]` (output
channel `c * depth_multiplier + m`), then bias `[in_channels * depth_multiplier]`; a
separable convolution creates `depthwise_kernel`, `pointwise_kernel`
`[1..., in_channels * depth_multiplier, filters]`, then bias `[filters]`. The ops are TF's
`depthwise_conv2d` / `separable_conv2d` (`tfcompat.ops.conv_ops`); the 1-D layers run them
on a height-1 image as tf_keras does (causal padding for `SeparableConv1D` pads the left).
"""

from __future__ import annotations

from typing import Any, Optional

import torch.nn.functional as F

from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, conv_ops, math_ops, nn_ops
from ... import constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from .base_conv import Conv

__all__ = ["DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D"]


class _DepthwiseSeparable(Conv):
    """Shared input handling: casting to the compute dtype, the 1-D height-1 image."""

    def _prepare(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is not None and inputs.dtype != dtypes.to_torch(compute):
            inputs = math_ops.cast(inputs, compute)
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = F.pad(inputs, (left, 0) if self._channels_first else (0, 0, left, 0))
        if self.rank == 1:
            inputs = array_ops.expand_dims(inputs, 2 if self._channels_first else 1)
        return inputs

    def _op_args(self) -> dict:
        strides = (1,) + self.strides if self.rank == 1 else self.strides
        strides = (1, 1) + strides if self._channels_first else (1,) + strides + (1,)
        dilations = (1,) + self.dilation_rate if self.rank == 1 else self.dilation_rate
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        return {"strides": list(strides), "padding": padding, "dilations": list(dilations),
                "data_format": "NCHW" if self._channels_first else "NHWC"}

    def _finish(self, outputs: Any) -> Any:
        fmt = "NCHW" if self._channels_first else "NHWC"
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=fmt)
        if self.rank == 1:
            outputs = array_ops.squeeze(outputs, [2 if self._channels_first else 1])
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def _kernel(self, kernel: Any) -> Any:
        return array_ops.expand_dims(kernel, 0) if self.rank == 1 else kernel


class DepthwiseConv(_DepthwiseSeparable):
    """tf_keras's `DepthwiseConv` base: one filter bank per input channel."""

    def __init__(self, rank: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(rank, None, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        if self.padding == "causal":  # tf_keras allows it only for Conv1D / SeparableConv1D
            raise ValueError("Causal padding is only supported for `Conv1D`and "
                             "`SeparableConv1D`.")
        self._fast_conv2d = False
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if input_shape.rank != self.rank + 2:
            raise ValueError(f"Inputs to `DepthwiseConv` should have rank {self.rank + 2}. "
                             f"Received input_shape={input_shape}.")
        axis = self._channel_axis()
        channels = input_shape.as_list()[axis]
        if channels is None:
            raise ValueError("The channel dimension of the inputs to `DepthwiseConv` should be "
                             f"defined. The input_shape received is {input_shape}, where axis "
                             f"{axis} (0-based) is the channel dimension, which found to be "
                             "`None`.")
        self.depthwise_kernel = self.add_weight(
            shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, name="depthwise_kernel",
            regularizer=self.depthwise_regularizer, constraint=self.depthwise_constraint)
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(channels * self.depth_multiplier,), initializer=self.bias_initializer,
                name="bias", regularizer=self.bias_regularizer,
                constraint=self.bias_constraint)
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        Layer.build(self, input_shape)

    def call(self, inputs: Any) -> Any:
        outputs = conv_ops.depthwise_conv2d(self._prepare(inputs),
                                            self._kernel(self.depthwise_kernel),
                                            **self._op_args())
        return self._finish(outputs)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if self._channels_first:
            channels, spatial = shape[1], shape[2:]
        else:
            channels, spatial = shape[-1], shape[1:-1]
        out = self._spatial_output_shape(spatial)
        filters = None if channels is None else channels * self.depth_multiplier
        return TensorShape([shape[0], filters] + out if self._channels_first
                           else [shape[0]] + out + [filters])

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key)
        config["depth_multiplier"] = self.depth_multiplier
        config["depthwise_initializer"] = initializers.serialize(self.depthwise_initializer)
        config["depthwise_regularizer"] = regularizers.serialize(self.depthwise_regularizer)
        config["depthwise_constraint"] = constraints.serialize(self.depthwise_constraint)
        return config


@keras_export("keras.layers.DepthwiseConv1D")
class DepthwiseConv1D(DepthwiseConv):
    """1-D depthwise convolution (tf_keras 2.x): kernel `[k, in, depth_multiplier]`."""

    def __init__(self, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, **kwargs: Any) -> None:
        super().__init__(1, kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)


@keras_export("keras.layers.DepthwiseConv2D")
class DepthwiseConv2D(DepthwiseConv):
    """2-D depthwise convolution (tf_keras 2.x): kernel `[kh, kw, in, depth_multiplier]`."""

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(2, kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)


class SeparableConv(_DepthwiseSeparable):
    """tf_keras's `SeparableConv` base: a depthwise then a pointwise (1x1) convolution."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                 use_bias: bool = True, depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self._fast_conv2d = False
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        axis = self._channel_axis()
        channels = self._input_channel(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={axis: channels})
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel", shape=self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=(1,) * self.rank + (self.depth_multiplier * channels, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        else:
            self.bias = None
        Layer.build(self, input_shape)

    def call(self, inputs: Any) -> Any:
        args = self._op_args()
        outputs = conv_ops.separable_conv2d(
            self._prepare(inputs), self._kernel(self.depthwise_kernel),
            self._kernel(self.pointwise_kernel), args["strides"], args["padding"],
            data_format=args["data_format"], dilations=args["dilations"])
        return self._finish(outputs)

    def get_config(self) -> dict:
        config = {
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "depth_multiplier": self.depth_multiplier,
            "dilation_rate": self.dilation_rate,
            "activation": Conv.get_config(self)["activation"],
            "use_bias": self.use_bias,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "pointwise_constraint": constraints.serialize(self.pointwise_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        base = Conv.get_config(self)
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.SeparableConv1D", "keras.layers.SeparableConvolution1D")
class SeparableConv1D(SeparableConv):
    """1-D depthwise separable convolution (tf_keras 2.x); `causal` padding allowed."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, depth_multiplier: int = 1, **kwargs: Any) -> None:
        super().__init__(1, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         depth_multiplier=depth_multiplier, **kwargs)


@keras_export("keras.layers.SeparableConv2D", "keras.layers.SeparableConvolution2D")
class SeparableConv2D(SeparableConv):
    """2-D depthwise separable convolution (tf_keras 2.x)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         depth_multiplier=depth_multiplier, **kwargs)
