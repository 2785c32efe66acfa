"""Clipping: `clip_by_value`, `clip_by_norm`, `clip_by_global_norm`, `global_norm`.

Transcriptions of TF's `clip_ops.py`, operation for operation, so values
and gradients agree (including its NaN-safe `where` around the norm and
its scale for an infinite or NaN global norm, which makes every clipped
value NaN). `IndexedSlices` are clipped through their values and stay
`IndexedSlices`; `None` entries of a list pass through.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Optional

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from . import math_ops, unary_ops
from ._shape_args import reduction_axes
from .nn_ops import l2_loss
from .reduction_ops import reduce_sum
from . import exact_math

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]


def _values(t: Any) -> torch.Tensor:
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)


def _like(t: Any, values: torch.Tensor) -> Any:
    if isinstance(t, IndexedSlices):
        return IndexedSlices(values, t.indices, t.dense_shape)
    return values


_CLAMP_FAST = frozenset({torch.float32, torch.float64})
_NUMBER = (int, float)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any,
                  name: Optional[str] = None) -> Any:
    """`tf.clip_by_value`: `maximum(minimum(t, clip_value_max), clip_value_min)`.

    Bounds take `t`'s dtype (a float bound on an int tensor is a
    `TypeError`) and may be tensors, but must not broadcast `t` to a bigger
    shape. On a tie with a bound the gradient passes through, as in TF.
    """
    if (type(t) is torch.Tensor and t.dtype in _CLAMP_FAST and type(clip_value_min) in _NUMBER
            and type(clip_value_max) in _NUMBER and clip_value_min <= clip_value_max):
        # One kernel for the common case: with ordered Python bounds, torch's clamp is TF's
        # maximum(minimum(t, max), min) value for value (NaN kept, bounds rounded to t's
        # dtype), and its gradient passes on ties as TF's does.
        return torch.clamp(t, clip_value_min, clip_value_max)
    values = _values(t)
    t_min = math_ops.minimum(values, clip_value_max)
    _check_same_shape(values, t_min)
    t_max = math_ops.maximum(t_min, clip_value_min)
    _check_same_shape(values, t_max)
    return _like(t, t_max)


def _check_same_shape(values: torch.Tensor, result: torch.Tensor) -> None:
    if values.shape != result.shape:
        raise ValueError(f"Shapes {TensorShape(tuple(values.shape))} and "
                         f"{TensorShape(tuple(result.shape))} are incompatible: a clip bound must "
                         "not broadcast the clipped tensor to a bigger shape.")


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None) -> Any:
    """`tf.clip_by_norm`: `t * clip_norm / max(l2norm(t, axes), clip_norm)`.

    The L2 norm is taken over `axes` (all when None); slices whose norm is
    at most `clip_norm` are unchanged. A negative `clip_norm` counts as 0.
    """
    values = _values(t)
    if np.isscalar(clip_norm):
        if clip_norm < 0:
            clip_norm = 0
    else:
        clip_norm = math_ops.cast(math_ops.maximum(clip_norm, 0), values.dtype)
    reduction_axes(axes, values.dim(), "Sum")  # TF's axis errors, before any arithmetic
    l2sum = reduce_sum(math_ops.multiply(values, values), axes, keepdims=True)
    pred = l2sum > 0
    # TF's two-`where` trick: the gradient of sqrt at 0 must not poison the result.
    l2sum_safe = torch.where(pred, l2sum, torch.ones_like(l2sum))
    l2norm = torch.where(pred, unary_ops.sqrt(l2sum_safe), l2sum)
    intermediate = math_ops.multiply(values, clip_norm)
    _check_same_shape(values, intermediate)
    values_clip = math_ops.truediv(intermediate, math_ops.maximum(l2norm, clip_norm))
    return _like(t, values_clip)


def _check_list(t_list: Any) -> list:
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.global_norm`: `sqrt(sum(l2norm(t) ** 2 for t in t_list))`.

    `None` entries are skipped, `IndexedSlices` count their values. All
    tensors must share one floating dtype (TF stacks their partial sums);
    the result has that dtype (float32 for an empty list).
    """
    tensors = [_values(t) for t in _check_list(t_list) if t is not None]
    if not tensors:
        return torch.zeros((), dtype=torch.float32, device=device_lib.current_torch_device())
    half_squared = [l2_loss(v) for v in tensors]
    first = half_squared[0]
    for i, h in enumerate(half_squared[1:], 1):
        if h.dtype is not first.dtype:
            raise D.mismatch("Pack", i, first.dtype, h.dtype)
    total = torch.stack(D.same_device(half_squared)).sum() if len(half_squared) > 1 else first
    return exact_math.sqrt(total * 2)  # doubling is exact: no constant tensor needed


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> tuple:
    """`tf.clip_by_global_norm`: scale every tensor by `clip_norm / max(global_norm, clip_norm)`.

    Returns `(list_clipped, global_norm)`; `None` entries stay `None`,
    `IndexedSlices` stay `IndexedSlices`. An infinite or NaN norm makes
    every value NaN, as in TF. `use_norm` replaces the computed norm.
    """
    items = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(items)
    else:
        use_norm = convert_to_tensor(use_norm)
    one = torch.ones((), dtype=use_norm.dtype, device=use_norm.device)
    clip = clip_norm if isinstance(clip_norm, torch.Tensor) else convert_to_tensor_on(
        use_norm.device, clip_norm, dtype=dtypes.from_torch(use_norm.dtype))
    clip = clip.to(use_norm.device)
    scale_for_finite = clip * math_ops.minimum(one / use_norm, one / clip)
    # A no-op for a finite norm; NaN for an infinite or NaN one.
    scale = scale_for_finite + (use_norm - use_norm)
    clipped = []
    for t in items:
        if t is None:
            clipped.append(None)
            continue
        v = t.values if isinstance(t, IndexedSlices) else t
        v = convert_to_tensor(v, dtype_hint=dtypes.from_torch(use_norm.dtype))
        clipped.append(_like(t, math_ops.multiply(v, scale.to(v.device))))
    return clipped, use_norm
