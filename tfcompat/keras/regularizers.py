"""`tf.keras.regularizers`: tf_keras 2.21's weight penalties and `get`/`serialize`/`deserialize`.

Formulas and dtypes as tf_keras: a factor is stored as a `floatx()` NumPy scalar
(`L2(0.01).l2` is `float32(0.01)`, so its config holds `0.009999999776482582`) and is cast to
the weight's dtype when applied, so a float64 weight gets a float64 penalty of the float32
factor; `L2` is `2 * l2 * tf.nn.l2_loss(x)` (= `l2 * sum(x**2)`), `L1` is
`l1 * sum(|x|)`, `L1L2` adds both to a zero of `x`'s dtype, `OrthogonalRegularizer` is
`factor * 0.5 * sum|offdiag(N N^T)| / (n (n - 1) / 2)` over the l2-normalized rows (or
columns) `N`. Factors must be finite Python ints or floats (TF's `ValueError`).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

import numpy as np
import torch

from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops as _array_ops
from ..ops import math_ops as _math_ops
from ..ops import matrix_ops as _matrix_ops
from ..ops import nn_ops as _nn_ops
from ..ops import normalization_ops as _normalization_ops
from ..ops import reduction_ops as _reduction_ops
from . import backend
from .saving import serialization as _serialization
from .saving.serialization import keras_export

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2",
           "orthogonal_regularizer", "get", "serialize", "deserialize"]


def _check_penalty_number(x: Any) -> None:
    if not isinstance(x, (float, int)):
        raise ValueError(f"Value {x} is not a valid regularization penalty number, expected an "
                         "int or float value.")
    if math.isinf(x) or math.isnan(x):
        raise ValueError(f"Value {x} is not a valid regularization penalty number, an infinite "
                         "number or NaN are not valid values.")


def _factor(value: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    # TF converts a NumPy scalar operand to the tensor operand's dtype.
    return convert_to_tensor(np.asarray(value).astype(np.float64), dtype=like.dtype) \
        if like.dtype.is_floating_point else _math_ops.cast(np.asarray(value), like.dtype)


@keras_export("keras.regularizers.Regularizer")
class Regularizer:
    """Base class: `__call__(x)` returns the penalty (0.0 here); `get_config` must be
    overridden (TF's `NotImplementedError`); `from_config(config)` is `cls(**config)`."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Regularizer":
        return cls(**config)

    def get_config(self) -> Dict[str, Any]:
        raise NotImplementedError(f"{self} does not implement get_config()")


@keras_export("keras.regularizers.L1L2")
class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)`; both default to 0 (`l1_l2()` defaults to 0.01)."""

    def __init__(self, l1: Any = 0.0, l2: Any = 0.0) -> None:  # noqa: E741 - TF's names
        l1 = 0.0 if l1 is None else l1
        l2 = 0.0 if l2 is None else l2
        _check_penalty_number(l1)
        _check_penalty_number(l2)
        self.l1 = backend.cast_to_floatx(l1)
        self.l2 = backend.cast_to_floatx(l2)

    def __call__(self, x: Any) -> torch.Tensor:
        x = convert_to_tensor(x)
        regularization = convert_to_tensor(0.0, dtype=x.dtype)
        if self.l1:
            regularization = _math_ops.add(regularization, _math_ops.multiply(
                _factor(self.l1, x), _reduction_ops.reduce_sum(_math_ops.abs(x))))
        if self.l2:
            regularization = _math_ops.add(regularization, _math_ops.multiply(
                _factor(2.0 * self.l2, x), _nn_ops.l2_loss(x)))
        return regularization

    def get_config(self) -> Dict[str, Any]:
        return {"l1": float(self.l1), "l2": float(self.l2)}


@keras_export("keras.regularizers.L1", "keras.regularizers.l1")
class L1(Regularizer):
    """`l1 * sum(|x|)`, `l1=0.01` by default (`l=` is accepted as its alias)."""

    def __init__(self, l1: Any = 0.01, **kwargs: Any) -> None:
        l1 = kwargs.pop("l", l1)
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        l1 = 0.01 if l1 is None else l1
        _check_penalty_number(l1)
        self.l1 = backend.cast_to_floatx(l1)

    def __call__(self, x: Any) -> torch.Tensor:
        x = convert_to_tensor(x)
        return _math_ops.multiply(_factor(self.l1, x),
                                  _reduction_ops.reduce_sum(_math_ops.abs(x)))

    def get_config(self) -> Dict[str, Any]:
        return {"l1": float(self.l1)}


@keras_export("keras.regularizers.L2", "keras.regularizers.l2")
class L2(Regularizer):
    """`l2 * sum(x**2)` (as `2 * l2 * tf.nn.l2_loss(x)`), `l2=0.01` by default."""

    def __init__(self, l2: Any = 0.01, **kwargs: Any) -> None:
        l2 = kwargs.pop("l", l2)
        if kwargs:
            raise TypeError(f"Argument(s) not recognized: {kwargs}")
        l2 = 0.01 if l2 is None else l2
        _check_penalty_number(l2)
        self.l2 = backend.cast_to_floatx(l2)

    def __call__(self, x: Any) -> torch.Tensor:
        x = convert_to_tensor(x)
        return _math_ops.multiply(_factor(2.0 * self.l2, x), _nn_ops.l2_loss(x))

    def get_config(self) -> Dict[str, Any]:
        return {"l2": float(self.l2)}


@keras_export("keras.regularizers.OrthogonalRegularizer",
              "keras.regularizers.orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """Penalizes non-orthogonal rows (`mode="rows"`) or columns of a rank-2 weight:
    `factor * 0.5 * mean over pairs of |cos(angle)|`, summed as TF does."""

    def __init__(self, factor: Any = 0.01, mode: str = "rows") -> None:
        _check_penalty_number(factor)
        self.factor = backend.cast_to_floatx(factor)
        if mode not in {"rows", "columns"}:
            raise ValueError("Invalid value for argument `mode`. Expected one of "
                             f'{{"rows", "columns"}}. Received: mode={mode}')
        self.mode = mode

    def __call__(self, inputs: Any) -> torch.Tensor:
        inputs = convert_to_tensor(inputs)
        if inputs.dim() != 2:
            raise ValueError("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape == {tuple(inputs.shape)}")
        if self.mode == "rows":
            inputs = _normalization_ops.l2_normalize(inputs, axis=1)
            product = _math_ops.matmul(inputs, _array_ops.transpose(inputs))
            size = inputs.shape[0]
        else:
            inputs = _normalization_ops.l2_normalize(inputs, axis=0)
            product = _math_ops.matmul(_array_ops.transpose(inputs), inputs)
            size = inputs.shape[1]
        off_diagonal = _math_ops.multiply(product, _math_ops.subtract(
            convert_to_tensor(1.0, dtype=inputs.dtype),
            _matrix_ops.eye(size, dtype=inputs.dtype)))
        num_pairs = size * (size - 1.0) / 2.0
        total = _reduction_ops.reduce_sum(_math_ops.abs(off_diagonal))
        penalty = _math_ops.multiply(_factor(self.factor * 0.5, inputs), total)
        return _math_ops.divide(penalty, convert_to_tensor(num_pairs, dtype=inputs.dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"factor": float(self.factor), "mode": self.mode}


@keras_export("keras.regularizers.l1_l2")
def l1_l2(l1: Any = 0.01, l2: Any = 0.01) -> L1L2:  # noqa: E741
    """`L1L2(l1, l2)` with both factors 0.01 by default."""
    return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2
orthogonal_regularizer = OrthogonalRegularizer

_MODULE_OBJECTS: Dict[str, Any] = {
    "Regularizer": Regularizer, "L1L2": L1L2, "L1": L1, "L2": L2,
    "OrthogonalRegularizer": OrthogonalRegularizer, "l1_l2": l1_l2, "l1": L1, "l2": L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer: Any, use_legacy_format: bool = False) -> Any:
    """The config of `regularizer` (a warning, as tf_keras, for a non-`Regularizer`)."""
    if regularizer is None:
        return None
    _serialization.warn_if_not_instance("regularizers", "Regularizer", regularizer,
                                        (Regularizer,))
    if use_legacy_format:
        return _serialization.legacy_serialize_keras_object(regularizer)
    return _serialization.serialize_keras_object(regularizer)


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """The regularizer a config or name describes (`"l1_l2"` is `L1L2(0.01, 0.01)`).

    As tf_keras, an unknown *name* comes back unchanged (no error) outside the legacy path.
    """
    if config == "l1_l2":
        return L1L2(l1=0.01, l2=0.01)
    if use_legacy_format:
        return _serialization.legacy_deserialize_keras_object(
            config, module_objects=_MODULE_OBJECTS, custom_objects=custom_objects,
            printable_module_name="regularizer")
    return _serialization.deserialize_keras_object(
        config, module_objects=_MODULE_OBJECTS, custom_objects=custom_objects,
        printable_module_name="regularizer")


def get(identifier: Any) -> Any:
    """`tf.keras.regularizers.get`: None, a config dict, a name, or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier, use_legacy_format="module" not in identifier)
    if isinstance(identifier, str):
        return deserialize(str(identifier))
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
