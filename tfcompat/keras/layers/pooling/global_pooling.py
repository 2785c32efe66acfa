"""`GlobalAveragePooling1D/2D/3D`, `GlobalMaxPooling1D/2D/3D`: a mean or max over every spatial axis.

As tf_keras: `keepdims` keeps the reduced axes as size 1; `GlobalAveragePooling1D` takes a
`[batch, steps]` mask (masked steps are left out of the mean) and emits no mask.
"""

from __future__ import annotations

from typing import Any, Optional

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, math_ops, reduction_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAveragePooling3D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "GlobalMaxPooling3D"]


class _GlobalPooling(Layer):
    _rank = 1

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.input_spec = InputSpec(ndim=self._rank + 2)
        self.data_format = backend.normalize_data_format(data_format)
        self.keepdims = keepdims
        first = self.data_format == "channels_first"
        self._axes = list(range(2, self._rank + 2)) if first else list(range(1, self._rank + 1))

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape).as_list()
        for axis in self._axes:
            if shape[axis] == 0:
                raise ValueError(f"Incorrect input shape {shape} with dimension 0 at reduction "
                                 f"axis {axis}.")
        super().build(input_shape)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if self.keepdims:
            return TensorShape([1 if i in self._axes else d for i, d in enumerate(shape)])
        return TensorShape([d for i, d in enumerate(shape) if i not in self._axes])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


@keras_export("keras.layers.GlobalAveragePooling1D", "keras.layers.GlobalAvgPool1D")
class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps of `[batch, steps, channels]` (masked steps excluded)."""

    _rank = 1

    def __init__(self, data_format: str = "channels_last", **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        axis = self._axes[0]
        if mask is None:
            return reduction_ops.reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
        mask = array_ops.expand_dims(math_ops.cast(mask, inputs.dtype), 3 - axis)
        total = reduction_ops.reduce_sum(inputs * mask, axis=axis, keepdims=self.keepdims)
        return total / reduction_ops.reduce_sum(mask, axis=axis, keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None


@keras_export("keras.layers.GlobalMaxPooling1D", "keras.layers.GlobalMaxPool1D")
class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps of `[batch, steps, channels]`."""

    _rank = 1

    def __init__(self, data_format: str = "channels_last", **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)

    def call(self, inputs: Any) -> Any:
        return reduction_ops.reduce_max(inputs, axis=self._axes[0], keepdims=self.keepdims)


@keras_export("keras.layers.GlobalAveragePooling2D", "keras.layers.GlobalAvgPool2D")
class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over the rows and columns of an image batch."""

    _rank = 2

    def call(self, inputs: Any) -> Any:
        return reduction_ops.reduce_mean(inputs, axis=self._axes, keepdims=self.keepdims)


@keras_export("keras.layers.GlobalMaxPooling2D", "keras.layers.GlobalMaxPool2D")
class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over the rows and columns of an image batch."""

    _rank = 2

    def call(self, inputs: Any) -> Any:
        return reduction_ops.reduce_max(inputs, axis=self._axes, keepdims=self.keepdims)


@keras_export("keras.layers.GlobalAveragePooling3D", "keras.layers.GlobalAvgPool3D")
class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over the three spatial axes of a volume batch."""

    _rank = 3

    def call(self, inputs: Any) -> Any:
        return reduction_ops.reduce_mean(inputs, axis=self._axes, keepdims=self.keepdims)


@keras_export("keras.layers.GlobalMaxPooling3D", "keras.layers.GlobalMaxPool3D")
class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over the three spatial axes of a volume batch."""

    _rank = 3

    def call(self, inputs: Any) -> Any:
        return reduction_ops.reduce_max(inputs, axis=self._axes, keepdims=self.keepdims)
