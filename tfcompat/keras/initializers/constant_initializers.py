"""The deterministic tf.keras initializers: `Zeros`, `Ones`, `Constant`, `Identity`."""

from __future__ import annotations

from typing import Any, Dict

import torch

from ...framework.tensor_conversion import constant as _constant
from ...ops import creation_ops as _creation_ops
from ...ops import math_ops as _math_ops
from ...ops import matrix_ops as _matrix_ops
from ..saving.serialization import keras_export
from .initializer import (Initializer, assert_float_dtype, get_dtype, partition_shape,
                          shape_tuple, validate_kwargs)

__all__ = ["Zeros", "Ones", "Constant", "Identity"]


def _numeric_or_bool(dtype: Any) -> Any:
    if not dtype.is_numpy_compatible:
        raise ValueError(f"Expected numeric or boolean dtype, got {dtype}.")
    return dtype


@keras_export("keras.initializers.Zeros", "keras.initializers.zeros")
class Zeros(Initializer):
    """`tf.keras.initializers.Zeros`: a tensor of zeros (any numeric or bool dtype)."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = _numeric_or_bool(get_dtype(dtype))
        return _creation_ops.zeros(partition_shape(shape, kwargs), dtype)


@keras_export("keras.initializers.Ones", "keras.initializers.ones")
class Ones(Initializer):
    """`tf.keras.initializers.Ones`: a tensor of ones (any numeric or bool dtype)."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = _numeric_or_bool(get_dtype(dtype))
        return _creation_ops.ones(partition_shape(shape, kwargs), dtype)


@keras_export("keras.initializers.Constant", "keras.initializers.constant")
class Constant(Initializer):
    """`tf.keras.initializers.Constant(value=0)`: `tf.constant(value, dtype, shape)`.

    A scalar fills the shape; a list or tensor must have the shape's element count (TF's
    `TypeError` otherwise).
    """

    def __init__(self, value: Any = 0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = get_dtype(dtype)
        shape = partition_shape(shape, kwargs)
        return _constant(self.value, dtype=dtype, shape=shape_tuple(shape))

    def get_config(self) -> Dict[str, Any]:
        return {"value": self.value}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Constant":
        """As the base's; a serialized tensor/array `value` (a dict) is deserialized first."""
        config = dict(config)
        config.pop("dtype", None)
        if isinstance(config.get("value"), dict):
            from ..saving.serialization import deserialize_keras_object
            config["value"] = deserialize_keras_object(config["value"])
        return cls(**config)


@keras_export("keras.initializers.Identity", "keras.initializers.identity")
class Identity(Initializer):
    """`tf.keras.initializers.Identity(gain=1.0)`: `gain * tf.eye(rows, cols)`, rank 2 only."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs, support_partition=False)
        dtype = assert_float_dtype(get_dtype(dtype))
        dims = shape_tuple(shape)
        if len(dims) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. Received: "
                f"shape={shape} of rank {len(dims)}.")
        return _math_ops.multiply(self.gain, _matrix_ops.eye(*dims, dtype=dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain}
