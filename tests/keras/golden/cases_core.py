"""tf_keras 2.21 goldens for the core and activation layers: EinsumDense (plain, `...` on
either side, bias axes), Embedding (gather, its scatter-add gradient, mask_zero,
input_length, float64, a mixed policy), Masking (output and mask), Activation, Identity,
Lambda (arguments, output_shape, masks), PReLU (shared axes), ThresholdedReLU; configs key
for key; error classes and texts.

Error model (tests/ops/golden/harness.py): an EinsumDense output is a contraction of length
k (k roundings) plus the bias add; its kernel gradient sums the batch and the free axes;
cancellation, so normwise. Embedding's forward is a copy (n = 0); its gradient adds each id's
cotangent rows (n = the most repeats of an id). PReLU is one product and one add.
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config, built_layer_config as _built_config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(21)
X2 = _RNG.uniform(-1, 1, (4, 6)).astype(np.float32)
X3 = _RNG.uniform(-1, 1, (2, 3, 5)).astype(np.float32)
X4 = _RNG.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32)
IDS = np.array([[1, 0, 3, 3], [7, 3, 0, 2]], dtype=np.int32)
SEQ = _RNG.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
SEQ[0, 1] = 0.0
SEQ[1, 3:] = 0.0
SEQ[1, 0, 1] = 0.0  # one feature at the mask value: the timestep stays


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _embedding(ids, table_dtype=np.float32, **kwargs):
    """Forward, the mask and the (dense) gradient of the table."""
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = tf.keras.layers.Embedding(8, 3, **kwargs)
        x = tf.constant(ids)
        layer(x)
        table = np.random.default_rng(4).uniform(-1, 1, (8, 3)).astype(table_dtype)
        layer.set_weights([table])
        cot = np.random.default_rng(5).uniform(-1, 1, ids.shape + (3,))
        with tf.GradientTape() as tape:
            out = layer(x)
            total = tf.reduce_sum(tf.cast(out, tf.float64) * tf.constant(cot))
        grad = tape.gradient(total, layer.embeddings)
        mask = layer.compute_mask(x)
        return {"output": out, "grad": tf.convert_to_tensor(grad),
                "mask": "none" if mask is None else mask}
    return fn


def _masking(tf):
    out = tf.keras.layers.Masking(0.0)(tf.constant(SEQ))
    return {"output": out, "mask": out._keras_mask}


def _masking_grads(tf):
    return run_layer(tf, _layer("Masking", 0.0), [SEQ])


def scale_by(x, factor=1.0):
    return x * factor


def _lambda_arguments(tf):
    return run_layer(tf, lambda tf: tf.keras.layers.Lambda(scale_by, arguments={"factor": 3.0}),
                     [X3])


def _lambda_mask(tf):
    layer = tf.keras.layers.Lambda(lambda x: x + 1.0, mask=lambda x, m: tf.reduce_any(x > 0, -1))
    x = tf.constant(X3)
    return {"output": layer(x), "mask": layer.compute_mask(x)}


def _lambda_functional_shape(tf):
    x = tf.keras.Input((3, 5))
    y = tf.keras.layers.Lambda(lambda t: tf.reduce_sum(t, axis=1))(x)
    z = tf.keras.layers.Lambda(scale_by, output_shape=(7,))(x)
    return [str(y.shape), str(z.shape)]


def _embedding_functional(tf):
    x = tf.keras.Input((None,), dtype="int32")
    y = tf.keras.layers.Embedding(8, 3, mask_zero=True)(x)
    return [str(y.shape), str(y._keras_mask.shape) if hasattr(y, "_keras_mask") else "none"]


def _prelu_shared(tf):
    return run_layer(tf, _layer("PReLU", shared_axes=[1, 2]), [X4])


CASES = {
    # -- EinsumDense
    "einsum_dense_btd": Case(lambda tf: run_layer(
        tf, _layer("EinsumDense", "abc,cd->abd", (3, 4), bias_axes="d"), [X3]), n=7,
        terms="normwise"),
    "einsum_dense_left_ellipsis": Case(lambda tf: run_layer(
        tf, _layer("EinsumDense", "...b,bc->...c", 4, bias_axes="c", activation="relu"),
        [X4]), n=7, terms="normwise"),
    "einsum_dense_right_ellipsis": Case(lambda tf: run_layer(
        tf, _layer("EinsumDense", "ab...,bc->ac...", (4, 4, 5), bias_axes="c"), [X4]), n=5,
        terms="normwise"),
    "einsum_dense_two_axes_no_bias": Case(lambda tf: run_layer(
        tf, _layer("EinsumDense", "abc,cde->abde", (3, 2, 4)), [X3]), n=6, terms="normwise"),
    "einsum_dense_float64": Case(lambda tf: run_layer(
        tf, _layer("EinsumDense", "ab,bc->ac", 3, bias_axes="c", dtype="float64"),
        [X2.astype(np.float64)]), n=7, terms="normwise"),
    "einsum_dense_shapes": lambda tf: [
        [list(w.shape) for w in _built(tf, "EinsumDense", X4, "abcd,de->abce", (3, 4, 2),
                                       bias_axes="be").weights],
        [list(w.shape) for w in _built(tf, "EinsumDense", X4, "...cd,de->...ce", (4, 2),
                                       bias_axes="ce").weights]],
    # -- Embedding
    "embedding": Case(_embedding(IDS), n=3),
    "embedding_mask_zero": Case(_embedding(IDS, mask_zero=True), n=3),
    "embedding_float_ids": Case(_embedding(IDS.astype(np.float32)), n=3),
    "embedding_int64_input_length": Case(_embedding(IDS.astype(np.int64), input_length=4), n=3),
    "embedding_float64": Case(_embedding(IDS, np.float64, dtype="float64"), n=3),
    "embedding_mixed_float16": Case(_embedding(IDS, dtype="mixed_float16"), n=3,
                                    accumulate="float32"),
    "embedding_functional": _embedding_functional,
    "embedding_output_shape": lambda tf: [
        str(tf.keras.layers.Embedding(8, 3).compute_output_shape((2, 4))),
        str(tf.keras.layers.Embedding(8, 3, input_length=(None, 5)).compute_output_shape(
            (2, 4, 5)))],
    # -- Masking, Activation, Identity
    "masking": _masking,
    "masking_grads": Case(_masking_grads, n=1),
    "activation_tanh": Case(lambda tf: run_layer(tf, _layer("Activation", "tanh"), [X3]), n=2),
    "activation_softmax_float64": Case(lambda tf: run_layer(
        tf, _layer("Activation", "softmax", dtype="float64"), [X3.astype(np.float64)]), n=8,
        terms="normwise"),
    "identity": Case(lambda tf: run_layer(tf, _layer("Identity"), [X3]), n=0),
    # -- Lambda
    "lambda_arguments": Case(_lambda_arguments, n=1),
    "lambda_mask": _lambda_mask,
    "lambda_functional_shapes": _lambda_functional_shape,
    # -- activation layers
    "prelu": Case(lambda tf: run_layer(tf, _layer("PReLU"), [X3]), n=2),
    "prelu_shared_axes": Case(_prelu_shared, n=13, terms="normwise"),
    "prelu_float64": Case(lambda tf: run_layer(
        tf, _layer("PReLU", dtype="float64"), [X3.astype(np.float64)]), n=2),
    "thresholded_relu": Case(lambda tf: run_layer(tf, _layer("ThresholdedReLU", 0.3), [X3]),
                             n=1),
    "relu_negative_slope_float64": Case(lambda tf: run_layer(
        tf, _layer("ReLU", negative_slope=0.2, dtype="float64"), [X3.astype(np.float64)]),
        n=2),
    # -- configs
    "einsum_dense_config": _config("EinsumDense", "abc,cd->abd", (None, 4), bias_axes="d",
                                   activation="relu", name="e"),
    "embedding_config": _config("Embedding", 10, 4, mask_zero=True, input_length=6,
                                embeddings_regularizer="l2", name="emb"),
    "embedding_config_default": _config("Embedding", 10, 4, name="emb2"),
    "masking_config": _config("Masking", -1.0, name="m"),
    "activation_config": _config("Activation", "relu", name="a"),
    "identity_config": _config("Identity", name="i"),
    "lambda_function_config": lambda tf: _lambda_config(tf),
    "prelu_config": _config("PReLU", alpha_initializer="ones", shared_axes=2, name="p"),
    "prelu_built_config": _built_config("PReLU", X4, shared_axes=[1, 2], name="p2"),
    "thresholded_relu_config": _config("ThresholdedReLU", 0.5, name="t"),
    # -- errors
    "einsum_bad_equation_error": Case(lambda tf: tf.keras.layers.EinsumDense(
        "ab->b", 3)(tf.constant(X2)), match_message=True),
    "einsum_weight_dim_error": Case(lambda tf: tf.keras.layers.EinsumDense(
        "ab,bz->ac", 3)(tf.constant(X2)), match_message=True),
    "einsum_bias_axis_error": Case(lambda tf: tf.keras.layers.EinsumDense(
        "ab,bc->ac", 3, bias_axes="x")(tf.constant(X2)), match_message=True),
    "einsum_shared_dim_error": Case(lambda tf: tf.keras.layers.EinsumDense(
        "abc,cd->abd", (7, 4))(tf.constant(X3)), match_message=True),
    "embedding_dims_error": Case(lambda tf: tf.keras.layers.Embedding(0, 3),
                                 match_message=True),
    "embedding_input_length_error": Case(lambda tf: tf.keras.layers.Embedding(
        8, 3, input_length=5).compute_output_shape((2, 4)), match_message=True),
    "prelu_shape_error": lambda tf: _prelu_twice(tf),
    "lambda_creates_variable_error": lambda tf: tf.keras.layers.Lambda(
        lambda x: x * tf.Variable(2.0))(tf.ones([2])),
    "thresholded_relu_error": Case(lambda tf: tf.keras.layers.ThresholdedReLU(-1.0),
                                   match_message=True),
}


def _built(tf, cls, x, *args, **kwargs):
    layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
    layer(tf.constant(x))
    return layer


def _lambda_config(tf):
    """Key for key, but without the function's entry: tf_keras marshals every Python function
    as bytecode (`function_type` "lambda"); tfcompat records a `def` function by name."""
    config = tf.keras.layers.Lambda(scale_by, output_shape=(3,), arguments={"factor": 2.0},
                                    name="l").get_config()
    return {"keys": sorted(config), **{k: v for k, v in config.items()
                                       if k not in ("function", "function_type")}}


def _prelu_twice(tf):
    layer = tf.keras.layers.PReLU(shared_axes=[1])
    layer(tf.constant(X3))
    return layer(tf.constant(X3[:, :, :4]))
