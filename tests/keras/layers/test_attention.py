"""Attention layers (MultiHeadAttention, Attention, AdditiveAttention): shape laws, config
round trips, errors that leave the layer unchanged, masks (explicit, Keras masks, causal),
dropout and training, mixed precision, the functional API (a small transformer block) and
MirroredStrategy. Numerics vs tf_keras are in tests/keras/golden/cases_attention.py."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tests.keras.layers.config_check import assert_config_round_trip
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, strategy)
from tfcompat.keras.layers.attention import (AdditiveAttention, Attention,
                                              MultiHeadAttention)
from tfcompat.keras.layers.attention.multi_head_attention import build_attention_equation

_RNG = np.random.default_rng(5)


def rand(*shape, dtype=torch.float32):
    return torch.tensor(_RNG.uniform(-1, 1, shape), dtype=dtype)


# -- shape laws -----------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(batch=st.integers(1, 3), t=st.integers(1, 5), s=st.integers(1, 5),
       dim=st.integers(1, 6), heads=st.integers(1, 3), key_dim=st.integers(1, 4),
       value_dim=st.one_of(st.none(), st.integers(1, 4)),
       out=st.one_of(st.none(), st.integers(1, 5), st.tuples(st.integers(1, 3),
                                                             st.integers(1, 3))),
       key_width=st.one_of(st.none(), st.integers(1, 5)), scores=st.booleans())
def test_mha_output_shape_law(batch, t, s, dim, heads, key_dim, value_dim, out, key_width,
                              scores):
    layer = MultiHeadAttention(heads, key_dim, value_dim=value_dim, output_shape=out)
    query, value = rand(batch, t, dim), rand(batch, s, dim)
    key = None if key_width is None else rand(batch, s, key_width)
    result = layer(query, value, key, return_attention_scores=scores)
    output = result[0] if scores else result
    want = layer.compute_output_shape(query.shape, value.shape,
                                      None if key is None else key.shape)
    assert list(output.shape) == want.as_list()
    if scores:
        assert list(result[1].shape) == [batch, heads, t, s]


@settings(max_examples=15, deadline=None)
@given(dims=st.lists(st.integers(1, 3), min_size=2, max_size=3),
       axes=st.sets(st.integers(1, 3), min_size=1, max_size=2), heads=st.integers(1, 2))
def test_mha_multi_axis_output_shape_law(dims, axes, heads):
    axes = tuple(sorted(a for a in axes if a <= len(dims)))
    if not axes:
        axes = (1,)
    x = rand(2, *dims, 3)
    layer = MultiHeadAttention(heads, 2, attention_axes=axes)
    out, scores = layer(x, x, return_attention_scores=True)
    assert list(out.shape) == layer.compute_output_shape(x.shape, x.shape).as_list()
    batch_dims = [d for i, d in enumerate(dims, 1) if i not in axes]
    attended = [dims[a - 1] for a in axes]
    assert list(scores.shape) == [2] + batch_dims + [heads] + attended + attended
    # each query's weights over the attended positions sum to one
    total = scores.sum(dim=tuple(range(scores.dim() - len(axes), scores.dim())))
    np.testing.assert_allclose(total.numpy(), 1.0, rtol=1e-5)


def test_attention_equations_as_tf_keras():
    # (recorded from tf_keras 2.21's _build_attention_equation)
    assert build_attention_equation(4, (1,)) == ("aecd,abcd->acbe", "acbe,aecd->abcd", 4)
    assert build_attention_equation(5, (1, 2)) == ("afgde,abcde->adbcfg",
                                                   "adbcfg,afgde->abcde", 6)
    assert build_attention_equation(5, (2,)) == ("abfde,abcde->abdcf", "abdcf,abfde->abcde", 5)


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(1, 3), tq=st.integers(1, 5), tv=st.integers(1, 5),
       dim=st.integers(1, 5), with_key=st.booleans(),
       cls=st.sampled_from([Attention, AdditiveAttention]))
def test_dense_attention_output_shape_law(batch, tq, tv, dim, with_key, cls):
    inputs = [rand(batch, tq, dim), rand(batch, tv, dim)] + ([rand(batch, tv, dim)]
                                                             if with_key else [])
    layer = cls()
    out, scores = layer(inputs, return_attention_scores=True)
    assert list(out.shape) == layer.compute_output_shape([x.shape for x in inputs]).as_list()
    assert list(scores.shape) == [batch, tq, tv]


# -- configs --------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: Attention(use_scale=True, score_mode="concat", dropout=0.25, name="att"),
    lambda: Attention(),
    lambda: AdditiveAttention(use_scale=False, dropout=0.5),
    lambda: MultiHeadAttention(4, 8, value_dim=2, dropout=0.1, use_bias=False,
                               output_shape=(3,), attention_axes=(1,),
                               kernel_initializer="he_normal", kernel_regularizer="l2",
                               softmax_robust_masking=True),
])
def test_config_round_trip(make):
    assert_config_round_trip(make())


def test_mha_from_config_of_a_built_layer_makes_the_same_layer():
    query, value = rand(2, 4, 6), rand(2, 5, 6)
    layer = MultiHeadAttention(2, 3, output_shape=(2, 2), name="mha")
    want = layer(query, value)
    config = layer.get_config()
    assert config["query_shape"].as_list() == [2, 4, 6]
    clone = MultiHeadAttention.from_config(config)
    assert clone._built_from_signature and clone.get_config() == config
    clone(query, value)
    clone.set_weights(layer.get_weights())
    np.testing.assert_array_equal(clone(query, value).numpy(), want.numpy())
    assert [w.name for w in clone.weights] == [w.name for w in layer.weights]


def test_mha_from_config_without_shapes_warns(caplog):
    config = MultiHeadAttention(2, 3).get_config()
    with caplog.at_level(logging.WARNING, logger="tfcompat"):
        layer = MultiHeadAttention.from_config(config)
    assert "created without weights" in caplog.text and not layer._built_from_signature


def test_mha_config_records_symbolic_shapes_and_resolved_axes():
    q = tf.keras.Input((None, 6))
    layer = MultiHeadAttention(2, 3)
    assert layer.get_config()["attention_axes"] is None
    layer(q, q)
    config = layer.get_config()
    assert config["query_shape"].as_list() == [None, None, 6]
    assert config["attention_axes"] == (1,)


def test_mha_weights_names_and_layout():
    tf.keras.backend.clear_session()
    layer = MultiHeadAttention(3, 2, value_dim=4, output_shape=(5, 2))
    layer(rand(2, 4, 6), rand(2, 3, 7))
    assert [(w.name, tuple(w.shape)) for w in layer.weights] == [
        ("multi_head_attention/query/kernel:0", (6, 3, 2)),
        ("multi_head_attention/query/bias:0", (3, 2)),
        ("multi_head_attention/key/kernel:0", (7, 3, 2)),
        ("multi_head_attention/key/bias:0", (3, 2)),
        ("multi_head_attention/value/kernel:0", (7, 3, 4)),
        ("multi_head_attention/value/bias:0", (3, 4)),
        ("multi_head_attention/attention_output/kernel:0", (3, 4, 5, 2)),
        ("multi_head_attention/attention_output/bias:0", (5, 2)),
    ]


# -- errors (tf_keras's classes and texts; the layer is left as it was) ---------------------
def test_dense_attention_input_errors():
    q, v = rand(2, 3, 4), rand(2, 5, 4)
    layer = Attention(use_scale=True)
    with pytest.raises(ValueError, match=r"Attention layer must be called on a list of "
                                         r"inputs, namely \[query, value\] or \[query, value, "
                                         r"key\]\. Received: "):
        layer(q)
    with pytest.raises(ValueError, match=r"Attention layer accepts inputs list of length 2 "
                                         r"or 3, namely \[query, value\] or \[query, value, "
                                         r"key\]\. Received length: 1\."):
        layer([q])
    with pytest.raises(ValueError, match=r"AdditiveAttention layer accepts inputs list of "
                                         r"length 2 or 3.*Received length: 4\."):
        AdditiveAttention()([q, v, v, v])
    with pytest.raises(ValueError, match=r"Attention layer mask must be a list, namely "
                                         r"\[query_mask, value_mask\]\. Received: "):
        layer([q, v], mask=(torch.ones(2, 3, dtype=torch.bool),
                            torch.ones(2, 5, dtype=torch.bool)))
    with pytest.raises(ValueError, match=r"Attention layer mask must be a list of length 2, "
                                         r"namely \[query_mask, value_mask\]\. Received "
                                         r"length: 1\."):
        layer([q, v], mask=[torch.ones(2, 3, dtype=torch.bool)])
    # as tf_keras: the layer builds before `call` checks its inputs, once
    assert layer.built and [w.name for w in layer.weights] == ["attention/scale:0"]
    assert layer([q, v]).shape == (2, 3, 4)
    assert [w.name for w in layer.weights] == ["attention/scale:0"]
    additive = AdditiveAttention()
    with pytest.raises(IndexError):  # tf_keras's build reads the value's shape first
        additive([q])
    assert not additive.built and additive.weights == []


def test_attention_score_mode_error():
    with pytest.raises(ValueError, match=r'Received: score_mode=add\. Acceptable values are: '
                                         r'\["dot", "concat"\]'):
        Attention(score_mode="add")


def test_mha_shape_errors():
    layer = MultiHeadAttention(2, 3)
    with pytest.raises(ValueError, match=r"The last dimension of `query_shape` and "
                                         r"`value_shape` must be equal, but are 6, 8\."):
        layer.compute_output_shape((None, 4, 6), (None, 5, 8))
    with pytest.raises(ValueError, match=r"All dimensions of `value` and `key`, except the "
                                         r"last one, must be equal\. Received \(None, 5, 6\) "
                                         r"and \(None, 3, 6\)"):
        layer.compute_output_shape((None, 4, 6), (None, 5, 6), (None, 3, 6))
    assert not layer._built_from_signature and layer.weights == []


def test_mha_attention_axes_out_of_range():
    layer = MultiHeadAttention(2, 3, attention_axes=5)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        layer(rand(2, 4, 6), rand(2, 4, 6))


# -- masks ----------------------------------------------------------------------------------
def test_mha_attention_mask_zeroes_the_masked_scores():
    q, v = rand(2, 4, 6), rand(2, 5, 6)
    mask = torch.tensor(_RNG.uniform(size=(2, 4, 5)) > 0.4)
    mask[..., 0] = True
    _, scores = MultiHeadAttention(2, 3)(q, v, attention_mask=mask,
                                        return_attention_scores=True)
    assert torch.all(scores[~mask.unsqueeze(1).expand_as(scores)] == 0)
    np.testing.assert_allclose(scores.sum(-1).numpy(), 1.0, rtol=1e-6)


def test_mha_keras_masks_and_causal_mask_merge():
    q, v = rand(2, 4, 6), rand(2, 4, 6)
    q._keras_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool)
    v._keras_mask = torch.tensor([[1, 0, 1, 1], [1, 1, 1, 1]], dtype=torch.bool)
    layer = MultiHeadAttention(2, 3)
    out, scores = layer(q, v, use_causal_mask=True, return_attention_scores=True)
    mask = layer._compute_attention_mask(q, v, key=v, use_causal_mask=True)
    causal = torch.tril(torch.ones(4, 4, dtype=torch.bool))
    want = q._keras_mask[:, :, None] & v._keras_mask[:, None, :] & causal
    assert torch.equal(mask, want)
    # the query's Keras mask is the output's (tf_keras's default compute_mask)
    assert torch.equal(out._keras_mask, q._keras_mask)
    # a fully masked query attends uniformly (the large negative cancels in the softmax)
    np.testing.assert_allclose(scores[0, :, 3].numpy(), 0.25, rtol=1e-6)
    assert torch.all(scores[1, :, 0, 1:] == 0)


def test_dense_attention_masks_and_causal():
    q, v = rand(2, 3, 4), rand(2, 4, 4)
    q_mask = torch.tensor([[1, 0, 1], [1, 1, 1]], dtype=torch.bool)
    v_mask = torch.tensor([[1, 1, 0, 1], [0, 1, 1, 1]], dtype=torch.bool)
    for layer in (Attention(), AdditiveAttention(), Attention(score_mode="concat")):
        out, scores = layer([q, v], mask=[q_mask, v_mask], return_attention_scores=True)
        assert torch.all(scores.permute(1, 0, 2)[:, ~v_mask] == 0)
        assert torch.all(out[~q_mask] == 0)
        assert torch.equal(layer.compute_mask([q, v], [q_mask, v_mask]), q_mask)
        assert layer.compute_mask([q, v]) is None
        _, causal = layer([q, v], use_causal_mask=True, return_attention_scores=True)
        assert torch.all(torch.triu(causal, diagonal=1) == 0)


def test_deprecated_causal_argument(caplog):
    q, v = rand(2, 3, 4), rand(2, 3, 4)
    with caplog.at_level(logging.WARNING, logger="tfcompat"):
        layer = Attention(causal=True)
    assert "`causal` argument is deprecated" in caplog.text
    want = Attention()([q, v], use_causal_mask=True)
    np.testing.assert_array_equal(layer([q, v]).numpy(), want.numpy())


def test_attention_keras_mask_propagates_in_a_functional_model():
    ids = tf.keras.Input((None,), dtype="int32")
    emb = tf.keras.layers.Embedding(10, 4, mask_zero=True)(ids)
    out, scores = Attention()([emb, emb], return_attention_scores=True)
    model = tf.keras.Model(ids, [out, scores])
    got_out, got_scores = model(torch.tensor([[1, 2, 0, 0]]))
    assert torch.all(got_scores[..., 2:] == 0) and torch.all(got_out[:, 2:] == 0)
    assert torch.equal(got_out._keras_mask, torch.tensor([[True, True, False, False]]))


# -- dropout, training, gradients, dtypes -------------------------------------------------
def test_dropout_only_in_training():
    q, v = rand(2, 4, 6), rand(2, 5, 6)
    tf.keras.utils.set_random_seed(1)
    layer = MultiHeadAttention(2, 3, dropout=0.5)
    a = layer(q, v)
    np.testing.assert_array_equal(layer(q, v, training=False).numpy(), a.numpy())
    assert not torch.equal(layer(q, v, training=True), a)
    dense = Attention(dropout=0.5)
    b = dense([q, v])
    np.testing.assert_array_equal(dense([q, v], training=False).numpy(), b.numpy())
    _, dropped = dense([q, v], training=True, return_attention_scores=True)
    # the returned scores are after dropout in the dense family (as tf_keras)
    assert torch.any(dropped == 0)
    with tf.keras.backend.learning_phase_scope(1):
        assert not torch.equal(dense([q, v]), b)


def test_mha_key_bias_gradient_is_zero():
    # adding one constant to every score of a query changes nothing after the softmax
    q, v = rand(2, 4, 6), rand(2, 5, 6)
    layer = MultiHeadAttention(2, 3, bias_initializer="random_normal")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(q, v) ** 2)
    grads = dict(zip([w.name for w in layer.trainable_weights],
                     tape.gradient(loss, layer.trainable_weights)))
    scale = max(float(torch.abs(g).max()) for g in grads.values())
    key_bias = [g for name, g in grads.items() if name.endswith("/key/bias:0")]
    assert len(key_bias) == 1 and float(torch.abs(key_bias[0]).max()) < 1e-6 * scale


def test_mixed_precision_policy():
    q, v = rand(2, 4, 6), rand(2, 5, 6)
    for layer, call in ((MultiHeadAttention(2, 3, dtype="mixed_float16"),
                         lambda lay: lay(q, v, return_attention_scores=True)),
                        (Attention(use_scale=True, dtype="mixed_float16"),
                         lambda lay: lay([q, v], return_attention_scores=True))):
        out, scores = call(layer)
        assert out.dtype == torch.float16 and scores.dtype == torch.float16
        assert all(w.dtype == tf.float32 for w in layer.weights)


def test_numpy_value_and_keywords():
    q, v = rand(2, 4, 6), rand(2, 5, 6)
    layer = MultiHeadAttention(2, 3)
    want = layer(q, v)
    np.testing.assert_array_equal(layer(query=q, value=v.numpy()).numpy(), want.numpy())
    np.testing.assert_array_equal(layer(q, v, key=v).numpy(), want.numpy())


def test_subclass_builds_from_signature_and_overrides_attention():
    class Scaled(MultiHeadAttention):
        def _compute_attention(self, query, key, value, attention_mask=None, training=None):
            out, scores = super()._compute_attention(query, key, value, attention_mask,
                                                     training)
            return out * 2.0, scores

    class Block(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.mha = Scaled(2, 3)

        def build(self, input_shape):
            self.mha._build_from_signature(input_shape, input_shape)

        def call(self, x):
            return self.mha(x, x)

    tf.keras.backend.clear_session()
    x = rand(2, 4, 6)
    block = Block()
    got = block(x)
    # (recorded from tf_keras 2.21)
    assert [w.name for w in block.weights] == [
        f"block/scaled/{p}/{k}:0" for p in ("query", "key", "value", "attention_output")
        for k in ("kernel", "bias")]
    plain = MultiHeadAttention(2, 3)
    plain(x, x)
    plain.set_weights(block.get_weights())
    # (the subclass takes the einsum path, the plain layer the fused one)
    np.testing.assert_allclose(got.numpy(), 2.0 * plain(x, x).numpy(), rtol=1e-5, atol=1e-6)


# -- the fused path (scaled_dot_product_attention) against the einsum path ---------------
@pytest.fixture
def einsum_path():
    def run(fn):
        MultiHeadAttention._fused_attention_enabled = False
        try:
            return fn()
        finally:
            MultiHeadAttention._fused_attention_enabled = True
    return run


def _forward_and_grads(layer, q, v, **kwargs):
    q, v = q.clone(), v.clone()
    with tf.GradientTape() as tape:
        tape.watch(q)
        tape.watch(v)
        out = layer(q, v, **kwargs)
        loss = tf.reduce_sum(out * torch.linspace(-1, 1, out.shape[-1], dtype=out.dtype))
    return [out] + list(tape.gradient(loss, [q, v] + layer.trainable_weights))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("causal,s", [(False, 5), (True, 4), (True, 5), (True, 3)])
def test_fused_path_within_the_error_model_of_the_einsum_path(einsum_path, dtype, causal, s):
    from tests.ops.golden import harness
    q, v = rand(2, 4, 6, dtype=dtype), rand(2, s, 6, dtype=dtype)
    layer = MultiHeadAttention(2, 3, bias_initializer="random_normal",
                               dtype="float64" if dtype == torch.float64 else None)
    layer(q, v)
    assert layer._can_fuse(layer._query_dense(q), False, None, False)
    fused = _forward_and_grads(layer, q, v, use_causal_mask=causal)
    generic = einsum_path(lambda: _forward_and_grads(layer, q, v, use_causal_mask=causal))
    # n as the goldens' (D + K + 2L + HV + BT + 8)
    case = harness.Case(None, n=6 + 3 + 2 * s + 6 + 8 + 8, terms="normwise")
    names = ["output", "query", "value"] + [w.name for w in layer.trainable_weights]
    for name, a, b in zip(names, fused, generic):
        if name.endswith("key/bias:0"):
            continue  # zero in exact arithmetic (see test_mha_key_bias_gradient_is_zero)
        harness.compare(harness.encode_tfcompat(a), harness.encode_tfcompat(b), case, name)


def test_fused_path_only_where_it_is_tf_keras():
    q = rand(2, 4, 6)
    layer = MultiHeadAttention(2, 3, dropout=0.5)
    layer(q, q)
    projected = layer._query_dense(q)
    assert layer._can_fuse(projected, False, False, False)
    assert not layer._can_fuse(projected, False, True, False)          # dropout in effect
    assert not layer._can_fuse(projected, True, False, False)          # scores wanted
    assert not layer._can_fuse(projected, False, False, True)          # a mask
    assert not layer._can_fuse(projected.half(), False, False, False)  # float16
    robust = MultiHeadAttention(2, 3, softmax_robust_masking=True)
    robust(q, q)
    assert not robust._can_fuse(projected, False, False, False)
    multi = MultiHeadAttention(2, 3, attention_axes=(1, 2))
    x = rand(2, 3, 4, 6)
    multi(x, x)
    assert not multi._can_fuse(multi._query_dense(x), False, False, False)


# -- the functional API: a small transformer block -----------------------------------------
def test_functional_transformer_block_trains():
    tokens = tf.keras.Input((None, 8))
    attended = MultiHeadAttention(2, 4)(tokens, tokens, use_causal_mask=True)
    residual = tokens + attended
    hidden = tf.keras.layers.Dense(16, activation="relu")(residual)
    out = residual + tf.keras.layers.Dense(8)(hidden)
    model = tf.keras.Model(tokens, out)
    assert out.shape.as_list() == [None, None, 8]
    x = rand(4, 5, 8)
    y = rand(4, 5, 8)
    optimizer = tf.keras.optimizers.SGD(0.05)
    losses = []
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        losses.append(float(loss.numpy()))
    assert losses[-1] < losses[0]
    # causal: the first position's output does not depend on later tokens
    x2 = x.clone()
    x2[:, 1:] = 0.0
    np.testing.assert_allclose(model(x2)[:, 0].numpy(), model(x)[:, 0].numpy(), rtol=1e-5,
                               atol=1e-6)


def test_functional_cross_attention_two_inputs():
    q = tf.keras.Input((3, 4))
    v = tf.keras.Input((None, 5))
    layer = MultiHeadAttention(2, 2, output_shape=6)
    out, scores = layer(q, v, return_attention_scores=True)
    assert out.shape.as_list() == [None, 3, 6]
    assert scores.shape.as_list() == [None, 2, 3, None]
    model = tf.keras.Model([q, v], [out, scores])
    got, got_scores = model([rand(2, 3, 4), rand(2, 7, 5)])
    assert got.shape == (2, 3, 6) and got_scores.shape == (2, 2, 3, 7)
    dense = Attention()([q, v[..., :4]])
    assert dense.shape.as_list() == [None, 3, 4]


# -- MirroredStrategy over two logical CPUs == one device on the global batch ------------
def _mha_call(layer, x):
    return layer(x, torch.flip(x, [1]) * 0.5, use_causal_mask=True)


@pytest.mark.parametrize("make,call", [
    (lambda: MultiHeadAttention(2, 3, bias_initializer="random_normal"), _mha_call),
    (lambda: MultiHeadAttention(2, 2, attention_axes=(1, 2)),
     lambda layer, x: layer(x.reshape(x.shape[0], 2, 2, 3), x.reshape(x.shape[0], 2, 2, 3))),
    (lambda: Attention(use_scale=True, score_mode="concat"),
     lambda layer, x: layer([x, x * 0.5])),
    (lambda: AdditiveAttention(), lambda layer, x: layer([x, torch.flip(x, [1])])),
])
def test_mirrored_equals_one_device(strategy, make, call):
    x = torch.tensor(np.random.default_rng(3).uniform(-1, 1, (4, 4, 3)), dtype=torch.float32)
    assert_mirrored_equals_one_device(strategy, make, x, call=call)
