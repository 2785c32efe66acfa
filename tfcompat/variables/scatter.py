"""Sparse updates of a variable's storage: TF's scatter ops over torch's index ops.

TF's scatter kernels differ by device, and so does this module (the policy
of `tfcompat.ops._indices.checks_on_host`; a variable fixes its answer when
it is created):

* **On CPU** (TF's CPU kernels validate): every function validates its
  inputs completely *before* touching the storage, so a failed call leaves
  the variable unchanged (TF's CPU kernel has already written the rows
  before a bad index; torch's kernels may stop half-way through an index
  list). An out-of-range index is an `InvalidArgumentError` naming it, as
  is a 0 divisor of `scatter_div`. Duplicate indices in half precision are
  applied one at a time in the updates' order, rounding after each, as
  TF's CPU kernel does.
* **On an accelerator** (TF's GPU kernels check nothing): no device data is
  read on the host. An out-of-range row is skipped: its position is
  redirected to a write that changes nothing (`-0.0` for add/sub, since
  `x + -0.0 == x` for every `x`, `-0.0` included, where `+0.0` would turn
  `-0.0` into `+0.0`; `1` for mul and div; the dtype's largest/smallest
  value for min/max; for update, a copy of the first valid position's
  index and row, or row 0's current value when no position is valid).
  Duplicates are reduced in one pass whose order is unspecified, as TF's
  GPU atomics (half precision: one `index_add_`/`index_reduce_`, which may
  accumulate in float32; `scatter_div` divides each row once by the
  product of its divisors). `scatter_div` does not look for 0 divisors
  (TF's GPU kernel divides: inf/NaN for floats).

Shape and dtype errors need no data and are raised on every device.

| TF op                  | torch kernel                          |
|------------------------|---------------------------------------|
| scatter_update         | `index_copy_`                         |
| scatter_add / _sub     | `index_add_` (duplicates accumulate)  |
| scatter_mul            | `index_reduce_(..., "prod")`          |
| scatter_div            | the touched rows divided by each      |
|                        | update in turn (duplicates in rounds; |
|                        | accelerator: by their product)        |
| scatter_min / _max     | `index_reduce_(..., "amin"/"amax")`   |
| scatter_nd_*           | the above on a view whose first axis  |
|                        | enumerates the indexed leading axes   |

`runs` groups equal indices without host reads (a stable sort and a
cumulative sum): the accelerator reductions and the optimizers' static-shape
deduplication of sparse gradients use it.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple, Optional

import torch

from ..framework import errors
from ..ops._indices import all_in_range, checks_on_host, first_bad, in_range, index_tensor, position
from ..ops._dispatch import fmt_shape as shape_str
from ..ops.indexing_ops import _nd_rows

__all__ = ["INDEX_TYPES", "index_arg", "rows", "nd_rows", "apply", "check_gather_indices",
           "Runs", "runs", "shape_str"]

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
    Reads `idx` on the host: for tensors TF validates (`checks_on_host`);
    on an accelerator the callers skip it, as TF's GPU kernels do.
    """
    if all_in_range(idx, n):
        return
    pos = first_bad(~in_range(idx, n))
    message = (f"indices{position(tuple(idx.shape), pos)} = {int(idx.reshape(-1)[pos])} is not "
               f"in [0, {n})")
    raise errors.InvalidArgumentError(None, None, message if op is None else f"{message} [Op:{op}]")


def rows(value: torch.Tensor, indices: Any, updates: torch.Tensor, op: str,
         host_checks: Optional[bool] = None) -> tuple:
    """`(flat_indices, flat_updates, valid)` for a scatter along axis 0.

    `host_checks` (default: `checks_on_host(value)`) says whether TF's
    kernel for the variable's device validates the indices: then an
    out-of-range index raises here and `valid` is None. Otherwise nothing is
    read on the host and `valid` is the device mask of the positions in
    range (the others are skipped by `apply`).
    """
    idx = index_arg(indices, value.device, op)
    tail = tuple(value.shape[1:])
    expected = tuple(idx.shape) + tail
    if value.dim() == 0 or (updates.dim() != 0 and tuple(updates.shape) != expected):
        raise errors.InvalidArgumentError(
            None, None,
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
            f"got updates.shape {shape_str(updates.shape)}, indices.shape {shape_str(idx.shape)}, "
            f"params.shape {shape_str(value.shape)}")
    if host_checks is None:
        host_checks = checks_on_host(value)
    valid = None
    if host_checks:
        check_gather_indices(idx, value.shape[0], op)
    flat_idx = idx.reshape(-1).to(torch.long)  # index_copy_ takes int64 only
    if not host_checks:
        valid = in_range(flat_idx, value.shape[0])
    flat_upd = updates.expand(expected).reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd, valid


def nd_rows(value: torch.Tensor, indices: Any, updates: torch.Tensor, op: str,
            host_checks: Optional[bool] = None) -> tuple:
    """`(flat_indices, flat_updates, k, valid)` for a `scatter_nd_*` on `value`.

    The first `k` axes (k = indices.shape[-1]) are linearized, so the
    update is a plain row scatter on `value.view(-1, *value.shape[k:])`.
    `host_checks` and `valid` as in `rows`: a bad index row raises in TF's
    words where TF's kernel validates, and is skipped elsewhere.
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
    if host_checks is None:
        host_checks = checks_on_host(value)
    lead = tuple(value.shape[:k])
    bad_row = f"does not index into shape {shape_str(value.shape)}"
    flat_idx, valid = _nd_rows(idx, lead, op, bad_row)
    if host_checks:
        if valid is not None and not bool(valid.all()):
            # `_nd_rows` left the check to us (the index tensor follows the accelerator's policy,
            # the variable validates): the host copy names the first bad row in TF's words.
            _nd_rows(idx.cpu(), lead, op, bad_row)
        valid = None
    elif valid is None:  # (checked on the host already: every row is in range)
        valid = torch.ones(flat_idx.shape, dtype=torch.bool, device=flat_idx.device)
    flat_upd = updates.reshape((flat_idx.numel(),) + tail)
    return flat_idx, flat_upd, k, valid


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


def apply(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor,
          valid: Optional[torch.Tensor] = None) -> None:
    """Apply a row scatter of `kind` to `target` in place.

    With `valid` None (the indices were validated on the host), TF's CPU
    kernel: duplicates in order, half precision rounded after each update,
    `scatter_div` refusing a 0 divisor. With a `valid` mask (an
    accelerator), TF's GPU kernel: positions outside it are skipped and
    duplicates are reduced in one unordered pass (see the module docstring).
    """
    if valid is not None:
        _apply_unchecked(kind, target, idx, upd, valid)
    elif kind == "update":
        target.index_copy_(0, idx, upd)
    elif kind in ("add", "sub") and target.dtype in _HALF and target.dim() > 1:
        # TF adds each duplicate in turn, rounding after each; torch's CPU index_add_ does too,
        # except into rows of half precision, which it sums in float32 first (float16
        # 2048 + 1 + 1 + 1 + 1: TF 2048, torch 2052).
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


# -- accelerators: out-of-range rows skipped, duplicates unordered, nothing read on the host ------

_REDUCTIONS = {"mul": "prod", "min": "amin", "max": "amax"}


def _neutral(kind: str, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A 0-d update that leaves every element unchanged under `kind`.

    add/sub (the subtrahend negated first): `-0.0` (`x + -0.0` is `x` for every
    `x`, `-0.0` included; `+0.0` would turn `-0.0` into `+0.0`), 0 for
    integers, False for bool; mul/div: 1; min/max: the dtype's largest /
    smallest value (infinities for floating point).
    """
    if kind in ("add", "sub"):
        if dtype is torch.bool:
            value: Any = False
        elif dtype.is_complex:
            value = complex(-0.0, -0.0)
        elif dtype.is_floating_point:
            value = -0.0
        else:
            value = 0
    elif kind in ("mul", "div"):
        value = True if dtype is torch.bool else 1
    elif dtype is torch.bool:
        value = kind == "min"
    elif dtype.is_floating_point:
        value = float("inf") if kind == "min" else float("-inf")
    else:
        info = torch.iinfo(dtype)
        value = info.max if kind == "min" else info.min
    return torch.full((), value, dtype=dtype, device=device)


def _apply_unchecked(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor,
                     valid: torch.Tensor) -> None:
    """TF's GPU scatter: the positions outside `valid` are skipped, without a host read."""
    if idx.numel() == 0 or target.shape[0] == 0:
        return  # (no row to write: every index is out of range)
    mask = valid.view((-1,) + (1,) * (upd.dim() - 1))
    if kind == "update":
        # A skipped position repeats the first valid position's write (or, if none is valid,
        # writes row 0's own value): duplicates of scatter_update are unordered in TF anyway.
        first = torch.argmax(valid.to(torch.uint8)).view(1)
        found = valid.index_select(0, first)
        row0 = torch.zeros(1, dtype=idx.dtype, device=idx.device)
        fill_idx = torch.where(found, idx.index_select(0, first), row0)
        fill_row = torch.where(found.view((1,) + (1,) * (upd.dim() - 1)), upd.index_select(0, first),
                               target.index_select(0, row0))
        target.index_copy_(0, torch.where(valid, idx, fill_idx), torch.where(mask, upd, fill_row))
        return
    safe = torch.where(valid, idx, 0)  # a skipped position updates row 0 by the neutral value
    if kind in ("add", "sub"):
        delta = upd if kind == "add" or upd.dtype is torch.bool else -upd
        target.index_add_(0, safe, torch.where(mask, delta, _neutral(kind, upd.dtype, upd.device)))
        return
    if kind not in _REDUCTIONS and kind != "div":  # pragma: no cover - internal misuse
        raise ValueError(kind)
    neutral_upd = torch.where(mask, upd, _neutral(kind, upd.dtype, upd.device))
    _reduce_touched(kind, target, safe, neutral_upd)


def _reduce_touched(kind: str, target: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor) -> None:
    """mul/min/max/div of each touched row by all of its updates in one reduction, in place.

    Only the touched rows are read and written: they are gathered once per
    run of equal indices (`runs`), reduced there (half precision in
    float32, rounded once), and written back with every duplicate position
    writing its run's identical result. `div` divides each row by the
    product of its divisors.
    """
    r = runs(idx)
    wide = torch.float32 if target.dtype in _HALF else target.dtype
    rows = target.index_select(0, r.index).to(wide)
    if kind == "div":
        divisors = torch.ones_like(rows)
        _reduce_into(divisors, r.slot, upd.to(wide), "prod")
        result = _divide(rows, divisors.index_select(0, r.take))
    else:
        _reduce_into(rows, r.slot, upd.to(wide), _REDUCTIONS[kind])
        result = rows.index_select(0, r.take)
    target.index_copy_(0, r.index, result.to(target.dtype))


def _reduce_into(buf: torch.Tensor, idx: torch.Tensor, upd: torch.Tensor, how: str) -> None:
    with warnings.catch_warnings():  # "index_reduce() is in beta": a stable API for us
        warnings.simplefilter("ignore", UserWarning)
        buf.index_reduce_(0, idx, upd, how)


class Runs(NamedTuple):
    """The runs of equal indices of a 1-D index tensor of `n` positions, in static shapes.

    With `u` the number of distinct indices, runs are numbered 0..u-1 in
    increasing index order, and every field but `slot` has one entry per
    run followed by `n - u` pads:

    * `slot[i]`: the run of position `i` (positions keep their order);
    * `index[s]`: the index of run `s`; a pad repeats the last run's index;
    * `take[s]`: `s` for a run, `u - 1` for a pad (a pad carries the last
      run's result: `result.index_select(0, take)`);
    * `real[s]`: whether `s < u`.
    """

    slot: torch.Tensor
    index: torch.Tensor
    take: torch.Tensor
    real: torch.Tensor


def runs(idx: torch.Tensor) -> Runs:
    """Group the equal entries of the 1-D `idx` without reading anything on the host.

    A stable sort, a cumulative sum over the run starts and two small
    scatters: O(n log n) in the number of positions, whatever the size of
    what is indexed (where `torch.unique` would read the count `u` on the
    host to size its output).
    """
    n = idx.numel()
    ordered, order = torch.sort(idx, stable=True)
    starts = torch.ones(n, dtype=torch.bool, device=idx.device)
    torch.ne(ordered[1:], ordered[:-1], out=starts[1:])
    sorted_slot = torch.cumsum(starts, 0) - 1
    slot = torch.empty_like(sorted_slot).index_copy_(0, order, sorted_slot)
    positions = torch.arange(n, device=idx.device)
    last = sorted_slot[-1:]  # u - 1, on the device (empty when n == 0)
    take = torch.minimum(positions, last)
    # Every position of a run writes the run's index: identical values, any order.
    index = torch.zeros_like(ordered).index_copy_(0, sorted_slot, ordered).index_select(0, take)
    return Runs(slot, index, take, positions <= last)
