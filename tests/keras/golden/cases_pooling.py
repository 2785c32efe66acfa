"""tf_keras 2.21 goldens for the 3-D pooling layers and the pooling options cases_image does
not cover: Max/AveragePooling3D (valid/same, strides, channels_first, float64, float16),
GlobalMax/AveragePooling3D (keepdims, channels_first), GlobalAveragePooling1D with a mask,
1-D/2-D pooling in float64 and with uneven same-padding; configs and errors.

Error model (tests/ops/golden/harness.py): a max is exact (n = 1 for the gradient routing);
an average over a window of w elements is w - 1 additions and a division (n = w), and its
gradient spreads cotangent / w; a global average over L elements is n = L + 1.
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(41)
VOL = _RNG.uniform(-1, 1, (2, 5, 4, 6, 3)).astype(np.float32)   # NDHWC
VOL_CF = np.ascontiguousarray(VOL.transpose(0, 4, 1, 2, 3))
IMG = _RNG.uniform(-1, 1, (2, 7, 5, 2)).astype(np.float32)
SEQ = _RNG.uniform(-1, 1, (3, 6, 4)).astype(np.float32)
MASK = np.array([[1, 1, 0, 1, 0, 0], [1, 1, 1, 1, 1, 1], [0, 1, 0, 0, 0, 0]], dtype=bool)


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _run(cls, x, *args, n, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), [x]), n=n,
                terms="normwise")


def _masked_gap(tf):
    layer = tf.keras.layers.GlobalAveragePooling1D()
    x = tf.constant(SEQ)
    mask = tf.constant(MASK)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, mask=mask)
        total = tf.reduce_sum(out * tf.constant(np.linspace(-1, 1, 4, dtype=np.float32)))
    return {"output": out, "grad": tape.gradient(total, x)}


def _masked_gap_from_embedding(tf):
    """The mask arrives as `_keras_mask` from an Embedding(mask_zero=True)."""
    tf.keras.backend.clear_session()
    ids = tf.constant(np.array([[3, 1, 0, 0], [2, 0, 5, 1]], dtype=np.int32))
    emb = tf.keras.layers.Embedding(6, 2, mask_zero=True)
    emb(ids)
    emb.set_weights([np.arange(12, dtype=np.float32).reshape(6, 2) / 7.0])
    return tf.keras.layers.GlobalAveragePooling1D()(emb(ids))


CASES = {
    # -- 3-D window pooling
    "maxpool3d": _run("MaxPooling3D", VOL, n=1),
    "maxpool3d_same_s1": _run("MaxPool3D", VOL, 2, strides=1, padding="same", n=1),
    "maxpool3d_channels_first": _run("MaxPooling3D", VOL_CF, (2, 2, 3),
                                     data_format="channels_first", n=1),
    "avgpool3d": _run("AveragePooling3D", VOL, n=8),
    # SAME windows larger than the input (torch's avg_pool3d refuses them: sums over counts)
    "avgpool3d_same_window_larger_s1": _run("AveragePooling3D", VOL[:, :3, :3, :3], 5,
                                            strides=1, padding="same", n=126),
    "avgpool3d_same_window_larger_s2": _run("AveragePooling3D", VOL, (6, 3, 7), strides=2,
                                            padding="same", n=127),
    "avgpool3d_same_strides": _run("AveragePooling3D", VOL, 3, strides=2, padding="same",
                                   n=27),
    "avgpool3d_channels_first_same": _run("AvgPool3D", VOL_CF, (2, 3, 2), padding="same",
                                          data_format="channels_first", n=12),
    "avgpool3d_float64": _run("AveragePooling3D", VOL.astype(np.float64), 2, padding="same",
                              dtype="float64", n=8),
    # (TF's CPU has no float16 MaxPool3D / AvgPool3D kernels: NotFoundError; so float16 is
    # checked on the 2-D layers)
    "maxpool2d_float16": Case(lambda tf: run_layer(
        tf, _layer("MaxPooling2D", dtype="float16"), [IMG.astype(np.float16)]), n=1),
    # TF's CPU AvgPool for half sums in half (tfcompat: float32, one rounding): float16's u
    "avgpool2d_float16": Case(lambda tf: run_layer(
        tf, _layer("AveragePooling2D", 3, padding="same", dtype="float16"),
        [IMG.astype(np.float16)], grads=False), n=9, terms="normwise", ulps=1),
    # -- 3-D global pooling
    "global_avg3d": _run("GlobalAveragePooling3D", VOL, n=121),
    "global_avg3d_keepdims_cf": _run("GlobalAvgPool3D", VOL_CF, keepdims=True,
                                     data_format="channels_first", n=121),
    "global_max3d": _run("GlobalMaxPooling3D", VOL, n=1),
    "global_max3d_keepdims_cf": _run("GlobalMaxPool3D", VOL_CF, keepdims=True,
                                     data_format="channels_first", n=1),
    # -- 1-D / 2-D options
    "avgpool2d_same_uneven": _run("AveragePooling2D", IMG, (2, 3), strides=(2, 2),
                                  padding="same", n=6),
    "maxpool2d_float64_strides": _run("MaxPooling2D", IMG.astype(np.float64), 3, strides=(2, 1),
                                      dtype="float64", n=1),
    "avgpool1d_float64_channels_first": _run("AveragePooling1D", SEQ.astype(np.float64), 2,
                                             data_format="channels_first", dtype="float64",
                                             n=2),
    "maxpool1d_same": _run("MaxPooling1D", SEQ, 4, strides=3, padding="same", n=1),
    "global_avg1d_masked": Case(_masked_gap, n=7, terms="normwise"),
    "global_avg1d_embedding_mask": Case(_masked_gap_from_embedding, n=5),
    "global_avg1d_keepdims_cf": _run("GlobalAveragePooling1D", SEQ, keepdims=True,
                                     data_format="channels_first", n=7),
    "global_max2d_cf": _run("GlobalMaxPooling2D", IMG, data_format="channels_first", n=1),
    # -- shapes, configs
    "output_shapes": lambda tf: [str(getattr(tf.keras.layers, c)(**k).compute_output_shape(s))
                                 for c, k, s in (
        ("MaxPooling3D", {}, (None, 5, 4, 7, 3)),
        ("AveragePooling3D", {"pool_size": 3, "strides": 2, "padding": "same"},
         (2, 5, None, 7, 3)),
        ("GlobalAveragePooling3D", {"keepdims": True}, (None, 2, 3, 4, 5)),
        ("GlobalMaxPooling3D", {"data_format": "channels_first"}, (None, 2, 3, 4, 5)))],
    "maxpool3d_config": _config("MaxPooling3D", 3, 2, "same", name="p3"),
    "avgpool3d_config": _config("AveragePooling3D", data_format="channels_first", name="a3"),
    "global_avg3d_config": _config("GlobalAveragePooling3D", keepdims=True, name="g3"),
    "global_max3d_config": _config("GlobalMaxPooling3D", name="gm3"),
    "global_max1d_config": _config("GlobalMaxPooling1D", data_format="channels_first",
                                   name="gm1"),
    # -- errors
    "maxpool3d_rank_error": Case(lambda tf: tf.keras.layers.MaxPooling3D()(
        tf.ones([2, 4, 4, 3])), match_message=True),
    "global_avg3d_rank_error": Case(lambda tf: tf.keras.layers.GlobalAveragePooling3D()(
        tf.ones([2, 4, 4, 3])), match_message=True),
    "avgpool3d_bad_pool_error": Case(lambda tf: tf.keras.layers.AveragePooling3D((2, 2)),
                                     match_message=True),
    "maxpool3d_bad_padding_error": Case(lambda tf: tf.keras.layers.MaxPooling3D(
        padding="full"), match_message=True),
}
