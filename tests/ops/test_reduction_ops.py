"""Reductions and scans against numpy transcriptions of TF's kernels."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import op_reference as ref
import tfcompat as tf
from tfcompat import math as tfm
from tfcompat.framework import errors

REDUCERS = {"sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max,
            "min": tf.reduce_min, "prod": tf.reduce_prod}
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.int8]


@st.composite
def reduction_cases(draw, dtypes=DTYPES):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    if np.dtype(dtype).kind == "f":
        elements = st.integers(-16, 16).map(lambda i: i / 4)
    else:
        elements = st.integers(-4, 4)
    x = draw(hnp.arrays(dtype, shape, elements=elements))
    ndim = len(shape)
    axis = draw(st.one_of(
        st.none(),
        st.integers(-ndim, ndim - 1) if ndim else st.none(),
        st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(
            lambda axes: [a - ndim if i % 2 else a for i, a in enumerate(axes)]) if ndim
        else st.just([]),
    ))
    return x, axis, draw(st.booleans())


@pytest.mark.parametrize("kind", sorted(REDUCERS))
@given(case=reduction_cases())
def test_reductions_match_reference(kind, case):
    x, axis, keepdims = case
    out = REDUCERS[kind](torch.from_numpy(x), axis=axis, keepdims=keepdims)
    expected = ref.reduce(kind, x, axis, keepdims)
    assert out.dtype == torch.from_numpy(x).dtype, "reductions keep the input dtype"
    assert tuple(out.shape) == expected.shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("kind", ["any", "all"])
@given(case=reduction_cases(dtypes=[np.int8]))
def test_logical_reductions_match_numpy(kind, case):
    x, axis, keepdims = case
    b = np.asarray(x > 0)
    fn = tf.reduce_any if kind == "any" else tf.reduce_all
    out = fn(torch.from_numpy(b), axis=axis, keepdims=keepdims)
    expected = ref.reduce(kind, b, axis, keepdims)
    assert out.dtype == torch.bool
    np.testing.assert_array_equal(out.numpy(), expected)


def test_integer_mean_truncates_and_accumulates_wide():
    assert tf.reduce_mean(torch.tensor([[1, 2, 3], [4, 5, 7]])).item() == 3
    assert tf.reduce_mean([-1, -2]).item() == -1  # toward zero, as C++ division
    assert tf.reduce_mean(torch.tensor([255, 255], dtype=torch.uint8)).item() == 255
    assert tf.reduce_mean(torch.tensor([100, 100], dtype=torch.int8)).item() == 100
    assert tf.reduce_sum(torch.tensor([100, 100], dtype=torch.int8)).item() == -56  # wraps
    assert tf.reduce_sum([2 ** 31 - 1, 1]).item() == -2 ** 31


def test_empty_reductions_give_identities():
    assert tf.reduce_max(torch.zeros(0)).item() == -np.inf
    assert tf.reduce_min(torch.zeros(0)).item() == np.inf
    assert tf.reduce_max(torch.zeros(0, dtype=torch.int32)).item() == -2 ** 31
    assert tf.reduce_prod(torch.zeros(0)).item() == 1.0
    assert np.isnan(tf.reduce_mean(torch.zeros(0)).item())
    assert tf.reduce_mean(torch.zeros(0, dtype=torch.int32)).item() == 0
    assert tf.reduce_max(torch.zeros(2, 0), axis=1, keepdims=True).shape == (2, 1)


def test_reduction_axis_forms():
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    assert tf.reduce_sum(x, axis=[]).equal(x)  # nothing reduced (torch would reduce all)
    assert tf.reduce_sum(x, axis=torch.tensor(1)).tolist() == [3, 12]
    assert tf.reduce_sum(x, axis=np.array([0, 1])).item() == 15
    assert tf.reduce_sum(x, axis=np.int64(1)).tolist() == [3, 12]
    assert tf.reduce_sum(x, 0, True).shape == (1, 3)
    assert tf.reduce_sum(tf.Variable([[1.0, 2.0]]), axis=1).tolist() == [3.0]
    assert tf.reduce_sum([1.0, 2.0]).item() == 3.0


@pytest.mark.parametrize("axis,message", [
    (2, r"Invalid reduction dimension \(2 for input with 2 dimension"),
    (-3, r"Invalid reduction dimension \(-3"),
    ([0, 0], "duplicate dimension: 0"),
    ([1, -1], "duplicate dimension: 1"),
])
def test_bad_reduction_axes(axis, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.reduce_sum(torch.zeros(2, 3), axis=axis)


def test_reduction_dtype_errors():
    with pytest.raises(errors.InvalidArgumentError, match="of bool is not in the list"):
        tf.reduce_sum(torch.tensor([True]))
    with pytest.raises(errors.InvalidArgumentError, match="of complex64 is not in the list"):
        tf.reduce_max(torch.tensor([1j], dtype=torch.complex64))
    with pytest.raises(errors.InvalidArgumentError, match="expected to be a bool tensor"):
        tf.reduce_any(torch.tensor([1, 0]))
    with pytest.raises(TypeError, match="dtype bool"):
        tf.reduce_any([1, 0])
    assert tf.reduce_any(np.array([0, 2])).item() is True  # numpy arrays are cast, as in TF
    with pytest.raises(TypeError, match="Cannot convert 1.0"):
        tf.reduce_sum(torch.zeros(2), axis=1.0)


def test_nan_propagates_through_max_and_min():
    assert np.isnan(tf.reduce_max([1.0, np.nan, 2.0]).item())
    assert np.isnan(tf.reduce_min([np.nan, 1.0]).item())


def test_reduce_max_gradient_splits_ties_as_tf():
    x = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    tf.reduce_max(x).backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


# -- argmax ----------------------------------------------------------------------------

@given(x=hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                    elements=st.sampled_from([0.0, 1.0, 2.0, np.nan, -np.inf])),
       data=st.data())
def test_argmax_matches_tf_cpu_kernel(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    out = tf.argmax(torch.from_numpy(x), axis=axis)
    assert out.dtype == torch.int64
    np.testing.assert_array_equal(out.numpy(), ref.argmax(x, axis))


def test_argmax_options_and_errors():
    x = torch.tensor([[1, 2, 3], [4, 5, 7]])
    assert tf.argmax(x).tolist() == [1, 1, 1]
    assert tf.argmax(x, axis=1, output_type=tf.int32).dtype == torch.int32
    assert tf.argmax(x, output_type=tf.int16).dtype == torch.int16
    assert tf.argmax([True, False, True]).item() == 0
    assert tfm.argmax([1, 3, 3, 1]).item() == 1
    with pytest.raises(errors.InvalidArgumentError, match="'output_type' of float"):
        tf.argmax(x, output_type=tf.float32)
    with pytest.raises(errors.InvalidArgumentError, match=r"range \[-2, 2\), but got 2"):
        tf.argmax(x, axis=2)
    with pytest.raises(errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
        tf.argmax(torch.zeros(0))
    with pytest.raises(TypeError, match="axis must be int"):
        tf.argmax(x, axis=[1])


# -- cumsum ----------------------------------------------------------------------------

@given(x=hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                    elements=st.integers(-50, 50)),
       exclusive=st.booleans(), reverse=st.booleans(), data=st.data())
def test_cumsum_matches_reference(x, exclusive, reverse, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    out = tf.cumsum(torch.from_numpy(x), axis=axis, exclusive=exclusive, reverse=reverse)
    assert out.dtype == torch.int32
    np.testing.assert_array_equal(out.numpy(), ref.cumsum(x, axis % x.ndim, exclusive, reverse))


def test_cumsum_details():
    assert tf.cumsum([0.1, 0.2, 0.3], exclusive=True).tolist() == pytest.approx([0.0, 0.1, 0.3])
    assert tf.cumsum(torch.tensor([100, 100], dtype=torch.int8)).tolist() == [100, -56]
    assert tf.cumsum([[1, 2]], axis=torch.tensor(1)).tolist() == [[1, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="scan axis"):
        tf.cumsum(torch.tensor(3))
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        tf.cumsum(torch.tensor([True]))


def test_cumsum_gradient():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tf.cumsum(x, exclusive=True).sum().backward()
    assert x.grad.tolist() == [2.0, 1.0, 0.0]
