"""Golden cases for `tf.compat.v1`'s TF 1 signatures (adapters over the TF 2 ops)."""

import numpy as np

from tests.ops.golden.harness import Case

X = np.arange(6, dtype=np.int32).reshape(2, 3)
F = np.array([[1.0, -2.0, 3.5], [0.5, 2.0, -1.0]], dtype=np.float32)


def v1(tf):
    return tf.compat.v1


CASES = {
    "reduce_sum_reduction_indices": lambda tf: v1(tf).reduce_sum(X, reduction_indices=1),
    "reduce_mean_keep_dims": lambda tf: v1(tf).reduce_mean(F, 0, keep_dims=True),
    "reduce_max_both_axis_args": lambda tf: v1(tf).reduce_max(F, axis=0, reduction_indices=0),
    "reduce_any_positional": lambda tf: v1(tf).reduce_any(X > 3, 1, True),
    "argmax_dimension": lambda tf: v1(tf).argmax(F, dimension=1),
    "argmin_default_axis": lambda tf: v1(tf).argmin(F),
    "expand_dims_dim": lambda tf: v1(tf).expand_dims(X, dim=0),
    "squeeze_dims": lambda tf: v1(tf).squeeze(np.zeros((1, 2, 1), np.float32), squeeze_dims=[0]),
    "where_vector_cond": lambda tf: v1(tf).where([True, False], X, X * 10),
    "where_same_shape": lambda tf: v1(tf).where(X > 2, X, -X),
    "where_no_broadcast": lambda tf: v1(tf).where([[True, False, True]], X, X),
    "where_xy_mismatch": lambda tf: v1(tf).where([True, False], X, X[:, :2]),
    "where_coords": lambda tf: v1(tf).where(X > 2),
    "transpose_positional": lambda tf: v1(tf).transpose(F, [1, 0]),
    "ones_like_tensor": lambda tf: v1(tf).ones_like(X, dtype=tf.float32),
    "constant_verify_shape_bad": lambda tf: v1(tf).constant([1, 2], shape=[2, 1], verify_shape=True),
    "convert_preferred_dtype": lambda tf: v1(tf).convert_to_tensor(1, preferred_dtype=tf.int64),
    "gather_validate_indices": lambda tf: v1(tf).gather(F, [1, 0], validate_indices=True),
    "variable_eager": lambda tf: v1(tf).Variable([1.0, 2.0], collections=["x"]).read_value(),
    "executing_eagerly": lambda tf: v1(tf).executing_eagerly(),
    "float32_is_tf2": lambda tf: v1(tf).float32 is tf.float32,
    "add_is_tf2": Case(lambda tf: v1(tf).add(X, X), ulps=0),
}
