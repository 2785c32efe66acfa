"""tf_keras 2.21 goldens for BatchNormalization's non-fused statistics: `synchronized=True`
(E[y**2] - mean**2 from sums, on one replica), a mask (`tf.nn.weighted_moments`), both, and
the moving statistics they assign; float64 and float16 inputs.

Error model (tests/ops/golden/harness.py): a sum over the L = batch * steps elements of a
channel is L - 1 additions, the variance from sums cancels (normwise), the normalisation and
its gradient a few more roundings: n = 2 L + 8, terms="normwise".
"""

from __future__ import annotations

import numpy as np

from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(5)
SEQ = _RNG.uniform(-1, 1, (4, 3, 5)).astype(np.float32)
MASK = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
IMG = _RNG.uniform(-2, 3, (3, 4, 2, 3)).astype(np.float32)


def _bn(x, synchronized, mask=None, dtype=None, **kwargs):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = tf.keras.layers.BatchNormalization(synchronized=synchronized, momentum=0.5,
                                                   dtype=dtype, **kwargs)
        xs = tf.constant(x if dtype is None else x.astype(dtype))
        layer.build(xs.shape)
        channels = x.shape[-1]
        values = {"gamma": np.linspace(0.5, 1.5, channels), "beta": np.linspace(-0.2, 0.3, channels),
                  "moving_mean": np.zeros(channels), "moving_variance": np.ones(channels)}
        layer.set_weights([values[w.name.split("/")[-1].split(":")[0]].astype(np.float32)
                           for w in layer.weights])
        cot = tf.constant(np.linspace(-1, 1, x.size).reshape(x.shape).astype(xs.dtype.name))
        with tf.GradientTape() as tape:
            tape.watch(xs)
            out = layer(xs, training=True, mask=None if mask is None else tf.constant(mask))
            total = tf.reduce_sum(tf.cast(out * cot, tf.float64))
        grads = tape.gradient(total, [xs] + layer.trainable_weights)
        return {"output": out, "grads": grads, "moving_mean": layer.moving_mean,
                "moving_variance": layer.moving_variance}
    return Case(fn, n=2 * x.size // x.shape[-1] + 8, terms="normwise")


CASES = {
    "sync_seq": _bn(SEQ, True),
    "sync_seq_mask": _bn(SEQ, True, MASK),
    "mask_seq": _bn(SEQ, False, MASK),
    "sync_seq_f64": _bn(SEQ, True, dtype="float64"),
    "sync_seq_f16": _bn(SEQ, True, dtype="float16"),
    "mask_seq_f16": _bn(SEQ, False, MASK, dtype="float16"),
    "sync_image": _bn(IMG, True),
    "sync_image_no_center": _bn(IMG, True, center=False),
}


def _bad_axis(axis):
    def fn(tf):
        return tf.keras.layers.BatchNormalization(axis=axis)(tf.constant(SEQ))
    return fn


CASES.update({
    "bad_axis_negative": _bad_axis(-4),   # the message shows the axis resolved, as tf_keras
    "bad_axis_positive": _bad_axis(3),
    "duplicate_axis": _bad_axis([1, -2]),
})
