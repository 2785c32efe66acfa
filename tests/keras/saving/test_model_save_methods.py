"""`Model.save_weights` / `load_weights` / `save` and `tf.keras.models.save_model` /
`load_model` are the saving functions as methods: every model kind, both formats, round trips,
and a tf_keras-written file read through the method. The formats themselves are tested in
test_weights_files.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfcompat as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _functional():
    inputs = tf.keras.Input((3,))
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(tf.keras.layers.Dense(4)(inputs)))


def _sequential():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,)),
                                tf.keras.layers.Dense(2)])


class _Sub(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(4)
        self.d2 = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.d2(self.d1(x))


def _subclassed():
    model = _Sub()
    model(np.zeros((1, 3), np.float32))
    return model


@pytest.mark.parametrize("make", [_functional, _sequential, _subclassed])
@pytest.mark.parametrize("suffix", ["ckpt", "w.h5"])
def test_save_weights_then_load_weights_restores_every_weight(tmp_path, make, suffix):
    pytest.importorskip("h5py") if suffix.endswith("h5") else None
    tf.keras.utils.set_random_seed(1)
    model = make()
    path = str(tmp_path / suffix)
    model.save_weights(path)
    tf.keras.utils.set_random_seed(2)
    other = make()
    assert not np.array_equal(other.get_weights()[0], model.get_weights()[0])
    status = other.load_weights(path)
    assert (status is None) == suffix.endswith("h5")
    for got, want in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_the_methods_are_the_saving_functions(tmp_path):
    model = _functional()
    model.save_weights(str(tmp_path / "a"))
    tf.keras.saving.save_weights(model, str(tmp_path / "b"))
    reader_a = tf.train.load_checkpoint(str(tmp_path / "a"))
    reader_b = tf.train.load_checkpoint(str(tmp_path / "b"))
    assert reader_a.get_variable_to_shape_map() == reader_b.get_variable_to_shape_map()
    assert "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE" in \
        reader_a.get_variable_to_shape_map()


def test_model_save_and_models_load_model_round_trip(tmp_path):
    pytest.importorskip("h5py")
    model = _functional()
    path = str(tmp_path / "m.h5")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    x = np.random.default_rng(0).uniform(size=(5, 3)).astype(np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    tf.keras.models.save_model(loaded, str(tmp_path / "n.h5"))
    assert os.path.exists(tmp_path / "n.h5")


def test_savedmodel_directory_is_refused_and_nothing_is_written(tmp_path):
    model = _functional()
    with pytest.raises(NotImplementedError, match="supported"):
        model.save(str(tmp_path / "saved_model"))
    assert not os.path.exists(tmp_path / "saved_model")


def test_load_weights_of_a_missing_file_raises_and_changes_nothing(tmp_path):
    model = _functional()
    before = model.get_weights()
    with pytest.raises(Exception):
        model.load_weights(str(tmp_path / "nothing_here"))
    for got, want in zip(model.get_weights(), before):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["mlp", "lstm", "cnn"])
@pytest.mark.parametrize("kind", ["ckpt", "h5"])
def test_load_weights_method_reads_tf_keras_files(name, kind):
    """Files written by tf_keras 2.21 (gen_weights_fixtures.py) through `model.load_weights`."""
    if kind == "h5":
        pytest.importorskip("h5py")
    from tests.keras.saving.weights_models import MODELS
    build, _ = MODELS[name]
    tf.keras.backend.clear_session()
    model = build(tf.keras)
    path = os.path.join(FIXTURES, f"{name}_ckpt", "ckpt") if kind == "ckpt" else \
        os.path.join(FIXTURES, f"{name}.h5")
    model.load_weights(path)
    values = np.load(os.path.join(FIXTURES, "values.npz"))
    for layer in model.layers:
        for i, got in enumerate(layer.get_weights()):
            np.testing.assert_array_equal(got, values[f"{name}/{layer.name}/{i}"])
