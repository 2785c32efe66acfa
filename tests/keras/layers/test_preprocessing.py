"""Preprocessing layers: shape laws, config round trips, inference identity of the random
layers and their statistics under a seed, adapt on batches == adapt on the whole, the
functional and Sequential APIs, MirroredStrategy. Numerics vs tf_keras are in
tests/keras/golden/cases_preprocessing.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tests.keras.layers.mirrored_check import split_batch, strategy  # noqa: F401

L = tf.keras.layers

IMAGE_LAYERS = [
    lambda: L.Resizing(4, 6), lambda: L.Resizing(3, 3, "nearest", crop_to_aspect_ratio=True),
    lambda: L.CenterCrop(3, 2), lambda: L.CenterCrop(9, 9), lambda: L.Rescaling(0.5, 1.0),
    lambda: L.RandomFlip(seed=1), lambda: L.RandomRotation(0.2, seed=2),
    lambda: L.RandomZoom(0.2, 0.3, seed=3), lambda: L.RandomTranslation(0.2, 0.1, seed=4),
]
ALL_LAYERS = IMAGE_LAYERS + [
    lambda: L.Normalization(mean=1.0, variance=4.0), lambda: L.CategoryEncoding(5),
    lambda: L.Discretization(bin_boundaries=[0.0, 1.0]),
    lambda: L.IntegerLookup(vocabulary=[3, 5, 7], mask_token=0),
]


@settings(max_examples=25, deadline=None)
@given(make=st.sampled_from(IMAGE_LAYERS), h=st.integers(2, 8), w=st.integers(2, 8),
       batched=st.booleans(), training=st.booleans())
def test_image_layer_output_shape_law(make, h, w, batched, training):
    layer = make()
    shape = (2, h, w, 3) if batched else (h, w, 3)
    out = layer(torch.rand(shape), training=training)
    assert tuple(layer.compute_output_shape(shape)) == tuple(out.shape)


@pytest.mark.parametrize("make", ALL_LAYERS)
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == config
    assert tf.keras.layers.deserialize(tf.keras.layers.serialize(layer)).get_config() == config


@pytest.mark.parametrize("make", IMAGE_LAYERS[5:])
def test_random_layers_identity_at_inference(make):
    x = torch.rand(3, 5, 6, 2)
    assert torch.equal(make()(x, training=False), x)
    with tf.keras.backend.learning_phase_scope(0):
        assert torch.equal(make()(x), x)


def test_random_flip_flips_about_half():
    tf.random.set_seed(0)
    x = torch.rand(400, 3, 4, 1)
    y = L.RandomFlip("horizontal", seed=7)(x, training=True)
    flipped = (y == torch.flip(x, dims=[2])).flatten(1).all(1)
    kept = (y == x).flatten(1).all(1)
    assert bool((flipped | kept).all())
    assert 150 < int(flipped.sum()) < 250


def test_random_rotation_quarter_turn_nearest():
    x = torch.rand(1, 5, 5, 1)
    y = L.RandomRotation((0.25, 0.25), interpolation="nearest")(x, training=True)
    np.testing.assert_allclose(y[0, :, :, 0].numpy(), np.rot90(x[0, :, :, 0].numpy()),
                               atol=0)


def test_random_translation_whole_pixels():
    x = torch.rand(1, 4, 6, 1)
    y = L.RandomTranslation((0.25, 0.25), (0.0, 0.0), fill_mode="constant",
                            interpolation="nearest")(x, training=True)
    assert torch.equal(y[0, 1:], x[0, :-1]) and bool((y[0, 0] == 0).all())


def test_random_layers_seeded_reproducible():
    x = torch.rand(4, 5, 5, 1)
    tf.random.set_seed(3)
    a = L.RandomZoom(0.3, seed=11)(x, training=True)
    tf.random.set_seed(3)
    b = L.RandomZoom(0.3, seed=11)(x, training=True)
    assert torch.equal(a, b)


@pytest.mark.parametrize("batch_size", [1, 7, 32, 100])
def test_normalization_adapt_batches_equals_whole(batch_size):
    data = np.random.default_rng(0).normal(3, 2, (90, 4)).astype(np.float32)
    layer = L.Normalization()
    layer.adapt(data, batch_size=batch_size)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.adapt_variance.numpy(), data.var(0), rtol=1e-4)
    assert int(layer.count.numpy()) == 90
    out = layer(data)
    np.testing.assert_allclose(out.numpy().mean(0), 0, atol=1e-5)


def test_normalization_adapt_dataset_and_readapt():
    data = np.random.default_rng(1).uniform(0, 5, (40, 3)).astype(np.float32)
    layer = L.Normalization(axis=None)
    layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(9))
    np.testing.assert_allclose(float(layer.adapt_mean.numpy()), data.mean(), rtol=1e-5)
    layer.adapt(data[:10] * 0 + 2)  # adapt again: state is reset first
    np.testing.assert_allclose(float(layer.adapt_mean.numpy()), 2.0)
    assert layer.is_adapted


def test_normalization_invert_round_trip_and_weights():
    data = np.random.default_rng(2).normal(0, 3, (20, 2)).astype(np.float32)
    norm, inv = L.Normalization(), L.Normalization(invert=True)
    norm.adapt(data)
    inv.adapt(data)
    np.testing.assert_allclose(inv(norm(data)).numpy(), data, rtol=1e-5, atol=1e-5)
    assert [w.name for w in norm.weights] == ["mean:0", "variance:0", "count:0"]
    assert norm.trainable_weights == []
    fresh = L.Normalization()
    fresh.build((None, 2))
    fresh.set_weights(norm.get_weights())
    np.testing.assert_allclose(fresh(data).numpy(), norm(data).numpy())


def test_normalization_errors_leave_layer_unchanged():
    with pytest.raises(ValueError, match="both `mean` and `variance` must be set"):
        L.Normalization(mean=1.0)
    layer = L.Normalization(mean=1.0, variance=1.0)
    with pytest.raises(ValueError, match="Cannot `adapt` a Normalization layer"):
        layer.adapt(np.ones((3, 1)))
    np.testing.assert_allclose(layer(np.array([[3.0]])).numpy(), [[2.0]])


def test_integer_lookup_adapt_batches_equals_whole():
    data = np.random.default_rng(3).integers(0, 20, (64, 3))
    whole, batched = L.IntegerLookup(), L.IntegerLookup()
    whole.adapt(data, batch_size=64)
    batched.adapt(tf.data.Dataset.from_tensor_slices(data).batch(5))
    assert whole.get_vocabulary() == batched.get_vocabulary()
    assert torch.equal(whole(data), batched(data))


def test_integer_lookup_invert_inverts():
    lookup = L.IntegerLookup(vocabulary=[10, 20, 30], mask_token=0)
    inverse = L.IntegerLookup(vocabulary=[10, 20, 30], mask_token=0, invert=True)
    x = torch.tensor([[10, 30, 0, 20]])
    assert torch.equal(inverse(lookup(x)), x)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), k=st.integers(1, 5), mode=st.sampled_from(
    ["one_hot", "multi_hot", "count"]))
def test_category_encoding_shape_law_and_counts(n, k, mode):
    shape = (n,) if mode == "one_hot" else (n, k)  # one_hot of (n, k > 1) is rank 3: refused
    x = torch.randint(0, 6, shape)
    layer = L.CategoryEncoding(6, output_mode=mode)
    out = layer(x)
    assert tuple(out.shape) == tuple(layer.compute_output_shape(shape))
    if mode == "count":
        assert torch.equal(out.sum(-1), torch.full((n,), float(k)))


def test_functional_and_sequential_models():
    inputs = tf.keras.Input((8, 6, 3))
    x = L.Rescaling(1 / 255.0)(inputs)
    x = L.RandomFlip()(x)
    x = L.Resizing(4, 4)(x)
    x = L.CenterCrop(2, 2)(x)
    model = tf.keras.Model(inputs, x)
    images = torch.randint(0, 256, (2, 8, 6, 3)).float()
    out = model(images, training=False)
    assert tuple(out.shape) == (2, 2, 2, 3) and model.output_shape == (None, 2, 2, 3)
    seq = tf.keras.Sequential([tf.keras.Input((3,)), L.Normalization(mean=1.0, variance=4.0),
                               L.Discretization(bin_boundaries=[0.0])])
    assert seq(torch.tensor([[0.0, 1.0, 3.0]])).tolist() == [[0, 1, 1]]
    ids = tf.keras.Input((2,), dtype="int64")
    enc = tf.keras.Model(ids, L.CategoryEncoding(4)(L.IntegerLookup(vocabulary=[5, 6, 7])(ids)))
    assert enc(torch.tensor([[5, 9]])).tolist() == [[1.0, 1.0, 0.0, 0.0]]


def test_mirrored_normalization_equals_one_device(strategy):
    data = np.random.default_rng(4).normal(1, 2, (16, 3)).astype(np.float32)
    single = L.Normalization()
    single.adapt(data)
    want = single(data)
    with strategy.scope():
        layer = L.Normalization()
        layer.adapt(data)
    outs = strategy.run(layer, args=(split_batch(strategy, torch.tensor(data)),))
    got = torch.cat([torch.as_tensor(v) for v in strategy.experimental_local_results(outs)])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
