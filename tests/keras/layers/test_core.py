"""The core layers (Dense, EinsumDense, Activation, Embedding, Masking, Lambda, Identity):
shape law, config round trip, errors that change nothing, masks, Lambda serialization
without code, the functional API and MirroredStrategy. Numerics vs tf_keras are in
tests/keras/golden/cases_core.py and cases_dense.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@given(dims=st.lists(st.integers(1, 4), min_size=2, max_size=4), units=st.integers(1, 5))
def test_dense_output_shape_law(dims, units):
    layer = L.Dense(units)
    out = layer(torch.rand(dims))
    assert list(out.shape) == layer.compute_output_shape(dims).as_list() == dims[:-1] + [units]
    assert layer.kernel.shape.as_list() == [dims[-1], units]


@given(form=st.sampled_from(["ab,bc->ac", "abc,cd->abd", "...b,bc->...c", "ab...,bc->ac...",
                             "abc,cde->abde"]),
       dims=st.lists(st.integers(1, 4), min_size=3, max_size=3), out=st.integers(1, 4),
       bias=st.booleans())
def test_einsum_dense_output_shape_law(form, dims, out, bias):
    shapes = {"ab,bc->ac": (dims[:2], [out]), "abc,cd->abd": (dims, [dims[1], out]),
              "...b,bc->...c": (dims, [out]), "ab...,bc->ac...": (dims, [out]),
              "abc,cde->abde": (dims, [dims[1], 2, out])}
    shape, output_shape = shapes[form]
    bias_axes = form.split("->")[1].replace(".", "")[-1] if bias else None
    layer = L.EinsumDense(form, output_shape, bias_axes=bias_axes)
    want = layer.compute_output_shape(shape)  # unbuilt: from the equation
    assert list(layer(torch.rand(shape)).shape) == want.as_list()
    assert layer.compute_output_shape(shape) == want


@given(dims=st.lists(st.integers(1, 4), min_size=1, max_size=3), out=st.integers(1, 4),
       known=st.booleans())
def test_embedding_output_shape_law(dims, out, known):
    shape = [2] + dims
    layer = L.Embedding(5, out, input_length=(dims if known else None))
    ids = torch.randint(0, 5, shape)
    assert list(layer(ids).shape) == layer.compute_output_shape(shape).as_list()


@pytest.mark.parametrize("layer", [lambda: L.Activation("tanh"), lambda: L.Identity(),
                                   lambda: L.Masking(), lambda: L.Lambda(lambda x: x[:, :2])])
def test_elementwise_output_shape_law(layer):
    layer = layer()
    out = layer(torch.rand(3, 4, 5))
    assert list(out.shape) == layer.compute_output_shape([3, 4, 5]).as_list()


# -- get_config / from_config round trip ------------------------------------------------
def double(x):
    return x * 2.0


@pytest.mark.parametrize("make", [
    lambda: L.Dense(3, activation="relu", kernel_regularizer="l2", bias_constraint="non_neg"),
    lambda: L.EinsumDense("abc,cd->abd", (None, 4), bias_axes="d", activation="tanh"),
    lambda: L.Activation("softmax"), lambda: L.Identity(), lambda: L.Masking(-1.0),
    lambda: L.Embedding(10, 3, mask_zero=True, input_length=4,
                        embeddings_initializer="ones"),
    lambda: L.Lambda(double, output_shape=(4,), arguments={"unused": 1}),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config


# -- Lambda: serialization never executes code ----------------------------------------------
def test_lambda_of_a_python_lambda_does_not_deserialize():
    config = L.Lambda(lambda x: x + 1).get_config()
    assert config["function_type"] == "lambda" and config["function"] == "<lambda>"
    with pytest.raises(ValueError, match="custom_objects"):
        L.Lambda.from_config(config)
    # a tf_keras-written config (marshalled bytecode) is refused the same way
    config["function"] = ["4wEAAAAAAAAA", None, None]
    with pytest.raises(ValueError, match="never deserializes"):
        L.Lambda.from_config(config)


def test_lambda_named_function_resolves_from_custom_objects():
    def hidden(x):
        return x - 1.0
    config = L.Lambda(hidden).get_config()
    assert config["function"] == "hidden" and config["function_type"] == "function"
    with pytest.raises(ValueError, match="Unknown function"):
        L.Lambda.from_config(dict(config))
    layer = L.Lambda.from_config(dict(config), custom_objects={"hidden": hidden})
    assert layer.function is hidden
    with tf.keras.utils.custom_object_scope({"hidden": hidden}):
        assert L.Lambda.from_config(dict(config)).function is hidden
    np.testing.assert_array_equal(layer(torch.ones(2, 2)).numpy(), np.zeros((2, 2)))


def test_lambda_passes_mask_and_training_when_named():
    seen = {}

    def fn(x, mask=None, training=None):
        seen.update(mask=mask, training=training)
        return x

    x = L.Masking()(torch.tensor([[[0.0], [1.0]]]))
    L.Lambda(fn)(x, training=True)
    assert seen["training"] is True
    np.testing.assert_array_equal(seen["mask"].numpy(), [[False, True]])


def test_lambda_refuses_variables_it_creates():
    layer = L.Lambda(lambda x: x * tf.Variable(2.0))
    with pytest.raises(ValueError, match="were created within a Lambda layer"):
        layer(torch.ones(2))
    assert layer.weights == []


# -- masks -------------------------------------------------------------------------------
def test_masking_zeroes_and_masks_the_timesteps():
    x = torch.tensor([[[1.0, 2.0], [5.0, 5.0], [5.0, 3.0]]])
    out = L.Masking(5.0)(x)  # a timestep is masked only when every feature is mask_value
    np.testing.assert_array_equal(out.numpy(), [[[1, 2], [0, 0], [5, 3]]])
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True]])


def test_embedding_mask_zero_and_casts_float_ids():
    layer = L.Embedding(4, 2, mask_zero=True, embeddings_initializer="ones")
    out = layer(torch.tensor([[0.0, 3.0]]))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[False, True]])
    assert L.Embedding(4, 2).compute_mask(torch.tensor([[0, 1]])) is None
    assert layer.embeddings.dtype == tf.float32 and out.dtype == torch.float32


def test_embedding_mixed_policy_keeps_float32_table():
    layer = L.Embedding(4, 2, dtype="mixed_float16")
    out = layer(torch.tensor([[1, 2]]))
    assert layer.embeddings.dtype == tf.float32 and out.dtype == torch.float16


# -- errors (tf_keras's classes and texts); a failed call changes nothing -------------------
def test_dense_wrong_last_dim_after_build_changes_nothing():
    layer = L.Dense(2)
    layer(torch.ones(3, 4))
    before = [w.copy() for w in layer.get_weights()]
    with pytest.raises(ValueError, match="incompatible with the layer"):
        layer(torch.ones(3, 5))
    for a, b in zip(before, layer.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="should be defined. Found None"):
        L.Dense(2)(tf.keras.Input((None,)))


def test_einsum_dense_errors_leave_it_unbuilt():
    layer = L.EinsumDense("ab,bc->ac", 3, bias_axes="x")
    with pytest.raises(ValueError, match="Bias dimension 'x' was requested"):
        layer(torch.ones(2, 4))
    assert not layer.built and layer.weights == []
    with pytest.raises(ValueError, match="Invalid einsum equation 'ab->b'"):
        L.EinsumDense("ab->b", 3)(torch.ones(2, 4))
    with pytest.raises(ValueError, match="do not match at shared dimension 'b'"):
        L.EinsumDense("abc,cd->abd", (7, 4))(torch.ones(2, 3, 5))


def test_embedding_errors():
    with pytest.raises(ValueError, match="Both `input_dim` and `output_dim` should be positive"):
        L.Embedding(3, 0)
    with pytest.raises(ValueError, match='"input_length" is 5'):
        L.Embedding(3, 2, input_length=5).compute_output_shape((2, 4))


# -- the functional API: a None batch ------------------------------------------------------
def test_functional_shapes():
    x = tf.keras.Input((6, 4))
    assert L.Dense(3)(x).shape.as_list() == [None, 6, 3]
    assert L.EinsumDense("abc,cd->abd", (6, 2), bias_axes="d")(x).shape.as_list() == \
        [None, 6, 2]
    assert L.Masking()(x).shape.as_list() == [None, 6, 4]
    assert L.Lambda(lambda t: t[:, 0])(x).shape.as_list() == [None, 4]
    # as tf_keras: a functional call traces the function; output_shape is compute_output_shape's
    fixed = L.Lambda(double, output_shape=(9,))
    assert fixed(x).shape.as_list() == [None, 6, 4]
    assert fixed.compute_output_shape((None, 6, 4)).as_list() == [None, 9]
    ids = tf.keras.Input((None,), dtype="int32")
    emb = L.Embedding(10, 5, mask_zero=True)(ids)
    assert emb.shape.as_list() == [None, None, 5]


def test_functional_mask_propagates_into_a_model():
    ids = tf.keras.Input((None,), dtype="int32")
    emb = L.Embedding(10, 5, mask_zero=True, embeddings_initializer="ones")(ids)
    model = tf.keras.Model(ids, L.GlobalAveragePooling1D()(emb))
    out = model(torch.tensor([[1, 2, 0, 0]]))
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 5)))


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make,x", [
    (lambda: L.Dense(3, activation="tanh"), np.random.default_rng(1).uniform(-1, 1, (4, 5))),
    (lambda: L.EinsumDense("abc,cd->abd", (3, 2), bias_axes="d"),
     np.random.default_rng(2).uniform(-1, 1, (4, 3, 5))),
])
def test_mirrored_equals_one_device(strategy, make, x):
    assert_mirrored_equals_one_device(strategy, make, torch.tensor(x, dtype=torch.float32))
