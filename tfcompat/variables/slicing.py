"""TF's `__getitem__` (strided slice) on torch tensors, for reads and assigns.

TF slicing is numpy's basic slicing: ints (negative from the end,
out-of-range is an error), slices with any non-zero step (negative steps
included, which torch does not support), `...`, `tf.newaxis`, and scalar
integer tensors. A list key is a tuple of indices (`v[[0, 1]]` is
`v[0, 1]`), and a key that is a boolean tensor or array is a mask
(`is_mask`; reads go to `tf.boolean_mask`).

A negative-step slice selects the same elements as a positive-step slice,
in reverse order. So every TF key becomes one torch basic-indexing key (a
view) plus a set of result axes to flip. Reads flip the view; slice
assignment writes the flipped value into the view, in place.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np
import torch

from ..framework import dtypes, errors

__all__ = ["SlicePlan", "plan", "is_mask", "read", "is_simple"]


class SlicePlan(NamedTuple):
    key: tuple           # torch basic-indexing key: ints, slices, None
    flip: tuple          # axes of the result to reverse


_BAD_INDEX = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
              "tf.int32/tf.int64 tensors are valid indices, got {!r}")


def is_mask(key: Any) -> bool:
    """Whether `key` is a boolean mask (TF routes those to `tf.boolean_mask`)."""
    if isinstance(key, bool):
        return True
    if isinstance(key, torch.Tensor):
        return key.dtype is torch.bool
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    return getattr(key, "dtype", None) == "bool" and hasattr(key, "_tfcompat_tensor_like")


def _as_index(item: Any) -> int:
    if isinstance(item, bool):
        raise TypeError(_BAD_INDEX.format(item))
    if isinstance(item, numbers.Integral):
        return int(item)
    if isinstance(item, np.integer):
        return int(item)
    dtype = getattr(item, "dtype", None)
    if dtype is not None and len(getattr(item, "shape", (0,))) == 0:
        # As TF: a scalar tensor or array of int16, int32 or int64 indexes (not uint8).
        try:
            if dtypes.as_dtype(dtype) in (dtypes.int16, dtypes.int32, dtypes.int64):
                return int(item)
        except TypeError:
            pass
    raise TypeError(_BAD_INDEX.format(item))


def _slice_bound(value: Any) -> Any:
    return None if value is None else _as_index(value)


def plan(shape: torch.Size, key: Any) -> SlicePlan:
    """Translate a TF slice key for a tensor of `shape` into a `SlicePlan`."""
    items = list(key) if isinstance(key, (tuple, list)) else [key]
    if len(shape) == 0 and any(it is not None and it is not Ellipsis for it in items):
        raise errors.InvalidArgumentError(None, None, "Attempting to slice scalar input.")
    ellipses = sum(1 for it in items if it is Ellipsis)
    if ellipses > 1:
        raise errors.InvalidArgumentError(None, None, "Multiple ellipses in slice spec not allowed")
    consuming = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consuming > len(shape):
        raise errors.InvalidArgumentError(
            None, None,
            f"Index out of range using input dim {len(shape)}; input has only {len(shape)} dims")
    out_key: list = []
    flip: list = []
    dim = 0       # input axis
    out_dim = 0   # result axis
    for it in items:
        if it is Ellipsis:
            span = len(shape) - consuming
            out_key.extend([slice(None)] * span)
            dim += span
            out_dim += span
        elif it is None:
            out_key.append(None)
            out_dim += 1
        elif isinstance(it, slice):
            n = shape[dim]
            step = 1 if it.step is None else _as_index(it.step)
            if step == 0:
                raise errors.InvalidArgumentError(None, None, f"strides[{dim}] must be non-zero")
            start, stop = _slice_bound(it.start), _slice_bound(it.stop)
            if step > 0:
                out_key.append(slice(start, stop, step))
            else:
                rng = range(*slice(start, stop, step).indices(n))
                if len(rng) == 0:
                    out_key.append(slice(0, 0))
                else:
                    out_key.append(slice(rng[-1], rng[0] + 1, -step))
                    flip.append(out_dim)
            dim += 1
            out_dim += 1
        else:
            index = _as_index(it)
            n = shape[dim]
            if not -n <= index < n:
                raise errors.InvalidArgumentError(
                    None, None,
                    f"slice index {index if index >= 0 else index + n} of dimension {dim} out of "
                    "bounds.")
            out_key.append(index)
            dim += 1
    return SlicePlan(tuple(out_key), tuple(flip))


def is_simple(key: Any, shape: torch.Size) -> bool:
    """Whether torch's own `t[key]` reads exactly TF's strided slice: an in-range int, or a
    slice of ints with a positive step, on a tensor of rank >= 1 (the common keys)."""
    kind = type(key)
    if kind is slice:
        start, stop, step = key.start, key.stop, key.step
        return (len(shape) > 0 and (start is None or type(start) is int)
                and (stop is None or type(stop) is int)
                and (step is None or (type(step) is int and step > 0)))
    return kind is int and len(shape) > 0 and -shape[0] <= key < shape[0]


def read(t: torch.Tensor, key: Any) -> torch.Tensor:
    """`t[key]` for a strided-slice key (a view unless a step is negative).

    Masks are `tf.boolean_mask`'s (callers check `is_mask` first).
    """
    p = plan(t.shape, key)
    out = t[p.key]
    return out.flip(p.flip) if p.flip else out


def fit_value(value: torch.Tensor, target: torch.Size) -> torch.Tensor:
    """Broadcast `value` to `target`, dropping leading size-1 axes (numpy's assign rule)."""
    while value.dim() > len(target) and value.shape[0] == 1:
        value = value[0]
    try:
        return value.expand(target)
    except RuntimeError:
        raise ValueError(
            f"Cannot assign a value of shape {tuple(value.shape)} to a slice of shape "
            f"{tuple(target)}: the shapes must match or broadcast.") from None
