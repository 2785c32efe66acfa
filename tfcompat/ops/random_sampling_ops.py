"""`tf.random.categorical`, `shuffle`, `gamma`, `poisson`: seeded as `random_ops` (TF's rules).

Each op keys its draws by `(op, dtype, global seed, op seed)` exactly as
`tf.random.uniform` does (see `random_ops`), so programs repeat under
`tf.random.set_seed`; the numbers are tfcompat's, not TF's streams.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from . import random_ops
from ._shape_args import shape_arg
from .stateless_random_ops import categorical_with, draw_with

__all__ = ["categorical", "shuffle", "random_gamma", "random_poisson_v2"]


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.categorical`: `[batch, num_samples]` class indices drawn from softmax(logits).

    `torch.multinomial` on `softmax(logits)` (with replacement); `dtype` is
    int64 (default) or int32; a row of `-inf` logits draws `num_classes`, as in TF.
    """
    x = convert_to_tensor(logits)
    return categorical_with(x, num_samples, dtype,
                            lambda: random_ops._generator("Multinomial", x.dtype, seed, x.device),
                            "Multinomial")


def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.shuffle`: `value` with its first dimension randomly permuted."""
    x = convert_to_tensor(value)
    if x.dim() == 0:
        return torch.ops.aten.alias(x)
    # the permutation is drawn where `x` lives: no host-to-device copy
    g = random_ops._generator("RandomShuffle", x.dtype, seed, x.device)
    return x.index_select(0, torch.randperm(x.shape[0], generator=g, device=x.device))


_GAMMA_TYPES = frozenset({torch.float16, torch.float32, torch.float64})


def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = dtypes.float32,
                 seed: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.gamma`: Gamma(alpha, rate=beta) draws of shape `shape + broadcast(alpha, beta)`.

    torch's `_standard_gamma` (Marsaglia-Tsang) draws Gamma(alpha, 1); the
    result is divided by `beta`, TF's formula.
    """
    dt = dtypes.as_dtype(dtype)
    if dt.as_torch is torch.bfloat16:
        # TF's Python wrapper asks numpy for bfloat16's machine limits and fails
        raise ValueError("data type <class 'ml_dtypes.bfloat16'> not inexact")
    a = convert_to_tensor(alpha, dtype=dt)
    D.check_dtype("RandomGamma", a.dtype, _GAMMA_TYPES)
    b = None if beta is None else convert_to_tensor(beta, dtype=dt)
    dims = shape_arg(shape, "RandomGamma", allow_scalar=False)
    param_shape = a.shape if b is None else torch.broadcast_shapes(a.shape, b.shape)
    out_shape = tuple(dims) + tuple(param_shape)
    work = torch.float64 if dt.as_torch is torch.float64 else torch.float32
    conc = a.to(work).expand(out_shape).contiguous()
    # _standard_gamma takes no generator: a seeded call draws on a forked RNG seeded by the
    # key's hash (no device sync)
    g = random_ops._generator("RandomGamma", dt.as_torch, seed, torch.device("cpu"))
    sample = torch._standard_gamma(conc) if g is None else \
        draw_with(g, a.device, lambda: torch._standard_gamma(conc))
    if b is not None:
        sample = sample / b.to(work)
    return sample.to(dt.as_torch)


_POISSON_OUT = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def random_poisson_v2(shape: Any, lam: Any, dtype: Any = dtypes.float32, seed: Optional[int] = None,
                   name: Optional[str] = None) -> torch.Tensor:
    """`tf.random.poisson`: Poisson(lam) draws of shape `shape + lam.shape`, in `dtype`.

    `lam` is a half, float, double, int32 or int64 tensor (Python values: float32); `dtype` one of half,
    float, double, int32, int64 (torch's `poisson` draws, cast).
    """
    dt = dtypes.as_dtype(dtype)
    rate = convert_to_tensor(lam, dtype_hint=dtypes.float32)
    D.check_dtype("RandomPoissonV2", rate.dtype, _GAMMA_TYPES | D.INT32_64, attr="R")
    if dt not in _POISSON_OUT:
        D.check_dtype("RandomPoissonV2", dt.as_torch, frozenset(), attr="dtype",
                      names=["half", "float", "double", "int32", "int64"])
    dims = shape_arg(shape, "RandomPoissonV2", allow_scalar=False)
    out_shape = tuple(dims) + tuple(rate.shape)
    work = torch.float64 if rate.dtype is torch.float64 else torch.float32
    r = rate.to(work).expand(out_shape).contiguous()
    g = random_ops._generator("RandomPoissonV2", dt.as_torch, seed, rate.device)
    return torch.poisson(r, generator=g).to(dt.as_torch)
