"""tf_keras 2.21 goldens for LayerNormalization, GroupNormalization and UnitNormalization
(forward and the gradients of the input and of gamma/beta, which `run_layer` sets from a fixed
seed), in float32, float64, float16 and under the mixed_float16 policy; LayerNormalization on
both of tf_keras's paths (fused: trailing axes, epsilon >= 1.001e-5, float32 variables;
moments otherwise); the regularization layers' inference identity, dtypes and shapes in
training, ActivityRegularization's loss; configs; error classes and texts.

Error model (tests/ops/golden/harness.py): a mean over L elements is L roundings and a
variance 2L more (the centred squares and their sum), then a few elementwise ops (rsqrt, the
product, gamma, beta); the input gradient sums over the same L elements again and gamma's and
beta's gradients sum over the P rows that share them. So n = 3L + P + 8, normwise (the
centring cancels). Half-precision paths that tf_keras computes in float32 and rounds once are
`accumulate="float32"` (ulps for the final rounding); where float16 arithmetic follows (a
float16 layer; gamma/beta after the fused path; GroupNormalization under mixed_float16),
u is float16's even for float32 results (`accumulate="float16"`: a float32 input's or
variable's gradient computed in float16).
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config, built_layer_config as _built_config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(53)
X2 = _RNG.uniform(-2, 2, (5, 8)).astype(np.float32)
X3 = _RNG.uniform(-2, 2, (3, 4, 6)).astype(np.float32)
X4 = _RNG.uniform(-2, 2, (2, 3, 4, 6)).astype(np.float32)
X3[1] += 3.0  # an offset example: the centring matters


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _n(length: int, rows: int) -> int:
    return 3 * length + rows + 8


def _run(cls, x, *args, n, accumulate=None, ulps=None, call_kwargs=None, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), [x],
                                     call_kwargs=call_kwargs), n=n, terms="normwise",
                accumulate=accumulate, ulps=ulps)


def _weights(cls, x, *args, **kwargs):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        layer(tf.constant(x))
        return [(w.name, list(w.shape), w.dtype.name) for w in layer.weights]
    return fn


def _error(cls, x, *args, **kwargs):
    def fn(tf):
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        return layer(tf.constant(x))
    return Case(fn, match_message=True)


def _inference(cls, x, *args, **kwargs):
    """Inference (training=False) returns the input unchanged."""
    return Case(lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)(
        tf.constant(x), training=False))


def _training_signature(cls, x, *args, **kwargs):
    """Training draws noise: only the dtype and shape are compared."""
    return Case(lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)(
        tf.constant(x), training=True), values=False)


def _activity_loss(x, l1, l2):
    def fn(tf):
        layer = tf.keras.layers.ActivityRegularization(l1, l2)
        out = layer(tf.constant(x))
        return {"output": out, "losses": layer.losses}
    return Case(fn, n=x.size + 4, terms="normwise")


def _group_masked(tf):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.GroupNormalization(2)
    x = tf.constant(X3)
    layer(x)
    layer.set_weights([np.linspace(0.5, 1.5, 6).astype(np.float32),
                       np.linspace(-0.3, 0.3, 6).astype(np.float32)])
    mask = np.ones((3, 4, 1), dtype=np.float32)
    mask[0, 2:] = 0
    mask[2, 0] = 0
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, mask=tf.constant(mask))
        total = tf.reduce_sum(out * tf.constant(np.linspace(-1, 1, 6, dtype=np.float32)))
    return {"output": out, "grads": tape.gradient(total, [x] + layer.trainable_weights)}


def _functional(tf):
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((4, 6))
    y = tf.keras.layers.LayerNormalization(name="ln")(inputs)
    y = tf.keras.layers.GroupNormalization(3, name="gn")(y)
    y = tf.keras.layers.UnitNormalization(name="un")(y)
    model = tf.keras.Model(inputs, y)
    return {"output": model(tf.constant(X3)), "weights": [w.name for w in model.weights],
            "shape": str(y.shape)}


X3_16, X3_64 = X3.astype(np.float16), X3.astype(np.float64)
X4_16, X4_64 = X4.astype(np.float16), X4.astype(np.float64)

CASES = {
    # -- LayerNormalization, fused path (float32 variables, trailing axes, epsilon >= 1.001e-5)
    "ln_last_axis": _run("LayerNormalization", X3, n=_n(6, 12)),
    "ln_2d": _run("LayerNormalization", X2, n=_n(8, 5)),
    "ln_trailing_axes": _run("LayerNormalization", X4, axis=[2, 3], n=_n(24, 6)),
    "ln_trailing_axes_unsorted": _run("LayerNormalization", X4, axis=[3, 2, 1], n=_n(72, 2)),
    "ln_all_but_batch_negative": _run("LayerNormalization", X3, axis=(-2, -1), n=_n(24, 3)),
    "ln_no_center": _run("LayerNormalization", X3, center=False, n=_n(6, 12)),
    "ln_no_scale_no_center": _run("LayerNormalization", X3, center=False, scale=False,
                                  n=_n(6, 12)),
    "ln_large_epsilon": _run("LayerNormalization", X3, epsilon=0.5, n=_n(6, 12)),
    # (the normalisation in float32, then gamma and beta in float16: their gradients sum
    # float16 products, so u is float16's)
    "ln_mixed_float16_fused": _run("LayerNormalization", X3, dtype="mixed_float16",
                                   n=_n(6, 12), accumulate="float16"),
    "ln_mixed_float16_fused_half_input": _run("LayerNormalization", X3_16, axis=[1, 2],
                                              dtype="mixed_float16", n=_n(24, 3),
                                              accumulate="float16"),
    # -- LayerNormalization, moments path
    "ln_middle_axis": _run("LayerNormalization", X3, axis=1, n=_n(4, 18)),
    "ln_axes_0_2": _run("LayerNormalization", X3, axis=[0, 2], n=_n(18, 4)),
    "ln_axes_1_3": _run("LayerNormalization", X4, axis=[3, 1], n=_n(18, 8)),
    "ln_small_epsilon": _run("LayerNormalization", X3, epsilon=1e-6, n=_n(6, 12)),
    "ln_float64": _run("LayerNormalization", X3_64, dtype="float64", n=_n(6, 12)),
    "ln_float64_axes": _run("LayerNormalization", X4_64, axis=[1, 2, 3], dtype="float64",
                            n=_n(72, 2)),
    "ln_float16": _run("LayerNormalization", X3_16, dtype="float16", n=_n(6, 12)),
    "ln_float16_middle_axis": _run("LayerNormalization", X3_16, axis=1, dtype="float16",
                                   n=_n(4, 18)),
    "ln_mixed_float16_moments": _run("LayerNormalization", X3, axis=1, dtype="mixed_float16",
                                     n=_n(4, 18), accumulate="float32", ulps=2),
    # -- GroupNormalization
    "gn_groups_2": _run("GroupNormalization", X3, 2, n=_n(12, 12)),
    "gn_groups_1": _run("GroupNormalization", X3, 1, n=_n(24, 12)),
    "gn_groups_per_channel": _run("GroupNormalization", X3, -1, n=_n(4, 12)),
    "gn_4d": _run("GroupNormalization", X4, 3, n=_n(24, 24)),
    "gn_axis_1": _run("GroupNormalization", X4, 3, axis=1, n=_n(24, 24)),
    "gn_axis_negative_2": _run("GroupNormalization", X4, 2, axis=-2, n=_n(36, 36)),
    "gn_no_center_scale": _run("GroupNormalization", X3, 3, center=False, scale=False,
                               epsilon=0.1, n=_n(8, 12)),
    "gn_float64": _run("GroupNormalization", X4_64, 2, dtype="float64", n=_n(36, 24)),
    "gn_float16": _run("GroupNormalization", X3_16, 2, dtype="float16", n=_n(12, 12)),
    # (float16 compute, float32 input and variables: the gradients are float16 arithmetic)
    "gn_mixed_float16": _run("GroupNormalization", X3, 3, dtype="mixed_float16",
                             n=_n(8, 12), accumulate="float16"),
    "gn_masked": Case(_group_masked, n=_n(12, 12), terms="normwise"),
    # -- UnitNormalization
    "un_last_axis": _run("UnitNormalization", X3, n=10),
    "un_axes": _run("UnitNormalization", X4, axis=[1, 3], n=26),
    "un_float64": _run("UnitNormalization", X3_64, axis=1, dtype="float64", n=10),
    "un_float16": _run("UnitNormalization", X3_16, dtype="float16", n=10),
    "un_mixed_float16": _run("UnitNormalization", X3, axis=[1, 2], dtype="mixed_float16",
                             n=30),
    "un_zeros": Case(lambda tf: tf.keras.layers.UnitNormalization()(tf.zeros([2, 3]))),
    # -- functional and weights
    "functional_ln_gn_un": Case(_functional, n=_n(24, 12), terms="normwise"),
    "ln_weights": _weights("LayerNormalization", X4, axis=[3, 1]),
    "ln_weights_float16": _weights("LayerNormalization", X3_16, dtype="float16"),
    "ln_weights_mixed": _weights("LayerNormalization", X3, dtype="mixed_float16"),
    "gn_weights_mixed": _weights("GroupNormalization", X3, 2, dtype="mixed_float16",
                                 center=False),
    "output_shapes": lambda tf: [str(tf.TensorShape(getattr(tf.keras.layers, c)(*a)
                                                    .compute_output_shape(s)))
                                 for c, a, s in (
        ("LayerNormalization", (), (None, 3, 4)),
        ("GroupNormalization", (2,), (2, None, 4)),
        ("UnitNormalization", (), (None, 5)),
        ("SpatialDropout2D", (0.5,), (None, 2, 3, 4)),
        ("GaussianNoise", (0.5,), (None, 3)),
        ("AlphaDropout", (0.5,), (4, None)),
        ("ActivityRegularization", (), (None, 7)))],
    # -- configs
    "ln_config": _config("LayerNormalization", axis=[1, 2], epsilon=1e-5, center=False,
                         gamma_initializer="glorot_uniform", beta_regularizer="l2",
                         gamma_constraint="non_neg", name="ln"),
    "ln_built_config": _built_config("LayerNormalization", X3, axis=(-1,), name="ln"),
    "gn_config": _config("GroupNormalization", 4, axis=1, epsilon=0.01, scale=False,
                         name="gn"),
    "gn_built_config": _built_config("GroupNormalization", X3, -1, name="gn"),
    "un_config": _config("UnitNormalization", axis=(1, 2), name="un"),
    "un_built_config": _built_config("UnitNormalization", X3, axis=-1, name="un"),
    "spatial1d_config": _config("SpatialDropout1D", 0.25, seed=3, name="s1"),
    "spatial2d_config": _config("SpatialDropout2D", 0.25, data_format="channels_first",
                                name="s2"),
    "spatial3d_config": _config("SpatialDropout3D", 0.4, name="s3"),
    "gaussian_noise_config": _config("GaussianNoise", 0.3, seed=7, name="gnoise"),
    "gaussian_dropout_config": _config("GaussianDropout", 0.3, name="gdrop"),
    "alpha_dropout_config": _config("AlphaDropout", 0.2, noise_shape=(1, 3), seed=2,
                                    name="adrop"),
    "activity_regularization_config": _config("ActivityRegularization", 0.01, 0.5,
                                              name="areg"),
    # -- regularization layers: inference identity, training dtype/shape, activity loss
    "spatial1d_inference": _inference("SpatialDropout1D", X3, 0.5),
    "spatial2d_inference": _inference("SpatialDropout2D", X4, 0.5),
    "spatial3d_inference": _inference("SpatialDropout3D", X4[None], 0.5),
    "gaussian_noise_inference": _inference("GaussianNoise", X3, 1.0),
    "gaussian_dropout_inference": _inference("GaussianDropout", X3, 0.5),
    "alpha_dropout_inference": _inference("AlphaDropout", X3, 0.5),
    "alpha_dropout_rate_0_training": Case(lambda tf: tf.keras.layers.AlphaDropout(0.0)(
        tf.constant(X3), training=True)),
    "gaussian_dropout_rate_1_training": Case(lambda tf: tf.keras.layers.GaussianDropout(1.0)(
        tf.constant(X3), training=True)),
    "spatial2d_training_signature": _training_signature("SpatialDropout2D", X4, 0.5,
                                                        data_format="channels_first"),
    "gaussian_noise_float16_training": _training_signature("GaussianNoise", X3_16, 0.1,
                                                           dtype="float16"),
    "gaussian_dropout_float64_training": _training_signature("GaussianDropout", X3_64, 0.1,
                                                             dtype="float64"),
    "alpha_dropout_float16_training": _training_signature("AlphaDropout", X3_16, 0.1,
                                                          dtype="float16"),
    "activity_regularization_loss": _activity_loss(X3, 0.01, 0.2),
    "activity_regularization_l1_only": _activity_loss(X2, 0.3, 0.0),
    # -- errors
    "ln_axis_out_of_range": _error("LayerNormalization", X3, axis=3),
    "ln_axis_negative_out_of_range": _error("LayerNormalization", X3, axis=-4),
    "ln_duplicate_axis": _error("LayerNormalization", X3, axis=[1, -2]),
    "ln_axis_type": Case(lambda tf: tf.keras.layers.LayerNormalization(axis="a"),
                         match_message=True),
    "gn_groups_not_dividing": _error("GroupNormalization", X3, 4),
    "gn_too_many_groups": _error("GroupNormalization", X3, 7),
    "gn_axis_out_of_range": _error("GroupNormalization", X3, 2, axis=3),
    "gn_undefined_axis": Case(lambda tf: tf.keras.layers.GroupNormalization(2, axis=1).build(
        tf.TensorShape([2, None, 3])), match_message=True),
    "un_axis_out_of_range": _error("UnitNormalization", X3, axis=[0, 5]),
    "un_axis_type": Case(lambda tf: tf.keras.layers.UnitNormalization(axis="a"),
                         match_message=True),
    "spatial2d_data_format": Case(lambda tf: tf.keras.layers.SpatialDropout2D(
        0.5, data_format="channels_middle"), match_message=True),
    "spatial1d_rank": _error("SpatialDropout1D", X2, 0.5, name="sd1"),
    "spatial3d_rank": _error("SpatialDropout3D", X4, 0.5, name="sd3"),
}
