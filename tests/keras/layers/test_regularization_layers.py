"""SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout,
ActivityRegularization: exact identity in inference, the training distributions by z-tests
with fixed seeds (the streams are torch's, not TF's), the shape law, dtypes, seeds, config
round trips, errors that change nothing, masks passing through and the functional API.
tf_keras's configs, texts and inference results are in tests/keras/golden/cases_norm.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.keras.layers.config_check import assert_config_round_trip
from tests.keras.layers.mirrored_check import split_batch, strategy  # noqa: F401

L = tf.keras.layers
Z = 5.0  # z-score bound: a false alarm about once in 3.5 million runs per check


def _z_mean(values: torch.Tensor, mean: float, var: float) -> float:
    n = values.numel()
    return abs(float(values.double().mean()) - mean) / math.sqrt(var / n)


def _z_var(values: torch.Tensor, var: float, fourth: float) -> float:
    """z-score of the sample variance (around a known mean 0) given E[x^4]."""
    n = values.numel()
    v = float((values.double() ** 2).mean())
    return abs(v - var) / math.sqrt((fourth - var ** 2) / n)


ALL = [
    lambda: L.SpatialDropout1D(0.4),
    lambda: L.SpatialDropout2D(0.4),
    lambda: L.SpatialDropout2D(0.4, data_format="channels_first"),
    lambda: L.SpatialDropout3D(0.4),
    lambda: L.GaussianNoise(0.5),
    lambda: L.GaussianDropout(0.3),
    lambda: L.AlphaDropout(0.3),
    lambda: L.ActivityRegularization(0.1, 0.2),
]
RANK = [3, 4, 4, 5, 3, 3, 3, 3]


def _input(rank: int, seed: int = 0) -> torch.Tensor:
    shape = (4, 3, 5, 2, 3)[:rank]
    return torch.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=torch.float32)


# -- inference is the identity; the shape law ------------------------------------------------
@pytest.mark.parametrize("i", range(len(ALL)))
def test_inference_is_exact_identity(i):
    x = _input(RANK[i])
    layer = ALL[i]()
    assert torch.equal(layer(x), x)
    assert torch.equal(layer(x, training=False), x)
    out = layer(x, training=True)
    assert out.shape == x.shape and out.dtype == x.dtype
    assert layer.compute_output_shape(tuple(x.shape)).as_list() == list(x.shape)


@pytest.mark.filterwarnings("ignore:`tf.keras.backend.set_learning_phase` is deprecated")
@pytest.mark.parametrize("i", range(len(ALL)))
def test_learning_phase_turns_training_on(i):
    x = _input(RANK[i]) + 2.0
    layer = ALL[i]()
    tf.keras.backend.set_learning_phase(1)
    try:
        out = layer(x)
    finally:
        tf.keras.backend.clear_session()
    if isinstance(layer, L.ActivityRegularization):
        assert torch.equal(out, x)
    else:
        assert not torch.equal(out, x)


@given(dims=st.lists(st.integers(1, 4), min_size=1, max_size=3), i=st.sampled_from([4, 5, 6, 7]))
def test_elementwise_shape_law(dims, i):
    shape = [2] + dims
    layer = ALL[i]()
    out = layer(torch.randn(shape), training=True)
    assert list(out.shape) == layer.compute_output_shape(shape).as_list() == shape


# -- SpatialDropout: whole channels, the drop rate ---------------------------------------
@pytest.mark.parametrize("make,shape,channel_axis", [
    (lambda: L.SpatialDropout1D(0.3, seed=1), (64, 5, 32), 2),
    (lambda: L.SpatialDropout2D(0.3, seed=1), (32, 3, 4, 32), 3),
    (lambda: L.SpatialDropout2D(0.3, data_format="channels_first", seed=1), (32, 32, 3, 4), 1),
    (lambda: L.SpatialDropout3D(0.3, seed=1), (32, 2, 3, 2, 32), 4),
    (lambda: L.SpatialDropout3D(0.3, data_format="channels_first", seed=1), (32, 32, 2, 3, 2),
     1),
])
def test_spatial_dropout_drops_whole_channels(make, shape, channel_axis):
    tf.keras.utils.set_random_seed(3)
    x = torch.rand(shape) + 1.0
    out = make()(x, training=True)
    ratio = torch.movedim(out / x, channel_axis, 1).reshape(shape[0], shape[channel_axis], -1)
    first = ratio[..., :1]
    np.testing.assert_allclose(ratio.numpy(), first.expand_as(ratio).numpy(), rtol=1e-6)
    values = first.flatten()
    scale = torch.tensor(1 / 0.7, dtype=torch.float32)
    assert bool(((values == 0) | torch.isclose(values, scale, rtol=1e-6)).all())
    dropped = (first == 0).double().flatten()
    assert _z_mean(dropped, 0.3, 0.3 * 0.7) < Z


def test_spatial_dropout_follows_image_data_format():
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        layer = L.SpatialDropout2D(0.5)
    finally:
        tf.keras.backend.set_image_data_format("channels_last")
    assert layer.data_format == "channels_first"
    assert "data_format" not in layer.get_config()  # as tf_keras


# -- GaussianNoise / GaussianDropout / AlphaDropout distributions ------------------------
def test_gaussian_noise_is_additive_normal():
    tf.keras.utils.set_random_seed(5)
    x = torch.full((200, 100), 3.0)
    noise = L.GaussianNoise(0.7, seed=2)(x, training=True) - x
    assert _z_mean(noise, 0.0, 0.49) < Z
    assert _z_var(noise, 0.49, 3 * 0.49 ** 2) < Z


def test_gaussian_dropout_is_multiplicative_normal():
    tf.keras.utils.set_random_seed(6)
    rate = 0.2
    x = torch.full((200, 100), -2.0)
    factor = L.GaussianDropout(rate)(x, training=True) / x
    var = rate / (1 - rate)
    assert _z_mean(factor, 1.0, var) < Z
    assert _z_var(factor - 1.0, var, 3 * var ** 2) < Z


@pytest.mark.parametrize("rate", [0.0, 1.0, 1.5, -0.1])
def test_gaussian_dropout_outside_open_interval_is_identity(rate):
    x = torch.randn(3, 4)
    assert torch.equal(L.GaussianDropout(rate)(x, training=True), x)


def test_alpha_dropout_affine_formula_and_moments():
    tf.keras.utils.set_random_seed(7)
    rate = 0.25
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    x = torch.randn(400, 100)
    out = L.AlphaDropout(rate, seed=4)(x, training=True)
    dropped = torch.isclose(out, torch.tensor(a * alpha_p + b), rtol=0, atol=1e-6)
    np.testing.assert_allclose(out[~dropped].numpy(), (a * x[~dropped] + b).numpy(), rtol=1e-6,
                               atol=1e-6)
    assert _z_mean(dropped.double().flatten(), rate, rate * (1 - rate)) < Z
    # the point of alpha dropout: zero mean and unit variance are kept (normal inputs)
    assert abs(float(out.mean())) < Z * math.sqrt(2.0 / out.numel())
    assert abs(float(out.var()) - 1.0) < Z * math.sqrt(5.0 / out.numel())


def test_alpha_dropout_noise_shape_shares_decisions():
    tf.keras.utils.set_random_seed(8)
    out = L.AlphaDropout(0.5, noise_shape=(2, 1, 3))(torch.zeros(2, 4, 3), training=True)
    assert torch.equal(out, out[:, :1].expand_as(out))
    partial = L.AlphaDropout(0.5, noise_shape=(None, 1, 3))(torch.zeros(2, 4, 3), training=True)
    assert torch.equal(partial, partial[:, :1].expand_as(partial))


@pytest.mark.parametrize("make", [lambda d: L.GaussianNoise(0.1, dtype=d),
                                  lambda d: L.GaussianDropout(0.1, dtype=d),
                                  lambda d: L.AlphaDropout(0.1, dtype=d),
                                  lambda d: L.SpatialDropout1D(0.1, dtype=d)])
@pytest.mark.parametrize("policy,dtype", [("float16", torch.float16),
                                          ("mixed_float16", torch.float16),
                                          ("float64", torch.float64),
                                          ("bfloat16", torch.bfloat16)])
def test_dtypes(make, policy, dtype):
    out = make(policy)(torch.randn(2, 3, 4), training=True)
    assert out.dtype == dtype


def test_alpha_dropout_float16_rounds_constants_as_tf():
    tf.keras.utils.set_random_seed(9)
    rate = 0.3
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    out = L.AlphaDropout(rate, dtype="float16")(torch.ones(50, 50), training=True)
    h = lambda v: torch.tensor(v, dtype=torch.float16)  # noqa: E731
    kept, dropped = h(a) * h(1.0) + h(b), h(a) * h(alpha_p) + h(b)
    assert set(out.flatten().tolist()) == {float(kept), float(dropped)}


def test_seeded_layers_repeat_after_set_random_seed():
    x = torch.randn(5, 6, 7)
    for make in (lambda: L.GaussianNoise(1.0, seed=3), lambda: L.GaussianDropout(0.4, seed=3),
                 lambda: L.AlphaDropout(0.4, seed=3), lambda: L.SpatialDropout1D(0.4, seed=3)):
        tf.keras.utils.set_random_seed(11)
        first = make()(x, training=True)
        tf.keras.utils.set_random_seed(11)
        again = make()(x, training=True)
        assert torch.equal(first, again)


# -- ActivityRegularization --------------------------------------------------------------
def test_activity_regularization_adds_mean_penalty_per_call():
    x = torch.tensor([[1.0, -2.0], [0.5, 0.0], [3.0, -1.0]])
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    out = layer(x)
    assert torch.equal(out, x)
    want = (0.1 * x.abs().sum() + 0.01 * (x ** 2).sum()) / 3
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(layer.losses[0]), float(want), rtol=1e-6)
    layer(x[:1])
    assert len(layer.losses) == 1  # per call, replaced


def test_activity_regularization_in_a_model():
    inputs = tf.keras.Input((2,))
    dense = L.Dense(1, kernel_initializer="ones")
    model = tf.keras.Model(inputs, L.ActivityRegularization(l2=0.5)(dense(inputs)))
    x = torch.tensor([[1.0, 2.0], [0.0, 1.0]])
    model(x)
    np.testing.assert_allclose(float(model.losses[0]), 0.5 * (9 + 1) / 2, rtol=1e-6)
    with tf.GradientTape() as tape:
        model(x)
        penalty = tf.add_n(model.losses)
    grad = tape.gradient(penalty, dense.kernel)  # d/dk 0.5 * sum((x k)^2) / 2
    np.testing.assert_allclose(grad.numpy(), 0.5 * (x.T @ (x @ torch.ones(2, 1))).numpy(),
                               rtol=1e-6)


# -- configs -----------------------------------------------------------------------------
@pytest.mark.parametrize("make", ALL + [
    lambda: L.SpatialDropout1D(0.25, seed=3, name="s1"),
    lambda: L.GaussianNoise(0.3, seed=7, name="gnoise"),
    lambda: L.AlphaDropout(0.2, noise_shape=(1, 3), seed=2),
])
def test_config_round_trip(make):
    assert_config_round_trip(make())


def test_configs_keys_as_tf_keras():
    assert set(L.SpatialDropout2D(0.1).get_config()) == {
        "name", "trainable", "dtype", "rate", "noise_shape", "seed"}
    assert set(L.AlphaDropout(0.1, noise_shape=(1, 2)).get_config()) == {
        "name", "trainable", "dtype", "rate", "seed"}
    assert set(L.ActivityRegularization().get_config()) == {
        "name", "trainable", "dtype", "l1", "l2"}


# -- errors change nothing ---------------------------------------------------------------
@pytest.mark.parametrize("cls", [L.SpatialDropout2D, L.SpatialDropout3D])
def test_bad_data_format(cls):
    with pytest.raises(ValueError) as info:
        cls(0.5, data_format="channels_middle")
    assert str(info.value) == ('`data_format` must be "channels_last" or "channels_first". '
                               "Received: data_format=channels_middle.")


@pytest.mark.parametrize("make,rank", [(lambda: L.SpatialDropout1D(0.5, name="sd"), 2),
                                       (lambda: L.SpatialDropout2D(0.5, name="sd"), 3),
                                       (lambda: L.SpatialDropout3D(0.5, name="sd"), 4)])
def test_wrong_rank_is_refused_and_leaves_layer_unbuilt(make, rank):
    layer = make()
    with pytest.raises(ValueError, match=f'Input 0 of layer "sd" is incompatible with the '
                                         f"layer: expected ndim={rank + 1}, found ndim={rank}"):
        layer(torch.ones((2,) * rank), training=True)
    assert not layer.built
    layer(torch.ones((2,) * (rank + 1)), training=True)


def test_spatial_dropout_bad_rate():
    with pytest.raises(ValueError, match="Invalid value 1.5 received for `rate`"):
        L.SpatialDropout1D(1.5)


# -- masks pass through, functional API --------------------------------------------------
@pytest.mark.parametrize("i", [0, 4, 5, 6, 7])
def test_masks_pass_through(i):
    x = torch.randn(2, 3, 4)
    x[1, 0] = 0.0
    masked = L.Masking()(x)
    for training in (False, True):
        out = ALL[i]()(masked, training=training)
        np.testing.assert_array_equal(out._keras_mask.numpy(),
                                      [[True, True, True], [False, True, True]])


@pytest.mark.parametrize("i", range(len(ALL)))
def test_functional_api(i):
    x = _input(RANK[i])
    inputs = tf.keras.Input(tuple(x.shape[1:]))
    layer = ALL[i]()
    model = tf.keras.Model(inputs, layer(inputs))
    assert model.output_shape == (None,) + tuple(x.shape[1:])
    assert torch.equal(model(x), x)
    assert model(x, training=True).shape == x.shape


def test_sequential_inference_is_deterministic_and_training_propagates():
    model = tf.keras.Sequential([tf.keras.Input((6,)), L.GaussianNoise(1.0),
                                 L.GaussianDropout(0.5), L.AlphaDropout(0.5), L.Dense(2)])
    x = torch.rand(4, 6)
    assert torch.equal(model(x), model(x))
    assert not torch.equal(model(x, training=True), model(x))


# -- MirroredStrategy: the layers run per replica ----------------------------------------
def test_mirrored_inference_is_identity_and_loss_per_replica(strategy):
    x = torch.arange(8.0).reshape(4, 2)
    with strategy.scope():
        noise = L.GaussianNoise(1.0)
        reg = L.ActivityRegularization(l1=1.0)
    halves = split_batch(strategy, x)

    def step(part):
        out = reg(noise(part, training=False))
        return out, reg.losses[0]

    outs, losses = strategy.run(step, args=(halves,))
    got = torch.cat([torch.as_tensor(v) for v in strategy.experimental_local_results(outs)])
    assert torch.equal(got, x)
    per_replica = [float(v) for v in strategy.experimental_local_results(losses)]
    assert per_replica == [float(x[:2].abs().sum() / 2), float(x[2:].abs().sum() / 2)]
    with strategy.scope():
        dropped = strategy.run(lambda p: L.SpatialDropout1D(0.5)(p[None], training=True),
                               args=(halves,))
    for v in strategy.experimental_local_results(dropped):
        assert set(torch.as_tensor(v).flatten().tolist()) <= {0.0} | {
            2.0 * float(t) for t in x.flatten()}
