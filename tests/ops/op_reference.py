"""Numpy transcriptions of TF's op semantics, the references of the op property tests.

Each function says in numpy what the TF op computes, following TF's
kernels where they differ from numpy's defaults (integer means truncate,
argmax ignores NaN, gather with batch_dims, first-occurrence `unique`).
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np


def axes_tuple(axis, ndim: int) -> Optional[tuple]:
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)
    return tuple(sorted(a % ndim for a in axes))


def reduce(kind: str, x: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
    """TF's `reduce_<kind>`: results keep x's dtype; integer means truncate toward zero."""
    axes = axes_tuple(axis, x.ndim)
    if axes == ():
        return x
    if kind == "mean" and x.dtype.kind in "iu":
        total = np.sum(x.astype(np.int64), axis=axes, keepdims=keepdims)
        count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        return np.asarray(np.trunc(total / max(count, 1))).astype(x.dtype)
    fn = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
          "any": np.any, "all": np.all}[kind]
    with np.errstate(all="ignore"):
        out = fn(x, axis=axes, keepdims=keepdims)
    return np.asarray(out).astype(x.dtype)


def argmax(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """TF's CPU ArgMax: the first maximum, NaN never selected."""
    if x.dtype.kind == "f":
        x = np.where(np.isnan(x), -np.inf, x)
    return np.argmax(x, axis=axis).astype(np.int64)


def cumsum(x: np.ndarray, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return out


def gather(params: np.ndarray, indices: np.ndarray, axis: int = 0, batch_dims: int = 0) -> np.ndarray:
    """TF's gather: per batch element, `np.take` along `axis`."""
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([gather(p, i, axis - 1, batch_dims - 1) for p, i in zip(params, indices)])


def gather_nd(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    out_shape = indices.shape[:-1] + params.shape[indices.shape[-1]:]
    rows = indices.reshape(int(np.prod(indices.shape[:-1])), indices.shape[-1])
    out = [params[tuple(r)] for r in rows]
    return np.array(out, dtype=params.dtype).reshape(out_shape)


def scatter_nd(indices: np.ndarray, updates: np.ndarray, shape: Sequence[int],
               base: Optional[np.ndarray] = None, add: bool = True) -> np.ndarray:
    out = np.zeros(shape, dtype=updates.dtype) if base is None else base.copy()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    upd = updates.reshape((rows.shape[0],) + tuple(shape[k:]))
    for r, u in zip(rows, upd):
        if add:
            out[tuple(r)] += u
        else:
            out[tuple(r)] = u
    return out


def unsorted_segment_sum(data: np.ndarray, ids: np.ndarray, num: int) -> np.ndarray:
    tail = data.shape[ids.ndim:]
    out = np.zeros((num,) + tail, dtype=data.dtype)
    flat = data.reshape((-1,) + tail)
    for i, s in enumerate(ids.reshape(-1)):
        if 0 <= s < num:
            out[s] += flat[i]
    return out


def unique(x: np.ndarray) -> tuple:
    """TF's unique: values by first occurrence; each NaN distinct."""
    y: list = []
    idx = []
    for v in x.tolist():
        if v in y and not (isinstance(v, float) and np.isnan(v)):
            idx.append(y.index(v))
        else:
            y.append(v)
            idx.append(len(y) - 1)
    return np.array(y, dtype=x.dtype), np.array(idx, dtype=np.int32)


def one_hot(indices: np.ndarray, depth: int, on=1.0, off=0.0, axis: int = -1,
            dtype=np.float32) -> np.ndarray:
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


def tf_range(start, limit, delta, dtype) -> np.ndarray:
    """TF's Range kernel: the size in the output dtype, elements `start + i * delta`."""
    if np.dtype(dtype).kind in "iu":
        n = (abs(limit - start) + abs(delta) - 1) // abs(delta)
        return (start + np.arange(n) * delta).astype(dtype)
    s, l, d = (np.asarray(v, dtype=dtype) for v in (start, limit, delta))
    n = int(np.ceil(np.abs((l - s) / d)))
    return (np.arange(n).astype(dtype) * d + s).astype(dtype)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    z = x - m
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def softmax_xent(labels: np.ndarray, logits: np.ndarray, axis: int = -1) -> np.ndarray:
    return -np.sum(labels * log_softmax(logits, axis), axis=axis)


def sparse_softmax_xent(labels: np.ndarray, logits: np.ndarray) -> np.ndarray:
    ls = log_softmax(logits)
    return -np.take_along_axis(ls, labels[..., None], axis=-1)[..., 0]


def sigmoid_xent(labels: np.ndarray, logits: np.ndarray) -> np.ndarray:
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def clip_by_norm(t: np.ndarray, clip_norm: float, axes=None) -> np.ndarray:
    ax = axes_tuple(axes, t.ndim)
    l2 = np.sqrt(np.sum(t * t, axis=ax, keepdims=True))
    return t * clip_norm / np.maximum(l2, clip_norm)


def global_norm(ts: Sequence[np.ndarray]) -> float:
    return float(np.sqrt(sum(np.sum(t.astype(np.float64) ** 2) for t in ts)))
