"""`tf.random`: `set_seed`, `uniform`, `normal`, `truncated_normal`, with TF's seeding rules.

TF's rules (`tf.random.set_seed`'s documentation), kept here:

* no global seed and no op seed: fresh randomness each call (here: torch's
  default generator, so `torch.manual_seed` governs it);
* a global seed: every op call gets its own op seed from a sequence the
  global seed determines, so a program's draws repeat run after run;
* an op seed (with the global seed, or TF's default global seed
  87654321): the op's calls form a sequence keyed by `(op, dtype, global
  seed, op seed)`, so `uniform([2], seed=1)` twice gives two different
  draws, and `set_seed` again restarts every sequence. Each device has its
  own place in each sequence (TF keeps one kernel, and so one position in
  its stream, per device): a call on `CPU:1` after two on `CPU:0` draws the
  sequence's first value, so the replicas of a strategy (one device each)
  draw the same values from a seeded op, as in TF; op seeds are per op, not
  per replica.

Each seeded draw uses a `torch.Generator` seeded from that key and the
call's position in the sequence. TF's own random streams (Philox inside
its kernels) are not reproduced: the same seeds give the same numbers every
time *in tfcompat*, not the numbers TF would give.

New tensors go to the current `tf.device`.
"""

from __future__ import annotations

import hashlib
import numbers
import random as _pyrandom
import threading
from typing import Any, Optional

import torch

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._shape_args import shape_arg

__all__ = ["set_seed", "get_seed", "uniform", "normal", "truncated_normal", "uniform_on"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


class _SeedState:
    """The process's random state: TF keeps it in the eager context."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.global_seed: Optional[int] = None
        self.op_seeds = _pyrandom.Random()
        self.calls: dict = {}


_state = _SeedState()


def _truncate(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Real):
        raise TypeError(f"A random seed must be an integer, got {seed!r}.")
    return int(seed) % _MAXINT32


def set_seed(seed: Optional[int]) -> None:
    """`tf.random.set_seed`: set the global seed and restart every op's random sequence.

    `None` clears the global seed (ops without a seed become
    nondeterministic again).
    """
    with _state.lock:
        _state.global_seed = None if seed is None else _truncate(seed)
        _state.op_seeds = _pyrandom.Random(_state.global_seed)
        _state.calls.clear()


def get_seed(op_seed: Optional[int]) -> tuple:
    """TF's `random_seed.get_seed`: the `(global, op)` seed pair an op uses, or `(None, None)`."""
    with _state.lock:
        global_seed = _state.global_seed
        if global_seed is not None:
            if op_seed is None:
                op_seed = _state.op_seeds.randint(0, _MAXINT32)
            seeds = (global_seed, _truncate(op_seed))
        elif op_seed is not None:
            seeds = (DEFAULT_GRAPH_SEED, _truncate(op_seed))
        else:
            return (None, None)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _generator(op: str, dtype: torch.dtype, seed: Optional[int],
               device: torch.device) -> Optional[torch.Generator]:
    """A generator for the next draw of this seeded op, or None for torch's default one."""
    seeds = get_seed(seed)
    if seeds[0] is None:
        return None
    key = (op, str(dtype), seeds)
    place = (key, device_lib.current_logical())  # the position in the sequence is per device
    with _state.lock:
        count = _state.calls.get(place, 0)
        _state.calls[place] = count + 1
    digest = hashlib.blake2b(repr((key, count)).encode(), digest_size=8).digest()
    g = torch.Generator(device=device)
    g.manual_seed(int.from_bytes(digest, "little") & (2 ** 63 - 1))
    return g


def _device() -> torch.device:
    return device_lib.current_torch_device()


_UNIFORM_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32,
                  dtypes.int64)


def uniform_on(device: torch.device, shape: tuple, dtype: dtypes.DType,
               seed: Optional[int]) -> torch.Tensor:
    """`[0, 1)` floats of `shape` on `device`: the draw behind `uniform` (and `dropout`)."""
    g = _generator("RandomUniform", dtype.as_torch, seed, device)
    return torch.rand(shape, dtype=dtype.as_torch, device=device, generator=g)


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
            seed: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.uniform`: values in `[minval, maxval)`.

    Floats (default `[0, 1)`) are `minval + u * (maxval - minval)`; bounds
    may be tensors that broadcast against `shape`. Integer dtypes need
    `maxval` and scalar bounds with `minval < maxval`.
    """
    dt = dtypes.as_dtype(dtype)
    if dt not in _UNIFORM_TYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dt}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in _UNIFORM_TYPES)}).")
    if maxval is None:
        if dt.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
        maxval = 1
    dims = shape_arg(shape, "RandomUniform", allow_scalar=False)
    device = _device()
    if dt.is_integer:
        low, high = (_int_bound(label, v, dt) for label, v in (("minval", minval),
                                                               ("maxval", maxval)))
        if low >= high:
            raise invalid(f"Need minval < maxval, got {low} >= {high}", "RandomUniformInt")
        g = _generator("RandomUniformInt", dt.as_torch, seed, device)
        return torch.randint(low, high, dims, dtype=dt.as_torch, device=device, generator=g)
    lo = None if _is_unit(minval, 0) else convert_to_tensor(minval, dtype=dt)
    hi = None if _is_unit(maxval, 1) else convert_to_tensor(maxval, dtype=dt)
    u = uniform_on(device, dims, dt, seed)
    if lo is None:
        return u if hi is None else D.run(torch.mul, u, hi)
    if hi is None:
        hi = convert_to_tensor(maxval, dtype=dt)
    return D.run(torch.add, D.run(torch.mul, u, D.run(torch.sub, hi, lo)), lo)


def _is_unit(value: Any, unit: int) -> bool:
    """Whether `value` is the Python number `unit` (0 or 1): a bound or moment that is a no-op.

    Then no tensor is made for it and no arithmetic is done: the draws are
    the same bits either way (see `_scale_shift`; uniform draws are never -0.0).
    """
    return type(value) in (int, float) and value == unit


def _int_bound(label: str, value: Any, dt: dtypes.DType) -> int:
    """An integer bound as a Python int (TF's kernel also reads it on the host)."""
    if type(value) is int and dt.min <= value <= dt.max:
        return value
    t = convert_to_tensor(value, dtype=dt)
    if t.dim() != 0:
        raise invalid(f"{label} must be 0-D, got shape {list(t.shape)}", "RandomUniformInt")
    return int(t)


def _float_params(op: str, dt: dtypes.DType, mean: Any, stddev: Any) -> tuple:
    """`(mean, stddev)` as tensors of `dt`, TF's conversion; None for a default 0 / 1.

    TF converts them with the op's dtype (so `mean=0.0` with an int dtype is
    TF's `TypeError`); only a floating dtype takes the shortcut.
    """
    if dt.as_torch in D.FLOATS and _is_unit(mean, 0) and _is_unit(stddev, 1):
        return None, None
    mu, sigma = convert_to_tensor(mean, dtype=dt), convert_to_tensor(stddev, dtype=dt)
    D.check_dtype(op, mu.dtype, D.FLOATS)
    return mu, sigma


def _scale_shift(z: torch.Tensor, mu: Optional[torch.Tensor],
                 sigma: Optional[torch.Tensor]) -> torch.Tensor:
    """`z * stddev + mean`, TF's formula; for the defaults, the same bits without the work.

    `z * 1 + 0` is `z` except that `+ 0` turns -0.0 into +0.0: float32/64 draws
    hold no -0.0, but one rounded to half precision can (a tiny negative), so
    those keep the add (of a Python 0.0: no tensor is made).
    """
    if mu is None:
        return z if z.dtype in (torch.float32, torch.float64) else z + 0.0
    return D.run(torch.add, D.run(torch.mul, z, sigma), mu)


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
           seed: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.normal`: `mean + stddev * N(0, 1)`; `mean`/`stddev` may be broadcasting tensors."""
    dt = dtypes.as_dtype(dtype)
    dims = shape_arg(shape, "RandomStandardNormal", allow_scalar=False)
    mu, sigma = _float_params("RandomStandardNormal", dt, mean, stddev)
    device = _device()
    g = _generator("RandomStandardNormal", dt.as_torch, seed, device)
    z = torch.randn(dims, dtype=dt.as_torch, device=device, generator=g)
    return _scale_shift(z, mu, sigma)


# Phi(-2) and Phi(2): the standard normal's mass outside two standard deviations is cut.
_PHI_LO = 0.022750131948179195
_PHI_HI = 0.9772498680518208


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.truncated_normal`: normal values, re-drawn when beyond 2 stddev of the mean.

    Sampled by inverse CDF on the truncated range (`sqrt(2) * erfinv(2u - 1)`
    with `u` uniform in `[Phi(-2), Phi(2)]`), which gives exactly the
    distribution of TF's re-drawing without a data-dependent loop.
    """
    dt = dtypes.as_dtype(dtype)
    dims = shape_arg(shape, "TruncatedNormal", allow_scalar=False)
    mu, sigma = _float_params("TruncatedNormal", dt, mean, stddev)
    device = _device()
    work = torch.float64 if dt.as_torch is torch.float64 else torch.float32
    g = _generator("TruncatedNormal", dt.as_torch, seed, device)
    u = torch.rand(dims, dtype=work, device=device, generator=g)
    u = _PHI_LO + u * (_PHI_HI - _PHI_LO)
    z = (torch.erfinv(2 * u - 1) * 2 ** 0.5).clamp_(-2.0, 2.0).to(dt.as_torch)
    return _scale_shift(z, mu, sigma)
