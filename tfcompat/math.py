"""`tf.math`: the math ops of the TF subset (re-exports only)."""

from .ops.indexing_ops import unsorted_segment_sum
from .ops.math_ops import (abs, add, divide, equal, floordiv, floormod, greater, greater_equal,
                           less, less_equal, logical_and, logical_not, logical_or, logical_xor,
                           maximum, minimum, mod, multiply, negative, not_equal, pow, subtract,
                           truediv)
from .ops.nn_ops import log_softmax, softmax
from .ops.reduction_ops import (add_n, argmax, cumsum, reduce_all, reduce_any, reduce_max,
                                reduce_mean, reduce_min, reduce_prod, reduce_sum)
from .ops.unary_ops import exp, log, rsqrt, sigmoid, sign, sqrt, square, tanh
from .ops.binary_math_ops import (atan2, divide_no_nan, multiply_no_nan, polyval,
                                  squared_difference, xdivy, xlogy)
from .ops.complex_ops import angle, conj, imag, real
from .ops.counting_ops import bincount, confusion_matrix, in_top_k, invert_permutation
from .ops.reduction_math_ops import (accumulate_n, approx_max_k, approx_min_k, argmin,
                                     count_nonzero, cumprod, reduce_euclidean_norm,
                                     reduce_logsumexp, reduce_std, reduce_variance)
from .ops.normalization_ops import l2_normalize
from .ops.segment_ops import (segment_max, segment_mean, segment_min, segment_prod, segment_sum,
                              unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
                              unsorted_segment_prod, unsorted_segment_sqrt_n)
from .ops.special_math_ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e,
                                   cumulative_logsumexp, erfcinv, erfinv, igamma, igammac,
                                   is_non_decreasing, is_strictly_increasing, lbeta, ndtri,
                                   nextafter, polygamma, reciprocal_no_nan, scalar_mul, xlog1py,
                                   zero_fraction, zeta)
from .ops.unary_math_ops import (acos, acosh, asin, asinh, atan, atanh, ceil, cos, cosh, digamma,
                                 erf, erfc, expm1, floor, is_finite, is_inf, is_nan, lgamma,
                                 log1p, log_sigmoid, reciprocal, rint, round, sin, sinh, softplus,
                                 softsign, tan)
from .ops.sort_ops import top_k

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow",
    "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "sigmoid", "tanh",
    "maximum", "minimum", "add_n",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
    "reduce_all", "argmax", "cumsum", "unsorted_segment_sum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "softmax", "log_softmax",
]

# -- issue 9 (engineer D) --
__all__ += [
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh", "acosh",
    "atanh", "log1p", "expm1", "log_sigmoid", "softplus", "softsign", "reciprocal", "round",
    "floor", "ceil", "rint", "erf", "erfc", "lgamma", "digamma", "squared_difference",
    "divide_no_nan", "multiply_no_nan", "xlogy", "xdivy", "is_nan", "is_inf", "is_finite",
    "reduce_logsumexp", "reduce_std", "reduce_variance", "reduce_euclidean_norm", "cumprod",
    "argmin", "count_nonzero", "bincount", "segment_sum", "segment_mean", "segment_max",
    "segment_min", "segment_prod", "unsorted_segment_mean", "unsorted_segment_max",
    "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n", "polyval",
    "accumulate_n", "conj", "real", "imag", "angle", "confusion_matrix", "in_top_k",
]
__all__ += ["top_k"]
__all__ += [
    "erfinv", "ndtri", "erfcinv", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "igamma",
    "igammac", "zeta", "polygamma", "lbeta", "xlog1py", "reciprocal_no_nan", "nextafter",
    "cumulative_logsumexp", "is_non_decreasing", "is_strictly_increasing", "zero_fraction",
    "scalar_mul", "l2_normalize", "invert_permutation", "approx_max_k", "approx_min_k",
]
