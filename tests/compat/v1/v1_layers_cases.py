"""The `tf.compat.v1.layers` scenarios, shared by the generator (real TF) and the tests.

Every function takes the module pair `(tf, tf1)` it runs on -- TensorFlow's or tfcompat's --
so the same code produces the golden record and the checked behaviour.
"""

from __future__ import annotations

import numpy as np


def pattern(shape, offset: float = 0.0) -> np.ndarray:
    """Deterministic float32 values of `shape`: `0.5 * sin(0.37 i + 0.1 + offset)`."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n, dtype=np.float64) * 0.37 + 0.1 + offset) * 0.5
            ).astype(np.float32).reshape(shape)


def pattern_init(tf, offset: float = 0.0):
    """A TF 1 initializer (a callable `(shape, dtype, partition_info)`) giving `pattern`."""

    def init(shape, dtype=None, partition_info=None, **kwargs):
        return tf.constant(pattern(list(shape), offset), dtype=dtype or tf.float32)
    return init


# ----------------------------------------------------------------- naming and sharing
# Each runs at the top of a fresh (emulated) TF 1 graph; `x` is [2, 4], `img` [2, 5, 5, 3].
def top_level(tf, tf1, x, img):
    tf1.layers.dense(x, 3)
    tf1.layers.dense(x, 3)
    tf1.layers.Dense(2)(x)
    tf1.layers.conv2d(img, 2, 3)
    tf1.layers.conv2d(img, 2, 3, use_bias=False)
    tf1.layers.conv2d_transpose(img, 2, 3)
    tf1.layers.conv1d(x[:, :, None], 2, 2)
    tf1.layers.batch_normalization(x, training=True)
    tf1.layers.max_pooling2d(img, 2, 2)
    tf1.layers.dropout(x)
    tf1.layers.flatten(img)
    tf1.layers.dense(x, 3)


def scoped(tf, tf1, x, img):
    with tf1.variable_scope("foo"):
        tf1.layers.dense(x, 3)
        tf1.layers.dense(x, 3)
        with tf1.variable_scope("bar"):
            tf1.layers.dense(x, 3)
    with tf1.variable_scope("foo", reuse=True):
        tf1.layers.dense(x, 3)  # re-entering "foo": its default names restart, and reuse
    with tf1.variable_scope(None, default_name="foo"):
        tf1.layers.dense(x, 3)


def named_auto_reuse(tf, tf1, x, img):
    tf1.layers.dense(x, 3, name="d", reuse=tf1.AUTO_REUSE)
    tf1.layers.dense(x, 3, name="d", reuse=tf1.AUTO_REUSE)


def named_twice(tf, tf1, x, img):
    tf1.layers.dense(x, 3, name="d")
    tf1.layers.dense(x, 3, name="d")


def reuse_missing(tf, tf1, x, img):
    tf1.layers.dense(x, 3, name="d", reuse=True)


def model_fn(tf, tf1, inputs, kernel_initializer=None):
    """The acceptance model: two dense layers in `variable_scope("model", AUTO_REUSE)`."""
    with tf1.variable_scope("model", reuse=tf1.AUTO_REUSE):
        h = tf1.layers.dense(inputs, 5, activation=tf.nn.relu,
                             kernel_initializer=kernel_initializer)
        return tf1.layers.dense(h, 1, kernel_initializer=kernel_initializer)


def model_twice(tf, tf1, x, img):
    model_fn(tf, tf1, x)
    model_fn(tf, tf1, x)


def scope_reuse_variables(tf, tf1, x, img):
    with tf1.variable_scope("net") as scope:
        tf1.layers.dense(x, 3, name="fc")
        scope.reuse_variables()
        tf1.layers.dense(x, 3, name="fc")


def class_layer(tf, tf1, x, img):
    layer = tf1.layers.Dense(3, name="d")
    with tf1.variable_scope("outer"):
        layer(x)
    layer(x)  # the scope was fixed by the first call
    other = tf1.layers.Dense(3, name="d")
    other(x)
    return [layer.name, layer.scope_name, other.name, other.scope_name]


def regularizer(tf, tf1, x, img):
    tf1.layers.dense(x, 3, kernel_regularizer=tf.keras.regularizers.l2(0.1),
                     bias_regularizer=tf.keras.regularizers.l2(0.2))


def bn_collections(tf, tf1, x, img):
    tf1.layers.batch_normalization(x, training=True)
    tf1.layers.batch_normalization(img, training=False)


def non_trainable(tf, tf1, x, img):
    tf1.layers.dense(x, 3, trainable=False)
    with tf1.variable_scope("s"):
        tf1.layers.batch_normalization(x, trainable=False, training=True)


def scope_initializer(tf, tf1, x, img):
    with tf1.variable_scope("init", initializer=pattern_init(tf, 3.0)):
        tf1.layers.dense(x, 3)


def more_layers(tf, tf1, x, img):
    vol = img[:, :, :, :, None]  # [2, 5, 5, 3, 1]
    tf1.layers.conv3d(vol, 2, 2)
    tf1.layers.conv3d_transpose(vol, 2, 2)
    tf1.layers.separable_conv2d(img, 4, 3, depth_multiplier=2)
    tf1.layers.separable_conv1d(x[:, :, None], 2, 2)
    tf1.layers.max_pooling3d(vol, 2, 2)
    tf1.layers.average_pooling3d(vol, 2, 2)
    tf1.layers.MaxPooling1D(2, 2)(x[:, :, None])


GRAPH_CASES = {f.__name__: f for f in (
    top_level, scoped, named_auto_reuse, named_twice, reuse_missing, model_twice,
    scope_reuse_variables, class_layer, regularizer, bn_collections, non_trainable,
    scope_initializer, more_layers)}


# ----------------------------------------------------------------- math
# name -> (input shape, reduction length of one output: the error model's K, fn(tf, tf1, t))
def _k(tf):
    return pattern_init(tf, 0.0)


def _b(tf):
    return pattern_init(tf, 1.0)


MATH_CASES = {
    "dense_relu": ([2, 4], 4, lambda tf, tf1, t: tf1.layers.dense(
        t, 3, activation=tf.nn.relu, kernel_initializer=_k(tf), bias_initializer=_b(tf))),
    "dense_rank3": ([2, 3, 4], 4, lambda tf, tf1, t: tf1.layers.dense(
        t, 2, kernel_initializer=_k(tf), bias_initializer=_b(tf))),
    "conv1d": ([2, 6, 3], 9, lambda tf, tf1, t: tf1.layers.conv1d(
        t, 2, 3, padding="same", kernel_initializer=_k(tf), bias_initializer=_b(tf))),
    "conv2d_valid": ([2, 5, 5, 3], 27, lambda tf, tf1, t: tf1.layers.conv2d(
        t, 2, 3, kernel_initializer=_k(tf), bias_initializer=_b(tf))),
    "conv2d_same_strided": ([1, 6, 5, 2], 12, lambda tf, tf1, t: tf1.layers.conv2d(
        t, 4, (3, 2), strides=2, padding="same", kernel_initializer=_k(tf), use_bias=False)),
    "conv2d_transpose": ([1, 3, 3, 2], 18, lambda tf, tf1, t: tf1.layers.conv2d_transpose(
        t, 2, 3, strides=2, padding="same", kernel_initializer=_k(tf),
        bias_initializer=_b(tf))),
    "max_pooling2d": ([2, 5, 5, 3], 1, lambda tf, tf1, t: tf1.layers.max_pooling2d(t, 2, 2)),
    "average_pooling2d_same": ([1, 5, 5, 2], 9, lambda tf, tf1, t:
                               tf1.layers.average_pooling2d(t, 3, 2, padding="same")),
    "max_pooling1d": ([2, 5, 3], 1, lambda tf, tf1, t: tf1.layers.max_pooling1d(t, 2, 1)),
    "average_pooling1d": ([2, 6, 3], 2, lambda tf, tf1, t:
                          tf1.layers.average_pooling1d(t, 2, 2)),
    "flatten": ([2, 3, 2, 2], 1, lambda tf, tf1, t: tf1.layers.flatten(t)),
    "dropout_default_inference": ([2, 4], 1, lambda tf, tf1, t: tf1.layers.dropout(t, 0.5)),
    "dropout_rate_zero_training": ([2, 4], 1, lambda tf, tf1, t: tf1.layers.dropout(
        t, 0.0, training=True)),
    "separable_conv2d": ([1, 4, 4, 2], 18, lambda tf, tf1, t: tf1.layers.separable_conv2d(
        t, 3, 3, depth_multiplier=2, padding="same", depthwise_initializer=_k(tf),
        pointwise_initializer=_b(tf))),
    "conv3d": ([1, 3, 3, 3, 2], 16, lambda tf, tf1, t: tf1.layers.conv3d(
        t, 2, 2, kernel_initializer=_k(tf), bias_initializer=_b(tf))),
    "bn_axis1_function_train": ([2, 3, 2, 2], 8, lambda tf, tf1, t:
                                tf1.layers.batch_normalization(t, axis=1, training=True)),
}

#: Batch norms called in training then inference: name -> (input shape, reduction length).
BN_CASES = {"bn_2d": ([6, 3], 6), "bn_4d_fused": ([2, 3, 3, 2], 18)}


def bn_layer(tf, tf1):
    return tf1.layers.BatchNormalization(momentum=0.9, gamma_initializer=pattern_init(tf),
                                         beta_initializer=pattern_init(tf, 1.0))


def regularized_dense(tf, tf1):
    return tf1.layers.Dense(3, kernel_initializer=_k(tf), bias_initializer=_b(tf),
                            kernel_regularizer=tf.keras.regularizers.l2(0.1),
                            bias_regularizer=tf.keras.regularizers.l1(0.2))


class ShimNet:
    """The `track_tf1_style_variables` module: two function-form dense layers in "net"."""

    @staticmethod
    def build(tf, tf1):
        class Net(tf.Module):
            @tf1.keras.utils.track_tf1_style_variables
            def __call__(self, inputs):
                with tf1.variable_scope("net"):
                    h = tf1.layers.dense(inputs, 4, kernel_initializer=pattern_init(tf),
                                         activation=tf.nn.relu)
                    return tf1.layers.dense(h, 2, kernel_initializer=pattern_init(tf, 1.0))
        return Net()
