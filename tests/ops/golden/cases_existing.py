"""Golden cases for ops that landed before issue 9 (a sanity table for the harness)."""

import numpy as np

from tests.ops.golden.harness import Case, Grad

F = np.array([[1.0, -2.0, 3.5], [0.0, np.nan, -1.0]], dtype=np.float32)
X = np.arange(6, dtype=np.int32).reshape(2, 3)

CASES = {
    "add_exact": Case(lambda tf: tf.add(F, F), ulps=0),
    "sqrt_int_error": lambda tf: tf.sqrt([1, 2]),
    "reduce_mean_int": lambda tf: tf.reduce_mean(X, axis=0),
    "softmax_f16": lambda tf: tf.nn.softmax(F[:1].astype(np.float16)),
    "tanh_bf16": lambda tf: tf.tanh(tf.cast(F, tf.bfloat16)),
    "shape_obj": lambda tf: tf.TensorShape([2, None]),
    "split": lambda tf: tf.split(X, 3, axis=1),
    "reshape_bad": Case(lambda tf: tf.reshape(X, [4]), match_message=True),
}

GRADIENTS = {
    "tanh": Grad(lambda tf, x: tf.reduce_sum(tf.tanh(x)), [np.array([0.5, -1.0], np.float32)]),
    "gather": Grad(lambda tf, x: tf.gather(x, [1, 1]), [np.array([1.0, 2.0, 3.0], np.float32)]),
}

# The one-kernel paths (torch.clamp, torch.logsumexp, two-tensor binary ops) pinned to TF.
C = np.array([0.5, 1.0, 2.0, np.nan, -3.0, 7.0], dtype=np.float32)
CASES.update({
    "clip_python_bounds": Case(lambda tf: tf.clip_by_value(C, 1.0, 2.0), ulps=0),
    "clip_f64_int_bounds": Case(lambda tf: tf.clip_by_value(C.astype(np.float64), -1, 1), ulps=0),
    "clip_bound_rounding": Case(lambda tf: tf.clip_by_value(C, 0.1, 0.3), ulps=0),
    "clip_min_above_max": Case(lambda tf: tf.clip_by_value(C, 3.0, 1.0), ulps=0),
    "clip_variable": Case(lambda tf: tf.clip_by_value(tf.Variable(C), 1.0, 2.0), ulps=0),
    "logsumexp_fast": lambda tf: tf.reduce_logsumexp(np.stack([C[:3], C[[0, 4, 5]]]), axis=1),
    "logsumexp_all_fast": lambda tf: tf.reduce_logsumexp(np.stack([C[:3], C[[0, 4, 5]]])),
    "logsumexp_inf_fast": lambda tf: tf.reduce_logsumexp(
        np.array([[np.inf, 1.0], [-np.inf, -np.inf]], np.float32), axis=-1),
    "logsumexp_bad_axis": lambda tf: tf.reduce_logsumexp(C, axis=2),
    "add_two_tensors": Case(lambda tf: tf.add(tf.constant(C), tf.constant(C)), ulps=0),
    "multiply_dtype_clash": lambda tf: tf.multiply(tf.constant(C), tf.constant(C, tf.float64)),
    "add_dtype_clash": lambda tf: tf.add(tf.constant(C), tf.constant(C, tf.float64)),
    "less_int8_fast": lambda tf: tf.less(tf.constant([1, 2], tf.int8), tf.constant([2, 1], tf.int8)),
    "add_bool_error": lambda tf: tf.add(tf.constant([True]), tf.constant([False])),
    "reshape_int_list": lambda tf: tf.reshape(tf.range(6), [3, -1]),
    "reshape_bool_in_list": lambda tf: tf.reshape(tf.range(6), [True, 6]),
})
GRADIENTS.update({
    "clip_python_bounds_ties": Grad(lambda tf, x: tf.clip_by_value(x, 1.0, 2.0), [C]),
})

CASES.update({
    "reshape_empty_unknown_first": lambda tf: tf.reshape(np.zeros([0], np.float32), [-1, 0]),
    "reshape_empty_unknown_last": lambda tf: tf.reshape(np.zeros([0, 3], np.float32), [0, -1]),
    "reshape_nonempty_zero_dim": lambda tf: tf.reshape(np.zeros([6], np.float32), [0, -1]),
    "reshape_two_unknowns": lambda tf: tf.reshape(np.zeros([6], np.float32), [-1, -1]),
    "reshape_negative": lambda tf: tf.reshape(np.zeros([6], np.float32), [-2, -3]),
    "reshape_mismatch": Case(lambda tf: tf.reshape(np.zeros([6], np.float32), [7]),
                             match_message=True),
    "transpose_repeated_axis": lambda tf: tf.transpose(np.zeros([2, 3, 4]), [0, 0, 1]),
    "transpose_short_perm": lambda tf: tf.transpose(np.zeros([2, 3, 4]), [0, 1]),
    "transpose_negative_perm": lambda tf: tf.transpose(np.zeros([2, 3, 4]), [-1, 0, 1]),
    "transpose_out_of_range": lambda tf: tf.transpose(np.zeros([2, 3, 4]), [3, 0, 1]),
})

CASES.update({
    "reshape_empty_infer_middle": lambda tf: tf.reshape(np.zeros([0, 6], np.float32), [0, -1, 2]),
    "reshape_empty_known_nonzero": lambda tf: tf.reshape(np.zeros([0, 6], np.float32), [-1, 4]),
    "reshape_empty_three_dims": lambda tf: tf.reshape(np.zeros([2, 0, 5], np.float32), [5, -1, 0]),
    "reshape_empty_indivisible": lambda tf: tf.reshape(np.zeros([0, 6], np.float32), [0, -1, 4]),
})

CASES.update({
    "reshape_empty_floor_zero": lambda tf: tf.reshape(np.zeros([0, 2], np.float32), [0, -1, 4]),
    "reshape_empty_floor": lambda tf: tf.reshape(np.zeros([0, 7], np.float32), [0, -1, 2]),
})

M2 = np.arange(6, dtype=np.float32).reshape(2, 3)
CASES.update({
    "where_bool_tensor": Case(lambda tf: tf.where(tf.constant([True, False, True]), C[:3], C[3:]),
                              ulps=0),
    "where_broadcast_three": Case(lambda tf: tf.where(tf.constant([[True], [False]]), M2, 0.0),
                                  ulps=0),
    "where_not_broadcastable": lambda tf: tf.where(tf.constant([True, False]), M2, M2),
    "matmul_plain": Case(lambda tf: tf.matmul(tf.constant(M2), tf.constant(M2.T)), ulps=0),
    "matmul_batch_broadcast": Case(lambda tf: tf.matmul(np.stack([M2, M2 + 1]), M2.T), ulps=0),
    "matmul_mismatch": Case(lambda tf: tf.matmul(tf.constant(M2), tf.constant(M2)),
                            match_message=True),
    "matmul_vector": lambda tf: tf.matmul(tf.constant(M2), tf.constant([1.0, 2.0, 3.0])),
    "matmul_batch_mismatch": lambda tf: tf.matmul(np.zeros([2, 2, 3], np.float32),
                                                  np.zeros([3, 3, 1], np.float32)),
})
