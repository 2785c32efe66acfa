"""tf_keras 2.21 goldens: Dense (ranks 2 and 3, activations, no bias, float64, float16) and
functional / Sequential models of Dense layers, forward and gradients w.r.t. inputs and
weights (weights set explicitly, `layer_case.run_layer`).

Error model (tests/ops/golden/harness.py): a Dense of fan-in k is a dot product of length k
(k roundings) plus the bias add (1) plus the activation's ulps; gradients w.r.t. the kernel
are sums over the batch (B terms); cancellation in both, so the normwise bound."""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(7)
X2 = _RNG.uniform(-1, 1, (6, 5)).astype(np.float32)
X3 = _RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)


def _dense(**kwargs):
    return lambda tf: tf.keras.layers.Dense(**kwargs)


def _mlp(tf):
    x = tf.keras.Input((5,))
    h = tf.keras.layers.Dense(8, activation="tanh")(x)
    return tf.keras.Model(x, tf.keras.layers.Dense(3)(h))


def _sequential(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
                                tf.keras.layers.Dense(3, activation="sigmoid")])


CASES = {
    "dense_linear": Case(lambda tf: run_layer(tf, _dense(units=3), [X2]), n=7,
                         terms="normwise"),
    "dense_relu": Case(lambda tf: run_layer(tf, _dense(units=4, activation="relu"), [X2]),
                       n=7, terms="normwise"),
    "dense_tanh_rank3": Case(lambda tf: run_layer(tf, _dense(units=4, activation="tanh"), [X3]),
                             n=10, terms="normwise"),
    "dense_no_bias_softmax": Case(lambda tf: run_layer(
        tf, _dense(units=3, use_bias=False, activation="softmax"), [X2]), n=12,
        terms="normwise"),
    "dense_float64": Case(lambda tf: run_layer(
        tf, _dense(units=3, dtype="float64", activation="elu"), [X2.astype(np.float64)]),
        n=8, terms="normwise"),
    "dense_float16": Case(lambda tf: run_layer(
        tf, _dense(units=3, dtype="float16"), [X2.astype(np.float16)]), n=8,
        terms="normwise", accumulate="float32", ulps=2),
    "functional_mlp": Case(lambda tf: run_layer(tf, _mlp, [X2]), n=30, terms="normwise"),
    "sequential_mlp": Case(lambda tf: run_layer(tf, _sequential, [X2]), n=30,
                           terms="normwise"),
    "dense_config": lambda tf: tf.keras.layers.Dense(
        3, activation="relu", kernel_regularizer="l2", name="d").get_config(),
    "dense_rank1_error": lambda tf: tf.keras.layers.Dense(3)(tf.ones([4])),
    "dense_weight_names": lambda tf: [w.name for w in _sequential(tf).weights],
}
