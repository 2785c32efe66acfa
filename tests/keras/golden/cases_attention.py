"""tf_keras 2.21 goldens for the attention layers: MultiHeadAttention (self- and cross-
attention, a separate key, value_dim, output_shape, no bias, attention_mask, causal, the
inputs' Keras masks with a fully masked query, multi-axis attention, robust masking, dropout
off in inference, float64, float16 and mixed_float16), Attention (dot / concat scores,
scale, key, masks, a fully masked value row, causal) and AdditiveAttention; outputs, scores
and the gradients of inputs and weights; configs; error classes and texts.

Error model (tests/ops/golden/harness.py), normwise (softmax and cotangents cancel): along
the longest path MultiHeadAttention takes the query projection (a dot of the feature dim D
and a bias), the 1/sqrt(key_dim) product, the query-key dot (key_dim K), the softmax over L
keys (an exp, a sum of L, a division), the combination (L) and the output projection (heads x
value_dim, a bias): n = D + K + 2L + HV + 5; a weight's gradient also sums the batch and the
query positions (BT). The dense attention layers: a dot (or a tanh sum) over D, the mask, the
softmax and the combination over Tv, the query mask; their scalar weights' gradients sum
every score (B Tq Tv).
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import weights_like
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(61)
Q = _RNG.uniform(-1, 1, (2, 4, 6)).astype(np.float32)       # [B, T, D]
V = _RNG.uniform(-1, 1, (2, 5, 6)).astype(np.float32)       # [B, S, D]
K8 = _RNG.uniform(-1, 1, (2, 5, 8)).astype(np.float32)      # a key of its own width
X4 = _RNG.uniform(-1, 1, (2, 3, 4, 6)).astype(np.float32)   # [B, rows, cols, D]
ATTN_MASK = _RNG.uniform(size=(2, 4, 5)) > 0.3
ATTN_MASK[:, :, 0] = True
Q_MASK = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], dtype=bool)  # a fully masked query row each
V_MASK = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 1]], dtype=bool)

DQ = _RNG.uniform(-1, 1, (2, 3, 5)).astype(np.float32)      # [B, Tq, dim]
DV = _RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)      # [B, Tv, dim]
DK = _RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)
DQ_MASK = np.array([[1, 0, 1], [1, 1, 1]], dtype=bool)
DV_MASK = np.array([[1, 1, 0, 0], [0, 0, 0, 0]], dtype=bool)  # a fully masked value row


def run_call(tf, make, inputs, as_list=False, kwargs=None, keras_masks=None, seed=0,
             grads=True):
    """`run_layer` for layers called with several tensors: `layer(*inputs, **kwargs)` (or
    `layer(list(inputs), ...)` when `as_list`); `keras_masks` {index: mask} set as the
    inputs' `_keras_mask`; `kwargs` may be a function of `tf`. Weights from `seed`; returns
    the output(s) and the gradients of `sum(output * cotangent)` for the float inputs and
    the trainable weights (but MultiHeadAttention's key bias)."""
    tf.keras.backend.clear_session()
    layer = make(tf)
    xs = [tf.constant(x) for x in inputs]
    for i, m in (keras_masks or {}).items():
        xs[i]._keras_mask = tf.constant(m)
    kw = kwargs(tf) if callable(kwargs) else dict(kwargs or {})

    def call():
        return layer(list(xs), **kw) if as_list else layer(*xs, **kw)

    call()  # build
    current = layer.get_weights()
    weights = weights_like([w.shape for w in current], seed)
    layer.set_weights([w.astype(c.dtype) for w, c in zip(weights, current)])
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        out = call()
        rng = np.random.default_rng(seed + 1)
        total = 0.0
        for y in tf.nest.flatten(out):
            cot = rng.uniform(-1, 1, size=tuple(y.shape)).astype(y.dtype.as_numpy_dtype)
            total = total + tf.reduce_sum(tf.cast(y * tf.constant(cot), tf.float64))
    result = {"output": out}
    if grads:
        # The key projection's bias adds one constant to every score of a query, which the
        # softmax cancels: its gradient is zero in exact arithmetic and rounding noise in
        # both libraries (checked to be ~0 in tests/keras/layers/test_attention.py), so it
        # has no value to compare.
        sources = list(xs) + [w for w in layer.trainable_weights
                              if not w.name.endswith("key/bias:0")]
        result["grads"] = [g if g is not None else "none"
                           for g in tape.gradient(total, sources)]
    return result


def _mha_n(d, k, length, hv, bt):
    return d + k + 2 * length + hv + bt + 8


def _accumulate(layer_kwargs):
    # a mixed policy computes in float16: the float32 gradients of the inputs and the
    # variables carry float16 roundings
    return "float16" if layer_kwargs.get("dtype") == "mixed_float16" else None


def _mha(inputs, *args, n, kwargs=None, keras_masks=None, grads=True, values=True,
         **layer_kwargs):
    make = lambda tf: tf.keras.layers.MultiHeadAttention(*args, **layer_kwargs)  # noqa: E731
    return Case(lambda tf: run_call(tf, make, inputs, kwargs=kwargs, keras_masks=keras_masks,
                                    grads=grads),
                n=n, terms="normwise", values=values, accumulate=_accumulate(layer_kwargs))


def _dense(cls, inputs, n, kwargs=None, **layer_kwargs):
    make = lambda tf: getattr(tf.keras.layers, cls)(**layer_kwargs)  # noqa: E731
    return Case(lambda tf: run_call(tf, make, inputs, as_list=True, kwargs=kwargs), n=n,
                terms="normwise", accumulate=_accumulate(layer_kwargs))


def _masks(tf):
    return {"mask": [tf.constant(DQ_MASK), tf.constant(DV_MASK)],
            "return_attention_scores": True}


def _built_config(make, *inputs):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = make(tf)
        layer(*[tf.constant(x) for x in inputs])
        return layer.get_config()
    return fn


def _mha_functional_config(tf):
    tf.keras.backend.clear_session()
    q = tf.keras.Input((None, 6))
    v = tf.keras.Input((5, 8))
    layer = tf.keras.layers.MultiHeadAttention(3, 2, value_dim=4, output_shape=7)
    out = layer(q, v)
    return {"config": layer.get_config(), "shape": out.shape,
            "weights": [(w.name, w.shape) for w in layer.weights]}


def _mha_from_config_weights(tf):
    """from_config with the shapes builds the sublayers; a call makes tf_keras's weights."""
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.MultiHeadAttention(2, 3, name="mha")
    layer(tf.constant(Q), tf.constant(V))
    config = layer.get_config()
    tf.keras.backend.clear_session()
    clone = tf.keras.layers.MultiHeadAttention.from_config(config)
    out = clone(tf.constant(Q), tf.constant(V))
    return {"shape": [int(d) for d in out.shape],
            "weights": [(w.name, w.shape) for w in clone.weights]}


# (T, S) = (4, 5), D = 6; n per case from _mha_n(D, key_dim, keys attended, heads x
# value_dim, batch x queries)
CASES = {
    # -- MultiHeadAttention
    "mha_self": _mha([Q, Q], 2, 3, n=_mha_n(6, 3, 4, 6, 8),
                     kwargs={"return_attention_scores": True}),
    "mha_cross": _mha([Q, V], 2, 3, n=_mha_n(6, 3, 5, 6, 8),
                      kwargs={"return_attention_scores": True}),
    "mha_key_value_dim_output_shape": _mha([Q, V, K8], 3, 2, value_dim=4, output_shape=(2, 3),
                                           n=_mha_n(8, 2, 5, 12, 8)),
    "mha_no_bias_int_output_shape": _mha([Q, V], 2, 4, use_bias=False, output_shape=5,
                                         n=_mha_n(6, 4, 5, 8, 8)),
    "mha_attention_mask": _mha([Q, V], 2, 3, n=_mha_n(6, 3, 5, 6, 8),
                               kwargs=lambda tf: {"attention_mask": tf.constant(ATTN_MASK),
                                                  "return_attention_scores": True}),
    "mha_causal": _mha([Q, Q], 2, 3, n=_mha_n(6, 3, 4, 6, 8),
                       kwargs={"use_causal_mask": True, "return_attention_scores": True}),
    "mha_causal_cross_and_mask": _mha(
        [Q, V], 2, 3, n=_mha_n(6, 3, 5, 6, 8),
        kwargs=lambda tf: {"use_causal_mask": True, "attention_mask": tf.constant(ATTN_MASK),
                           "return_attention_scores": True}),
    "mha_keras_masks": _mha([Q, V], 2, 3, n=_mha_n(6, 3, 5, 6, 8),
                            keras_masks={0: Q_MASK, 1: V_MASK},
                            kwargs={"return_attention_scores": True}),
    "mha_robust_masking": _mha([Q, V], 2, 3, softmax_robust_masking=True,
                               n=_mha_n(6, 3, 5, 6, 8), keras_masks={0: Q_MASK, 1: V_MASK},
                               kwargs={"return_attention_scores": True}),
    "mha_2d_attention": _mha([X4, X4], 2, 3, attention_axes=(1, 2),
                             n=_mha_n(6, 3, 12, 6, 24),
                             kwargs={"return_attention_scores": True}),
    "mha_attention_axis_2": _mha([X4, X4], 2, 3, attention_axes=2, n=_mha_n(6, 3, 4, 6, 24),
                                 kwargs={"return_attention_scores": True}),
    "mha_dropout_inference": _mha([Q, V], 2, 3, dropout=0.5, n=_mha_n(6, 3, 5, 6, 8),
                                  kwargs={"training": False}),
    "mha_dropout_training_shapes": _mha([Q, V], 2, 3, dropout=0.5, n=0, values=False,
                                        grads=False, kwargs={"training": True}),
    # (no scores and no mask but the causal one: tfcompat's fused path)
    "mha_causal_cross_no_scores": _mha([Q, V], 2, 3, n=_mha_n(6, 3, 5, 6, 8),
                                       kwargs={"use_causal_mask": True}),
    "mha_float64_causal_no_scores": _mha([Q.astype(np.float64), Q.astype(np.float64)], 2, 3,
                                         dtype="float64", n=_mha_n(6, 3, 4, 6, 8),
                                         kwargs={"use_causal_mask": True}),
    "mha_float64": _mha([Q.astype(np.float64), V.astype(np.float64)], 2, 3, dtype="float64",
                        n=_mha_n(6, 3, 5, 6, 8), keras_masks={1: V_MASK},
                        kwargs={"return_attention_scores": True}),
    "mha_float16": _mha([Q.astype(np.float16), V.astype(np.float16)], 2, 3, dtype="float16",
                        n=_mha_n(6, 3, 5, 6, 8),
                        kwargs=lambda tf: {"attention_mask": tf.constant(ATTN_MASK),
                                           "return_attention_scores": True}),
    "mha_mixed_float16": _mha([Q, V], 2, 3, dtype="mixed_float16", n=_mha_n(6, 3, 5, 6, 8),
                              kwargs={"use_causal_mask": True,
                                      "return_attention_scores": True}),
    # -- Attention (B, Tq, Tv, dim) = (2, 3, 4, 5)
    "attention_dot": _dense("Attention", [DQ, DV], n=5 + 8 + 3 + 6),
    "attention_dot_scale_key": _dense("Attention", [DQ, DV, DK], n=5 + 8 + 24 + 6,
                                      use_scale=True,
                                      kwargs={"return_attention_scores": True}),
    "attention_dot_masks": _dense("Attention", [DQ, DV], n=5 + 8 + 3 + 6, kwargs=_masks),
    "attention_causal": _dense("Attention", [DQ, DV, DK], n=5 + 8 + 3 + 6,
                               kwargs={"use_causal_mask": True,
                                       "return_attention_scores": True}),
    "attention_concat": _dense("Attention", [DQ, DV], n=5 + 8 + 24 + 6, score_mode="concat",
                               kwargs={"return_attention_scores": True}),
    "attention_concat_scale_masks": _dense("Attention", [DQ, DV, DK], n=5 + 8 + 24 + 7,
                                           score_mode="concat", use_scale=True,
                                           kwargs=_masks),
    "attention_float64": _dense("Attention", [DQ.astype(np.float64), DV.astype(np.float64)],
                                n=5 + 8 + 24 + 6, use_scale=True, dtype="float64",
                                kwargs=_masks),
    "attention_float16": _dense("Attention", [DQ.astype(np.float16), DV.astype(np.float16)],
                                n=5 + 8 + 24 + 6, use_scale=True, dtype="float16",
                                kwargs=_masks),
    "attention_mixed_float16_concat": _dense("Attention", [DQ, DV], n=5 + 8 + 24 + 6,
                                             score_mode="concat", dtype="mixed_float16",
                                             kwargs={"use_causal_mask": True}),
    "attention_dropout_inference": _dense("Attention", [DQ, DV], n=5 + 8 + 3 + 6,
                                          dropout=0.5, kwargs={"training": False}),
    # -- AdditiveAttention
    "additive": _dense("AdditiveAttention", [DQ, DV], n=5 + 8 + 24 + 6,
                       kwargs={"return_attention_scores": True}),
    "additive_no_scale_key": _dense("AdditiveAttention", [DQ, DV, DK], n=5 + 8 + 3 + 6,
                                    use_scale=False),
    "additive_masks": _dense("AdditiveAttention", [DQ, DV, DK], n=5 + 8 + 24 + 6,
                             kwargs=_masks),
    "additive_causal": _dense("AdditiveAttention", [DQ, DV], n=5 + 8 + 24 + 6,
                              kwargs={"use_causal_mask": True,
                                      "return_attention_scores": True}),
    "additive_float64": _dense("AdditiveAttention",
                               [DQ.astype(np.float64), DV.astype(np.float64)],
                               n=5 + 8 + 24 + 6, dtype="float64", kwargs=_masks),
    "additive_float16": _dense("AdditiveAttention",
                               [DQ.astype(np.float16), DV.astype(np.float16)],
                               n=5 + 8 + 24 + 6, dtype="float16", kwargs=_masks),
    # -- shapes, configs
    "mha_output_shapes": lambda tf: [
        tf.keras.layers.MultiHeadAttention(2, 3, **k).compute_output_shape(*s) for k, s in (
            ({}, ((None, 4, 6), (None, 5, 6))),
            ({"output_shape": (2, 3)}, ((2, 4, 6), (2, 5, 6), (2, 5, 8))),
            ({"output_shape": [7]}, ((None, 3, 4, 6), (None, 3, 4, 6))))],
    "dense_attention_output_shapes": lambda tf: [
        getattr(tf.keras.layers, c)().compute_output_shape(s) for c, s in (
            ("Attention", [(None, 3, 5), (None, 4, 5)]),
            ("AdditiveAttention", [(2, None, 5), (2, 4, 5), (2, 4, 5)]))],
    "mha_config": lambda tf: tf.keras.layers.MultiHeadAttention(
        4, 8, value_dim=2, dropout=0.1, use_bias=False, output_shape=(3,),
        attention_axes=1, kernel_initializer="he_normal", bias_initializer="ones",
        kernel_regularizer="l2", name="m").get_config(),
    "mha_built_config": _built_config(
        lambda tf: tf.keras.layers.MultiHeadAttention(2, 3, name="m"), Q, V, K8),
    "mha_functional_config": _mha_functional_config,
    "mha_from_config_weights": _mha_from_config_weights,
    "attention_config": lambda tf: tf.keras.layers.Attention(
        use_scale=True, score_mode="concat", dropout=0.2, name="a").get_config(),
    "additive_config": lambda tf: tf.keras.layers.AdditiveAttention(
        use_scale=False, name="aa").get_config(),
    "attention_weights": lambda tf: [
        (w.name, w.shape) for layer in (tf.keras.layers.Attention(use_scale=True,
                                                                  score_mode="concat"),
                                        tf.keras.layers.AdditiveAttention())
        for _ in [layer([tf.constant(DQ), tf.constant(DV)])] for w in layer.weights],
    # -- errors
    "mha_output_shape_dim_error": Case(lambda tf: tf.keras.layers.MultiHeadAttention(
        2, 3).compute_output_shape((None, 4, 6), (None, 5, 8)), match_message=True),
    "mha_output_shape_key_error": Case(lambda tf: tf.keras.layers.MultiHeadAttention(
        2, 3).compute_output_shape((None, 4, 6), (None, 5, 6), (None, 3, 6)),
        match_message=True),
    "mha_attention_axes_error": Case(lambda tf: tf.keras.layers.MultiHeadAttention(
        2, 3, attention_axes=5)(tf.constant(Q), tf.constant(Q))),
    "attention_not_list_error": Case(lambda tf: tf.keras.layers.Attention()(tf.constant(DQ))),
    "attention_one_input_error": Case(lambda tf: tf.keras.layers.Attention()(
        [tf.constant(DQ)])),
    "attention_four_inputs_error": Case(lambda tf: tf.keras.layers.AdditiveAttention()(
        [tf.constant(DQ), tf.constant(DV), tf.constant(DV), tf.constant(DV)])),
    "attention_score_mode_error": Case(lambda tf: tf.keras.layers.Attention(
        score_mode="add"), match_message=True),
    "attention_mask_length_error": Case(lambda tf: tf.keras.layers.Attention()(
        [tf.constant(DQ), tf.constant(DV)], mask=[tf.constant(DQ_MASK)])),
    "attention_mask_not_list_error": Case(lambda tf: tf.keras.layers.Attention()(
        [tf.constant(DQ), tf.constant(DV)], mask=(tf.constant(DQ_MASK), tf.constant(DV_MASK)))),
}
