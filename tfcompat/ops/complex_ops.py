"""Complex numbers: `tf.complex`, `tf.math.real`, `imag`, `angle`, `conj`, as TF's wrappers.

TF's Python wrappers, not its kernels, decide most of these: `real` and
`conj` of a real tensor return it unchanged, `imag` of a real tensor is
zeros of its dtype, `angle` of a real tensor is `pi` where it is negative
(so an integer input fails converting `pi`, as in TF), and `complex` takes
two float32 or two float64 tensors only.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from . import _dispatch as D

__all__ = ["complex", "real", "imag", "angle", "conj"]

_PARTS = {(torch.float32, torch.float32): torch.complex64,
          (torch.float64, torch.float64): torch.complex128}


def complex(real: Any, imag: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001
    """`tf.complex`: `real + 1j * imag` (`torch.complex`); both float32 or both float64.

    The parts broadcast; any other pair of dtypes is TF's `TypeError`.
    """
    rt = convert_to_tensor(real)
    it = convert_to_tensor_on(rt.device, imag)
    if (rt.dtype, it.dtype) not in _PARTS:
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: "
            f"{dtypes.from_torch(rt.dtype).name} {dtypes.from_torch(it.dtype).name}. They must "
            "be consistent, and one of [tf.float32, tf.float64]")
    if rt.shape != it.shape:
        if not D.broadcastable(rt.shape, it.shape):
            D.run(torch.add, rt, it)  # TF's shape error
        rt, it = torch.broadcast_tensors(rt, it)
    return D.run(torch.complex, rt, it)


def _numeric(x: torch.Tensor) -> bool:
    return x.dtype is not torch.bool


def real(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002 - TF name
    """`tf.math.real`: the real part of a complex tensor (`torch.real`); a real tensor as it is."""
    x = convert_to_tensor(input)
    if x.is_complex():
        return torch.real(x)
    if not _numeric(x):
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype "
                        f"<dtype: '{dtypes.from_torch(x.dtype).name}'>")
    return x


def imag(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002 - TF name
    """`tf.math.imag`: the imaginary part of a complex tensor; zeros of the dtype for real ones."""
    x = convert_to_tensor(input)
    if x.is_complex():
        return torch.imag(x)
    return torch.zeros_like(x)


def angle(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002 - TF name
    """`tf.math.angle`: the argument of a complex tensor in `[-pi, pi]` (`torch.angle`).

    For a real tensor TF's wrapper gives `pi` where `x < 0` and 0 elsewhere
    (NaN gives 0); integer tensors fail converting `pi` (`TypeError`), as in TF.
    """
    x = convert_to_tensor(input)
    if x.is_complex():
        return torch.angle(x)
    if not x.is_floating_point():
        raise TypeError(f"Cannot convert {math.pi!r} to EagerTensor of dtype "
                        f"{dtypes.from_torch(x.dtype).name}")
    pi = torch.full((), math.pi, dtype=x.dtype, device=x.device)
    return torch.where(x < 0, pi, torch.zeros((), dtype=x.dtype, device=x.device))


def conj(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.conj`: the complex conjugate (`torch.conj_physical`); real tensors unchanged.

    bool (and other non-numeric) input is TF's `TypeError`.
    """
    t = convert_to_tensor(x)
    if t.is_complex():
        return torch.conj_physical(t)
    if not _numeric(t):
        raise TypeError(f"Expected numeric or variant tensor, got dtype "
                        f"tf.{dtypes.from_torch(t.dtype).name}.")
    return t
