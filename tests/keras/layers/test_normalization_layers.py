"""LayerNormalization, GroupNormalization and UnitNormalization: shape laws, the normalising
laws against float64 references, both LayerNormalization paths, dtypes under float16 and
mixed_float16, config round trips, errors that change nothing, masks passing through, the
functional API and MirroredStrategy. Numerics vs tf_keras are in
tests/keras/golden/cases_norm.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.keras.layers.config_check import assert_config_round_trip
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)

L = tf.keras.layers


def _axes_strategy():
    """(dims, axis) with axis an int or a non-empty list of distinct axes, negatives too."""
    @st.composite
    def build(draw):
        dims = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4))
        rank = len(dims)
        chosen = draw(st.lists(st.integers(1, rank - 1), min_size=1, max_size=rank - 1,
                               unique=True))
        chosen = [a - rank if draw(st.booleans()) else a for a in chosen]
        axis = chosen[0] if len(chosen) == 1 and draw(st.booleans()) else chosen
        return dims, axis
    return build()


def _reference_layer_norm(x, axes, gamma, beta, eps):
    x = x.astype(np.float64)
    mean = x.mean(axis=tuple(axes), keepdims=True)
    var = ((x - mean) ** 2).mean(axis=tuple(axes), keepdims=True)
    shape = [x.shape[a] if a in axes else 1 for a in range(x.ndim)]
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


# -- shape laws and the normalising laws -------------------------------------------------
@given(case=_axes_strategy(), eps=st.sampled_from([1e-3, 1e-6]))
def test_layer_norm_shape_law_and_formula(case, eps):
    dims, axis = case
    x = np.random.default_rng(sum(dims)).uniform(-2, 2, dims).astype(np.float32)
    layer = L.LayerNormalization(axis=axis, epsilon=eps, gamma_initializer="random_uniform",
                                 beta_initializer="random_uniform")
    out = layer(torch.tensor(x))
    rank = len(dims)
    axes = sorted({a % rank for a in ([axis] if isinstance(axis, int) else axis)})
    assert list(out.shape) == layer.compute_output_shape(dims).as_list() == dims
    assert layer.gamma.shape.as_list() == [dims[a] for a in layer.axis]
    assert sorted(layer.axis) == axes
    # gamma/beta are laid out in `axis` order and reshaped (not transposed) to broadcast, as
    # tf_keras; compare with the same layout
    gamma, beta = (np.asarray(w.numpy()) for w in (layer.gamma, layer.beta))
    if layer.axis != sorted(layer.axis) and len(layer.axis) > 1:
        gamma = gamma.reshape([dims[a] for a in axes])
        beta = beta.reshape([dims[a] for a in axes])
    want = _reference_layer_norm(x, axes, gamma, beta, eps)
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-5, atol=2e-5)


def test_layer_norm_paths_follow_tf_keras():
    x = torch.randn(2, 3, 4)
    cases = [({}, True), ({"axis": [1, 2]}, True), ({"axis": 1}, False),
             ({"epsilon": 1e-5}, False), ({"dtype": "float64"}, False),
             ({"dtype": "float16"}, False), ({"dtype": "mixed_float16"}, True),
             ({"axis": [2, 0]}, False)]
    for kwargs, fused in cases:
        layer = L.LayerNormalization(**kwargs)
        layer(x)
        assert layer._fused is fused, kwargs


def test_layer_norm_fused_and_moments_paths_agree():
    x = torch.randn(4, 3, 5) * 3 + 1
    fused = L.LayerNormalization(axis=[1, 2])
    moments = L.LayerNormalization(axis=[1, 2], epsilon=1e-3)
    moments(x)
    moments._fused = False
    a, b = fused(x), moments(x)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
    assert fused._fused


@given(dims=st.lists(st.integers(1, 3), min_size=1, max_size=3), per_group=st.integers(1, 3),
       groups=st.integers(1, 3), channels_first=st.booleans())
def test_group_norm_shape_law_and_formula(dims, per_group, groups, channels_first):
    channels = groups * per_group
    shape = [2, channels] + dims if channels_first else [2] + dims + [channels]
    axis = 1 if channels_first else -1
    x = np.random.default_rng(channels).uniform(-2, 2, shape).astype(np.float32)
    layer = L.GroupNormalization(groups, axis=axis, gamma_initializer="random_uniform",
                                 beta_initializer="random_uniform")
    out = layer(torch.tensor(x))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list() == shape
    assert layer.gamma.shape.as_list() == [channels]
    # reference: move channels last, split into groups, normalise over all but batch and group
    xc = np.moveaxis(x, 1, -1) if channels_first else x
    g = xc.astype(np.float64).reshape(xc.shape[:-1] + (groups, per_group))
    red = tuple(range(1, g.ndim - 2)) + (g.ndim - 1,)
    mean = g.mean(axis=red, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=red, keepdims=True)
    want = ((g - mean) / np.sqrt(var + 1e-3)).reshape(xc.shape)
    want = want * layer.gamma.numpy() + layer.beta.numpy()
    if channels_first:
        want = np.moveaxis(want, -1, 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-5, atol=2e-5)


def test_group_norm_minus_one_is_one_group_per_channel():
    layer = L.GroupNormalization(-1)
    layer(torch.randn(2, 3, 5))
    assert layer.groups == 5 and layer.get_config()["groups"] == 5


def test_group_norm_mask_weights_the_statistics():
    x = torch.randn(2, 4, 6)
    mask = torch.ones(2, 4, 1)
    mask[0, 2:] = 0
    out = L.GroupNormalization(2, center=False, scale=False, epsilon=0.0)(x, mask=mask)
    g0 = x[0, :2, :3]  # example 0, group 0: the unmasked steps 0-1 of channels 0-2
    want = (g0 - g0.mean()) / torch.sqrt(g0.var(unbiased=False))
    np.testing.assert_allclose(out[0, :2, :3].numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


@given(dims=st.lists(st.integers(1, 4), min_size=2, max_size=4), data=st.data())
def test_unit_norm_shape_law_and_unit_norm(dims, data):
    rank = len(dims)
    axis = data.draw(st.one_of(st.integers(-rank, rank - 1),
                               st.lists(st.integers(0, rank - 1), min_size=1, unique=True)))
    x = torch.tensor(np.random.default_rng(rank).uniform(0.5, 2, dims), dtype=torch.float32)
    layer = L.UnitNormalization(axis=axis)
    out = layer(x)
    assert list(out.shape) == layer.compute_output_shape(dims).as_list() == dims
    axes = [axis] if isinstance(axis, int) else axis
    norms = torch.sqrt(torch.sum(out.double() ** 2, dim=[a % rank for a in axes]))
    np.testing.assert_allclose(norms.numpy(), 1.0, rtol=1e-5)
    assert layer.weights == []


def test_unit_norm_of_zeros_is_zero():
    assert torch.equal(L.UnitNormalization()(torch.zeros(2, 3)), torch.zeros(2, 3))


# -- dtypes ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda d: L.LayerNormalization(dtype=d),
                                  lambda d: L.LayerNormalization(axis=1, dtype=d),
                                  lambda d: L.GroupNormalization(2, dtype=d),
                                  lambda d: L.UnitNormalization(dtype=d)])
@pytest.mark.parametrize("policy,out_dtype,weight_dtype", [
    ("float16", torch.float16, "float16"), ("mixed_float16", torch.float16, "float32"),
    ("float64", torch.float64, "float64"), ("mixed_bfloat16", torch.bfloat16, "float32")])
def test_dtypes(make, policy, out_dtype, weight_dtype):
    layer = make(policy)
    x = torch.randn(3, 4, 6)
    out = layer(x)
    assert out.dtype == out_dtype
    assert all(w.dtype.name == weight_dtype for w in layer.weights)
    want = make("float64")(x.double())
    if layer.weights:
        assert len(layer.get_weights()) == 2
    np.testing.assert_allclose(out.double().numpy(), want.numpy(), rtol=2e-2, atol=3e-2)


# -- config round trips ------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.LayerNormalization(axis=[1, 2], epsilon=1e-5, center=False,
                                 gamma_initializer="glorot_uniform", beta_regularizer="l2",
                                 gamma_constraint="non_neg", name="ln"),
    lambda: L.LayerNormalization(),
    lambda: L.GroupNormalization(4, axis=1, epsilon=0.01, scale=False,
                                 gamma_regularizer="l1", name="gn"),
    lambda: L.UnitNormalization(axis=(1, 2), name="un"),
])
def test_config_round_trip(make):
    assert_config_round_trip(make())


def test_built_config_records_the_resolved_axes():
    layer = L.LayerNormalization(axis=(-2, -1))
    layer(torch.randn(2, 3, 4))
    assert layer.get_config()["axis"] == [1, 2]
    gn = L.GroupNormalization(2)
    gn(torch.randn(2, 3, 4))
    assert gn.get_config()["axis"] == -1  # kept as given, as tf_keras


# -- errors change nothing ---------------------------------------------------------------
@pytest.mark.parametrize("make,shape,message", [
    (lambda: L.LayerNormalization(axis=3), (2, 3, 4),
     "Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
     "inputs.rank=3). Received: axis=(3,)"),
    (lambda: L.LayerNormalization(axis=-4), (2, 3, 4), "Received: axis=(-1,)"),
    (lambda: L.LayerNormalization(axis=[1, -2]), (2, 3, 4), "Duplicate axis: (1, 1)"),
    (lambda: L.GroupNormalization(4), (2, 3, 6),
     "Number of groups (4) must be a multiple of the number of channels (6)."),
    (lambda: L.GroupNormalization(7), (2, 3, 6),
     "Number of groups (7) cannot be more than the number of channels (6)."),
    (lambda: L.GroupNormalization(2, axis=-4), (2, 3, 6), "Expected 0 <= axis"),
    (lambda: L.UnitNormalization(axis=[0, 5]), (2, 3, 6), "Received: axis=(0, 5)"),
])
def test_errors_leave_the_layer_unbuilt(make, shape, message):
    layer = make()
    before = layer.get_config()
    with pytest.raises(ValueError) as info:
        layer(torch.randn(shape))
    assert message in str(info.value)
    assert not layer.built and layer.weights == [] and layer.get_config() == before


def test_group_norm_undefined_channels():
    with pytest.raises(ValueError, match="Axis 1 of input tensor should have a defined "
                                         r"dimension .* shape \(2, None, 3\)\."):
        L.GroupNormalization(2, axis=1).build(tf.TensorShape([2, None, 3]))


@pytest.mark.parametrize("cls,message", [
    (L.LayerNormalization, "Expected an int or a list/tuple of ints for the argument 'axis', "
                           "but received: 'a'"),
    (L.BatchNormalization, "Expected an int or a list/tuple of ints for the argument 'axis', "
                           "but received: 'a'"),  # tf_keras's text (a repr), as LayerNormalization
    (L.UnitNormalization, "Invalid value for `axis` argument: expected an int or a list/tuple "
                          "of ints. Received: axis=a"),
])
def test_axis_type_errors(cls, message):
    with pytest.raises(TypeError) as info:
        cls(axis="a")
    assert str(info.value) == message


def test_group_norm_input_spec_checks_channels_after_build():
    layer = L.GroupNormalization(2)
    layer(torch.randn(2, 3, 4))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
        layer(torch.randn(2, 3, 6))


# -- masks pass through ------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: L.LayerNormalization(), lambda: L.UnitNormalization(),
                                  lambda: L.LayerNormalization(axis=[1, 2])])
def test_masks_pass_through(make):
    x = torch.randn(2, 3, 4)
    x[0, 1] = 0.0
    masked = L.Masking()(x)
    out = make()(masked)
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, False, True]] * 1 +
                                  [[True, True, True]])


def test_masks_pass_through_in_a_model():
    inputs = tf.keras.Input((3, 4))
    y = L.LayerNormalization()(L.Masking()(inputs))
    assert y._keras_mask is not None
    model = tf.keras.Model(inputs, L.GlobalAveragePooling1D()(y))
    x = torch.randn(2, 3, 4)
    x[1, 2] = 0
    want = L.LayerNormalization()(x)
    # the pooled average skips the masked step: the mask went through LayerNormalization
    got = model(x)
    np.testing.assert_allclose(got[1].numpy(), want[1, :2].mean(0).numpy(), atol=1e-5)


# -- functional API ----------------------------------------------------------------------
def test_functional_api_matches_eager():
    inputs = tf.keras.Input((4, 6))
    ln, gn, un = L.LayerNormalization(), L.GroupNormalization(3), L.UnitNormalization(axis=1)
    model = tf.keras.Model(inputs, un(gn(ln(inputs))))
    x = torch.randn(2, 4, 6)
    np.testing.assert_allclose(model(x).numpy(), un(gn(ln(x))).numpy(), rtol=1e-6, atol=1e-6)
    assert [w.name for w in model.weights] == [
        "layer_normalization/gamma:0", "layer_normalization/beta:0",
        "group_normalization/gamma:0", "group_normalization/beta:0"] or \
        [w.name.split("/")[-1] for w in model.weights] == ["gamma:0", "beta:0"] * 2
    assert model.output_shape == (None, 4, 6)


def test_gradients_reach_the_weights():
    layer = L.LayerNormalization(axis=1)
    x = torch.randn(3, 4, 2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x) * torch.arange(8.0).reshape(1, 4, 2))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert [tuple(g.shape) for g in grads] == [(4,), (4,)]
    np.testing.assert_allclose(grads[1].numpy(), 3 * (torch.arange(8.0).reshape(4, 2).sum(1))
                               .numpy())


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
@pytest.mark.parametrize("make,shape", [
    (lambda: L.LayerNormalization(), (4, 3, 5)),
    (lambda: L.LayerNormalization(axis=1), (4, 3, 5)),
    (lambda: L.GroupNormalization(2, axis=1), (4, 4, 3)),
])
def test_mirrored_equals_one_device(strategy, make, shape):
    x = torch.tensor(np.random.default_rng(7).uniform(-1, 1, shape), dtype=torch.float32)
    assert_mirrored_equals_one_device(
        strategy, make, x, seed=None,
        weights=lambda single: [np.random.default_rng(i).uniform(0.5, 1.5, w.shape)
                                .astype(np.float32)
                                for i, w in enumerate(single.get_weights())],
        loss=lambda out: tf.reduce_sum(out * out * torch.linspace(-1, 1, shape[-1])))


def test_group_norm_refuses_a_timestep_mask_as_tf_keras():
    # tf_keras broadcasts the mask to the input's shape, which a (batch, steps) mask of a
    # (batch, steps, channels) input does not do: tf.errors.InvalidArgumentError there too
    masked = L.Masking()(torch.rand(2, 3, 4))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        L.GroupNormalization(2)(masked)
