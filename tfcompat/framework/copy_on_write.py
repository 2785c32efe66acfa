"""Tensors that share memory until one side is written: torch's copy-on-write storage.

`snapshot_of(t)` is `torch._lazy_clone(t)`: a new tensor with `t`'s values
that shares `t`'s memory until either of them is written, at which point
torch's kernels copy the written side first (a kernel that only reads
copies nothing). It is how tfcompat gives TF's immutable reads of mutable
storage without a copy per read (see `variables/resource.py`).

Only memory torch's own allocators handed out can be shared this way (not a
numpy array's, not a DLPack import's): `owned(t)` copies such a tensor once,
so a variable's storage always can.
"""

from __future__ import annotations

import torch

__all__ = ["snapshot_of", "owned"]

_LAZY_CLONE = getattr(torch, "_lazy_clone", None)


def snapshot_of(t: torch.Tensor) -> torch.Tensor:
    """A tensor with `t`'s values that shares no writable memory with it.

    A copy-on-write clone where torch can make one, else a copy.
    Differentiable: the gradient passes through unchanged.
    """
    if _LAZY_CLONE is not None:
        try:
            return _LAZY_CLONE(t)
        except RuntimeError:  # memory torch does not own (numpy's, a DLPack import's)
            pass
    return t.clone()


def owned(t: torch.Tensor) -> torch.Tensor:
    """`t`, or a copy of it in memory torch allocated, so that snapshots of it are lazy."""
    if _LAZY_CLONE is None:
        return t
    try:
        _LAZY_CLONE(t)  # (the clone dies at once; `t`'s memory stays where it is)
        return t
    except RuntimeError:
        return t.clone()
