"""The `Initializer` base class and the argument checks every tf.keras initializer shares.

An initializer is called as `init(shape, dtype=None, **kwargs)` and returns a plain
`torch.Tensor`; `dtype` defaults to `tf.keras.backend.floatx()`. The only keyword arguments
tf_keras accepts are its partitioning ones (`partition_shape`, `partition_offset`) and
DTensor's `layout`; anything else is TF's `TypeError`.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict

from ...framework import dtypes as _dtypes
from .. import backend
from ..saving.serialization import keras_export

__all__ = ["Initializer"]

PARTITION_SHAPE = "partition_shape"
PARTITION_OFFSET = "partition_offset"
LAYOUT = "layout"
_ALLOWED_KWARGS = [PARTITION_SHAPE, PARTITION_OFFSET, LAYOUT]


@keras_export("keras.initializers.Initializer")
class Initializer:
    """Base class of tf.keras initializers: `__call__(shape, dtype=None, **kwargs)`.

    `get_config()` returns `{}`; `from_config(config)` drops a `"dtype"` key (old configs
    carry one) and calls `cls(**config)`, as tf_keras.
    """

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "Initializer subclasses must implement the `__call__()` method.")

    def get_config(self) -> Dict[str, Any]:
        """The JSON-able constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Initializer":
        """`cls(**config)` without a `"dtype"` entry."""
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)

    def _warn_reuse(self) -> None:
        # tf_keras warns on the second call of an unseeded instance: its values repeat.
        if getattr(self, "_used", False):
            if getattr(self, "seed", None) is None:
                warnings.warn(
                    f"The initializer {type(self).__name__} is unseeded and being called "
                    "multiple times, which will return identical values each time (even if "
                    "the initializer is unseeded). Please update your code to provide a seed "
                    "to the initializer, or avoid using the same initializer instance more "
                    "than once.", stacklevel=3)
        else:
            self._used = True


def get_dtype(dtype: Any) -> _dtypes.DType:
    """`dtype` as a DType, `backend.floatx()` when None."""
    return _dtypes.as_dtype(backend.floatx() if dtype is None else dtype)


def assert_float_dtype(dtype: _dtypes.DType) -> _dtypes.DType:
    """TF's `ValueError` unless `dtype` is floating."""
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def validate_kwargs(cls_name: str, kwargs: Dict[str, Any], support_partition: bool = True
                    ) -> None:
    """TF's `TypeError` for unknown keyword arguments; partitioning only where supported."""
    invalid = [k for k in kwargs if k not in _ALLOWED_KWARGS]
    if invalid:
        raise TypeError(f"Unknown keyword arguments: {invalid}. Allowed keyword arguments: "
                        f"{_ALLOWED_KWARGS}.")
    if not support_partition and (PARTITION_SHAPE in kwargs or PARTITION_OFFSET in kwargs):
        raise ValueError(f"{cls_name} initializer doesn't support partition-related arguments.")
    if kwargs.get(LAYOUT) is not None:
        raise NotImplementedError("tfcompat has no DTensor: the `layout` argument is not supported.")


def shape_tuple(shape: Any) -> tuple:
    """`shape` (list, tuple, `TensorShape`, `torch.Size`) as a tuple of ints."""
    if hasattr(shape, "as_list") and not isinstance(shape, (list, tuple)):
        shape = shape.as_list()
    return tuple(int(d) for d in shape)


def partition_shape(shape: Any, kwargs: Dict[str, Any]) -> Any:
    """The shape to generate: the partition's when `partition_shape` is given."""
    return kwargs[PARTITION_SHAPE] if PARTITION_SHAPE in kwargs else shape


def compute_fans(shape: Any) -> tuple:
    """TF's `(fan_in, fan_out)` of a weight shape.

    Rank 0: `(1, 1)`; rank 1: `(n, n)`; rank 2 `[in, out]`: `(in, out)`; a convolution
    kernel `[*spatial, in, out]`: both times the receptive field (the spatial product).
    """
    shape = shape_tuple(shape)
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field = 1
        for dim in shape[:-2]:
            receptive_field *= dim
        fan_in = shape[-2] * receptive_field
        fan_out = shape[-1] * receptive_field
    return int(fan_in), int(fan_out)
