"""Issue 9's `tf.math` ops (engineer D): laws as properties, gradients against finite
differences, and the host-sync promises. TF's own values, errors and gradients are the
golden tables `tests/ops/golden/cases_math_*.py`."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat.framework import errors
from tfcompat.testing import accelerator_policy, host_syncs

FLOATS = st.floats(-6, 6, width=32, allow_nan=False)


def arrays(dtype=np.float32, shape=None, elements=FLOATS):
    shape = shape if shape is not None else hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)
    return hnp.arrays(dtype, shape, elements=elements)


# -- broadcasting of the binary ops ---------------------------------------------------------

BINARY = {
    "atan2": tfm.atan2, "squared_difference": tfm.squared_difference, "xlogy": tfm.xlogy,
    "xdivy": tfm.xdivy, "divide_no_nan": tfm.divide_no_nan,
    "multiply_no_nan": tfm.multiply_no_nan, "truncatemod": tf.truncatemod,
}
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


@pytest.mark.parametrize("name", list(BINARY))
@given(a=SHAPES, b=SHAPES)
def test_binary_ops_broadcast_as_numpy(name, a, b):
    x, y = torch.ones(a) * 2, torch.ones(b) * 3
    try:
        want = np.broadcast_shapes(a, b)
    except ValueError:
        with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
            BINARY[name](x, y)
        return
    assert tuple(BINARY[name](x, y).shape) == want


@given(x=arrays(), y=arrays(elements=st.floats(0.25, 6, width=32)))
def test_xlogy_and_xdivy_are_products_where_x_is_nonzero(x, y):
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    got = tfm.xlogy(xt, yt).numpy()
    want = np.where(x == 0, 0, x * np.log(y))  # numpy's and torch's log differ by an ulp
    np.testing.assert_allclose(got, want, rtol=3e-7, atol=0)
    assert np.all(got[np.broadcast_to(x, got.shape) == 0] == 0)
    np.testing.assert_array_equal(tfm.xdivy(xt, yt).numpy(), np.where(x == 0, 0, x / y))


def test_no_nan_ops_pin_their_zeros():
    inf, nan = float("inf"), float("nan")
    assert tfm.xlogy(0.0, nan).item() == 0 and tfm.xlogy(0.0, 0.0).item() == 0
    assert tfm.divide_no_nan(inf, 0.0).item() == 0 and tfm.multiply_no_nan(nan, 0.0).item() == 0
    assert np.isnan(tfm.multiply_no_nan(1.0, nan).item())


def test_truncated_integer_division_wraps_instead_of_crashing():
    lo = torch.tensor([-2 ** 31, 7, -7], dtype=torch.int32)
    assert tf.truncatediv(lo, torch.tensor([-1, -2, 2], dtype=torch.int32)).tolist() == \
        [-2 ** 31, -3, -3]
    assert tf.truncatemod(lo, torch.tensor([-1, -2, 2], dtype=torch.int32)).tolist() == [0, 1, -1]
    with pytest.raises(errors.InternalError):
        tf.truncatediv(lo, torch.tensor([1, 0, 1], dtype=torch.int32))
    with accelerator_policy():  # TF's GPU kernels do not check: no error, no crash
        tf.truncatediv(lo, torch.tensor([1, 0, -1], dtype=torch.int32))


# -- rounding -------------------------------------------------------------------------------

HALVES = st.integers(-2000, 2000).map(lambda k: k / 4)


@given(x=arrays(elements=st.one_of(HALVES, st.floats(-1e6, 1e6, width=32))))
def test_round_and_rint_are_half_to_even_as_numpy(x):
    xt = torch.from_numpy(x)
    np.testing.assert_array_equal(tf.round(xt).numpy(), np.round(x))
    np.testing.assert_array_equal(tfm.rint(xt).numpy(), np.rint(x))


def test_round_returns_integers_unchanged_and_has_no_gradient():
    ints = torch.tensor([3, -4])
    assert tf.round(ints) is ints
    v = tf.Variable([0.5, 1.5])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.round(v) + tfm.floor(v) + tfm.ceil(v))
    assert tape.gradient(y, v) is None


# -- reductions vs numpy ----------------------------------------------------------------------

MATRICES = arrays(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))


@given(x=MATRICES, data=st.data())
def test_reductions_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    keep = data.draw(st.booleans())
    xt = torch.from_numpy(x)
    x64 = x.astype(np.float64)
    m = x64.max(axis=axis, keepdims=True)
    lse = (np.log(np.exp(x64 - m).sum(axis=axis, keepdims=True)) + m)
    lse = lse if keep else lse.squeeze(axis)
    np.testing.assert_allclose(tfm.reduce_logsumexp(xt, axis, keep).numpy(), lse, rtol=2e-6,
                               atol=2e-6)
    np.testing.assert_allclose(tfm.reduce_variance(xt, axis, keep).numpy(),
                               np.var(x64, axis=axis, keepdims=keep), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tfm.reduce_std(xt, axis, keep).numpy(),
                               np.std(x64, axis=axis, keepdims=keep), rtol=1e-5, atol=1e-5)
    squares = (x * x).astype(np.float64)  # TF's sqrt(sum(x * x)): the squares may underflow
    np.testing.assert_allclose(tfm.reduce_euclidean_norm(xt, axis, keep).numpy(),
                               np.sqrt(squares.sum(axis=axis, keepdims=keep)), rtol=2e-6)
    assert tfm.count_nonzero(xt, axis, keep).numpy().tolist() == \
        np.count_nonzero(x, axis=axis, keepdims=keep).tolist()
    assert tfm.argmin(xt, axis).numpy().tolist() == np.argmin(x, axis=axis).tolist()


@given(x=MATRICES, data=st.data())
def test_cumprod_matches_numpy_with_exclusive_and_reverse(x, data):
    axis = data.draw(st.integers(0, x.ndim - 1))
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    ref = np.flip(x, axis) if reverse else x
    ref = np.cumprod(ref.astype(np.float64), axis=axis)
    if exclusive:
        ref = np.concatenate([np.ones_like(np.take(ref, [0], axis)),
                              np.delete(ref, -1, axis)], axis)
    ref = np.flip(ref, axis) if reverse else ref
    got = tfm.cumprod(torch.from_numpy(x), axis, exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(got.numpy(), ref, rtol=2e-5, atol=1e-30)


# -- segment ops vs a numpy reference -------------------------------------------------------

_NP_REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}
_EMPTY_SORTED = {"sum": 0, "mean": 0, "max": 0, "min": 0, "prod": 1}
_EMPTY_UNSORTED = {"max": np.finfo(np.float32).min, "min": np.finfo(np.float32).max, "prod": 1,
                   "mean": 0}


def _segment_reference(data, ids, num, reduce, empty):
    out = np.full((num,) + data.shape[ids.ndim:], empty, np.float64)
    flat_ids = ids.reshape(-1)
    rows = data.reshape((flat_ids.size,) + data.shape[ids.ndim:]).astype(np.float64)
    for s in range(num):
        members = rows[flat_ids == s]
        if len(members):
            out[s] = _NP_REDUCE[reduce](members, axis=0)
    return out


@pytest.mark.parametrize("reduce", list(_NP_REDUCE))
@given(data=st.data())
def test_sorted_segments_match_numpy(reduce, data):
    n = data.draw(st.integers(1, 6))
    ids = np.sort(np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))))
    x = data.draw(arrays(shape=(n, 2), elements=st.floats(-3, 3, width=32)))
    got = getattr(tfm, f"segment_{reduce}")(torch.from_numpy(x), ids.astype(np.int32))
    want = _segment_reference(x, ids, int(ids[-1]) + 1, reduce, _EMPTY_SORTED[reduce])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduce", list(_EMPTY_UNSORTED))
@given(data=st.data())
def test_unsorted_segments_match_numpy(reduce, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=3))
    ids = data.draw(hnp.arrays(np.int32, shape, elements=st.integers(-1, 4)))
    x = data.draw(arrays(shape=shape + (2,), elements=st.floats(-3, 3, width=32)))
    got = getattr(tfm, f"unsorted_segment_{reduce}")(torch.from_numpy(x), ids, 5)
    want = _segment_reference(x, ids, 5, reduce, _EMPTY_UNSORTED[reduce])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_sorted_segment_ids_are_validated_on_cpu_only():
    d = torch.ones(3, 2)
    with pytest.raises(errors.InvalidArgumentError, match="not increasing"):
        tfm.segment_sum(d, [0, 2, 1])
    with accelerator_policy():  # TF's GPU kernels do not validate: neither does tfcompat there
        assert tfm.segment_sum(d, [0, 2, 1]).shape == (2, 2)


@given(x=arrays(np.int32, shape=hnp.array_shapes(max_dims=1, max_side=8),
                elements=st.integers(0, 6)), minlength=st.integers(0, 9))
def test_bincount_matches_numpy(x, minlength):
    got = tfm.bincount(torch.from_numpy(x), minlength=minlength)
    assert got.tolist() == np.bincount(x.reshape(-1), minlength=minlength).tolist()


# -- gradients against finite differences (float64) ----------------------------------------

def _x(*shape, lo=-2.0, hi=2.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).requires_grad_()


GRADCHECK = {
    "softplus": (lambda x: tfm.softplus(x), [_x(5, lo=-20, hi=20)]),
    "softsign": (lambda x: nn.softsign(x), [_x(5)]),
    "log_sigmoid": (lambda x: tfm.log_sigmoid(x), [_x(5, lo=-8, hi=8)]),
    "expm1": (lambda x: tfm.expm1(x), [_x(5)]),
    "xlogy": (lambda x, y: tfm.xlogy(x, y), [_x(3, 1), _x(4, lo=0.5, hi=3)]),
    "xdivy": (lambda x, y: tfm.xdivy(x, y), [_x(3, 1), _x(4, lo=0.5, hi=3)]),
    "divide_no_nan": (lambda x, y: tfm.divide_no_nan(x, y), [_x(3, 4), _x(4, lo=0.5, hi=3)]),
    "multiply_no_nan": (lambda x, y: tfm.multiply_no_nan(x, y), [_x(2, 3), _x(3, lo=0.5)]),
    "cumprod": (lambda x: tfm.cumprod(x, 1, exclusive=True, reverse=True), [_x(2, 4, lo=0.5)]),
    "euclidean_norm": (lambda x: tfm.reduce_euclidean_norm(x, 1), [_x(3, 4)]),
    "logsumexp": (lambda x: tfm.reduce_logsumexp(x, 0), [_x(3, 4)]),
    "std": (lambda x: tfm.reduce_std(x, [0, 1]), [_x(3, 4, 2)]),
    "atan2": (lambda y, x: tfm.atan2(y, x), [_x(3), _x(3, lo=0.5)]),
    "unsorted_segment_prod": (lambda x: tfm.unsorted_segment_prod(x, [0, 1, 0, 2], 4),
                              [_x(4, 2, lo=0.5)]),
    "segment_mean": (lambda x: tfm.segment_mean(x, [0, 0, 2]), [_x(3, 2)]),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradients_match_finite_differences(name):
    fn, inputs = GRADCHECK[name]
    assert torch.autograd.gradcheck(fn, inputs)


def test_cumprod_gradient_is_tfs_at_zeros():
    """TF divides by x with div_no_nan: 0 at a zero input (the exact derivative is 2 + 6)."""
    v = tf.Variable([2.0, 0.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tfm.cumprod(v))
    assert tape.gradient(y, v).tolist() == [1.0, 0.0, 0.0]


# -- host syncs -----------------------------------------------------------------------------

X = torch.linspace(-1, 1, 12).reshape(3, 4)
I = torch.tensor([7, 8, 9])
IDS = torch.tensor([0, 2, -1])
TARGETS = torch.tensor([0, 3, 1])
SORTED_IDS = torch.tensor([0, 0, 1])

SYNC_FREE = {
    "sin": lambda: tfm.sin(X), "softplus": lambda: tfm.softplus(X),
    "log_sigmoid": lambda: tfm.log_sigmoid(X), "round": lambda: tf.round(X),
    "lgamma": lambda: tfm.lgamma(X), "is_finite": lambda: tfm.is_finite(X),
    "atan2": lambda: tfm.atan2(X, 2.0), "xlogy": lambda: tfm.xlogy(X, X),
    "divide_no_nan": lambda: tfm.divide_no_nan(X, X), "multiply_no_nan": lambda: tfm.multiply_no_nan(X, 0.0),
    "squared_difference": lambda: tfm.squared_difference(X, 1.0),
    "truncatediv_int_tensor": lambda: tf.truncatediv(I, I),
    "truncatemod_int_tensor": lambda: tf.truncatemod(I, I),
    "polyval": lambda: tfm.polyval([1.0, 2.0, 3.0], X),
    "reduce_logsumexp": lambda: tf.reduce_logsumexp(X, 1),
    "reduce_std": lambda: tfm.reduce_std(X), "reduce_euclidean_norm": lambda: tfm.reduce_euclidean_norm(X),
    "count_nonzero": lambda: tfm.count_nonzero(X), "argmin": lambda: tf.argmin(X, 1),
    "cumprod": lambda: tfm.cumprod(X, 1, exclusive=True),
    "accumulate_n": lambda: tfm.accumulate_n([X, X]),
    "unsorted_segment_max": lambda: tfm.unsorted_segment_max(X, IDS, 3),
    "unsorted_segment_mean": lambda: tfm.unsorted_segment_mean(X, IDS, 3),
    "unsorted_segment_prod": lambda: tfm.unsorted_segment_prod(X, IDS, 3),
    "in_top_k": lambda: tfm.in_top_k(TARGETS, X, 2),
    "complex": lambda: tf.complex(X, X), "angle": lambda: tfm.angle(X),
    "invert_permutation": lambda: tfm.invert_permutation(PERMUTATION),
}


@pytest.mark.parametrize("name", list(SYNC_FREE))
def test_math_ops_never_sync_with_the_host(name):
    with accelerator_policy():
        with host_syncs(new_host_tensors=True) as log:
            SYNC_FREE[name]()
    assert not log, log.report()


def test_gradients_of_the_math_ops_never_sync():
    with accelerator_policy():
        v = tf.Variable(X)
        with host_syncs(new_host_tensors=True) as log:
            with tf.GradientTape() as tape:
                y = (tf.reduce_sum(tfm.softplus(v)) + tf.reduce_sum(tfm.xlogy(v, 2.0))
                     + tf.reduce_sum(tfm.cumprod(v, 1)) + tf.reduce_sum(tfm.divide_no_nan(1.0, v))
                     + tf.reduce_sum(tfm.unsorted_segment_max(v, IDS, 3))
                     + tf.reduce_logsumexp(v) + tfm.reduce_euclidean_norm(v))
            tape.gradient(y, v)
    assert not log, log.report()


DATA_DEPENDENT = {  # the output's shape depends on the values: one read, as TF's
    "segment_sum": lambda: tfm.segment_sum(X, SORTED_IDS),
    "bincount": lambda: tfm.bincount(I),
    "confusion_matrix": lambda: tfm.confusion_matrix(TARGETS, TARGETS),
}


@pytest.mark.parametrize("name", list(DATA_DEPENDENT))
def test_data_dependent_shapes_read_the_data(name):
    with accelerator_policy():
        with host_syncs() as log:
            DATA_DEPENDENT[name]()
    assert "aten::_local_scalar_dense" in log.ops, log.report()


@pytest.mark.parametrize("fn", [lambda: tf.truncatediv(I, I),
                                lambda: tfm.invert_permutation(PERMUTATION)])
def test_cpu_data_checks_read_on_the_host(fn):
    with host_syncs() as log:
        fn()
    assert log.ops, "TF's CPU kernel validates this data: tfcompat too"


PERMUTATION = torch.tensor([2, 0, 1])


def test_invert_permutation_inverts():
    p = torch.randperm(7)
    assert torch.equal(p[tfm.invert_permutation(p)], torch.arange(7))


@given(x=arrays(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)),
       data=st.data())
def test_approx_top_k_is_the_exact_top_k(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(0, x.shape[axis]))
    xt = torch.from_numpy(x)
    order = np.argsort(-x, axis=axis, kind="stable")
    top = tfm.approx_max_k(xt, k, reduction_dimension=axis)
    assert top.indices.dtype == torch.int32
    np.testing.assert_array_equal(top.indices.numpy(), np.take(order, np.arange(k), axis))
    np.testing.assert_array_equal(top.values.numpy(),
                                  np.take_along_axis(x, np.take(order, np.arange(k), axis), axis))
    bottom = tfm.approx_min_k(xt, k, reduction_dimension=axis)
    order = np.argsort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(bottom.indices.numpy(), np.take(order, np.arange(k), axis))
