"""Laws of tf.summary.histogram's bucketing and of the PNG encoders (TF's goldens are in
test_summary_ops.py; these explore many more inputs)."""

import math

import numpy as np
from hypothesis import given, strategies as st

from tfcompat.summary import buckets as histogram, png
from tests.summary import event_records as er

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def _reference(values, k):
    """TensorBoard's algorithm one element at a time, in Python floats (IEEE doubles)."""
    k = max(0, k)
    if not values or k == 0:
        return [[0.0, 0.0, 0.0]] * k
    lo, hi = min(values), max(values)
    if hi - lo == 0:
        return [[hi, hi, 0.0]] * (k - 1) + [[hi, hi, float(len(values))]]
    width = (hi - lo) / k
    counts = [0.0] * k
    for x in values:
        counts[min(int(math.floor((x - lo) / width)), k - 1)] += 1
    edges = [lo] + [lo + width * i for i in range(1, k)] + [hi]
    return [[edges[i], edges[i + 1], counts[i]] for i in range(k)]


@given(st.lists(finite, max_size=60), st.integers(-2, 40))
def test_buckets_equal_the_elementwise_algorithm(values, k):
    got = histogram.buckets(np.array(values, np.float64), k)
    assert got.shape == (max(k, 0), 3) and got.dtype == np.float64
    assert got.tolist() == _reference(values, k)


@given(st.lists(finite, min_size=1, max_size=60), st.integers(1, 40))
def test_bucket_laws(values, k):
    got = histogram.buckets(np.array(values), k)
    assert got[:, 2].sum() == len(values)  # every finite value counted once
    assert got[0, 0] == min(values) and got[-1, 1] == max(values)
    assert (got[1:, 0] == got[:-1, 1]).all()  # contiguous
    assert (np.diff(got[:, 0]) >= 0).all()


@given(st.lists(finite, min_size=1, max_size=30), st.integers(1, 10))
def test_any_shape_same_histogram(values, k):
    arr = np.array(values * 2)
    np.testing.assert_array_equal(histogram.buckets(arr.reshape(2, -1), k),
                                  histogram.buckets(arr, k))


def test_non_finite_data_follows_tfs_float_rules():
    nan = histogram.buckets(np.array([1.0, np.nan]), 2)
    assert np.isnan(nan[:, :2]).all() and (nan[:, 2] == 0).all()
    inf = histogram.buckets(np.array([0.0, np.inf]), 2)
    assert inf.tolist() == [[0.0, np.inf, 1.0], [np.inf, np.inf, 0.0]]


@given(st.integers(1, 4), st.integers(1, 9), st.integers(1, 9), st.data())
def test_png_encoders_round_trip(channels, h, w, data):
    pixels = np.array(data.draw(st.lists(st.integers(0, 255), min_size=h * w * channels,
                                         max_size=h * w * channels)), np.uint8).reshape(h, w, channels)
    for use_pillow in (False, None):
        encoded = png.encode_png(pixels, use_pillow=use_pillow)
        np.testing.assert_array_equal(er.decode_png(encoded), pixels)
