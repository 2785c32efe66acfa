"""Sparse updates of a variable's storage: TF's scatter ops over torch's index ops.

Every function validates its inputs completely *before* touching the
storage, so a failed call leaves the variable unchanged (torch's own kernels
may stop half-way through an index list).

| TF op                  | torch kernel                          |
|------------------------|---------------------------------------|
| scatter_update         | `index_copy_`                         |
| scatter_add / _sub     | `index_add_` (duplicates accumulate)  |
| scatter_mul            | `index_reduce_(..., "prod")`          |
| scatter_div            | divide by the per-row product         |
| scatter_min / _max     | `index_reduce_(..., "amin"/"amax")`   |
| scatter_nd_*           | the above on a view whose first axis  |
|                        | enumerates the indexed leading axes   |
"""

from __future__ import annotations

from typing import Any

import torch

from ..framework import errors

__all__ = ["rows", "nd_rows", "apply", "check_gather_indices"]


def _as_index_tensor(indices: Any, device: torch.device) -> torch.Tensor:
    from ..framework.tensor_conversion import convert_to_tensor
    idx = convert_to_tensor(indices)
    if idx.dtype not in (torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8):
        raise TypeError(f"indices must be an integer tensor, got dtype {idx.dtype}.")
    return idx.to(device)


def check_gather_indices(idx: torch.Tensor, n: int) -> None:
    """InvalidArgumentError, in TF's words, for the first index outside `[0, n)`."""
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        flat = idx.reshape(-1)
        pos = int(torch.nonzero(bad.reshape(-1))[0])
        raise errors.InvalidArgumentError(
            None, None, f"indices[{pos}] = {int(flat[pos])} is not in [0, {n})")


def rows(value: torch.Tensor, indices: Any, updates: torch.Tensor) -> tuple:
    """Validated `(flat_indices, flat_updates)` for a scatter along axis 0."""
    idx = _as_index_tensor(indices, value.device)
    tail = tuple(value.shape[1:])
    expected = tuple(idx.shape) + tail
    if updates.dim() != 0 and tuple(updates.shape) != expected:
        raise errors.InvalidArgumentError(
            None, None,
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {list(updates.shape)}, indices.shape {list(idx.shape)}, "
            f"params.shape {list(value.shape)}")
    if value.dim() == 0:
        raise errors.InvalidArgumentError(None, None, "Scatter ops need a variable of rank >= 1.")
    check_gather_indices(idx, value.shape[0])
    flat_idx = idx.reshape(-1).to(torch.long)
    flat_upd = updates.expand(expected).reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd


def nd_rows(value: torch.Tensor, indices: Any, updates: torch.Tensor) -> tuple:
    """Validated `(flat_indices, flat_updates, k)` for a `scatter_nd_*` on `value`.

    The first `k` axes (k = indices.shape[-1]) are linearized, so the
    update is a plain row scatter on `value.view(-1, *value.shape[k:])`.
    """
    idx = _as_index_tensor(indices, value.device)
    if idx.dim() == 0:
        raise errors.InvalidArgumentError(None, None, "indices must be at least a vector.")
    k = idx.shape[-1]
    if k > value.dim():
        raise errors.InvalidArgumentError(
            None, None, f"indices.shape[-1] = {k} must be <= the rank of the variable ({value.dim()}).")
    batch = tuple(idx.shape[:-1])
    tail = tuple(value.shape[k:])
    if updates.dim() != 0 and tuple(updates.shape) != batch + tail:
        raise errors.InvalidArgumentError(
            None, None,
            f"Dimensions [{k},{value.dim()}) of input[shape={list(value.shape)}] must match "
            f"dimensions [{len(batch)},{updates.dim()}) of updates[shape={list(updates.shape)}]: "
            f"updates.shape must be indices.shape[:-1] + params.shape[k:] = {list(batch + tail)}.")
    lead = torch.tensor(value.shape[:k], device=value.device, dtype=torch.long)
    flat_nd = idx.reshape(-1, k).to(torch.long)
    bad = ((flat_nd < 0) | (flat_nd >= lead)).any(dim=1)
    if bool(bad.any()):
        pos = int(torch.nonzero(bad)[0])
        raise errors.InvalidArgumentError(
            None, None,
            f"indices[{pos}] = {flat_nd[pos].tolist()} does not index into shape {list(value.shape)}")
    strides = torch.ones(k, dtype=torch.long, device=value.device)
    for i in range(k - 2, -1, -1):
        strides[i] = strides[i + 1] * value.shape[i + 1]
    flat_idx = (flat_nd * strides).sum(dim=1)
    flat_upd = updates.expand(batch + tail).reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd, k


def apply(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor) -> None:
    """Apply a validated row scatter of `kind` to `target` in place."""
    if kind == "update":
        target.index_copy_(0, idx, upd)
    elif kind == "add":
        target.index_add_(0, idx, upd)
    elif kind == "sub":
        target.index_add_(0, idx, -upd if upd.dtype is not torch.bool else upd)
    elif kind == "mul":
        target.index_reduce_(0, idx, upd, "prod")
    elif kind == "div":
        if not (upd.is_floating_point() or upd.is_complex()) and bool((upd == 0).any()):
            raise errors.InvalidArgumentError(None, None, "updates must not contain 0")
        denom = torch.ones_like(target).index_reduce_(0, idx, upd, "prod")
        if target.is_floating_point() or target.is_complex():
            target.div_(denom)
        else:
            target.copy_(torch.div(target, denom, rounding_mode="trunc"))
    elif kind == "min":
        target.index_reduce_(0, idx, upd, "amin")
    elif kind == "max":
        target.index_reduce_(0, idx, upd, "amax")
    else:  # pragma: no cover - internal misuse
        raise ValueError(kind)
