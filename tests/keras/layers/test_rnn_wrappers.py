"""The RNN wrappers (TimeDistributed, Bidirectional): shape laws, the per-timestep and
reversal laws, config round trips, errors that change nothing, masks, weights and checkpoint
keys, the functional API and MirroredStrategy. Numerics vs tf_keras are in
tests/keras/golden/cases_rnn_wrappers.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers
RNNS = ["SimpleRNN", "LSTM", "GRU"]
MERGE_MODES = ["concat", "sum", "mul", "ave", None]


def _rand(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=torch.float32)


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


# -- TimeDistributed -----------------------------------------------------------------------
@settings(deadline=None, max_examples=25)
@given(batch=st.integers(1, 3), time=st.integers(1, 4), feat=st.integers(1, 4),
       units=st.integers(1, 4), extra=st.booleans())
def test_time_distributed_dense_shape_law(batch, time, feat, units, extra):
    shape = [batch, time] + ([2] if extra else []) + [feat]
    layer = L.TimeDistributed(L.Dense(units))
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()
    assert layer.compute_output_shape([None, None] + shape[2:]).as_list() == (
        [None, None] + shape[2:-1] + [units])


@settings(deadline=None, max_examples=15)
@given(time=st.integers(1, 3), size=st.integers(3, 6), padding=st.sampled_from(["valid", "same"]))
def test_time_distributed_conv2d_shape_law(time, size, padding):
    shape = [2, time, size, size + 1, 2]
    layer = L.TimeDistributed(L.Conv2D(3, 3, padding=padding))
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()


def test_time_distributed_applies_the_layer_to_each_slice():
    tf.keras.backend.clear_session()
    x = _rand(3, 4, 5)
    dense = L.Dense(2, activation="tanh")
    layer = L.TimeDistributed(dense)
    out = layer(x)
    for t in range(4):
        torch.testing.assert_close(out[:, t], dense(x[:, t]), rtol=0, atol=0)
    # one set of weights, the inner layer's, built in the wrapper's scope
    assert layer.weights == dense.weights
    assert [w.name for w in layer.weights] == ["time_distributed/kernel:0",
                                               "time_distributed/bias:0"]


def test_time_distributed_user_layer_runs_per_timestep_with_masked_repeats():
    class Scale(L.Layer):
        def call(self, x):
            return x * 2.0 + 1.0

    layer = L.TimeDistributed(Scale())
    assert not layer._always_use_reshape
    assert L.TimeDistributed(L.Dense(2))._always_use_reshape
    x = _rand(2, 4, 3)
    mask = torch.tensor([[True, False, False, True], [False, True, True, True]])
    out = layer(x, mask=mask)
    want = x * 2.0 + 1.0
    torch.testing.assert_close(out[0, 1], want[0, 0])   # masked: repeats the previous step
    torch.testing.assert_close(out[0, 2], want[0, 0])
    torch.testing.assert_close(out[0, 3], want[0, 3])
    torch.testing.assert_close(out[1, 0], torch.zeros(3))  # masked first step: zeros
    assert torch.equal(layer.compute_mask(x, mask), mask)
    torch.testing.assert_close(layer(x), want)


def test_time_distributed_subclass_of_builtin_layer_folds():
    class MyDense(L.Dense):
        pass
    assert L.TimeDistributed(MyDense(2))._always_use_reshape


def test_time_distributed_masks():
    x = _rand(2, 4, 3)
    x[0, 2:] = 0.0
    masked = L.Masking()(x)
    out = L.TimeDistributed(L.Dense(2))(masked)
    assert out._keras_mask.tolist() == [[True, True, False, False], [True] * 4]
    # an inner layer that passes the mask on: its mask, unfolded
    mask = torch.tensor([[[True, False], [False, False]], [[False, True], [True, True]]])
    td = L.TimeDistributed(L.Dense(2))
    assert torch.equal(td.compute_mask(torch.rand(2, 2, 2, 3), mask), mask)
    # an inner layer that drops the mask: the input mask reduced with `any` to (batch, time)
    td = L.TimeDistributed(L.GlobalAveragePooling1D())
    x4 = torch.rand(2, 2, 2, 3)
    assert td.compute_mask(x4, mask).tolist() == [[True, False], [True, True]]
    assert td(x4, mask=mask)._keras_mask.tolist() == [[True, False], [True, True]]
    assert td.compute_mask(torch.rand(2, 2, 3), None) is None
    # an inner layer's own mask (Embedding(mask_zero)) is unfolded
    ids = torch.tensor([[[1, 0], [2, 2]], [[0, 0], [3, 1]]])
    emb = L.TimeDistributed(L.Embedding(5, 2, mask_zero=True))
    assert emb(ids)._keras_mask.tolist() == (ids != 0).tolist()


def test_time_distributed_passes_training():
    x = torch.ones(4, 3, 50)
    layer = L.TimeDistributed(L.Dropout(0.5))
    assert torch.equal(layer(x, training=False), x)
    dropped = layer(x, training=True)
    assert (dropped == 0).any() and (dropped == 2).any()


def test_time_distributed_config_round_trip():
    layer = L.TimeDistributed(L.Dense(3, activation="relu", name="d"), name="td")
    x = _rand(2, 4, 5)
    want = layer(x)
    config = layer.get_config()
    assert config["name"] == "td" and config["layer"]["class_name"] == "Dense"
    assert config["layer"]["build_config"] == {"input_shape": (2, 5)}
    clone = L.TimeDistributed.from_config(config)
    assert not clone.layer.built and clone.layer.name == "d"
    clone(x)
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x), want, rtol=0, atol=0)
    assert clone.get_config() == config
    # the legacy format (no "module" keys) reads too
    legacy = dict(config, layer={"class_name": "Dense", "config": config["layer"]["config"]})
    assert L.TimeDistributed.from_config(legacy).layer.units == 3


def test_time_distributed_errors_change_nothing():
    with pytest.raises(ValueError, match="Please initialize `TimeDistributed` layer with a "):
        L.TimeDistributed(L.Dense)
    layer = L.TimeDistributed(L.Dense(2))
    with pytest.raises(ValueError, match="should be passed an `input_shape ` with at least 3"):
        layer(torch.ones(2, 3))
    assert not layer.built and not layer.layer.built and layer.weights == []
    assert list(layer(torch.ones(2, 3, 4)).shape) == [2, 3, 2]


def test_time_distributed_functional_and_sequential():
    inputs = tf.keras.Input((4, 5))
    outputs = L.TimeDistributed(L.Dense(3))(inputs)
    assert outputs.shape.as_list() == [None, 4, 3]
    model = tf.keras.Model(inputs, outputs)
    x = _rand(2, 4, 5)
    torch.testing.assert_close(model(x), model.layers[1](x))
    clone = tf.keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    torch.testing.assert_close(clone(x), model(x), rtol=0, atol=0)
    seq = tf.keras.Sequential([L.TimeDistributed(L.Dense(2), input_shape=(3, 4)),
                               L.TimeDistributed(L.Dense(1))])
    assert seq.output_shape == (None, 3, 1)


def test_time_distributed_checkpoint_keys(tmp_path):
    layer = L.TimeDistributed(L.Dense(3))
    layer(torch.ones(1, 2, 4))
    path = tf.train.Checkpoint(m=layer).save(str(tmp_path / "ck"))
    keys = [k for k, _ in tf.train.list_variables(path)]
    assert "m/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "m/layer/bias/.ATTRIBUTES/VARIABLE_VALUE" in keys


# -- Bidirectional -------------------------------------------------------------------------
@settings(deadline=None, max_examples=30)
@given(rnn=st.sampled_from(RNNS), merge_mode=st.sampled_from(MERGE_MODES),
       return_sequences=st.booleans(), return_state=st.booleans(), units=st.integers(1, 3),
       time=st.integers(1, 4))
def test_bidirectional_shape_law(rnn, merge_mode, return_sequences, return_state, units, time):
    layer = L.Bidirectional(getattr(L, rnn)(units, return_sequences=return_sequences,
                                            return_state=return_state), merge_mode=merge_mode)
    shape = [2, time, 3]
    out = _flat(layer(torch.rand(shape)))
    want = layer.compute_output_shape(shape)
    want = _flat(want)
    assert [list(o.shape) for o in out] == [w.as_list() for w in want]
    n_states = {"SimpleRNN": 1, "LSTM": 2, "GRU": 1}[rnn] * 2 if return_state else 0
    assert len(out) == (2 if merge_mode is None else 1) + n_states


@pytest.mark.parametrize("rnn", RNNS)
def test_bidirectional_is_forward_and_reversed_backward(rnn):
    x = _rand(3, 5, 4)
    layer = L.Bidirectional(getattr(L, rnn)(2, return_sequences=True))
    out = layer(x)
    forward = layer.forward_layer(x)
    backward = layer.backward_layer(x)
    torch.testing.assert_close(out, torch.cat([forward, torch.flip(backward, [1])], -1),
                               rtol=0, atol=0)
    # the backward layer reads the sequence reversed
    assert layer.backward_layer.go_backwards and not layer.forward_layer.go_backwards
    reference = getattr(L, rnn)(2, return_sequences=True)
    reference(x)
    reference.set_weights(layer.backward_layer.get_weights())
    torch.testing.assert_close(backward, reference(torch.flip(x, [1])), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("merge_mode,combine", [
    ("sum", lambda a, b: a + b), ("mul", lambda a, b: a * b),
    ("ave", lambda a, b: (a + b) / 2)])
def test_bidirectional_merge_modes(merge_mode, combine):
    x = _rand(2, 3, 4)
    layer = L.Bidirectional(L.GRU(3), merge_mode=merge_mode)
    out = layer(x)
    torch.testing.assert_close(out, combine(layer.forward_layer(x), layer.backward_layer(x)),
                               rtol=0, atol=0)


def test_bidirectional_weights_names_and_checkpoint(tmp_path):
    tf.keras.backend.clear_session()
    layer = L.Bidirectional(L.LSTM(3, return_sequences=True))
    layer(torch.ones(2, 4, 5))
    assert layer.forward_layer.name == "forward_lstm"
    assert layer.backward_layer.name == "backward_lstm"
    assert not layer.layer.built  # the template is only a template
    assert [w.name for w in layer.weights] == [
        f"bidirectional/{d}_lstm/lstm_cell/{n}:0" for d in ("forward", "backward")
        for n in ("kernel", "recurrent_kernel", "bias")]
    assert layer.weights == layer.forward_layer.weights + layer.backward_layer.weights
    path = tf.train.Checkpoint(m=layer).save(str(tmp_path / "ck"))
    keys = sorted(k for k, _ in tf.train.list_variables(path) if k.startswith("m/"))
    assert keys == sorted(f"m/{d}_layer/cell/{n}/.ATTRIBUTES/VARIABLE_VALUE"
                          for d in ("forward", "backward")
                          for n in ("kernel", "recurrent_kernel", "bias"))


def test_bidirectional_states_and_initial_state():
    x = _rand(3, 4, 2)
    layer = L.Bidirectional(L.LSTM(3, return_state=True), merge_mode="sum")
    out, fh, fc, bh, bc = layer(x)
    torch.testing.assert_close(out, fh + bh, rtol=0, atol=0)
    states = [_rand(3, 3, seed=i) for i in range(4)]
    out2 = layer(x, initial_state=states)
    want_f = layer.forward_layer(x, initial_state=states[:2])
    want_b = layer.backward_layer(x, initial_state=states[2:])
    torch.testing.assert_close(out2[0], want_f[0] + want_b[0], rtol=0, atol=0)
    torch.testing.assert_close(out2[1], want_f[1], rtol=0, atol=0)
    torch.testing.assert_close(out2[3], want_b[1], rtol=0, atol=0)
    # `[x, *states]` is the same call
    out3 = layer([x] + states)
    for a, b in zip(out3, out2):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    with pytest.raises(ValueError, match="When passing `initial_state` to a Bidirectional RNN"):
        layer(x, initial_state=states[:3])


def test_bidirectional_masks():
    x = _rand(2, 5, 3)
    mask = torch.tensor([[True, True, True, False, False], [True] * 5])
    layer = L.Bidirectional(L.SimpleRNN(2, return_sequences=True), merge_mode=None)
    fwd, bwd = layer(x, mask=mask)
    # masked timesteps give zeros in both directions (zero_output_for_mask is forced on)
    assert layer.forward_layer.zero_output_for_mask
    assert torch.equal(fwd[0, 3:], torch.zeros(2, 2)) and torch.equal(bwd[0, 3:],
                                                                       torch.zeros(2, 2))
    assert [m.tolist() for m in layer.compute_mask(x, mask)] == [mask.tolist()] * 2
    last = L.Bidirectional(L.SimpleRNN(2))
    assert last.compute_mask(x, mask) is None
    stated = L.Bidirectional(L.LSTM(2, return_state=True, return_sequences=True))
    got = stated.compute_mask(x, mask)
    assert got[0] is mask and got[1:] == [None] * 4
    # a mask from an Embedding travels through
    ids = torch.tensor([[3, 1, 0, 0], [2, 0, 5, 1]])
    out = L.Bidirectional(L.GRU(2, return_sequences=True))(L.Embedding(6, 2, mask_zero=True)(ids))
    assert out._keras_mask.tolist() == (ids != 0).tolist()


def test_bidirectional_backward_layer_and_config_round_trip():
    back = L.SimpleRNN(2, activation="relu", go_backwards=True, return_sequences=True, name="bw")
    layer = L.Bidirectional(L.SimpleRNN(3, return_sequences=True), backward_layer=back,
                            merge_mode="concat", name="bi")
    assert layer.backward_layer is back and back.name == "backward_bw"
    x = _rand(2, 4, 3)
    want = layer(x)
    assert list(want.shape) == [2, 4, 5]
    config = layer.get_config()
    assert list(config) == ["name", "trainable", "dtype", "layer", "merge_mode",
                            "backward_layer"]
    assert config["backward_layer"]["config"]["name"] == "bw"  # as given, before renaming
    clone = L.Bidirectional.from_config(config)
    clone(x)
    clone.set_weights(layer.get_weights())
    torch.testing.assert_close(clone(x), want, rtol=0, atol=0)
    assert clone.get_config() == config


def test_bidirectional_errors_change_nothing():
    rnn = L.SimpleRNN(2)
    with pytest.raises(ValueError, match="Please initialize `Bidirectional` layer with a"):
        L.Bidirectional(object())
    with pytest.raises(ValueError, match="`backward_layer` need to be a"):
        L.Bidirectional(rnn, backward_layer="gru")
    with pytest.raises(ValueError, match="Invalid merge mode. Received: max"):
        L.Bidirectional(rnn, merge_mode="max")
    with pytest.raises(ValueError, match="should have different `go_backwards` value"):
        L.Bidirectional(rnn, backward_layer=L.SimpleRNN(2))
    with pytest.raises(ValueError, match='the same value for attribute "return_sequences"'):
        L.Bidirectional(rnn, backward_layer=L.SimpleRNN(2, go_backwards=True,
                                                         return_sequences=True))
    with pytest.raises(AttributeError, match="Layer must be stateful."):
        L.Bidirectional(rnn).reset_states()
    assert not rnn.built and rnn.name == "simple_rnn" or rnn.name.startswith("simple_rnn")
    layer = L.Bidirectional(rnn)
    assert list(layer(torch.ones(2, 3, 4)).shape) == [2, 4]


def test_bidirectional_weights_argument_is_ignored_as_in_tf_keras():
    weights = [np.ones((4, 2)), np.ones((2, 2)), np.ones(2)] * 2
    layer = L.Bidirectional(L.SimpleRNN(2), weights=weights)
    layer(torch.ones(1, 3, 4))
    assert not np.array_equal(layer.get_weights()[0], np.ones((4, 2)))


def test_bidirectional_trainable_and_stateful():
    layer = L.Bidirectional(L.GRU(2), trainable=False)
    layer(torch.ones(2, 3, 4))
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 6
    stateful = L.Bidirectional(L.SimpleRNN(2, stateful=True))
    x = _rand(2, 3, 4)
    first = stateful(x)
    assert not torch.equal(stateful(x), first)   # states carried between calls
    stateful.reset_states()
    torch.testing.assert_close(stateful(x), first, rtol=0, atol=0)


def test_bidirectional_functional_api():
    x = tf.keras.Input((4, 3))
    s1, s2 = tf.keras.Input((2,)), tf.keras.Input((2,))
    out = L.Bidirectional(L.SimpleRNN(2, return_sequences=True))(x, initial_state=[s1, s2])
    assert out.shape.as_list() == [None, 4, 4]
    model = tf.keras.Model([x, s1, s2], out)
    values = [_rand(2, 4, 3), _rand(2, 2, seed=1), _rand(2, 2, seed=2)]
    layer = model.layers[-1]
    torch.testing.assert_close(model(values), layer(values[0], initial_state=values[1:]),
                               rtol=0, atol=0)
    with pytest.raises(ValueError, match="cannot be specified with a mix of"):
        layer(x, initial_state=[s1, values[2]])
    seq = tf.keras.Sequential([L.Bidirectional(L.LSTM(3, return_sequences=True),
                                               input_shape=(5, 2)),
                               L.Bidirectional(L.GRU(2)), L.Dense(1)])
    assert seq.output_shape == (None, 1)
    assert len(seq.weights) == 6 + 6 + 2


def test_bidirectional_trains_with_a_tape():
    tf.keras.utils.set_random_seed(1)
    layer = L.Bidirectional(L.LSTM(2))
    x, y = _rand(4, 3, 2), _rand(4, 4, seed=3)
    opt = tf.keras.optimizers.SGD(0.5)
    losses = []
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((layer(x) - y) ** 2)
        grads = tape.gradient(loss, layer.trainable_weights)
        assert all(g is not None for g in grads)
        opt.apply_gradients(zip(grads, layer.trainable_weights))
        losses.append(float(loss.detach()))
    assert losses[-1] < losses[0]


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make,x", [
    (lambda: L.TimeDistributed(L.Dense(3, activation="tanh")),
     np.random.default_rng(1).uniform(-1, 1, (4, 3, 5))),
    (lambda: L.Bidirectional(L.GRU(2, return_sequences=True)),
     np.random.default_rng(2).uniform(-1, 1, (4, 3, 5))),
    (lambda: L.Bidirectional(L.LSTM(2), merge_mode="sum"),
     np.random.default_rng(3).uniform(-1, 1, (4, 3, 5))),
])
def test_mirrored_equals_one_device(strategy, make, x):
    assert_mirrored_equals_one_device(strategy, make, torch.tensor(x, dtype=torch.float32))
