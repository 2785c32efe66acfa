"""The TF op subset, as thin mappings over torch with TF's argument names and semantics.

This package re-exports, with `__all__`, exactly the ops TensorFlow exposes
at top level (`tf.add`, `tf.reshape`, `tf.reduce_sum`, ...); the `tf.math`,
`tf.nn`, `tf.random`, `tf.linalg` and `tf.bitwise` namespaces live in
`tfcompat/math.py`, `nn.py`, `random.py`, `linalg.py` and `bitwise.py`.
Each op lives in the module of its concept:

* `math_ops`: element-wise binary arithmetic, comparison, logic, `matmul`, `cast`
* `unary_ops`: `square`, `sqrt`, `exp`, `log`, `sign`, `sigmoid`, `tanh`, ...
* `reduction_ops`: `reduce_*`, `argmax`, `cumsum`, `add_n`
* `array_ops`: reshape, transpose, concat/stack/split, squeeze, tile, pad, shape
* `creation_ops`: zeros, ones, fill, range, one_hot and the `*_like` ops
* `indexing_ops`: gather/scatter, segments, `boolean_mask`, `where`, `unique`
* `nn_ops`, `clip_ops`, `random_ops`
* `unary_math_ops`, `binary_math_ops`, `special_math_ops`: the rest of `tf.math`'s
  element-wise ops (trigonometry, rounding, softplus, `xlogy`, `*_no_nan`, Bessel, ...)
* `reduction_math_ops`: `reduce_logsumexp/variance/std/euclidean_norm`, `argmin`, `cumprod`
* `segment_ops`: `segment_*` and `unsorted_segment_*` (`unsorted_segment_sum` is in `indexing_ops`)
* `counting_ops`: `bincount`, `confusion_matrix`, `in_top_k`; `complex_ops`: `complex`, `real`, ...
"""

from .array_ops import (concat, expand_dims, identity, pad, rank, reshape, shape, size, split,
                        squeeze, stack, stop_gradient, tile, transpose, unstack)
from .clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value
from .creation_ops import fill, one_hot, ones, ones_like, range, zeros, zeros_like
from .indexing_ops import (boolean_mask, gather, gather_nd, scatter_nd, tensor_scatter_nd_add,
                           tensor_scatter_nd_update, unique, where)
from .math_ops import (abs, add, cast, divide, equal, greater, greater_equal, less, less_equal,
                       logical_and, logical_not, logical_or, matmul, maximum, minimum, multiply,
                       negative, not_equal, pow, saturate_cast, subtract, truediv)
from .reduction_ops import (add_n, argmax, cumsum, reduce_all, reduce_any, reduce_max,
                            reduce_mean, reduce_min, reduce_prod, reduce_sum)
from .unary_ops import exp, sigmoid, sign, sqrt, square, tanh

__all__ = [
    # math
    "add", "subtract", "multiply", "divide", "truediv", "pow", "negative", "abs", "sign",
    "square", "sqrt", "exp", "sigmoid", "tanh", "maximum", "minimum", "matmul", "add_n",
    "cast", "saturate_cast",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
    "reduce_all", "argmax", "cumsum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not",
    "clip_by_value", "clip_by_norm", "clip_by_global_norm",
    # array
    "reshape", "transpose", "concat", "stack", "unstack", "split", "expand_dims", "squeeze",
    "tile", "pad", "identity", "stop_gradient", "shape", "size", "rank",
    "zeros", "ones", "zeros_like", "ones_like", "fill", "range", "one_hot",
    "gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
    "boolean_mask", "where", "unique",
]

# Issue 9's areas append their top-level names below, each in its own block
# (`from .<module> import ...` then `__all__ += [...]`), so no block edits another's.

# -- array, creation, indexing, sort, linalg (issue 9, E) --
from .slicing_ops import repeat, reverse, roll, slice, strided_slice
__all__ += ["reverse", "slice", "strided_slice", "roll", "repeat"]

# -- random, printing, debugging, control flow (issue 9, G) --
from .control_flow_ops import (case, cond, control_dependencies, group, identity_n, no_op,
                               switch_case, while_loop)
from .script_ops import numpy_function, py_function
from .check_ops import Assert, assert_equal, assert_greater, assert_less, assert_rank
from .logging_ops import print_v2 as print  # noqa: A001  (TF's name: tf.print)
__all__ += ["print"]
from .tensor_array_ops import TensorArray
__all__ += ["TensorArray"]
__all__ += ["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"]
__all__ += ["cond", "case", "switch_case", "while_loop", "identity_n", "no_op", "group",
            "control_dependencies", "py_function", "numpy_function"]
from .sort_ops import argsort, searchsorted, sort
__all__ += ["sort", "argsort", "searchsorted"]
from .broadcast_ops import (broadcast_dynamic_shape, broadcast_static_shape, broadcast_to,
                            meshgrid)
from .creation_ops import linspace
from .array_ops import ensure_shape, sequence_mask
from .indexing_ops import (tensor_scatter_nd_max, tensor_scatter_nd_min, tensor_scatter_nd_sub,
                           unique_with_counts)
from .partition_ops import dynamic_partition, dynamic_stitch
from .matrix_ops import einsum, eye, norm, tensordot
__all__ += ["broadcast_to", "broadcast_static_shape", "broadcast_dynamic_shape", "meshgrid",
            "linspace", "sequence_mask", "ensure_shape", "tensor_scatter_nd_sub",
            "tensor_scatter_nd_min", "tensor_scatter_nd_max", "unique_with_counts",
            "dynamic_partition", "dynamic_stitch", "einsum", "eye", "norm", "tensordot"]
from .indexing_ops import unravel_index
from .slicing_ops import reverse_sequence
__all__ += ["reverse_sequence", "unravel_index"]

# -- math (issue 9, engineer D) --
from .binary_math_ops import atan2, truncatediv, truncatemod
from .complex_ops import complex
from .reduction_math_ops import argmin, reduce_logsumexp
from .special_math_ops import scalar_mul
from .unary_math_ops import (acos, acosh, asin, asinh, atan, atanh, cos, cosh, floor, round, sin,
                             sinh, tan)
__all__ += ["sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh",
            "acosh", "atanh", "round", "floor", "truncatediv", "truncatemod", "complex",
            "reduce_logsumexp", "argmin", "scalar_mul"]
