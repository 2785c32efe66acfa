"""`tf.keras.constraints`: tf_keras 2.21's weight projections and `get`/`serialize`/`deserialize`.

A constraint maps a weight to its projection (`w -> w'`), applied by the optimizer after
each update. Formulas as tf_keras, with `norms = sqrt(sum(w**2, axis, keepdims=True))` and
`eps = backend.epsilon()`: `MaxNorm` is `w * clip(norms, 0, max_value) / (eps + norms)`,
`UnitNorm` `w / (eps + norms)`, `MinMaxNorm` blends the clipped norm in by `rate`,
`NonNeg` is `w * cast(w >= 0, floatx())` (so, as in TF, a weight of another dtype is TF's
`InvalidArgumentError`), and `RadialConstraint` rebuilds each spatial kernel of a rank-4
weight from its diagonal, ring by ring, exactly as tf_keras's loop does.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import torch

from ..framework.tensor_conversion import convert_to_tensor
from ..ops import clip_ops as _clip_ops
from ..ops import math_ops as _math_ops
from ..ops import reduction_ops as _reduction_ops
from ..ops import unary_ops as _unary_ops
from . import backend
from .saving import serialization as _serialization
from .saving.serialization import keras_export

__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "RadialConstraint",
           "max_norm", "non_neg", "unit_norm", "min_max_norm", "radial_constraint", "get",
           "serialize", "deserialize"]


def _norms(w: torch.Tensor, axis: Any) -> torch.Tensor:
    return _unary_ops.sqrt(_reduction_ops.reduce_sum(_unary_ops.square(w), axis=axis,
                                                     keepdims=True))


def _clip(x: torch.Tensor, min_value: Any, max_value: Any) -> torch.Tensor:
    # tf.keras.backend.clip: an inverted numeric range collapses to min_value; None is open.
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        if max_value < min_value:
            max_value = min_value
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return _clip_ops.clip_by_value(x, min_value, max_value)


def _scalar(value: Any, like: torch.Tensor) -> torch.Tensor:
    return convert_to_tensor(value, dtype=like.dtype)


def _over_eps_plus(w: torch.Tensor, numerator: torch.Tensor, norms: torch.Tensor
                   ) -> torch.Tensor:
    denominator = _math_ops.add(_scalar(backend.epsilon(), norms), norms)
    return _math_ops.multiply(w, _math_ops.divide(numerator, denominator))


@keras_export("keras.constraints.Constraint")
class Constraint:
    """Base class: `__call__(w)` returns `w`; `get_config()` is `{}`."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> Dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Constraint":
        return cls(**config)


@keras_export("keras.constraints.MaxNorm", "keras.constraints.max_norm")
class MaxNorm(Constraint):
    """Rescale slices along `axis` whose l2 norm exceeds `max_value` (default 2, axis 0)."""

    def __init__(self, max_value: Any = 2, axis: Any = 0) -> None:
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w: Any) -> torch.Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = _clip(norms, 0, self.max_value)
        return _over_eps_plus(w, desired, norms)

    def get_config(self) -> Dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


@keras_export("keras.constraints.NonNeg", "keras.constraints.non_neg")
class NonNeg(Constraint):
    """Zero the negative entries: `w * cast(w >= 0, floatx())`."""

    def __call__(self, w: Any) -> torch.Tensor:
        w = convert_to_tensor(w)
        mask = _math_ops.cast(_math_ops.greater_equal(w, _scalar(0.0, w)), backend.floatx())
        return _math_ops.multiply(w, mask)


@keras_export("keras.constraints.UnitNorm", "keras.constraints.unit_norm")
class UnitNorm(Constraint):
    """Scale slices along `axis` (default 0) to unit l2 norm: `w / (eps + norms)`."""

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> torch.Tensor:
        w = convert_to_tensor(w)
        denominator = _math_ops.add(_scalar(backend.epsilon(), w), _norms(w, self.axis))
        return _math_ops.divide(w, denominator)

    def get_config(self) -> Dict[str, Any]:
        return {"axis": self.axis}


@keras_export("keras.constraints.MinMaxNorm", "keras.constraints.min_max_norm")
class MinMaxNorm(Constraint):
    """Pull slice norms into `[min_value, max_value]`:
    `desired = rate * clip(norms, min, max) + (1 - rate) * norms`."""

    def __init__(self, min_value: Any = 0.0, max_value: Any = 1.0, rate: Any = 1.0,
                 axis: Any = 0) -> None:
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w: Any) -> torch.Tensor:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = _math_ops.add(
            _math_ops.multiply(_scalar(self.rate, norms),
                               _clip(norms, self.min_value, self.max_value)),
            _math_ops.multiply(_scalar(1 - self.rate, norms), norms))
        return _over_eps_plus(w, desired, norms)

    def get_config(self) -> Dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


@keras_export("keras.constraints.RadialConstraint", "keras.constraints.radial_constraint")
class RadialConstraint(Constraint):
    """Make each `(height, width)` kernel of a rank-4 weight radially symmetric.

    As tf_keras's loop: with `s = size // 2` (the kernel's first dimension), an odd kernel
    keeps `k[s-1, s-1]` at its centre and fills the ring at Chebyshev distance `d >= 1`
    with `k[s+d-1, s+d-1]`; an even kernel fills its central 2x2 with `k[s-1, s-1]` and
    ring `d >= 1` with `k[s+d, s+d]`.
    """

    def __call__(self, w: Any) -> torch.Tensor:
        w = convert_to_tensor(w)
        if w.dim() != 4:
            raise ValueError("The weight tensor must have rank 4. Received weight tensor with "
                             f"shape: {tuple(w.shape)}")
        height, width = w.shape[0], w.shape[1]
        size = height
        start = size // 2
        idx = torch.arange(size, device=w.device)
        if size % 2:
            ring = (idx - start).abs()
            source = torch.where(ring == 0, start - 1, start + ring - 1)
        else:
            ring = torch.where(idx <= start - 1, start - 1 - idx, idx - start)
            source = torch.where(ring == 0, start - 1, start + ring)
        # The source index grows with the ring, so a cell's (its outer coordinate's ring)
        # is the larger of its row's and its column's.
        src = torch.maximum(source[:, None], source[None, :])  # [size, size]
        diagonal = w[idx, idx]  # [size, C, K]: k[i, i] for every kernel
        out = diagonal[src]  # [size, size, C, K]
        return out.reshape(height, width, *w.shape[2:])


max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm
radial_constraint = RadialConstraint
# tf_keras's older spellings, which `get` still resolves.
maxnorm = max_norm
nonneg = non_neg
unitnorm = unit_norm

_MODULE_OBJECTS: Dict[str, Any] = {
    "Constraint": Constraint, "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm,
    "MinMaxNorm": MinMaxNorm, "RadialConstraint": RadialConstraint, "max_norm": MaxNorm,
    "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm,
    "radial_constraint": RadialConstraint, "maxnorm": MaxNorm, "nonneg": NonNeg,
    "unitnorm": UnitNorm,
}


def serialize(constraint: Any, use_legacy_format: bool = False) -> Any:
    """The config of `constraint` (a warning, as tf_keras, for a non-`Constraint`)."""
    if constraint is None:
        return None
    _serialization.warn_if_not_instance("constraints", "Constraint", constraint, (Constraint,))
    if use_legacy_format:
        return _serialization.legacy_serialize_keras_object(constraint)
    return _serialization.serialize_keras_object(constraint)


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Any:
    """The constraint a config describes."""
    if use_legacy_format:
        return _serialization.legacy_deserialize_keras_object(
            config, module_objects=_MODULE_OBJECTS, custom_objects=custom_objects,
            printable_module_name="constraint")
    return _serialization.deserialize_keras_object(
        config, module_objects=_MODULE_OBJECTS, custom_objects=custom_objects,
        printable_module_name="constraint")


def get(identifier: Any) -> Any:
    """`tf.keras.constraints.get`: None, a config dict, a name (unknown: TF's
    `ValueError`), or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier, use_legacy_format="module" not in identifier)
    if isinstance(identifier, str):
        return get({"class_name": str(identifier), "config": {}})
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint function identifier: {identifier}")
