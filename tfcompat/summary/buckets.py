"""The bucketing of `tf.summary.histogram` (TensorBoard 2.21's `_buckets`), in float64 NumPy.

For `k` buckets over data with minimum `lo` and maximum `hi` the result is a
`[k, 3]` float64 array of `(left edge, right edge, count)` rows:

* the edges are `lo + (hi - lo) / k * i` for `i = 1 .. k-1`, with `lo` first
  and `hi` exactly last (TF's `tf.linspace`, then the last edge replaced by
  the maximum);
* a value `x` falls in bucket `floor((x - lo) / ((hi - lo) / k))`, the
  maximum clamped into the last bucket;
* no data gives `k` rows of zeros (`k = 0` gives none, and a negative `k`
  counts as 0);
* constant data gives `k` rows with both edges at the value and all the
  count in the last one.

Non-finite data follows TF's float rules: a NaN makes every edge NaN and
every count 0, and a value whose bucket index is NaN (`inf / inf`) is not
counted (TF's float-to-int32 cast makes it INT_MIN, which `one_hot` drops).
"""

from __future__ import annotations

import numpy as np

__all__ = ["buckets", "DEFAULT_BUCKET_COUNT"]

DEFAULT_BUCKET_COUNT = 30

_INT32_MIN = np.iinfo(np.int32).min


def _to_int32(q: np.ndarray) -> np.ndarray:
    # x86's truncating conversion (what TF's CPU Cast compiles to): NaN and out-of-range
    # values all become INT_MIN.
    ok = np.isfinite(q) & (q >= _INT32_MIN) & (q <= np.iinfo(np.int32).max)
    out = np.full(q.shape, _INT32_MIN, dtype=np.int64)
    out[ok] = q[ok].astype(np.int64)
    return out


def buckets(data: np.ndarray, bucket_count: int = DEFAULT_BUCKET_COUNT) -> np.ndarray:
    """The `[k, 3]` float64 histogram of `data` (any shape, read as float64)."""
    bucket_count = max(0, int(bucket_count))
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        lo = np.min(data)
        hi = np.max(data)
        span = hi - lo
        if span == 0:
            edges = np.full(bucket_count, hi)
            counts = np.zeros(bucket_count)
            counts[-1] = data.size
            return np.stack([edges, edges, counts], axis=1)
        width = span / np.float64(bucket_count)
        index = _to_int32(np.floor((data - lo) / width))
        index = np.minimum(index, bucket_count - 1)
        counts = np.bincount(index[index >= 0], minlength=bucket_count).astype(np.float64)
        inner = lo + width * np.arange(1, bucket_count, dtype=np.float64)
        edges = np.concatenate([[lo], inner, [hi]])
    return np.stack([edges[:-1], edges[1:], counts], axis=1)
