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
__all__ += ["top_k"]
