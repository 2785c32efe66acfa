"""The merging layers: shape laws (elementwise broadcasting with rank mismatch, Concatenate,
Dot), left-to-right numerics, tie gradients, masks, config round trips, errors that change
nothing, the functional forms and the functional API with several Inputs.
Numerics vs tf_keras are in tests/keras/golden/cases_merging.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf

L = tf.keras.layers
ELEMENTWISE = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"]
FUNCTIONAL = {"Add": "add", "Subtract": "subtract", "Multiply": "multiply",
              "Average": "average", "Maximum": "maximum", "Minimum": "minimum",
              "Concatenate": "concatenate", "Dot": "dot"}


@st.composite
def broadcastable_shapes(draw, count):
    """Per-sample shapes that merge: suffixes of one shape, some dims replaced by 1."""
    base = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    shapes = []
    for _ in range(count):
        rank = draw(st.integers(1, len(base)))
        dims = [1 if draw(st.booleans()) and draw(st.booleans()) else d
                for d in base[len(base) - rank:]]
        shapes.append(dims)
    return shapes


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@settings(deadline=None)
@given(data=st.data(), cls=st.sampled_from(ELEMENTWISE), batch=st.integers(1, 3))
def test_elementwise_output_shape_law(data, cls, batch):
    count = 2 if cls == "Subtract" else data.draw(st.integers(1, 4))
    shapes = [[batch] + s for s in data.draw(broadcastable_shapes(count))]
    layer = getattr(L, cls)()
    out = layer([torch.rand(s) for s in shapes])
    assert list(out.shape) == layer.compute_output_shape(shapes).as_list()
    assert layer.compute_output_shape([[None] + s[1:] for s in shapes]).as_list() == \
        [None] + list(out.shape[1:])


@settings(deadline=None)
@given(rank=st.integers(2, 4), data=st.data(), count=st.integers(1, 4))
def test_concatenate_output_shape_law(rank, data, count):
    axis = data.draw(st.integers(-(rank - 1), rank - 1).filter(lambda a: a != 0))
    base = [2] + data.draw(st.lists(st.integers(1, 4), min_size=rank - 1, max_size=rank - 1))
    shapes = []
    for _ in range(count):
        s = list(base)
        s[axis] = data.draw(st.integers(1, 4))
        shapes.append(s)
    layer = L.Concatenate(axis=axis)
    out = layer([torch.rand(s) for s in shapes])
    assert list(out.shape) == layer.compute_output_shape(shapes).as_list()
    want = np.concatenate([np.ones(s) for s in shapes], axis=axis).shape
    assert tuple(out.shape) == want


@settings(deadline=None)
@given(r1=st.integers(2, 4), r2=st.integers(2, 4), data=st.data(), normalize=st.booleans())
def test_dot_output_shape_law_and_values(r1, r2, data, normalize):
    a1 = data.draw(st.integers(1, r1 - 1))
    a2 = data.draw(st.integers(1, r2 - 1))
    k = data.draw(st.integers(1, 4))
    s1 = [2] + data.draw(st.lists(st.integers(1, 3), min_size=r1 - 1, max_size=r1 - 1))
    s2 = [2] + data.draw(st.lists(st.integers(1, 3), min_size=r2 - 1, max_size=r2 - 1))
    s1[a1], s2[a2] = k, k
    x1, x2 = torch.rand(s1, dtype=torch.float64), torch.rand(s2, dtype=torch.float64)
    negative = data.draw(st.booleans())
    axes = (a1 - r1, a2 - r2) if negative else (a1, a2)
    layer = L.Dot(axes, normalize=normalize, dtype="float64")
    out = layer([x1, x2])
    assert list(out.shape) == layer.compute_output_shape([s1, s2]).as_list()
    n1, n2 = x1.numpy(), x2.numpy()
    if normalize:
        n1 = n1 / np.linalg.norm(n1, axis=a1, keepdims=True)
        n2 = n2 / np.linalg.norm(n2, axis=a2, keepdims=True)
    want = np.stack([np.tensordot(n1[b], n2[b], axes=(a1 - 1, a2 - 1)) for b in range(2)])
    np.testing.assert_allclose(out.numpy(), want.reshape(out.shape), rtol=1e-12)


# -- semantics ----------------------------------------------------------------------------
def test_add_and_average_fold_left_to_right():
    a, b, c = (torch.tensor([x], dtype=torch.float32) for x in (1e8, -1e8, 1.0))
    assert L.Add()([a, b, c]).item() == 1.0          # (a + b) + c
    assert L.Add()([b, c, a]).item() == 0.0          # (b + c) rounds to b first
    assert L.Average()([a, b, c]).item() == np.float32(1.0) / np.float32(3.0)


def test_inputs_are_not_modified_in_place():
    a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
    for cls in ("Add", "Average", "Multiply"):
        getattr(L, cls)()([a, b])
    np.testing.assert_array_equal(a.numpy(), np.ones((2, 3)))


def test_elementwise_values():
    rng = np.random.default_rng(0)
    xs = [rng.uniform(-1, 1, (3, 4)) for _ in range(3)]
    ts = [torch.tensor(x) for x in xs]
    kw = {"dtype": "float64"}
    np.testing.assert_allclose(L.Add(**kw)(ts).numpy(), xs[0] + xs[1] + xs[2])
    np.testing.assert_allclose(L.Subtract(**kw)(ts[:2]).numpy(), xs[0] - xs[1])
    np.testing.assert_allclose(L.Multiply(**kw)(ts).numpy(), xs[0] * xs[1] * xs[2])
    np.testing.assert_allclose(L.Average(**kw)(ts).numpy(), (xs[0] + xs[1] + xs[2]) / 3)
    np.testing.assert_array_equal(L.Maximum(**kw)(ts).numpy(), np.maximum.reduce(xs))
    np.testing.assert_array_equal(L.Minimum(**kw)(ts).numpy(), np.minimum.reduce(xs))


def test_rank_mismatch_inserts_axes_after_the_batch():
    a, v = torch.rand(2, 3, 4), torch.rand(2, 4)
    np.testing.assert_array_equal(L.Add()([a, v]).numpy(), (a + v[:, None, :]).numpy())
    np.testing.assert_array_equal(L.Add()([v, a]).numpy(), (v[:, None, :] + a).numpy())


def test_average_of_integers_is_float64_and_add_keeps_the_dtype():
    x = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
    assert L.Average()([x, x]).dtype == torch.float64
    assert L.Add()([x, x]).dtype == torch.int32


def test_maximum_tie_sends_the_gradient_to_the_earlier_input():
    a = tf.Variable([[1.0, 2.0]])
    b = tf.Variable([[1.0, 1.0]])
    for cls in ("Maximum", "Minimum"):
        with tf.GradientTape() as tape:
            out = getattr(L, cls)()([a, b])
        ga, gb = tape.gradient(tf.reduce_sum(out), [a, b])
        want_a = [[1.0, 1.0]] if cls == "Maximum" else [[1.0, 0.0]]
        np.testing.assert_array_equal(np.asarray(ga), want_a)
        np.testing.assert_array_equal(np.asarray(gb), 1.0 - np.asarray(want_a))


def test_mixed_precision_computes_in_float16():
    layer = L.Add(dtype="mixed_float16")
    out = layer([torch.rand(2, 3), torch.rand(2, 3)])
    assert out.dtype == torch.float16


def test_dot_of_rank2_inputs_is_a_column():
    a, b = torch.rand(4, 5), torch.rand(4, 5)
    out = L.Dot(axes=1)([a, b])
    assert out.shape == (4, 1)
    np.testing.assert_allclose(out.numpy()[:, 0], (a * b).sum(1).numpy(), rtol=1e-5)
    cos = L.Dot(axes=1, normalize=True)([a, a])
    np.testing.assert_allclose(cos.numpy(), np.ones((4, 1)), rtol=1e-6)


# -- masks ----------------------------------------------------------------------------------
def test_merge_mask_is_the_and_of_the_masks():
    m1 = torch.tensor([[True, False, True], [True, True, False]])
    m2 = torch.tensor([[True, True, False], [False, True, True]])
    x = torch.rand(2, 3, 4)
    layer = L.Add()
    np.testing.assert_array_equal(layer.compute_mask([x, x], [m1, m2]).numpy(),
                                  (m1 & m2).numpy())
    np.testing.assert_array_equal(layer.compute_mask([x, x], [m1, None]).numpy(), m1.numpy())
    assert layer.compute_mask([x, x], [None, None]) is None
    assert layer.compute_mask([x, x], None) is None
    with pytest.raises(ValueError, match="should be a list"):
        layer.compute_mask([x, x], m1)
    with pytest.raises(ValueError, match="same length"):
        layer.compute_mask([x, x], [m1])
    assert L.Dot(2).compute_mask([x, x], [m1, m2]) is None


def test_concatenate_mask():
    m1 = torch.tensor([[True, False, True], [True, True, False]])
    x, y = torch.rand(2, 3, 4), torch.rand(2, 3, 2)
    layer = L.Concatenate()
    # a missing mask is all-true; the result is AND-reduced over the last axis
    np.testing.assert_array_equal(layer.compute_mask([x, y], [m1, None]).numpy(), m1.numpy())
    m2 = torch.tensor([[False, True, True], [True, True, True]])
    time = L.Concatenate(axis=1)
    np.testing.assert_array_equal(time.compute_mask([x, x], [m1, m2]).numpy(),
                                  torch.cat([m1, m2], 1).numpy())


def test_masks_travel_through_merges_eagerly_and_in_a_model():
    emb = L.Embedding(5, 2, mask_zero=True)
    ids = torch.tensor([[1, 2, 0], [3, 0, 0]])
    e = emb(ids)
    out = L.Add()([e, e])
    np.testing.assert_array_equal(out._keras_mask.numpy(), (ids != 0).numpy())
    inp = tf.keras.Input((3,), dtype="int32")
    e2 = emb(inp)
    model = tf.keras.Model(inp, L.Concatenate()([e2, L.Multiply()([e2, e2])]))
    got = model(ids)
    np.testing.assert_array_equal(got._keras_mask.numpy(), (ids != 0).numpy())


# -- get_config / from_config round trip ----------------------------------------------------
@pytest.mark.parametrize("make", [
    L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum,
    lambda: L.Concatenate(axis=1, name="cat"), lambda: L.Dot((1, 2), normalize=True),
    lambda: L.Dot(-1), lambda: L.Add(dtype="float64", trainable=False),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config


def test_functional_forms_resolve_and_forward_kwargs():
    a, b = torch.rand(2, 3), torch.rand(2, 3)
    for cls, fn in FUNCTIONAL.items():
        assert callable(getattr(L, fn))
    np.testing.assert_array_equal(L.add([a, b]).numpy(), L.Add()([a, b]).numpy())
    np.testing.assert_array_equal(L.subtract([a, b]).numpy(), (a - b).numpy())
    np.testing.assert_array_equal(L.concatenate([a, b], axis=0).numpy(),
                                  torch.cat([a, b], 0).numpy())
    np.testing.assert_allclose(L.dot([a, b], axes=1, normalize=True).numpy(),
                               L.Dot(1, normalize=True)([a, b]).numpy())
    assert L.multiply([a, b], dtype="float64").dtype == torch.float64


# -- errors that change nothing ---------------------------------------------------------
@pytest.mark.parametrize("make,bad,match", [
    (L.Add, [torch.ones(2, 3), torch.ones(2, 4)], "Inputs have incompatible shapes"),
    (L.Add, torch.ones(2, 3), "should be called on a list of inputs"),
    (L.Average, [torch.ones(2, 3), torch.ones(3, 3)], "different batch sizes"),
    (L.Subtract, [torch.ones(2, 3)] * 3, "exactly 2 inputs"),
    (L.Subtract, [torch.ones(2, 3)], "exactly 2 inputs"),
    (L.Concatenate, [torch.ones(2, 3, 4), torch.ones(2, 2, 4)], "matching shapes"),
    (L.Concatenate, [torch.ones(2, 3, 4), torch.ones(2, 3)], "matching shapes"),
    (L.Concatenate, torch.ones(2, 3), "at least 1 input"),
    (lambda: L.Dot(1), [torch.ones(2, 3), torch.ones(2, 4)], "Incompatible input shapes"),
    (lambda: L.Dot(1), [torch.ones(2, 3)] * 3, "list of 2 inputs"),
])
def test_errors_leave_the_layer_unbuilt(make, bad, match):
    layer = make()
    with pytest.raises(ValueError, match=match):
        layer(bad)
    assert not layer.built
    good = [torch.ones(2, 3), torch.ones(2, 3)]
    assert layer(good).shape[0] == 2
    assert layer.built


def test_constructor_errors():
    with pytest.raises(TypeError, match="Invalid type for argument `axes`"):
        L.Dot("1")
    with pytest.raises(ValueError, match="should contain two elements"):
        L.Dot((1, 2, 3))
    with pytest.raises(ValueError, match="list elements should be integers"):
        L.Dot((1, 1.0))
    with pytest.raises(ValueError, match="should be called on a list of inputs"):
        L.Concatenate().compute_output_shape((None, 3))


# -- the functional API -------------------------------------------------------------------
@pytest.mark.parametrize("cls", ELEMENTWISE + ["Concatenate", "Dot"])
def test_functional_model_with_two_inputs(cls):
    i1, i2 = tf.keras.Input((4,)), tf.keras.Input((4,))
    layer = L.Dot(1) if cls == "Dot" else getattr(L, cls)()
    out = layer([i1, i2])
    model = tf.keras.Model([i1, i2], out)
    a, b = torch.rand(3, 4), torch.rand(3, 4)
    got = model([a, b])
    np.testing.assert_array_equal(got.numpy(), layer([a, b]).numpy())
    assert tuple(out.shape) == (None,) + tuple(got.shape[1:])
    assert model.output_shape == (None,) + tuple(got.shape[1:])


def test_functional_model_gradients_and_config_round_trip():
    i1, i2 = tf.keras.Input((3,)), tf.keras.Input((2, 3))
    merged = L.concatenate([L.Flatten()(L.add([i2, i1])), i1])
    model = tf.keras.Model([i1, i2], L.Dense(1)(merged))
    clone = tf.keras.Model.from_config(model.get_config())
    assert [type(x).__name__ for x in clone.layers] == [type(x).__name__ for x in model.layers]
    clone.set_weights(model.get_weights())
    x1, x2 = torch.rand(4, 3), torch.rand(4, 2, 3)
    np.testing.assert_array_equal(clone([x1, x2]).numpy(), model([x1, x2]).numpy())
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model([x1, x2]) ** 2)
    kernel_grad, bias_grad = tape.gradient(loss, model.trainable_weights)
    assert kernel_grad.shape == (9, 1) and bias_grad.shape == (1,)
