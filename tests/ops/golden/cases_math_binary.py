"""Golden cases for the binary `tf.math` ops of issue 9 (engineer D): `atan2`,
`squared_difference`, `truncatediv`/`truncatemod`, the NaN-safe `divide_no_nan`,
`multiply_no_nan`, `xlogy`, `xdivy`, and `polyval`.

Arithmetic that both sides round once (`squared_difference`, truncation, the NaN-safe
products and quotients, `polyval`'s Horner steps) is compared bit-exact (`ulps=0`);
`atan2` keeps the default 4 ulps in float32/float64 (Eigen vs SLEEF polynomials) and is
bit-exact in half precision (computed in float32 and rounded once on both sides).
"""

import numpy as np
import ml_dtypes

from tests.ops.golden.harness import Case, Grad

INF, NAN = np.inf, np.nan
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.5, INF, -INF, NAN, 1e-30, 7.0], np.float32)
# every pair of the special values
SX, SY = np.meshgrid(SPECIAL, SPECIAL)
SX, SY = SX.ravel(), SY.ravel()
RNG = np.random.RandomState(9)
A = RNG.uniform(-5, 5, (3, 4)).astype(np.float32)
B = RNG.uniform(-5, 5, (4,)).astype(np.float32)
I32 = np.array([-7, 7, -7, 7, 0, 5, -2147483648, 2147483647, -1], np.int32)
J32 = np.array([2, -2, -2, 2, 3, 5, -1, -1, 3], np.int32)
BF = ml_dtypes.bfloat16

CASES = {
    # atan2(y, x)
    "atan2_f32_special": lambda tf: tf.math.atan2(SY, SX),
    "atan2_f64": lambda tf: tf.math.atan2(A.astype(np.float64), B.astype(np.float64)),
    "atan2_f32_broadcast": lambda tf: tf.math.atan2(A, B),
    "atan2_f16": Case(lambda tf: tf.math.atan2(A.astype(np.float16), B.astype(np.float16)),
                      ulps=0),
    "atan2_bf16": Case(lambda tf: tf.math.atan2(tf.cast(A, tf.bfloat16), tf.cast(B, tf.bfloat16)),
                       ulps=0),
    "atan2_top_level": lambda tf: tf.atan2([1.0, -1.0], [0.0, 0.0]),
    "atan2_python": lambda tf: tf.math.atan2(1.0, 2.0),
    "atan2_int_error": lambda tf: tf.math.atan2([1, 2], [1, 2]),
    "atan2_mixed_error": lambda tf: tf.math.atan2(tf.constant([1.0]), tf.constant([1.0], tf.float64)),
    "atan2_shape_error": lambda tf: tf.math.atan2(tf.ones([2, 3]), tf.ones([4, 3])),
    "atan2_variable": lambda tf: tf.math.atan2(tf.Variable([1.0, 2.0]), 3.0),
    # squared_difference
    "sqdiff_f32": Case(lambda tf: tf.math.squared_difference(A, B), ulps=0),
    "sqdiff_special": Case(lambda tf: tf.math.squared_difference(SX, SY), ulps=0),
    "sqdiff_int32": lambda tf: tf.math.squared_difference([1, 5, -3], [4, -5, 46341]),
    "sqdiff_int64": lambda tf: tf.math.squared_difference(tf.constant([1, 5], tf.int64), 3),
    "sqdiff_int8_error": lambda tf: tf.math.squared_difference(tf.constant([1], tf.int8),
                                                               tf.constant([2], tf.int8)),
    "sqdiff_complex": Case(lambda tf: tf.math.squared_difference(
        np.array([1 + 2j, 3 - 1j], np.complex64), np.array([0.5j, 1 + 1j], np.complex64)), ulps=0),
    "sqdiff_f16": Case(lambda tf: tf.math.squared_difference(A.astype(np.float16),
                                                             B.astype(np.float16)), ulps=0),
    "sqdiff_bf16": Case(lambda tf: tf.math.squared_difference(tf.cast(A, tf.bfloat16),
                                                              tf.cast(B, tf.bfloat16)), ulps=0),
    "sqdiff_python_float_on_int": lambda tf: tf.math.squared_difference([1, 2], 2.5),
    # truncatediv / truncatemod
    "truncatediv_int32": lambda tf: tf.truncatediv(I32, J32),
    "truncatemod_int32": lambda tf: tf.truncatemod(I32, J32),
    "truncatediv_int64": lambda tf: tf.truncatediv(I32.astype(np.int64), J32.astype(np.int64)),
    "truncatemod_int64": lambda tf: tf.truncatemod(I32.astype(np.int64), J32.astype(np.int64)),
    "truncatediv_int8": lambda tf: tf.truncatediv(np.array([-128, 7, -7], np.int8),
                                                  np.array([-1, 2, 2], np.int8)),
    "truncatediv_uint8": lambda tf: tf.truncatediv(np.array([255, 7], np.uint8),
                                                   np.array([2, 3], np.uint8)),
    "truncatediv_zero_error": lambda tf: tf.truncatediv(tf.constant([1, 2]), tf.constant([0, 1])),
    "truncatemod_zero_error": lambda tf: tf.truncatemod(tf.constant([1, 2]), tf.constant([0, 1])),
    "truncatediv_python_zero": lambda tf: tf.truncatediv(tf.constant([1, 2]), 0),
    "truncatediv_f32": Case(lambda tf: tf.truncatediv(SX, SY), ulps=0),
    "truncatemod_f32": Case(lambda tf: tf.truncatemod(SX, SY), ulps=0),
    "truncatemod_f64": Case(lambda tf: tf.truncatemod(A.astype(np.float64), B.astype(np.float64)),
                            ulps=0),
    "truncatediv_f16": Case(lambda tf: tf.truncatediv(A.astype(np.float16), B.astype(np.float16)),
                            ulps=0),
    "truncatemod_f16_error": lambda tf: tf.truncatemod(A.astype(np.float16), B.astype(np.float16)),
    "truncatemod_int8_error": lambda tf: tf.truncatemod(np.array([1], np.int8),
                                                        np.array([1], np.int8)),
    "truncatediv_complex_error": lambda tf: tf.truncatediv(np.array([1j], np.complex64),
                                                           np.array([1j], np.complex64)),
    "truncatediv_bool_error": lambda tf: tf.truncatediv([True], [True]),
    # divide_no_nan
    "div_no_nan_special": Case(lambda tf: tf.math.divide_no_nan(SX, SY), ulps=0),
    "div_no_nan_broadcast": Case(lambda tf: tf.math.divide_no_nan(A, np.array([0.0, 1.0, -2.0, 0.0],
                                                                               np.float32)),
                                 ulps=0),
    "div_no_nan_int32": lambda tf: tf.math.divide_no_nan(tf.constant([1, 2, 3]), tf.constant([0, 2, 4])),
    "div_no_nan_int8": lambda tf: tf.math.divide_no_nan(tf.constant([1, 2], tf.int8),
                                                        tf.constant([0, 3], tf.int8)),
    "div_no_nan_python": lambda tf: tf.math.divide_no_nan(1, 0),
    "div_no_nan_python_x": lambda tf: tf.math.divide_no_nan(3, tf.constant([0.0, 2.0], tf.float64)),
    "div_no_nan_hint": lambda tf: tf.math.divide_no_nan(tf.constant([3.0]), 2),
    "div_no_nan_mismatch": lambda tf: tf.math.divide_no_nan(tf.constant([1.0]),
                                                            tf.constant([1.0], tf.float64)),
    "div_no_nan_bool": lambda tf: tf.math.divide_no_nan(tf.constant([True]), tf.constant([True])),
    "div_no_nan_f16": Case(lambda tf: tf.math.divide_no_nan(SX.astype(np.float16),
                                                            SY.astype(np.float16)), ulps=0),
    "div_no_nan_complex": lambda tf: tf.math.divide_no_nan(np.array([1 + 1j, 2j], np.complex64),
                                                           np.array([0j, 1 - 1j], np.complex64)),
    "div_no_nan_shape_error": lambda tf: tf.math.divide_no_nan(tf.ones([2]), tf.ones([3])),
    # multiply_no_nan
    "mul_no_nan_special": Case(lambda tf: tf.math.multiply_no_nan(SX, SY), ulps=0),
    "mul_no_nan_int_error": lambda tf: tf.math.multiply_no_nan(tf.constant([1]), tf.constant([0])),
    "mul_no_nan_mismatch": lambda tf: tf.math.multiply_no_nan(tf.constant([1.0]),
                                                              tf.constant([1.0], tf.float64)),
    "mul_no_nan_python_y": lambda tf: tf.math.multiply_no_nan(tf.constant([INF, 2.0]), 0.0),
    "mul_no_nan_bf16": Case(lambda tf: tf.math.multiply_no_nan(tf.cast(SX, tf.bfloat16),
                                                               tf.cast(SY, tf.bfloat16)), ulps=0),
    # xlogy / xdivy
    "xlogy_special": lambda tf: tf.math.xlogy(SX, SY),
    "xlogy_f64": lambda tf: tf.math.xlogy(A.astype(np.float64), np.abs(B).astype(np.float64)),
    "xlogy_f16": Case(lambda tf: tf.math.xlogy(SX.astype(np.float16), SY.astype(np.float16)),
                      ulps=0),
    "xlogy_broadcast": lambda tf: tf.math.xlogy(A, np.abs(B)),
    "xlogy_complex": lambda tf: tf.math.xlogy(np.array([0j, 1 + 1j], np.complex64),
                                              np.array([0j, 2 - 1j], np.complex64)),
    "xlogy_int_error": lambda tf: tf.math.xlogy([1], [2]),
    "xdivy_special": Case(lambda tf: tf.math.xdivy(SX, SY), ulps=0),
    "xdivy_bf16": Case(lambda tf: tf.math.xdivy(tf.cast(SX, tf.bfloat16), tf.cast(SY, tf.bfloat16)),
                       ulps=0),
    "xdivy_python": lambda tf: tf.math.xdivy(0.0, 0.0),
    # polyval
    "polyval_f32": Case(lambda tf: tf.math.polyval([1.5, -2.0, 0.25, 3.0], A), ulps=0),
    "polyval_tensor_coeffs": Case(lambda tf: tf.math.polyval(
        [tf.constant([1.0, 2.0]), tf.constant([0.5, -1.0])], np.float32(3.0)), ulps=0),
    "polyval_int": lambda tf: tf.math.polyval([2, -1, 3], tf.constant([1, 2, 3])),
    "polyval_empty": lambda tf: tf.math.polyval([], tf.constant([1.0, 2.0])),
    "polyval_not_list": lambda tf: tf.math.polyval((1.0, 2.0), 3.0),
    "polyval_f16": Case(lambda tf: tf.math.polyval([1.5, -2.0, 0.25], A.astype(np.float16)), ulps=0),
    "polyval_mixed_error": lambda tf: tf.math.polyval([1.5, 2.0], tf.constant([1, 2])),
}

POS = np.array([0.5, 1.0, 2.0, 3.5], np.float32)
GRADIENTS = {
    "atan2": Grad(lambda tf, y, x: tf.reduce_sum(tf.math.atan2(y, x)), [A, B]),
    "atan2_f64": Grad(lambda tf, y, x: tf.reduce_sum(tf.math.atan2(y, x)),
                      [A.astype(np.float64), B.astype(np.float64)]),
    "atan2_origin": Grad(lambda tf, y, x: tf.reduce_sum(tf.math.atan2(y, x)),
                         [np.array([0.0, 0.0, 1.0], np.float32), np.array([0.0, -1.0, 0.0],
                                                                          np.float32)]),
    "atan2_f16": Grad(lambda tf, y, x: tf.reduce_sum(tf.math.atan2(y, x)),
                      [A.astype(np.float16), B.astype(np.float16)]),
    "squared_difference": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.squared_difference(x, y)),
                               [A, B], ulps=0),
    "xlogy": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xlogy(x, y)),
                  [np.array([0.0, 0.0, 1.0, 2.0, 0.0], np.float32),
                   np.array([0.0, 3.0, 0.0, 2.0, NAN], np.float32)]),
    "xlogy_broadcast": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xlogy(x, y)), [A, POS]),
    "xdivy": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xdivy(x, y)),
                  [np.array([0.0, 0.0, 1.0, 2.0], np.float32),
                   np.array([0.0, 3.0, 0.0, 2.0], np.float32)]),
    "divide_no_nan": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.divide_no_nan(x, y)),
                          [np.array([1.0, 0.0, 2.0, 3.0], np.float32),
                           np.array([0.0, 0.0, 4.0, -0.5], np.float32)], ulps=0),
    "divide_no_nan_broadcast": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.divide_no_nan(x, y)),
                                    [A, np.array([0.0, 1.0, -2.0, 0.5], np.float32)], ulps=0),
    "multiply_no_nan": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.multiply_no_nan(x, y)),
                            [np.array([INF, NAN, 1.0, 2.0], np.float32),
                             np.array([0.0, 0.0, NAN, 3.0], np.float32)], ulps=0),
    "multiply_no_nan_broadcast": Grad(lambda tf, x, y: tf.reduce_sum(
        tf.math.multiply_no_nan(x, y)), [A, np.array([0.0, 1.0, -2.0, 0.5], np.float32)], ulps=0),
    "truncatediv_float": Grad(lambda tf, x, y: tf.reduce_sum(tf.truncatediv(x, y) + x),
                              [A, B]),
    "truncatemod": Grad(lambda tf, x, y: tf.reduce_sum(tf.truncatemod(x, y)), [A, B]),
    "squared_difference_special": Grad(lambda tf, x, y: tf.reduce_sum(
        tf.math.squared_difference(x, y)), [SX, SY], ulps=0),
    "atan2_special": Grad(lambda tf, y, x: tf.reduce_sum(tf.math.atan2(y, x)), [SY, SX]),
    "xdivy_special": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xdivy(x, y)), [SX, SY]),
    "xlogy_special": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xlogy(x, y)), [SX, SY]),
    "divide_no_nan_special": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.divide_no_nan(x, y)),
                                  [SX, SY]),
    "multiply_no_nan_special": Grad(lambda tf, x, y: tf.reduce_sum(
        tf.math.multiply_no_nan(x, y)), [SX, SY], ulps=0),
    "polyval": Grad(lambda tf, x: tf.reduce_sum(tf.math.polyval([1.5, -2.0, 0.25, 3.0], x)), [A]),
    # Pow: TF's gradient, log(x) taken as 0 for x <= 0 (torch's: NaN, -inf), unmasked
    # y * x^(y-1) (NaN at x = y = 0, torch's 0)
    "pow_special": Grad(lambda tf, x, y: tf.reduce_sum(tf.pow(x, y)), [SX, SY]),
    "pow_broadcast": Grad(lambda tf, x, y: tf.reduce_sum(tf.pow(x, y)),
                          [np.abs(A), np.array([0.0, 1.0, -2.0, 0.5], np.float32)]),
    "pow_f64_negative_base": Grad(lambda tf, x, y: tf.reduce_sum(tf.pow(x, y)),
                                  [np.array([-1.5, 0.0, 0.0, 2.0]), np.array([3.0, -2.0, 0.0, 0.5])]),
    "pow_f16": Grad(lambda tf, x, y: tf.reduce_sum(tf.pow(x, y)),
                    [np.abs(A).astype(np.float16), B.astype(np.float16)]),
    # FloorDiv: TF registers a None gradient (no contribution), not torch's floor's zeros
    "floordiv_float": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.floordiv(x, y) + x), [A, B]),
    "floordiv_only": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.floordiv(x, y)), [A, B]),
    "floormod": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.floormod(x, y)), [A, B]),
}
