"""zeros, ones, fill, range, one_hot and the `*_like` ops."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import op_reference as ref
import tfcompat as tf
from tfcompat.framework import device as device_lib
from tfcompat.framework import errors


def test_zeros_ones_defaults_and_shapes():
    assert tf.zeros([2, 3]).dtype == torch.float32 and tf.zeros([2, 3]).shape == (2, 3)
    assert tf.zeros(3, tf.int32).tolist() == [0, 0, 0]
    assert tf.zeros(torch.tensor([2])).shape == (2,)
    assert tf.zeros(tf.TensorShape([2, 1])).shape == (2, 1)
    assert tf.zeros([]).shape == ()
    assert tf.ones((2,), dtype="int64").tolist() == [1, 1]
    assert tf.ones([2], tf.bool).tolist() == [True, True]
    assert tf.zeros([2], tf.bool).tolist() == [False, False]
    with pytest.raises(errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.zeros([-1])
    with pytest.raises(TypeError, match=r"Cannot convert \[2.0\]"):
        tf.zeros([2.0])
    with pytest.raises(ValueError, match="partially known"):
        tf.zeros(tf.TensorShape([None, 2]))


def test_like_ops():
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    assert tf.zeros_like(x).dtype == torch.int32
    assert tf.zeros_like(x, dtype=tf.float32).dtype == torch.float32
    assert tf.ones_like([1.0, 2.0]).tolist() == [1.0, 1.0]
    assert tf.ones_like([True]).tolist() == [True]
    assert tf.ones_like(tf.Variable([[1.0]])).shape == (1, 1)


def test_fill():
    assert tf.fill([2, 2], 3).dtype == torch.int32
    assert tf.fill([2], 3.0).dtype == torch.float32
    assert tf.fill([2], True).tolist() == [True, True]
    assert tf.fill([2], torch.tensor(3, dtype=torch.int64)).dtype == torch.int64
    assert tf.fill(torch.tensor([2], dtype=torch.int64), 1.0).shape == (2,)
    with pytest.raises(errors.InvalidArgumentError, match="value must represent a scalar"):
        tf.fill([2], [1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="Dimension -2 must be >= 0"):
        tf.fill([-2], 1)


def test_fill_is_differentiable_in_value():
    v = torch.tensor(2.0, requires_grad=True)
    tf.fill([3, 2], v).sum().backward()
    assert v.grad.item() == 6.0


# -- range -----------------------------------------------------------------------------

def test_range_dtype_inference():
    assert tf.range(5).dtype == torch.int32
    assert tf.range(1, 2.5, 0.5).dtype == torch.float32
    assert tf.range(torch.tensor(3, dtype=torch.int64)).dtype == torch.int64
    assert tf.range(torch.tensor(3, dtype=torch.int64), 5.5).dtype == torch.float32
    assert tf.range(torch.tensor(1.0, dtype=torch.float64), 3).dtype == torch.float64
    assert tf.range(np.int64(3)).dtype == torch.int64
    assert tf.range(2 ** 33, 2 ** 33 + 2).dtype == torch.int64
    assert tf.range(5, dtype=tf.float64).dtype == torch.float64
    assert tf.range(3, dtype=tf.float16).tolist() == [0.0, 1.0, 2.0]
    assert tf.range(start=3).tolist() == [0, 1, 2]
    assert tf.range(0, 5, torch.tensor(2, dtype=torch.int64)).tolist() == [0, 2, 4]


def test_range_float_values_are_tfs():
    # TF's kernel computes start + i * delta in float32.
    assert tf.range(0, 1, 0.1)[9].item() == np.float32(0.90000004).item()
    d = np.float32(-0.3)
    expected = np.float32(1.0) + np.arange(4).astype(np.float32) * d  # checked against TF 2.21
    np.testing.assert_array_equal(tf.range(1.0, 0.0, -0.3).numpy(), expected)


@given(start=st.integers(-20, 20), span=st.integers(0, 40), delta=st.integers(1, 7),
       negative=st.booleans())
def test_range_ints_match_reference(start, span, delta, negative):
    limit = start - span if negative else start + span
    d = -delta if negative else delta
    np.testing.assert_array_equal(tf.range(start, limit, d).numpy(),
                                  ref.tf_range(start, limit, d, np.int32))


@given(start=st.integers(-40, 40).map(lambda i: i / 8), span=st.integers(0, 80).map(lambda i: i / 8),
       delta=st.sampled_from([0.1, 0.25, 0.3, 0.5, 1.5]))
def test_range_floats_match_reference(start, span, delta):
    out = tf.range(start, start + span, delta)
    np.testing.assert_array_equal(out.numpy(), ref.tf_range(start, start + span, delta, np.float32))


@pytest.mark.parametrize("args,kwargs,error,message", [
    ((5, 1), {}, errors.InvalidArgumentError, "Requires start <= limit when delta > 0: 5/1"),
    ((1, 5, -1), {}, errors.InvalidArgumentError, "Requires start >= limit when delta < 0: 1/5"),
    ((0, 5, 0), {}, errors.InvalidArgumentError, "Requires delta != 0"),
    ((0.5, 3), {"dtype": tf.int32}, TypeError, "Cannot convert 0.5"),
    ((3,), {"dtype": tf.uint8}, errors.InvalidArgumentError, "'Tidx' of uint8"),
    ((3,), {"dtype": tf.bool}, TypeError, "Cannot convert 0 to EagerTensor of dtype bool"),
])
def test_range_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        tf.range(*args, **kwargs)


def test_creation_follows_tf_device():
    with tf.device("/cpu:0"):
        for t in (tf.zeros([1]), tf.ones([1]), tf.fill([1], 2.0), tf.range(2)):
            assert t.device == device_lib.current_torch_device()


# -- one_hot ---------------------------------------------------------------------------

@given(indices=st.lists(st.integers(-2, 6), min_size=0, max_size=6), depth=st.integers(0, 5),
       axis=st.sampled_from([-1, 0, 1]))
def test_one_hot_matches_reference(indices, depth, axis):
    idx = np.array(indices, dtype=np.int32)
    out = tf.one_hot(idx, depth, axis=axis)
    assert out.dtype == torch.float32
    np.testing.assert_array_equal(out.numpy(), ref.one_hot(idx, depth, axis=axis))


def test_one_hot_dtype_rules():
    assert tf.one_hot([0, 2], 3, on_value=5, off_value=-1).dtype == torch.int32
    assert tf.one_hot([0, 2], 3, on_value=5.0)[0].tolist() == [5.0, 0.0, 0.0]
    assert tf.one_hot([0, 2], 3, dtype=tf.int64).dtype == torch.int64
    assert tf.one_hot(torch.tensor([0, 2], dtype=torch.uint8), 3).shape == (2, 3)
    assert tf.one_hot(1, 3).tolist() == [0.0, 1.0, 0.0]
    assert tf.one_hot([[0, 2]], 3, axis=1).shape == (1, 3, 2)
    assert tf.one_hot([1], torch.tensor(3)).shape == (1, 3)
    on = torch.tensor(2.0, dtype=torch.float64)
    assert tf.one_hot([1], 3, on_value=on).dtype == torch.float64
    with pytest.raises(TypeError, match="of on_value does not match dtype <dtype: 'float32'> "
                                        "of off_value"):
        tf.one_hot([0], 3, on_value=5, off_value=0.0)
    with pytest.raises(TypeError, match="does not match dtype parameter"):
        tf.one_hot([0], 3, on_value=1.0, dtype=tf.int32)
    with pytest.raises(errors.InvalidArgumentError, match="'TI' of float"):
        tf.one_hot([0.0], 3)
    with pytest.raises(errors.InvalidArgumentError, match="depth must be non-negative"):
        tf.one_hot([0], -1)
    with pytest.raises(errors.InvalidArgumentError, match=r"-1 or between \[0, 2\)"):
        tf.one_hot([0], 3, axis=-2)


def test_one_hot_gradient_flows_to_on_off_values():
    on = torch.tensor(1.0, requires_grad=True)
    off = torch.tensor(0.0, requires_grad=True)
    tf.one_hot([0, 1, 5], 3, on_value=on, off_value=off).sum().backward()
    assert on.grad.item() == 2.0 and off.grad.item() == 7.0
