"""`assign`, `assign_add`, `assign_sub`: TF 2.21 eager semantics, example by example.

The general laws (every mutator equals its numpy reference, failures change
nothing) run in the conformance suite; these are the specific rules.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.testing import reference as ref
from tfcompat.testing import strategies as tfst


@pytest.mark.parametrize("method, arg, expected", [
    ("assign", [3.0, 4.0], [3.0, 4.0]),
    ("assign_add", [3.0, 4.0], [4.0, 6.0]),
    ("assign_sub", [3.0, 4.0], [-2.0, -2.0]),
])
def test_mutators_return_a_variable_reading_the_new_value(method, arg, expected):
    v = tf.Variable([1.0, 2.0], name="x")
    out = getattr(v, method)(arg)
    assert isinstance(out, tf.Variable)
    np.testing.assert_array_equal(out.numpy(), expected)
    v.assign([7.0, 7.0])
    np.testing.assert_array_equal(out.numpy(), [7.0, 7.0])  # same storage, as TF's UnreadVariable


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_read_value_false_returns_none(method):
    v = tf.Variable([1.0, 2.0])
    assert getattr(v, method)([1.0, 1.0], read_value=False) is None


def test_assign_of_another_shape_is_a_value_error():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["assign_add", "assign_sub"])
@pytest.mark.parametrize("delta", [[1.0, 2.0, 3.0], 1.0, [[1.0, 2.0]]])
def test_assign_add_needs_the_exact_shape(method, delta):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="shapes must be equal"):
        getattr(v, method)(delta)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_a_tensor_of_another_dtype_is_a_value_error(method):
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError):
        getattr(v, method)(tf.constant([1.0, 2.0], tf.float64))
    with pytest.raises(ValueError):
        getattr(v, method)(tf.Variable([1.0, 2.0], dtype=tf.float64))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_python_floats_into_an_int_variable_are_a_type_error(method):
    v = tf.Variable([1, 2])
    with pytest.raises(TypeError):
        getattr(v, method)([1.5, 2.0])
    with pytest.raises(TypeError):
        tf.Variable(1).assign(2.0)
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_numpy_arrays_are_cast_to_the_variable_dtype():
    v = tf.Variable([1, 2])
    v.assign(np.array([1.5, 2.0]))
    np.testing.assert_array_equal(v.numpy(), np.array([1, 2], np.int32))
    v.assign(np.array([1, 2 ** 40]))  # int64 -> int32 wraps, as TF's cast
    np.testing.assert_array_equal(v.numpy(), np.array([1, 0], np.int32))
    f = tf.Variable([1.0, 2.0])
    f.assign_add(np.array([1.5, 2.0]))
    np.testing.assert_array_equal(f.numpy(), np.array([2.5, 4.0], np.float32))


def test_python_ints_and_bools_are_converted():
    f = tf.Variable([1.0, 2.0])
    f.assign([3, 4])
    np.testing.assert_array_equal(f.numpy(), [3.0, 4.0])
    i = tf.Variable(1)
    i.assign(True)
    assert int(i) == 1


def test_assign_from_another_variable():
    v = tf.Variable([1.0, 2.0])
    w = tf.Variable([3.0, 4.0])
    v.assign(w)
    w.assign([0.0, 0.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])


def test_the_assigned_tensor_is_not_aliased():
    v = tf.Variable([1.0, 2.0])
    t = torch.tensor([3.0, 4.0])
    v.assign(t)
    t.add_(10.0)
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add(torch.ones(2))
    np.testing.assert_array_equal(t.numpy(), [13.0, 14.0])


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**="])
def test_augmented_assignment_is_a_runtime_error(op):
    # TF 2.21: "`variable += value` with `tf.Variable`s is not supported. Use
    # `variable.assign_add(value)`..."; silently rebinding the name would
    # leave the variable unchanged.
    v = tf.Variable([1.0, 2.0])
    scope = {"v": v}
    with pytest.raises(RuntimeError):
        exec(f"v {op} 2.0", scope)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("op", ["//=", "%=", "&=", "|=", "^="])
def test_other_augmented_operators_rebind_to_a_tensor(op):
    v = tf.Variable([5, 6])
    scope = {"v": v}
    exec(f"v {op} 2", scope)
    assert isinstance(scope["v"], torch.Tensor)
    np.testing.assert_array_equal(v.numpy(), [5, 6])


@given(st.data())
def test_dense_mutation_sequences_match_numpy(data):
    dtype = data.draw(tfst.dtypes())
    initial = data.draw(tfst.arrays(dtype, data.draw(tfst.shapes())))
    ops = data.draw(tfst.mutation_sequences(initial, kinds=("assign", "assign_add", "assign_sub"),
                                            max_size=8))
    v = tf.Variable(initial)
    state = initial
    for op in ops:
        op.apply(v)
        state = op.reference(state)
        np.testing.assert_allclose(v.numpy(), state, **tfst.tolerance(dtype))
    assert v.numpy().dtype == initial.dtype


def test_reference_dense_ops_by_hand():
    a = np.array([1, 2], np.int32)
    assert ref.AssignAdd(np.array([3, 4], np.int32)).reference(a).tolist() == [4, 6]
    assert ref.AssignSub(np.array([3, 4], np.int32)).reference(a).tolist() == [-2, -2]
    assert ref.Assign(np.array([3.7, 4.0])).reference(a).tolist() == [3, 4]
