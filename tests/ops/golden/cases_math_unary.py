"""Golden cases for the element-wise unary `tf.math` ops of issue 9 (engineer D).

Every op runs on a grid over its domain plus the special values (0, -0,
+-inf, NaN, tiny, huge) in float32, float64, float16 and bfloat16 (where
TF has a kernel), complex64 where TF allows it, and on the dtypes TF refuses
(`InvalidArgumentError` or `NotFoundError`). Tolerances: rounding,
classification, `softsign` and the half-precision cases are bit-exact
(`ulps=0`: TF and torch both compute each step in float32 and round once to
the dtype); float32/float64 transcendentals keep the default 4 ulps (TF's
Eigen and torch's SLEEF/libm polynomials differ by an ulp or two).
"""

import numpy as np
import ml_dtypes

from tests.ops.golden.harness import Case, Grad

INF, NAN = np.inf, np.nan
SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1e-8, -1e-8, 3e38, -3e38, 1.2e-38]

DOMAINS = {
    "sin": (-10, 10), "cos": (-10, 10), "tan": (-1.5, 1.5), "asin": (-1.25, 1.25),
    "acos": (-1.25, 1.25), "atan": (-20, 20), "sinh": (-12, 12), "cosh": (-12, 12),
    "asinh": (-30, 30), "acosh": (0.5, 30), "atanh": (-1.25, 1.25), "log1p": (-1.5, 10),
    "expm1": (-12, 12), "log_sigmoid": (-40, 40), "softplus": (-40, 40), "softsign": (-10, 10),
    "reciprocal": (-5, 5), "round": (-4, 4), "floor": (-4, 4), "ceil": (-4, 4), "rint": (-4, 4),
    "erf": (-4, 4), "erfc": (-4, 10), "lgamma": (-4.75, 12), "digamma": (-4.75, 12),
    "is_nan": (-2, 2), "is_inf": (-2, 2), "is_finite": (-2, 2),
}
COMPLEX_OK = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
              "atanh", "log1p", "expm1", "reciprocal"}
EXACT = {"round", "floor", "ceil", "rint", "softsign", "is_nan", "is_inf", "is_finite"}
NO_HALF = {"rint": ("float16", "bfloat16"), "lgamma": ("bfloat16",), "digamma": ("bfloat16",)}

NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
      "bfloat16": ml_dtypes.bfloat16}


def values(op, dtype):
    lo, hi = DOMAINS[op]
    grid = np.linspace(lo, hi, 57)
    if op in ("round", "rint", "floor", "ceil"):
        grid = np.concatenate([np.arange(-4, 4.25, 0.25), [2.5000002, 0.49999997, -2.4999998]])
    if op in ("lgamma", "digamma"):
        grid = np.concatenate([grid, [-3.0, -2.0, -1.0, 1.0, 2.0, 0.5, 1e-4]])
    with np.errstate(over="ignore"):  # special values beyond float16's range become inf, on purpose
        return np.concatenate([grid, SPECIAL]).astype(NP[dtype])


def _op(tf, name):
    return getattr(tf.math, name)


# TF's CPU threads flush denormal results to zero (FTZ); torch keeps them. float32 and
# bfloat16 results therefore get an absolute floor of float32's smallest normal.
FTZ = float(np.finfo(np.float32).tiny)
# Eigen's float32 digamma (its own series) and torch's differ by up to ~8 ulps near the
# roots and poles; an absolute 5e-7 bounds it on this grid.
# TF's float64 digamma is accurate to ~1e-15 absolute only.
ATOL = {("digamma", "float32"): 5e-7, ("digamma", "float64"): 5e-14}


def _unary_case(op, dtype):
    x = values(op, dtype)
    exact = op in EXACT or dtype in ("float16", "bfloat16")
    atol = ATOL.get((op, dtype), FTZ if dtype in ("float32", "bfloat16") else 0.0)
    if dtype == "bfloat16":
        return Case(lambda tf: _op(tf, op)(tf.cast(x.astype(np.float32), tf.bfloat16)),
                    ulps=0 if exact else None, atol=atol)
    return Case(lambda tf: _op(tf, op)(x), ulps=0 if exact else None, atol=atol)


CASES = {}
for _op_name in DOMAINS:
    for _dt in ("float32", "float64", "float16", "bfloat16"):
        CASES[f"{_op_name}_{_dt}"] = _unary_case(_op_name, _dt)
    CASES[f"{_op_name}_int32_error"] = (lambda n: lambda tf: _op(tf, n)([1, 2]))(_op_name)
    CASES[f"{_op_name}_bool_error"] = (lambda n: lambda tf: _op(tf, n)([True]))(_op_name)
    CASES[f"{_op_name}_uint8"] = (lambda n: lambda tf: _op(tf, n)(
        tf.constant([1, 2], dtype=tf.uint8)))(_op_name)
    CASES[f"{_op_name}_int64"] = (lambda n: lambda tf: _op(tf, n)(
        tf.constant([1, -2], dtype=tf.int64)))(_op_name)
    CASES[f"{_op_name}_complex64"] = (lambda n: lambda tf: _op(tf, n)(
        np.array([0.5 + 0.25j, -0.3 + 1.5j, 2.0 - 0.5j, 0j], np.complex64)))(_op_name)
    CASES[f"{_op_name}_variable"] = (lambda n: lambda tf: _op(tf, n)(
        tf.Variable([0.25, 0.5, 1.0])))(_op_name)
    CASES[f"{_op_name}_python_float"] = (lambda n: lambda tf: _op(tf, n)(0.75))(_op_name)

# Half precision near the softplus thresholds (float16: log(2^-10) + 2 = -4.93; bfloat16 -2.86).
CASES["softplus_f16_thresholds"] = Case(lambda tf: tf.math.softplus(
    np.linspace(-6, 6, 97).astype(np.float16)), ulps=0)
CASES["softplus_f16_pin"] = Case(lambda tf: tf.math.softplus(np.concatenate([
    np.arange(-7.25, -5.75, 1 / 128), np.arange(5.75, 7.25, 1 / 128)]).astype(np.float16)),
    ulps=0)
CASES["log_sigmoid_f16_pin"] = Case(lambda tf: tf.math.log_sigmoid(np.concatenate([
    np.arange(-7.25, -5.75, 1 / 128), np.arange(5.75, 7.25, 1 / 128)]).astype(np.float16)),
    ulps=0)
CASES["softplus_bf16_thresholds"] = Case(lambda tf: tf.math.softplus(
    tf.cast(np.linspace(-4, 4, 65).astype(np.float32), tf.bfloat16)), ulps=0)
# float32 exp/log1p: Eigen's and torch's polynomials differ by an ulp (default tolerance).
CASES["softplus_f32_thresholds"] = Case(lambda tf: tf.math.softplus(
    np.linspace(-16, 16, 129).astype(np.float32)), atol=FTZ)
CASES["log_sigmoid_f32_thresholds"] = Case(lambda tf: tf.math.log_sigmoid(
    np.linspace(-16, 16, 129).astype(np.float32)), atol=FTZ)
CASES["nn_softplus"] = lambda tf: tf.nn.softplus([-1.0, 0.0, 1.0])
CASES["nn_softsign"] = lambda tf: tf.nn.softsign([-1.0, 0.0, 3.0])
CASES["round_int_identity"] = lambda tf: tf.round([1, -2, 3])
CASES["round_int8"] = lambda tf: tf.round(tf.constant([1, -2], dtype=tf.int8))
CASES["round_half_even_f32"] = Case(lambda tf: tf.round(
    np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 8388607.5, 1e30], np.float32)), ulps=0)
CASES["floor_top_level"] = Case(lambda tf: tf.floor([-1.5, 1.5]), ulps=0)
CASES["sin_top_level"] = lambda tf: tf.sin([0.5, 1.0])
CASES["atanh_top_level"] = lambda tf: tf.atanh([0.5, -0.25])
CASES["complex128_sin"] = lambda tf: tf.math.sin(np.array([1 + 1j, -2 + 0.5j], np.complex128))
CASES["is_nan_shape"] = lambda tf: tf.math.is_nan(np.full((2, 0, 3), 1.0, np.float32))
CASES["scalar_rank0"] = lambda tf: tf.math.expm1(np.float32(1e-5))


def _grad(op, dtype=np.float32):
    lo, hi = DOMAINS[op]
    span = (hi - lo) * 0.45
    x = np.linspace((lo + hi) / 2 - span, (lo + hi) / 2 + span, 13).astype(dtype)
    if op in ("lgamma", "digamma"):
        x = np.linspace(0.3, 9.0, 13).astype(dtype)
    if op in ("acosh",):
        x = np.linspace(1.1, 20, 13).astype(dtype)
    if op in ("asin", "acos", "atanh"):
        x = np.linspace(-0.9, 0.9, 13).astype(dtype)
    return Grad(lambda tf, v: tf.reduce_sum(getattr(tf.math, op)(v)), [x])


GRADIENTS = {}
for _op_name in DOMAINS:
    if _op_name.startswith("is_"):
        continue
    GRADIENTS[f"{_op_name}_f32"] = _grad(_op_name)
    GRADIENTS[f"{_op_name}_f64"] = _grad(_op_name, np.float64)
# TF's float64 gradients of lgamma/digamma (digamma, and polygamma(1, x) through Eigen's
# zeta) are accurate to ~1e-15 absolute and ~1e-10 relative respectively.
GRADIENTS["lgamma_f64"] = Grad(GRADIENTS["lgamma_f64"].fn, GRADIENTS["lgamma_f64"].inputs,
                               atol=1e-14)
GRADIENTS["digamma_f64"] = Grad(GRADIENTS["digamma_f64"].fn, GRADIENTS["digamma_f64"].inputs,
                                atol=2e-8)
# TF's half SoftplusGrad rounds Eigen's rational float32 sigmoid approximation to float16;
# torch's sigmoid is correctly rounded, so results that sit near a half midpoint differ by
# one float16 ulp (4 of these 19).
GRADIENTS["softplus_f16"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.softplus(v)),
                                 [np.linspace(-9, 9, 19).astype(np.float16)], ulps=1)
GRADIENTS["log_sigmoid_f16"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.log_sigmoid(v)),
                                    [np.linspace(-9, 9, 19).astype(np.float16)], ulps=1)
GRADIENTS["softsign_f16"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.softsign(v)),
                                 [np.linspace(-9, 9, 19).astype(np.float16)], ulps=0)
GRADIENTS["sin_f16"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.sin(v)),
                            [np.linspace(-9, 9, 19).astype(np.float16)], ulps=0)
GRADIENTS["lgamma_f16"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.lgamma(v)),
                               [np.array([0.25, 0.5, 1.0, 2.0, 5.5], np.float16)], ulps=0)
# TF's digamma gradient (Polygamma) has no float16 kernel: InvalidArgumentError.
GRADIENTS["digamma_f16_error"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.digamma(v)),
                                      [np.array([0.25, 0.5, 1.0, 2.0, 5.5], np.float16)])
GRADIENTS["softplus_extremes"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.softplus(v)),
                                      [np.array([-90, -30, -14, -13.9, 0, 13.9, 14, 30, 90],
                                                np.float32)])
GRADIENTS["log_sigmoid_extremes"] = Grad(lambda tf, v: tf.reduce_sum(tf.math.log_sigmoid(v)),
                                         [np.array([-90, -30, -14, 0, 14, 30, 90], np.float32)])
GRADIENTS["softplus_weighted"] = Grad(lambda tf, v: tf.reduce_sum(
    tf.multiply(tf.math.softplus(v), np.array([1.0, -2.0, 3.0], np.float32))),
    [np.array([-1.0, 0.5, 2.0], np.float32)])
GRADIENTS["round_plus_identity"] = Grad(lambda tf, v: tf.reduce_sum(tf.round(v) + v),
                                        [np.array([0.5, 1.5, 2.25], np.float32)])

# Gradients at the special values (0, +-1, +-inf, NaN, tiny): where TF's formulas give NaN or
# inf, tfcompat's must too.
GRAD_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-30, 2.0], np.float32)
for _op_name in DOMAINS:
    if _op_name.startswith("is_"):
        continue
    GRADIENTS[f"{_op_name}_special_points"] = (lambda n: Grad(
        lambda tf, v: tf.reduce_sum(getattr(tf.math, n)(v)), [GRAD_SPECIAL], atol=FTZ))(_op_name)
