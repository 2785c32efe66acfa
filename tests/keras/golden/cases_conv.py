"""tf_keras 2.21 goldens for the transposed, depthwise and separable convolutions:
Conv1D/2D/3DTranspose (valid/same, strides, output_padding, dilation, channels_first,
float64, float16), DepthwiseConv1D/2D (depth multipliers, strides, dilation, data formats),
SeparableConv1D/2D (causal, strides, dilation); weight layouts, configs key for key, errors.

Error model (tests/ops/golden/harness.py): a transposed-convolution output sums at most
kernel-size x in_channels products plus the bias add (n = that + 1); its kernel gradient
sums over batch x input positions; a depthwise output sums k (the kernel's spatial size)
products; a separable output adds the pointwise sum of in x multiplier on top. Cancellation
everywhere, so normwise.
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(31)
IMG = _RNG.uniform(-1, 1, (2, 5, 4, 3)).astype(np.float32)       # NHWC
IMG_CF = np.ascontiguousarray(IMG.transpose(0, 3, 1, 2))          # NCHW
SEQ = _RNG.uniform(-1, 1, (2, 7, 3)).astype(np.float32)          # NWC
SEQ_CF = np.ascontiguousarray(SEQ.transpose(0, 2, 1))             # NCW
VOL = _RNG.uniform(-1, 1, (1, 3, 4, 3, 2)).astype(np.float32)    # NDHWC
VOL_CF = np.ascontiguousarray(VOL.transpose(0, 4, 1, 2, 3))


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _run(cls, x, *args, n, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), [x]), n=n,
                terms="normwise")


def _weights(cls, x, *args, **kwargs):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        out = layer(tf.constant(x))
        return [[w.name, list(w.shape)] for w in layer.weights] + [list(out.shape)]
    return fn


CASES = {
    # -- transposed convolutions
    "conv2dt_valid": _run("Conv2DTranspose", IMG, 4, 3, n=28),
    "conv2dt_same_s2": _run("Conv2DTranspose", IMG, 4, 3, strides=2, padding="same", n=28),
    "conv2dt_valid_s2_even_kernel": _run("Conv2DTranspose", IMG, 2, (2, 4), strides=(2, 3),
                                         n=25),
    "conv2dt_output_padding": _run("Conv2DTranspose", IMG, 3, 3, strides=2, padding="same",
                                   output_padding=1, n=28),
    "conv2dt_valid_output_padding": _run("Conv2DTranspose", IMG, 3, 3, strides=(3, 2),
                                         output_padding=(2, 0), n=28),
    "conv2dt_dilation": _run("Conv2DTranspose", IMG, 3, 3, dilation_rate=2, padding="same",
                             n=28),
    "conv2dt_channels_first": _run("Conv2DTranspose", IMG_CF, 4, 3, strides=2,
                                   data_format="channels_first", activation="relu", n=28),
    "conv2dt_float64": _run("Conv2DTranspose", IMG.astype(np.float64), 4, 3, strides=2,
                            padding="same", dtype="float64", n=28),
    # TF's CPU Conv2DBackpropInput for half accumulates in half (as cases_image notes for
    # Conv2D's gradients), so the model is float16's u, not accumulate="float32"
    "conv2dt_float16": Case(lambda tf: run_layer(
        tf, _layer("Conv2DTranspose", 4, 3, strides=2, dtype="float16"),
        [IMG.astype(np.float16)], grads=False), n=28, terms="normwise", ulps=2),
    "conv1dt_same_s2": _run("Conv1DTranspose", SEQ, 4, 3, strides=2, padding="same", n=10),
    "conv1dt_valid_output_padding": _run("Conv1DTranspose", SEQ, 2, 4, strides=3,
                                         output_padding=2, n=13),
    "conv1dt_dilation_cf": _run("Conv1DTranspose", SEQ_CF, 2, 3, dilation_rate=2,
                                data_format="channels_first", n=10),
    "conv3dt_same_s2": _run("Conv3DTranspose", VOL, 2, 2, strides=2, padding="same", n=17),
    "conv3dt_valid": _run("Conv3DTranspose", VOL, 3, 3, strides=(1, 2, 1), n=55),
    "conv3dt_output_padding": _run("Conv3DTranspose", VOL, 2, 3, strides=2, padding="same",
                                   output_padding=(1, 0, 1), n=55),
    "conv3dt_channels_first": _run("Conv3DTranspose", VOL_CF, 2, 2, strides=(2, 1, 2),
                                   data_format="channels_first", n=17),
    "conv3dt_float64": _run("Conv3DTranspose", VOL.astype(np.float64), 2, 3, strides=2,
                            padding="same", dtype="float64", n=55),
    # -- depthwise
    "depthwise2d_valid": _run("DepthwiseConv2D", IMG, 3, n=10),
    "depthwise2d_same_mult2": _run("DepthwiseConv2D", IMG, 3, padding="same",
                                   depth_multiplier=2, n=10),
    "depthwise2d_strides": _run("DepthwiseConv2D", IMG, (2, 3), strides=2, padding="same",
                                n=7),
    "depthwise2d_dilation": _run("DepthwiseConv2D", IMG, 2, dilation_rate=(2, 1),
                                 activation="tanh", n=6),
    "depthwise2d_channels_first": _run("DepthwiseConv2D", IMG_CF, 3, depth_multiplier=2,
                                       data_format="channels_first", n=10),
    "depthwise2d_float64": _run("DepthwiseConv2D", IMG.astype(np.float64), 3,
                                padding="same", dtype="float64", n=10),
    "depthwise1d_valid_mult3": _run("DepthwiseConv1D", SEQ, 3, depth_multiplier=3, n=4),
    "depthwise1d_same_strides": _run("DepthwiseConv1D", SEQ, 4, strides=2, padding="same",
                                     n=5),
    "depthwise1d_channels_first": _run("DepthwiseConv1D", SEQ_CF, 3, dilation_rate=2,
                                       data_format="channels_first", n=4),
    # -- separable
    "separable2d_valid": _run("SeparableConv2D", IMG, 4, 3, n=14),
    "separable2d_same_s2_mult2": _run("SeparableConv2D", IMG, 4, 3, strides=2,
                                      padding="same", depth_multiplier=2, n=17),
    "separable2d_dilation_cf": _run("SeparableConv2D", IMG_CF, 2, 2, dilation_rate=2,
                                    data_format="channels_first", n=9),
    "separable2d_float64": _run("SeparableConv2D", IMG.astype(np.float64), 4, 3,
                                padding="same", dtype="float64", n=14),
    "separable1d_causal": _run("SeparableConv1D", SEQ, 4, 3, padding="causal", n=8),
    "separable1d_same_strides_mult2": _run("SeparableConv1D", SEQ, 3, 3, strides=2,
                                           padding="same", depth_multiplier=2, n=11),
    "separable1d_channels_first": _run("SeparableConv1D", SEQ_CF, 3, 2,
                                       data_format="channels_first", n=7),
    # -- layouts (names and shapes, creation order), configs
    "weights_conv2dt": _weights("Conv2DTranspose", IMG, 5, (2, 3)),
    "weights_conv3dt": _weights("Conv3DTranspose", VOL, 4, 2),
    "weights_depthwise2d": _weights("DepthwiseConv2D", IMG, 3, depth_multiplier=2),
    "weights_depthwise1d": _weights("DepthwiseConv1D", SEQ, 3),
    "weights_separable2d": _weights("SeparableConv2D", IMG, 5, 3, depth_multiplier=2),
    "weights_separable1d_no_bias": _weights("SeparableConv1D", SEQ, 5, 3, use_bias=False),
    "conv2dt_config": _config("Conv2DTranspose", 4, 3, strides=2, padding="same",
                              output_padding=1, activation="relu", name="t"),
    "conv1dt_config": _config("Conv1DTranspose", 4, 3, name="t1"),
    "conv3dt_config": _config("Conv3DTranspose", 4, (1, 2, 3), data_format="channels_first",
                              name="t3"),
    "depthwise2d_config": _config("DepthwiseConv2D", 3, depth_multiplier=2,
                                  depthwise_regularizer="l2", name="dw"),
    "depthwise1d_config": _config("DepthwiseConv1D", 3, strides=2, name="dw1"),
    "separable2d_config": _config("SeparableConv2D", 8, 3, depth_multiplier=2,
                                  pointwise_initializer="ones", name="sep"),
    "separable1d_config": _config("SeparableConv1D", 8, 3, padding="causal", name="sep1"),
    "aliases": lambda tf: [getattr(tf.keras.layers, a).__name__ for a in (
        "Convolution2DTranspose", "Convolution1DTranspose", "Convolution3DTranspose",
        "SeparableConvolution2D", "SeparableConvolution1D")],
    # -- errors
    "conv2dt_output_padding_error": Case(lambda tf: tf.keras.layers.Conv2DTranspose(
        3, 3, strides=2, output_padding=2), match_message=True),
    "conv2dt_rank_error": Case(lambda tf: tf.keras.layers.Conv2DTranspose(3, 3)(
        tf.ones([2, 5, 3])), match_message=True),
    "conv1dt_rank_error": Case(lambda tf: tf.keras.layers.Conv1DTranspose(3, 3)(
        tf.ones([2, 5, 5, 3])), match_message=True),
    "depthwise2d_rank_error": Case(lambda tf: tf.keras.layers.DepthwiseConv2D(3)(
        tf.ones([2, 5, 3])), match_message=True),
    "depthwise1d_causal_error": Case(lambda tf: tf.keras.layers.DepthwiseConv1D(
        3, padding="causal"), match_message=True),
    "separable2d_causal_error": Case(lambda tf: tf.keras.layers.SeparableConv2D(
        3, 3, padding="causal"), match_message=True),
    "separable2d_rank_error": lambda tf: tf.keras.layers.SeparableConv2D(3, 3)(
        tf.ones([2, 5, 3])),
    "conv2dt_channel_error": lambda tf: _twice(tf, tf.keras.layers.Conv2DTranspose(2, 3),
                                               [1, 5, 5, 3], [1, 5, 5, 4]),
    "depthwise2d_channel_error": lambda tf: _twice(tf, tf.keras.layers.DepthwiseConv2D(3),
                                                   [1, 5, 5, 3], [1, 5, 5, 4]),
}


def _twice(tf, layer, first, second):
    layer(tf.ones(first))
    return layer(tf.ones(second))
