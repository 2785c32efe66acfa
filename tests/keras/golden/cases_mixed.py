"""tf_keras 2.21 goldens for mixed precision: layers under the `mixed_float16` and
`mixed_bfloat16` global policies (Dense, Dense + softmax, Conv2D, BatchNormalization in
inference and training, Embedding, Activation("softmax")): outputs in the compute dtype and
float32 gradients of the float32 variables; LossScaleOptimizer trajectories (scale, counter,
iterations, variables, skipped steps), its config and checkpoint keys; and whole training
steps of a small mixed_float16 model with a LossScaleOptimizer whose first step overflows.

Every case sets the global policy and puts "float32" back in a `finally`.

Error model (tests/ops/golden/harness.py): the layers compute in half precision, so the
unit roundoff is half's (2**-11 float16, 2**-8 bfloat16; `accumulate` names it for the
float32 gradients of the variables, which are half values cast up), n = the longest
reduction (a Dense kernel's input length, a batch sum for its gradient, a 3x3x2 window for
Conv2D) plus the elementwise roundings after it; "normwise" since signs mix.
BatchNormalization computes its statistics in float32 (as tf_keras) and rounds once to half.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(73)
X2 = _RNG.uniform(-1, 1, (4, 5)).astype(np.float32)
IMG = _RNG.uniform(-1, 1, (1, 5, 5, 2)).astype(np.float32)
BN_X = _RNG.uniform(-2, 2, (6, 3)).astype(np.float32)
LOGITS = _RNG.uniform(-3, 3, (3, 6)).astype(np.float32)
IDS = np.array([[1, 3], [4, 1]], dtype=np.int32)
_HALF = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


def _under(policy, fn):
    def run(tf):
        tf.keras.mixed_precision.set_global_policy(policy)
        try:
            return fn(tf)
        finally:
            tf.keras.mixed_precision.set_global_policy("float32")
    return run


def _layer_case(policy, cls, x, *args, n, call_kwargs=None, **kwargs):
    def fn(tf):
        result = run_layer(tf, lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs), [x],
                           call_kwargs=call_kwargs)
        return result
    return Case(_under(policy, fn), n=n, terms="normwise", accumulate=_HALF[policy])


def _meta(policy, cls, x, *args, **kwargs):
    """dtypes: output, variables (float32), policy, compute/variable dtype, gradient dtypes."""
    def fn(tf):
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        inp = tf.constant(x)
        with tf.GradientTape() as tape:
            out = layer(inp)
            loss = tf.reduce_sum(tf.cast(out, tf.float32))
        grads = tape.gradient(loss, layer.trainable_weights) if layer.trainable_weights else []
        return {"output": out.dtype.name, "weights": [w.dtype.name for w in layer.weights],
                "policy": layer.dtype_policy.name, "compute": layer.compute_dtype,
                "variable": layer.variable_dtype, "dtype": layer.dtype,
                "grads": [tf.convert_to_tensor(g).dtype.name for g in grads]}
    return _under(policy, fn)


def _embedding(policy):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = tf.keras.layers.Embedding(5, 3)
        ids = tf.constant(IDS)
        layer(ids)
        layer.set_weights([np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3) / 3])
        cot = np.random.default_rng(5).uniform(-1, 1, (2, 2, 3)).astype(np.float32)
        with tf.GradientTape() as tape:
            out = layer(ids)
            total = tf.reduce_sum(tf.cast(out, tf.float32) * tf.constant(cot))
        (g,) = tape.gradient(total, layer.trainable_weights)
        return {"output": out, "grad": tf.convert_to_tensor(g)}
    return Case(_under(policy, fn), n=3, terms="normwise", accumulate=_HALF[policy])


def _functional(policy):
    def fn(tf):
        tf.keras.backend.clear_session()
        inputs = tf.keras.Input((5,))
        hidden = tf.keras.layers.Dense(4, activation="relu")(inputs)
        logits = tf.keras.layers.Dense(3)(hidden)
        out = tf.keras.layers.Activation("softmax", dtype="float32")(logits)
        model = tf.keras.Model(inputs, out)
        return {"symbolic": [hidden.dtype.name, logits.dtype.name, out.dtype.name],
                "eager": model(tf.constant(X2)).dtype.name,
                "policies": [layer.dtype_policy.name for layer in model.layers]}
    return _under(policy, fn)


# -- LossScaleOptimizer ---------------------------------------------------------------------
_GRADS = [[0.5, -0.25], [np.inf, 1.0], [0.125, 0.5], [0.25, -1.0], [np.nan, 0.0],
          [1.0, 1.0], [-0.5, 0.75]]


def _trajectory(make_inner, initial, growth, grads=_GRADS):
    def fn(tf):
        var = tf.Variable([1.0, -2.0])
        inner = make_inner(tf)
        opt = tf.keras.mixed_precision.LossScaleOptimizer(inner, initial_scale=initial,
                                                          dynamic_growth_steps=growth)
        out = []
        for g in grads:
            scaled = opt.get_scaled_loss(tf.constant(1.0))
            (ug,) = opt.get_unscaled_gradients([tf.constant(np.float32(g)) * scaled])
            opt.apply_gradients([(ug, var)])
            out.append({"var": tf.identity(var), "scale": opt.loss_scale,
                        "counter": tf.identity(opt.dynamic_counter),
                        "iterations": tf.identity(opt.iterations),
                        "n_weights": len(opt.weights)})
        return out
    return Case(fn, n=4, terms="normwise", steps=len(grads))


def _fixed(tf):
    var = tf.Variable([1.0, -2.0])
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.legacy.SGD(0.5),
                                                      dynamic=False, initial_scale=3)
    scaled = opt.get_scaled_loss(tf.constant([1.0, 2.0, 0.1]))
    (g,) = opt.get_unscaled_gradients([tf.constant([3.0, 0.3])])
    opt.apply_gradients([(g, var)])
    return {"scaled": scaled, "unscaled": g, "var": tf.identity(var), "scale": opt.loss_scale,
            "counter": str(opt.dynamic_counter), "initial": opt.initial_scale}


def _half_scaling(tf):
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.legacy.SGD(),
                                                      initial_scale=2**12)
    loss16 = opt.get_scaled_loss(tf.constant([20.0, 1e-3], dtype=tf.float16))
    (g16, g32) = opt.get_unscaled_gradients([tf.constant([3.0, 1e-4], dtype=tf.float16),
                                             tf.constant([3.0, 1e-4])])
    return {"loss16": loss16, "g16": g16, "g32": g32}


def _config(tf):
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.legacy.SGD(0.5),
                                                      initial_scale=8, dynamic_growth_steps=3)
    config = opt.get_config()
    inner = config.pop("inner_optimizer")
    return {"config": config, "inner_class": inner["class_name"],
            "inner_keys": sorted(inner["config"])}


def _checkpoint_keys(tf):
    var = tf.Variable([1.0, 2.0], name="v")
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.legacy.Adam(0.1))
    opt.apply_gradients([(tf.constant([0.5, 0.5]), var)])
    with tempfile.TemporaryDirectory() as d:
        path = tf.train.Checkpoint(optimizer=opt, v=var).save(os.path.join(d, "ck"))
        return sorted(name for name, _ in tf.train.list_variables(path))


def _errors(tf):
    mp = tf.keras.mixed_precision
    sgd = tf.keras.optimizers.legacy.SGD
    out = {}
    for name, make in {"not_optimizer": lambda: mp.LossScaleOptimizer("foo"),
                       "dynamic_str": lambda: mp.LossScaleOptimizer(sgd(), "dynamic"),
                       "fixed_no_scale": lambda: mp.LossScaleOptimizer(sgd(), dynamic=False),
                       "fixed_growth": lambda: mp.LossScaleOptimizer(sgd(), dynamic=False,
                                                                     initial_scale=2,
                                                                     dynamic_growth_steps=1),
                       "scale_str": lambda: mp.LossScaleOptimizer(sgd(), initial_scale="x")}.items():
        try:
            make()
            out[name] = "ok"
        except Exception as e:  # noqa: BLE001 - the class and message are the result
            out[name] = [type(e).__name__, str(e)]
    return out


# -- a whole mixed_float16 training step --------------------------------------------------------
_TX = _RNG.uniform(-1, 1, (8, 3)).astype(np.float32)
_TY = _RNG.uniform(-1, 1, (8, 1)).astype(np.float32)


# The loss's weight: with it the largest |half gradient| of the first step at scale 2**16 is
# 1.26 x float16's max (it overflows: the step is skipped), and every later step's stays below
# 0.86 x the max at its scale (measured in float32 for both optimizers): no decision is near
# the edge, where the two libraries' roundings could disagree.
_FACTOR = 2.5


def _training(make_inner, steps=5, initial=2.0**16, policy="mixed_float16"):
    """Dense(4, relu) -> Dense(1) under the policy, MSE in float32 (times `_FACTOR`), scaled
    by a LossScaleOptimizer (growth every 2 steps): skip, apply, apply and grow, apply, apply
    and grow."""
    def fn(tf):
        tf.keras.backend.clear_session()
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model(tf.constant(_TX[:1]))
        rng = np.random.default_rng(9)
        model.set_weights([rng.uniform(-1, 1, w.shape).astype(np.float32)
                           for w in model.get_weights()])
        opt = tf.keras.mixed_precision.LossScaleOptimizer(make_inner(tf), initial_scale=initial,
                                                          dynamic_growth_steps=2)
        out = []
        x, y = tf.constant(_TX), tf.constant(_TY)
        for _ in range(steps):
            with tf.GradientTape() as tape:
                pred = tf.cast(model(x), tf.float32)
                loss = tf.reduce_mean(tf.square(pred - y)) * _FACTOR
                scaled = opt.get_scaled_loss(loss)
            grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_weights))
            opt.apply_gradients(zip(grads, model.trainable_weights))
            out.append({"loss": loss, "scale": opt.loss_scale,
                        "iterations": tf.identity(opt.iterations),
                        "weights": [tf.identity(w) for w in model.trainable_weights]})
        return out
    return _under(policy, fn)


def _sgd(tf):
    return tf.keras.optimizers.legacy.SGD(0.01, momentum=0.9)


def _adam(tf):
    return tf.keras.optimizers.legacy.Adam(0.01)


CASES = {
    # -- layers under the mixed policies: dtypes
    **{f"meta_{cls.lower()}_{p[6:]}": _meta(p, cls, x, *a)
       for p in _HALF for cls, x, a in (("Dense", X2, (3,)), ("Conv2D", IMG, (2, 3)),
                                        ("BatchNormalization", BN_X, ()),
                                        ("Embedding", IDS, (5, 3)),
                                        ("Activation", LOGITS, ("softmax",)))},
    "functional_float16": _functional("mixed_float16"),
    "functional_bfloat16": _functional("mixed_bfloat16"),
    # -- numerics: forward + gradients
    "dense_float16": _layer_case("mixed_float16", "Dense", X2, 3, n=7),
    "dense_bfloat16": _layer_case("mixed_bfloat16", "Dense", X2, 3, n=7),
    "dense_softmax_float16": _layer_case("mixed_float16", "Dense", X2, 3, activation="softmax",
                                         n=12),
    "conv2d_float16": _layer_case("mixed_float16", "Conv2D", IMG, 2, 3, n=20),
    "conv2d_bfloat16": _layer_case("mixed_bfloat16", "Conv2D", IMG, 2, 3, padding="same", n=20),
    "batchnorm_inference_float16": _layer_case("mixed_float16", "BatchNormalization", BN_X, n=6),
    "batchnorm_inference_bfloat16": _layer_case("mixed_bfloat16", "BatchNormalization", BN_X,
                                                n=6),
    "batchnorm_training_float16": _layer_case("mixed_float16", "BatchNormalization", BN_X,
                                              call_kwargs={"training": True}, n=16),
    "batchnorm_training_bfloat16": _layer_case("mixed_bfloat16", "BatchNormalization", BN_X,
                                               call_kwargs={"training": True}, n=16),
    "embedding_float16": _embedding("mixed_float16"),
    "embedding_bfloat16": _embedding("mixed_bfloat16"),
    "softmax_float16": _layer_case("mixed_float16", "Activation", LOGITS, "softmax", n=9),
    "softmax_bfloat16": _layer_case("mixed_bfloat16", "Activation", LOGITS, "softmax", n=9),
    "softmax_layer_float16": _layer_case("mixed_float16", "Softmax", LOGITS, n=9),
    # -- LossScaleOptimizer
    "lso_sgd_trajectory": _trajectory(lambda tf: tf.keras.optimizers.legacy.SGD(0.5, momentum=0.5),
                                      4.0, 2),
    "lso_adam_trajectory": _trajectory(lambda tf: tf.keras.optimizers.legacy.Adam(0.1), 2.0, 1),
    "lso_fresh_skips": _trajectory(lambda tf: tf.keras.optimizers.legacy.Adam(0.1), 2.0**15, 3,
                                   grads=[[np.inf, 0.0], [np.nan, 1.0], [0.5, 0.5], [1.0, 2.0]]),
    # (zero gradients: 1 / 2**127 is a float32 denormal, which TF's CPU kernels flush to zero
    # and torch keeps, see docs/differences.md; the scale logic is what this case pins)
    "lso_growth_to_inf": _trajectory(lambda tf: tf.keras.optimizers.legacy.SGD(0.1), 2.0**126, 1,
                                     grads=[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
    "lso_floor_at_one": _trajectory(lambda tf: tf.keras.optimizers.legacy.SGD(0.1), 1.5, 2,
                                    grads=[[np.inf, 1.0], [np.inf, 1.0], [1.0, 1.0]]),
    "lso_fixed": Case(_fixed, n=1),
    "lso_half_scaling": _half_scaling,
    "lso_config": _config,
    "lso_checkpoint_keys": _checkpoint_keys,
    "lso_errors": _errors,
    # -- whole training steps (float16 forward/backward, float32 variables)
    "train_mixed_float16_sgd": Case(_training(_sgd), n=12, terms="normwise",
                                    accumulate="float16", steps=5),
    "train_mixed_float16_adam": Case(_training(_adam), n=12, terms="normwise",
                                     accumulate="float16", steps=5),
}
