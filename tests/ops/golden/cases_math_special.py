"""Golden cases for the special functions and small helpers of `tf.math` (engineer D):
`erfinv`, `ndtri`, `erfcinv`, the Bessel functions, `igamma`/`igammac`, `zeta`,
`polygamma`, `lbeta`, `xlog1py`, `reciprocal_no_nan`, `nextafter`, `cumulative_logsumexp`,
`is_non_decreasing`/`is_strictly_increasing`, `zero_fraction`, `scalar_mul`.

Special functions keep the default 4 ulps unless a comment says otherwise (Eigen's and
torch's series/continued fractions differ); exact operations are `ulps=0`.
"""

import numpy as np

from tests.ops.golden.harness import Case, Grad

INF, NAN = np.inf, np.nan
P = np.array([0.0, 1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0, -0.5, 1.5, NAN], np.float32)
E = np.array([-1.0, -0.999, -0.5, 0.0, 0.25, 0.75, 0.9999, 1.0, 1.5, NAN], np.float32)
C = np.array([0.0, 1e-6, 0.1, 0.5, 1.0, 1.5, 1.9, 2.0, 2.5], np.float32)
B = np.linspace(-12, 12, 25).astype(np.float32)
A = np.array([0.5, 1.0, 2.0, 5.0, 10.0, 0.1], np.float32)
XS = np.array([0.1, 1.0, 2.5, 5.0, 12.0, 0.0], np.float32)
M = np.array([[1.0, 2.0, -0.5], [3.0, 0.25, 4.0]], np.float32)

CASES = {
    "erfinv_f32": lambda tf: tf.math.erfinv(E),
    "erfinv_f64": lambda tf: tf.math.erfinv(E.astype(np.float64)),
    "erfinv_f16_error": lambda tf: tf.math.erfinv(E.astype(np.float16)),
    "erfinv_int_error": lambda tf: tf.math.erfinv([0, 1]),
    "ndtri_f32": lambda tf: tf.math.ndtri(P),
    "ndtri_f64": lambda tf: tf.math.ndtri(P.astype(np.float64)),
    "erfcinv_f32": lambda tf: tf.math.erfcinv(C),
    "erfcinv_f64": lambda tf: tf.math.erfcinv(C.astype(np.float64)),
    "erfcinv_int_error": lambda tf: tf.math.erfcinv([1, 2]),
    "reciprocal_no_nan": Case(lambda tf: tf.math.reciprocal_no_nan([0.0, 2.0, -0.0, INF, NAN]),
                              ulps=0),
    "reciprocal_no_nan_complex": lambda tf: tf.math.reciprocal_no_nan(
        np.array([0j, 1 + 1j], np.complex64)),
    "reciprocal_no_nan_int_error": lambda tf: tf.math.reciprocal_no_nan([0, 2]),
    "xlog1py": lambda tf: tf.math.xlog1py([0.0, 0.0, 1.0, 2.0, 0.0, -1.0], [NAN, -1.0, -1.0, 0.5,
                                                                          -2.0, 1e-7]),
    "xlog1py_f16": Case(lambda tf: tf.math.xlog1py(np.array([0.0, 1.0, 2.0], np.float16),
                                                   np.array([NAN, 0.5, 3.0], np.float16)), ulps=0),
    "xlog1py_int_error": lambda tf: tf.math.xlog1py([1], [2]),
    "nextafter": Case(lambda tf: tf.math.nextafter([1.0, 1.0, 0.0, -0.0, INF, NAN],
                                                   [2.0, 0.0, 1.0, -1.0, 0.0, 1.0]), ulps=0),
    # (tensors: TF converts NumPy float64/float16 inputs of NextAfter to its default float32)
    "nextafter_f64": Case(lambda tf: tf.math.nextafter(tf.constant([1.0, 0.0], tf.float64),
                                                       tf.constant([2.0, -1.0], tf.float64)),
                          ulps=0),
    "nextafter_f16_error": lambda tf: tf.math.nextafter(tf.ones([2], tf.float16),
                                                        tf.zeros([2], tf.float16)),
    # Eigen's and torch's incomplete-gamma series/continued fractions: up to ~8 ulps in float32
    "igamma": Case(lambda tf: tf.math.igamma(A[:, None], XS[None, :]), atol=1e-6),
    "igammac": Case(lambda tf: tf.math.igammac(A[:, None], XS[None, :]), atol=1e-6),
    "igamma_f64": lambda tf: tf.math.igamma(A.astype(np.float64), XS.astype(np.float64)),
    "igamma_f16_error": lambda tf: tf.math.igamma(A.astype(np.float16), XS.astype(np.float16)),
    "zeta": lambda tf: tf.math.zeta([2.0, 1.0, 0.5, 3.0, 4.5], [1.0, 2.0, 3.0, 0.5, 2.0]),
    "zeta_f64": lambda tf: tf.math.zeta(np.array([2.0, 3.0, 6.0]), np.array([1.0, 2.0, 0.25])),
    "zeta_f16_error": lambda tf: tf.math.zeta(np.ones(2, np.float16), np.ones(2, np.float16)),
    "polygamma": lambda tf: tf.math.polygamma([0.0, 1.0, 2.0, 3.0, 2.5, -1.0], [1.0, 2.0, 3.0,
                                                                             0.5, 1.0, 1.0]),
    "polygamma_f64": lambda tf: tf.math.polygamma(np.array([1.0, 2.0, 4.0]),
                                                  np.array([0.25, 5.0, 2.0])),
    "polygamma_broadcast": lambda tf: tf.math.polygamma(1.0, XS[:5]),
    "lbeta": lambda tf: tf.math.lbeta(M),
    "lbeta_empty": lambda tf: tf.math.lbeta(np.zeros([2, 0], np.float32)),
    "lbeta_f64": lambda tf: tf.math.lbeta(np.array([[0.5, 0.5], [2.0, 3.0]])),
    "lbeta_bf16_error": lambda tf: tf.math.lbeta(tf.constant([[1.0, 2.0]], tf.bfloat16)),
    "cumulative_logsumexp": lambda tf: tf.math.cumulative_logsumexp(M, axis=1),
    "cumulative_logsumexp_exclusive_reverse": lambda tf: tf.math.cumulative_logsumexp(
        [1.0, 2.0, 3.0], exclusive=True, reverse=True),
    "cumulative_logsumexp_axis0": lambda tf: tf.math.cumulative_logsumexp(M, axis=0,
                                                                          exclusive=True),
    "cumulative_logsumexp_int_error": lambda tf: tf.math.cumulative_logsumexp([1, 2]),
    "is_non_decreasing": lambda tf: tf.math.is_non_decreasing([[1, 2], [2, 3]]),
    "is_non_decreasing_false": lambda tf: tf.math.is_non_decreasing([1.0, 0.5]),
    "is_non_decreasing_empty": lambda tf: tf.math.is_non_decreasing(np.zeros([0], np.float32)),
    "is_strictly_increasing_ties": lambda tf: tf.math.is_strictly_increasing([1, 2, 2]),
    "is_strictly_increasing": lambda tf: tf.math.is_strictly_increasing([1.0, 2.0, 5.0]),
    "is_strictly_increasing_complex_error": lambda tf: tf.math.is_strictly_increasing(
        np.array([1j, 2j], np.complex64)),
    "zero_fraction": lambda tf: tf.math.zero_fraction([0, 1, 0]),
    "zero_fraction_float": lambda tf: tf.math.zero_fraction(np.array([[0.0, -0.0], [NAN, 1.0]])),
    "zero_fraction_empty": lambda tf: tf.math.zero_fraction(np.zeros([0], np.float32)),
    "zero_fraction_bool": lambda tf: tf.math.zero_fraction([True, False, False, False]),
    "scalar_mul": Case(lambda tf: tf.math.scalar_mul(2.5, tf.constant(M)), ulps=0),
    "scalar_mul_tensor": Case(lambda tf: tf.math.scalar_mul(tf.constant(3.0), M), ulps=0),
    "scalar_mul_vector_error": lambda tf: tf.math.scalar_mul([1.0, 2.0], tf.constant([1.0, 2.0])),
    "scalar_mul_int": lambda tf: tf.math.scalar_mul(2, tf.constant([1, 2])),
}
for _fn in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
    # Chebyshev coefficient sets differ (Cephes in both, evaluated differently): 8 ulps in float32
    CASES[f"{_fn}_f32"] = (lambda f: Case(lambda tf: getattr(tf.math, f)(B), ulps=8))(_fn)
    CASES[f"{_fn}_f64"] = (lambda f: lambda tf: getattr(tf.math, f)(B.astype(np.float64)))(_fn)
    CASES[f"{_fn}_f16"] = (lambda f: Case(lambda tf: getattr(tf.math, f)(
        np.linspace(-5, 5, 21).astype(np.float16)), ulps=0))(_fn)
    CASES[f"{_fn}_bf16_error"] = (lambda f: lambda tf: getattr(tf.math, f)(
        tf.constant([1.0], tf.bfloat16)))(_fn)
    CASES[f"{_fn}_int_error"] = (lambda f: lambda tf: getattr(tf.math, f)([1, 2]))(_fn)

GRADIENTS = {
    # (the gradients of erfinv and the Bessel functions are built from the functions' own
    # values, so they inherit the 8-ulp differences above)
    "erfinv": Grad(lambda tf, x: tf.reduce_sum(tf.math.erfinv(x)),
                   [np.array([-0.9, -0.3, 0.0, 0.5, 0.8], np.float32)], ulps=8),
    "ndtri": Grad(lambda tf, x: tf.reduce_sum(tf.math.ndtri(x)),
                  [np.array([0.05, 0.3, 0.5, 0.9], np.float32)]),
    "bessel_i0e": Grad(lambda tf, x: tf.reduce_sum(tf.math.bessel_i0e(x)), [B[::3]], atol=1e-7),
    "bessel_i1": Grad(lambda tf, x: tf.reduce_sum(tf.math.bessel_i1(x)), [B[6:19:2]]),
    "xlog1py": Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xlog1py(x, y)),
                    [np.array([0.0, 1.0, 2.0], np.float32), np.array([-1.0, 0.5, 3.0], np.float32)]),
    "reciprocal_no_nan": Grad(lambda tf, x: tf.reduce_sum(tf.math.reciprocal_no_nan(x)),
                              [np.array([0.0, 2.0, -0.5], np.float32)]),
    "cumulative_logsumexp": Grad(lambda tf, x: tf.reduce_sum(tf.math.cumulative_logsumexp(
        x, axis=1)), [M]),
    "lbeta": Grad(lambda tf, x: tf.reduce_sum(tf.math.lbeta(x)),
                  [np.array([[1.0, 2.0, 0.5], [3.0, 0.25, 4.0]], np.float32)]),
    "igamma_x": Grad(lambda tf, x: tf.reduce_sum(tf.math.igamma(np.float32(2.0), x)),
                     [np.array([0.5, 1.0, 3.0], np.float32)]),
}

# Gradients at the special values, where TF's formulas give NaN or inf.
GRAD_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-30, 0.5], np.float32)
for _fn in ("erfinv", "ndtri", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e",
            "reciprocal_no_nan", "erfcinv"):
    GRADIENTS[f"{_fn}_special_points"] = (lambda f: Grad(
        lambda tf, v: tf.reduce_sum(getattr(tf.math, f)(v)), [GRAD_SPECIAL],
        atol=float(np.finfo(np.float32).tiny)))(_fn)
GRADIENTS["xlog1py_special_points"] = Grad(lambda tf, x, y: tf.reduce_sum(tf.math.xlog1py(x, y)),
                                           [GRAD_SPECIAL, GRAD_SPECIAL[::-1].copy()])
# (in x only: tfcompat has no derivative in a, see igamma's docstring)
GRADIENTS["igamma_special_points"] = Grad(lambda tf, x: tf.reduce_sum(tf.math.igamma(
    np.array([1.0, 2.0, 0.5], np.float32), x)), [np.array([0.0, INF, 1e-30], np.float32)])
