"""`Cropping1D/2D/3D`: remove `(before, after)` steps from each spatial axis.

tf_keras's rules: `Cropping1D(cropping=(1, 1))` crops the time axis of `[batch, steps,
features]`; `Cropping2D(cropping)` and `Cropping3D(cropping)` take an int, one int per axis
or one `(before, after)` pair per axis, in `data_format`. Cropping 1-D and 2-D inputs to
nothing (or less) is tf_keras's ValueError; a 3-D crop that large gives an empty axis, as
tf_keras's slicing does. The crops are slices, so the gradient is the cotangent scattered
back into zeros.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from ....framework.tensor_shape import TensorShape
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ..convolutional.conv_arguments import normalize_tuple
from .spatial_arguments import normalize_pairs, spatial_axes

__all__ = ["Cropping1D", "Cropping2D", "Cropping3D"]


def _crop(inputs: Any, axes: Tuple[int, ...], cropping: Tuple[Tuple[int, int], ...]) -> Any:
    index = [slice(None)] * inputs.dim()
    for axis, (before, after) in zip(axes, cropping):
        # `a:-b` as tf_keras writes it (an `after` of 0 means "to the end")
        index[axis] = slice(before, -after if after else None)
    return inputs[tuple(index)]


class _Cropping(Layer):
    _rank = 0

    def __init__(self, cropping: Tuple[Tuple[int, int], ...], data_format: Optional[str],
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = cropping
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _axes(self) -> Tuple[int, ...]:
        return spatial_axes(getattr(self, "data_format", "channels_last"), self._rank)

    def _pairs(self) -> Tuple[Tuple[int, int], ...]:
        return self.cropping

    def _cropped(self, size: Optional[int], pair: Tuple[int, int]) -> Optional[int]:
        return None if size is None else size - pair[0] - pair[1]

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        for axis, pair in zip(self._axes(), self._pairs()):
            shape[axis] = self._cropped(shape[axis], pair)
        return TensorShape(shape)

    def call(self, inputs: Any) -> Any:
        return _crop(inputs, self._axes(), self._pairs())

    def get_config(self) -> dict:
        config = {"cropping": self.cropping}
        if hasattr(self, "data_format"):
            config["data_format"] = self.data_format
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.Cropping1D")
class Cropping1D(_Cropping):
    """Crops the time axis of `[batch, steps, features]` by `cropping = (before, after)`."""

    _rank = 1

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(normalize_tuple(cropping, 2, "cropping", allow_zero=True), None,
                         **kwargs)

    def _pairs(self) -> Tuple[Tuple[int, int], ...]:
        return (self.cropping,)

    def call(self, inputs: Any) -> Any:
        if sum(self.cropping) >= inputs.shape[1]:
            raise ValueError(
                "cropping parameter of Cropping layer must be greater than the input shape. "
                f"Received: inputs.shape={TensorShape(inputs.shape)}, and "
                f"cropping={self.cropping}")
        return super().call(inputs)


@keras_export("keras.layers.Cropping2D")
class Cropping2D(_Cropping):
    """Crops the two spatial axes of an image (`((top, bottom), (left, right))`)."""

    _rank = 2

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        pairs = normalize_pairs(
            cropping, 2, "cropping",
            "`cropping` should be either an int, a tuple of 2 ints (symmetric_height_crop, "
            "symmetric_width_crop), or a tuple of 2 tuples of 2 ints ((top_crop, bottom_crop), "
            "(left_crop, right_crop)).")
        super().__init__(pairs, data_format, **kwargs)
        self.data_format = data_format

    def _cropped(self, size: Optional[int], pair: Tuple[int, int]) -> Optional[int]:
        # tf_keras tests the size for truth here: a 0-sized axis reads as unknown
        return size - pair[0] - pair[1] if size else None

    def call(self, inputs: Any) -> Any:
        for axis, pair in zip(self._axes(), self.cropping):
            if sum(pair) >= inputs.shape[axis]:
                raise ValueError(
                    "Argument `cropping` must be greater than the input shape. Received: "
                    f"inputs.shape={TensorShape(inputs.shape)}, and cropping={self.cropping}")
        return super().call(inputs)


@keras_export("keras.layers.Cropping3D")
class Cropping3D(_Cropping):
    """Crops the three spatial axes of a volume (one `(before, after)` pair each)."""

    _rank = 3

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        data_format = backend.normalize_data_format(data_format)
        pairs = normalize_pairs(
            cropping, 3, "cropping",
            "`cropping` should be either an int, a tuple of 3 ints (symmetric_dim1_crop, "
            "symmetric_dim2_crop, symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints "
            "((left_dim1_crop, right_dim1_crop), (left_dim2_crop, right_dim2_crop), "
            "(left_dim3_crop, right_dim2_crop)).")
        super().__init__(pairs, data_format, **kwargs)
        self.data_format = data_format
