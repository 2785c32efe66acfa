"""Layers under the mixed_float16 / mixed_bfloat16 global policies (tf_keras 2.21): compute
in half, float32 variables (AutoCastVariable where tf_keras makes one), float32 gradients,
shape laws, configs, the functional API, MirroredStrategy, and a LossScaleOptimizer training
loop. Numbers vs tf_keras are in tests/keras/golden/cases_mixed.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.mixed_precision import autocast_variable as acv
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

mp = tf.keras.mixed_precision
L = tf.keras.layers
POLICIES = {"mixed_float16": torch.float16, "mixed_bfloat16": torch.bfloat16}
X4 = np.random.default_rng(0).uniform(-1, 1, (2, 4, 4, 3)).astype(np.float32)

# (layer, input, whether tf_keras wraps its weights as AutoCastVariables)
LAYERS = {
    "dense": (lambda: L.Dense(3), X4, True),
    "conv2d": (lambda: L.Conv2D(2, 3), X4, True),
    "batchnorm": (lambda: L.BatchNormalization(), X4, False),
    "embedding": (lambda: L.Embedding(5, 3), np.array([[1, 2], [3, 4]], np.int32), False),
    "softmax": (lambda: L.Activation("softmax"), X4, False),
    "dense_softmax": (lambda: L.Dense(3, activation="softmax"), X4, True),
}


@pytest.fixture(autouse=True)
def _float32_after():
    try:
        yield
    finally:
        mp.set_global_policy("float32")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", LAYERS)
def test_half_compute_float32_variables(policy, name):
    mp.set_global_policy(policy)
    make, x, autocast = LAYERS[name]
    layer = make()
    inp = tf.constant(x)
    with tf.GradientTape() as tape:
        out = layer(inp)
        loss = tf.reduce_sum(tf.cast(out, tf.float32))
    assert out.dtype == POLICIES[policy]
    assert layer(inp, training=True).dtype == POLICIES[policy]
    assert layer.dtype_policy.name == policy and layer.dtype == "float32"
    assert layer.compute_dtype == policy[6:] and layer.variable_dtype == "float32"
    assert all(w.dtype == tf.float32 for w in layer.weights)
    if layer.weights:
        assert acv.is_autocast_variable(layer.weights[0]) == autocast
    for g in tape.gradient(loss, layer.trainable_weights):
        assert tf.convert_to_tensor(g).dtype == torch.float32
    assert tuple(layer.compute_output_shape(inp.shape)) == tuple(out.shape)


@pytest.mark.parametrize("policy", POLICIES)
def test_dtype_argument_overrides_the_global_policy(policy):
    mp.set_global_policy(policy)
    layer = L.Dense(2, dtype="float32")
    assert layer(tf.constant(X4)).dtype == torch.float32 and layer.dtype_policy.name == "float32"
    layer = L.Dense(2, dtype=mp.Policy("mixed_float16"))
    mp.set_global_policy("float32")
    assert layer(tf.constant(X4)).dtype == torch.float16


@pytest.mark.parametrize("policy", POLICIES)
def test_config_round_trip_keeps_the_policy(policy):
    mp.set_global_policy(policy)
    layer = L.Dense(3)
    config = layer.get_config()
    assert config["dtype"]["class_name"] == "Policy"
    assert config["dtype"]["config"] == {"name": policy}
    mp.set_global_policy("float32")
    again = L.Dense.from_config(config)
    assert again.dtype_policy.name == policy


@pytest.mark.parametrize("policy", POLICIES)
def test_functional_model(policy):
    mp.set_global_policy(policy)
    inputs = tf.keras.Input((5,))
    hidden = L.Dense(4, activation="relu")(inputs)
    out = L.Activation("softmax", dtype="float32")(L.Dense(3)(hidden))
    model = tf.keras.Model(inputs, out)
    assert hidden.dtype == POLICIES[policy] and out.dtype == torch.float32
    y = model(tf.constant(np.ones((2, 5), np.float32)))
    assert y.dtype == torch.float32
    np.testing.assert_allclose(y.numpy().sum(axis=1), 1.0, rtol=1e-6)


def test_policy_api():
    assert mp.global_policy().name == "float32"
    mp.set_global_policy("mixed_float16")
    assert mp.global_policy().compute_dtype == "float16"
    assert mp.global_policy().variable_dtype == "float32"
    with pytest.raises(ValueError, match="floating-point policies"):
        mp.set_global_policy("int32")
    assert mp.global_policy().name == "mixed_float16"  # unchanged by the failed call
    with pytest.raises(ValueError, match="'_float32_vars' have been removed"):
        mp.Policy("float16_with_float32_vars")
    with pytest.raises(TypeError, match="must be a string, not a DType"):
        mp.Policy(tf.float16)
    mp.set_global_policy(None)
    assert mp.global_policy().name == "float32"


def test_mixed_training_loop_with_loss_scaling():
    """A mixed_float16 model trained with LossScaleOptimizer: the first steps overflow and
    are skipped, later ones train; the variables stay float32 and finite."""
    mp.set_global_policy("mixed_float16")
    tf.keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    x = tf.constant(rng.uniform(-1, 1, (16, 4)).astype(np.float32))
    y = tf.constant(rng.uniform(-1, 1, (16, 1)).astype(np.float32))
    model = tf.keras.Sequential([L.Dense(8, activation="relu"), L.Dense(1)])
    model(x)
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01), initial_scale=2.0**24,
                                dynamic_growth_steps=4)
    losses, scales = [], []
    for _ in range(40):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.cast(model(x), tf.float32) - y))
            scaled = opt.get_scaled_loss(loss)
        grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_weights))
        opt.apply_gradients(zip(grads, model.trainable_weights))
        losses.append(float(loss))
        scales.append(float(opt.loss_scale))
    assert scales[0] < 2.0**24  # skipped: too large for float16
    assert int(opt.iterations.numpy()) == 40
    assert losses[-1] < losses[0]
    assert all(w.dtype == tf.float32 and np.isfinite(w.numpy()).all() for w in model.weights)


def test_mirrored_mixed_dense_equals_one_device(strategy):
    mp.set_global_policy("mixed_float16")
    x = tf.constant(np.random.default_rng(1).uniform(-1, 1, (4, 5)).astype(np.float32))
    # outputs: the same half rows; gradients: each half is a float16 sum over 2 rows, cast
    # up, then added: float16's u
    got, totals = assert_mirrored_equals_one_device(
        strategy, lambda: L.Dense(3), x,
        loss=lambda out: tf.reduce_sum(tf.cast(out, tf.float32) ** 2),
        rtol=0, atol=0, grad_rtol=2**-9, grad_atol=2**-9)
    assert got.dtype == torch.float16
    assert all(torch.as_tensor(total).dtype == torch.float32 for total in totals)
