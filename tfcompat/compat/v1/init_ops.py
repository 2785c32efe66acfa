"""TF 1's initializers (`tensorflow/python/ops/init_ops.py`) as `tf.compat.v1` exposes them.

`tf.compat.v1.zeros_initializer`, `random_normal_initializer`, ... and the
`tf.compat.v1.initializers` namespace. They differ from the tf.keras (TF 2) ones:

* the dtype is a constructor argument (default float32) that a call's `dtype`
  overrides: `init(shape, dtype=None, partition_info=None)`; `get_config()` includes it;
* defaults are TF 1's: `random_normal_initializer(mean=0.0, stddev=1.0)`,
  `random_uniform_initializer(minval=0.0, maxval=None)` (1 for floats; an integer
  dtype needs `maxval`), `variance_scaling_initializer(scale=1.0, mode="fan_in",
  distribution="truncated_normal")` with the v1 spelling `"normal"` kept in the config;
* draws are the *stateful* random ops with the op seed `seed` (`tf.random.normal(...,
  seed=seed)`): as in TF, `tf.random.set_seed(s)` plus the same seeds reproduce the
  same values (within tfcompat: not TF's Philox bits), and repeated calls of a seeded
  instance give new values;
* fans are TF's (`compute_fans`, shared with tf.keras: a conv kernel counts its receptive
  field times channels); with `partition_info` they come from the full shape;
* truncated normals are cut at two standard deviations and `VarianceScaling` divides
  the standard deviation by 0.87962566103423978, the stddev of a unit normal truncated
  that way.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional

import numpy as np
import torch

from ...framework import dtypes
from ...framework.tensor_conversion import constant as _constant
from ...keras.initializers.initializer import compute_fans
from ...keras.initializers.random_initializers import _TRUNCATED_STDDEV
from ...ops import array_ops, creation_ops, linalg_ops, math_ops, matrix_ops, unary_ops
from ...ops import diag_ops

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal",
           "TruncatedNormal", "UniformUnitScaling", "VarianceScaling", "Orthogonal", "Identity",
           "GlorotUniform", "GlorotNormal", "lecun_normal", "lecun_uniform", "he_normal",
           "he_uniform"]


def _random() -> Any:
    import tfcompat
    return tfcompat.random


def _assert_float_dtype(dtype: Any) -> dtypes.DType:
    """TF's `ValueError` unless `dtype` is floating point."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: "
                         f"<dtype: '{dtype.name}'>.")
    return dtype


def _dims(shape: Any) -> tuple:
    if hasattr(shape, "as_list") and not isinstance(shape, (list, tuple)):
        shape = shape.as_list()
    return tuple(int(d) for d in shape)


def _scale_shape(shape: Any, partition_info: Any) -> tuple:
    """The shape fans come from: the whole variable's for a partition (TF's rule)."""
    if partition_info is not None:
        return _dims(partition_info.full_shape)
    return _dims(shape)


def _float_draw(dtype: dtypes.DType, first: float) -> None:
    """TF's `TypeError` for a float draw asked for in a non-float dtype (it fails to
    convert the draw's first float parameter)."""
    if not dtype.is_floating:
        raise TypeError(f"Cannot convert {float(first)!r} to EagerTensor of dtype {dtype.name}")


class Initializer:
    """TF 1's initializer base class: `__call__(shape, dtype=None, partition_info=None)`,
    `get_config()` (the constructor's arguments), `from_config(config)`."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        raise NotImplementedError

    def get_config(self) -> Dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Initializer":
        """`cls(**config)` (TF 1 configs carry the dtype by name)."""
        return cls(**config)

    def _dtype(self, dtype: Any) -> dtypes.DType:
        return self.dtype if dtype is None else dtypes.as_dtype(dtype)


class Zeros(Initializer):
    """`tf.compat.v1.zeros_initializer(dtype=tf.float32)`."""

    def __init__(self, dtype: Any = dtypes.float32) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return creation_ops.zeros(_dims(shape), self._dtype(dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Zeros):
    """`tf.compat.v1.ones_initializer(dtype=tf.float32)`."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        return creation_ops.ones(_dims(shape), self._dtype(dtype))


class Constant(Initializer):
    """`tf.compat.v1.constant_initializer(value=0, dtype=tf.float32, verify_shape=False)`.

    A scalar fills the shape; a list or array must have the shape's element count
    (TF's eager `tf.constant` `TypeError` otherwise); with `verify_shape` it must have
    the shape itself.
    """

    def __init__(self, value: Any = 0, dtype: Any = dtypes.float32, verify_shape: bool = False) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. "
                            "Expected Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None,
                 verify_shape: Optional[bool] = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        verify = self._verify_shape if verify_shape is None else verify_shape
        dims = _dims(shape)
        if verify:
            given = np.asarray(self.value, dtype=dtype.as_numpy_dtype)
            if given.shape != dims:
                raise TypeError(f"Expected Tensor {given} (converted from {self.value}) with shape "
                                f"{dims}, but got shape {given.shape}.")
        return _constant(self.value, dtype=dtype, shape=dims)

    def get_config(self) -> Dict[str, Any]:
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """`tf.compat.v1.random_uniform_initializer(minval=0.0, maxval=None, seed=None,
    dtype=tf.float32)`: values in `[minval, maxval)` (maxval 1 for floats)."""

    def __init__(self, minval: Any = 0.0, maxval: Any = None, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        if dtype.is_integer and self.maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1 if self.maxval is None else self.maxval
        return _random().uniform(_dims(shape), self.minval, maxval, dtype=dtype, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """`tf.compat.v1.random_normal_initializer(mean=0.0, stddev=1.0, seed=None,
    dtype=tf.float32)`; floating dtypes only."""

    _DRAW = "normal"

    def __init__(self, mean: Any = 0.0, stddev: Any = 1.0, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        _float_draw(dtype, self.mean)
        draw = getattr(_random(), self._DRAW)
        return draw(_dims(shape), self.mean, self.stddev, dtype=dtype, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """`tf.compat.v1.truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None,
    dtype=tf.float32)`: a normal redrawn outside two standard deviations of the mean."""

    _DRAW = "truncated_normal"


class UniformUnitScaling(Initializer):
    """`tf.compat.v1.uniform_unit_scaling_initializer(factor=1.0, seed=None,
    dtype=tf.float32)` (deprecated in TF): uniform in `[-m, m)` with
    `m = factor * sqrt(3 / input_size)`, `input_size` the product of all but the last
    dimension (at least 1)."""

    def __init__(self, factor: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        input_size = 1.0
        for dim in _scale_shape(shape, partition_info)[:-1]:
            input_size *= float(dim)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        _float_draw(dtype, -max_val)
        return _random().uniform(_dims(shape), -max_val, max_val, dtype=dtype, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class VarianceScaling(Initializer):
    """`tf.compat.v1.variance_scaling_initializer(scale=1.0, mode="fan_in",
    distribution="truncated_normal", seed=None, dtype=tf.float32)`.

    With `n` the fan of `mode` (at least 1) and `s = scale / n`: `"truncated_normal"` or
    `"normal"` draw a normal truncated at two stddevs with stddev `sqrt(s) / 0.8796...`,
    `"untruncated_normal"` a normal with stddev `sqrt(s)`, `"uniform"` values in
    `[-sqrt(3 s), sqrt(3 s))`.
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). "
                             f"Received: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            # (TF's message, its missing quote included)
            raise ValueError("Argument `distribution` should be one of ('normal', uniform', "
                             f"'truncated_normal', 'untruncated_normal'). Received: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        fan_in, fan_out = compute_fans(_scale_shape(shape, partition_info))
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        dims, random = _dims(shape), _random()
        if self.distribution in ("normal", "truncated_normal"):
            _float_draw(dtype, 0.0)
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return random.truncated_normal(dims, 0.0, stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            _float_draw(dtype, 0.0)
            return random.normal(dims, 0.0, math.sqrt(scale), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        _float_draw(dtype, -limit)
        return random.uniform(dims, -limit, limit, dtype=dtype, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


def _at_least_2d(dims: tuple, rank_ok: bool = True) -> None:
    if len(dims) < 2 or not rank_ok:
        raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                         f"two-dimensional. Received shape={list(dims)}")


class Orthogonal(Initializer):
    """`tf.compat.v1.orthogonal_initializer(gain=1.0, seed=None, dtype=tf.float32)`.

    As TF: `(prod(shape[:-1]), shape[-1])` is filled from the QR decomposition of a
    normal `(max, min)` matrix, `q`'s columns times the signs of `diag(r)`, transposed
    when there are fewer rows than columns; then `gain * reshape(q, shape)`.
    """

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = dtypes.float32) -> None:
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        dims = _dims(shape)
        _at_least_2d(dims)
        _float_draw(dtype, 0.0)
        num_rows = int(np.prod(dims[:-1]))
        num_cols = dims[-1]
        flat_shape = (max(num_rows, num_cols), min(num_rows, num_cols))
        a = _random().normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        q = math_ops.multiply(q, unary_ops.sign(diag_ops.diag_part(r)))
        if num_rows < num_cols:
            q = array_ops.transpose(q)
        return math_ops.multiply(self.gain, array_ops.reshape(q, dims))

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """`tf.compat.v1.initializers.identity(gain=1.0, dtype=tf.float32)`: `gain * eye`,
    2-D shapes only (a partition gets its slice of the full matrix)."""

    def __init__(self, gain: float = 1.0, dtype: Any = dtypes.float32) -> None:
        self.gain = gain
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> torch.Tensor:
        dtype = self._dtype(dtype)
        full = _scale_shape(shape, partition_info)
        # TF 2.21 reports any rank but 2 with the orthogonal initializer's text
        _at_least_2d(full, rank_ok=len(full) == 2)
        eye = matrix_ops.eye(*full, dtype=dtype)
        if partition_info is not None:
            offset = [int(o) for o in partition_info.var_offset]
            dims = _dims(shape)
            eye = eye[offset[0]:offset[0] + dims[0], offset[1]:offset[1] + dims[1]]
        return math_ops.multiply(self.gain, eye)

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """`tf.compat.v1.glorot_uniform_initializer(seed=None, dtype=tf.float32)`: uniform,
    `limit = sqrt(6 / (fan_in + fan_out))`."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed, dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """`tf.compat.v1.glorot_normal_initializer(seed=None, dtype=tf.float32)`: truncated
    normal, variance `2 / (fan_in + fan_out)`."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed,
                         dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


def lecun_normal(seed: Optional[int] = None) -> VarianceScaling:
    """`tf.compat.v1.initializers.lecun_normal`: truncated normal, variance `1 / fan_in`."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed: Optional[int] = None) -> VarianceScaling:
    """`tf.compat.v1.initializers.lecun_uniform`: `limit = sqrt(3 / fan_in)`."""
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed: Optional[int] = None) -> VarianceScaling:
    """`tf.compat.v1.initializers.he_normal`: truncated normal, variance `2 / fan_in`."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed: Optional[int] = None) -> VarianceScaling:
    """`tf.compat.v1.initializers.he_uniform`: `limit = sqrt(6 / fan_in)`."""
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


def _variable_initializers() -> dict:
    """`initializers.{global_variables, local_variables, variables}`: TF binds them to
    `global_variables_initializer` & co., which `collections.py` builds (when present)."""
    from .optimizers_base import _sibling
    mod = _sibling("collections", "global_variables_initializer", "local_variables_initializer",
                   "variables_initializer")
    if mod is None:
        return {}
    return {"global_variables": mod.global_variables_initializer,
            "local_variables": mod.local_variables_initializer,
            "variables": mod.variables_initializer}


#: The names this module builds (see the package's `PORTING`).
V1_NAMES: dict = {
    "": {
        "zeros_initializer": Zeros, "ones_initializer": Ones, "constant_initializer": Constant,
        "random_uniform_initializer": RandomUniform, "random_normal_initializer": RandomNormal,
        "truncated_normal_initializer": TruncatedNormal,
        "uniform_unit_scaling_initializer": UniformUnitScaling,
        "variance_scaling_initializer": VarianceScaling, "orthogonal_initializer": Orthogonal,
        "glorot_uniform_initializer": GlorotUniform, "glorot_normal_initializer": GlorotNormal,
    },
    "initializers": {
        "zeros": Zeros, "ones": Ones, "constant": Constant, "random_uniform": RandomUniform,
        "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
        "uniform_unit_scaling": UniformUnitScaling, "variance_scaling": VarianceScaling,
        "orthogonal": Orthogonal, "identity": Identity, "glorot_uniform": GlorotUniform,
        "glorot_normal": GlorotNormal, "he_normal": he_normal, "he_uniform": he_uniform,
        "lecun_normal": lecun_normal, "lecun_uniform": lecun_uniform,
        **_variable_initializers(),
    },
}
