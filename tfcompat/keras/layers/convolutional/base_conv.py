"""`tf.keras.layers.Conv1D` / `Conv2D` / `Conv3D`: N-D convolution, bias, activation.

tf_keras's layout: kernel `[k..., in_channels // groups, filters]`, bias `[filters]`, created
in that order. The convolution is TF's (`tfcompat.ops.conv_ops`, which carries TF's `SAME`
padding arithmetic); `causal` padding (Conv1D) pads `dilation * (k - 1)` zeros on the left
and runs `VALID`, as tf_keras does.
"""

from __future__ import annotations

from typing import Any, Optional

import torch.nn.functional as F

from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import conv_ops, math_ops, nn_ops
from ... import activations, backend, constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from .conv_arguments import conv_output_length, normalize_padding, normalize_tuple

__all__ = ["Conv", "Conv1D", "Conv2D", "Conv3D"]

_TF_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


class Conv(Layer):
    """The shared N-D convolution layer (tf_keras's `Conv` base); `rank` is N."""

    def __init__(self, rank: int, filters: Optional[int], kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None,
                 conv_op: Any = None, **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        if isinstance(filters, float):
            filters = int(filters)
        if filters is not None and filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.filters = filters
        self.groups = groups or 1
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = normalize_padding(padding)
        self.data_format = backend.normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)
        self._channels_first = self.data_format == "channels_first"
        self._tf_data_format = _TF_FORMATS[rank][1 if self._channels_first else 0]
        self._validate_init()
        self._tf_padding = self.padding.upper() if isinstance(self.padding, str) else None
        self._fast_conv2d = (rank == 2 and not self._channels_first
                             and self._tf_padding in ("SAME", "VALID")
                             and self.strides[0] == self.strides[1]
                             and self.dilation_rate == (1, 1))

    def _validate_init(self) -> None:
        if self.filters is not None and self.filters % self.groups != 0:
            raise ValueError("The number of filters must be evenly divisible by the number of "
                             f"groups. Received: groups={self.groups}, filters={self.filters}")
        if not all(self.kernel_size):
            raise ValueError("The argument `kernel_size` cannot contain 0(s). Received: "
                             f"{self.kernel_size}")
        if not all(self.strides):
            raise ValueError("The argument `strides` cannot contains 0(s). Received: "
                             f"{self.strides}")
        if self.padding == "causal" and self.rank != 1:
            raise ValueError("Causal padding is only supported for `Conv1D`and "
                             "`SeparableConv1D`.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > "
                             f"1`. Received: strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}")

    def _channel_axis(self) -> int:
        return -1 - self.rank if self._channels_first else -1

    def _input_channel(self, input_shape: TensorShape) -> int:
        axis = self._channel_axis()
        channels = input_shape.as_list()[axis] if input_shape.rank else None
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}, where axis {axis} "
                             "(0-based) is the channel dimension, which found to be `None`.")
        return int(channels)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        channels = self._input_channel(input_shape)
        if channels % self.groups != 0:
            raise ValueError("The number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input "
                             f"has {channels} channels (full input shape is {input_shape}).")
        self.compute_output_shape(input_shape)  # validates the spatial sizes first
        self.kernel = self.add_weight(
            name="kernel", shape=self.kernel_size + (channels // self.groups, self.filters),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                name="bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        else:
            self.bias = None
        self.input_spec = InputSpec(min_ndim=self.rank + 2,
                                    axes={self._channel_axis(): channels})
        super().build(input_shape)

    def convolution_op(self, inputs: Any, kernel: Any) -> Any:
        """TF's convolution of `inputs` with `kernel` under this layer's arguments."""
        if self._fast_conv2d:
            # the common Conv2D (NHWC, square stride, no dilation): `conv2d`'s int-stride path
            return conv_ops.conv2d(inputs, kernel, self.strides[0], self._tf_padding)
        padding = "VALID" if self.padding == "causal" else (
            self.padding.upper() if isinstance(self.padding, str) else self.padding)
        return conv_ops.convolution(inputs, kernel, strides=list(self.strides), padding=padding,
                                    dilations=list(self.dilation_rate),
                                    data_format=self._tf_data_format)

    def call(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is not None and inputs.dtype != dtypes.to_torch(compute):
            inputs = math_ops.cast(inputs, compute)
        if self.padding == "causal":
            # left-pad the time axis (the last for channels_first, the one before last else)
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = F.pad(inputs, (left, 0) if self._channels_first else (0, 0, left, 0))
        outputs = self.convolution_op(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias,
                                      data_format="NCHW" if self._channels_first else "NHWC")
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def _spatial_output_shape(self, spatial: list) -> list:
        return [conv_output_length(length, self.kernel_size[i], self.padding, self.strides[i],
                                   self.dilation_rate[i]) for i, length in enumerate(spatial)]

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        batch_rank = len(shape) - self.rank - 1
        try:
            if self._channels_first:
                out = shape[:batch_rank] + [self.filters] + self._spatial_output_shape(
                    shape[batch_rank + 1:])
            else:
                out = shape[:batch_rank] + self._spatial_output_shape(
                    shape[batch_rank:-1]) + [self.filters]
        except (TypeError, IndexError):
            out = None
        if out is None or batch_rank < 1 or any(d is not None and d <= 0 for d in out):
            raise ValueError("One of the dimensions in the output is <= 0 due to downsampling "
                             f"in {self.name}. Consider increasing the input size. Received "
                             f"input shape {TensorShape(input_shape)} which would produce "
                             "output shape with a zero or negative value in a dimension.")
        return TensorShape(out)

    def get_config(self) -> dict:
        config = {
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "groups": self.groups,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        base = Layer.get_config(self)
        return dict(list(base.items()) + list(config.items()))


def _public_conv(rank: int, name: str, aliases: tuple) -> type:
    def __init__(self: Conv, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = 1, groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        Conv.__init__(self, rank, filters, kernel_size, strides=strides, padding=padding,
                      data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                      activation=activation, use_bias=use_bias,
                      kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                      kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                      activity_regularizer=activity_regularizer,
                      kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                      **kwargs)

    doc = (f"{rank}-D convolution (tf_keras 2.x `{name}`): kernel "
           f"`[{', '.join(['k'] * rank)}, in // groups, filters]`, inputs "
           f"`[batch, {'spatial..., ' if rank > 1 else 'steps, '}channels]` (channels_last).")
    cls = type(name, (Conv,), {"__init__": __init__, "__doc__": doc,
                               "__module__": __name__, "__qualname__": name})
    __init__.__qualname__ = f"{name}.__init__"
    return keras_export(f"keras.layers.{name}", *(f"keras.layers.{a}" for a in aliases))(cls)


Conv1D = _public_conv(1, "Conv1D", ("Convolution1D",))
Conv2D = _public_conv(2, "Conv2D", ("Convolution2D",))
Conv3D = _public_conv(3, "Conv3D", ("Convolution3D",))
