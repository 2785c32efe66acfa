"""Tests for the recurrent layers: RNN, cells, StackedRNNCells, SimpleRNN, LSTM, GRU.

Shape laws, config round trips, the fused path against the step loop (values and
gradients), masks, stateful layers, tf_keras's errors, the functional API and
MirroredStrategy. Numerics against tf_keras are in tests/keras/golden/cases_rnn.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers
KINDS = ("SimpleRNN", "LSTM", "GRU")


def _x(*shape, seed=0, dtype=torch.float32):
    return torch.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=dtype)


def _randomize(layer, seed=0):
    rng = np.random.default_rng(seed)
    layer.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype)
                       for w in layer.get_weights()])


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@settings(deadline=None, max_examples=25)
@given(kind=st.sampled_from(KINDS), batch=st.integers(1, 3), time=st.integers(1, 4),
       dim=st.integers(1, 3), units=st.integers(1, 4), seqs=st.booleans(),
       state=st.booleans(), time_major=st.booleans())
def test_output_shape_law(kind, batch, time, dim, units, seqs, state, time_major):
    layer = getattr(L, kind)(units, return_sequences=seqs, return_state=state,
                             time_major=time_major)
    shape = [time, batch, dim] if time_major else [batch, time, dim]
    out = layer(torch.rand(shape))
    want = layer.compute_output_shape(shape)
    got = [list(o.shape) for o in out] if state else list(out.shape)
    if state:
        assert got == [w.as_list() for w in want]
        assert len(out) == (3 if kind == "LSTM" else 2)
    else:
        assert got == want.as_list()


# -- weights: tf_keras's names, shapes and order ------------------------------------------
@pytest.mark.parametrize("kind,reset_after,shapes", [
    ("SimpleRNN", True, [(3, 4), (4, 4), (4,)]),
    ("LSTM", True, [(3, 16), (4, 16), (16,)]),
    ("GRU", True, [(3, 12), (4, 12), (2, 12)]),
    ("GRU", False, [(3, 12), (4, 12), (12,)]),
])
def test_weight_layout(kind, reset_after, shapes):
    kwargs = {"reset_after": reset_after} if kind == "GRU" else {}
    layer = getattr(L, kind)(4, name="r", **kwargs)
    layer(torch.rand(2, 5, 3))
    cell = {"SimpleRNN": "simple_rnn_cell", "LSTM": "lstm_cell", "GRU": "gru_cell"}[kind]
    assert [w.name for w in layer.weights] == [
        f"r/{cell}/kernel:0", f"r/{cell}/recurrent_kernel:0", f"r/{cell}/bias:0"]
    assert [tuple(w.shape) for w in layer.weights] == shapes


def test_lstm_unit_forget_bias():
    layer = L.LSTM(2)
    layer(torch.rand(1, 2, 3))
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 1, 1, 0, 0, 0, 0])
    layer = L.LSTM(2, unit_forget_bias=False)
    layer(torch.rand(1, 2, 3))
    np.testing.assert_array_equal(layer.cell.bias.numpy(), np.zeros(8))


# -- configs ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.SimpleRNN(3, activation="relu", dropout=0.2, go_backwards=True),
    lambda: L.LSTM(3, return_sequences=True, recurrent_dropout=0.5, unit_forget_bias=False,
                   kernel_regularizer="l2", time_major=True),
    lambda: L.GRU(3, reset_after=False, implementation=1, zero_output_for_mask=True),
    lambda: L.RNN(L.LSTMCell(2), return_state=True, unroll=True),
    lambda: L.RNN([L.GRUCell(2), L.SimpleRNNCell(3)], stateful=True),
    lambda: L.LSTMCell(2, dropout=0.1, implementation=1),
    lambda: L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(1)]),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == config


def test_rnn_config_serializes_the_cell():
    config = L.RNN(L.SimpleRNNCell(2, name="c"), name="r").get_config()
    assert config["cell"]["class_name"] == "SimpleRNNCell"
    assert config["cell"]["config"]["name"] == "c"
    assert "cell" not in L.LSTM(2).get_config()


# -- the fused path equals the step loop ----------------------------------------------------
def _generic_twin(layer):
    cell_cls = {L.LSTM: L.LSTMCell, L.GRU: L.GRUCell}[type(layer)]
    kwargs = {"reset_after": layer.reset_after} if isinstance(layer, L.GRU) else {}
    twin = L.RNN(cell_cls(layer.units, **kwargs), return_sequences=layer.return_sequences,
                 return_state=layer.return_state, go_backwards=layer.go_backwards,
                 time_major=layer.time_major, zero_output_for_mask=layer.zero_output_for_mask)
    return twin


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("masked", [None, "right", "holes"])
@pytest.mark.parametrize("zero_output", [False, True])
def test_fused_equals_step_loop(kind, go_backwards, masked, zero_output):
    x = _x(3, 6, 4, dtype=torch.float64)
    mask = {None: None,
            "right": torch.tensor([[1, 1, 1, 0, 0, 0], [1] * 6, [1, 0, 0, 0, 0, 0]]).bool(),
            "holes": torch.tensor([[1, 0, 1, 1, 0, 1], [0, 1, 1, 1, 1, 1], [1] * 6]).bool()
            }[masked]
    layer = getattr(L, kind)(3, return_sequences=True, return_state=True,
                             go_backwards=go_backwards, zero_output_for_mask=zero_output,
                             dtype="float64")
    assert layer._could_use_gpu_kernel
    layer(x)
    _randomize(layer)
    twin = _generic_twin(layer)
    twin._set_dtype_policy(tf.keras.mixed_precision.Policy("float64"))
    twin.cell._set_dtype_policy(tf.keras.mixed_precision.Policy("float64"))
    twin(x)
    twin.set_weights(layer.get_weights())
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        fused = layer(x, mask=mask)
        loop = twin(x, mask=mask)
        loss_fused = sum(torch.sum(o * torch.linspace(-1, 1, o.shape[-1], dtype=o.dtype))
                         for o in fused)
        loss_loop = sum(torch.sum(o * torch.linspace(-1, 1, o.shape[-1], dtype=o.dtype))
                        for o in loop)
    for a, b in zip(fused, loop):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-13)
    got = tape.gradient(loss_fused, [x] + layer.trainable_weights)
    want = tape.gradient(loss_loop, [x] + twin.trainable_weights)
    for g, w in zip(got, want):
        assert g is not None and float(torch.as_tensor(g).abs().sum()) > 0
        np.testing.assert_allclose(torch.as_tensor(g).numpy(), torch.as_tensor(w).numpy(),
                                   rtol=1e-10, atol=1e-12)


def test_fused_path_is_taken_and_feeds_the_variables(monkeypatch):
    from tfcompat.keras.layers.rnn import _fused
    calls = []
    real = _fused.fused_rnn
    monkeypatch.setattr(_fused, "fused_rnn", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    lstm, gru = L.LSTM(2), L.GRU(2)
    x = _x(2, 3, 2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(lstm(x)) + tf.reduce_sum(gru(x))
    grads = tape.gradient(loss, lstm.trainable_weights + gru.trainable_weights)
    assert calls == ["lstm", "gru"]
    assert all(g is not None for g in grads)
    assert not L.LSTM(2, recurrent_dropout=0.1)._could_use_gpu_kernel
    assert not L.LSTM(2, activation="relu")._could_use_gpu_kernel
    assert not L.GRU(2, reset_after=False)._could_use_gpu_kernel
    assert not L.GRU(2, unroll=True)._could_use_gpu_kernel


# -- masks ---------------------------------------------------------------------------------
def test_masked_steps_carry_state_and_output():
    layer = L.SimpleRNN(2, return_sequences=True, return_state=True)
    x = _x(1, 4, 3)
    mask = torch.tensor([[False, True, False, True]])
    seq, state = layer(x, mask=mask)
    np.testing.assert_array_equal(seq[0, 0].numpy(), [0, 0])          # before any step
    np.testing.assert_array_equal(seq[0, 2].numpy(), seq[0, 1].numpy())  # carried
    np.testing.assert_array_equal(state.numpy(), seq[:, 3].numpy())
    layer.zero_output_for_mask = True
    seq, _ = layer(x, mask=mask)
    np.testing.assert_array_equal(seq[0, 2].numpy(), [0, 0])
    assert layer.compute_mask(x, mask)[0] is mask


@pytest.mark.parametrize("functional", [False, True])
def test_embedding_mask_reaches_lstm(functional):
    ids = torch.tensor([[3, 1, 0, 0], [2, 5, 1, 0]])
    if functional:
        inp = tf.keras.Input((None,), dtype="int32")
        out = L.LSTM(3, return_sequences=True)(L.Embedding(6, 2, mask_zero=True)(inp))
        model = tf.keras.Model(inp, out)
    else:
        model = tf.keras.Sequential([L.Embedding(6, 2, mask_zero=True),
                                     L.LSTM(3, return_sequences=True)])
    out = model(ids)
    np.testing.assert_array_equal(out._keras_mask.numpy(), (ids != 0).numpy())
    np.testing.assert_array_equal(out[0, 3].numpy(), out[0, 1].numpy())
    last = L.LSTM(3)
    last(L.Embedding(6, 2, mask_zero=True)(ids))


# -- stateful --------------------------------------------------------------------------------
def test_stateful_carries_and_resets():
    layer = L.GRU(2, stateful=True)
    x = _x(2, 3, 2)
    first = layer(x)
    second = layer(x)
    assert not np.allclose(first.numpy(), second.numpy())
    np.testing.assert_allclose(layer.states[0].numpy(), second.numpy(), rtol=1e-6)
    layer.reset_states()
    np.testing.assert_array_equal(layer.states[0].numpy(), np.zeros((2, 2)))
    np.testing.assert_allclose(layer(x).numpy(), first.numpy(), rtol=1e-6)
    layer.reset_states([np.ones((2, 2), np.float32)])
    np.testing.assert_array_equal(layer.states[0].numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="expects 1 states, but it received 2"):
        layer.reset_states([np.ones((2, 2)), np.ones((2, 2))])
    assert layer.weights == layer.cell.weights  # the states are not weights


def test_stateful_functional_model_construction_keeps_states_zero():
    inp = tf.keras.Input(batch_shape=(2, 3, 2))
    layer = L.LSTM(2, stateful=True)
    model = tf.keras.Model(inp, layer(inp))
    for state in layer.states:
        np.testing.assert_array_equal(state.numpy(), np.zeros((2, 2)))
    model(_x(2, 3, 2))
    assert np.abs(layer.states[0].numpy()).sum() > 0


# -- initial_state, custom cells, functional API ------------------------------------------
def test_initial_state_list_and_keyword_agree():
    layer = L.LSTM(2, return_state=True)
    x, h, c = _x(2, 3, 2), _x(2, 2, seed=1), _x(2, 2, seed=2)
    a = layer(x, initial_state=[h, c])
    b = layer([x, h, c])
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.numpy(), v.numpy())


def test_functional_initial_state():
    x_in, h_in, c_in = tf.keras.Input((3, 2)), tf.keras.Input((2,)), tf.keras.Input((2,))
    layer = L.LSTM(2)
    model = tf.keras.Model([x_in, h_in, c_in], layer(x_in, initial_state=[h_in, c_in]))
    x, h, c = _x(2, 3, 2), _x(2, 2, seed=1), _x(2, 2, seed=2)
    np.testing.assert_allclose(model([x, h, c]).numpy(),
                               layer(x, initial_state=[h, c]).numpy(), rtol=1e-6)


class MinimalCell(L.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
        self.built = True

    def call(self, inputs, states):
        output = tf.matmul(inputs, self.kernel) + states[0]
        return output, [output]


def test_custom_cell_and_stack():
    x = _x(2, 4, 3)
    layer = L.RNN(MinimalCell(2), return_sequences=True)
    out = layer(x)
    want = torch.cumsum(x @ torch.as_tensor(layer.cell.kernel.numpy()), 1)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    stacked = L.RNN([MinimalCell(2), L.LSTMCell(3)], return_state=True)
    outs = stacked(x)  # tf_keras: [output, h_1, [h_2, c_2]] (each cell's states nested)
    assert [tuple(o.shape) for o in tf.nest.flatten(outs)] == [(2, 3), (2, 2), (2, 3), (2, 3)]
    assert isinstance(outs[2], list)
    inputs = tf.keras.Input((None, 3))
    model = tf.keras.Model(inputs, L.RNN(MinimalCell(2))(inputs))
    assert model.output_shape == (None, 2)


def test_dropout_only_in_training():
    layer = L.LSTM(3, dropout=0.5, recurrent_dropout=0.5, return_sequences=True)
    x = _x(4, 5, 3)
    a, b = layer(x), layer(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    tf.keras.utils.set_random_seed(1)
    c = layer(x, training=True)
    assert not np.allclose(a.numpy(), c.numpy())


# -- errors tf_keras raises ------------------------------------------------------------------
def test_errors():
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        L.LSTM(2)(torch.rand(2, 3))
    layer = L.GRU(2)
    layer(torch.rand(2, 3, 4))
    weights = layer.get_weights()
    with pytest.raises(ValueError, match=r"expected shape=\(None, None, 4\), found shape="):
        layer(torch.rand(2, 3, 5))
    for w, v in zip(weights, layer.get_weights()):
        np.testing.assert_array_equal(w, v)
    with pytest.raises(ValueError, match="An `initial_state` was passed that is not compatible"):
        L.LSTM(2)(torch.rand(2, 3, 4), initial_state=[torch.zeros(2, 2)])
    lstm = L.LSTM(2)
    lstm(torch.rand(2, 3, 4))
    with pytest.raises(ValueError, match="Layer has 2 states but was passed 1 initial states"):
        lstm(torch.rand(2, 3, 4), initial_state=[torch.zeros(2, 2)])
    with pytest.raises(ValueError, match="expected a positive integer, got 0"):
        L.SimpleRNN(0)
    with pytest.raises(ValueError, match="should have a `state_size` attribute"):
        L.RNN(L.Dense(2))
    with pytest.raises(AttributeError, match="Layer must be stateful"):
        L.LSTM(2).reset_states()
    with pytest.raises(ValueError, match="it needs to know its batch size"):
        L.LSTM(2, stateful=True).reset_states()
    with pytest.raises(ValueError, match="Cannot unroll a RNN if the time dimension"):
        L.LSTM(2, unroll=True)(tf.keras.Input((None, 3)))


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make", [
    lambda: L.LSTM(3, return_sequences=True),
    lambda: L.GRU(3),
    lambda: L.SimpleRNN(3, go_backwards=True),
    lambda: L.RNN([L.LSTMCell(2), L.GRUCell(3, reset_after=False)]),
])
def test_mirrored_equals_one_device(strategy, make):
    assert_mirrored_equals_one_device(strategy, make, _x(4, 5, 3))


def test_stateful_refused_under_a_strategy(strategy):
    with strategy.scope():
        with pytest.raises(ValueError, match="Stateful RNNs"):
            L.LSTM(2, stateful=True)


@pytest.mark.parametrize("cls", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("shape", [(None, 5, 2), (4, 5, 2)])  # (a list is a list of shapes, as tf_keras)
def test_build_takes_a_plain_tuple_or_list_shape(cls, shape):
    layer = getattr(tf.keras.layers, cls)(3)
    layer.build(shape)
    assert layer.built and layer.weights[0].shape.as_list()[0] == 2
    assert layer(torch.ones(1, 5, 2)).shape == (1, 3)
