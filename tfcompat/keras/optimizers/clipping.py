"""Keras' gradient clipping (`clipvalue`, `clipnorm`, `global_clipnorm`) over a whole step.

tf_keras applies `tf.clip_by_value(g, -clipvalue, clipvalue)` and
`tf.clip_by_norm(g, clipnorm)` to each gradient and
`tf.clip_by_global_norm(grads, global_clipnorm)` to all of them
(`optimizers/utils.py`). Done one tensor at a time, that is a dozen ops per
variable; here each transformation is a few multi-tensor kernels over all
gradients of one (device, dtype), with TF's formulas, operation for
operation (`ops/clip_ops.py` has the per-tensor transcriptions):

* clip_by_value: `maximum(minimum(g, c), -c)` (NaN propagates);
* clip_by_norm: `g * c / maximum(sqrt(sum(g * g)), c)`, the product
  `g * g` in the gradient's dtype (so an overflow to inf clips to 0, as in
  TF), one norm per tensor (`torch._foreach_norm` of the squares);
* clip_by_global_norm: `norm = sqrt(2 * sum(l2_loss(g)))`, scale
  `c * minimum(1 / norm, 1 / c)` plus `norm - norm` (NaN for an infinite or
  NaN norm, as in TF), one multi-tensor multiply.

`IndexedSlices` are clipped through their values and stay `IndexedSlices`;
for the global norm `None` entries stay `None`. Gradients that need autograd
(under an outer tape), are not tensors, or mix devices (or dtypes, for the
global norm: TF raises) take the per-tensor `clip_ops` functions, which keep
TF's gradients and errors.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from ...ops import clip_ops
from .multi_tensor import scalar
from ...ops import exact_math

__all__ = ["clip_by_value_each", "clip_by_norm_each", "clip_by_global_norm_all"]


def _values_of(grads: list, allow_none: bool) -> Optional[list]:
    """The gradients' value tensors (None entries skipped), or None if the fast path can't take them."""
    values = []
    for g in grads:
        if g is None:
            if not allow_none:
                return None
            continue
        v = g.values if isinstance(g, IndexedSlices) else g
        if type(v) is not torch.Tensor or v.requires_grad or not v.is_floating_point():
            return None
        values.append(v)
    return values


def _rewrap(grads: list, new_values: list) -> list:
    """`grads` with their value tensors replaced by `new_values` (in order; None entries kept)."""
    it = iter(new_values)
    out = []
    for g in grads:
        if g is None:
            out.append(None)
        elif isinstance(g, IndexedSlices):
            out.append(IndexedSlices(next(it), g.indices, g.dense_shape))
        else:
            out.append(next(it))
    return out


def _groups(values: list) -> dict:
    """Positions of `values` by (device, dtype)."""
    groups: dict = {}
    for i, v in enumerate(values):
        groups.setdefault((v.device, v.dtype), []).append(i)
    return groups


def _squared_norms(values: list) -> torch.Tensor:
    """`[sum(v * v) for v in values]` stacked: the squares in the values' dtype, as TF."""
    squares = torch._foreach_mul(values, values)
    return torch.stack(torch._foreach_norm(squares, 1))  # (the squares are >= 0: ord 1 is their sum)


def clip_by_value_each(grads: list, clip_value: Any) -> list:
    """`[tf.clip_by_value(g, -clip_value, clip_value) for g in grads]`."""
    values = _values_of(grads, allow_none=False)
    if values is None or not isinstance(clip_value, (int, float)) or not values:
        return [clip_ops.clip_by_value(g, -clip_value, clip_value) for g in grads]
    with torch.no_grad():
        clipped = torch._foreach_clamp_max(values, clip_value)
        torch._foreach_clamp_min_(clipped, -clip_value)
    return _rewrap(grads, clipped)


def clip_by_norm_each(grads: list, clip_norm: Any) -> list:
    """`[tf.clip_by_norm(g, clip_norm) for g in grads]`."""
    values = _values_of(grads, allow_none=False)
    if values is None or not isinstance(clip_norm, (int, float)) or not values:
        return [clip_ops.clip_by_norm(g, clip_norm) for g in grads]
    clip_norm = max(clip_norm, 0)  # TF: a negative clip norm counts as 0
    clipped: list = [None] * len(values)
    with torch.no_grad():
        for (device, dtype), idx in _groups(values).items():
            members = [values[i] for i in idx]
            clip = scalar(clip_norm, dtype, device)  # TF converts it to the values' dtype
            # (a NaN l2sum has sqrt NaN, as TF's `where(l2sum > 0, sqrt(l2sum), l2sum)`)
            norms = exact_math.sqrt(_squared_norms(members))
            denominators = torch.maximum(norms, clip)  # NaN propagates, as TF's Maximum
            out = torch._foreach_mul(members, clip)
            torch._foreach_div_(out, list(denominators.unbind()))
            for i, t in zip(idx, out):
                clipped[i] = t
    return _rewrap(grads, clipped)


def clip_by_global_norm_all(grads: list, clip_norm: Any) -> list:
    """`tf.clip_by_global_norm(grads, clip_norm)[0]`."""
    values = _values_of(grads, allow_none=True)
    if (values is None or not values or not isinstance(clip_norm, (int, float))
            or len(_groups(values)) != 1):
        return clip_ops.clip_by_global_norm(list(grads), clip_norm)[0]
    first = values[0]
    with torch.no_grad():
        half_squared = _squared_norms(values) / 2  # l2_loss of each
        norm = exact_math.sqrt(half_squared.sum() * 2)
        one = scalar(1.0, first.dtype, first.device)
        clip = scalar(clip_norm, first.dtype, first.device)
        scale = clip * torch.minimum(one / norm, one / clip) + (norm - norm)
        clipped = torch._foreach_mul(values, scale)
    return _rewrap(grads, clipped)
