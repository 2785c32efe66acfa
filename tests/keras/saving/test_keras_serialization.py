"""`tfcompat.keras.saving.serialization`: tf_keras 2.21's config formats and name resolution.

(Named `test_keras_serialization.py` so that its module name differs from
`tests/variables/test_serialization.py` under pytest's default import mode.)
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.keras import activations, constraints, initializers, regularizers
from tfcompat.keras.saving import object_registration as registration
from tfcompat.keras.saving import serialization as S


def test_public_class_record_is_tf_keras_format():
    # What tf_keras 2.21 embeds as Dense(3).get_config()["kernel_initializer"].
    assert S.serialize_keras_object(initializers.GlorotUniform()) == {
        "module": "keras.initializers", "class_name": "GlorotUniform",
        "config": {"seed": None}, "registered_name": None}
    assert S.serialize_keras_object(initializers.Zeros())["config"] == {}


def test_function_record_is_tf_keras_builtins_record():
    assert S.serialize_keras_object(activations.relu) == {
        "module": "builtins", "class_name": "function", "config": "relu",
        "registered_name": "function"}


@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=False),
              st.text(max_size=4)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=3), children, max_size=3)),
    max_leaves=8))
def test_plain_values_round_trip(value):
    config = S.serialize_keras_object(value)
    assert S.deserialize_keras_object(config) == value


def test_tensors_arrays_and_dtypes():
    config = S.serialize_keras_object({"t": tf.constant([1.5, 2.0], dtype=tf.float64),
                                       "a": np.array([1, 2], np.int32), "d": tf.float16,
                                       "s": np.float32(0.5)})
    assert config["t"] == {"class_name": "__tensor__",
                           "config": {"value": [1.5, 2.0], "dtype": "float64"}}
    assert config["a"] == {"class_name": "__numpy__",
                           "config": {"value": [1, 2], "dtype": "int32"}}
    assert config["d"] == "float16" and config["s"] == 0.5
    json.dumps(config)
    back = S.deserialize_keras_object(config)
    assert back["t"].dtype == torch.float64 and back["t"].tolist() == [1.5, 2.0]
    assert back["a"].dtype == np.int32


def test_custom_object_scope_and_registry_resolve_names():
    class Scaled(initializers.Initializer):
        def __init__(self, factor=1.0):
            self.factor = factor

        def __call__(self, shape, dtype=None, **kwargs):
            return self.factor * tf.ones(shape)

        def get_config(self):
            return {"factor": self.factor}

    config = S.serialize_keras_object(Scaled(3.0))
    assert config["class_name"] == "Scaled" and config["registered_name"] == "Scaled"
    with pytest.raises(TypeError, match="Could not locate class 'Scaled'|cannot be imported"):
        S.deserialize_keras_object(dict(config, module="tfcompat.keras.initializers"))
    with registration.custom_object_scope({"Scaled": Scaled}):
        restored = initializers.deserialize(config)
    assert isinstance(restored, Scaled) and restored.factor == 3.0
    assert isinstance(initializers.deserialize(config, custom_objects={"Scaled": Scaled}), Scaled)


def test_registered_function_serializes_by_registered_name():
    @registration.register_keras_serializable(package="Leaf")
    def leaf_double(x):
        return 2 * x

    assert activations.serialize(leaf_double) == {
        "module": "builtins", "class_name": "function", "config": "Leaf>leaf_double",
        "registered_name": "function"}
    assert activations.get(activations.serialize(leaf_double)) is leaf_double
    assert activations.get("Leaf>leaf_double") is leaf_double


def test_module_none_is_tf_keras_type_error():
    with pytest.raises(TypeError, match="Cannot deserialize object of type `Nope`"):
        initializers.deserialize({"module": None, "class_name": "Nope", "config": {},
                                  "registered_name": None})


def test_legacy_passive_serialization_round_trip():
    config = S.legacy_serialize_keras_object(regularizers.L1L2(l1=0.5))
    assert config == {"class_name": "L1L2", "config": {"l1": 0.5, "l2": 0.0}}
    restored = regularizers.get(config)
    assert isinstance(restored, regularizers.L1L2) and restored.get_config() == config["config"]


def test_legacy_unknown_name_text():
    with pytest.raises(ValueError, match="Unknown constraint: 'nope'. Please ensure"):
        S.legacy_deserialize_keras_object("nope", module_objects={},
                                          printable_module_name="constraint")
    with pytest.raises(ValueError, match="Improper config format"):
        S.class_and_config_for_serialized_keras_object({"class_name": "X"})


def test_deserialize_never_rewrites_the_callers_config():
    config = {"class_name": "Constant", "config": {"value": 2.0, "dtype": "float32"}}
    snapshot = json.loads(json.dumps(config))
    initializers.get(config)
    assert config == snapshot


def test_lambda_refused_when_loading():
    with pytest.raises(ValueError, match="disallowed by default"):
        S.deserialize_keras_object({"class_name": "__lambda__", "config": {"value": "x"}})


@pytest.mark.parametrize("module,obj", [
    (initializers, initializers.HeUniform(seed=2)),
    (regularizers, regularizers.OrthogonalRegularizer(0.5, "columns")),
    (constraints, constraints.MinMaxNorm(0.1, 2.0, 0.5, 1)),
])
def test_json_round_trip_through_each_module(module, obj):
    text = json.dumps(module.serialize(obj))
    restored = module.get(json.loads(text))
    assert type(restored) is type(obj) and restored.get_config() == obj.get_config()


def test_public_signature_takes_custom_objects_second():
    class Box(initializers.Initializer):
        def __call__(self, shape, dtype=None, **kwargs):
            return tf.zeros(shape)

    config = {"module": "nowhere", "class_name": "Box", "config": {}, "registered_name": "Box"}
    assert isinstance(S.public_deserialize_keras_object(config, {"Box": Box}), Box)
    with pytest.raises(ValueError, match="not supported: \\['bogus'\\]"):
        S.public_deserialize_keras_object(config, bogus=1)
