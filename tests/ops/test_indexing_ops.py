"""gather/scatter, segments, boolean_mask, where and unique."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import op_reference as ref
import tfcompat as tf
from tfcompat import math as tfm
from tfcompat.autodiff import GradientTape
from tfcompat.framework import errors

X = torch.arange(6, dtype=torch.int32).reshape(2, 3)
P = torch.tensor([10.0, 11.0, 12.0])


# -- gather ------------------------------------------------------------------------------

@st.composite
def gather_cases(draw):
    batch_dims = draw(st.integers(0, 2))
    batch = draw(st.lists(st.integers(1, 3), min_size=batch_dims, max_size=batch_dims))
    extra = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    shape = tuple(batch + extra)
    axis = draw(st.integers(batch_dims, len(shape) - 1))
    params = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    inner = draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
    indices = draw(hnp.arrays(np.int64, tuple(batch + inner),
                              elements=st.integers(0, shape[axis] - 1)))
    return params, indices, axis, batch_dims


@given(case=gather_cases(), negative_axis=st.booleans())
def test_gather_matches_reference(case, negative_axis):
    params, indices, axis, batch_dims = case
    a = axis - params.ndim if negative_axis else axis
    out = tf.gather(torch.from_numpy(params), torch.from_numpy(indices), axis=a,
                    batch_dims=batch_dims)
    np.testing.assert_array_equal(out.numpy(), ref.gather(params, indices, axis, batch_dims))


def test_gather_details():
    assert tf.gather(P, [2, 0]).tolist() == [12.0, 10.0]
    assert tf.gather(X, [2, 0], axis=1).tolist() == [[2, 0], [5, 3]]
    assert tf.gather(X, [[0, 1], [2, 2]], axis=1, batch_dims=1).tolist() == [[0, 1], [5, 5]]
    assert tf.gather(X, [[0, 1], [2, 2]], batch_dims=-1).tolist() == [[0, 1], [5, 5]]
    assert tf.gather([1, 2, 3], [0]).tolist() == [1]
    assert tf.gather(P, torch.tensor([1], dtype=torch.int16)).tolist() == [11.0]
    assert tf.gather(torch.zeros(2, 3), [0], axis=torch.tensor(1)).shape == (2, 1)


@pytest.mark.parametrize("params,indices,kwargs,message", [
    (P, [0, 5], {}, r"indices\[1\] = 5 is not in \[0, 3\)"),
    (P, [[0, 1], [2, -1]], {}, r"indices\[1,1\] = -1 is not in \[0, 3\)"),
    (P, -1, {}, r"indices = -1 is not in \[0, 3\)"),
    (X, [3], {"axis": 1}, r"indices\[0\] = 3 is not in \[0, 3\)"),
    (X, [0], {"axis": 2}, "Shape must be at least rank 3 but is rank 2"),
    (torch.tensor(1.0), [0], {}, "params must be at least 1 dimensional"),
    (P, [0.0], {}, "'Tindices' of float"),
    (P, torch.tensor([1], dtype=torch.uint8), {}, "'Tindices' of uint8"),
])
def test_gather_errors(params, indices, kwargs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.gather(params, indices, **kwargs)


def test_gather_on_variable_gives_indexed_slices_gradient():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [2, 0, 2]))
    g = tape.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)
    assert sorted(g.indices.tolist()) == [0, 2, 2]
    assert tf.convert_to_tensor(g).tolist() == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]


def test_gather_on_variable_along_other_axis_reads_densely():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [1], axis=1))
    g = tape.gradient(y, v)
    assert isinstance(g, torch.Tensor) and g.tolist() == [[0.0, 1.0], [0.0, 1.0]]


def test_gather_gradient_on_tensors():
    p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tf.gather(p, [[0, 2], [2, 2]]).sum().backward()
    assert p.grad.tolist() == [1.0, 0.0, 3.0]


# -- gather_nd ---------------------------------------------------------------------------

@given(data=st.data())
def test_gather_nd_matches_reference(data):
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    params = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    k = data.draw(st.integers(0, len(shape)))
    outer = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    cols = [data.draw(hnp.arrays(np.int64, tuple(outer) + (1,),
                                 elements=st.integers(0, shape[j] - 1))) for j in range(k)]
    indices = np.concatenate(cols, -1) if cols else np.zeros(tuple(outer) + (0,), np.int64)
    out = tf.gather_nd(torch.from_numpy(params), torch.from_numpy(indices))
    np.testing.assert_array_equal(out.numpy(), ref.gather_nd(params, indices))


def test_gather_nd_details():
    assert tf.gather_nd(X, [[0, 1], [1, 2]]).tolist() == [1, 5]
    assert tf.gather_nd(X, [[1]]).tolist() == [[3, 4, 5]]
    assert tf.gather_nd(X, [[1], [2]], batch_dims=1).tolist() == [1, 5]
    assert tf.gather_nd([[1, 2]], [[0, 1]]).tolist() == [2]
    assert tf.gather_nd(X, torch.zeros(2, 0, dtype=torch.int32)).shape == (2, 2, 3)
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert tf.gather_nd(v, [[1, 0]]).tolist() == [3.0]


@pytest.mark.parametrize("indices,message", [
    ([[0, 1], [1, 3]], r"indices\[1\] = \[1, 3\] does not index into param shape \[2,3\]"),
    ([[0, -1]], r"indices\[0\] = \[0, -1\] does not index into param shape"),
    ([[0, 1, 0]], "innermost dimension length must be <= params rank; saw: 3 vs. 2"),
    (1, "indices must be at least a vector"),
])
def test_gather_nd_errors(indices, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.gather_nd(X, indices)


# -- scatter_nd / tensor_scatter_nd_* ------------------------------------------------------

@given(data=st.data())
def test_scatter_nd_family_matches_reference(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    k = data.draw(st.integers(1, len(shape)))
    n = data.draw(st.integers(0, 5))
    rows = np.array([[data.draw(st.integers(0, shape[j] - 1)) for j in range(k)]
                     for _ in range(n)], dtype=np.int32).reshape(n, k)
    updates = data.draw(hnp.arrays(np.float32, (n,) + shape[k:],
                                   elements=st.integers(-8, 8).map(float)))
    base = data.draw(hnp.arrays(np.float32, shape, elements=st.integers(-8, 8).map(float)))
    out = tf.scatter_nd(torch.from_numpy(rows), torch.from_numpy(updates), list(shape))
    np.testing.assert_array_equal(out.numpy(), ref.scatter_nd(rows, updates, shape))
    out = tf.tensor_scatter_nd_add(torch.from_numpy(base), rows, torch.from_numpy(updates))
    np.testing.assert_array_equal(out.numpy(), ref.scatter_nd(rows, updates, shape, base=base))
    _, first = np.unique(rows, axis=0, return_index=True) if n else (None, np.array([], int))
    uniq = rows[np.sort(first)]
    out = tf.tensor_scatter_nd_update(torch.from_numpy(base), uniq,
                                      torch.from_numpy(updates[np.sort(first)]))
    expected = ref.scatter_nd(uniq, updates[np.sort(first)], shape, base=base, add=False)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_scatter_details():
    assert tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]).tolist() == [0, 4, 0, 2, 0]
    assert tf.scatter_nd([[1]], [[1.0, 2.0]], [3, 2]).tolist() == [[0, 0], [1, 2], [0, 0]]
    assert tf.scatter_nd([[1]], [True], [3]).tolist() == [False, True, False]
    assert tf.scatter_nd([[1]], [1], torch.tensor([3])).dtype == torch.int32
    assert tf.tensor_scatter_nd_update(X, [[0, 0], [1, 2]], [100, 200]).tolist() == [
        [100, 1, 2], [3, 4, 200]]
    assert tf.tensor_scatter_nd_update(X, [[1]], [[7, 8, 9]]).tolist() == [[0, 1, 2], [7, 8, 9]]
    assert tf.tensor_scatter_nd_update(P, [[0]], [1]).tolist() == [1.0, 11.0, 12.0]
    assert tf.tensor_scatter_nd_add(P, [[0], [0]], [1.0, 2.0]).tolist() == [13.0, 11.0, 12.0]
    assert P.tolist() == [10.0, 11.0, 12.0], "the input is never modified"


@pytest.mark.parametrize("call,error,message", [
    (lambda: tf.scatter_nd([[7]], [1.0], [5]), errors.InvalidArgumentError,
     r"indices\[0\] = \[7\] does not index into shape \[5\]"),
    (lambda: tf.scatter_nd([[-1]], [1.0], [5]), errors.InvalidArgumentError, "does not index"),
    (lambda: tf.scatter_nd([[1]], [1.0, 2.0], [5]), errors.InvalidArgumentError, "updates.shape"),
    (lambda: tf.scatter_nd([[1.0]], [1], [3]), errors.InvalidArgumentError, "'Tindices' of float"),
    (lambda: tf.scatter_nd([[1]], [1], [-3]), errors.InvalidArgumentError, "Dimension -3"),
    (lambda: tf.tensor_scatter_nd_update(P, [[3]], [1.0]), errors.InvalidArgumentError,
     "does not index into shape"),
    (lambda: tf.tensor_scatter_nd_update(P, [[0]], torch.tensor([1])),
     errors.InvalidArgumentError, "input #2.*float tensor but is a int64"),
    (lambda: tf.tensor_scatter_nd_add(torch.tensor([True]), [[0]], [True]), errors.NotFoundError,
     "no kernel for bool"),
])
def test_scatter_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_scatter_gradients():
    t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = torch.tensor([5.0, 6.0], requires_grad=True)
    (tf.tensor_scatter_nd_update(t, [[0], [2]], u) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert t.grad.tolist() == [0.0, 2.0, 0.0] and u.grad.tolist() == [1.0, 3.0]
    u.grad = None
    tf.scatter_nd([[1], [1]], u, [3]).sum().backward()
    assert u.grad.tolist() == [1.0, 1.0]


# -- unsorted_segment_sum -----------------------------------------------------------------

@given(data=st.data())
def test_unsorted_segment_sum_matches_reference(data):
    n = data.draw(st.integers(0, 6))
    num = data.draw(st.integers(0, 4))
    ids = data.draw(hnp.arrays(np.int32, (n,), elements=st.integers(-1, max(num - 1, -1))))
    d = data.draw(hnp.arrays(np.int64, (n, 2), elements=st.integers(-9, 9)))
    out = tfm.unsorted_segment_sum(torch.from_numpy(d), torch.from_numpy(ids), num)
    np.testing.assert_array_equal(out.numpy(), ref.unsorted_segment_sum(d, ids, num))


def test_unsorted_segment_sum_details():
    assert tfm.unsorted_segment_sum([1.0, 2.0, 3.0, 4.0], [0, 2, 0, -1], 3).tolist() == [4, 0, 2]
    assert tfm.unsorted_segment_sum([[1, 2], [3, 4]], [[0, 1], [1, 1]], 2).tolist() == [1, 9]
    assert tfm.unsorted_segment_sum([1, 2], [0, 1], torch.tensor(2)).tolist() == [1, 2]
    with pytest.raises(errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range"):
        tfm.unsorted_segment_sum([1.0, 2.0], [0, 5], 3)
    with pytest.raises(errors.InvalidArgumentError, match=r"does not start with segment_ids"):
        tfm.unsorted_segment_sum([1.0, 2.0], [0], 3)
    with pytest.raises(errors.InvalidArgumentError, match="must not be negative"):
        tfm.unsorted_segment_sum([1], [0], -1)
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        tfm.unsorted_segment_sum([True], [0], 1)
    d = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (tfm.unsorted_segment_sum(d, [1, 0, 1], 2) * torch.tensor([10.0, 20.0])).sum().backward()
    assert d.grad.tolist() == [20.0, 10.0, 20.0]


# -- boolean_mask / where ----------------------------------------------------------------

@given(data=st.data())
def test_boolean_mask_matches_numpy(data):
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    axis = data.draw(st.integers(0, len(shape) - 1))
    k = data.draw(st.integers(1, len(shape) - axis))
    mask = data.draw(hnp.arrays(np.bool_, shape[axis:axis + k]))
    x = np.arange(int(np.prod(shape))).reshape(shape)
    out = tf.boolean_mask(torch.from_numpy(x), torch.from_numpy(mask), axis=axis)
    index = (slice(None),) * axis + (mask,)
    np.testing.assert_array_equal(out.numpy(), x[index])


def test_boolean_mask_details():
    assert tf.boolean_mask([1, 2, 3], [True, False, True]).tolist() == [1, 3]
    assert tf.boolean_mask(X, [1, 0]).tolist() == [[0, 1, 2]]  # non-zero counts as true
    assert tf.boolean_mask(X, [True, False, True], axis=1).tolist() == [[0, 2], [3, 5]]
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.boolean_mask(X, [True, False, True])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(X, True)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tf.boolean_mask(x, [True, False, True]).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


@given(x=hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=3),
                    elements=st.sampled_from([0.0, 1.0, -2.0, np.nan])))
def test_where_one_argument_matches_numpy(x):
    out = tf.where(torch.from_numpy(x))
    assert out.dtype == torch.int64
    np.testing.assert_array_equal(out.numpy(), np.argwhere(x != 0))


def test_where_three_arguments():
    assert tf.where([True, False], [1, 2], [3, 4]).tolist() == [1, 4]
    assert tf.where([[True], [False]], [1, 2], 0).tolist() == [[1, 2], [0, 0]]
    assert tf.where([True, False], 1.0, 2.0).dtype == torch.float32
    assert tf.where([True, False], 2, torch.tensor([1.0, 2.0])).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.where([True, False], torch.tensor([1, 2], dtype=torch.int32), 2.5)
    with pytest.raises(TypeError, match="dtype bool"):
        tf.where([1, 0], [1, 2], [3, 4])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype bool"):
        tf.where(torch.tensor([1, 0]), [1, 2], [3, 4])
    with pytest.raises(ValueError, match="must both be non-None"):
        tf.where([True], x=[1])
    with pytest.raises(errors.InvalidArgumentError, match=r"condition \[3\], then \[2\]"):
        tf.where([True, False, True], [1, 2], [3, 4])
    with pytest.raises(errors.InvalidArgumentError, match="input #1.*float tensor but is a int64"):
        tf.where([True], torch.tensor([1.0]), torch.tensor([1]))
    with pytest.raises(errors.InvalidArgumentError, match="Unhandled input dimensions: 0"):
        tf.where(True)


def test_where_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    tf.where([True, False], x, 0.0).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]


# -- unique -------------------------------------------------------------------------------

@given(x=hnp.arrays(np.int32, st.integers(0, 8), elements=st.integers(-3, 3)))
def test_unique_matches_reference(x):
    y, idx = tf.unique(torch.from_numpy(x))
    ey, eidx = ref.unique(x)
    np.testing.assert_array_equal(y.numpy(), ey)
    np.testing.assert_array_equal(idx.numpy(), eidx)
    assert idx.dtype == torch.int32


def test_unique_details():
    out = tf.unique([3, 1, 3, 2, 1])
    assert out._fields == ("y", "idx")
    assert out.y.tolist() == [3, 1, 2] and out.idx.tolist() == [0, 1, 0, 2, 1]
    y, idx = tf.unique([3.0, np.nan, np.nan])
    assert len(y) == 3 and idx.tolist() == [0, 1, 2]  # each NaN is distinct, as in TF
    assert tf.unique([3, 1], out_idx=tf.int64).idx.dtype == torch.int64
    assert tf.unique([True, False, True]).y.tolist() == [True, False]
    assert tf.unique(torch.zeros(0)).y.shape == (0,)
    with pytest.raises(errors.InvalidArgumentError, match="unique expects a 1D vector"):
        tf.unique([[1]])
