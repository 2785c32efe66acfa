"""Functional configs of layers called with more than one tensor: every argument after the
first goes into the node's kwargs by parameter name, tensors as `[layer, node, tensor]`
(tf_keras 2.21's records, recorded), and the config rebuilds the same model."""

from __future__ import annotations

import json

import numpy as np

import tfcompat as tf

L = tf.keras.layers


def test_multi_head_attention_query_and_value_record_as_tf_keras():
    q, v = tf.keras.Input((4, 6)), tf.keras.Input((5, 6))
    model = tf.keras.Model([q, v], L.MultiHeadAttention(2, 3)(q, v))
    config = model.get_config()
    # tf_keras 2.21: [[['input_1', 0, 0, {'value': ['input_2', 0, 0]}]]]
    assert config["layers"][2]["inbound_nodes"] == [
        [[config["layers"][0]["name"], 0, 0, {"value": [config["layers"][1]["name"], 0, 0]}]]]
    json.dumps(config)
    rebuilt = tf.keras.Model.from_config(config)
    rebuilt.set_weights(model.get_weights())
    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=(2, 4, 6)).astype("f"), rng.uniform(size=(2, 5, 6)).astype("f")
    np.testing.assert_array_equal(rebuilt([a, b]).numpy(), model([a, b]).numpy())
    assert rebuilt.get_config() == config


def test_keyword_tensor_arguments_are_recorded_and_replayed():
    q, v = tf.keras.Input((3, 4)), tf.keras.Input((3, 4))
    mask = tf.keras.Input((3, 3), dtype="bool")
    out = L.MultiHeadAttention(1, 2)(q, value=v, key=v, attention_mask=mask)
    model = tf.keras.Model([q, v, mask], out)
    node = model.get_config()["layers"][-1]["inbound_nodes"][0][0]
    assert set(node[3]) == {"value", "key", "attention_mask"}
    rebuilt = tf.keras.Model.from_config(model.get_config())
    rebuilt.set_weights(model.get_weights())
    rng = np.random.default_rng(1)
    data = [rng.uniform(size=(2, 3, 4)).astype("f"), rng.uniform(size=(2, 3, 4)).astype("f"),
            rng.uniform(size=(2, 3, 3)) > 0.3]
    np.testing.assert_array_equal(rebuilt(data).numpy(), model(data).numpy())


def test_non_json_arguments_raise_tf_keras_type_error():
    class TakesAnything(L.Layer):
        def call(self, x, extra=None):
            return x

    x = tf.keras.Input((2,))
    model = tf.keras.Model(x, TakesAnything()(x, extra=object()))
    try:
        model.get_config()
    except TypeError as e:
        assert "was passed non-JSON-serializable arguments" in str(e)
    else:
        raise AssertionError("no error")


# -- RNN states from Keras tensors join the node's inputs, as tf_keras records them ---------
def _fixture():
    import os
    path = os.path.join(os.path.dirname(__file__), "fixtures", "state_input_configs.json")
    with open(path) as f:
        return json.load(f)


def _nodes(config):
    return {layer["name"]: layer["inbound_nodes"] for layer in config["config"]["layers"]}


def test_rnn_state_inputs_config_equals_tf_keras():
    from tests.keras.engine.gen_state_input_configs import models
    tf.keras.backend.clear_session()
    ours = {name: json.loads(m.to_json()) for name, m in models(tf.keras).items()}
    theirs = _fixture()
    for name in ("lstm", "bidirectional"):
        assert _nodes(ours[name]) == _nodes(theirs[name]), name


def test_tf_keras_configs_with_state_inputs_rebuild_and_run():
    rng = np.random.default_rng(2)
    for name, config in _fixture().items():
        model = tf.keras.models.model_from_json(json.dumps(config))
        data = [rng.uniform(size=(2,) + tuple(x.shape[1:])).astype("f") for x in model.inputs]
        out = model(data)
        assert out.shape[0] == 2
        rebuilt = tf.keras.Model.from_config(model.get_config())
        rebuilt.set_weights(model.get_weights())
        np.testing.assert_array_equal(rebuilt(data).numpy(), out.numpy())


def test_state_inputs_give_the_eager_result():
    rng = np.random.default_rng(3)
    x, h = tf.keras.Input((5, 3)), tf.keras.Input((2,))
    bi = L.Bidirectional(L.SimpleRNN(2))
    model = tf.keras.Model([x, h], bi(x, initial_state=[h, h]))
    a, b = rng.uniform(size=(2, 5, 3)).astype("f"), rng.uniform(size=(2, 2)).astype("f")
    np.testing.assert_array_equal(model([a, b]).numpy(), bi(a, initial_state=[b, b]).numpy())
    rnn = L.GRU(2)
    model = tf.keras.Model([x, h], rnn(x, initial_state=[h]))
    np.testing.assert_array_equal(model([a, b]).numpy(), rnn(a, initial_state=[b]).numpy())


def test_an_output_from_an_input_not_given_is_graph_disconnected():
    """tf_keras 2.21: `Model(Input A, Dense(Input B))` raises "Graph disconnected"."""
    a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
    layer = L.Dense(2, name="disconnected_dense")
    try:
        tf.keras.Model(a, layer(b))
    except ValueError as e:
        assert str(e).startswith("Graph disconnected: cannot obtain value for tensor ")
        assert 'at layer "disconnected_dense"' in str(e)
    else:
        raise AssertionError("no error")
    shared = L.Dense(2)
    model = tf.keras.Model([a, b], L.Add()([shared(a), shared(b)]))  # both given: fine
    assert len(model.inputs) == 2


# -- a model checks its inputs against its Inputs (tf_keras's Functional.input_spec) --------
def test_a_model_refuses_a_wrong_input_shape_with_tf_keras_text():
    """tf_keras 2.21 (recorded): 'Input 0 of layer "sequential" is incompatible with the
    layer: expected shape=(None, 3), found shape=(2, 4)'."""
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,))], name="seq_spec")
    try:
        model(np.ones((2, 4), np.float32))
    except ValueError as e:
        assert str(e) == ('Input 0 of layer "seq_spec" is incompatible with the layer: '
                          "expected shape=(None, 3), found shape=(2, 4)")
    else:
        raise AssertionError("no error")
    x = tf.keras.Input((3,))
    functional = tf.keras.Model(x, L.Dense(2)(x), name="fun_spec")
    try:
        functional(np.ones((2, 4), np.float32))
    except ValueError as e:
        assert str(e).startswith('Input 0 of layer "fun_spec" is incompatible')
    else:
        raise AssertionError("no error")


def test_a_trailing_unit_axis_is_squeezed_or_added_as_tf_keras_does():
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    np.testing.assert_array_equal(model(np.ones((2, 3, 1), np.float32)).numpy(),
                                  model(np.ones((2, 3), np.float32)).numpy())
    x = tf.keras.Input((3, 1))
    flat = tf.keras.Model(x, L.Flatten()(x))
    assert flat(np.ones((2, 3), np.float32)).shape == (2, 3)


def test_a_deferred_sequential_has_no_model_level_spec():
    model = tf.keras.Sequential([L.Dense(2)])
    model(np.ones((2, 3), np.float32))
    assert model.input_spec is None
