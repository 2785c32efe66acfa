"""Golden cases for the `tf.nn` convolutions and pools of issue 9 (engineer F).

TF's CPU kernels here are oneDNN's (TF's default x86 build). Error cases
where oneDNN's kernels fail differently from TF's portable ones (an
`AbortedError`, or no check at all) are left to the unit tests.
Record with `/work/tfenv/bin/python tests/ops/golden/gen_ops.py nn_conv`.
"""

import numpy as np

from tests.ops.golden.harness import Case, Grad

_rng = np.random.default_rng(90)


def _r(*shape, dtype=np.float32):
    return _rng.standard_normal(shape).astype(dtype)


X = _r(2, 7, 6, 3)                # NHWC, odd/even sizes: SAME pads asymmetrically with stride 2
XC = np.ascontiguousarray(X.transpose(0, 3, 1, 2))  # the same as NCHW
W = _r(3, 2, 3, 4)                # HWIO, an even kernel width
W4 = _r(4, 4, 3, 2)
WG2 = _r(3, 3, 1, 6)              # 3 groups of 2 outputs
DW = _r(3, 3, 3, 2)               # depthwise [h, w, in, multiplier]
PW = _r(1, 1, 6, 5)
X1 = _r(2, 9, 3)                  # NWC
W1 = _r(4, 3, 2)
XT = _r(2, 4, 3, 4)               # conv2d_transpose input: filters [h, w, out=3, in=4]
WT = _r(3, 3, 3, 4)
XP = _r(2, 7, 6, 3)
TIES = np.array([[1, 3, 3, 2], [3, 1, 2, 3], [0, 0, 5, 5], [5, 0, 5, 1]],
                np.float32).reshape(1, 4, 4, 1)
X3 = _r(1, 5, 4, 6, 2)            # NDHWC
XI = _rng.integers(-5, 6, (1, 5, 5, 2)).astype(np.int32)


def _cast(tf, a, dtype):
    return tf.cast(a, getattr(tf, dtype))


# Convolutions and average pools are sums whose order differs between oneDNN/Eigen and torch:
# an absolute floor of about eps * sum(|terms|) (terms here are O(1), at most ~50 per sum)
# covers the reordering where results cancel to near 0.
ATOL = {"float32": 2e-6, "float64": 4e-15, "float16": 0.0, "bfloat16": 0.0}
GRAD_ATOL = 6e-6
# TF's CPU kernels for float16 depthwise and transposed convolutions and average pools
# accumulate in float16 (its conv2d accumulates in float32, as torch does for all of them):
# their sums carry float16 rounding per term, up to a few float16 ulps of the terms.
HALF_ACCUM = 4e-3


CASES = {}
for _dt in ("float32", "float16", "bfloat16", "float64"):
    _half = HALF_ACCUM if _dt == "float16" else ATOL[_dt]
    CASES[f"conv2d_same_s1_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.conv2d(
        _cast(tf, X, _dt), _cast(tf, W, _dt), 1, "SAME"), atol=ATOL[_dt])
    CASES[f"conv2d_same_s2_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.conv2d(
        _cast(tf, X, _dt), _cast(tf, W, _dt), 2, "SAME"), atol=ATOL[_dt])
    CASES[f"max_pool2d_same_s2_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.max_pool2d(
        _cast(tf, XP, _dt), 3, 2, "SAME"), ulps=0)
    CASES[f"avg_pool2d_same_s2_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.avg_pool2d(
        _cast(tf, XP, _dt), 3, 2, "SAME"), atol=_half)
    CASES[f"depthwise_same_s2_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.depthwise_conv2d(
        _cast(tf, X, _dt), _cast(tf, DW, _dt), [1, 2, 2, 1], "SAME"), atol=_half)
    CASES[f"conv2d_transpose_{_dt}"] = Case(lambda tf, _dt=_dt: tf.nn.conv2d_transpose(
        _cast(tf, XT, _dt), _cast(tf, WT, _dt), [2, 7, 6, 3], 2, "SAME"), atol=_half)

CASES.update({
    # conv2d: paddings, strides, dilations, layouts, groups, dtypes, errors
    "conv2d_valid": lambda tf: tf.nn.conv2d(X, W, 1, "VALID"),
    "conv2d_valid_s2": lambda tf: tf.nn.conv2d(X, W, [2, 3], "VALID"),
    "conv2d_same_s3": lambda tf: tf.nn.conv2d(X, W4, 3, "SAME"),
    "conv2d_same_even_kernel": lambda tf: tf.nn.conv2d(X, W4, 1, "SAME"),
    "conv2d_same_dilated": lambda tf: tf.nn.conv2d(X, W, 1, "SAME", dilations=2),
    "conv2d_same_dilated_s2": lambda tf: tf.nn.conv2d(X, W, 2, "SAME", dilations=[2, 1]),
    "conv2d_strides4": lambda tf: tf.nn.conv2d(X, W, [1, 2, 1, 1], "SAME"),
    "conv2d_explicit": lambda tf: tf.nn.conv2d(X, W, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]),
    "conv2d_explicit_s2": lambda tf: tf.nn.conv2d(X, W, 2, [[0, 0], [3, 0], [2, 2], [0, 0]]),
    "conv2d_nchw": lambda tf: tf.nn.conv2d(XC, W, 2, "SAME", data_format="NCHW"),
    "conv2d_nchw_explicit": lambda tf: tf.nn.conv2d(XC, W, 1, [[0, 0], [0, 0], [1, 0], [2, 1]],
                                                    data_format="NCHW"),
    "conv2d_grouped": lambda tf: tf.nn.conv2d(X, WG2, 1, "SAME"),
    "conv2d_rank5": lambda tf: tf.nn.conv2d(np.stack([X, X * 2]), W, 2, "SAME"),
    "conv2d_int32": Case(lambda tf: tf.nn.conv2d(XI, np.ones((2, 2, 2, 3), np.int32), 1,
                                                "SAME"), ulps=0),
    "conv2d_int64": lambda tf: tf.nn.conv2d(XI.astype(np.int64), np.ones((2, 2, 2, 3), np.int64),
                                            1, "SAME"),
    "conv2d_variable": lambda tf: tf.nn.conv2d(tf.Variable(X), tf.Variable(W), 2, "SAME"),
    "conv2d_dtype_mismatch": lambda tf: tf.nn.conv2d(X, W.astype(np.float64), 1, "SAME"),
    "conv2d_bad_padding": lambda tf: tf.nn.conv2d(X, W, 1, "FOO"),
    "conv2d_lowercase_padding": lambda tf: tf.nn.conv2d(X, W, 1, "same"),
    "conv2d_padding_list_size": lambda tf: tf.nn.conv2d(X, W, 1, [[1, 2], [0, 1]]),
    "conv2d_strides_length": lambda tf: tf.nn.conv2d(X, W, [2, 1, 1], "SAME"),
    "conv2d_strides_batch": lambda tf: tf.nn.conv2d(X, W, [2, 1, 1, 1], "SAME"),
    "conv2d_stride_zero": lambda tf: tf.nn.conv2d(X, W, 0, "SAME"),
    "conv2d_filter_rank": lambda tf: tf.nn.conv2d(X, W[0], 1, "SAME"),
    "conv2d_bad_data_format": lambda tf: tf.nn.conv2d(X, W, 1, "SAME", data_format="NWHC"),
    # conv1d
    "conv1d_same_s2": lambda tf: tf.nn.conv1d(X1, W1, 2, "SAME"),
    "conv1d_valid_dilated": lambda tf: tf.nn.conv1d(X1, W1, 1, "VALID", dilations=2),
    "conv1d_ncw": lambda tf: tf.nn.conv1d(np.ascontiguousarray(X1.transpose(0, 2, 1)), W1, 2,
                                          "SAME", data_format="NCW"),
    "conv1d_f16": lambda tf: tf.nn.conv1d(X1.astype(np.float16), W1.astype(np.float16), 1, "SAME"),
    "conv1d_bad_format": lambda tf: tf.nn.conv1d(X1, W1, 1, "SAME", data_format="NWCX"),
    # conv2d_transpose
    "conv2d_transpose_same_even": lambda tf: tf.nn.conv2d_transpose(XT, WT, [2, 8, 6, 3], 2),
    "conv2d_transpose_valid": lambda tf: tf.nn.conv2d_transpose(XT, WT, [2, 9, 7, 3], 2, "VALID"),
    "conv2d_transpose_valid_extra": lambda tf: tf.nn.conv2d_transpose(XT, WT, [2, 10, 8, 3], 2,
                                                                      "VALID"),
    "conv2d_transpose_s1": lambda tf: tf.nn.conv2d_transpose(XT, WT, [2, 4, 3, 3], 1, "SAME"),
    "conv2d_transpose_explicit": lambda tf: tf.nn.conv2d_transpose(
        XT, WT, [2, 7, 5, 3], 2, [[0, 0], [1, 1], [1, 2], [0, 0]]),
    "conv2d_transpose_nchw": lambda tf: tf.nn.conv2d_transpose(
        np.ascontiguousarray(XT.transpose(0, 3, 1, 2)), WT, [2, 3, 7, 6], 2, "SAME",
        data_format="NCHW"),
    "conv2d_transpose_spatial_shape": lambda tf: tf.nn.conv2d_transpose(XT, WT, [7, 6], 2),
    "conv2d_transpose_shape_tensor": lambda tf: tf.nn.conv2d_transpose(
        XT, WT, tf.constant([2, 7, 6, 3]), 2),
    # depthwise / separable
    "depthwise_valid": lambda tf: tf.nn.depthwise_conv2d(X, DW, [1, 1, 1, 1], "VALID"),
    "depthwise_dilated": lambda tf: tf.nn.depthwise_conv2d(X, DW, [1, 1, 1, 1], "SAME",
                                                           dilations=[2, 2]),
    "depthwise_explicit": lambda tf: tf.nn.depthwise_conv2d(X, DW, [1, 1, 1, 1],
                                                            [[0, 0], [1, 1], [2, 0], [0, 0]]),
    "depthwise_nchw": lambda tf: tf.nn.depthwise_conv2d(XC, DW, [1, 1, 2, 2], "SAME",
                                                        data_format="NCHW"),
    "depthwise_int_strides": lambda tf: tf.nn.depthwise_conv2d(X, DW, 2, "SAME"),
    "depthwise_int32": lambda tf: tf.nn.depthwise_conv2d(XI, np.ones((2, 2, 2, 1), np.int32),
                                                         [1, 1, 1, 1], "SAME"),
    "separable": lambda tf: tf.nn.separable_conv2d(X, DW, PW, [1, 2, 2, 1], "SAME"),
    "separable_valid": lambda tf: tf.nn.separable_conv2d(X, DW, PW, [1, 1, 1, 1], "VALID"),
    "separable_bad_pointwise": lambda tf: tf.nn.separable_conv2d(X, DW, _r(2, 1, 6, 5),
                                                                 [1, 1, 1, 1], "SAME"),
    # pools
    "max_pool2d_valid": Case(lambda tf: tf.nn.max_pool2d(XP, 2, 2, "VALID"), ulps=0),
    "max_pool2d_same_s1_even": Case(lambda tf: tf.nn.max_pool2d(XP, 2, 1, "SAME"), ulps=0),
    "max_pool2d_same_s1_odd": Case(lambda tf: tf.nn.max_pool2d(XP, [3, 2], 1, "SAME"), ulps=0),
    "max_pool2d_same_s3": Case(lambda tf: tf.nn.max_pool2d(XP, 4, 3, "SAME"), ulps=0),
    "max_pool2d_same_mixed": Case(lambda tf: tf.nn.max_pool2d(XP, [2, 3], [1, 2], "SAME"), ulps=0),
    "max_pool2d_negative_same": Case(lambda tf: tf.nn.max_pool2d(-np.abs(XP), 3, 2, "SAME"),
                                     ulps=0),
    "max_pool2d_explicit": Case(lambda tf: tf.nn.max_pool2d(
        -np.abs(XP), 2, 1, [[0, 0], [1, 1], [0, 2], [0, 0]]), ulps=0),
    "max_pool2d_nchw": Case(lambda tf: tf.nn.max_pool2d(
        np.ascontiguousarray(XP.transpose(0, 3, 1, 2)), 3, 2, "SAME", data_format="NCHW"), ulps=0),
    "max_pool2d_ksize_batch": lambda tf: tf.nn.max_pool2d(XP, [2, 2, 2, 1], 1, "SAME"),
    "max_pool2d_bad_padding": lambda tf: tf.nn.max_pool2d(XP, 2, 2, "FOO"),
    "max_pool_1d": Case(lambda tf: tf.nn.max_pool(XP[:, 0], 3, 2, "SAME"), ulps=0),
    "max_pool_3d": Case(lambda tf: tf.nn.max_pool(X3, 2, 2, "SAME"), ulps=0),
    "max_pool3d_f64": lambda tf: tf.nn.max_pool3d(X3.astype(np.float64), 2, 2, "SAME"),
    "max_pool_rank2": lambda tf: tf.nn.max_pool(XP[0, 0], 2, 1, "SAME"),
    "avg_pool2d_valid": lambda tf: tf.nn.avg_pool2d(XP, 2, 2, "VALID"),
    "avg_pool2d_same_s1_even": lambda tf: tf.nn.avg_pool2d(XP, 2, 1, "SAME"),
    "avg_pool2d_same_s1_big": lambda tf: tf.nn.avg_pool2d(XP, [4, 5], 1, "SAME"),
    "avg_pool2d_same_s3": lambda tf: tf.nn.avg_pool2d(XP, 4, 3, "SAME"),
    "avg_pool2d_same_mixed": lambda tf: tf.nn.avg_pool2d(XP, [2, 3], [1, 2], "SAME"),
    "avg_pool2d_ones_same": Case(lambda tf: tf.nn.avg_pool2d(np.ones((1, 5, 4, 1), np.float32),
                                                             3, 2, "SAME"), ulps=0),
    "avg_pool2d_nchw": lambda tf: tf.nn.avg_pool2d(np.ascontiguousarray(XP.transpose(0, 3, 1, 2)),
                                                   3, 2, "SAME", data_format="NCHW"),
    "avg_pool2d_int": lambda tf: tf.nn.avg_pool2d(XI, 2, 2, "SAME"),
    "avg_pool2d_explicit": lambda tf: tf.nn.avg_pool2d(XP, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]),
    "avg_pool_1d": lambda tf: tf.nn.avg_pool(XP[:, 0], 3, 2, "SAME"),
    "avg_pool1d_ncw": lambda tf: tf.nn.avg_pool1d(np.ascontiguousarray(XP[:, 0].transpose(0, 2, 1)),
                                                  2, 2, "SAME", data_format="NCW"),
    "avg_pool_3d": lambda tf: tf.nn.avg_pool(X3, [2, 3, 2], [1, 2, 2], "SAME"),
    "avg_pool3d_f64": lambda tf: tf.nn.avg_pool3d(X3.astype(np.float64), 2, 2, "SAME"),
    "pool_max": Case(lambda tf: tf.nn.pool(XP, [3, 3], "MAX", strides=[2, 2], padding="SAME"),
                     ulps=0),
    "pool_avg_dilated": lambda tf: tf.nn.pool(XP, [2, 2], "AVG", dilations=[2, 2]),
    "pool_max_dilated": Case(lambda tf: tf.nn.pool(XP, [2, 3], "MAX", dilations=[2, 1]), ulps=0),
    "pool_avg_1d": lambda tf: tf.nn.pool(XP[:, 0], [3], "AVG", strides=[2], padding="SAME"),
    "pool_max_1d_dilated": Case(lambda tf: tf.nn.pool(XP[:, 0], [2], "MAX", dilations=[3]), ulps=0),
    "pool_dilated_same": lambda tf: tf.nn.pool(XP, [2, 2], "AVG", padding="SAME", dilations=[2, 2]),
    "pool_dilated_strided": lambda tf: tf.nn.pool(XP, [2, 2], "AVG", strides=[2, 2],
                                                  dilations=[2, 2]),
    "pool_bad_type": lambda tf: tf.nn.pool(XP, [2, 2], "MIN"),
})

# The plain float cases above are sums too (see ATOL).
for _name, _entry in list(CASES.items()):
    if callable(_entry) and _name.startswith(("conv", "depthwise", "separable", "avg_pool",
                                              "pool_avg")):
        CASES[_name] = Case(_entry, atol=ATOL["float32"])


def _sum_weighted(y, tf, seed):
    g = np.random.default_rng(seed).standard_normal(tuple(y.shape)).astype(np.float32)
    return tf.reduce_sum(tf.multiply(y, tf.cast(g, y.dtype)))


GRADIENTS = {
    "conv2d_same_s2": Grad(lambda tf, x, w: _sum_weighted(tf.nn.conv2d(x, w, 2, "SAME"), tf, 1),
                           [X, W]),
    "conv2d_same_s1_even": Grad(lambda tf, x, w: _sum_weighted(tf.nn.conv2d(x, w, 1, "SAME"), tf, 2),
                                [X, W4]),
    "conv2d_valid_dilated": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv2d(x, w, 1, "VALID", dilations=2), tf, 3), [X, W]),
    "conv2d_explicit": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv2d(x, w, 2, [[0, 0], [3, 0], [2, 2], [0, 0]]), tf, 4), [X, W]),
    "conv2d_nchw": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv2d(x, w, 2, "SAME", data_format="NCHW"), tf, 5), [XC, W]),
    "conv2d_f64": Grad(lambda tf, x, w: _sum_weighted(tf.nn.conv2d(x, w, 2, "SAME"), tf, 6),
                       [X.astype(np.float64), W.astype(np.float64)]),
    "conv1d": Grad(lambda tf, x, w: _sum_weighted(tf.nn.conv1d(x, w, 2, "SAME"), tf, 7), [X1, W1]),
    "conv2d_transpose": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv2d_transpose(x, w, [2, 7, 6, 3], 2, "SAME"), tf, 8), [XT, WT]),
    "conv2d_transpose_valid_extra": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv2d_transpose(x, w, [2, 10, 8, 3], 2, "VALID"), tf, 9), [XT, WT]),
    "depthwise": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"), tf, 10), [X, DW]),
    "separable": Grad(lambda tf, x, d, p: _sum_weighted(
        tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME"), tf, 11), [X, DW, PW]),
    "max_pool_same_s2": Grad(lambda tf, x: _sum_weighted(tf.nn.max_pool2d(x, 3, 2, "SAME"), tf, 12),
                             [XP]),
    "max_pool_ties": Grad(lambda tf, x: _sum_weighted(tf.nn.max_pool2d(x, 2, 1, "SAME"), tf, 13),
                          [TIES]),
    "max_pool_ties_s2": Grad(lambda tf, x: _sum_weighted(tf.nn.max_pool2d(x, 2, 2, "VALID"), tf,
                                                         14), [TIES]),
    "max_pool_ties_same_s2": Grad(lambda tf, x: _sum_weighted(tf.nn.max_pool2d(x, 3, 2, "SAME"),
                                                              tf, 15), [TIES]),
    "avg_pool_same_s2": Grad(lambda tf, x: _sum_weighted(tf.nn.avg_pool2d(x, 3, 2, "SAME"), tf, 16),
                             [XP]),
    "avg_pool_same_s1_even": Grad(lambda tf, x: _sum_weighted(tf.nn.avg_pool2d(x, 2, 1, "SAME"),
                                                              tf, 17), [XP]),
    "max_pool_1d": Grad(lambda tf, x: _sum_weighted(tf.nn.max_pool1d(x, 3, 2, "SAME"), tf, 18),
                        [XP[:, 0]]),
    "pool_avg_dilated": Grad(lambda tf, x: _sum_weighted(tf.nn.pool(x, [2, 2], "AVG",
                                                                    dilations=[2, 2]), tf, 19),
                             [XP]),
}

# The input and filter gradients are sums over every output a value touched (~50-100 O(1)
# terms): the same summation-order floor as the forward cases, a little wider.
for _name, _grad in list(GRADIENTS.items()):
    _f64 = any(a.dtype == np.float64 for a in _grad.inputs)
    GRADIENTS[_name] = Grad(_grad.fn, _grad.inputs, _grad.ulps, 1e-14 if _f64 else GRAD_ATOL)

# -- conv3d and convolution
W3 = _r(2, 3, 2, 2, 4)            # DHWIO
CASES.update({
    "conv3d_same": Case(lambda tf: tf.nn.conv3d(X3, W3, [1, 2, 2, 1, 1], "SAME"),
                        atol=ATOL["float32"]),
    "conv3d_valid_dilated": Case(lambda tf: tf.nn.conv3d(X3, W3, [1, 1, 1, 1, 1], "VALID",
                                                         dilations=[1, 2, 1, 1, 1]),
                                 atol=ATOL["float32"]),
    "conv3d_ncdhw": Case(lambda tf: tf.nn.conv3d(np.ascontiguousarray(X3.transpose(0, 4, 1, 2, 3)),
                                                 W3, [1, 1, 2, 2, 2], "SAME",
                                                 data_format="NCDHW"), atol=ATOL["float32"]),
    "conv3d_int_strides": lambda tf: tf.nn.conv3d(X3, W3, 2, "SAME"),
    "conv3d_int32": lambda tf: tf.nn.conv3d(X3.astype(np.int32), W3.astype(np.int32),
                                            [1, 1, 1, 1, 1], "SAME"),
    "convolution_2d": Case(lambda tf: tf.nn.convolution(X, W, 2, "SAME"), atol=ATOL["float32"]),
    "convolution_2d_dilated": Case(lambda tf: tf.nn.convolution(X, W, padding="SAME",
                                                                dilations=2),
                                   atol=ATOL["float32"]),
    "convolution_1d_ncw": Case(lambda tf: tf.nn.convolution(
        np.ascontiguousarray(X1.transpose(0, 2, 1)), W1, [2], "VALID", data_format="NCW"),
        atol=ATOL["float32"]),
    "convolution_3d": Case(lambda tf: tf.nn.convolution(X3, W3, [1, 2, 1], "SAME"),
                           atol=ATOL["float32"]),
    "convolution_default_valid": Case(lambda tf: tf.nn.convolution(X, W), atol=ATOL["float32"]),
    "convolution_bad_format": lambda tf: tf.nn.convolution(X, W, data_format="NCW"),
})
GRADIENTS.update({
    "conv3d": Grad(lambda tf, x, w: _sum_weighted(tf.nn.conv3d(x, w, [1, 2, 2, 1, 1], "SAME"), tf,
                                                  20), [X3, W3], atol=GRAD_ATOL),
})

# -- conv1d_transpose, conv3d_transpose, conv_transpose
XT1 = _r(2, 5, 3)                 # NWC; filters [w, out=4, in=3]
WT1 = _r(3, 4, 3)
XT3 = _r(1, 3, 2, 3, 2)           # NDHWC; filters [d, h, w, out=4, in=2]
WT3 = _r(2, 3, 2, 4, 2)
CASES.update({
    "conv1d_transpose_same_s2": Case(lambda tf: tf.nn.conv1d_transpose(
        XT1, WT1, [2, 10, 4], 2, "SAME"), atol=ATOL["float32"]),
    "conv1d_transpose_same_s2_odd": Case(lambda tf: tf.nn.conv1d_transpose(
        XT1, WT1, [2, 9, 4], 2, "SAME"), atol=ATOL["float32"]),
    "conv1d_transpose_valid": Case(lambda tf: tf.nn.conv1d_transpose(
        XT1, WT1, [2, 11, 4], 2, "VALID"), atol=ATOL["float32"]),
    "conv1d_transpose_dilated": Case(lambda tf: tf.nn.conv1d_transpose(
        XT1, WT1, [2, 9, 4], 1, "VALID", dilations=2), atol=ATOL["float32"]),
    "conv1d_transpose_ncw": Case(lambda tf: tf.nn.conv1d_transpose(
        np.ascontiguousarray(XT1.transpose(0, 2, 1)), WT1, [2, 4, 10], 2, "SAME",
        data_format="NCW"), atol=ATOL["float32"]),
    "conv3d_transpose_same_s2": Case(lambda tf: tf.nn.conv3d_transpose(
        XT3, WT3, [1, 6, 4, 5, 4], [1, 2, 2, 2, 1], "SAME"), atol=ATOL["float32"]),
    "conv3d_transpose_valid_s1": Case(lambda tf: tf.nn.conv3d_transpose(
        XT3, WT3, [1, 4, 4, 4, 4], 1, "VALID"), atol=ATOL["float32"]),
    "conv_transpose_3d": Case(lambda tf: tf.nn.conv_transpose(
        XT3, WT3, [1, 6, 4, 5, 4], 2, "SAME"), atol=ATOL["float32"]),
    "conv_transpose_1d": Case(lambda tf: tf.nn.conv_transpose(
        XT1, WT1, [2, 10, 4], 2, "SAME"), atol=ATOL["float32"]),
})
GRADIENTS.update({
    "conv1d_transpose": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv1d_transpose(x, w, [2, 9, 4], 2, "SAME"), tf, 21), [XT1, WT1],
        atol=GRAD_ATOL),
    "conv3d_transpose": Grad(lambda tf, x, w: _sum_weighted(
        tf.nn.conv3d_transpose(x, w, [1, 6, 4, 5, 4], [1, 2, 2, 2, 1], "SAME"), tf, 22),
        [XT3, WT3], atol=GRAD_ATOL),
})
