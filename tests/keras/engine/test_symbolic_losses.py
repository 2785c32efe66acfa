"""`model.add_loss(symbolic_tensor)` on a functional model (tf_keras's AddLoss layer)."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf


def _model():
    x = tf.keras.Input((4,))
    h = tf.keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros")(x)
    model = tf.keras.Model(x, h)
    model.add_loss(tf.reduce_mean(h))
    model.add_loss(0.5 * tf.reduce_sum(tf.abs(x)))
    return model


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_losses_evaluated_per_call(batch, seed):
    model = _model()
    xs = torch.randn(batch, 4, generator=torch.Generator().manual_seed(seed))
    out = model(xs)
    losses = model.losses
    assert len(losses) == 2
    torch.testing.assert_close(losses[0], out.mean())
    torch.testing.assert_close(losses[1], 0.5 * xs.abs().sum())
    model(2 * xs)  # the next call replaces them
    torch.testing.assert_close(model.losses[1], xs.abs().sum())


def test_add_loss_layers_join_the_model():
    tf.keras.backend.clear_session()
    model = _model()
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds.count("AddLoss") == 2
    assert [layer.name for layer in model.layers if type(layer).__name__ == "AddLoss"] == [
        "add_loss", "add_loss_1"]
    assert model.output_shape == (None, 3)  # outputs unchanged


def test_loss_gradient_reaches_weights():
    model = _model()
    xs = torch.ones(2, 4)
    with tf.GradientTape() as tape:
        model(xs)
        total = tf.add_n(model.losses)
    kernel_grad, bias_grad = tape.gradient(total, model.trainable_variables)
    # d mean(xW + b) / dW = mean over (batch, units) of x: 1/3 per entry for x = 1
    torch.testing.assert_close(kernel_grad, torch.full((4, 3), 1.0 / 3.0))
    torch.testing.assert_close(bias_grad, torch.full((3,), 1.0 / 3.0))


def test_loss_from_unrelated_input_is_disconnected():
    x = tf.keras.Input((4,))
    model = tf.keras.Model(x, tf.keras.layers.Dense(2)(x))
    other = tf.keras.Input((4,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        model.add_loss(tf.reduce_sum(other))


def test_symbolic_loss_on_a_plain_layer_is_refused():
    x = tf.keras.Input((4,))
    with pytest.raises(ValueError, match="functional Model"):
        tf.keras.layers.Dense(2).add_loss(tf.reduce_sum(x))
