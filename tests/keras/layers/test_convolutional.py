"""Transposed, depthwise and separable convolutions: shape laws, weight layouts, config
round trips, errors that change nothing, the functional API and MirroredStrategy. The plain
Conv1D/2D/3D are tested in test_image_layers.py; numerics vs tf_keras are in
tests/keras/golden/cases_conv.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers


def _input(rank, size, channels, first):
    spatial = [size + i for i in range(rank)]
    return [2, channels] + spatial if first else [2] + spatial + [channels]


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@given(rank=st.sampled_from([1, 2, 3]), size=st.integers(2, 5), k=st.integers(1, 3),
       stride=st.integers(1, 3), padding=st.sampled_from(["valid", "same"]),
       pad_out=st.booleans(), dilation=st.integers(1, 2), first=st.booleans(),
       channels=st.integers(1, 3), filters=st.integers(1, 3))
def test_conv_transpose_output_shape_law(rank, size, k, stride, padding, pad_out, dilation,
                                         first, channels, filters):
    if stride > 1:
        dilation = 1
    output_padding = (stride - 1) if pad_out else None
    layer = [L.Conv1DTranspose, L.Conv2DTranspose, L.Conv3DTranspose][rank - 1](
        filters, k, strides=stride, padding=padding, output_padding=output_padding,
        dilation_rate=dilation, data_format="channels_first" if first else "channels_last")
    shape = _input(rank, size, channels, first)
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()
    assert layer.kernel.shape.as_list() == [k] * rank + [filters, channels]


@given(rank=st.sampled_from([1, 2]), size=st.integers(3, 7), k=st.integers(1, 3),
       stride=st.integers(1, 2), padding=st.sampled_from(["valid", "same", "causal"]),
       mult=st.integers(1, 3), first=st.booleans(), channels=st.integers(1, 3),
       filters=st.integers(1, 3), separable=st.booleans())
def test_depthwise_separable_output_shape_law(rank, size, k, stride, padding, mult, first,
                                              channels, filters, separable):
    fmt = "channels_first" if first else "channels_last"
    if padding == "causal" and not (separable and rank == 1):
        padding = "same"
    if separable:
        layer = [L.SeparableConv1D, L.SeparableConv2D][rank - 1](
            filters, k, strides=stride, padding=padding, depth_multiplier=mult,
            data_format=fmt)
    else:
        layer = [L.DepthwiseConv1D, L.DepthwiseConv2D][rank - 1](
            k, strides=stride, padding=padding, depth_multiplier=mult, data_format=fmt)
    shape = _input(rank, size, channels, first)
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()
    assert layer.depthwise_kernel.shape.as_list() == [k] * rank + [channels, mult]
    if separable:
        assert layer.pointwise_kernel.shape.as_list() == [1] * rank + [channels * mult, filters]


# -- weights: tf_keras's names and creation order -------------------------------------------
def test_weight_names_and_order():
    x = torch.rand(1, 5, 5, 2)
    sep = L.SeparableConv2D(3, 3, name="sep")
    sep(x)
    assert [w.name for w in sep.weights] == ["sep/depthwise_kernel:0",
                                             "sep/pointwise_kernel:0", "sep/bias:0"]
    dw = L.DepthwiseConv2D(3, name="dw")
    dw(x)
    assert [w.name for w in dw.weights] == ["dw/depthwise_kernel:0", "dw/bias:0"]
    t = L.Conv2DTranspose(4, 2, name="t", use_bias=False)
    t(x)
    assert [w.name for w in t.weights] == ["t/kernel:0"]


# -- the transposed convolution is the gradient of the forward convolution ---------------
@pytest.mark.parametrize("stride,padding", [(1, "valid"), (2, "same"), (2, "valid"),
                                            (3, "same")])
def test_conv3d_transpose_is_the_adjoint_of_conv3d(stride, padding):
    """<conv3d(y, K), x> == <y, conv3d_transpose(x, K)>: checks the 3-D crop arithmetic
    (which has no tfcompat op underneath) against tfcompat's conv3d."""
    rng = np.random.default_rng(stride)
    layer = L.Conv3DTranspose(2, 3, strides=stride, padding=padding, use_bias=False)
    x = torch.tensor(rng.standard_normal((1, 3, 2, 3, 3)), dtype=torch.float64)
    layer = L.Conv3DTranspose(2, 3, strides=stride, padding=padding, use_bias=False,
                              dtype="float64")
    out = layer(x)
    y = torch.tensor(rng.standard_normal(tuple(out.shape)), dtype=torch.float64)
    kernel = torch.as_tensor(layer.kernel.numpy())  # [d, h, w, out=2, in=3]
    forward = tf.nn.conv3d(y, kernel, [1, stride, stride, stride, 1], padding.upper())
    np.testing.assert_allclose(float((forward * x).sum()), float((y * out).sum()), rtol=1e-10)


# -- get_config / from_config round trip ------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.Conv2DTranspose(3, (2, 3), strides=2, padding="same", output_padding=1,
                              activation="relu", kernel_regularizer="l2"),
    lambda: L.Conv1DTranspose(2, 3, dilation_rate=2, data_format="channels_first"),
    lambda: L.Conv3DTranspose(2, 2, use_bias=False),
    lambda: L.DepthwiseConv2D(3, depth_multiplier=2, depthwise_constraint="non_neg"),
    lambda: L.DepthwiseConv1D(3, strides=2, padding="same"),
    lambda: L.SeparableConv2D(4, 3, pointwise_regularizer="l1", bias_initializer="ones"),
    lambda: L.SeparableConv1D(4, 3, padding="causal", depth_multiplier=2),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_aliases():
    assert L.Convolution2DTranspose is L.Conv2DTranspose
    assert L.Convolution1DTranspose is L.Conv1DTranspose
    assert L.Convolution3DTranspose is L.Conv3DTranspose
    assert L.SeparableConvolution2D is L.SeparableConv2D
    assert L.SeparableConvolution1D is L.SeparableConv1D


# -- errors; a failed call changes nothing ----------------------------------------------
def test_bad_arguments_raise_tf_keras_errors():
    with pytest.raises(ValueError, match="Strides must be greater than output padding"):
        L.Conv2DTranspose(3, 3, strides=2, output_padding=2)
    # (the input spec's min_ndim check comes before build's own rank check, as in tf_keras)
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        L.Conv2DTranspose(3, 3)(torch.ones(2, 5, 3))
    with pytest.raises(ValueError, match="Inputs should have rank 3"):
        L.Conv1DTranspose(3, 3).build((2, 5, 5, 3))
    with pytest.raises(ValueError, match="Inputs to `DepthwiseConv` should have rank 4"):
        L.DepthwiseConv2D(3).build((2, 5, 3))
    with pytest.raises(ValueError, match="Causal padding is only supported"):
        L.SeparableConv2D(3, 3, padding="causal")


@pytest.mark.parametrize("make", [lambda: L.Conv2DTranspose(2, 3), lambda: L.DepthwiseConv2D(3),
                                  lambda: L.SeparableConv2D(2, 3)])
def test_failed_calls_leave_the_layer_unchanged(make):
    layer = make()
    layer(torch.ones(1, 5, 5, 3))
    before = [w.copy() for w in layer.get_weights()]
    with pytest.raises(ValueError, match="incompatible with the layer"):
        layer(torch.ones(1, 5, 5, 4))
    for a, b in zip(before, layer.get_weights()):
        np.testing.assert_array_equal(a, b)


# -- the functional API: a None batch (and None spatial sizes) ------------------------------
def test_functional_shapes():
    img = tf.keras.Input((6, 5, 3))
    assert L.Conv2DTranspose(4, 3, strides=2, padding="same")(img).shape.as_list() == \
        [None, 12, 10, 4]
    assert L.DepthwiseConv2D(3, depth_multiplier=2)(img).shape.as_list() == [None, 4, 3, 6]
    assert L.SeparableConv2D(4, 3, strides=2)(img).shape.as_list() == [None, 2, 2, 4]
    seq = tf.keras.Input((7, 2))
    assert L.Conv1DTranspose(3, 3, strides=2)(seq).shape.as_list() == [None, 15, 3]
    assert L.SeparableConv1D(3, 3, padding="causal")(seq).shape.as_list() == [None, 7, 3]
    assert L.DepthwiseConv1D(3)(seq).shape.as_list() == [None, 5, 2]
    vol = tf.keras.Input((2, 3, 4, 1))
    assert L.Conv3DTranspose(2, 2, strides=2)(vol).shape.as_list() == [None, 4, 6, 8, 2]


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make", [
    lambda: L.Conv2DTranspose(3, 3, strides=2, padding="same"),
    lambda: L.SeparableConv2D(3, 3, depth_multiplier=2),
    lambda: L.DepthwiseConv2D(3, padding="same"),
])
def test_mirrored_equals_one_device(strategy, make):
    x = torch.tensor(np.random.default_rng(1).uniform(-1, 1, (4, 5, 5, 2)), dtype=torch.float32)
    assert_mirrored_equals_one_device(strategy, make, x)
