"""The error model of the golden harness (`harness.py`'s docstring): sound, and not loose.

* sound: sums and dot products of random terms, added in random orders with the dtype's
  rounding after every addition (the worst any kernel does), always pass `compare` under the
  model's reduction bound, in every float dtype (float16 and bfloat16 included);
* not loose: a result moved a few ulps beyond the bound fails, for real fixtures of the ops
  harness (a reduction case, a correctly rounded 0-ulp case, a gradient) and for synthetic
  records of every dtype. The programs and distribute harnesses have their own planted-error
  tests next to their replays (`tests/programs/test_programs.py`,
  `tests/distribute/test_distribute_golden.py`).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from tests.ops.golden import harness
from tests.ops.golden import test_ops_golden as replay

DTYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
          "float64": np.float64}


def _rec(dtype_name, arr):
    return harness._array_record(dtype_name, np.asarray(arr, dtype=DTYPES[dtype_name]))


def _ordered_sum(terms, order, dtype):
    acc = dtype(0)
    for i in order:
        acc = dtype(acc + terms[i])  # rounded to the dtype after every addition
    return acc


@settings(max_examples=60, deadline=None)
@given(dtype_name=st.sampled_from(sorted(DTYPES)), n=st.integers(3, 80),
       seed=st.integers(0, 2 ** 32 - 1), mixed=st.booleans())
def test_any_summation_order_is_within_the_bound(dtype_name, n, seed, mixed):
    dtype = DTYPES[dtype_name]
    rng = np.random.default_rng(seed)
    scale = rng.uniform(-3, 3)
    terms = (rng.uniform(-1 if mixed else 0, 1, n) * 10.0 ** scale).astype(dtype)
    a = _ordered_sum(terms, rng.permutation(n), dtype)
    b = _ordered_sum(terms, rng.permutation(n), dtype)
    s = float(np.abs(terms.astype(np.float64)).sum())
    case = harness.Case(None, ulps=0, n=n - 1, terms=lambda tf: None)
    harness.compare(_rec(dtype_name, a), _rec(dtype_name, b), case, "sum",
                    mag=_rec("float64", s))
    # and against the exact sum (each side alone is within half the bound)
    exact = math.fsum(terms.astype(np.float64))
    assert abs(float(a) - exact) <= harness.gamma(n - 1, dtype_name) * s + \
        float(harness._ulp(np.array([exact]), dtype_name)[0])  # (+ the last rounding of exact)


@settings(max_examples=40, deadline=None)
@given(dtype_name=st.sampled_from(sorted(DTYPES)), n=st.integers(3, 60),
       seed=st.integers(0, 2 ** 32 - 1))
def test_any_dot_product_order_is_within_the_bound(dtype_name, n, seed):
    dtype = DTYPES[dtype_name]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    products = np.array([dtype(x[i] * y[i]) for i in range(n)], dtype)  # each rounded
    a = _ordered_sum(products, rng.permutation(n), dtype)
    b = _ordered_sum(products, rng.permutation(n), dtype)
    s = float(np.abs(x.astype(np.float64) * y.astype(np.float64)).sum())
    case = harness.Case(None, ulps=0, n=n, terms=lambda tf: None)
    harness.compare(_rec(dtype_name, a), _rec(dtype_name, b), case, "dot", mag=_rec("float64", s))


@pytest.mark.parametrize("dtype_name", sorted(DTYPES))
@pytest.mark.parametrize("spec", [dict(ulps=0), dict(ulps=4), dict(ulps=0, n=20),
                                  dict(ulps=1, n=1000, accumulate="float32"),
                                  dict(ulps=4, n=16, steps=10, terms="normwise"),
                                  dict(ulps=2, atol=1e-3)])
def test_a_value_beyond_the_bound_fails(dtype_name, spec):
    case = harness.Case(None, **spec)
    want = np.array([1.5, -0.3125, 7.0, 1e-3], DTYPES[dtype_name])
    limit = harness.bound(want, dtype_name, case)
    for i in range(want.size):
        for sign in (1, -1):
            got = want.copy()
            got[i] = harness.beyond(float(want[i]), float(limit[i]) * 1.0, dtype_name, 3) \
                if sign > 0 else -harness.beyond(-float(want[i]), float(limit[i]), dtype_name, 3)
            with pytest.raises(AssertionError, match="beyond"):
                harness.compare(_rec(dtype_name, got), _rec(dtype_name, want), case, "planted")
    # and the same record, at the bound's half, passes
    inside = (want.astype(np.float64) + 0.5 * limit).astype(DTYPES[dtype_name])
    if np.all(np.abs(inside.astype(np.float64) - want.astype(np.float64)) <= limit):
        harness.compare(_rec(dtype_name, inside), _rec(dtype_name, want), case, "inside")


def test_zero_ulps_is_bit_exact():
    case = harness.Case(None, ulps=0)
    want = np.array([1.0, 3.0], np.float32)
    got = np.nextafter(want, np.float32(np.inf))
    with pytest.raises(AssertionError, match="beyond 0 ulp"):
        harness.compare(_rec("float32", got), _rec("float32", want), case, "exact")


def test_gamma():
    assert harness.gamma(1, "float64") == pytest.approx(2.0 ** -53)
    assert harness.gamma(10, "float32") == pytest.approx(10 * 2.0 ** -24 / (1 - 10 * 2.0 ** -24))
    assert harness.unit_roundoff("bfloat16") == 2.0 ** -8
    assert harness.unit_roundoff("float16") == 2.0 ** -11
    assert harness.gamma(2 ** 11, "float16") == math.inf  # n*u >= 1: no bound at all


def _replayed(area, name):
    case = harness.as_case(replay._table(area).CASES[name])
    return harness.encode_tfcompat(case.fn(tfcompat)), replay.fixture(area)["cases"][name], case


@pytest.mark.parametrize("area,name", [
    ("math_reduce", "unsorted_segment_sqrt_n_f64_2d"),  # a reduction, S from |data|
    ("math_reduce", "unsorted_segment_sum_f64_2d"),
    ("array", "einsum_batch_ellipsis"),                  # a contraction, S from |A| @ |B|
    ("linalg", "einsum_f16_long"),                       # float16, accumulated in float32
    ("math_reduce", "var_axes_keepdims"),
    ("math_reduce", "segment_sum_gap"),                  # 0 ulps: sums of two terms
    ("math_reduce", "cumprod"),
])
def test_planted_error_fails_a_real_fixture(area, name):
    got, want, case = _replayed(area, name)
    harness.compare(got, want, case, name)  # as recorded: passes
    planted = harness.plant(got, want, case, ulps=3)
    assert planted is not None
    with pytest.raises(AssertionError, match="beyond"):
        harness.compare(planted, want, case, name)


def test_planted_error_fails_a_real_gradient():
    grad = replay._table("nn").GRADIENTS["log_softmax_axis0"]
    variables = [tfcompat.Variable(np.array(a)) for a in grad.inputs]
    with tfcompat.GradientTape() as tape:
        y = grad.fn(tfcompat, *variables)
    got = harness.encode_tfcompat(list(tape.gradient(y, variables)))
    want = replay.fixture("nn")["gradients"]["log_softmax_axis0"]
    case = grad.as_case()
    harness.compare(got, want, case, "grad")
    with pytest.raises(AssertionError, match="beyond"):
        harness.compare(harness.plant(got, want, case), want, case, "grad")


def test_a_nan_bound_is_an_error_not_a_pass():
    case = harness.Case(None, ulps=0, n=3, terms=lambda tf: None)
    want = _rec("float32", [1.0])
    with pytest.raises(AssertionError, match="NaN"):
        harness.compare(_rec("float32", [2.0]), want, case, "nan", mag=_rec("float32", [np.nan]))


@pytest.mark.parametrize("area,name,cap_ulps,cap_us", [
    # the model's bound stays near what the reduction needs: a loosened model (a larger
    # factor, n or steps) fails here, although the planted-error tests (which move a value
    # beyond whatever the bound is) would still pass. cap_ulps: in ulps of TF's value (one-
    # signed terms); cap_us: the reduction part in units of u * S (S from the case's terms)
    ("math_reduce", "unsorted_segment_sqrt_n_f64_2d", None, 2 * 5 + 0.01),
    ("array", "einsum_batch_ellipsis", None, 2 * 4 + 0.01),
    ("math_reduce", "var_axes_keepdims", 4 + 2 * 2 * 33, None),
    ("nn", "softmax_axis0", 4 + 2 * 2 * 5, None),
    ("linalg", "einsum_f16_long", 2, None),
])
def test_bounds_stay_tight(area, name, cap_ulps, cap_us):
    _, want, case = _replayed(area, name)
    recs = want if isinstance(want, list) else [want]
    mag = harness.magnitudes(case)
    mags = mag if isinstance(mag, list) else [mag]
    for rec, m in zip(recs, mags):
        w = harness.decode_array(rec)
        limit = harness.bound(w, rec["dtype"], case, harness._mag_array(m))
        ulp = harness._ulp(w.astype(np.float64), rec["dtype"])
        if cap_ulps is not None:
            assert float(np.max(limit / ulp)) <= cap_ulps
        if cap_us is not None:
            s = np.abs(harness._mag_array(m).astype(np.float64))
            part = (limit - (case.ulps or 0) * ulp - case.atol)[s > 0]  # (empty segments: 0)
            assert float(np.max(part / (harness.unit_roundoff(rec["dtype"]) * s[s > 0]))) <= cap_us
