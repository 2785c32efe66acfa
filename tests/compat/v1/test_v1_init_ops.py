"""TF 1's initializers (`tf.compat.v1.*_initializer`, `tf.compat.v1.initializers`).

Statistical checks draw n values and allow 6 standard errors: the mean of n draws has
standard error `sigma / sqrt(n)`, a sample standard deviation about `sigma / sqrt(2 n)`
(so a correct implementation fails with probability ~1e-9; a wrong constant by 10% fails
always at these n). TF's messages were recorded from TF 2.21.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.compat.v1 import init_ops

tf1 = tf.compat.v1
N = 40000
Z = 6.0


def _check_moments(x: np.ndarray, mean: float, std: float) -> None:
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) <= Z * std / math.sqrt(n)
    assert abs(x.std() - std) <= Z * std / math.sqrt(2 * n)


# The standard deviation of a unit normal truncated to [-2, 2].
TRUNC = 0.87962566103423978


def test_constant_initializers() -> None:
    np.testing.assert_array_equal(tf1.zeros_initializer()([2, 3]).numpy(), np.zeros((2, 3)))
    ones = tf1.ones_initializer(dtype=tf.int32)([2])
    assert ones.dtype == tf.int32 and ones.numpy().tolist() == [1, 1]
    assert tf1.ones_initializer()([2], dtype=tf.bool).numpy().tolist() == [True, True]
    np.testing.assert_array_equal(tf1.constant_initializer(2.5)([2, 2]).numpy(), np.full((2, 2), 2.5))
    np.testing.assert_array_equal(tf1.constant_initializer([[1, 2], [3, 4]])([4]).numpy(), [1, 2, 3, 4])
    assert tf1.constant_initializer(3)([1], dtype=tf.float64).dtype == tf.float64


def test_constant_errors() -> None:
    with pytest.raises(TypeError, match="Invalid type for initial value=.* of type: object. Expected "
                                        "Python scalar, list or tuple of values, or numpy.ndarray."):
        tf1.constant_initializer(object())
    with pytest.raises(TypeError, match=r"Eager execution of tf.constant with unsupported shape"):
        tf1.constant_initializer([1, 2, 3])([2, 2])
    with pytest.raises(TypeError, match=r"Expected Tensor \[1. 2. 3.\] \(converted from \[1, 2, 3\]\) "
                                        r"with shape \(2, 2\), but got shape \(3,\)."):
        tf1.constant_initializer([1, 2, 3], verify_shape=True)([2, 2])


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_random_normal_and_truncated(dtype) -> None:
    x = tf1.random_normal_initializer(mean=1.0, stddev=2.0, seed=3)([N], dtype=dtype)
    assert x.dtype == dtype
    _check_moments(x.numpy(), 1.0, 2.0)
    t = tf1.truncated_normal_initializer(mean=-1.0, stddev=0.5, seed=4, dtype=dtype)([N]).numpy()
    assert np.all(np.abs(t + 1.0) <= 2 * 0.5)
    _check_moments(t, -1.0, 0.5 * TRUNC)


def test_random_uniform() -> None:
    x = tf1.random_uniform_initializer(seed=1)([N]).numpy()  # v1 defaults: [0, 1)
    assert x.min() >= 0.0 and x.max() < 1.0
    _check_moments(x, 0.5, 1 / math.sqrt(12))
    ints = tf1.random_uniform_initializer(0, 10, dtype=tf.int32)([1000]).numpy()
    assert ints.dtype == np.int32 and ints.min() >= 0 and ints.max() < 10
    with pytest.raises(ValueError, match="^Must specify maxval for integer dtype tf.int32$"):
        tf1.random_uniform_initializer()([2], dtype=tf.int32)


def test_float_only_errors_match_tf() -> None:
    for cls in (tf1.random_normal_initializer, tf1.truncated_normal_initializer,
                tf1.variance_scaling_initializer, tf1.uniform_unit_scaling_initializer,
                tf1.orthogonal_initializer, tf1.initializers.identity):
        with pytest.raises(ValueError, match="^Argument `dtype` is expected to be floating point. "
                                             "Received: <dtype: 'int32'>.$"):
            cls(dtype=tf.int32)
    with pytest.raises(TypeError, match="^Cannot convert 1.0 to EagerTensor of dtype int32$"):
        tf1.random_normal_initializer(mean=1)([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="^Cannot convert -1.224744871391589 to EagerTensor of dtype int32$"):
        tf1.glorot_uniform_initializer()([2, 2], dtype=tf.int32)


def test_variance_scaling_defaults_and_errors() -> None:
    init = tf1.variance_scaling_initializer()
    assert init.get_config() == {"scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal",
                                 "seed": None, "dtype": "float32"}
    assert tf1.variance_scaling_initializer(distribution="Normal").get_config()["distribution"] == "normal"
    with pytest.raises(ValueError, match="^Argument `scale` must be a positive float. Received: 0.0$"):
        tf1.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match=r"^Argument `mode` should be one of \('fan_in', 'fan_out', "
                                         r"'fan_avg'\). Received: x$"):
        tf1.variance_scaling_initializer(mode="x")
    with pytest.raises(ValueError, match="Argument `distribution` should be one of .* Received: x$"):
        tf1.variance_scaling_initializer(distribution="x")


@pytest.mark.parametrize("distribution", ["normal", "truncated_normal", "untruncated_normal", "uniform"])
@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
def test_variance_scaling_fans_of_a_conv_kernel(distribution: str, mode: str) -> None:
    shape = [5, 5, 16, 32]  # receptive field 25: fan_in 400, fan_out 800
    fan = {"fan_in": 400, "fan_out": 800, "fan_avg": 600}[mode]
    x = tf1.variance_scaling_initializer(scale=2.0, mode=mode, distribution=distribution,
                                         seed=7)(shape).numpy()
    assert x.shape == tuple(shape)
    std = math.sqrt(2.0 / fan)
    if distribution == "uniform":
        limit = math.sqrt(3.0) * std
        assert np.all(np.abs(x) <= limit)
    elif distribution != "untruncated_normal":
        assert np.all(np.abs(x) <= 2 * std / TRUNC)
    _check_moments(x, 0.0, std)  # the truncation correction gives the requested variance


def test_glorot_he_lecun() -> None:
    shape = [200, 300]
    cases = [(tf1.glorot_uniform_initializer(seed=1), 2.0 / 500),
             (tf1.glorot_normal_initializer(seed=1), 2.0 / 500),
             (tf1.initializers.he_normal(seed=1), 2.0 / 200),
             (tf1.initializers.he_uniform(seed=1), 2.0 / 200),
             (tf1.initializers.lecun_normal(seed=1), 1.0 / 200),
             (tf1.initializers.lecun_uniform(seed=1), 1.0 / 200)]
    for init, variance in cases:
        _check_moments(init(shape).numpy(), 0.0, math.sqrt(variance))
    assert tf1.glorot_uniform_initializer().get_config() == {"seed": None, "dtype": "float32"}
    assert tf1.initializers.he_normal(seed=3).get_config() == {
        "scale": 2.0, "mode": "fan_in", "distribution": "truncated_normal", "seed": 3, "dtype": "float32"}


def test_uniform_unit_scaling() -> None:
    x = tf1.uniform_unit_scaling_initializer(factor=1.5, seed=2)([300, 100]).numpy()
    limit = 1.5 * math.sqrt(3 / 300)
    assert np.all(np.abs(x) <= limit)
    _check_moments(x, 0.0, limit / math.sqrt(3))


def test_orthogonal_and_identity() -> None:
    q = tf1.orthogonal_initializer(gain=2.0, seed=1)([3, 4, 5]).numpy().reshape(12, 5)
    np.testing.assert_allclose(q.T @ q, 4.0 * np.eye(5), atol=1e-5)
    wide = tf1.orthogonal_initializer(seed=1)([3, 6]).numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-5)
    np.testing.assert_array_equal(tf1.initializers.identity(gain=2.0)([2, 3]).numpy(),
                                  [[2, 0, 0], [0, 2, 0]])
    for init in (tf1.orthogonal_initializer(), tf1.initializers.identity()):
        with pytest.raises(ValueError, match=r"The tensor to initialize, specified by argument `shape` "
                                             r"must be at least two-dimensional. Received shape=\[3\]"):
            init([3])


def test_seed_behaviour() -> None:
    for make in (lambda: tf1.random_normal_initializer(seed=5),
                 lambda: tf1.truncated_normal_initializer(seed=5),
                 lambda: tf1.random_uniform_initializer(seed=5), lambda: tf1.orthogonal_initializer(seed=5),
                 lambda: tf1.variance_scaling_initializer(seed=5, distribution="uniform")):
        tf.random.set_seed(11)
        a = make()([4, 4]).numpy()
        a2 = make()([4, 4]).numpy()
        tf.random.set_seed(11)
        b = make()([4, 4]).numpy()
        b2 = make()([4, 4]).numpy()
        np.testing.assert_array_equal(a, b)   # same seeds: the same values
        np.testing.assert_array_equal(a2, b2)
        assert not np.array_equal(a, a2)      # a stateful op: the next call draws new values


def test_config_round_trips() -> None:
    for init in (tf1.zeros_initializer(dtype=tf.float64), tf1.ones_initializer(),
                 tf1.constant_initializer([1.0, 2.0]), tf1.random_normal_initializer(1.0, 2.0, seed=3),
                 tf1.random_uniform_initializer(-1.0, 2.0, seed=4), tf1.truncated_normal_initializer(seed=1),
                 tf1.uniform_unit_scaling_initializer(2.0), tf1.variance_scaling_initializer(3.0, "fan_out"),
                 tf1.orthogonal_initializer(0.5), tf1.glorot_uniform_initializer(seed=2),
                 tf1.glorot_normal_initializer(), tf1.initializers.identity(3.0)):
        clone = type(init).from_config(init.get_config())
        assert type(clone) is type(init) and clone.get_config() == init.get_config()


def test_partition_info_uses_the_full_shape() -> None:
    class Partition:
        full_shape = [1000, 10]
        var_offset = [500, 0]
    x = tf1.variance_scaling_initializer(mode="fan_in", distribution="uniform", seed=1)(
        [500, 10], partition_info=Partition()).numpy()
    assert np.all(np.abs(x) <= math.sqrt(3.0 / 1000))
    assert np.abs(x).max() > math.sqrt(3.0 / 1000) * 0.9
    part = tf1.initializers.identity()([2, 10], partition_info=type(
        "P", (), {"full_shape": [10, 10], "var_offset": [3, 0]})()).numpy()
    np.testing.assert_array_equal(part, np.eye(10)[3:5])


def test_v1_names() -> None:
    for path, names in init_ops.V1_NAMES.items():
        namespace = tf1 if not path else getattr(tf1, path)
        for name, obj in names.items():
            assert getattr(namespace, name) is obj, f"{path}.{name}"
    assert tf1.initializers.zeros is tf1.zeros_initializer
    assert tf1.initializers.glorot_uniform is tf1.glorot_uniform_initializer
    assert tf1.identity is tf.identity  # the op, not the initializer


def test_initializers_build_variables() -> None:
    var = tf.Variable(tf1.glorot_uniform_initializer(seed=1)([3, 2]), name="init_ops/kernel")
    assert var.shape == (3, 2) and var.dtype == tf.float32
