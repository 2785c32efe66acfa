"""The image layers (convolutional, pooling, activation, BatchNormalization, Flatten, Reshape,
Dropout): shape law, config round trip, errors that change nothing, the functional API and
MirroredStrategy. Numerics vs tf_keras are in tests/keras/golden/cases_image.py."""

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
@given(rank=st.sampled_from([1, 2, 3]), size=st.integers(4, 9), k=st.integers(1, 3),
       stride=st.integers(1, 3), dilation=st.integers(1, 2),
       padding=st.sampled_from(["valid", "same", "causal"]),
       first=st.booleans(), channels=st.integers(1, 3), filters=st.integers(1, 4))
def test_conv_output_shape_law(rank, size, k, stride, dilation, padding, first, channels,
                               filters):
    if stride > 1:
        dilation = 1
    if padding == "causal" and rank != 1:
        padding = "same"
    layer = [L.Conv1D, L.Conv2D, L.Conv3D][rank - 1](
        filters, k, strides=stride, dilation_rate=dilation, padding=padding,
        data_format="channels_first" if first else "channels_last")
    spatial = [size] * rank
    shape = [2, channels] + spatial if first else [2] + spatial + [channels]
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()
    assert layer.kernel.shape.as_list() == [k] * rank + [channels, filters]


@given(size=st.integers(3, 9), pool=st.integers(1, 3), stride=st.integers(1, 3),
       padding=st.sampled_from(["valid", "same"]), two_d=st.booleans(),
       first=st.booleans(), kind=st.sampled_from(["Max", "Average"]))
def test_pooling_output_shape_law(size, pool, stride, padding, two_d, first, kind):
    cls = getattr(L, f"{kind}Pooling{2 if two_d else 1}D")
    layer = cls(pool, stride, padding, data_format="channels_first" if first else
                "channels_last")
    spatial = [size, size + 1] if two_d else [size]
    shape = [2, 3] + spatial if first else [2] + spatial + [3]
    assert list(layer(torch.rand(shape)).shape) == layer.compute_output_shape(shape).as_list()


@pytest.mark.parametrize("layer,shape", [
    (lambda: L.GlobalAveragePooling2D(keepdims=True), [2, 4, 5, 3]),
    (lambda: L.GlobalMaxPooling2D(data_format="channels_first"), [2, 4, 5, 3]),
    (lambda: L.GlobalAveragePooling1D(), [2, 4, 3]),
    (lambda: L.GlobalMaxPooling1D(keepdims=True), [2, 4, 3]),
    (lambda: L.Flatten(), [2, 4, 5, 3]), (lambda: L.Flatten("channels_first"), [2, 3]),
    (lambda: L.Reshape((-1, 3)), [2, 4, 5, 3]), (lambda: L.ReLU(), [2, 3]),
    (lambda: L.Softmax(axis=[1, 2]), [2, 4, 5]), (lambda: L.BatchNormalization(), [2, 4, 3]),
    (lambda: L.Dropout(0.5), [2, 3]),
])
def test_other_layers_output_shape_law(layer, shape):
    layer = layer()
    assert list(layer(torch.rand(shape)).shape) == layer.compute_output_shape(shape).as_list()


# -- get_config / from_config round trip ------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.Conv2D(3, (2, 3), strides=2, padding="same", activation="relu",
                     kernel_regularizer="l2", bias_constraint="non_neg"),
    lambda: L.Conv1D(4, 3, padding="causal", dilation_rate=2, groups=2),
    lambda: L.Conv3D(2, 2, data_format="channels_first", use_bias=False),
    lambda: L.MaxPooling2D(3, 1, "same"), lambda: L.AvgPool1D(),
    lambda: L.GlobalMaxPool2D(keepdims=True), lambda: L.BatchNormalization(momentum=0.5),
    lambda: L.ReLU(6.0, 0.1), lambda: L.LeakyReLU(0.1), lambda: L.ELU(0.5),
    lambda: L.Softmax(axis=1), lambda: L.Flatten(), lambda: L.Reshape((2, -1)),
    lambda: L.Dropout(0.2, seed=3),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == config or all(
        np.array_equal(np.asarray(a), np.asarray(b)) if not isinstance(a, dict) else a == b
        for a, b in zip(again.get_config().values(), config.values()))


def test_aliases_and_public_names():
    assert L.Convolution2D is L.Conv2D and L.MaxPool2D is L.MaxPooling2D
    assert L.GlobalAvgPool2D is L.GlobalAveragePooling2D and L.AvgPool1D is L.AveragePooling1D
    serialized = tf.keras.layers.serialize(L.Conv2D(2, 3)) if hasattr(
        tf.keras.layers, "serialize") else None
    if serialized is not None:
        assert serialized["class_name"] == "Conv2D"


# -- errors change nothing ---------------------------------------------------------------
def test_failed_calls_leave_the_layer_unchanged():
    conv = L.Conv2D(2, 3)
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        conv(torch.ones(4, 5, 3))
    assert not conv.built and conv.weights == []
    with pytest.raises(ValueError, match="One of the dimensions in the output is <= 0"):
        conv(torch.ones(1, 2, 2, 1))
    assert conv.weights == []
    conv(torch.ones(1, 5, 5, 1))
    kernel = conv.kernel.numpy().copy()
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 1"):
        conv(torch.ones(1, 5, 5, 2))
    np.testing.assert_array_equal(conv.kernel.numpy(), kernel)
    bn = L.BatchNormalization()
    bn(torch.ones(2, 3), training=True)
    before = [w.copy() for w in bn.get_weights()]
    with pytest.raises(ValueError, match="expected axis 1 of input shape to have value 3"):
        bn(torch.ones(2, 4), training=True)
    for a, b in zip(bn.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_bad_arguments_raise_tf_keras_errors():
    with pytest.raises(ValueError, match="The `strides` argument must be a tuple of 2"):
        L.Conv2D(2, 3, strides=(1, 2, 3))
    with pytest.raises(ValueError, match="Causal padding is only supported for `Conv1D`"):
        L.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match='The `data_format` argument must be one of'):
        L.MaxPooling2D(data_format="nhwc")
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        L.Reshape((7,)).compute_output_shape((None, 3, 4))


# -- BatchNormalization semantics --------------------------------------------------------
def test_batch_norm_training_inference_and_trainable_false():
    x = torch.tensor(np.random.default_rng(0).normal(2.0, 3.0, (16, 4, 4, 2)), dtype=torch.float32)
    bn = L.BatchNormalization()
    y = bn(x, training=True)
    assert abs(float(y.mean())) < 1e-5 and abs(float(y.std()) - 1) < 1e-2
    moved = bn.moving_mean.numpy()
    assert np.all(np.abs(moved) > 0.005)   # assigned: 0.01 * batch mean
    np.testing.assert_allclose(bn(x).numpy(), bn(x, training=False).numpy())
    np.testing.assert_array_equal(bn.moving_mean.numpy(), moved)   # inference: no update
    bn.trainable = False
    frozen = bn(x, training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), moved)
    np.testing.assert_allclose(frozen.numpy(), bn(x, training=False).numpy())
    assert [w.name.split("/")[-1] for w in bn.weights] == [
        "gamma:0", "beta:0", "moving_mean:0", "moving_variance:0"]


def test_dropout_training_only():
    x = torch.ones(64, 32)
    d = L.Dropout(0.5, noise_shape=[None, 1])
    np.testing.assert_array_equal(d(x).numpy(), x.numpy())
    y = d(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
    assert np.all(y == y[:, :1])   # noise_shape [None, 1]: one decision per row


# -- functional API ------------------------------------------------------------------------
def test_functional_cnn_shapes():
    x = tf.keras.Input((8, 8, 3))
    h = L.Conv2D(4, 3, padding="same", activation="relu")(x)
    h = L.BatchNormalization()(h)
    h = L.MaxPool2D()(h)
    h = L.Conv2D(6, 3)(h)
    h = L.GlobalAveragePooling2D()(h)
    assert h.shape.as_list() == [None, 6]
    flat = L.Flatten()(L.AvgPool2D(3, 2, "same")(x))
    assert flat.shape.as_list() == [None, 48]
    model = tf.keras.Model(x, L.Dense(2)(h))
    assert list(model(torch.rand(3, 8, 8, 3)).shape) == [3, 2]
    seq = tf.keras.layers.Conv1D(3, 3, padding="causal")(tf.keras.Input((None, 2)))
    assert seq.shape.as_list() == [None, None, 3]


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make,training", [
    (lambda: L.Conv2D(3, 3, padding="same"), None),
    (lambda: L.BatchNormalization(), False),
])
def test_mirrored_equals_one_device(strategy, make, training):
    x = torch.tensor(np.random.default_rng(1).uniform(-1, 1, (4, 5, 5, 2)), dtype=torch.float32)
    assert_mirrored_equals_one_device(strategy, make, x, call_kwargs={"training": training})


# -- Model.weights order: layer by layer, as tf_keras ----------------------------------------
def test_sequential_weights_order_is_tf_keras():
    model = tf.keras.Sequential([L.Conv2D(2, 3, input_shape=(5, 5, 1)), L.BatchNormalization(),
                                 L.Flatten(), L.Dense(1)])
    names = [w.name.split("/", 1)[1] if "/" in w.name else w.name for w in model.weights]
    assert names[:6] == ["kernel:0", "bias:0", "gamma:0", "beta:0", "moving_mean:0",
                         "moving_variance:0"]


def test_symbolic_calls_do_not_move_the_statistics():
    bn = L.BatchNormalization()
    bn(torch.ones(2, 3))
    y = bn(tf.keras.Input((3,)), training=True)
    assert y.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(bn.moving_mean.numpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(bn.moving_variance.numpy(), np.ones(3, np.float32))


def test_global_average_pooling_1d_leaves_masked_steps_out():
    x = torch.tensor([[[1.0], [3.0], [100.0]]])
    out = L.GlobalAveragePooling1D()(x, mask=torch.tensor([[True, True, False]]))
    assert float(out[0, 0]) == 2.0 and getattr(out, "_keras_mask", None) is None
