"""`ReLU`, `LeakyReLU`, `ELU`: the rectifier layers, over `keras.activations.relu` / `elu`.

As tf_keras, the constructor's numbers are kept as `floatx()` NumPy scalars
(`backend.cast_to_floatx`), ReLU's config gives them as such and LeakyReLU's / ELU's as
Python floats; each layer passes masks through and keeps the input shape.
"""

from __future__ import annotations

from typing import Any, Optional

from ....framework.tensor_shape import TensorShape
from ... import activations, backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["ReLU", "LeakyReLU", "ELU"]


class _Elementwise(Layer):
    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)


@keras_export("keras.layers.ReLU")
class ReLU(_Elementwise):
    """`max_value`-clipped ReLU with a `negative_slope` below `threshold` (tf_keras `ReLU`)."""

    def __init__(self, max_value: Optional[float] = None, negative_slope: float = 0.0,
                 threshold: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. "
                             f"Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError("negative_slope of a ReLU layer cannot be a negative value. "
                             f"Received: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError("threshold of a ReLU layer cannot be a negative value. "
                             f"Received: {threshold}")
        self.supports_masking = True
        self.max_value = None if max_value is None else backend.cast_to_floatx(max_value)
        self.negative_slope = backend.cast_to_floatx(negative_slope)
        self.threshold = backend.cast_to_floatx(threshold)
        # plain floats for `call`: the NumPy scalars above are for the config
        self._relu_args = (float(negative_slope),
                           None if max_value is None else float(self.max_value),
                           float(self.threshold))

    def call(self, inputs: Any) -> Any:
        alpha, max_value, threshold = self._relu_args
        return activations.relu(inputs, alpha=alpha, max_value=max_value, threshold=threshold)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


@keras_export("keras.layers.LeakyReLU")
class LeakyReLU(_Elementwise):
    """`x` for `x >= 0`, else `alpha * x` (tf_keras `LeakyReLU`, alpha 0.3)."""

    def __init__(self, alpha: float = 0.3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("The alpha value of a Leaky ReLU layer cannot be None, Expecting a "
                             f"float. Received: {alpha}")
        self.supports_masking = True
        self.alpha = backend.cast_to_floatx(alpha)
        self._alpha = float(self.alpha)

    def call(self, inputs: Any) -> Any:
        return activations.relu(inputs, alpha=self._alpha)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"alpha": float(self.alpha)})
        return config


@keras_export("keras.layers.ELU")
class ELU(_Elementwise):
    """`x` for `x > 0`, else `alpha * (exp(x) - 1)` (tf_keras `ELU`)."""

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("Alpha of an ELU layer cannot be None, expecting a float. "
                             f"Received: {alpha}")
        self.supports_masking = True
        self.alpha = backend.cast_to_floatx(alpha)
        self._alpha = float(self.alpha)

    def call(self, inputs: Any) -> Any:
        return activations.elu(inputs, self._alpha)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"alpha": float(self.alpha)})
        return config
