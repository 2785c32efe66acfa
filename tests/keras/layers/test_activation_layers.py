"""The activation layers (ReLU, LeakyReLU, PReLU, ELU, ThresholdedReLU, Softmax): shape
law, formulas, config round trips, errors that change nothing, masks pass through, the
functional API and PReLU under MirroredStrategy. Numerics vs tf_keras are in
tests/keras/golden/cases_core.py and cases_image.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers


@given(dims=st.lists(st.integers(1, 4), min_size=2, max_size=4),
       kind=st.sampled_from(["ReLU", "LeakyReLU", "PReLU", "ELU", "ThresholdedReLU",
                             "Softmax"]))
def test_output_shape_law(dims, kind):
    layer = getattr(L, kind)()
    out = layer(torch.rand(dims) - 0.5)
    assert list(out.shape) == layer.compute_output_shape(dims).as_list() == dims


def test_formulas():
    x = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 1.0, 3.0]])
    np.testing.assert_allclose(L.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.5)(x),
                               [[-0.25, -0.1, -0.05, 0.0, 1.0, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(L.LeakyReLU()(x), [[-0.6, -0.15, 0, 0.5, 1, 3]], rtol=1e-6)
    np.testing.assert_array_equal(L.ThresholdedReLU(0.5)(x), [[0, 0, 0, 0, 1, 3]])
    prelu = L.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25))
    np.testing.assert_allclose(prelu(x), [[-0.5, -0.125, 0, 0.5, 1, 3]], rtol=1e-6)
    np.testing.assert_allclose(L.ELU(2.0)(x)[0, 0], 2.0 * np.expm1(-2.0), rtol=1e-6)


def test_prelu_shared_axes_shape_and_spec():
    layer = L.PReLU(shared_axes=[1, 2])
    layer(torch.rand(2, 3, 4, 5))
    assert layer.alpha.shape.as_list() == [1, 1, 5]
    layer(torch.rand(7, 6, 1, 5))  # shared axes are free, the others fixed
    before = layer.get_weights()[0].copy()
    with pytest.raises(ValueError, match="incompatible with the layer"):
        layer(torch.rand(2, 3, 4, 6))
    np.testing.assert_array_equal(before, layer.get_weights()[0])
    assert L.PReLU(shared_axes=2).shared_axes == [2]


def test_prelu_gradient_reaches_alpha():
    layer = L.PReLU()
    x = torch.tensor([[-1.0, 2.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x))
    np.testing.assert_array_equal(tape.gradient(loss, layer.alpha).numpy(), [-1.0, 0.0])


@pytest.mark.parametrize("make", [
    lambda: L.PReLU(alpha_initializer="ones", alpha_regularizer="l2", shared_axes=[1]),
    lambda: L.ThresholdedReLU(0.7), lambda: L.ReLU(3.0, 0.1, 0.2), lambda: L.LeakyReLU(0.2),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_bad_arguments():
    with pytest.raises(ValueError, match="theta value of a Thresholded ReLU layer should be >=0"):
        L.ThresholdedReLU(-0.1)
    with pytest.raises(ValueError, match="Theta of a Thresholded ReLU layer cannot be None"):
        L.ThresholdedReLU(None)


def test_masks_pass_through():
    x = L.Masking()(torch.tensor([[[0.0, 0.0], [1.0, -1.0]]]))
    for layer in (L.PReLU(), L.ThresholdedReLU(), L.ReLU()):
        np.testing.assert_array_equal(layer(x)._keras_mask.numpy(), [[False, True]])


def test_functional_shapes():
    x = tf.keras.Input((3, 4))
    assert L.PReLU(shared_axes=1)(x).shape.as_list() == [None, 3, 4]
    assert L.ThresholdedReLU()(x).shape.as_list() == [None, 3, 4]


def test_prelu_mirrored_equals_one_device(strategy):
    x = torch.tensor(np.random.default_rng(3).uniform(-1, 1, (4, 3, 2)), dtype=torch.float32)
    alpha = np.random.default_rng(4).uniform(0, 1, (3, 2)).astype(np.float32)
    assert_mirrored_equals_one_device(strategy, L.PReLU, x, seed=None,
                                      weights=lambda single: [alpha],
                                      rtol=1e-6, atol=0, grad_rtol=1e-5, grad_atol=0)
