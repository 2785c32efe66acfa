"""`tf.random.stateless_*` and `tf.random.experimental.index_shuffle`: draws fixed by a seed.

TF's contract: the same `seed` (shape [2], int32 or int64) and arguments
give the same values on every call, with no state changed. Here each call
seeds a `torch.Generator` from a hash of `(op, seed)`: deterministic in
tfcompat for a given seed and shape, but not TF's Philox/ThreeFry streams.
The seed's two integers are read on the host: Python and numpy seeds
directly (no device copy), a device tensor with one small sync (TF's
kernels take the seed on the device; torch's generators take it on the host).
`index_shuffle` builds the permutation of `max_index + 1` elements on the
host, so it suits index spaces that fit in memory.
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.errors import NotFoundError, invalid_argument
from ..framework import variable_protocol as protocol
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._shape_args import shape_arg
from . import random_ops

__all__ = ["stateless_normal", "stateless_uniform", "stateless_truncated_normal",
           "stateless_categorical", "stateless_binomial", "stateless_gamma", "stateless_poisson",
           "stateless_parameterized_truncated_normal", "stateless_shuffle", "split", "fold_in",
           "index_shuffle", "generator_for", "draw_with"]

_SEED_TYPES = frozenset({torch.int32, torch.int64})


def generator_for(key: tuple, device: torch.device) -> torch.Generator:
    """A torch generator on `device` seeded from a hash of `key` (a tuple of ints and strs)."""
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    g = torch.Generator(device=device)
    g.manual_seed(int.from_bytes(digest, "little") & (2 ** 63 - 1))
    return g


def _host_values(value: Any) -> tuple:
    """`(torch dtype, shape, flat values)` of `value`, read without a device round trip.

    Python and numpy values are read directly (never copied to the current
    device just to be read back; Python ints count as int32 and floats as
    float32, TF's conversion); a tensor is read with `tolist()`, which is a
    sync only when it lives on an accelerator (as in TF, whose kernels take
    seeds on the host).
    """
    if isinstance(value, torch.Tensor) or protocol.is_variable(value):
        t = convert_to_tensor(value)
        return t.dtype, tuple(t.shape), t.reshape(-1).tolist()
    arr = np.asarray(value)
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        dtype = torch.from_numpy(np.zeros(0, arr.dtype)).dtype if arr.dtype.kind in "biuf" \
            else torch.float32
    else:
        dtype = {"b": torch.bool, "i": torch.int32, "u": torch.int32}.get(arr.dtype.kind,
                                                                          torch.float32)
    return dtype, tuple(arr.shape), arr.reshape(-1).tolist()


def _host_int(value: Any) -> int:
    if type(value) is int:
        return value
    return int(_host_values(value)[2][0])


def _seed(seed: Any, op: str = "StatelessRandomGetKeyCounter") -> tuple:
    dtype, shape, values = _host_values(seed)
    D.check_dtype(op, dtype, _SEED_TYPES, attr="Tseed", names=["int32", "int64"])
    if shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {D.fmt_shape(shape)}", op)
    return tuple(int(v) for v in values)


def random_shape(shape: Any, op: str, attr: str = "Tshape") -> tuple:
    """A random op's `shape` as a tuple of ints; a float shape is the kernel's dtype error.

    (TF's random kernels take the shape as an int32/int64 tensor, so `[2.5]`
    fails on the attr, `InvalidArgumentError`, where `tf.zeros` says `TypeError`.)
    """
    if isinstance(shape, (list, tuple)) and any(type(d) is float for d in shape) or \
            type(shape) is float or (isinstance(shape, torch.Tensor) and shape.is_floating_point()):
        D.check_dtype(op, torch.float32 if not isinstance(shape, torch.Tensor) else shape.dtype,
                      D.INT32_64, attr=attr, names=["int32", "int64"])
    return shape_arg(shape, op, allow_scalar=False)


def _device() -> torch.device:
    return device_lib.current_torch_device()


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = dtypes.float32, name: Optional[str] = None,
                     alg: str = "auto_select") -> torch.Tensor:
    """`tf.random.stateless_normal`: `mean + stddev * N(0, 1)`, fixed by `seed` (shape [2])."""
    dt = dtypes.as_dtype(dtype)
    dims = random_shape(shape, "StatelessRandomNormalV2")
    key = _seed(seed)
    mu, sigma = random_ops._float_params("StatelessRandomNormalV2", dt, mean, stddev)
    device = _device()
    g = generator_for(("normal", key), device)
    z = torch.randn(dims, dtype=dt.as_torch, device=device, generator=g)
    return random_ops._scale_shift(z, mu, sigma)


_UNIFORM_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32,
                  dtypes.int64)


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                      dtype: Any = dtypes.float32, name: Optional[str] = None,
                      alg: str = "auto_select") -> torch.Tensor:
    """`tf.random.stateless_uniform`: values in `[minval, maxval)`, fixed by `seed`.

    Integer dtypes take both bounds (`minval < maxval`) or neither (then the
    dtype's full range, TF's `uniform_full_int`).
    """
    dt = dtypes.as_dtype(dtype)
    if dt not in _UNIFORM_TYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dt}. Accepted dtypes are (tf.float16, "
                         "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, "
                         "tf.uint64).")
    if dt.is_integer and (minval is None) != (maxval is None):
        raise ValueError(f"For integer `dtype` argument {dt}, argument `minval` and `maxval` must "
                         f"be both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
    dims = random_shape(shape, "StatelessRandomUniformV2")
    key = _seed(seed)
    device = _device()
    if dt.is_integer:
        if minval is None:
            g = generator_for(("full_int", key), device)
            return full_int(dims, dt, device, g)
        low = random_ops._int_bound("minval", minval, dt)
        high = random_ops._int_bound("maxval", maxval, dt)
        if low >= high:
            raise invalid_argument(f"Need minval < maxval, got {low} >= {high}",
                                   "StatelessRandomUniformIntV2")
        g = generator_for(("uniform_int", key), device)
        return torch.randint(low, high, dims, dtype=dt.as_torch, device=device, generator=g)
    if maxval is None:
        maxval = 1
    lo, hi = convert_to_tensor(minval, dtype=dt), convert_to_tensor(maxval, dtype=dt)
    g = generator_for(("uniform", key), device)
    u = torch.rand(dims, dtype=dt.as_torch, device=device, generator=g)
    return D.run(torch.add, D.run(torch.mul, u, D.run(torch.sub, hi, lo)), lo)


def full_int(dims: tuple, dt: dtypes.DType, device: torch.device,
             g: torch.Generator) -> torch.Tensor:
    """Integers uniform over all of `dt`'s range (int32 / int64)."""
    if dt.as_torch is torch.int64:
        # randint's upper bound is exclusive and must fit int64: draw two 32-bit halves
        hi = torch.randint(-2 ** 31, 2 ** 31, dims, dtype=torch.int64, device=device, generator=g)
        lo = torch.randint(0, 2 ** 32, dims, dtype=torch.int64, device=device, generator=g)
        return hi * (2 ** 32) + lo
    return torch.randint(-2 ** 31, 2 ** 31, dims, dtype=torch.int64, device=device,
                         generator=g).to(torch.int32)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: Optional[str] = None,
                               alg: str = "auto_select") -> torch.Tensor:
    """`tf.random.stateless_truncated_normal`: normal values within 2 stddev, fixed by `seed`."""
    dt = dtypes.as_dtype(dtype)
    dims = random_shape(shape, "StatelessTruncatedNormalV2")
    key = _seed(seed)
    mu, sigma = random_ops._float_params("StatelessTruncatedNormalV2", dt, mean, stddev)
    device = _device()
    z = truncated_standard(dims, dt, device, generator_for(("truncated", key), device))
    return random_ops._scale_shift(z, mu, sigma)


def truncated_standard(dims: tuple, dt: dtypes.DType, device: torch.device,
                       g: torch.Generator) -> torch.Tensor:
    """Standard normals cut at +-2 by the inverse CDF (as `random_ops.truncated_normal`)."""
    work = torch.float64 if dt.as_torch is torch.float64 else torch.float32
    u = torch.rand(dims, dtype=work, device=device, generator=g)
    u = random_ops._PHI_LO + u * (random_ops._PHI_HI - random_ops._PHI_LO)
    return (torch.erfinv(2 * u - 1) * 2 ** 0.5).clamp_(-2.0, 2.0).to(dt.as_torch)


def categorical_with(logits: Any, num_samples: Any, dtype: Any, make_generator: Any,
                     op: str) -> torch.Tensor:
    """Draws of class indices from each row of `logits` ([batch, classes]).

    `make_generator()` gives the torch generator (or None), called only once
    the arguments are valid, so a failed call draws nothing (and a stateful
    generator does not advance).
    """
    out = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if out not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {out}. Accepted dtypes are "
                         "(tf.int32, tf.int64).")
    x = convert_to_tensor(logits)
    if x.dtype not in D.FLOATS:
        # TF registers the kernel for floats only: no device is found for other dtypes
        raise NotFoundError(None, None, f"Could not find device for node: {{{{node {op}}}}} = "
                                        f"{op}[T=DT_{D.tf_type_name(x.dtype).upper()}, "
                                        f"output_dtype=DT_{out.name.upper()}]")
    n = _host_int(num_samples)
    if x.dim() != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {D.fmt_shape(x.shape)}", op)
    if n < 0:
        raise invalid_argument(f"num_samples should be non-negative, got {n}", op)
    if x.shape[1] == 0:
        raise invalid_argument("num_classes should be positive, got 0", op)
    if n == 0 or x.shape[0] == 0:
        return torch.zeros((x.shape[0], n), dtype=out.as_torch, device=x.device)
    # softmax then torch.multinomial (inverse-CDF draws with replacement, as TF's kernel):
    # memory O(batch * (classes + num_samples)), no host sync. A row with no finite logit
    # draws `num_classes`, as TF's kernel does; it is sampled as uniform, then overwritten.
    work = torch.float64 if x.dtype is torch.float64 else torch.float32
    logits = x.to(work)
    dead = torch.isneginf(logits.amax(dim=1, keepdim=True))
    probs = torch.softmax(torch.where(dead, torch.zeros_like(logits), logits), dim=1)
    draws = torch.multinomial(probs, n, replacement=True, generator=make_generator())
    draws = torch.where(dead, torch.full_like(draws, x.shape[1]), draws)
    return draws.to(out.as_torch)


def stateless_categorical(logits: Any, num_samples: Any, seed: Any, dtype: Any = dtypes.int64,
                          name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.stateless_categorical`: `num_samples` class draws per row, fixed by `seed`."""
    key = _seed(seed)
    x = convert_to_tensor(logits)
    return categorical_with(x, num_samples, dtype,
                            lambda: generator_for(("categorical", key), x.device),
                            "StatelessMultinomial")


def index_shuffle(index: Any, seed: Any, max_index: Any) -> torch.Tensor:
    """`tf.random.experimental.index_shuffle`: a bijection of `[0, max_index]` fixed by `seed`.

    Each `index` maps to its position in a random permutation of
    `max_index + 1` elements (built from `seed` with `torch.randperm`), so
    distinct indices give distinct results. `seed` has shape [2].
    """
    idx = convert_to_tensor(index)
    D.check_dtype("RandomIndexShuffle", idx.dtype,
                  frozenset({torch.int32, torch.int64, torch.uint32, torch.uint64}), attr="dtype")
    _, shape, values = _host_values(seed)
    if shape != (2,):
        got = D.fmt_shape([shape[0] + 1]) if len(shape) == 1 else D.fmt_shape(shape)
        raise invalid_argument(f"Seed must be a vector of size [3] or a matrix of size [1, 3] but "
                               f"got {got}.", "RandomIndexShuffle")
    key = tuple(int(v) for v in values)
    m = _host_int(max_index)
    g = generator_for(("index_shuffle", key, m), torch.device("cpu"))
    perm = torch.randperm(m + 1, generator=g).to(idx.device)
    return perm[idx.long()].to(idx.dtype)


def draw_with(g: torch.Generator, device: torch.device, draw: Any) -> torch.Tensor:
    """Run `draw()`, an op without a `generator=` argument (`_standard_gamma`), on a forked
    RNG seeded by `g`'s seed (a hash of the draw's key: no tensor is read)."""
    devices = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices, device_type=device.type):
        torch.manual_seed(g.initial_seed())
        return draw()


def _seed_dtype(seed: Any) -> torch.dtype:
    return _host_values(seed)[0]


def split(seed: Any, num: int = 2, alg: str = "auto_select") -> torch.Tensor:
    """`tf.random.split`: `num` new seeds (shape `[num, 2]`, the seed's dtype) from `seed`.

    Also `tf.random.experimental.stateless_split`.
    """
    key = _seed(seed)
    dt = _seed_dtype(seed)
    g = generator_for(("split", key, int(num)), torch.device("cpu"))
    info = torch.iinfo(dt)
    out = torch.randint(info.min, info.max, (int(num), 2), dtype=torch.int64, generator=g)
    return out.to(dt).to(_device())


def fold_in(seed: Any, data: Any, alg: str = "auto_select") -> torch.Tensor:
    """`tf.random.fold_in`: a new seed (shape [2]) from `seed` and the integer `data`.

    int32 unless `data` is an int64 tensor; also
    `tf.random.experimental.stateless_fold_in`.
    """
    key = _seed(seed)
    dt, _, values = _host_values(data)
    out_dt = torch.int64 if dt is torch.int64 else torch.int32
    g = generator_for(("fold_in", key, int(values[0])), torch.device("cpu"))
    info = torch.iinfo(out_dt)
    out = torch.randint(info.min, info.max, (2,), dtype=torch.int64, generator=g)
    return out.to(out_dt).to(_device())


def stateless_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                       output_dtype: Any = dtypes.int32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.stateless_binomial`: Binomial(counts, probs) draws of `shape`, fixed by `seed`."""
    dt = dtypes.as_dtype(output_dtype)
    dims = random_shape(shape, "StatelessRandomBinomial")
    key = _seed(seed)
    device = _device()
    c = convert_to_tensor(counts, dtype_hint=dtypes.float32).to(device, torch.float32)
    p = convert_to_tensor(probs, dtype_hint=dtypes.float32).to(device, torch.float32)
    g = generator_for(("binomial", key), device)
    draws = torch.binomial(c.expand(dims).contiguous(), p.expand(dims).contiguous(), generator=g)
    return draws.to(dt.as_torch)


def _ends_with(dims: tuple, tail: tuple, op: str) -> None:
    if len(tail) > len(dims) or tuple(dims[len(dims) - len(tail):]) != tuple(tail):
        raise invalid_argument("Shape passed in must end with broadcasted shape.", op)


def stateless_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                    dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.stateless_gamma`: Gamma(alpha, rate=beta) draws of `shape`, fixed by `seed`.

    `shape` must end with alpha and beta's broadcast shape (TF's rule).
    """
    dt = dtypes.as_dtype(dtype)
    a = convert_to_tensor(alpha, dtype=dt)
    D.check_dtype("StatelessRandomGammaV3", a.dtype,
                  frozenset({torch.float16, torch.float32, torch.float64}))
    b = None if beta is None else convert_to_tensor(beta, dtype=dt)
    dims = random_shape(shape, "StatelessRandomGammaV3")
    key = _seed(seed)
    params = a.shape if b is None else torch.broadcast_shapes(a.shape, b.shape)
    _ends_with(tuple(dims), tuple(params), "StatelessRandomGammaV3")
    work = torch.float64 if dt.as_torch is torch.float64 else torch.float32
    conc = a.to(work).expand(tuple(dims)).contiguous()
    g = generator_for(("gamma", key), torch.device("cpu"))
    sample = draw_with(g, conc.device, lambda: torch._standard_gamma(conc))
    if b is not None:
        sample = sample / b.to(work)
    return sample.to(dt.as_torch)


def stateless_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = dtypes.int32,
                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.stateless_poisson`: Poisson(lam) draws of `shape`, fixed by `seed`.

    `shape` must end with lam's shape; `dtype` defaults to int32 as in TF.
    """
    dt = dtypes.as_dtype(dtype)
    rate = convert_to_tensor(lam, dtype_hint=dtypes.float32)
    dims = random_shape(shape, "StatelessRandomPoisson")
    key = _seed(seed)
    _ends_with(tuple(dims), tuple(rate.shape), "StatelessRandomPoisson")
    work = torch.float64 if rate.dtype is torch.float64 else torch.float32
    r = rate.to(work).expand(tuple(dims)).contiguous()
    g = generator_for(("poisson", key), r.device)
    return torch.poisson(r, generator=g).to(dt.as_torch)


def stateless_shuffle(value: Any, seed: Any, alg: str = "auto_select",
                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.experimental.stateless_shuffle`: `value`'s first dimension permuted by `seed`."""
    key = _seed(seed)
    x = convert_to_tensor(value)
    if x.dim() == 0:
        return torch.ops.aten.alias(x)
    g = generator_for(("shuffle", key), x.device)
    return x.index_select(0, torch.randperm(x.shape[0], generator=g, device=x.device))


_PTN = "StatelessParameterizedTruncatedNormal"


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0,
                                             stddevs: Any = 1.0, minvals: Any = -2.0,
                                             maxvals: Any = 2.0,
                                             name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.stateless_parameterized_truncated_normal`: N(means, stddevs) cut to
    `[minvals, maxvals]`, fixed by `seed`.

    The parameters' broadcast shape must be `shape`'s trailing dimensions (TF's
    rule); they take
    `means`' dtype (half, float, double); sampled by the inverse CDF on the
    cut range, computed in float64.
    """
    params = [convert_to_tensor(v) for v in (means, stddevs, minvals, maxvals)]
    dtype = params[0].dtype
    D.check_dtype(_PTN, dtype, frozenset({torch.float16, torch.float32, torch.float64}),
                  attr="dtype", names=["half", "float", "double"])
    for i, p in enumerate(params[1:], start=3):
        if p.dtype is not dtype:
            raise invalid_argument(
                f"cannot compute {_PTN} as input #{i}(zero-based) was expected to be a "
                f"{D.tf_type_name(dtype)} tensor but is a {D.tf_type_name(p.dtype)} tensor", _PTN)
    dims = random_shape(shape, _PTN)
    key = _seed(seed)
    _ends_with(tuple(dims), tuple(torch.broadcast_shapes(*(p.shape for p in params))), _PTN)
    mu, sigma, lo, hi = (p.to(torch.float64).expand(dims) for p in params)
    # TF's kernel rejects an empty range or a non-positive stddev; one host read, as its check
    if bool(((hi <= lo) | (sigma <= 0)).any()):
        raise invalid_argument("Invalid parameters", _PTN)
    normal = torch.distributions.Normal(0.0, 1.0)
    a, b = normal.cdf((lo - mu) / sigma), normal.cdf((hi - mu) / sigma)
    g = generator_for(("parameterized_truncated", key), mu.device)
    u = torch.rand(dims, dtype=torch.float64, device=mu.device, generator=g)
    z = normal.icdf((a + u * (b - a)).clamp(1e-300, 1 - 1e-16))
    return (mu + sigma * z).clamp(lo, hi).to(dtype)
