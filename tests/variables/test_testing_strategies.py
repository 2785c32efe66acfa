"""`tfcompat.testing` itself: the strategies draw what they promise, the
references encode TF's rules (golden values from TensorFlow 2.21), and — when
TensorFlow is importable — the references agree with it live."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tfcompat.testing import reference as ref
from tfcompat.testing import strategies as tfst


@given(st.data())
def test_slice_keys_are_valid_basic_indexing(data):
    shape = data.draw(tfst.shapes(max_rank=4))
    key = data.draw(tfst.slice_keys(shape))
    items = key if isinstance(key, tuple) else (key,)
    assert sum(1 for i in items if i is Ellipsis) <= 1
    assert sum(1 for i in items if i is not None and i is not Ellipsis) <= len(shape)
    assert all(isinstance(i, (int, slice)) or i is None or i is Ellipsis for i in items)
    assert all(i.step != 0 for i in items if isinstance(i, slice))
    np.empty(shape)[key]  # numpy accepts it


@given(st.data())
def test_mutation_sequences_stay_bounded_and_keep_dtype(data):
    dtype = data.draw(tfst.dtypes())
    initial = data.draw(tfst.arrays(dtype, data.draw(tfst.shapes())))
    state = initial
    for op in data.draw(tfst.mutation_sequences(initial, max_size=8)):
        assert isinstance(op, ref.Mutation)
        state = op.reference(state)
        assert state.dtype == initial.dtype and state.shape == initial.shape
    bound = 2 ** 20 if initial.dtype.kind == "i" else 2 ** 10
    assert not state.size or np.max(np.abs(state.astype(np.float64))) <= bound


@given(st.data())
def test_scatter_update_indices_are_unique(data):
    shape = data.draw(tfst.shapes(min_rank=1, min_side=1))
    op = data.draw(tfst.mutations(np.float32, shape, kinds=["scatter_update", "scatter_nd_update"]))
    rows = op.indices.reshape(-1) if isinstance(op, ref.Scatter) else [
        tuple(r) for r in op.indices.reshape(-1, op.indices.shape[-1])]
    assert len(set(map(lambda r: r if isinstance(r, tuple) else int(r), rows))) == len(rows)


@pytest.mark.parametrize("reason", tfst.INVALID_REASONS)
@given(data=st.data())
def test_every_invalid_reason_can_be_drawn(reason, data):
    dtype = np.int32 if reason == "python_float_int" else np.float32
    assert tfst.reason_applies(reason, dtype, (3, 2))
    example = data.draw(tfst.invalid_mutations(dtype, (3, 2), reasons=[reason]))
    assert isinstance(example, ref.InvalidMutation) and example.error in (
        "ValueError", "TypeError", "InvalidArgumentError")


def test_reference_golden_values():
    assert ref.trunc_divide(np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])).tolist() == [3, -3, -3, 3]
    out = ref.scatter_reference("add", np.array([1.0, 2.0, 3.0]), np.array([0, 2, 0]),
                                np.array([1.0, 2.0, 3.0]))
    assert out.tolist() == [5.0, 2.0, 5.0]
    out = ref.scatter_reference("div", np.array([7, -7]), np.array([0, 0, 1, 1]),
                                np.array([2, 3, 2, 3]))
    assert out.tolist() == [1, -1]
    out = ref.scatter_nd_reference("add", np.array([[1.0, 2.0], [3.0, 4.0]]),
                                   np.array([[0, 1], [0, 1], [1, 0]]), np.array([1.0, 2.0, 3.0]))
    assert out.tolist() == [[1.0, 5.0], [6.0, 4.0]]
    # a (1,)-shaped value fits a scalar region, as TF's strided-slice assign
    assert ref.slice_assign_reference(np.zeros(2), 0, np.array([5.0])).tolist() == [5.0, 0.0]
    assert ref.key_repr((slice(None, None, -1), Ellipsis, None, 1)) == "::-1, ..., None, 1"


def test_tolerance_is_exact_for_integers():
    assert tfst.tolerance(np.int32) == {"rtol": 0, "atol": 0}
    assert tfst.tolerance("float16")["rtol"] > tfst.tolerance("float64")["rtol"]


# -- live TensorFlow (skipped unless importable) ------------------------------

@pytest.mark.tf_oracle
@given(st.data())
def test_references_agree_with_tensorflow(tf_oracle, data):
    tf_real = tf_oracle
    dtype = data.draw(tfst.dtypes())
    initial = data.draw(tfst.arrays(dtype, data.draw(tfst.shapes())))
    v = tf_real.Variable(initial)
    state = initial
    for op in data.draw(tfst.mutation_sequences(initial)):
        op.apply(v, tf_real)
        state = op.reference(state)
        np.testing.assert_allclose(v.numpy(), state, **tfst.tolerance(dtype), err_msg=repr(op))
    key = data.draw(tfst.slice_keys(initial.shape))
    np.testing.assert_array_equal(v[key].numpy(), ref.slice_reference(state, key))


@pytest.mark.tf_oracle
@given(st.data())
def test_invalid_mutations_fail_in_tensorflow(tf_oracle, data):
    tf_real = tf_oracle
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes())
    initial = data.draw(tfst.arrays(dtype, shape))
    reasons = [r for r in tfst.INVALID_REASONS if tfst.reason_applies(r, dtype, shape)
               and r != "scatter_index"]  # TF applies the indices before a bad one
    bad = data.draw(tfst.invalid_mutations(dtype, shape, reasons=reasons))
    v = tf_real.Variable(initial)
    with pytest.raises(bad.exception(tf_real)):
        bad.apply(v, tf_real)
    np.testing.assert_array_equal(v.numpy(), initial)
