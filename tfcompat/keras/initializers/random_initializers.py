"""The random tf.keras initializers: `RandomUniform`, `RandomNormal`, `TruncatedNormal`,
`VarianceScaling` and its Glorot / He / Lecun presets, and `Orthogonal`.

Seeds follow tf_keras 2.21, which draws every initializer through stateless random ops
(`RandomGenerator(seed, rng_type="stateless")`):

* a seeded instance draws with the stateless seed `[seed, 0]`: every call gives the same
  values, and two instances with the same seed give the same values;
* an unseeded instance picks its seed on its first call from Python's `random` module (or
  from the generator `tf.keras.utils.set_random_seed` installs) and keeps it, so it too
  repeats its values on every call, with tf_keras's `UserWarning` from the second call on.
  `tf.random.set_seed` does not reach it (it does not in tf_keras either);
  `random.seed(s)` / `tf.keras.utils.set_random_seed(s)` make it reproducible.

A `partition_offset` folds `hash(offset)` into the seed, so each partition of a sharded
variable gets its own values. The values come from tfcompat's stateless ops, so they are
reproducible within tfcompat but are not TF's Philox bits.
"""

from __future__ import annotations

import math
import random as _pyrandom
from typing import Any, Dict, Optional

import torch

from ...ops import array_ops as _array_ops
from ...ops import diag_ops as _diag_ops
from ...ops import linalg_ops as _linalg_ops
from ...ops import math_ops as _math_ops
from ...ops import stateless_random_ops as _stateless
from ...ops import unary_ops as _unary_ops
from .. import backend
from ..saving.serialization import keras_export
from .initializer import (PARTITION_OFFSET, Initializer, assert_float_dtype, compute_fans,
                          get_dtype, partition_shape, shape_tuple, validate_kwargs)

__all__ = ["RandomUniform", "RandomNormal", "TruncatedNormal", "VarianceScaling",
           "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform",
           "LecunNormal", "Orthogonal"]

# The standard deviation of a unit normal truncated to [-2, 2]: VarianceScaling divides by
# it so that the truncated draw has the requested variance (TF's constant).
_TRUNCATED_STDDEV = 0.87962566103423978


def _create_seed() -> int:
    # tf_keras's RandomGenerator._create_seed: the generator that
    # `tf.keras.utils.set_random_seed` installs (if any), else Python's `random`.
    seed_generator = getattr(getattr(backend, "_SEED_GENERATOR", None), "generator", None)
    source = seed_generator if seed_generator is not None else _pyrandom
    return source.randint(1, int(1e9))


class _RandomInitializer(Initializer):
    """Holds the seed logic shared by the random initializers."""

    seed: Optional[int]

    def _init_seed(self, seed: Optional[int]) -> None:
        self.seed = seed
        self._stateless_seed: Optional[int] = seed

    def _seed_for(self, kwargs: Dict[str, Any]) -> Any:
        """The stateless seed of this call: `[seed, 0]`, the partition's nonce folded in."""
        offset = kwargs.get(PARTITION_OFFSET)
        if offset is None:
            self._warn_reuse()
        if self._stateless_seed is None:
            self._stateless_seed = _create_seed()
        seed = [self._stateless_seed, 0]
        nonce = hash(tuple(offset)) if offset else None
        if nonce:
            seed = _stateless.fold_in(seed, nonce)
        return seed

    def __deepcopy__(self, memo: dict) -> "_RandomInitializer":
        # A copy keeps the seed it was configured with but draws its own unseeded seed.
        clone = type(self).from_config(self.get_config())
        memo[id(self)] = clone
        return clone


@keras_export("keras.initializers.RandomUniform", "keras.initializers.random_uniform")
class RandomUniform(_RandomInitializer):
    """`tf.keras.initializers.RandomUniform(minval=-0.05, maxval=0.05, seed=None)`: values in
    `[minval, maxval)`; float or integer dtypes (an integer dtype needs integer bounds)."""

    def __init__(self, minval: Any = -0.05, maxval: Any = 0.05, seed: Optional[int] = None
                 ) -> None:
        self.minval = minval
        self.maxval = maxval
        self._init_seed(seed)

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = get_dtype(dtype)
        if not dtype.is_floating and not dtype.is_integer:
            raise ValueError(f"Expected float or integer dtype, got {dtype}.")
        shape = shape_tuple(partition_shape(shape, kwargs))
        seed = self._seed_for(kwargs)
        return _stateless.stateless_uniform(shape, seed, minval=self.minval,
                                            maxval=self.maxval, dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


@keras_export("keras.initializers.RandomNormal", "keras.initializers.random_normal")
class RandomNormal(_RandomInitializer):
    """`tf.keras.initializers.RandomNormal(mean=0.0, stddev=0.05, seed=None)`; float only."""

    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: Optional[int] = None
                 ) -> None:
        self.mean = mean
        self.stddev = stddev
        self._init_seed(seed)

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = assert_float_dtype(get_dtype(dtype))
        shape = shape_tuple(partition_shape(shape, kwargs))
        seed = self._seed_for(kwargs)
        return _stateless.stateless_normal(shape, seed, mean=self.mean, stddev=self.stddev,
                                           dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@keras_export("keras.initializers.TruncatedNormal", "keras.initializers.truncated_normal")
class TruncatedNormal(_RandomInitializer):
    """`tf.keras.initializers.TruncatedNormal(mean=0.0, stddev=0.05, seed=None)`: a normal
    redrawn outside two standard deviations of the mean; float only."""

    def __init__(self, mean: Any = 0.0, stddev: Any = 0.05, seed: Optional[int] = None
                 ) -> None:
        self.mean = mean
        self.stddev = stddev
        self._init_seed(seed)

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = assert_float_dtype(get_dtype(dtype))
        shape = shape_tuple(partition_shape(shape, kwargs))
        seed = self._seed_for(kwargs)
        return _stateless.stateless_truncated_normal(shape, seed, mean=self.mean,
                                                     stddev=self.stddev, dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@keras_export("keras.initializers.VarianceScaling", "keras.initializers.variance_scaling")
class VarianceScaling(_RandomInitializer):
    """`tf.keras.initializers.VarianceScaling(scale=1.0, mode="fan_in",
    distribution="truncated_normal", seed=None)`.

    With `n` the fan of `mode` (`fan_in`, `fan_out`, or their mean for `fan_avg`, at least
    1) and `s = scale / n`: `"truncated_normal"` (also spelled `"normal"`) draws a normal
    truncated at two standard deviations with stddev `sqrt(s) / 0.8796...` (so the
    truncated values have variance `s`), `"untruncated_normal"` a normal with stddev
    `sqrt(s)`, `"uniform"` values in `[-sqrt(3 s), sqrt(3 s))`. The fans come from the
    *full* shape, also for a partition.
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None) -> None:
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
        allowed_modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in allowed_modes:
            raise ValueError(
                f"Invalid `mode` argument: {mode}. Please use one of the {allowed_modes}.")
        distribution = distribution.lower()
        if distribution == "normal":  # the old name of the truncated normal
            distribution = "truncated_normal"
        allowed_distributions = {"uniform", "truncated_normal", "untruncated_normal"}
        if distribution not in allowed_distributions:
            raise ValueError(f"Invalid `distribution` argument: {distribution}."
                             f"Allowed distributions: {allowed_distributions}.")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self._init_seed(seed)

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs)
        dtype = assert_float_dtype(get_dtype(dtype))
        draw_shape = shape_tuple(partition_shape(shape, kwargs))
        seed = self._seed_for(kwargs)
        scale = self.scale
        fan_in, fan_out = compute_fans(shape)
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return _stateless.stateless_truncated_normal(draw_shape, seed, 0.0, stddev,
                                                         dtype=dtype)
        if self.distribution == "untruncated_normal":
            return _stateless.stateless_normal(draw_shape, seed, 0.0, math.sqrt(scale),
                                               dtype=dtype)
        limit = math.sqrt(3.0 * scale)
        return _stateless.stateless_uniform(draw_shape, seed, -limit, limit, dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


class _Preset(VarianceScaling):
    """A `VarianceScaling` with fixed arguments; its config is only the seed."""

    _SCALE = 1.0
    _MODE = "fan_in"
    _DISTRIBUTION = "truncated_normal"

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(scale=self._SCALE, mode=self._MODE,
                         distribution=self._DISTRIBUTION, seed=seed)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed}


@keras_export("keras.initializers.GlorotUniform", "keras.initializers.glorot_uniform")
class GlorotUniform(_Preset):
    """Glorot (Xavier) uniform: `[-limit, limit)` with `limit = sqrt(6 / (fan_in + fan_out))`."""

    _MODE, _DISTRIBUTION = "fan_avg", "uniform"


@keras_export("keras.initializers.GlorotNormal", "keras.initializers.glorot_normal")
class GlorotNormal(_Preset):
    """Glorot normal: truncated normal, variance `2 / (fan_in + fan_out)`."""

    _MODE, _DISTRIBUTION = "fan_avg", "truncated_normal"


@keras_export("keras.initializers.LecunNormal", "keras.initializers.lecun_normal")
class LecunNormal(_Preset):
    """Lecun normal: truncated normal, variance `1 / fan_in`."""

    _MODE, _DISTRIBUTION = "fan_in", "truncated_normal"


@keras_export("keras.initializers.LecunUniform", "keras.initializers.lecun_uniform")
class LecunUniform(_Preset):
    """Lecun uniform: `limit = sqrt(3 / fan_in)`."""

    _MODE, _DISTRIBUTION = "fan_in", "uniform"


@keras_export("keras.initializers.HeNormal", "keras.initializers.he_normal")
class HeNormal(_Preset):
    """He normal: truncated normal, variance `2 / fan_in`."""

    _SCALE, _MODE, _DISTRIBUTION = 2.0, "fan_in", "truncated_normal"


@keras_export("keras.initializers.HeUniform", "keras.initializers.he_uniform")
class HeUniform(_Preset):
    """He uniform: `limit = sqrt(6 / fan_in)`."""

    _SCALE, _MODE, _DISTRIBUTION = 2.0, "fan_in", "uniform"


@keras_export("keras.initializers.Orthogonal", "keras.initializers.orthogonal")
class Orthogonal(_RandomInitializer):
    """`tf.keras.initializers.Orthogonal(gain=1.0, seed=None)`, shapes of rank >= 2.

    As TF: the shape is flattened to `(prod(shape[:-1]), shape[-1])`; the reduced QR of a
    standard normal `(max, min)` matrix gives `q`, whose columns are multiplied by the signs
    of `diag(r)` (so the result is uniformly distributed); transposed when there are fewer
    rows than columns, then `gain * reshape(q, shape)`: orthonormal rows or columns.
    """

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None) -> None:
        self.gain = gain
        self._init_seed(seed)

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        validate_kwargs(type(self).__name__, kwargs, support_partition=False)
        dtype = assert_float_dtype(get_dtype(dtype))
        dims = shape_tuple(shape)
        if len(dims) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. Received: "
                f"shape={shape} of rank {len(dims)}.")
        seed = self._seed_for(kwargs)
        num_rows = 1
        for dim in dims[:-1]:
            num_rows *= dim
        num_cols = dims[-1]
        flat_shape = (max(num_cols, num_rows), min(num_cols, num_rows))
        a = _stateless.stateless_normal(flat_shape, seed, dtype=dtype)
        q, r = _linalg_ops.qr(a, full_matrices=False)
        q = _math_ops.multiply(q, _unary_ops.sign(_diag_ops.diag_part(r)))
        if num_rows < num_cols:
            q = _array_ops.transpose(q)
        return _math_ops.multiply(self.gain, _array_ops.reshape(q, dims))

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed}
