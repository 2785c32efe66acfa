"""Golden cases for issue 9's `tf.math` reductions, scans, segments, counting and complex
ops (engineer D): `reduce_logsumexp`, `reduce_variance`/`std`, `reduce_euclidean_norm`,
`count_nonzero`, `argmin`, `cumprod`, `accumulate_n`, the sorted and unsorted segment
ops, `bincount`, `confusion_matrix`, `in_top_k`, `complex`/`real`/`imag`/`angle`/`conj`.

Selections, counts and integer results are exact; products, sums and scans in the order
both libraries use are bit-exact (`ulps=0`) where noted; float reductions whose summation
order differs (torch's vectorized sums vs Eigen's) keep the default 4 ulps.
"""

import numpy as np

from tests.ops.golden.harness import Case, Grad

INF, NAN = np.inf, np.nan
RNG = np.random.RandomState(90)
X = RNG.uniform(-3, 3, (3, 4, 5)).astype(np.float32)
M = np.array([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], np.float32)
D = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)
TIES = np.array([[1.0, 5.0], [5.0, 2.0], [5.0, 5.0], [3.0, 1.0]], np.float32)
IDS = [0, 0, 2, 2]
ZEROS = np.array([2.0, 0.0, 3.0, 0.0, 0.0, 4.0, 5.0], np.float32)


def _each(prefix, fn, dtypes):
    return {f"{prefix}_{d}": (lambda d: lambda tf: fn(tf, d))(d) for d in dtypes}


CASES = {
    # reduce_logsumexp
    "lse_all": lambda tf: tf.math.reduce_logsumexp(X),
    "lse_axis": lambda tf: tf.math.reduce_logsumexp(X, axis=1),
    "lse_axes_keepdims": lambda tf: tf.math.reduce_logsumexp(X, axis=[0, 2], keepdims=True),
    "lse_top_level": lambda tf: tf.reduce_logsumexp(M, axis=-1),
    "lse_inf": lambda tf: tf.math.reduce_logsumexp([[INF, 1.0], [-INF, -INF], [NAN, 1.0],
                                                    [1000.0, 1000.0]], axis=1),
    "lse_empty": lambda tf: tf.math.reduce_logsumexp(np.zeros([0, 3], np.float32), axis=0),
    # half precision: every step (max, subtract, exp, sum of 5, log, add) rounds to float16
    # on both sides, and a 5-term sum is added in the same order: bit-exact
    "lse_f16": Case(lambda tf: tf.math.reduce_logsumexp(X.astype(np.float16), axis=2), ulps=0),
    "lse_f64": lambda tf: tf.math.reduce_logsumexp(X.astype(np.float64), axis=0),
    "lse_int_error": lambda tf: tf.math.reduce_logsumexp([1, 2]),
    "lse_bad_axis": lambda tf: tf.math.reduce_logsumexp(M, axis=2),
    # variance / std
    # two passes over k terms (the mean, then the mean of squared deviations): the reduction
    # bound with n = 2k + 3 (harness.py's error model); the squares have one sign
    "var_all": Case(lambda tf: tf.math.reduce_variance(X), n=2 * 60 + 3),
    "var_axis": Case(lambda tf: tf.math.reduce_variance(X, axis=1), n=2 * 4 + 3),
    "var_axes_keepdims": Case(lambda tf: tf.math.reduce_variance(X, axis=[0, 2], keepdims=True),
                              n=2 * 15 + 3),
    "std_axis": Case(lambda tf: tf.math.reduce_std(X, axis=-1), n=2 * 5 + 4),
    "std_f64": Case(lambda tf: tf.math.reduce_std(X.astype(np.float64), axis=0), n=2 * 3 + 4),
    "var_f16": lambda tf: tf.math.reduce_variance(X.astype(np.float16), axis=2),
    "std_complex": lambda tf: tf.math.reduce_std(np.array([1 + 1j, 2 - 1j, -1j], np.complex64)),
    "var_int_error": lambda tf: tf.math.reduce_variance([1, 2, 3]),
    "std_bool_error": lambda tf: tf.math.reduce_std([True, False]),
    "var_variable": lambda tf: tf.math.reduce_variance(tf.Variable(M), axis=0),
    # euclidean norm
    "norm_all": lambda tf: tf.math.reduce_euclidean_norm(X),
    "norm_axis": lambda tf: tf.math.reduce_euclidean_norm(X, axis=[1, 2]),
    "norm_keepdims": lambda tf: tf.math.reduce_euclidean_norm(M, axis=1, keepdims=True),
    "norm_int": lambda tf: tf.math.reduce_euclidean_norm([[1, 1], [3, 4]], axis=1),
    "norm_int8_wrap": lambda tf: tf.math.reduce_euclidean_norm(np.array([100, 100], np.int8)),
    "norm_complex": lambda tf: tf.math.reduce_euclidean_norm(np.array([3 + 4j, 1j], np.complex64)),
    "norm_empty_axis": lambda tf: tf.math.reduce_euclidean_norm(M, axis=[]),
    "norm_f16": Case(lambda tf: tf.math.reduce_euclidean_norm(X.astype(np.float16), axis=0),
                     ulps=0),
    "norm_bool_error": lambda tf: tf.math.reduce_euclidean_norm([True]),
    # count_nonzero
    "cnz_axis": lambda tf: tf.math.count_nonzero([[0.0, 1.0], [NAN, 0.0]], axis=1),
    "cnz_dtype_keepdims": lambda tf: tf.math.count_nonzero([[0, 1], [2, 0]], dtype=tf.int32,
                                                           keepdims=True),
    "cnz_bool": lambda tf: tf.math.count_nonzero([True, False, True]),
    "cnz_float_dtype": lambda tf: tf.math.count_nonzero(X > 0, axis=0, dtype=tf.float32),
    # argmin
    "argmin_default": lambda tf: tf.math.argmin(X),
    "argmin_axis": lambda tf: tf.argmin(X, axis=2),
    "argmin_int32_out": lambda tf: tf.math.argmin(M, axis=1, output_type=tf.int32),
    "argmin_nan": lambda tf: tf.math.argmin([[NAN, 1.0, 0.0], [NAN, NAN, NAN], [2.0, NAN, -INF]],
                                            axis=1),
    "argmin_ties": lambda tf: tf.math.argmin([3, 1, 1, 2]),
    "argmin_bool": lambda tf: tf.math.argmin([True, False, False]),
    "argmin_uint8": lambda tf: tf.math.argmin(np.array([3, 1, 0], np.uint8)),
    "argmin_complex_error": lambda tf: tf.math.argmin(np.array([1j], np.complex64)),
    "argmin_bad_output": lambda tf: tf.math.argmin(M, output_type=tf.float32),
    "argmin_empty_error": lambda tf: tf.math.argmin(np.zeros([0, 2], np.float32)),
    "argmin_axis_error": lambda tf: tf.math.argmin(M, axis=3),
    # cumprod
    "cumprod": Case(lambda tf: tf.math.cumprod(M, axis=1), ulps=0),
    "cumprod_exclusive": Case(lambda tf: tf.math.cumprod(M, axis=1, exclusive=True), ulps=0),
    "cumprod_reverse": Case(lambda tf: tf.math.cumprod(M, axis=0, reverse=True), ulps=0),
    "cumprod_both": Case(lambda tf: tf.math.cumprod(X, axis=-1, exclusive=True, reverse=True),
                         ulps=0),
    "cumprod_int": lambda tf: tf.math.cumprod([1, 2, 3, 4], exclusive=True, reverse=True),
    "cumprod_int8_wrap": lambda tf: tf.math.cumprod(np.array([16, 16, 3], np.int8)),
    "cumprod_f16": Case(lambda tf: tf.math.cumprod(X.astype(np.float16), axis=2), ulps=0),
    "cumprod_complex": lambda tf: tf.math.cumprod(np.array([1 + 1j, 2j, 3], np.complex64)),
    "cumprod_bool_error": lambda tf: tf.math.cumprod([True, False]),
    "cumprod_axis_error": lambda tf: tf.math.cumprod(M, axis=2),
    # accumulate_n
    "accumulate_n": Case(lambda tf: tf.math.accumulate_n([M, M * 2, -M]), ulps=0),
    "accumulate_n_one": lambda tf: tf.math.accumulate_n([M]),
    "accumulate_n_python": lambda tf: tf.math.accumulate_n([[1.0, 2.0], [3.0, 4.0]]),
    "accumulate_n_shape_error": lambda tf: tf.math.accumulate_n([tf.constant([1.0]),
                                                                 tf.constant([1.0, 2.0])]),
    "accumulate_n_dtype_error": lambda tf: tf.math.accumulate_n([tf.constant([1.0]),
                                                                 tf.constant([1.0], tf.float64)]),
    "accumulate_n_tensor_dtype": lambda tf: tf.math.accumulate_n([tf.constant([1.0])],
                                                                 tensor_dtype=tf.float64),
    "accumulate_n_empty": lambda tf: tf.math.accumulate_n([]),
    "accumulate_n_shape_arg": lambda tf: tf.math.accumulate_n([tf.constant([1.0]),
                                                               tf.constant([2.0])], shape=[2]),
    # sorted segments
    "seg_unsorted_error": lambda tf: tf.math.segment_sum(D, [0, 2, 1, 1]),
    "seg_negative_error": lambda tf: tf.math.segment_max(D, [-1, 0, 1, 1]),
    "seg_length_error": lambda tf: tf.math.segment_mean(D, [0, 0, 1]),
    "seg_rank_error": lambda tf: tf.math.segment_min(D, [[0, 0], [1, 1]]),
    "seg_float_ids_error": lambda tf: tf.math.segment_sum(D, [0.0, 0.0, 1.0, 1.0]),
    "seg_max_complex_error": lambda tf: tf.math.segment_max(np.array([1j], np.complex64), [0]),
    "seg_empty": lambda tf: tf.math.segment_sum(np.zeros([0, 2], np.float32),
                                                np.zeros([0], np.int32)),
    "seg_int64_ids": lambda tf: tf.math.segment_sum(D, tf.constant([0, 0, 1, 1], tf.int64)),
    "seg_3d": lambda tf: tf.math.segment_sum(X, [0, 1, 1]),
    "seg_variable": lambda tf: tf.math.segment_mean(tf.Variable(D), IDS),
    # unsorted segments
    "useg_big_error": lambda tf: tf.math.unsorted_segment_max(D, [0, 0, 1, 7], 3),
    "useg_shape_error": lambda tf: tf.math.unsorted_segment_min(D, [[0, 1], [1, 1]], 3),
    "useg_negative_num": lambda tf: tf.math.unsorted_segment_prod(D, [0, 0, 1, 1], -1),
    "useg_mean_complex_error": lambda tf: tf.math.unsorted_segment_mean(
        np.array([1j], np.complex64), [0], 2),
    "useg_sqrt_n_int_error": lambda tf: tf.math.unsorted_segment_sqrt_n([1, 2, 3], [0, 0, 2], 4),
    "useg_max_nan": lambda tf: tf.math.unsorted_segment_max([1.0, NAN, 3.0, NAN], [0, 0, 1, 2],
                                                            3),
    "useg_min_nan": lambda tf: tf.math.unsorted_segment_min([1.0, NAN, 3.0, NAN], [0, 0, 1, 2],
                                                            3),
    "useg_max_2d_ids": lambda tf: tf.math.unsorted_segment_max(
        X, [[0, 1, 1, -1], [2, 0, 1, 1], [3, 3, 0, 0]], 5),
    "useg_num_tensor": lambda tf: tf.math.unsorted_segment_min(D, IDS, tf.constant(4, tf.int64)),
    # bincount
    "bincount": lambda tf: tf.math.bincount([1, 1, 3, 0]),
    "bincount_negative": lambda tf: tf.math.bincount([1, -1, 3]),
    "bincount_float_arr": lambda tf: tf.math.bincount([1.7, 2.2]),
    "bincount_minlength": lambda tf: tf.math.bincount([1, 1], minlength=5),
    "bincount_maxlength": lambda tf: tf.math.bincount([1, 1, 4], maxlength=2),
    "bincount_weights": Case(lambda tf: tf.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0]),
                             ulps=0),
    "bincount_weights_int64": lambda tf: tf.math.bincount([1, 1, 3], weights=tf.constant(
        [1, 2, 3], tf.int64)),
    "bincount_weights_f16_error": lambda tf: tf.math.bincount([1, 1, 3], weights=tf.constant(
        [1, 2, 3], tf.float16)),
    "bincount_weights_shape": lambda tf: tf.math.bincount([1, 1, 3], weights=[1.0, 2.0]),
    "bincount_dtype": lambda tf: tf.math.bincount([1, 1, 3], dtype=tf.float32),
    "bincount_binary": lambda tf: tf.math.bincount([1, 1, 3], binary_output=True),
    "bincount_binary_weights": lambda tf: tf.math.bincount([1, 1, 3], weights=[1.0, 2.0, 3.0],
                                                           binary_output=True),
    "bincount_axis_last": lambda tf: tf.math.bincount([[1, 1, 3], [0, 0, 0]], axis=-1),
    "bincount_axis_last_weights": lambda tf: tf.math.bincount(
        [[1, 1, 3], [0, 0, 0]], weights=[[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], axis=-1),
    "bincount_axis_last_binary": lambda tf: tf.math.bincount([[1, 1, 3], [0, 0, 0]], axis=-1,
                                                             binary_output=True, minlength=5),
    "bincount_axis_1": lambda tf: tf.math.bincount([[1, 1, 3]], axis=1),
    "bincount_empty": lambda tf: tf.math.bincount(np.zeros([0], np.int32)),
    "bincount_2d": lambda tf: tf.math.bincount([[1, 1], [3, 0]]),
    "bincount_int64": lambda tf: tf.math.bincount(tf.constant([1, 1, 3], tf.int64)),
    "bincount_uint8_error": lambda tf: tf.math.bincount(tf.constant([1, 1, 3], tf.uint8)),
    "bincount_rank3_error": lambda tf: tf.math.bincount(np.zeros([2, 2, 2], np.int32), axis=-1),
    # confusion_matrix
    "cm": lambda tf: tf.math.confusion_matrix([1, 2, 0], [1, 1, 0]),
    "cm_weights": lambda tf: tf.math.confusion_matrix([1, 2, 0], [1, 1, 0], num_classes=4,
                                                      weights=[1.0, 2.0, 3.0], dtype=tf.float32),
    "cm_negative": lambda tf: tf.math.confusion_matrix([1, -2, 0], [1, 1, 0]),
    "cm_out_of_bound": lambda tf: tf.math.confusion_matrix([1, 2, 0], [1, 1, 5], num_classes=3),
    "cm_squeeze": lambda tf: tf.math.confusion_matrix([[1], [2], [0]], [1, 1, 0]),
    "cm_float_labels": lambda tf: tf.math.confusion_matrix([1.7, 2.0, 0.0], [1, 1, 0]),
    "cm_weights_shape": lambda tf: tf.math.confusion_matrix([1, 2, 0], [1, 1, 0],
                                                            weights=[1.0, 2.0]),
    "cm_weights_cast": lambda tf: tf.math.confusion_matrix([1, 2, 0], [1, 1, 0],
                                                           weights=[1.5, 2.0, 3.0]),
    "cm_duplicates": lambda tf: tf.math.confusion_matrix([1, 1, 1], [1, 1, 0]),
    # in_top_k
    "in_top_k": lambda tf: tf.math.in_top_k([0, 1, 3], P, 2),
    "in_top_k_ties": lambda tf: tf.math.in_top_k([1, 2, 2], P, 1),
    "in_top_k_out_of_range": lambda tf: tf.math.in_top_k([4, -1, 3], P, 2),
    "in_top_k_nonfinite": lambda tf: tf.math.in_top_k(
        [0, 1, 2], tf.constant([[NAN, 1.0], [INF, 1.0], [1.0, -INF]]), 2),
    "in_top_k_f64_error": lambda tf: tf.math.in_top_k([0], tf.constant([[1.0]], tf.float64), 1),
    "in_top_k_k0": lambda tf: tf.math.in_top_k([0], tf.constant([[1.0]]), 0),
    "in_top_k_int64": lambda tf: tf.math.in_top_k(tf.constant([0], tf.int64), tf.constant([[1.0]]), 1),
    "in_top_k_shape_error": lambda tf: tf.math.in_top_k([0, 1], tf.constant([[1.0]]), 1),
    "in_top_k_rank_error": lambda tf: tf.math.in_top_k([0], tf.constant([1.0]), 1),
    "in_top_k_nn": lambda tf: tf.nn.in_top_k([0, 1, 3], P, 3),
    # approx_max_k (TF's CPU kernel: exact top k over the last axis; no approx_min_k on CPU)
    "approx_max_k": lambda tf: tf.math.approx_max_k(np.array([[1.0, 5.0, 3.0, 5.0],
                                                              [2.0, 0.0, 9.0, 1.0]], np.float32), 2),
    "approx_max_k_f16": lambda tf: tf.math.approx_max_k(X.astype(np.float16), 3),
    "approx_max_k_bf16": lambda tf: tf.math.approx_max_k(tf.cast(X, tf.bfloat16), 1),
    "approx_max_k_zero": lambda tf: tf.math.approx_max_k(M, 0),
    "approx_max_k_too_many": lambda tf: tf.math.approx_max_k(M, 4),
    "approx_max_k_scalar_error": lambda tf: tf.math.approx_max_k(np.float32(1.0), 1),
    "approx_max_k_f64_error": lambda tf: tf.math.approx_max_k(np.ones([2], np.float64), 1),
    # invert_permutation
    "invert_permutation": lambda tf: tf.math.invert_permutation([3, 4, 0, 2, 1]),
    "invert_permutation_int64": lambda tf: tf.math.invert_permutation(tf.constant([1, 0], tf.int64)),
    "invert_permutation_empty": lambda tf: tf.math.invert_permutation(np.zeros([0], np.int32)),
    "invert_permutation_duplicate": Case(lambda tf: tf.math.invert_permutation([0, 2, 0]),
                                         match_message=True),
    "invert_permutation_range": Case(lambda tf: tf.math.invert_permutation([0, 5, 1]),
                                     match_message=True),
    "invert_permutation_rank": lambda tf: tf.math.invert_permutation([[0]]),
    "invert_permutation_float": lambda tf: tf.math.invert_permutation([0.0]),
    # complex
    "complex": lambda tf: tf.complex([1.0, 2.0], [3.0, -4.0]),
    "complex_f64_broadcast": lambda tf: tf.complex(np.array([[1.0], [2.0]]), np.array([3.0, 4.0])),
    "complex_mixed_error": lambda tf: tf.complex(tf.constant([1.0]), tf.constant([1.0], tf.float64)),
    "complex_int_error": lambda tf: tf.complex([1, 2], [3, 4]),
    "real": Case(lambda tf: tf.math.real(np.array([1 + 2j, -3j], np.complex128)), ulps=0),
    "real_of_real": lambda tf: tf.math.real(M),
    "real_of_int": lambda tf: tf.math.real([1, 2]),
    "real_bool_error": lambda tf: tf.math.real([True]),
    "imag": Case(lambda tf: tf.math.imag(np.array([1 + 2j, -3j], np.complex64)), ulps=0),
    "imag_of_real": lambda tf: tf.math.imag(M),
    "imag_of_bool": lambda tf: tf.math.imag([True, False]),
    "angle": lambda tf: tf.math.angle(np.array([1 + 1j, -1 + 0j, -1j, 0j], np.complex64)),
    "angle_of_real": lambda tf: tf.math.angle([-1.0, 0.0, 2.0, NAN, -0.0]),
    "angle_of_int_error": lambda tf: tf.math.angle([1, -2]),
    "conj": lambda tf: tf.math.conj(np.array([1 + 2j, -3j], np.complex64)),
    "conj_of_real": lambda tf: tf.math.conj(M),
    "conj_of_int": lambda tf: tf.math.conj([1, 2]),
    "conj_bool_error": lambda tf: tf.math.conj([True]),
}

P = np.array([[1.2, -0.3, 2.8, 5.2], [0.1, 0.0, 0.0, 0.0], [0.0, 0.5, 0.3, 0.3]], np.float32)

_SORTED = {"sum": "segment_sum", "mean": "segment_mean", "max": "segment_max",
           "min": "segment_min", "prod": "segment_prod"}
for _k, _fn in _SORTED.items():
    CASES[f"{_fn}_gap"] = (lambda f: Case(lambda tf: getattr(tf.math, f)(D, IDS), ulps=0))(_fn)
    CASES[f"{_fn}_int"] = (lambda f: lambda tf: getattr(tf.math, f)([1, 2, 3, -5, 7], [0, 0, 3, 3, 4]))(_fn)
    CASES[f"{_fn}_f16"] = (lambda f: Case(lambda tf: getattr(tf.math, f)(
        X.astype(np.float16), [0, 0, 2]), ulps=0))(_fn)
    CASES[f"{_fn}_uint8"] = (lambda f: lambda tf: getattr(tf.math, f)(
        np.array([200, 100, 7], np.uint8), [0, 0, 1]))(_fn)
    CASES[f"{_fn}_complex"] = (lambda f: lambda tf: getattr(tf.math, f)(
        np.array([1 + 1j, 2, 3j], np.complex64), [0, 0, 1]))(_fn)
_UNSORTED = ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
             "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]
# Selections, and sums/products added in id order on both sides: bit-exact.
_UNSORTED_INPUTS = {
    "gap": lambda tf: (D, [0, 0, 3, 3], 5),
    "negative_ids": lambda tf: (D, [-1, 0, 1, 1], 3),
    "int32": lambda tf: ([1, 2, 3], [0, 0, 2], 4),
    "int8": lambda tf: (np.array([1, 2, 3], np.int8), [0, 0, 2], 4),
    "f16": lambda tf: (np.array([1, 2, 3], np.float16), [0, 0, 2], 4),
    "bf16": lambda tf: (tf.constant([1.5, 2.0, -3.0], tf.bfloat16), [0, 0, 2], 4),
    "f64_2d": lambda tf: (X.astype(np.float64), [[0, 1, 1, -1], [2, 0, 1, 1], [3, 3, 0, 0]], 5),
}
for _fn in _UNSORTED:
    for _kind, _args in _UNSORTED_INPUTS.items():
        CASES[f"{_fn}_{_kind}"] = (lambda f, a: Case(lambda tf: getattr(tf.math, f)(*a(tf)),
                                                     ulps=0))(_fn, _args)
# ... except f64_2d, whose segments gather up to 4 terms: their sum (and product) depends on
# the order the kernel adds them in (vector width, threads), so the reduction bound of the
# harness's error model applies: n roundings (3 additions, then mean's division, sqrt_n's
# sqrt and division), S the same op on |data|.
_F64_2D_ROUNDINGS = {"unsorted_segment_sum": 3, "unsorted_segment_mean": 4,
                     "unsorted_segment_sqrt_n": 5, "unsorted_segment_prod": 3}
for _fn, _n in _F64_2D_ROUNDINGS.items():
    _ids = [[0, 1, 1, -1], [2, 0, 1, 1], [3, 3, 0, 0]]
    CASES[f"{_fn}_f64_2d"] = (lambda f, n: Case(
        lambda tf: getattr(tf.math, f)(X.astype(np.float64), _ids, 5), ulps=0, n=n,
        terms=lambda tf: getattr(tf.math, f)(np.abs(X).astype(np.float64), _ids, 5)))(_fn, _n)

V = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]], np.float32)
GRADIENTS = {
    "logsumexp": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_logsumexp(x, axis=1)), [X]),
    "logsumexp_all": Grad(lambda tf, x: tf.math.reduce_logsumexp(x), [V]),
    "logsumexp_inf": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_logsumexp(x, axis=1)),
                          [np.array([[-INF, 1.0], [-INF, -INF]], np.float32)]),
    "variance": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_variance(x, axis=0)), [X]),
    # The gradient through the mean is a sum of deviations (~0, rounding noise that depends on
    # the summation order: Eigen's vs torch's), so an absolute 1e-9 on values ~1e-2.
    "std": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_std(x, axis=[1, 2])), [X], atol=1e-9),
    "std_constant": Grad(lambda tf, x: tf.math.reduce_std(x), [np.ones([3], np.float32)]),
    "euclidean_norm": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_euclidean_norm(x, axis=1)),
                           [X]),
    "euclidean_norm_zero": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_euclidean_norm(x,
                                                                                          axis=1)),
                                [np.array([[0.0, 0.0], [3.0, 4.0]], np.float32)]),
    "euclidean_norm_all_keepdims": Grad(lambda tf, x: tf.reduce_sum(
        tf.math.reduce_euclidean_norm(x, keepdims=True) * 2.0), [V]),
    "logsumexp_f16": Grad(lambda tf, x: tf.reduce_sum(tf.math.reduce_logsumexp(x, axis=0)),
                          [V.astype(np.float16)]),
    "unsorted_max_nan": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_max(
        x, [0, 0, 1, 1], 2)), [np.array([1.0, np.nan, 2.0, 2.0], np.float32)]),
    "cumprod_zeros": Grad(lambda tf, x: tf.reduce_sum(tf.math.cumprod(x)), [ZEROS]),
    "cumprod_exclusive_reverse": Grad(lambda tf, x: tf.reduce_sum(tf.math.cumprod(
        x, axis=1, exclusive=True, reverse=True)), [V]),
    "cumprod_no_zeros": Grad(lambda tf, x: tf.reduce_sum(tf.math.cumprod(x, axis=-1)), [X]),
    "segment_sum": Grad(lambda tf, x: tf.reduce_sum(tf.math.segment_sum(x, IDS) * 1.5), [D],
                        ulps=0),
    "segment_mean": Grad(lambda tf, x: tf.reduce_sum(tf.math.segment_mean(x, [0, 0, 0, 2])),
                         [D], ulps=0),
    "segment_max_ties": Grad(lambda tf, x: tf.reduce_sum(tf.math.segment_max(x, IDS)), [TIES],
                             ulps=0),
    "segment_min_ties": Grad(lambda tf, x: tf.reduce_sum(tf.math.segment_min(x, IDS)), [TIES],
                             ulps=0),
    "segment_prod": Grad(lambda tf, x: tf.reduce_sum(tf.math.segment_prod(x, [0, 0, 0, 1, 1, 2, 2])),
                         [ZEROS]),
    "unsorted_max_ties": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_max(
        x, [1, 1, 1, -1], 3)), [TIES], ulps=0),
    "unsorted_min_ties": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_min(
        x, [2, 2, 0, 2], 3)), [TIES], ulps=0),
    "unsorted_prod_zeros": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_prod(
        x, [0, 0, 1, 1, 1, 2, -1], 4)), [ZEROS]),
    "unsorted_mean": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_mean(
        x, [0, 0, 3, -1], 4)), [D], ulps=0),
    "unsorted_sqrt_n": Grad(lambda tf, x: tf.reduce_sum(tf.math.unsorted_segment_sqrt_n(
        x, [0, 0, 0, 1], 2)), [D]),
    "complex_parts": Grad(lambda tf, re, im: tf.reduce_sum(tf.math.real(tf.complex(re, im)) * 2.0
                                                           + tf.math.imag(tf.complex(re, im))),
                          [V, V * 3]),
    "accumulate_n": Grad(lambda tf, a, b: tf.reduce_sum(tf.math.accumulate_n([a, b, a])), [V, V]),
}
