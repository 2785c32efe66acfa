"""tf_keras 2.21 goldens for the image layers: Conv1D/2D/3D (valid/same, strides, dilation,
groups, causal, channels_first), pooling, BatchNormalization (training and inference, and the
moving statistics after two training calls), activations, Flatten/Reshape, a small CNN
(Conv2D-BN-ReLU-MaxPool-Flatten-Dense) as a `tf.keras.Sequential`, configs and errors.

Error model (tests/ops/golden/harness.py): a convolution output is a dot product of length
kh * kw * in_channels plus the bias add (n = that + 1, activation ulps on top); its kernel
gradient sums batch * out_h * out_w terms; cancellation everywhere, so normwise. Batch
normalization: a mean and a variance over the reduced axes (n = their length, twice) plus
the rsqrt and affine (a few roundings); the moving update adds three.
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config, built_layer_config as _built_config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(11)
IMG = _RNG.uniform(-1, 1, (2, 7, 6, 3)).astype(np.float32)      # NHWC
IMG_CF = np.ascontiguousarray(IMG.transpose(0, 3, 1, 2))          # NCHW
SEQ = _RNG.uniform(-1, 1, (2, 9, 4)).astype(np.float32)          # NWC
VOL = _RNG.uniform(-1, 1, (1, 5, 4, 4, 2)).astype(np.float32)    # NDHWC
IMG4 = _RNG.uniform(-1, 1, (2, 6, 6, 4)).astype(np.float32)      # 4 channels, for groups
FEAT = _RNG.uniform(-2, 3, (8, 5)).astype(np.float32)            # 2-D, BN's moments path


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _bn_weights(c: int, dtype=np.float32) -> list:
    rng = np.random.default_rng(3)
    return [rng.uniform(0.5, 1.5, c).astype(dtype), rng.uniform(-0.5, 0.5, c).astype(dtype),
            rng.uniform(-0.2, 0.2, c).astype(dtype), rng.uniform(0.5, 2.0, c).astype(dtype)]


def _bn_two_steps(tf, x, **kwargs):
    """Moving statistics after two training calls (from set weights), then an inference call."""
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.BatchNormalization(**kwargs)
    layer(tf.constant(x))
    layer.set_weights(_bn_weights(x.shape[layer.axis[0]], x.dtype if x.dtype != np.float16
                                  else np.float32))
    first = layer(tf.constant(x), training=True)
    layer(tf.constant(x * 0.5 + 0.25), training=True)
    return {"first": first, "moving_mean": layer.moving_mean, "moving_variance":
            layer.moving_variance, "inference": layer(tf.constant(x), training=False)}


def _bn_case(x, training, **kwargs):
    def fn(tf):
        axis = kwargs.get("axis", -1)
        c = x.shape[axis]
        return run_layer(tf, _layer("BatchNormalization", **kwargs), [x],
                         weights=_bn_weights(c), call_kwargs={"training": training})
    return fn


def _cnn(tf):
    L = tf.keras.layers
    return tf.keras.Sequential([
        L.Conv2D(4, 3, padding="same", input_shape=(7, 6, 3)), L.BatchNormalization(),
        L.ReLU(), L.MaxPooling2D(), L.Flatten(), L.Dense(3)])


def _cnn_weights(tf):
    """Each layer's weight names (the model's own `weights` order: see test_image_layers)."""
    tf.keras.backend.clear_session()
    model = _cnn(tf)
    return [[w.name for w in layer.weights] for layer in model.layers] + [
        str(model.output_shape)]


_CNN_SHAPES = [[(3, 3, 3, 4), (4,)], [(4,), (4,), (4,), (4,)], [], [], [], [(36, 3), (3,)]]


def _cnn_case(training):
    """Forward + gradients of the CNN with weights set layer by layer (so the values do not
    depend on the order of `model.get_weights()`)."""
    def fn(tf):
        tf.keras.backend.clear_session()
        rng = np.random.default_rng(5)
        per_layer = [[rng.uniform(-0.5, 0.5, s).astype(np.float32) for s in shapes]
                     for shapes in _CNN_SHAPES]
        per_layer[1][0] = np.abs(per_layer[1][0]) + 0.5   # gamma
        per_layer[1][3] = np.abs(per_layer[1][3]) + 0.5   # moving variance
        model = _cnn(tf)
        x = tf.constant(IMG)
        model(x)
        for layer, weights in zip(model.layers, per_layer):
            layer.set_weights(weights)
        cot = np.random.default_rng(6).uniform(-1, 1, (2, 3)).astype(np.float32)
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = model(x, training=training)
            total = tf.reduce_sum(tf.cast(out * tf.constant(cot), tf.float64))
        bn = model.layers[1]
        grads = tape.gradient(total, [x] + list(model.trainable_weights))
        if training:
            # d/d(conv bias) is exactly 0 in training (batch statistics cancel a per-channel
            # constant): both sides hold only rounding noise, so it is not compared
            grads = grads[:2] + grads[3:]
        return {"output": out, "grads": grads, "moving_mean": bn.moving_mean,
                "moving_variance": bn.moving_variance}
    return fn


CASES = {
    # -- convolutions: forward + gradients w.r.t. input, kernel, bias
    "conv2d_valid": Case(lambda tf: run_layer(tf, _layer("Conv2D", 4, 3), [IMG]), n=28,
                         terms="normwise"),
    "conv2d_same_relu": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, (3, 2), padding="same", activation="relu"), [IMG]), n=28,
        terms="normwise"),
    "conv2d_strides2_same": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 5, 3, strides=2, padding="same"), [IMG]), n=28,
        terms="normwise"),
    "conv2d_strides2_valid": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 5, 2, strides=(2, 1)), [IMG]), n=28, terms="normwise"),
    "conv2d_dilation2": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 3, 3, dilation_rate=2, padding="same"), [IMG]), n=28,
        terms="normwise"),
    "conv2d_groups2": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 6, 3, groups=2), [IMG4]), n=28, terms="normwise"),
    "conv2d_no_bias_tanh": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, use_bias=False, activation="tanh"), [IMG]), n=32,
        terms="normwise"),
    "conv2d_channels_first": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, data_format="channels_first"), [IMG_CF]), n=28,
        terms="normwise"),
    "conv2d_float64": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, padding="same", dtype="float64"),
        [IMG.astype(np.float64)]), n=28, terms="normwise"),
    "conv2d_float16": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, dtype="float16"), [IMG.astype(np.float16)],
        grads=False), n=28,
        terms="normwise", accumulate="float32", ulps=2),
    # TF's CPU Conv2DBackpropInput/Filter for half accumulate in half (measured: not float32
    # then one rounding), so the gradients' model is float16's u, not accumulate="float32"
    "conv2d_float16_grads": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, dtype="float16"), [IMG.astype(np.float16)]), n=28,
        terms="normwise", ulps=2),
    "conv2d_bfloat16": Case(lambda tf: run_layer(
        tf, _layer("Conv2D", 4, 3, dtype="bfloat16"), [IMG], grads=False), n=28,
        terms="normwise", accumulate="float32", ulps=2),
    "conv1d_valid": Case(lambda tf: run_layer(tf, _layer("Conv1D", 3, 3), [SEQ]), n=13,
                         terms="normwise"),
    "conv1d_causal_dilated": Case(lambda tf: run_layer(
        tf, _layer("Conv1D", 3, 3, padding="causal", dilation_rate=2), [SEQ]), n=13,
        terms="normwise"),
    "conv1d_same_strides": Case(lambda tf: run_layer(
        tf, _layer("Conv1D", 2, 4, strides=3, padding="same"), [SEQ]), n=17,
        terms="normwise"),
    "conv3d_same": Case(lambda tf: run_layer(
        tf, _layer("Conv3D", 3, 2, padding="same"), [VOL]), n=17, terms="normwise"),
    # -- pooling
    "maxpool2d": Case(lambda tf: run_layer(tf, _layer("MaxPooling2D"), [IMG]), n=1),
    "maxpool2d_same_s1": Case(lambda tf: run_layer(
        tf, _layer("MaxPool2D", 3, strides=1, padding="same"), [IMG]), n=1),
    "avgpool2d_same": Case(lambda tf: run_layer(
        tf, _layer("AveragePooling2D", 3, strides=2, padding="same"), [IMG]), n=10,
        terms="normwise"),
    "avgpool2d_channels_first": Case(lambda tf: run_layer(
        tf, _layer("AvgPool2D", 2, data_format="channels_first"), [IMG_CF]), n=5),
    "maxpool1d": Case(lambda tf: run_layer(tf, _layer("MaxPooling1D", 3, 2), [SEQ]), n=1),
    "avgpool1d_same": Case(lambda tf: run_layer(
        tf, _layer("AveragePooling1D", 2, padding="same"), [SEQ]), n=3),
    "global_avg2d": Case(lambda tf: run_layer(tf, _layer("GlobalAveragePooling2D"), [IMG]),
                         n=43),
    "global_max2d_keepdims": Case(lambda tf: run_layer(
        tf, _layer("GlobalMaxPooling2D", keepdims=True), [IMG]), n=1),
    "global_avg1d": Case(lambda tf: run_layer(tf, _layer("GlobalAveragePooling1D"), [SEQ]),
                         n=10),
    "global_max1d_cf": Case(lambda tf: run_layer(
        tf, _layer("GlobalMaxPooling1D", data_format="channels_first"), [SEQ]), n=1),
    # -- batch normalization
    "bn_fused_training": Case(_bn_case(IMG, True), n=100, terms="normwise"),
    "bn_fused_inference": Case(_bn_case(IMG, False), n=8, terms="normwise"),
    "bn_fused_channels_first": Case(_bn_case(IMG_CF, True, axis=1), n=100, terms="normwise"),
    "bn_fused_mixed_float16": Case(_bn_case(IMG, True, dtype="mixed_float16"), n=100,
                                   terms="normwise", accumulate="float32", ulps=2),
    "bn_moments_training": Case(_bn_case(FEAT, True), n=30, terms="normwise"),
    "bn_moments_inference": Case(_bn_case(FEAT, False), n=8, terms="normwise"),
    "bn_trainable_false_is_inference": Case(lambda tf: run_layer(
        tf, _layer("BatchNormalization", trainable=False), [IMG], weights=_bn_weights(3),
        call_kwargs={"training": True}, grads=False), n=8, terms="normwise"),
    "bn_two_steps_fused": Case(lambda tf: _bn_two_steps(tf, IMG), n=100, terms="normwise"),
    "bn_two_steps_moments": Case(lambda tf: _bn_two_steps(tf, FEAT), n=30, terms="normwise"),
    "bn_two_steps_float16": Case(lambda tf: _bn_two_steps(
        tf, IMG.astype(np.float16), dtype="float16"), n=100, terms="normwise",
        accumulate="float32", ulps=2),
    # -- activations, reshaping
    "relu_clipped_threshold": Case(lambda tf: run_layer(
        tf, _layer("ReLU", 0.6, 0.1, 0.2), [IMG]), n=2),
    "leaky_relu": Case(lambda tf: run_layer(tf, _layer("LeakyReLU"), [IMG]), n=1),
    # exp(x) - 1 cancels near 0 (TF's kernel, not expm1): the terms are exp(x) ~ 1
    "elu_alpha": Case(lambda tf: run_layer(tf, _layer("ELU", 0.7), [IMG]), n=3,
                      terms="normwise"),
    "softmax_axis1": Case(lambda tf: run_layer(tf, _layer("Softmax", axis=1), [IMG]), n=10,
                          terms="normwise"),
    "softmax_masked": Case(lambda tf: tf.keras.layers.Softmax()(
        tf.constant(FEAT), mask=tf.constant(FEAT > 0)), n=10),
    "flatten": Case(lambda tf: run_layer(tf, _layer("Flatten"), [IMG]), n=0),
    "flatten_channels_first": Case(lambda tf: run_layer(
        tf, _layer("Flatten", data_format="channels_first"), [IMG_CF]), n=0),
    "reshape": Case(lambda tf: run_layer(tf, _layer("Reshape", (3, -1)), [IMG]), n=0),
    # -- a small CNN, Sequential
    "cnn_sequential_training": Case(_cnn_case(True), n=200, terms="normwise"),
    "cnn_sequential_inference": Case(_cnn_case(False), n=120, terms="normwise"),
    "cnn_weight_names": _cnn_weights,
    # -- configs (key for key with tf_keras)
    "conv2d_config": _config("Conv2D", 8, (3, 5), strides=2, padding="same",
                             activation="relu", kernel_regularizer="l2", name="c"),
    "conv1d_config": _config("Conv1D", 2, 3, padding="causal", dilation_rate=2,
                             groups=2, use_bias=False, name="c1"),
    "conv3d_config": _config("Conv3D", 2, 3, data_format="channels_first", name="c3"),
    "maxpool2d_config": _config("MaxPooling2D", 3, 2, "same", name="p"),
    "avgpool1d_config": _config("AveragePooling1D", name="p1"),
    "global_avg2d_config": _config("GlobalAveragePooling2D", keepdims=True, name="g"),
    "bn_config": _config("BatchNormalization", momentum=0.9, center=False, name="bn"),
    "bn_built_config": _built_config("BatchNormalization", IMG, name="bn"),
    "relu_config": _config("ReLU", 6.0, name="r"),
    "leaky_relu_config": _config("LeakyReLU", 0.2, name="lr"),
    "elu_config": _config("ELU", name="e"),
    "softmax_config": _config("Softmax", axis=[1, 2], name="s"),
    "flatten_config": _config("Flatten", name="f"),
    "reshape_config": _config("Reshape", [2, -1], name="r"),
    "dropout_config": _config("Dropout", 0.3, noise_shape=[None, 1, 5], seed=1, name="d"),
    # -- errors
    "conv2d_rank3_error": lambda tf: tf.keras.layers.Conv2D(2, 3)(tf.ones([4, 5, 3])),
    "conv2d_too_small_error": lambda tf: tf.keras.layers.Conv2D(2, 5)(tf.ones([1, 3, 3, 1])),
    "conv2d_bad_filters_error": lambda tf: tf.keras.layers.Conv2D(0, 3),
    "conv2d_bad_kernel_error": lambda tf: tf.keras.layers.Conv2D(2, (3, 3, 3)),
    "conv2d_groups_error": lambda tf: tf.keras.layers.Conv2D(3, 3, groups=2),
    "conv2d_causal_error": lambda tf: tf.keras.layers.Conv2D(3, 3, padding="causal"),
    "conv2d_strides_dilation_error": lambda tf: tf.keras.layers.Conv2D(
        3, 3, strides=2, dilation_rate=2),
    "conv2d_input_groups_error": lambda tf: tf.keras.layers.Conv2D(4, 3, groups=2)(
        tf.ones([1, 5, 5, 3])),
    "conv_bad_padding_error": lambda tf: tf.keras.layers.Conv2D(4, 3, padding="full"),
    "maxpool2d_rank_error": lambda tf: tf.keras.layers.MaxPooling2D()(tf.ones([2, 4, 4])),
    "bn_axis_error": lambda tf: tf.keras.layers.BatchNormalization(axis=4)(
        tf.ones([2, 3, 3, 2])),
    "relu_negative_error": lambda tf: tf.keras.layers.ReLU(-1.0),
    "dropout_rate_error": lambda tf: tf.keras.layers.Dropout(1.5),
    "reshape_size_error": lambda tf: tf.keras.layers.Reshape((7,))(tf.ones([2, 3, 4])),
}
