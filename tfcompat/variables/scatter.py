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

import warnings
from typing import Any

import torch

from ..framework import errors

__all__ = ["rows", "nd_rows", "apply", "check_gather_indices", "shape_str"]


def shape_str(shape: Any) -> str:
    """A shape as TF's kernels print it: `[4,2]`."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _as_index_tensor(indices: Any, device: torch.device) -> torch.Tensor:
    from ..framework.tensor_conversion import convert_to_tensor
    idx = convert_to_tensor(indices)
    if idx.dtype not in (torch.int32, torch.int64, torch.int16, torch.int8, torch.uint8):
        raise TypeError(f"indices must be an integer tensor, got dtype {idx.dtype}.")
    return idx.to(device)


def check_gather_indices(idx: torch.Tensor, n: int) -> None:
    """InvalidArgumentError, in TF's words, for the first index outside `[0, n)`.

    The position is given in `idx`'s own coordinates (`indices[1,1] = 5`).
    """
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        pos = torch.nonzero(bad)[0].tolist()
        value = int(idx[tuple(pos)]) if pos else int(idx)
        raise errors.InvalidArgumentError(
            None, None, f"indices[{','.join(map(str, pos))}] = {value} is not in [0, {n})")


def rows(value: torch.Tensor, indices: Any, updates: torch.Tensor) -> tuple:
    """Validated `(flat_indices, flat_updates)` for a scatter along axis 0."""
    idx = _as_index_tensor(indices, value.device)
    tail = tuple(value.shape[1:])
    expected = tuple(idx.shape) + tail
    if value.dim() == 0 or (updates.dim() != 0 and tuple(updates.shape) != expected):
        raise errors.InvalidArgumentError(
            None, None,
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {shape_str(updates.shape)}, indices.shape {shape_str(idx.shape)}, "
            f"params.shape {shape_str(value.shape)}")
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
    if value.dim() == 0:
        raise errors.InvalidArgumentError(
            None, None, "Output must be at least 1-D, got shape: []: scatter_nd needs a variable of "
            "rank >= 1.")
    k = idx.shape[-1]
    batch = tuple(idx.shape[:-1])
    tail = tuple(value.shape[k:])
    if k > value.dim():
        raise errors.InvalidArgumentError(
            None, None, f"Dimensions [{k},{value.dim()}) of input[shape={shape_str(value.shape)}] must "
            f"match dimensions [{k},{updates.dim()}) of updates[shape={shape_str(updates.shape)}]: "
            "indices.shape[-1] must not exceed the variable's rank.")
    if tuple(updates.shape[:len(batch)]) != batch or updates.dim() != len(batch) + len(tail):
        raise errors.InvalidArgumentError(
            None, None, f"Dimensions [0,{len(batch)}) of indices[shape={shape_str(idx.shape)}] = "
            f"{batch[0] if batch else 1} must match dimensions [0,{len(batch)}) of "
            f"updates[shape={shape_str(updates.shape)}] = ?: updates.shape must be "
            f"indices.shape[:-1] + params.shape[k:] = {shape_str(batch + tail)}.")
    if tuple(updates.shape[len(batch):]) != tail:
        raise errors.InvalidArgumentError(
            None, None, f"Dimensions [{k},{value.dim()}) of input[shape={shape_str(value.shape)}] must "
            f"match dimensions [{len(batch)},{updates.dim()}) of updates"
            f"[shape={shape_str(updates.shape)}]: updates.shape must be indices.shape[:-1] + "
            f"params.shape[k:] = {shape_str(batch + tail)}.")
    lead = torch.tensor(value.shape[:k], device=value.device, dtype=torch.long)
    flat_nd = idx.reshape(-1, k).to(torch.long)
    bad = ((flat_nd < 0) | (flat_nd >= lead)).any(dim=1)
    if bool(bad.any()):
        pos = int(torch.nonzero(bad)[0])
        raise errors.InvalidArgumentError(
            None, None,
            f"indices[{pos}] = {flat_nd[pos].tolist()} does not index into shape {shape_str(value.shape)}")
    strides = torch.ones(k, dtype=torch.long, device=value.device)
    for i in range(k - 2, -1, -1):
        strides[i] = strides[i + 1] * value.shape[i + 1]
    flat_idx = (flat_nd * strides).sum(dim=1)
    flat_upd = updates.reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd, k


def _index_reduce(target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor, how: str) -> torch.Tensor:
    """`target.index_reduce_(0, idx, upd, how)`, in place.

    Half-precision types reduce in float32: torch's CPU kernel asserts on
    them for single-element rows.
    """
    with warnings.catch_warnings():  # "index_reduce() is in beta": a stable API for us
        warnings.simplefilter("ignore", UserWarning)
        if target.dtype in (torch.float16, torch.bfloat16):
            wide = target.float().index_reduce_(0, idx, upd.float(), how)
            return target.copy_(wide)
        return target.index_reduce_(0, idx, upd, how)


def apply(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor) -> None:
    """Apply a validated row scatter of `kind` to `target` in place."""
    if kind == "update":
        target.index_copy_(0, idx, upd)
    elif kind == "add":
        target.index_add_(0, idx, upd)
    elif kind == "sub":
        target.index_add_(0, idx, -upd if upd.dtype is not torch.bool else upd)
    elif kind == "mul":
        _index_reduce(target, idx, upd, "prod")
    elif kind == "div":
        if bool((upd == 0).any()):
            raise errors.InvalidArgumentError(None, None, "updates must not contain 0")
        denom = _index_reduce(torch.ones_like(target), idx, upd, "prod")
        if target.is_floating_point() or target.is_complex():
            target.div_(denom)
        else:
            target.copy_(torch.div(target, denom, rounding_mode="trunc"))
    elif kind == "min":
        _index_reduce(target, idx, upd, "amin")
    elif kind == "max":
        _index_reduce(target, idx, upd, "amax")
    else:  # pragma: no cover - internal misuse
        raise ValueError(kind)
