"""The scatter family, `sparse_read` and `gather_nd`: TF 2.21 eager, example by example.

Golden values were recorded from TensorFlow 2.21. The general laws (every
scatter equals its numpy reference; failed scatters change nothing) run in
the conformance suite.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.testing import reference as ref
from tfcompat.testing import strategies as tfst

IS = tf.IndexedSlices


def slices(values, indices, dtype=None):
    return IS(tf.constant(np.asarray(values, dtype=dtype)), tf.constant(np.asarray(indices)))


@pytest.mark.parametrize("method, initial, values, indices, expected", [
    ("scatter_add", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0, 2, 0], [5.0, 2.0, 5.0]),
    ("scatter_sub", [1, 2], [5, 5], [1, 1], [1, -8]),
    ("scatter_update", [1.0, 2.0], [9.0], [0], [9.0, 2.0]),
    ("scatter_mul", [1.0, 2.0], [2.0, 3.0], [0, 0], [6.0, 2.0]),
    ("scatter_min", [1.0, 2.0], [0.0, -3.0], [0, 0], [-3.0, 2.0]),
    ("scatter_max", [1.0, 2.0], [0.0, 3.0], [0, 1], [1.0, 3.0]),
    ("scatter_div", [7, -7, 7, -7], [2, 2, -2, -2], [0, 1, 2, 3], [3, -3, -3, 3]),
    ("scatter_div", [7, -7], [2, 3, 2, 3], [0, 0, 1, 1], [1, -1]),
    ("scatter_add", [1.0, 2.0, 3.0], [[1.0, 2.0], [3.0, 4.0]], [[0, 1], [2, 0]], [6.0, 4.0, 6.0]),
    ("scatter_add", [1.0, 2.0], 5.0, [0, 1], [6.0, 7.0]),
])
def test_scatter_golden_values(method, initial, values, indices, expected):
    v = tf.Variable(initial)
    dtype = v.dtype.as_numpy_dtype
    out = getattr(v, method)(slices(values, indices, dtype))
    assert isinstance(out, tf.Variable)
    np.testing.assert_array_equal(v.numpy(), np.array(expected, dtype))
    # the numpy reference agrees with TF
    got = ref.scatter_reference(method[len("scatter_"):], np.array(initial, dtype),
                                np.array(indices), np.array(values, dtype))
    np.testing.assert_array_equal(got, np.array(expected, dtype))


def test_float16_scatter_adds_duplicates_in_float16():
    v = tf.Variable(np.array([1.0, 2.0], np.float16))
    v.scatter_add(slices([0.5, 0.25], [1, 1], np.float16))
    np.testing.assert_array_equal(v.numpy(), np.array([1.0, 2.75], np.float16))


@pytest.mark.parametrize("method", ["scatter_mul", "scatter_div"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_scatter_mul_and_div_on_column_variables(method, dtype):
    # rows of one element, several indices (TF: [[2], [2]] / [[0.5], [0.5]])
    v = tf.Variable(np.ones((2, 1), dtype))
    getattr(v, method)(slices(np.full((2, 1), 2.0), [0, 1], dtype))
    expected = 2.0 if method == "scatter_mul" else 0.5
    np.testing.assert_array_equal(v.numpy(), np.full((2, 1), expected, dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_scatter_div_by_zero_is_an_error_for_every_dtype(dtype):
    v = tf.Variable(np.array([7, -7], dtype))
    with pytest.raises(errors.InvalidArgumentError, match="must not contain 0"):
        v.scatter_div(slices([0], [0], dtype))
    np.testing.assert_array_equal(v.numpy(), np.array([7, -7], dtype))


def test_indexed_slices_values_are_converted_to_the_variable_dtype():
    # TF converts IndexedSlices.values like any operand: numpy arrays are cast
    v = tf.Variable([1.0, 2.0])
    v.scatter_update(IS(np.array([5.0]), np.array([0])))
    np.testing.assert_array_equal(v.numpy(), [5.0, 2.0])
    v.scatter_update(IS([6.0], [1]))
    np.testing.assert_array_equal(v.numpy(), [5.0, 6.0])


def test_python_floats_in_indexed_slices_into_an_int_variable_are_a_type_error():
    v = tf.Variable([1, 2])
    with pytest.raises(TypeError):
        v.scatter_update(IS([1.5], [0]))
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_scatter_updates_of_another_dtype_are_a_value_error():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        v.scatter_update(slices([0.0], [0], np.float64))


def test_scatter_needs_indexed_slices():
    with pytest.raises(TypeError, match="IndexedSlices"):
        tf.Variable([1.0, 2.0]).scatter_update([5.0])


@pytest.mark.parametrize("method", ["scatter_update", "scatter_add", "scatter_sub",
                                    "scatter_mul", "scatter_div", "scatter_min", "scatter_max"])
@pytest.mark.parametrize("bad", [2, 5, -1])
def test_out_of_range_indices_are_rejected_and_change_nothing(method, bad):
    # (TF applies the indices before the bad one; tfcompat validates first)
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="not in"):
        getattr(v, method)(slices([2.0, 2.0], [0, bad], np.float32))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_updates_of_the_wrong_shape_are_rejected():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError):
        v.scatter_add(slices([0.0, 3.0, 4.0], [0, 1], np.float32))


# -- scatter_nd ---------------------------------------------------------------

@pytest.mark.parametrize("method, initial, indices, updates, expected", [
    ("scatter_nd_add", [[1.0, 2.0], [3.0, 4.0]], [[0, 1], [0, 1], [1, 0]], [1.0, 2.0, 3.0],
     [[1.0, 5.0], [6.0, 4.0]]),
    ("scatter_nd_add", [[1.0, 2.0], [3.0, 4.0]], [[1], [1]], [[1.0, 2.0], [3.0, 4.0]],
     [[1.0, 2.0], [7.0, 10.0]]),
    ("scatter_nd_sub", [[1.0, 2.0], [3.0, 4.0]], [[1]], [[1.0, 2.0]], [[1.0, 2.0], [2.0, 2.0]]),
    ("scatter_nd_update", [1.0, 2.0], np.array([[1]], np.int64), [5.0], [1.0, 5.0]),
])
def test_scatter_nd_golden_values(method, initial, indices, updates, expected):
    v = tf.Variable(initial)
    out = getattr(v, method)(tf.constant(np.asarray(indices)), updates)
    assert isinstance(out, tf.Variable)
    np.testing.assert_array_equal(v.numpy(), np.array(expected, np.float32))
    got = ref.scatter_nd_reference(method[len("scatter_nd_"):], np.array(initial, np.float32),
                                   np.asarray(indices), np.array(updates, np.float32))
    np.testing.assert_array_equal(got, np.array(expected, np.float32))


def test_scatter_nd_errors():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError):
        v.scatter_nd_add([[5]], [1.0])
    with pytest.raises(errors.InvalidArgumentError):
        v.scatter_nd_add([[-1]], [1.0])
    with pytest.raises(errors.InvalidArgumentError):
        v.scatter_nd_update([[0]], [1.0, 2.0])
    with pytest.raises(ValueError):
        v.scatter_nd_update([[0]], tf.constant([1.0], tf.float64))
    with pytest.raises(TypeError):
        tf.Variable([1, 2]).scatter_nd_update([[0]], [1.5])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_scatter_nd_into_a_scalar_is_an_invalid_argument():
    v = tf.Variable(1.0)
    with pytest.raises(errors.InvalidArgumentError):
        v.scatter_nd_update(np.zeros((1, 0), np.int32), [5.0])
    assert float(v) == 1.0


def test_batch_scatter_update():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    v.batch_scatter_update(slices([[9.0], [8.0]], [[1], [0]], np.float32))
    np.testing.assert_array_equal(v.numpy(), [[1.0, 9.0], [8.0, 4.0]])


# -- gathers --------------------------------------------------------------------

def test_sparse_read():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(v.sparse_read([[1], [0]]).numpy(), [[[3.0, 4.0]], [[1.0, 2.0]]])
    np.testing.assert_array_equal(v.sparse_read([1, 1]).numpy(), [[3.0, 4.0], [3.0, 4.0]])
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = 2 is not in \[0, 2\)"):
        v.sparse_read([2])
    with pytest.raises(errors.InvalidArgumentError):
        tf.Variable(1.0).sparse_read([0])


def test_gather_nd():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(v.gather_nd([[1, 0]]).numpy(), [3.0])
    np.testing.assert_array_equal(v.gather_nd([[1]]).numpy(), [[3.0, 4.0]])
    with pytest.raises(errors.InvalidArgumentError):
        v.gather_nd([[2, 0]])


# -- properties -----------------------------------------------------------------

@given(st.data())
def test_scatter_sequences_match_numpy(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(min_rank=1, min_side=1))
    initial = data.draw(tfst.arrays(dtype, shape))
    kinds = tuple(f"scatter_{k}" for k in ref.SCATTER_KINDS) + tuple(
        f"scatter_nd_{k}" for k in ref.SCATTER_ND_KINDS)
    ops = data.draw(tfst.mutation_sequences(initial, min_size=1, kinds=kinds))
    v = tf.Variable(initial)
    state = initial
    for op in ops:
        op.apply(v)
        state = op.reference(state)
        np.testing.assert_allclose(v.numpy(), state, **tfst.tolerance(dtype), err_msg=repr(op))


@given(st.data())
def test_sparse_read_equals_numpy_take(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(min_rank=1, min_side=1))
    initial = data.draw(tfst.arrays(dtype, shape))
    idx = data.draw(tfst.index_arrays(shape[0], min_size=0, max_size=6))
    rows = tf.Variable(initial).sparse_read(tf.constant(idx))
    np.testing.assert_array_equal(rows.numpy(), initial[idx.astype(np.int64)])


# -- index dtypes and error positions (TF 2.21's resource kernels) -----------------

@pytest.mark.parametrize("indices", [[[1.7]], np.array([[1]], np.int16), np.array([[1]], np.int8),
                                     np.array([[1]], np.uint8), np.array([[1, 1]], np.int16)])
def test_gather_nd_takes_int32_or_int64_indices_only(indices):
    # TF: "Value for attr 'Tindices' of float is not in the list of allowed values: int32, int64"
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        v.gather_nd(indices)
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        tf.gather_nd(v, indices)


def test_gather_nd_argument_errors_are_tf_errors():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(errors.InvalidArgumentError, match="at least a vector"):
        v.gather_nd(5)
    with pytest.raises(errors.InvalidArgumentError, match="saw: 3 vs. 2"):
        v.gather_nd([[1, 1, 1]])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[7\] does not index into param shape \[3,2\]"):
        v.gather_nd([[1], [7]])
    np.testing.assert_array_equal(v.gather_nd(np.zeros((0, 1), np.int64)).numpy().shape, (0, 2))


@pytest.mark.parametrize("method", ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul",
                                    "scatter_div", "scatter_min", "scatter_max",
                                    "batch_scatter_update"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.float32])
def test_scatters_take_int32_or_int64_indices_only(method, dtype):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        getattr(v, method)(IS(tf.constant([5.0]), tf.constant(np.array([1], dtype))))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["scatter_nd_update", "scatter_nd_add", "scatter_nd_sub"])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.float32])
def test_scatter_nd_takes_int32_or_int64_indices_only(method, dtype):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        getattr(v, method)(tf.constant(np.array([[1]], dtype)), [5.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_sparse_read_takes_int32_or_int64_indices_only():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        v.sparse_read(tf.constant(np.array([1], np.int16)))
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        v.sparse_read([1.0])


def test_bad_scatter_indices_are_named_in_the_indices_own_coordinates():
    # As TF 2.21: a row of a batch of index rows is `indices[1,0]`, a scalar index `indices`.
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"indices\[1,0\] = \[5, 0\] does not index into shape \[3,2\]"):
        v.scatter_nd_update([[[0, 0]], [[5, 0]]], [[1.0], [2.0]])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"indices\[1,1\] = \[0, 7\] does not index into shape \[3,2\]"):
        v.scatter_nd_add([[[0, 0], [1, 1]], [[2, 0], [0, 7]]], [[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1,1\] = 3 is not in \[0, 3\)"):
        v.scatter_update(IS(tf.ones([2, 2, 2]), tf.constant([[0, 1], [2, 3]])))
    with pytest.raises(errors.InvalidArgumentError, match=r"indices = 3 is not in \[0, 3\)"):
        v.scatter_update(IS(tf.ones([2]), tf.constant(3)))
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def test_scatter_div_only_touches_the_indexed_rows():
    v = tf.Variable([[7.0, -7.0], [1.0, 2.0], [9.0, 3.0]])
    v.scatter_div(IS(tf.constant([[2.0, 2.0], [0.5, -1.0]]), tf.constant([2, 2])))
    np.testing.assert_array_equal(v.numpy(), [[7.0, -7.0], [1.0, 2.0], [9.0, -1.5]])
    empty = tf.Variable([1, 2])
    empty.scatter_div(IS(tf.constant(np.zeros([0], np.int32)), tf.constant(np.zeros([0], np.int32))))
    np.testing.assert_array_equal(empty.numpy(), [1, 2])


# Recorded from TF 2.21 (CPU): duplicates are applied one after another, rounding after
# each, so `x / a / b` is not `x / (a * b)`; integer rows truncate per update.
@pytest.mark.parametrize("method, dtype, initial, values, indices, expected", [
    ("scatter_div", tf.float32, [7.0, 2.0], [3.0, 7.0], [0, 0], [0.333333313, 2.0]),
    ("scatter_div", tf.float16, [7.0, 2.0], [1.1, 1.3, 1.7], [0, 0, 0], [2.88085938, 2.0]),
    ("scatter_mul", tf.float16, [1.0, 2.0], [1.1, 1.3, 1.7], [0, 0, 0], [2.431640625, 2.0]),
    ("scatter_div", tf.int32, [100, 7], [65536, 65536, 3], [0, 0, 1], [0, 2]),  # 65536**2 overflows
])
def test_duplicate_updates_apply_in_turn_as_tf(method, dtype, initial, values, indices, expected):
    v = tf.Variable(initial, dtype=dtype)
    getattr(v, method)(tf.IndexedSlices(tf.constant(values, dtype), tf.constant(indices)))
    np.testing.assert_array_equal(v.numpy(), np.asarray(expected, dtype.as_numpy_dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_duplicates_add_one_at_a_time_as_tf(dtype):
    # Recorded from TF 2.21: each duplicate is added in the dtype, rounding after each
    # (torch's index_add_ would sum the float16 row's four 1.0s first: 2052).
    dt = tf.as_dtype(dtype)
    v = tf.Variable(tf.constant([[2048.0, 1.0], [3.0, 256.0]], dt))
    v.scatter_add(tf.IndexedSlices(tf.constant([[1.0, 0.5]] * 4, dt), tf.constant([0, 0, 0, 0])))
    v.scatter_sub(tf.IndexedSlices(tf.constant([[0.5, 1.0]] * 3, dt), tf.constant([1, 1, 1])))
    np.testing.assert_array_equal(v.numpy().astype(np.float64), [[2048.0, 3.0], [1.5, 253.0]])
    w = tf.Variable(tf.constant([2048.0, 256.0], dt))
    w.scatter_add(tf.IndexedSlices(tf.constant([1.0, 1.0, 1.0, 0.5], dt), tf.constant([0, 0, 0, 1])))
    np.testing.assert_array_equal(w.numpy().astype(np.float64),
                                  [2048.0, 256.5 if dtype == "float16" else 256.0])
