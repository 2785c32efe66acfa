"""Models as tf_keras 2.21 builds them: Input, functional Model, Sequential, subclassed Model.

Expected names, configs and checkpoint keys are tf_keras 2.21's for the same code (checked
in TF eager): `Model(x, y)` is named `model` and lists its InputLayer first; a Sequential
with `input_shape=` is built at once (`dense/kernel:0`) and saves `layer_with_weights-0/...`;
configs are tf_keras's JSON key for key.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import tfcompat as tf


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


def _mlp():
    x = tf.keras.Input((4,))
    h = tf.keras.layers.Dense(3, activation="relu")(x)
    y = tf.keras.layers.Dense(2)(h)
    return tf.keras.Model(x, [y, h])


def test_functional_model_names_layers_and_runs_as_the_composition():
    model = _mlp()
    assert type(model).__name__ == "Functional" and isinstance(model, tf.keras.Model)
    assert model.name == "model" and [l.name for l in model.layers] == ["input_1", "dense", "dense_1"]
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0",
                                               "dense_1/kernel:0", "dense_1/bias:0"]
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    y, h = model(x)
    dense, dense_1 = model.layers[1], model.layers[2]
    want_h = tf.nn.relu(tf.matmul(torch.from_numpy(x), dense.kernel) + dense.bias)
    assert torch.equal(h, want_h)
    assert torch.equal(y, tf.matmul(want_h, dense_1.kernel) + dense_1.bias)
    assert model.get_layer("dense") is dense and model.get_layer(index=2) is dense_1
    with pytest.raises(ValueError, match="No such layer: nope"):
        model.get_layer("nope")


def test_functional_config_is_tf_keras_json_and_round_trips():
    model = _mlp()
    config = json.loads(json.dumps(model.get_config()))
    assert config["input_layers"] == [["input_1", 0, 0]]
    assert config["output_layers"] == [["dense_1", 0, 0], ["dense", 0, 0]]
    assert config["layers"][0] == {
        "module": "keras.layers", "class_name": "InputLayer",
        "config": {"batch_input_shape": [None, 4], "dtype": "float32", "sparse": False,
                   "ragged": False, "name": "input_1", "optional": False},
        "registered_name": None, "name": "input_1", "inbound_nodes": []}
    assert config["layers"][2]["inbound_nodes"] == [[["dense", 0, 0, {}]]]
    assert config["layers"][2]["build_config"] == {"input_shape": [None, 3]}
    rebuilt = tf.keras.Model.from_config(config)
    rebuilt.set_weights(model.get_weights())
    x = torch.ones(2, 4)
    for a, b in zip(rebuilt(x), model(x)):
        assert torch.equal(a, b)
    restored = tf.keras.models.model_from_json(model.to_json())
    assert [l.name for l in restored.layers] == ["input_1", "dense", "dense_1"]


def test_graph_errors():
    x = tf.keras.Input((4,))
    with pytest.raises(ValueError, match="Please provide to Input a `shape`"):
        tf.keras.Input()
    other = tf.keras.Input((4,))
    y = tf.keras.layers.Add()([x, other]) if hasattr(tf.keras.layers, "Add") else None
    z = tf.keras.layers.Dense(2)(x)
    with pytest.raises(ValueError, match="must come from `tf.keras.Input`"):
        tf.keras.Model(z, z)
    del y


def test_sequential_with_an_input_shape_is_built_at_once():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)),
                                 tf.keras.layers.Dense(2)])
    assert model.built and model.name == "sequential"
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0",
                                               "dense_1/kernel:0", "dense_1/bias:0"]
    assert model.output_shape == (None, 2) and len(model.layers) == 2
    config = model.get_config()
    assert [l["class_name"] for l in config["layers"]] == ["InputLayer", "Dense", "Dense"]
    assert config["layers"][0]["config"]["name"] == "dense_input"
    rebuilt = tf.keras.Sequential.from_config(config)
    assert [type(l).__name__ for l in rebuilt.layers] == ["Dense", "Dense"]
    with pytest.raises(ValueError, match="should have unique names"):
        model.add(tf.keras.layers.Dense(2, name="dense"))
    with pytest.raises(TypeError, match="must be an instance of class Layer"):
        model.add("dense")
    model.pop()
    assert model.output_shape == (None, 3)


def test_sequential_deferred_build_and_checkpoint_keys(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
    assert not model.built
    with pytest.raises(ValueError, match="Weights for model 'sequential.*' have not yet been "
                                         "created"):
        model.weights  # tf_keras 2.21 (recorded): no misleading []
    assert model(torch.ones(5, 4)).shape == (5, 2)
    # tf_keras 2.21 (recorded): the graph is built on the first call's shape, then relaxed
    assert model.built and model.output_shape == (5, 2)
    model(torch.ones(3, 4))
    assert model.output_shape == (None, 2)
    keys = [k for k, _ in tf.train.list_variables(
        tf.train.Checkpoint(model=model).write(str(tmp_path / "ck")))]
    assert "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert not any("layer-" in k for k in keys)  # each variable once, by its first path


def test_subclassed_model():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(3)
            self.out = tf.keras.layers.Dense(1)

        def call(self, x, training=None):
            return self.out(self.hidden(x))

    net = Net()
    net(torch.ones(2, 4))
    assert net.name == "net" and [l.name for l in net.layers] == ["dense", "dense_1"]
    assert [w.name for w in net.weights][0] == "net/dense/kernel:0"
    built = Net()
    built.build((None, 6))
    assert built.built and tuple(built.hidden.kernel.shape) == (6, 3)
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        tf.keras.Model(bogus=1)


def test_functional_layers_are_ordered_by_depth_as_tf_keras():
    """tf_keras 2.21 (checked live): deepest layers first, ties in discovery order."""
    a, b = tf.keras.Input((3,)), tf.keras.Input((3,))
    shared = tf.keras.layers.Dense(2)
    two_inputs = tf.keras.Model([a, b], [shared(a), shared(b)])
    assert [l.name for l in two_inputs.layers] == ["input_1", "input_2", "dense"]
    x = tf.keras.Input((3,))
    h1 = tf.keras.layers.Dense(2, name="h1")(x)
    h2 = tf.keras.layers.Dense(2, name="h2")(tf.keras.layers.Dense(2, name="h0")(x))
    branches = tf.keras.Model(x, [h1, h2])
    assert [l.name for l in branches.layers] == ["input_3", "h0", "h1", "h2"]


def test_unbuilt_models_with_a_build_refuse_to_list_weights_as_tf_keras():
    """tf_keras 2.21: Sequential and subclasses defining `build` raise before they are built;
    a subclass without its own `build`, and layers, list [] (recorded)."""
    class WithBuild(tf.keras.Model):
        def build(self, input_shape):
            self.d = tf.keras.layers.Dense(2)
            super().build(input_shape)

        def call(self, x):
            return self.d(x)

    class WithoutBuild(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    for model in (tf.keras.Sequential([tf.keras.layers.Dense(2)]), WithBuild()):
        for attribute in ("weights", "trainable_weights", "non_trainable_weights"):
            with pytest.raises(ValueError, match="have not yet been created"):
                getattr(model, attribute)
    assert WithoutBuild().weights == [] and tf.keras.layers.Dense(2).weights == []
    built = WithBuild()
    built(torch.ones(1, 3))
    assert len(built.weights) == 2
