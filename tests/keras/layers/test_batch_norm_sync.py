"""BatchNormalization(synchronized=True) under MirroredStrategy over two logical CPUs equals
one device on the global batch (outputs, gradients, moving statistics), while the default
layer normalises each replica's half by its own statistics; masks weight the statistics and
the fused path warns that it ignores them, as tf_keras. Single-replica numerics vs tf_keras
are in tests/keras/golden/cases_batchnorm.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.keras.layers.mirrored_check import split_batch, strategy  # noqa: F401

L = tf.keras.layers
X = torch.tensor(np.random.default_rng(3).uniform(-1, 1, (4, 3, 5)), dtype=torch.float32)
COT = torch.arange(5.0)
WEIGHTS = torch.linspace(-1, 1, 30).reshape(2, 3, 5)  # a loss not invariant to the statistics


def _single(synchronized):
    layer = L.BatchNormalization(synchronized=synchronized, momentum=0.5)
    with tf.GradientTape() as tape:
        out = layer(X, training=True)
        loss = tf.reduce_sum(out * out * COT)
    return layer, out, tape.gradient(loss, layer.trainable_weights)


def _mirrored(strategy, synchronized):
    with strategy.scope():
        layer = L.BatchNormalization(synchronized=synchronized, momentum=0.5)
        layer.build((None, 3, 5))
    halves = split_batch(strategy, X)

    def step(part):
        with tf.GradientTape() as tape:
            out = layer(part, training=True)
            loss = tf.reduce_sum(out * out * COT)
        return out, tape.gradient(loss, layer.trainable_weights)

    outs, grads = strategy.run(step, args=(halves,))
    out = torch.cat([torch.as_tensor(v) for v in strategy.experimental_local_results(outs)])
    return layer, out, [strategy.reduce("SUM", g, axis=None) for g in grads]


def test_synchronized_equals_one_device_on_the_global_batch(strategy):
    single, want, want_grads = _single(True)
    layer, got, grads = _mirrored(strategy, True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-4, atol=1e-5)
    for name in ("moving_mean", "moving_variance"):
        np.testing.assert_allclose(np.asarray(getattr(layer, name)),
                                   getattr(single, name).numpy(), rtol=1e-6, atol=1e-7)


def test_unsynchronized_replicas_use_their_own_statistics(strategy):
    _, want, _ = _single(False)
    _, got, _ = _mirrored(strategy, False)
    halves = [L.BatchNormalization(momentum=0.5)(X[i:i + 2], training=True) for i in (0, 2)]
    np.testing.assert_allclose(got.numpy(), torch.cat(halves).numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(got.numpy(), want.numpy(), atol=1e-3)


def test_synchronized_gradient_flows_through_the_all_reduce(strategy):
    """The input gradient of replica 0 depends on replica 1's data through the statistics."""
    with strategy.scope():
        layer = L.BatchNormalization(synchronized=True)
        layer.build((None, 3, 5))

    def grad_of_first_replica_input(scale):
        data = X.clone()
        data[2:] *= scale
        parts = split_batch(strategy, data)

        def step(part):
            with tf.GradientTape() as tape:
                tape.watch(part)
                loss = tf.reduce_sum(layer(part, training=True) * WEIGHTS)
            return tape.gradient(loss, part)

        return strategy.experimental_local_results(strategy.run(step, args=(parts,)))[0]

    assert not np.allclose(np.asarray(grad_of_first_replica_input(1.0)),
                           np.asarray(grad_of_first_replica_input(3.0)), atol=1e-4)


def test_mask_weights_the_statistics():
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]], dtype=torch.bool)
    for synchronized in (False, True):
        layer = L.BatchNormalization(synchronized=synchronized, momentum=0.0)
        layer(X, training=True, mask=mask)
        kept = X[mask]
        np.testing.assert_allclose(layer.moving_mean.numpy(), kept.mean(0).numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.moving_variance.numpy(),
                                   kept.var(0, unbiased=False).numpy(), rtol=1e-5, atol=1e-6)


def test_fused_path_warns_that_it_ignores_the_mask():
    layer = L.BatchNormalization()
    image = torch.rand(2, 3, 3, 4)
    with pytest.warns(UserWarning, match="Masking is not supported with `fused=True`"):
        out = layer(image, training=True, mask=torch.ones(2, 3, 3, dtype=torch.bool))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(out.numpy(), L.BatchNormalization()(image, training=True)
                                      .numpy())


def test_synchronized_refuses_fused():
    with pytest.raises(ValueError, match="`fused=True` is not supported when "
                                         "`synchronized=True`"):
        L.BatchNormalization(synchronized=True, fused=True)
