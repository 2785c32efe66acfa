"""`tf.compat.v1.layers` convolutions and poolings: the Keras layers with TF 1's signatures.

The math is the Keras layer's; the TF 1 class adds the legacy base (`legacy_layers_base`):
weights through `get_variable` in the layer's variable scope (`conv2d/kernel`,
`conv2d_1/bias`). TF 1's signatures differ from Keras's in order (no `groups`), in defaults
(`data_format="channels_last"`, `kernel_initializer=None`: the scope's initializer, else
Glorot uniform) and, for poolings, in `strides` being required.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ...keras import layers as keras_layers
from .legacy_layers_base import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
           "SeparableConv1D", "SeparableConv2D", "MaxPooling1D", "AveragePooling1D",
           "MaxPooling2D", "AveragePooling2D", "MaxPooling3D", "AveragePooling3D",
           "conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose",
           "separable_conv1d", "separable_conv2d", "max_pooling1d", "average_pooling1d",
           "max_pooling2d", "average_pooling2d", "max_pooling3d", "average_pooling3d",
           "constructor_arguments", "deprecated_call"]


def constructor_arguments(local_vars: dict) -> dict:
    """A TF 1 constructor's named arguments plus its `**kwargs`, for the Keras base."""
    args = {k: v for k, v in local_vars.items()
            if k not in ("self", "__class__", "kwargs", "inputs", "training", "reuse")}
    args.update(local_vars.get("kwargs", {}))
    return args


def deprecated_call(function: str, cls: type, local_vars: dict, extra: str = "",
                    **call_kwargs: Any) -> Any:
    """A function form: warn as TF does, build a fresh `cls` layer and call it on `inputs`.

    `name` becomes the layer's `_scope` and `reuse` its `_reuse` (when the function has
    them), so `dense(x, 3, name="d", reuse=AUTO_REUSE)` twice shares `d/kernel`; each call
    builds a new layer object, as in TF.
    """
    import warnings
    warnings.warn(f"`tf.layers.{function}` is deprecated and will be removed in a future "
                  f"version. Please use `tf.keras.layers.{cls.__name__}` instead.{extra}",
                  stacklevel=3)
    args = constructor_arguments(local_vars)
    if "reuse" in local_vars:
        args["_scope"] = local_vars["name"]
        args["_reuse"] = local_vars["reuse"]
    return cls(**args)(local_vars["inputs"], **call_kwargs)


# --------------------------------------------------------------------------- convolutions
class Conv1D(keras_layers.Conv1D, Layer):
    """1-D convolution (TF 1 `tf.layers.Conv1D`): kernel `[k, in, filters]`."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1,
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class Conv2D(keras_layers.Conv2D, Layer):
    """2-D convolution (TF 1 `tf.layers.Conv2D`): kernel `[kh, kw, in, filters]`."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class Conv3D(keras_layers.Conv3D, Layer):
    """3-D convolution (TF 1 `tf.layers.Conv3D`): kernel `[kd, kh, kw, in, filters]`."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class Conv2DTranspose(keras_layers.Conv2DTranspose, Layer):
    """2-D transposed convolution (TF 1 `tf.layers.Conv2DTranspose`): kernel
    `[kh, kw, filters, in]`."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class Conv3DTranspose(keras_layers.Conv3DTranspose, Layer):
    """3-D transposed convolution (TF 1 `tf.layers.Conv3DTranspose`)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class SeparableConv1D(keras_layers.SeparableConv1D, Layer):
    """Depthwise then pointwise 1-D convolution (TF 1 `tf.layers.SeparableConv1D`)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1,
                 depth_multiplier: int = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


class SeparableConv2D(keras_layers.SeparableConv2D, Layer):
    """Depthwise then pointwise 2-D convolution (TF 1 `tf.layers.SeparableConv2D`)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


def conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1,
           padding: str = "valid", data_format: str = "channels_last", dilation_rate: Any = 1,
           activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
           bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
           name: Optional[str] = None, reuse: Any = None) -> Any:
    """TF 1's `tf.layers.conv1d`: a new `Conv1D` (scope `name`, `reuse`) applied to `inputs`."""
    return deprecated_call("conv1d", Conv1D, locals())


def conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = "zeros",
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
           reuse: Any = None) -> Any:
    """TF 1's `tf.layers.conv2d`: a new `Conv2D` (scope `name`, `reuse`) applied to `inputs`."""
    return deprecated_call("conv2d", Conv2D, locals())


def conv3d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = "zeros",
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
           reuse: Any = None) -> Any:
    """TF 1's `tf.layers.conv3d`: a new `Conv3D` applied to `inputs`."""
    return deprecated_call("conv3d", Conv3D, locals())


def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                     kernel_regularizer: Any = None, bias_regularizer: Any = None,
                     activity_regularizer: Any = None, kernel_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Any:
    """TF 1's `tf.layers.conv2d_transpose`: a new `Conv2DTranspose` applied to `inputs`."""
    return deprecated_call("conv2d_transpose", Conv2DTranspose, locals())


def conv3d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                     kernel_regularizer: Any = None, bias_regularizer: Any = None,
                     activity_regularizer: Any = None, kernel_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Any:
    """TF 1's `tf.layers.conv3d_transpose`: a new `Conv3DTranspose` applied to `inputs`."""
    return deprecated_call("conv3d_transpose", Conv3DTranspose, locals())


def separable_conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1,
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                     use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = "zeros",
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Any:
    """TF 1's `tf.layers.separable_conv1d`: a new `SeparableConv1D` applied to `inputs`."""
    return deprecated_call("separable_conv1d", SeparableConv1D, locals())


def separable_conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                     activation: Any = None, use_bias: bool = True,
                     depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                     bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                     pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                     activity_regularizer: Any = None, depthwise_constraint: Any = None,
                     pointwise_constraint: Any = None, bias_constraint: Any = None,
                     trainable: bool = True, name: Optional[str] = None,
                     reuse: Any = None) -> Any:
    """TF 1's `tf.layers.separable_conv2d`: a new `SeparableConv2D` applied to `inputs`."""
    return deprecated_call("separable_conv2d", SeparableConv2D, locals())


# --------------------------------------------------------------------------- poolings
def _pooling(keras_cls: type, doc: str) -> type:
    """A TF 1 pooling class over `keras_cls`: `strides` is required (TF 1's rule)."""

    def __init__(self: Any, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if strides is None:
            raise ValueError("Argument `strides` must not be None.")
        keras_cls.__init__(self, pool_size=pool_size, strides=strides, padding=padding,
                           data_format=data_format, name=name, **kwargs)

    name = keras_cls.__name__
    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (keras_cls, Layer), {"__init__": __init__, "__doc__": doc,
                                           "__module__": __name__, "__qualname__": name})


MaxPooling1D = _pooling(keras_layers.MaxPooling1D, "TF 1 `tf.layers.MaxPooling1D`.")
AveragePooling1D = _pooling(keras_layers.AveragePooling1D, "TF 1 `tf.layers.AveragePooling1D`.")
MaxPooling2D = _pooling(keras_layers.MaxPooling2D, "TF 1 `tf.layers.MaxPooling2D`.")
AveragePooling2D = _pooling(keras_layers.AveragePooling2D, "TF 1 `tf.layers.AveragePooling2D`.")
MaxPooling3D = _pooling(keras_layers.MaxPooling3D, "TF 1 `tf.layers.MaxPooling3D`.")
AveragePooling3D = _pooling(keras_layers.AveragePooling3D, "TF 1 `tf.layers.AveragePooling3D`.")


def _pooling_function(function: str, cls: type) -> Callable[..., Any]:
    def pool(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
             data_format: str = "channels_last", name: Optional[str] = None) -> Any:
        arguments = dict(inputs=inputs, pool_size=pool_size, strides=strides, padding=padding,
                         data_format=data_format, name=name)
        return deprecated_call(function, cls, arguments)

    pool.__name__ = pool.__qualname__ = function
    pool.__doc__ = f"TF 1's `tf.layers.{function}`: a new `{cls.__name__}` applied to `inputs`."
    return pool


max_pooling1d = _pooling_function("max_pooling1d", MaxPooling1D)
average_pooling1d = _pooling_function("average_pooling1d", AveragePooling1D)
max_pooling2d = _pooling_function("max_pooling2d", MaxPooling2D)
average_pooling2d = _pooling_function("average_pooling2d", AveragePooling2D)
max_pooling3d = _pooling_function("max_pooling3d", MaxPooling3D)
average_pooling3d = _pooling_function("average_pooling3d", AveragePooling3D)
