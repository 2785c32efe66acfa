"""The pooling layers, 3-D and the options test_image_layers.py does not cover: shape laws,
config round trips, aliases, errors that change nothing, masks, the functional API.
Numerics vs tf_keras are in tests/keras/golden/cases_pooling.py and cases_image.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf

L = tf.keras.layers


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@given(sizes=st.lists(st.integers(2, 6), min_size=3, max_size=3), pool=st.integers(1, 3),
       stride=st.sampled_from([None, 1, 2, 3]), padding=st.sampled_from(["valid", "same"]),
       first=st.booleans(), kind=st.sampled_from(["Max", "Average"]))
def test_pooling3d_output_shape_law(sizes, pool, stride, padding, first, kind):
    if padding == "valid":  # a VALID window larger than the input is TF's error too
        sizes = [max(s, pool) for s in sizes]
    layer = getattr(L, f"{kind}Pooling3D")(pool, stride, padding,
                                             data_format="channels_first" if first else
                                             "channels_last")
    shape = [2, 3] + sizes if first else [2] + sizes + [3]
    assert list(layer(torch.rand(shape)).shape) == layer.compute_output_shape(shape).as_list()


@given(rank=st.sampled_from([1, 2, 3]), keepdims=st.booleans(), first=st.booleans(),
       kind=st.sampled_from(["Max", "Average"]))
def test_global_pooling_output_shape_law(rank, keepdims, first, kind):
    layer = getattr(L, f"Global{kind}Pooling{rank}D")(
        keepdims=keepdims, data_format="channels_first" if first else "channels_last")
    shape = [2, 3] + [4] * rank if first else [2] + [4] * rank + [3]
    assert list(layer(torch.rand(shape)).shape) == layer.compute_output_shape(shape).as_list()


@given(sizes=st.lists(st.integers(1, 3), min_size=3, max_size=3), pool=st.integers(2, 5),
       stride=st.integers(1, 3))
def test_same_average_3d_window_larger_than_the_input(sizes, pool, stride):
    """Each output is the mean of the input elements its window covers (torch's avg_pool3d
    refuses such windows; the sums-over-counts path takes them), gradients included."""
    x = torch.rand([1] + sizes + [2], dtype=torch.float32, requires_grad=True)
    out = L.AveragePooling3D(pool, strides=stride, padding="same")(x)
    assert out.shape[1:4] == tuple(-(-s // stride) for s in sizes)
    pads = [max((o - 1) * stride + pool - s, 0) // 2 for o, s in zip(out.shape[1:4], sizes)]
    for index in np.ndindex(*out.shape[1:4]):
        lo = [max(i * stride - p, 0) for i, p in zip(index, pads)]
        hi = [i * stride - p + pool for i, p in zip(index, pads)]
        window = x[0, lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
        np.testing.assert_allclose(out[0][index].detach().numpy(),
                                   window.mean((0, 1, 2)).detach().numpy(), rtol=1e-6)
    out.sum().backward()
    assert torch.isfinite(x.grad).all() and (x.grad >= 0).all() and x.grad.sum() > 0


# -- semantics ----------------------------------------------------------------------------
def test_same_average_excludes_the_padding():
    x = torch.ones(1, 3, 3, 3, 1)
    out = L.AveragePooling3D(2, strides=2, padding="same")(x)
    np.testing.assert_array_equal(out.numpy(), np.ones((1, 2, 2, 2, 1)))


def test_channels_first_equals_channels_last_transposed():
    x = torch.rand(2, 4, 5, 6, 3)
    last = L.MaxPooling3D((2, 3, 2), strides=(1, 2, 2), padding="same")(x)
    first = L.MaxPooling3D((2, 3, 2), strides=(1, 2, 2), padding="same",
                           data_format="channels_first")(x.permute(0, 4, 1, 2, 3))
    np.testing.assert_array_equal(first.permute(0, 2, 3, 4, 1).numpy(), last.numpy())
    gap = L.GlobalAveragePooling3D()(x)
    np.testing.assert_allclose(gap.numpy(), x.numpy().mean(axis=(1, 2, 3)), rtol=1e-6)


def test_global_average_1d_mask_from_embedding():
    emb = L.Embedding(5, 1, mask_zero=True, embeddings_initializer="ones")
    out = L.GlobalAveragePooling1D()(emb(torch.tensor([[2, 0, 0], [1, 3, 4]])))
    np.testing.assert_array_equal(out.numpy(), [[1.0], [1.0]])
    assert getattr(out, "_keras_mask", None) is None


# -- get_config / from_config round trip; aliases --------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.MaxPooling3D(3, 2, "same"), lambda: L.AveragePooling3D(
        (1, 2, 3), data_format="channels_first"),
    lambda: L.GlobalAveragePooling3D(keepdims=True), lambda: L.GlobalMaxPooling3D(),
    lambda: L.GlobalMaxPooling1D(data_format="channels_first"),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    assert type(layer).from_config(config).get_config() == config


def test_aliases():
    assert L.MaxPool3D is L.MaxPooling3D and L.AvgPool3D is L.AveragePooling3D
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D


# -- errors; a failed call changes nothing ----------------------------------------------
def test_errors():
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        L.MaxPooling3D()(torch.ones(2, 4, 4, 3))
    with pytest.raises(ValueError, match="must be a tuple of 3 integers"):
        L.AveragePooling3D((2, 2))
    with pytest.raises(ValueError, match="The `padding` argument must be"):
        L.MaxPooling3D(padding="full")
    layer = L.GlobalAveragePooling3D()
    with pytest.raises(ValueError, match="expected ndim=5"):
        layer(torch.ones(2, 3))
    assert not layer.built


# -- the functional API: a None batch -------------------------------------------------------
def test_functional_shapes():
    vol = tf.keras.Input((6, 5, 4, 2))
    assert L.MaxPooling3D()(vol).shape.as_list() == [None, 3, 2, 2, 2]
    assert L.AveragePooling3D(3, 2, "same")(vol).shape.as_list() == [None, 3, 3, 2, 2]
    assert L.GlobalAveragePooling3D(keepdims=True)(vol).shape.as_list() == [None, 1, 1, 1, 2]
    assert L.GlobalMaxPooling3D()(vol).shape.as_list() == [None, 2]
