"""Counting ops: `tf.math.bincount`, `tf.math.confusion_matrix`, `tf.math.in_top_k`, and
`tf.math.invert_permutation` (positions counted back into place).

`bincount` and `confusion_matrix` have outputs whose size depends on the
data (the largest value), so they read it to the host, as TF does; the
data checks TF makes (`Input arr must be non-negative!`, the confusion
matrix's assertions) are made where TF makes them.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from ._indices import checks_on_host
from ._shape_args import int_values

__all__ = ["bincount", "confusion_matrix", "in_top_k", "invert_permutation"]

_BINCOUNT_WEIGHTS = frozenset({torch.int32, torch.int64, torch.float32, torch.float64})


def _length(value: Any, arr_dtype: torch.dtype) -> int:
    if isinstance(value, torch.Tensor):
        return int(value)
    return int(convert_to_tensor(value, dtype=dtypes.from_torch(arr_dtype)))


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = dtypes.int32, name: Optional[str] = None, axis: Any = None,
             binary_output: bool = False) -> torch.Tensor:
    """`tf.math.bincount`: `out[v]` = number (or summed `weights`) of the entries equal to `v`.

    Length `max(arr) + 1`, at least `minlength`, at most `maxlength` (larger
    values are dropped); non-integer `arr` is cast to int32; negative values
    are `InvalidArgumentError`. `axis=-1` counts each row of a 2-D `arr`
    separately (`[rows, length]`); `binary_output` gives 1 for present
    values. The result has `weights`' dtype, else `dtype` (int32, int64,
    float32 or float64).
    """
    a = convert_to_tensor(arr)
    w = None if weights is None else convert_to_tensor_on(a.device, weights)
    if w is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please "
                         "specify only one.")
    if a.dtype not in D.INTS:
        a = a.to(torch.int32)
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    D.check_dtype("DenseBincount", a.dtype, D.INT32_64, attr="Tidx")
    out_dtype = w.dtype if w is not None else dtypes.to_torch(dtype)
    D.check_dtype("DenseBincount", out_dtype, _BINCOUNT_WEIGHTS)
    # The output's length depends on the values: one host read, as TF's.
    size = int(a.max()) + 1 if a.numel() else 0
    if minlength is not None:
        size = max(_length(minlength, a.dtype), size)
    if maxlength is not None:
        size = min(_length(maxlength, a.dtype), size)
    if axis == 0:
        a = a.reshape(-1)
        w = None if w is None else w.reshape(-1)
    if a.dim() > 2:
        raise invalid(f"Shape must be at most rank 2 but is rank {a.dim()}", "DenseBincount")
    if w is not None and w.shape != a.shape:
        raise invalid("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which "
                      f"case it acts as all weights equal to 1. Received {D.fmt_shape(w.shape)}",
                      "DenseBincount")
    if checks_on_host(a) and a.numel() and bool(a.min() < 0):
        raise invalid("Input arr must be non-negative!", "DenseBincount")
    size = max(size, 0)
    values = torch.ones(a.shape, dtype=out_dtype, device=a.device) if w is None else w
    flat = a.to(torch.int64)
    # Values >= size (cut by maxlength) go to an extra bin per row, cut off after.
    flat = torch.where((flat >= 0) & (flat < size), flat, torch.full_like(flat, size))
    rows = a.shape[0] if a.dim() == 2 else 1
    if a.dim() == 2:
        flat = flat + torch.arange(rows, device=a.device).unsqueeze(1) * (size + 1)
    out = torch.zeros(rows * (size + 1), dtype=out_dtype, device=a.device)
    out = out.index_add(0, flat.reshape(-1), values.reshape(-1)).view(rows, size + 1)[:, :size]
    if binary_output:
        out = (out > 0).to(out_dtype)
    return out if a.dim() == 2 else out[0]


def _squeeze_last(labels: torch.Tensor, predictions: torch.Tensor) -> tuple:
    """TF's `remove_squeezable_dimensions`: drop a size-1 last axis that makes the ranks differ."""
    if labels.dim() == predictions.dim() + 1 and labels.shape[-1] == 1:
        labels = labels.squeeze(-1)
    elif predictions.dim() == labels.dim() + 1 and predictions.shape[-1] == 1:
        predictions = predictions.squeeze(-1)
    return labels, predictions


def _values(t: torch.Tensor) -> str:
    return str([str(v) for v in t.reshape(-1)[:3].tolist()])


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None, weights: Any = None,
                     dtype: Any = dtypes.int32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.confusion_matrix`: `out[label, prediction]` counts (or sums `weights`).

    Labels and predictions are cast to int64 (floats truncate); `num_classes`
    defaults to the largest value + 1; negative or out-of-bound values are
    TF's `InvalidArgumentError` (its assertions). Weights are cast to `dtype`.
    """
    lab = convert_to_tensor(labels)
    pred = convert_to_tensor_on(lab.device, predictions)
    lab, pred = _squeeze_last(lab, pred)
    lab, pred = lab.to(torch.int64), pred.to(torch.int64)
    for t, what in ((lab, "labels"), (pred, "predictions")):
        if t.numel() and bool(t.min() < 0):
            raise invalid(f"`{what}` contains negative values.  Condition x >= 0 did not hold "
                          f"element-wise: x (shape={tuple(t.shape)} dtype=int64) = {_values(t)}")
    if num_classes is None:
        n = max(int(pred.max()) if pred.numel() else -1, int(lab.max()) if lab.numel() else -1) + 1
    else:
        n = int(int_values(num_classes, "confusion_matrix", allowed=D.INTS))
        for t, what in ((lab, "labels"), (pred, "predictions")):
            if t.numel() and bool(t.max() >= n):
                raise invalid(f"`{what}` out of bound Condition x < y did not hold. First 3 "
                              f"elements of x: {t.reshape(-1)[:3].tolist()} First 1 elements of "
                              f"y: [{n}]")
    out_dtype = dtypes.to_torch(dtype)
    if weights is not None:
        w = convert_to_tensor_on(lab.device, weights)
        TensorShape(list(pred.shape)).assert_is_compatible_with(TensorShape(list(w.shape)))
        values = w.to(out_dtype)
    else:
        values = torch.ones(pred.shape, dtype=out_dtype, device=lab.device)
    flat = (lab * n + pred).reshape(-1)
    out = torch.zeros(n * n, dtype=out_dtype, device=lab.device)
    return out.index_add(0, flat, values.reshape(-1).expand(flat.shape)).view(n, n)


def in_top_k(targets: Any, predictions: Any, k: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.in_top_k` (also `tf.nn.in_top_k`): whether each target is among the top `k`.

    `out[i]` is true when fewer than `k` predictions of row `i` are strictly
    greater than the target's (ties straddling the boundary all count as in),
    the target is in range, and every prediction of the row is finite (TF's
    kernel cannot say otherwise). `predictions` must be a float32 matrix.
    """
    p = convert_to_tensor(predictions, dtype=dtypes.float32) \
        if not isinstance(predictions, torch.Tensor) else predictions
    if p.dtype is not torch.float32:
        raise ValueError(f"Tensor conversion requested dtype float32 for Tensor with dtype "
                         f"{dtypes.from_torch(p.dtype).name}")
    t = convert_to_tensor_on(p.device, targets)
    D.check_dtype("InTopKV2", t.dtype, D.INT32_64)
    kk = int_values(k, "InTopKV2", attr="T")
    if p.dim() != 2:
        raise invalid("predictions must be 2-dimensional", "InTopKV2")
    if t.dim() != 1:
        raise invalid("targets must be 1-dimensional", "InTopKV2")
    if p.shape[0] != t.shape[0]:
        raise invalid(f"First dimension of predictions {p.shape[0]} must match length of targets "
                      f"{t.shape[0]}", "InTopKV2")
    classes = p.shape[1]
    t64 = t.to(torch.int64)
    valid = (t64 >= 0) & (t64 < classes)
    picked = p.gather(1, torch.where(valid, t64, torch.zeros_like(t64)).unsqueeze(1))
    greater = (p > picked).sum(1)
    return valid & torch.isfinite(p).all(1) & (greater < kk)


def invert_permutation(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.invert_permutation`: `y` with `y[x[i]] = i` for a permutation `x` of `0..n-1`.

    int32/int64 vectors. On CPU, as TF's kernel, the first value out of
    `[0, n)` or seen twice is an `InvalidArgumentError`; on an accelerator
    nothing is read back (invalid entries are dropped, unfilled places are 0).
    """
    t = convert_to_tensor(x)
    D.check_dtype("InvertPermutation", t.dtype, D.INT32_64)
    if t.dim() != 1:
        raise invalid("invert_permutation expects a 1D vector.", "InvertPermutation")
    n = t.shape[0]
    if checks_on_host(t):
        seen = set()
        for v in t.tolist():
            if not 0 <= v < n:
                raise invalid(f"{v} is not between 0 and {n}", "InvertPermutation")
            if v in seen:
                raise invalid(f"{v} is duplicated in the input.", "InvertPermutation")
            seen.add(v)
    positions = torch.arange(n, dtype=t.dtype, device=t.device)
    target = torch.where((t >= 0) & (t < n), t, torch.full_like(t, n)).to(torch.int64)
    out = torch.zeros(n + 1, dtype=t.dtype, device=t.device)
    return out.index_copy(0, target, positions)[:n]
