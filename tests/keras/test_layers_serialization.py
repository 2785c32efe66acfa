"""`tf.keras.layers.serialize` / `deserialize` as tf_keras 2.21 writes and reads them."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf

# tf_keras 2.21: tf.keras.layers.serialize(Dense(3, name="d")) after build((None, 2))
TF_KERAS_DENSE = {
    "module": "keras.layers", "class_name": "Dense",
    "config": {"name": "d", "trainable": True, "dtype": "float32", "units": 3,
               "activation": "linear", "use_bias": True,
               "kernel_initializer": {"module": "keras.initializers",
                                      "class_name": "GlorotUniform",
                                      "config": {"seed": None}, "registered_name": None},
               "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
                                    "config": {}, "registered_name": None},
               "kernel_regularizer": None, "bias_regularizer": None,
               "activity_regularizer": None, "kernel_constraint": None,
               "bias_constraint": None},
    "registered_name": None, "build_config": {"input_shape": (None, 2)}}


def test_serialize_matches_tf_keras():
    layer = tf.keras.layers.Dense(3, name="d")
    layer.build((None, 2))
    assert tf.keras.layers.serialize(layer) == TF_KERAS_DENSE
    legacy = tf.keras.layers.serialize(layer, use_legacy_format=True)
    assert legacy == {"class_name": "Dense", "config": TF_KERAS_DENSE["config"]}
    unbuilt = tf.keras.layers.serialize(tf.keras.layers.Dense(3, name="d"))
    assert "build_config" not in unbuilt


def test_deserialize_both_formats():
    layer = tf.keras.layers.deserialize(TF_KERAS_DENSE)
    assert type(layer).__name__ == "Dense" and layer.name == "d" and layer.units == 3
    legacy = tf.keras.layers.deserialize({"class_name": "Dense", "config": {"units": 2}})
    assert legacy.units == 2


@settings(max_examples=15, deadline=None)
@given(units=st.integers(1, 8), use_bias=st.booleans(),
       activation=st.sampled_from(["relu", "linear", "tanh", "sigmoid"]))
def test_round_trip(units, use_bias, activation):
    layer = tf.keras.layers.Dense(units, use_bias=use_bias, activation=activation)
    again = tf.keras.layers.deserialize(tf.keras.layers.serialize(layer))
    assert again.get_config() == layer.get_config()


def test_custom_objects_and_models():
    class Mine(tf.keras.layers.Layer):
        pass

    record = tf.keras.layers.serialize(Mine(name="m"))
    assert record["module"] == __name__ and record["registered_name"] == "Mine"
    assert type(tf.keras.layers.deserialize(record, custom_objects={"Mine": Mine})) is Mine
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    rebuilt = tf.keras.layers.deserialize(tf.keras.layers.serialize(model))
    assert type(rebuilt).__name__ == "Sequential"
    assert rebuilt(torch.ones(1, 3)).shape == (1, 2)


def test_op_layer_serializes():
    x = tf.keras.Input((4,))
    layer = tf.concat([x, x], 1)._keras_history.layer
    record = tf.keras.layers.serialize(layer)
    assert record["class_name"] == "TFOpLambda"
    assert record["config"]["function"] == "concat"
    assert record["build_config"] == {"input_shape": [(None, 4), (None, 4)]}
    again = tf.keras.layers.deserialize(record)
    assert again.function is tf.concat


@pytest.mark.parametrize("config", [{}, None])
def test_empty_config_is_refused(config):
    with pytest.raises(ValueError, match="Cannot deserialize empty config"):
        tf.keras.layers.deserialize(config)


def test_unknown_class_is_refused():
    with pytest.raises(ValueError, match="Unknown layer: 'Nope'"):
        tf.keras.layers.deserialize({"class_name": "Nope", "config": {}})
