"""`tf.keras.activations`: names, get/serialize/deserialize, and laws beyond the goldens
(`tests/keras/golden_leaf` pins the values and gradients against tf_keras 2.21)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat.keras import activations as A

_NAMES = ["relu", "sigmoid", "softmax", "tanh", "elu", "selu", "softplus", "softsign", "swish",
          "gelu", "exponential", "hard_sigmoid", "linear", "mish"]


@pytest.mark.parametrize("name", _NAMES)
def test_serialize_get_round_trip(name):
    fn = getattr(A, name)
    assert A.serialize(fn) == name
    assert A.get(name) is fn
    assert A.deserialize(name) is fn
    assert A.get({"module": "builtins", "class_name": "function", "config": name,
                  "registered_name": "function"}) is fn


def test_tf_keras_namespace_and_hidden_names():
    assert sorted(A.__all__) == sorted(_NAMES + ["get", "serialize", "deserialize"])
    assert A.get("silu") is tf.nn.silu and A.serialize(tf.nn.silu) == "swish"
    assert A.get("relu6") is tf.nn.relu6 and A.get("log_softmax") is tf.nn.log_softmax
    assert A.get(None) is A.linear


def test_errors_are_tf_keras():
    with pytest.raises(ValueError, match="Unknown activation function 'nope' cannot be"):
        A.get("nope")
    with pytest.raises(TypeError, match="Could not interpret activation function identifier"):
        A.get(3)
    with pytest.raises(ValueError, match="Cannot apply softmax to a tensor that is 1D"):
        A.softmax(tf.constant([1.0]))


_arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=5),
                     elements=st.floats(-30, 30))


@given(_arrays, st.floats(0, 1), st.one_of(st.none(), st.floats(0.5, 10)), st.floats(-2, 2))
def test_relu_matches_its_definition(x, alpha, max_value, threshold):
    got = A.relu(tf.constant(x), alpha=alpha, max_value=max_value, threshold=threshold).numpy()
    # tf_keras's composition: a mask at the threshold, a clip, then minus alpha * relu(t - x).
    pos = np.where(x > threshold, x, 0.0) if threshold != 0 else np.maximum(x, 0.0)
    if max_value is not None:
        pos = np.clip(pos, 0.0, max_value)
    if alpha != 0 and not (max_value is None and threshold == 0):
        pos = pos - alpha * np.maximum(threshold - x, 0.0)
    elif alpha != 0:
        pos = np.where(x > 0, x, alpha * x)
    np.testing.assert_allclose(got, pos, rtol=1e-15, atol=1e-15)


@given(_arrays)
def test_hard_sigmoid_is_tf_keras_2_slope(x):
    got = A.hard_sigmoid(tf.constant(x)).numpy()
    np.testing.assert_array_equal(got, np.clip(x * 0.2 + 0.5, 0.0, 1.0))


@given(hnp.arrays(np.float64, (3, 4), elements=st.floats(-20, 20)))
def test_softmax_rows_sum_to_one_and_remember_logits(x):
    t = tf.constant(x)
    out = A.softmax(t)
    np.testing.assert_allclose(out.numpy().sum(axis=-1), 1.0, rtol=1e-12)
    assert out._keras_logits is t
    np.testing.assert_allclose(A.softmax(t, axis=(0, 1)).numpy().sum(), 1.0, rtol=1e-12)


def test_gradients_flow_through_the_ops():
    v = tf.Variable([-1.0, 0.5, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(A.mish(v) + A.elu(v, alpha=0.5) + A.relu(v, max_value=1.0))
    g = tape.gradient(y, v)
    assert g.shape == (3,) and bool(torch.isfinite(g).all())


def test_linear_returns_its_input():
    x = np.array([1.0])
    assert A.linear(x) is x
