"""Sparse updates of a variable's storage: TF's scatter ops over torch's index ops.

Every function validates its inputs completely *before* touching the
storage, so a failed call leaves the variable unchanged (torch's own kernels
may stop half-way through an index list). Indices are checked on the host on
every device: TF's GPU kernels skip a bad index silently, tfcompat raises
(see docs/differences.md). Each call validates its indices once.

| TF op                  | torch kernel                          |
|------------------------|---------------------------------------|
| scatter_update         | `index_copy_`                         |
| scatter_add / _sub     | `index_add_` (duplicates accumulate)  |
| scatter_mul            | `index_reduce_(..., "prod")`          |
| scatter_div            | the touched rows divided by each      |
|                        | update in turn (duplicates in rounds) |
| scatter_min / _max     | `index_reduce_(..., "amin"/"amax")`   |
| scatter_nd_*           | the above on a view whose first axis  |
|                        | enumerates the indexed leading axes   |
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import torch

from ..framework import errors
from ..ops._indices import all_in_range, first_bad, in_range, index_tensor, position
from ..ops._dispatch import fmt_shape as shape_str
from ..ops.indexing_ops import _nd_rows

__all__ = ["INDEX_TYPES", "index_arg", "rows", "nd_rows", "apply", "check_gather_indices",
           "shape_str"]

# TF's resource gather/scatter kernels take int32 and int64 indices only (its
# tensor ops, `tf.gather` and `tf.tensor_scatter_*`, also take int16).
INDEX_TYPES = frozenset({torch.int32, torch.int64})


def index_arg(indices: Any, device: torch.device, op: str) -> torch.Tensor:
    """`indices` of a variable's gather or scatter `op`: int32/int64, on `device`."""
    idx = index_tensor(indices, op, allowed=INDEX_TYPES)
    return idx if idx.device == device else idx.to(device)


def check_gather_indices(idx: torch.Tensor, n: int, op: Optional[str] = None) -> None:
    """InvalidArgumentError, in TF's words, for the first index outside `[0, n)`.

    The position is given in `idx`'s own coordinates (`indices[1,1] = 5`).
    Checked on the host whatever the device (one sync on an accelerator).
    """
    if all_in_range(idx, n):
        return
    pos = first_bad(~in_range(idx, n))
    message = (f"indices{position(tuple(idx.shape), pos)} = {int(idx.reshape(-1)[pos])} is not "
               f"in [0, {n})")
    raise errors.InvalidArgumentError(None, None, message if op is None else f"{message} [Op:{op}]")


def rows(value: torch.Tensor, indices: Any, updates: torch.Tensor, op: str) -> tuple:
    """Validated `(flat_indices, flat_updates)` for a scatter along axis 0."""
    idx = index_arg(indices, value.device, op)
    tail = tuple(value.shape[1:])
    expected = tuple(idx.shape) + tail
    if value.dim() == 0 or (updates.dim() != 0 and tuple(updates.shape) != expected):
        raise errors.InvalidArgumentError(
            None, None,
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {shape_str(updates.shape)}, indices.shape {shape_str(idx.shape)}, "
            f"params.shape {shape_str(value.shape)}")
    check_gather_indices(idx, value.shape[0], op)
    flat_idx = idx.reshape(-1).to(torch.long)  # index_copy_ takes int64 only
    flat_upd = updates.expand(expected).reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd


def nd_rows(value: torch.Tensor, indices: Any, updates: torch.Tensor, op: str) -> tuple:
    """Validated `(flat_indices, flat_updates, k)` for a `scatter_nd_*` on `value`.

    The first `k` axes (k = indices.shape[-1]) are linearized, so the
    update is a plain row scatter on `value.view(-1, *value.shape[k:])`.
    """
    idx = index_arg(indices, value.device, op)
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
    lead = tuple(value.shape[:k])
    bad_row = f"does not index into shape {shape_str(value.shape)}"
    flat_idx, valid = _nd_rows(idx, lead, op, bad_row)
    if valid is not None and not bool(valid.all()):
        # On an accelerator `_nd_rows` marks bad rows (TF's GPU kernels skip them); a variable's
        # scatter raises instead: the host copy names the first bad row in TF's words.
        _nd_rows(idx.cpu(), lead, op, bad_row)
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


def _occurrence_rounds(idx: torch.Tensor) -> list:
    """Positions of `idx` in rounds that repeat no index, each in the updates' order.

    Round `r` holds every index's `r`-th occurrence. Applying the rounds in
    order applies each row's updates one after another, in the order TF's CPU
    kernel does, rounding after each, where a single reduction would round
    once. Counting the rounds reads one number on the host; the scatters
    check their indices on the host anyway.
    """
    if idx.numel() < 2:
        return [None]
    order = torch.sort(idx, stable=True).indices
    ordered = idx[order]
    starts = torch.ones_like(ordered, dtype=torch.bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    positions = torch.arange(ordered.numel(), device=idx.device)
    run_start = torch.cummax(torch.where(starts, positions, torch.zeros_like(positions)), 0).values
    rank = torch.empty_like(positions)
    rank[order] = positions - run_start
    rounds = int(rank.max()) + 1
    if rounds == 1:
        return [None]
    return [torch.nonzero(rank == r).flatten() for r in range(rounds)]


def _combine_rows(target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor, combine: Any) -> None:
    """`row = combine(row, update)` for each update in turn, in place (duplicates sequentially).

    Only the touched rows are read and written (no variable-sized buffer).
    """
    for positions in _occurrence_rounds(idx):
        rows, values = (idx, upd) if positions is None else (idx[positions], upd[positions])
        target.index_copy_(0, rows, combine(target.index_select(0, rows), values))


def _divide(rows: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    if rows.is_floating_point() or rows.is_complex():
        return rows / values
    return torch.div(rows, values, rounding_mode="trunc")  # TF's integer division truncates


_HALF = (torch.float16, torch.bfloat16)


def apply(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor) -> None:
    """Apply a validated row scatter of `kind` to `target` in place."""
    if kind == "update":
        target.index_copy_(0, idx, upd)
    elif kind in ("add", "sub") and target.dtype in _HALF:
        # TF adds each duplicate in turn, rounding after each; torch's index_add_ sums a row's
        # duplicates in float32 first (float16 2048 + 1 + 1 + 1 + 1: TF 2048, torch 2052).
        _combine_rows(target, idx, upd, torch.add if kind == "add" else torch.sub)
    elif kind == "add":
        target.index_add_(0, idx, upd)
    elif kind == "sub":
        target.index_add_(0, idx, -upd if upd.dtype is not torch.bool else upd)
    elif kind == "mul":
        if target.dtype in _HALF:  # round after each product, as TF
            _combine_rows(target, idx, upd, torch.mul)
        else:
            _index_reduce(target, idx, upd, "prod")
    elif kind == "div":
        if bool((upd == 0).any()):
            raise errors.InvalidArgumentError(None, None, "updates must not contain 0")
        _combine_rows(target, idx, upd, _divide)
    elif kind == "min":
        _index_reduce(target, idx, upd, "amin")
    elif kind == "max":
        _index_reduce(target, idx, upd, "amax")
    else:  # pragma: no cover - internal misuse
        raise ValueError(kind)
