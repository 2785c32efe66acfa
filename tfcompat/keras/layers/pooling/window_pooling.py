"""`MaxPooling1D/2D/3D`, `AveragePooling1D/2D/3D`: TF's window pooling over the spatial axes.

The windows are TF's (`tfcompat.ops.pooling_ops`): `same` padding never wins a max and is not
counted in an average. `strides=None` means `pool_size`, as in tf_keras.
"""

from __future__ import annotations

from typing import Any, Optional

from ....framework.tensor_shape import TensorShape
from ....ops import pooling_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ..convolutional.conv_arguments import conv_output_length, normalize_padding, normalize_tuple

__all__ = ["MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
           "AveragePooling3D"]

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


class _Pooling(Layer):
    """An N-D window pooling (N = `rank`) with `pool_function(x, ksize, strides, padding, fmt)`."""

    _rank = 2
    _pool_function: Any = None

    def __init__(self, pool_size: Any, strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        rank = self._rank
        if data_format is None:
            data_format = backend.image_data_format()
        if strides is None:
            strides = pool_size
        self.pool_size = normalize_tuple(pool_size, rank, "pool_size")
        self.strides = normalize_tuple(strides, rank, "strides", allow_zero=True)
        self.padding = normalize_padding(padding)
        self.data_format = backend.normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)
        self._tf_format = _FORMATS[rank][self.data_format == "channels_first"]

    def call(self, inputs: Any) -> Any:
        return type(self)._pool_function(inputs, list(self.pool_size), list(self.strides),
                                         self.padding.upper(), self._tf_format)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial = shape[2:] if first else shape[1:-1]
        out = [conv_output_length(d, k, self.padding, s)
               for d, k, s in zip(spatial, self.pool_size, self.strides)]
        return TensorShape(shape[:2] + out if first else shape[:1] + out + shape[-1:])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "padding": self.padding,
                       "strides": self.strides, "data_format": self.data_format})
        return config


def _max1d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.max_pool1d(x, k, s, p, fmt)


def _avg1d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.avg_pool1d(x, k, s, p, fmt)


def _max2d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.max_pool2d(x, k, s, p, fmt)


def _avg2d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.avg_pool2d(x, k, s, p, fmt)


def _max3d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.max_pool3d(x, k, s, p, fmt)


def _avg3d(x: Any, k: list, s: list, p: str, fmt: str) -> Any:
    return pooling_ops.avg_pool3d(x, k, s, p, fmt)


@keras_export("keras.layers.MaxPooling1D", "keras.layers.MaxPool1D")
class MaxPooling1D(_Pooling):
    """Max pooling over the steps of `[batch, steps, channels]` (tf_keras `MaxPooling1D`)."""

    _rank = 1
    _pool_function = staticmethod(_max1d)

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: str = "channels_last", **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@keras_export("keras.layers.AveragePooling1D", "keras.layers.AvgPool1D")
class AveragePooling1D(_Pooling):
    """Average pooling over the steps of `[batch, steps, channels]` (tf_keras)."""

    _rank = 1
    _pool_function = staticmethod(_avg1d)

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: str = "channels_last", **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@keras_export("keras.layers.MaxPooling2D", "keras.layers.MaxPool2D")
class MaxPooling2D(_Pooling):
    """Max pooling over the rows and columns of an image batch (tf_keras `MaxPooling2D`)."""

    _rank = 2
    _pool_function = staticmethod(_max2d)

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@keras_export("keras.layers.AveragePooling2D", "keras.layers.AvgPool2D")
class AveragePooling2D(_Pooling):
    """Average pooling over the rows and columns of an image batch (tf_keras)."""

    _rank = 2
    _pool_function = staticmethod(_avg2d)

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@keras_export("keras.layers.MaxPooling3D", "keras.layers.MaxPool3D")
class MaxPooling3D(_Pooling):
    """Max pooling over the three spatial axes of a volume batch (tf_keras `MaxPooling3D`)."""

    _rank = 3
    _pool_function = staticmethod(_max3d)

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


@keras_export("keras.layers.AveragePooling3D", "keras.layers.AvgPool3D")
class AveragePooling3D(_Pooling):
    """Average pooling over the three spatial axes of a volume batch (tf_keras)."""

    _rank = 3
    _pool_function = staticmethod(_avg3d)

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)
