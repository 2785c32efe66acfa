"""`tf.keras.layers.SpatialDropout1D/2D/3D`: `Dropout` that drops whole feature maps.

The noise shape is `(batch, 1, channels)` for 1-D, and `(batch, channels, 1, ...)` or
`(batch, 1, ..., channels)` for 2-D/3-D by `data_format` (default
`backend.image_data_format()`), so a channel of one example is kept or zeroed as a whole and
kept ones are scaled by `1 / (1 - rate)`. The inputs must have rank 3, 4, 5. As in tf_keras,
the config is `Dropout`'s (`rate`, `noise_shape`, `seed`): `data_format` is not in it.
Masks come from torch's random stream (see `Dropout`).
"""

from __future__ import annotations

from typing import Any, Optional

from ... import backend
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from .dropout import Dropout

__all__ = ["SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"]


def _check_data_format(data_format: Optional[str]) -> str:
    if data_format is None:
        data_format = backend.image_data_format()
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError('`data_format` must be "channels_last" or "channels_first". '
                         f"Received: data_format={data_format}.")
    return data_format


@keras_export("keras.layers.SpatialDropout1D")
class SpatialDropout1D(Dropout):
    """Drop whole channels of `(batch, steps, channels)` inputs in training."""

    def __init__(self, rate: Any, **kwargs: Any) -> None:
        super().__init__(rate, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def _get_noise_shape(self, inputs: Any) -> Any:
        return (inputs.shape[0], 1, inputs.shape[2])


class _SpatialDropoutND(Dropout):
    _rank = 0

    def __init__(self, rate: Any, data_format: Optional[str] = None, **kwargs: Any) -> None:
        data_format = _check_data_format(data_format)
        super().__init__(rate, **kwargs)
        self.data_format = data_format
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _get_noise_shape(self, inputs: Any) -> Any:
        ones = (1,) * self._rank
        if self.data_format == "channels_first":
            return (inputs.shape[0], inputs.shape[1]) + ones
        return (inputs.shape[0],) + ones + (inputs.shape[-1],)


@keras_export("keras.layers.SpatialDropout2D")
class SpatialDropout2D(_SpatialDropoutND):
    """Drop whole feature maps of 4-D inputs in training."""

    _rank = 2


@keras_export("keras.layers.SpatialDropout3D")
class SpatialDropout3D(_SpatialDropoutND):
    """Drop whole feature volumes of 5-D inputs in training."""

    _rank = 3
