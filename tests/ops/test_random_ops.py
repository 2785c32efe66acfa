"""`tf.random`: seeding rules, shapes, dtypes, bounds and distributions."""

import pytest
import torch

import tfcompat as tf
from tfcompat import random as tfr
from tfcompat.framework import device as device_lib
from tfcompat.framework import errors

SAMPLERS = [
    ("uniform", lambda shape, **kw: tfr.uniform(shape, **kw)),
    ("normal", lambda shape, **kw: tfr.normal(shape, **kw)),
    ("truncated_normal", lambda shape, **kw: tfr.truncated_normal(shape, **kw)),
]


@pytest.fixture(autouse=True)
def _no_global_seed():
    tfr.set_seed(None)
    yield
    tfr.set_seed(None)


@pytest.mark.parametrize("name,draw", SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_global_seed_makes_sequences_reproducible(name, draw):
    tfr.set_seed(5)
    a, b = draw([3]), draw([3])
    tfr.set_seed(5)
    assert torch.equal(a, draw([3])) and torch.equal(b, draw([3]))
    assert not torch.equal(a, b), "each call of an op gets its own op seed"
    tfr.set_seed(6)
    assert not torch.equal(a, draw([3]))


@pytest.mark.parametrize("name,draw", SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_op_seed_gives_a_sequence_that_set_seed_restarts(name, draw):
    tfr.set_seed(5)
    a, b = draw([2], seed=1), draw([2], seed=1)
    assert not torch.equal(a, b), "repeated calls with one op seed continue its sequence"
    tfr.set_seed(5)
    assert torch.equal(a, draw([2], seed=1)) and torch.equal(b, draw([2], seed=1))


def test_op_seed_without_global_seed_is_reproducible_after_reset():
    a = tfr.uniform([4], seed=7)
    tfr.set_seed(None)  # restarts the sequences, TF's default global seed applies
    assert torch.equal(a, tfr.uniform([4], seed=7))
    assert not torch.equal(tfr.uniform([4], seed=7), tfr.uniform([4], seed=8))


def test_unseeded_draws_follow_torch_default_generator():
    torch.manual_seed(0)
    a = tfr.uniform([4])
    torch.manual_seed(0)
    assert torch.equal(a, tfr.uniform([4]))


def test_uniform_floats():
    x = tfr.uniform([20000], 5.0, 6.0, seed=1)
    assert x.dtype == torch.float32 and x.min() >= 5.0 and x.max() < 6.0
    assert abs(x.mean().item() - 5.5) < 0.01
    assert tfr.uniform([3], 5, 6).dtype == torch.float32
    b = tfr.uniform([2, 2], torch.tensor([0.0, 10.0]), 11.0)
    assert torch.all(b[:, 1] >= 10.0)
    assert tfr.uniform([2], dtype=tf.float16).dtype == torch.float16
    assert tfr.uniform([2], dtype=tf.bfloat16).dtype == torch.bfloat16
    assert tfr.uniform([2], dtype=tf.float64).dtype == torch.float64
    assert tfr.uniform([]).shape == ()
    assert tfr.uniform(torch.tensor([2, 3])).shape == (2, 3)
    assert tfr.uniform(tf.TensorShape([2])).shape == (2,)


def test_uniform_ints():
    x = tfr.uniform([5000], 0, 3, dtype=tf.int32, seed=1)
    assert x.dtype == torch.int32 and set(x.tolist()) == {0, 1, 2}
    y = tfr.uniform([10], torch.tensor(-2, dtype=torch.int64), torch.tensor(2, dtype=torch.int64),
                    dtype=tf.int64)
    assert y.dtype == torch.int64 and y.min() >= -2 and y.max() < 2


@pytest.mark.parametrize("kwargs,error,message", [
    ({"dtype": tf.int32}, ValueError, "Must specify maxval for integer dtype tf.int32"),
    ({"minval": 3, "maxval": 3, "dtype": tf.int32}, errors.InvalidArgumentError,
     "Need minval < maxval, got 3 >= 3"),
    ({"minval": 0.0, "maxval": 3.0, "dtype": tf.int32}, TypeError, "Cannot convert 0.0"),
    ({"minval": [0, 1], "maxval": 3, "dtype": tf.int32}, errors.InvalidArgumentError,
     "minval must be 0-D"),
    ({"maxval": 3, "dtype": tf.int8}, ValueError, "Accepted dtypes are"),
    ({"dtype": tf.bool}, ValueError, "got invalid value <dtype: 'bool'>"),
    ({"minval": torch.tensor(0.0), "dtype": tf.float64}, ValueError,
     "Tensor conversion requested dtype float64"),
])
def test_uniform_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        tfr.uniform([2], **kwargs)


@pytest.mark.parametrize("shape,message", [(2, "must be a vector"), ([-2], "Dimension -2")])
def test_random_shape_errors(shape, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tfr.normal(shape)


def test_normal_moments_and_parameters():
    x = tfr.normal([40000], mean=1.0, stddev=2.0, seed=3)
    assert abs(x.mean().item() - 1.0) < 0.05 and abs(x.std().item() - 2.0) < 0.05
    m = tfr.normal([2], mean=torch.tensor([0.0, 100.0]))
    assert m[1] > 50
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        tfr.normal([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        tfr.normal([2], mean=torch.tensor(0.0, dtype=torch.float64))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64])
def test_truncated_normal_stays_within_two_stddev(dtype):
    x = tfr.truncated_normal([40000], mean=3.0, stddev=0.5, dtype=dtype, seed=4)
    assert x.dtype == dtype.as_torch
    z = (x.double() - 3.0) / 0.5
    assert z.abs().max() <= 2.0 + 1e-2
    # the truncated standard normal on [-2, 2] has variance ~0.7737
    assert abs(z.var().item() - 0.7737) < 0.03 and abs(z.mean().item()) < 0.03


def test_truncated_normal_rejects_ints():
    with pytest.raises(TypeError):
        tfr.truncated_normal([5], dtype=tf.int32)


def test_set_seed_validation():
    tfr.set_seed(2 ** 70)  # truncated modulo 2**31 - 1, as TF
    tfr.set_seed(-1)
    with pytest.raises(TypeError, match="must be an integer"):
        tfr.set_seed("a")


def test_random_ops_follow_tf_device():
    with tf.device("/cpu:0"):
        for t in (tfr.uniform([2]), tfr.normal([2], seed=1), tfr.truncated_normal([2]),
                  tfr.uniform([2], 0, 5, dtype=tf.int32)):
            assert t.device == device_lib.current_torch_device()


def test_default_bounds_and_moments_make_no_tensors(monkeypatch):
    from tfcompat.ops import random_ops

    def converting(*args, **kwargs):
        raise AssertionError("a default bound or moment was converted to a tensor")

    monkeypatch.setattr(random_ops, "convert_to_tensor", converting)
    for unit in ({}, {"minval": 0.0, "maxval": 1.0}, {"minval": 0, "maxval": 1.0}):
        assert tfr.uniform([3], **unit).shape == (3,)
    for moments in ({}, {"mean": 0, "stddev": 1}, {"mean": 0.0, "stddev": 1.0}):
        for dtype in (tf.float16, tf.float32, tf.float64):
            assert tfr.normal([3], dtype=dtype, **moments).dtype == dtype.as_torch
            assert tfr.truncated_normal([3], dtype=dtype, **moments).dtype == dtype.as_torch


@pytest.mark.parametrize("dtype", [tf.bfloat16, tf.float16, tf.float32, tf.float64])
def test_default_bounds_and_moments_draw_the_same_bits_as_explicit_ones(dtype):
    def draws(**kwargs):
        tfr.set_seed(11)
        out = [tfr.uniform([64], dtype=dtype, seed=1, **kwargs.get("u", {})),
               tfr.normal([64], dtype=dtype, seed=2, **kwargs.get("n", {})),
               tfr.truncated_normal([64], dtype=dtype, seed=3, **kwargs.get("n", {}))]
        tfr.set_seed(None)
        return out

    defaults = draws()
    # Tensor bounds and moments take TF's arithmetic path: `u * (1 - 0) + 0`, `z * 1 + 0`.
    one, zero = torch.ones((), dtype=dtype.as_torch), torch.zeros((), dtype=dtype.as_torch)
    explicit = draws(u={"minval": zero, "maxval": one}, n={"mean": zero, "stddev": one})
    for a, b in zip(defaults, explicit):
        assert torch.equal(a, b) and torch.equal(torch.signbit(a), torch.signbit(b))
