"""`v[key]`, `v[key].assign(x)` and `v[key] = x` (a tfcompat extension).

TF's strided slice is numpy's basic indexing; golden values and errors were
recorded from TensorFlow 2.21.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.testing import reference as ref
from tfcompat.testing import strategies as tfst


@pytest.fixture
def v():
    return tf.Variable(np.arange(12.0, dtype=np.float32).reshape(3, 4))


# -- reads --------------------------------------------------------------------

@given(st.data())
def test_slicing_equals_numpy_basic_indexing(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(max_rank=4))
    value = data.draw(tfst.arrays(dtype, shape))
    key = data.draw(tfst.slice_keys(shape))
    got = tf.Variable(value)[key]
    expected = value[key]
    assert isinstance(got, torch.Tensor)
    assert tuple(got.shape) == expected.shape, ref.key_repr(key)
    np.testing.assert_array_equal(got.numpy(), expected)


@given(st.data())
def test_scalar_tensor_indices_work_like_ints(data):
    shape = data.draw(tfst.shapes(min_rank=1, min_side=1))
    value = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    i = data.draw(st.integers(-shape[0], shape[0] - 1))
    kind = data.draw(st.sampled_from(["tf", "numpy", "torch64"]))
    index = {"tf": tf.constant(i), "numpy": np.int64(i), "torch64": torch.tensor(i)}[kind]
    stop = {"tf": tf.constant(shape[0]), "numpy": np.int32(shape[0]),
            "torch64": torch.tensor(shape[0])}[kind]
    v = tf.Variable(value)
    np.testing.assert_array_equal(v[index].numpy(), value[i])
    np.testing.assert_array_equal(v[index:stop].numpy(), value[i:])


def test_golden_slices(v):
    np.testing.assert_array_equal(v[1:10].numpy(), [[4, 5, 6, 7], [8, 9, 10, 11]])
    np.testing.assert_array_equal(v[::-2, 3:0:-1].numpy(), [[11, 10, 9], [3, 2, 1]])
    np.testing.assert_array_equal(v[..., None, 1].numpy(), [[1], [5], [9]])
    w = tf.Variable(np.arange(5.0))
    np.testing.assert_array_equal(w[10:-10:-3].numpy(), [4.0, 1.0])
    np.testing.assert_array_equal(w[-10:10:2].numpy(), [0.0, 2.0, 4.0])
    s = tf.Variable(1.0)
    assert s[...].numpy() == 1.0 and s[None].numpy().tolist() == [1.0]


def test_a_list_key_is_a_tuple_of_indices(v):
    assert float(v[[0, 1]]) == 1.0


def test_a_boolean_mask_selects_rows(v):
    np.testing.assert_array_equal(v[np.array([True, False, True])].numpy(),
                                  [[0, 1, 2, 3], [8, 9, 10, 11]])
    np.testing.assert_array_equal(v[tf.constant([False, True, False])].numpy(), [[4, 5, 6, 7]])


@pytest.mark.parametrize("key, message", [
    ((Ellipsis, Ellipsis), "Multiple ellipses"),
    ((0, 1, 2), "Index out of range"),
    (slice(None, None, 0), "must be non-zero"),
    (3, "out of bounds"),
    (-4, "out of bounds"),
    ((0, 4), "out of bounds"),
])
def test_invalid_keys_are_invalid_arguments(v, key, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        v[key]


@pytest.mark.parametrize("key", [1.0, "a", (0, 1.5), slice(0.5, 2)])
def test_non_integer_indices_are_type_errors(v, key):
    with pytest.raises(TypeError):
        v[key]


def test_indexing_a_scalar_is_an_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError):
        tf.Variable(1.0)[0]


# -- slice assignment ---------------------------------------------------------

def test_slice_assign_golden(v):
    out = v[0:2].assign(1.0)
    assert isinstance(out, tf.Variable)
    np.testing.assert_array_equal(v.numpy()[:2], np.ones((2, 4)))
    v[0:2].assign([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(v.numpy()[:2], [[1, 2, 3, 4], [1, 2, 3, 4]])
    v[::-1, 0].assign([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(v.numpy()[:, 0], [30.0, 20.0, 10.0])
    v[0].assign([1, 2, 3, 4])  # Python ints into a float variable
    np.testing.assert_array_equal(v.numpy()[0], [1, 2, 3, 4])
    v[None, 0].assign(np.ones((1, 4), np.float32))
    v[1].assign(np.full((1, 4), 2.0, np.float32))  # a leading 1 is dropped
    np.testing.assert_array_equal(v.numpy()[:2], [[1, 1, 1, 1], [2, 2, 2, 2]])
    v[...].assign(np.zeros((3, 4), np.float32))
    np.testing.assert_array_equal(v.numpy(), np.zeros((3, 4)))
    v[2:1].assign(1.0)  # an empty region
    np.testing.assert_array_equal(v.numpy(), np.zeros((3, 4)))


def test_slice_assign_errors_change_nothing(v):
    before = v.numpy()
    with pytest.raises(errors.InvalidArgumentError, match="broadcast"):
        v[0:2].assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        v[0].assign(tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
    with pytest.raises(TypeError):
        tf.Variable([1, 2])[0].assign(1.5)
    with pytest.raises(errors.InvalidArgumentError):
        v[5].assign(1.0)
    np.testing.assert_array_equal(v.numpy(), before)


def test_only_a_strided_slice_of_the_variable_has_assign(v):
    with pytest.raises(AttributeError):
        v[0][1:].assign([1.0, 1.0, 1.0])
    with pytest.raises(AttributeError):
        v[np.array([True, False, True])].assign(1.0)
    with pytest.raises(AttributeError):
        (v + 0)[0].assign(1.0)


@given(st.data())
def test_slice_assign_equals_numpy_slice_assignment(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(max_rank=4))
    value = data.draw(tfst.arrays(dtype, shape))
    key = data.draw(tfst.slice_keys(shape))
    new_shape = data.draw(tfst.broadcastable_shapes(tfst.region_shape(shape, key)))
    new = data.draw(tfst.arrays(dtype, new_shape))
    v = tf.Variable(value)
    v[key].assign(new)
    np.testing.assert_array_equal(v.numpy(), ref.slice_assign_reference(value, key, new))


# -- item assignment (tfcompat extension; TF raises TypeError) ----------------

@given(st.data())
def test_item_assignment_equals_slice_assign(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(max_rank=3))
    value = data.draw(tfst.arrays(dtype, shape))
    key = data.draw(tfst.slice_keys(shape))
    new = data.draw(tfst.arrays(dtype, data.draw(
        tfst.broadcastable_shapes(tfst.region_shape(shape, key)))))
    v = tf.Variable(value)
    v[key] = new
    np.testing.assert_array_equal(v.numpy(), ref.slice_assign_reference(value, key, new))


def test_item_assignment(v):
    v[1:3] = 0.0
    np.testing.assert_array_equal(v.numpy()[1:], np.zeros((2, 4)))
    v[0, ::-1] = [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(v.numpy()[0], [4.0, 3.0, 2.0, 1.0])
    v[np.array([True, False, False])] = 7.0  # a mask, like numpy
    np.testing.assert_array_equal(v.numpy()[0], [7.0] * 4)
    before = v.numpy()
    with pytest.raises(errors.InvalidArgumentError):
        v[0] = [1.0, 2.0]
    with pytest.raises(TypeError):
        tf.Variable([1, 2])[0] = 1.5
    np.testing.assert_array_equal(v.numpy(), before)
