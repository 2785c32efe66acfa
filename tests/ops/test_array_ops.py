"""Shape manipulation: reshape, transpose, concat/stack/split, squeeze, tile, pad, shape."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat.framework import errors

X = torch.arange(6, dtype=torch.int32).reshape(2, 3)


def small_arrays(min_dims=0, max_dims=3, min_side=0):
    return hnp.arrays(np.int32, hnp.array_shapes(min_dims=min_dims, max_dims=max_dims,
                                                 min_side=min_side, max_side=4),
                      elements=st.integers(-9, 9))


# -- reshape / transpose -------------------------------------------------------------

def test_reshape():
    assert tf.reshape(X, [-1]).tolist() == list(range(6))
    assert tf.reshape(X, torch.tensor([3, 2])).shape == (3, 2)
    assert tf.reshape(X, tf.TensorShape([3, 2])).shape == (3, 2)
    assert tf.reshape(tf.constant([5]), []).shape == ()
    assert tf.reshape([1, 2, 3, 4], (2, 2)).dtype == torch.int32
    assert tf.reshape(tf.Variable([1.0, 2.0]), [2, 1]).shape == (2, 1)


@pytest.mark.parametrize("shape,message", [
    ([4], "tensor with 6 values, but the requested shape has 4"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ([-1, 4], "requires a multiple of 4"),
    ([-2, 3], "Size 0 must be non-negative, not -2"),
    ([2.0], "attr 'Tshape' of float"),
])
def test_reshape_errors(shape, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.reshape(X, shape)


@given(x=small_arrays(), data=st.data())
def test_transpose_matches_numpy(x, data):
    perm = data.draw(st.permutations(range(x.ndim)))
    np.testing.assert_array_equal(tf.transpose(x, perm=list(perm)).numpy(), np.transpose(x, perm))
    np.testing.assert_array_equal(tf.transpose(x).numpy(), x.T)


def test_transpose_details():
    assert tf.transpose(X, perm=[-1, 0]).shape == (3, 2)
    assert tf.transpose(X, perm=torch.tensor([1, 0])).shape == (3, 2)
    out = tf.transpose(torch.tensor([[1j]]), conjugate=True)
    assert out.resolve_conj().item() == -1j
    with pytest.raises(errors.InvalidArgumentError, match=r"1 is missing from \{0,0\}"):
        tf.transpose(X, perm=[0, 0])
    with pytest.raises(errors.InvalidArgumentError, match="vector of size 2"):
        tf.transpose(X, perm=[0])


# -- concat / stack / unstack / split ------------------------------------------------------

@given(parts=st.lists(small_arrays(min_dims=2, max_dims=2).filter(lambda a: a.shape[1] == 2)
                      .map(lambda a: a), min_size=1, max_size=4))
def test_concat_matches_numpy(parts):
    np.testing.assert_array_equal(tf.concat(parts, 0).numpy(), np.concatenate(parts, 0))


def test_concat_rules():
    assert tf.concat([X, X], -1).shape == (2, 6)
    assert tf.concat([X, [[1, 2, 3]]], 0).shape == (3, 3)
    assert tf.concat(X, 0) is X
    with pytest.raises(errors.InvalidArgumentError, match="input #1.*int32 tensor but is a float"):
        tf.concat([X, X.float()], 0)
    with pytest.raises(TypeError, match=r"Cannot convert \[3.0\]"):
        tf.concat([[1, 2], [3.0]], 0)
    with pytest.raises(errors.InvalidArgumentError, match="Dimension 1 in both shapes must be equal"):
        tf.concat([X, torch.zeros(2, 2, dtype=torch.int32)], 0)
    with pytest.raises(errors.InvalidArgumentError, match="Can't concatenate scalars"):
        tf.concat([1, 2], 0)
    with pytest.raises(errors.InvalidArgumentError, match=r"range \[-2, 2\), but got 2"):
        tf.concat([X, X], 2)


@given(parts=st.lists(small_arrays(min_dims=1, max_dims=1, min_side=3).map(lambda a: a[:3]),
                      min_size=1, max_size=4), axis=st.integers(-2, 1))
def test_stack_unstack_round_trip(parts, axis):
    stacked = tf.stack(parts, axis=axis)
    np.testing.assert_array_equal(stacked.numpy(), np.stack(parts, axis=axis))
    back = tf.unstack(stacked, axis=axis)
    assert len(back) == len(parts)
    for b, p in zip(back, parts):
        np.testing.assert_array_equal(b.numpy(), p)


def test_stack_packs_one_by_one_when_python_values_do_not_convert_together():
    # TF's stack tries convert_to_tensor(values) and, when that fails, packs each value.
    with pytest.raises(errors.InvalidArgumentError, match=r"values\[0\].shape = \[2\] != "
                                                          r"values\[1\].shape = \[1\]"):
        tf.stack([[1, 2], [3]])
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        tf.stack([True, 1])
    s = tf.IndexedSlices(torch.tensor([1.0]), torch.tensor([0]), [2])
    assert tf.stack([s, s]).tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert tf.stack([tf.TensorShape([2]), tf.TensorShape([3])]).tolist() == [[2], [3]]


def test_stack_rules():
    assert tf.stack([1, 2.0]).dtype == torch.float32  # Python values convert together
    with pytest.raises(TypeError, match="Cannot convert 2.0"):
        tf.stack([1, 2.0], axis=-1)  # ... but only along axis 0, as in TF
    assert tf.stack([[1, 2], [3, 4]], axis=1).tolist() == [[1, 3], [2, 4]]
    assert tf.stack([]).shape == (0,)
    with pytest.raises(TypeError, match="Cannot convert 2.0"):
        tf.stack([torch.tensor(1, dtype=torch.int32), 2.0])
    with pytest.raises(ValueError, match=r"`axis` = 3 not in range \[-3, 3\)"):
        tf.stack([X, X], axis=3)
    with pytest.raises(errors.InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.stack([X, torch.zeros(3, dtype=torch.int32)])
    with pytest.raises(errors.InvalidArgumentError, match="Input shape axis 0 must equal 3"):
        tf.unstack(X, num=3)
    with pytest.raises(ValueError, match="not in range"):
        tf.unstack(torch.tensor(1))


def test_split():
    r = torch.arange(6)
    assert [t.tolist() for t in tf.split(r, 3)] == [[0, 1], [2, 3], [4, 5]]
    assert [t.tolist() for t in tf.split(r, [1, -1, 2])] == [[0], [1, 2, 3], [4, 5]]
    assert [t.tolist() for t in tf.split(r, torch.tensor([2, 4]))] == [[0, 1], [2, 3, 4, 5]]
    assert [t.shape for t in tf.split(X, 3, axis=1)] == [(2, 1)] * 3
    assert [t.shape for t in tf.split(r, [0, 6])] == [(0,), (6,)]


@pytest.mark.parametrize("arg,message", [
    (4, "evenly divide the split dimension"),
    ([1, 2], "Determined shape must either match"),
    ([-1, -1], "only be one -1"),
    ([1, -1, 6], "Got: 7"),
    (0, "must be at least minimum 1"),
])
def test_split_errors(arg, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.split(torch.arange(6), arg)


def test_split_scalar_tensor_is_refused():
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(torch.zeros(4), torch.tensor(2))


# -- expand_dims / squeeze / tile -------------------------------------------------------

def test_expand_dims_and_squeeze():
    assert tf.expand_dims(X, -1).shape == (2, 3, 1)
    assert tf.expand_dims(X, [0]).shape == (1, 2, 3)
    with pytest.raises(errors.InvalidArgumentError, match="expand dim index 3"):
        tf.expand_dims(X, 3)
    z = torch.zeros(1, 2, 1)
    assert tf.squeeze(z).shape == (2,)
    assert tf.squeeze(z, axis=-1).shape == (1, 2)
    assert tf.squeeze(z, axis=[0, 2]).shape == (2,)
    assert tf.squeeze(z, axis=[]).shape == (2,)
    assert tf.squeeze(z, axis=[0, 0]).shape == (2, 1)


@pytest.mark.parametrize("axis,message", [
    (1, r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"),
    (3, "Tried to squeeze dim index 3 for tensor with 3 dimensions"),
])
def test_squeeze_errors(axis, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tf.squeeze(torch.zeros(1, 2, 1), axis=axis)


@given(x=small_arrays(min_dims=1), data=st.data())
def test_tile_matches_numpy(x, data):
    reps = data.draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim))
    np.testing.assert_array_equal(tf.tile(x, reps).numpy(), np.tile(x, reps))


def test_tile_errors():
    with pytest.raises(errors.InvalidArgumentError, match="vector of length 2 but got length 1"):
        tf.tile(X, [2])
    with pytest.raises(errors.InvalidArgumentError, match=r"multiples\[0\] >= 0"):
        tf.tile(X, [-1, 1])


# -- pad ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,np_mode,extra", [("CONSTANT", "constant", 0),
                                               ("REFLECT", "reflect", -1),
                                               ("SYMMETRIC", "symmetric", 0)])
@given(x=small_arrays(min_dims=1, max_dims=4, min_side=2), data=st.data())
def test_pad_matches_numpy(mode, np_mode, extra, x, data):
    pads = [[data.draw(st.integers(0, n + extra)), data.draw(st.integers(0, n + extra))]
            for n in x.shape]
    out = tf.pad(x, pads, mode=mode.lower() if data.draw(st.booleans()) else mode)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, pads, mode=np_mode))


def test_pad_constant_values_and_errors():
    assert tf.pad(X, [[1, 0], [0, 0]], constant_values=9)[0].tolist() == [9, 9, 9]
    fill = torch.tensor(7, dtype=torch.int32)
    assert tf.pad(X, [[0, 1], [0, 0]], constant_values=fill)[2].tolist() == [7, 7, 7]
    assert tf.pad(torch.tensor([True]), [[1, 1]]).tolist() == [False, True, False]
    assert tf.pad(torch.tensor(1), torch.zeros(0, 2, dtype=torch.int32)).item() == 1
    with pytest.raises(TypeError, match="Cannot convert 9.5"):
        tf.pad(X, [[1, 0], [0, 0]], constant_values=9.5)
    with pytest.raises(errors.InvalidArgumentError, match="2, 0 not less than 2"):
        tf.pad(X, [[2, 0], [0, 0]], mode="REFLECT")
    with pytest.raises(errors.InvalidArgumentError, match="no greater than the dimension size"):
        tf.pad(X, [[3, 0], [0, 0]], mode="SYMMETRIC")
    with pytest.raises(ValueError, match="Received `mode` = EDGE"):
        tf.pad(X, [[1, 0], [0, 0]], mode="EDGE")
    with pytest.raises(errors.InvalidArgumentError, match="first dimension of paddings"):
        tf.pad(X, [[1, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="Paddings must be non-negative"):
        tf.pad(X, [[-1, 0], [0, 0]])


def test_pad_gradient_is_the_unpadded_slice():
    x = torch.ones(2, 3, requires_grad=True)
    tf.pad(x * torch.arange(3.0), [[1, 1], [2, 1]], mode="SYMMETRIC").sum().backward()
    # each element appears once in the body plus once per mirror copy that reaches it
    assert x.grad.shape == (2, 3) and x.grad.sum().item() > 0


# -- shape / size / rank / identity ---------------------------------------------------

def test_shape_size_rank():
    assert tf.shape(X).tolist() == [2, 3] and tf.shape(X).dtype == torch.int32
    assert tf.shape(X, out_type=tf.int64).dtype == torch.int64
    assert tf.shape(3.0).tolist() == []
    assert tf.size(X).item() == 6 and tf.size(X).dtype == torch.int32
    assert tf.size(X, out_type=tf.float32).dtype == torch.float32
    assert tf.rank(X).item() == 2 and tf.rank(3.0).item() == 0
    assert tf.shape([[1, 2]]).tolist() == [1, 2]
    v = tf.Variable(torch.zeros(4, 5))
    assert tf.shape(v).tolist() == [4, 5] and tf.size(v).item() == 20
    with pytest.raises(errors.InvalidArgumentError, match="'out_type' of float"):
        tf.shape(X, out_type=tf.float32)
    # tf.reshape(x, tf.shape(y)) round trip
    assert tf.reshape(torch.arange(6), tf.shape(X)).shape == (2, 3)


def test_identity_is_a_new_differentiable_tensor():
    x = torch.tensor([1.0], requires_grad=True)
    y = tf.identity(x)
    assert y is not x and y.tolist() == [1.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    assert tf.identity(tf.Variable([2.0])).tolist() == [2.0]
    assert tf.stop_gradient(x).requires_grad is False
