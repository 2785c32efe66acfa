"""Sorting and searching: `sort`, `argsort`, `math.top_k` (also `nn.top_k`), `searchsorted`.

TF sorts with its `TopKV2` kernel along the last axis (after swapping the
sort axis there): ties keep their original order (the lower index first),
in both directions, so `tf.argsort` is stable whatever `stable` says.
Torch's stable sort (`torch.sort(stable=True)`) gives the same order for
every input without NaN, and `top_k` is its first `k` entries (torch's own
`topk` leaves the order of ties unspecified).

Differences: with NaN in the input TF's comparator is not a strict weak
order and its result depends on the kernel's internals; torch sorts NaN as
larger than every number (last ascending, first descending). `top_k(...,
sorted=False)` returns the sorted order (TF: an unspecified order).
"""

from __future__ import annotations

import collections
from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._shape_args import int_values

__all__ = ["sort", "argsort", "top_k", "searchsorted"]

# TopKV2's registered dtypes (sort and argsort go through it).
_TOPK = D.REAL
_TOPK_NAMES = ("float", "double", "int32", "uint8", "int16", "int8", "int64", "bfloat16",
               "uint16", "half", "uint32", "uint64")
_SORT_NAMES = ("bfloat16", "half", "float", "double", "int8", "int16", "int32", "int64",
               "complex64", "complex128")

_INDEX_TYPES = frozenset({torch.int16, torch.int32, torch.int64})

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _sort_axis(axis: Any, rank: int) -> int:
    if isinstance(axis, (list, tuple)) or (isinstance(axis, torch.Tensor) and axis.dim() != 0):
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    a = int_values(axis, "sort", python_dtype=torch.int32)
    if not -rank <= a < rank:
        # TF reads shape[axis] with a strided slice, which fails like this.
        raise invalid(f"slice index {a if a >= 0 else a + rank} of dimension 0 out of bounds. "
                      f"(axis {a} for a rank-{rank} input)", "StridedSlice")
    return a % rank


def _sorted(values: Any, axis: Any, direction: str) -> tuple:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError("Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                         f"direction={direction}")
    t = convert_to_tensor(values)
    if t.dtype not in _TOPK:
        # Ascending sorts negate first, so `Neg`'s list shows; descending ones fail in TopKV2.
        ascending = direction == "ASCENDING"
        D.check_dtype("Neg" if ascending else "TopKV2", t.dtype, _TOPK,
                      names=_SORT_NAMES if ascending else _TOPK_NAMES)
    a = _sort_axis(axis, t.dim())
    return torch.sort(t, dim=a, descending=direction == "DESCENDING", stable=True)


def sort(values: Any, axis: int = -1, direction: str = "ASCENDING",
         name: Optional[str] = None) -> torch.Tensor:
    """`tf.sort`: `values` sorted along `axis` (`torch.sort`, stable).

    Differentiable: the gradient flows back to each value's original position.
    """
    return _sorted(values, axis, direction).values


def argsort(values: Any, axis: int = -1, direction: str = "ASCENDING", stable: bool = False,
            name: Optional[str] = None) -> torch.Tensor:
    """`tf.argsort`: int32 indices that sort `values` along `axis`; ties keep their order (as TF)."""
    return _sorted(values, axis, direction).indices.to(torch.int32)


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002 - TF names
          index_type: Any = dtypes.int32, name: Optional[str] = None) -> TopKV2:
    """`tf.math.top_k`: the `k` largest entries of the last axis and their indices.

    `(values, indices)`, largest first; equal values come lower index first,
    as TF's `TopKV2`. `index_type` is int16, int32 or int64.
    """
    t = input if type(input) is torch.Tensor else convert_to_tensor(input)
    if t.dtype not in _TOPK:
        D.check_dtype("TopKV2", t.dtype, _TOPK, names=_TOPK_NAMES)
    idx_dtype = torch.int32 if index_type is dtypes.int32 else dtypes.to_torch(index_type)
    if idx_dtype not in _INDEX_TYPES:
        D.check_dtype("TopKV2", idx_dtype, _INDEX_TYPES, attr="index_type",
                      names=("int16", "int32", "int64"))
    n = k if type(k) is int else int_values(k, "TopKV2", attr="Tk", python_dtype=torch.int32)
    if isinstance(n, list):
        raise invalid(f"k must be 0-D, got shape [{len(n)}]", "TopKV2")
    if t.dim() == 0:
        raise invalid("input must be >= 1-D, got shape []", "TopKV2")
    if n < 0:
        raise invalid(f"Need k >= 0, got {n}", "TopKV2")
    cols = t.shape[-1]
    if cols < n:
        raise invalid(f"input must have at least k columns. Had {cols}, needed {n}", "TopKV2")
    if n == 1:
        # argmax returns the first maximum: TF's tie order, without a sort.
        i = torch.argmax(t, dim=-1, keepdim=True) if cols else t.new_zeros(t.shape, dtype=torch.int64)
        return TopKV2(t.gather(-1, i), i.to(idx_dtype))
    if cols > _SORT_ALL_BELOW and n < cols:
        values, indices = _top_k_large(t, n)
        return TopKV2(values, indices.to(idx_dtype))
    values, indices = torch.sort(t, dim=-1, descending=True, stable=True)
    return TopKV2(values[..., :n], indices[..., :n].to(idx_dtype))


# Below this many columns one stable sort is the cheapest exact top_k; above it, `_top_k_large`.
_SORT_ALL_BELOW = 2048


def _top_k_large(t: torch.Tensor, k: int) -> tuple:
    """Exact `top_k` in TF's tie order in O(n + k log k), with no host sync.

    `torch.topk` finds the k largest values (ties in no particular order);
    every entry above the smallest of them is taken, then the lowest-index
    entries equal to it, and the k taken entries are sorted stably. NaN
    counts as larger than every number, as in `torch.sort`, so this path and
    the full sort agree.
    """
    d = t.detach()
    picks = torch.topk(d, k, dim=-1, sorted=False).values
    if d.is_floating_point():
        nan_t, nan_p = d != d, picks != picks
        all_nan = nan_p.all(-1, keepdim=True)  # then the first k NaNs are the answer
        thr = torch.amin(torch.where(nan_p, torch.full_like(picks, float("inf")), picks),
                         dim=-1, keepdim=True)
        greater = ~all_nan & ((d > thr) | nan_t)
        equal = torch.where(all_nan, nan_t, d == thr)
    else:
        thr = torch.amin(picks, dim=-1, keepdim=True)
        greater, equal = d > thr, d == thr
    # One integer key per entry, all distinct: the entries above the threshold first, then the
    # ties, each group lowest index first; a second topk on the keys picks exactly TF's k.
    n = d.shape[-1]
    kind = torch.int32 if 2 * n < 2 ** 31 else torch.int64
    rev = n - torch.arange(n, dtype=kind, device=d.device)
    key = torch.where(greater, rev + n, torch.where(equal, rev, 0))
    top = torch.topk(key, k, dim=-1, sorted=True).values
    picked = torch.where(top > n, 2 * n - top, n - top).long()  # the keys back to indices
    order = torch.sort(t.gather(-1, picked), dim=-1, descending=True, stable=True).indices
    indices = picked.gather(-1, order)
    return t.gather(-1, indices), indices


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = dtypes.int32,
                 name: Optional[str] = None) -> torch.Tensor:
    """`tf.searchsorted`: for each value, where it would go in the last axis of `sorted_sequence`.

    `side="left"` gives the first such position (TF's `LowerBound`),
    `"right"` the last (`UpperBound`); leading axes of both inputs must
    match (`torch.searchsorted`). `out_type` is int32 or int64.
    """
    if side not in ("left", "right"):
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: `side` = "
                         f"'{side}'.")
    op = "LowerBound" if side == "left" else "UpperBound"
    seq = convert_to_tensor(sorted_sequence)
    vals = convert_to_tensor(values)
    out = dtypes.to_torch(out_type)
    D.check_dtype(op, out, D.INT32_64, attr="out_type")
    if vals.dtype is not seq.dtype:
        raise D.mismatch(op, 1, seq.dtype, vals.dtype)
    for t in (seq, vals):
        if t.dim() == 0:
            raise invalid("slice index -1 of dimension 0 out of bounds. (searchsorted needs inputs "
                          "of rank >= 1)", "StridedSlice")
    if tuple(seq.shape[:-1]) != tuple(vals.shape[:-1]):
        raise invalid("Leading dim_size of both tensors must match.", op)
    if vals.device != seq.device:
        vals = vals.to(seq.device)
    found = torch.searchsorted(seq.contiguous(), vals.contiguous(), right=side == "right",
                               out_int32=out is torch.int32)
    if side == "left" and vals.is_floating_point():
        # TF's lower_bound compares `element < NaN` (always false) and stops at 0; torch ranks
        # NaN above every number. (`right` agrees: both give the end.)
        found = torch.where(vals != vals, torch.zeros((), dtype=found.dtype, device=found.device),
                            found)
    return found if found.dtype is out else found.to(out)
