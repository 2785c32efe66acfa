"""Golden cases for `tf.compat.v1`'s TF 1 signatures (adapters over the TF 2 ops)."""

import numpy as np

from tests.ops.golden.harness import Case, Grad

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

IMG = np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) / 10
FILT = np.linspace(-1, 1, 3 * 3 * 2 * 3, dtype=np.float32).reshape(3, 3, 2, 3)
LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32)
LABELS = np.array([[0.2, 0.5, 0.3], [0.0, 0.0, 1.0]], np.float32)

CASES.update({
    "nn_conv2d_filter": lambda tf: v1(tf).nn.conv2d(IMG, filter=FILT, strides=[1, 2, 2, 1],
                                                    padding="SAME"),
    "nn_max_pool_value": lambda tf: v1(tf).nn.max_pool(value=IMG, ksize=[1, 2, 2, 1],
                                                       strides=[1, 2, 2, 1], padding="SAME"),
    "nn_avg_pool": lambda tf: v1(tf).nn.avg_pool(IMG, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
    "nn_dropout_keep_1": lambda tf: v1(tf).nn.dropout(LOGITS, keep_prob=1.0),
    "nn_dropout_both": lambda tf: v1(tf).nn.dropout(LOGITS, keep_prob=0.5, rate=0.5),
    "nn_moments_keep_dims": lambda tf: list(v1(tf).nn.moments(LOGITS, [0], keep_dims=True)),
    "nn_softmax_dim": Case(lambda tf: v1(tf).nn.softmax(LOGITS, dim=0), n=2 + 1),  # a sum of 2
    "nn_log_softmax": lambda tf: v1(tf).nn.log_softmax(LOGITS),
    "nn_xent_v2_dim": lambda tf: v1(tf).nn.softmax_cross_entropy_with_logits_v2(LABELS, LOGITS, dim=-1),
    "nn_xent_v1": lambda tf: v1(tf).nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=LOGITS),
    "nn_sigmoid_xent": lambda tf: v1(tf).nn.sigmoid_cross_entropy_with_logits(labels=LABELS,
                                                                               logits=LOGITS),
    "nn_sparse_xent": lambda tf: v1(tf).nn.sparse_softmax_cross_entropy_with_logits(
        labels=[1, 2], logits=LOGITS),
    "nn_embedding_mod": lambda tf: v1(tf).nn.embedding_lookup(
        [np.arange(6, dtype=np.float32).reshape(3, 2), 10 + np.arange(4, dtype=np.float32).reshape(2, 2)],
        [0, 1, 2, 3, 4]),
    "nn_relu_same": lambda tf: v1(tf).nn.relu(LOGITS),
})

GRADIENTS = {
    "nn_xent_v1_no_label_grad": Grad(
        lambda tf, lab, lg: v1(tf).nn.softmax_cross_entropy_with_logits(labels=lab, logits=lg),
        # softmax - labels: an ulp of the softmax (~1.5e-8 at 0.23) survives the cancellation
        [LABELS, LOGITS], atol=3e-8),
}

CASES.update({
    "div_ints_floor": lambda tf: v1(tf).div([7, -7, 6], [2, 2, -4]),
    "div_floats_true": Case(lambda tf: v1(tf).div([7.0, -7.0], [2.0, 4.0]), ulps=0),
    "to_float": lambda tf: v1(tf).to_float(X),
    "to_int64": lambda tf: v1(tf).to_int64([1.7, -1.7]),
    "multinomial_shape": Case(lambda tf: v1(tf).multinomial(LOGITS, 5, output_dtype=tf.int32,
                                                           seed=3), values=False),
    "random_normal_alias": Case(lambda tf: v1(tf).random_normal([2, 3], seed=1), values=False),
    "truncated_normal_alias": Case(lambda tf: v1(tf).truncated_normal([4], stddev=0.02, seed=1),
                                   values=False),
    "log_alias": lambda tf: v1(tf).log(F[0] + 3.0),
    "matrix_inverse_alias": lambda tf: v1(tf).matrix_inverse([[2.0, 1.0], [1.0, 3.0]]),
    "assign_add": lambda tf: v1(tf).assign_add(tf.Variable([1.0, 2.0]), [3.0, 4.0]),
    "set_random_seed": lambda tf: v1(tf).set_random_seed(5),
})

CASES.update({
    "shape_name_positional": lambda tf: v1(tf).shape(X, "s", tf.int64),
    "size": lambda tf: v1(tf).size(X),
    "pad_name_positional": lambda tf: v1(tf).pad(X, [[0, 1], [1, 0]], "CONSTANT", "p", 9),
    "boolean_mask_axis": lambda tf: v1(tf).boolean_mask(X, [True, False, True], axis=1),
    "gather_nd": lambda tf: v1(tf).gather_nd(X, [[0, 1], [1, 2]]),
    "norm_keep_dims": lambda tf: v1(tf).norm(F, axis=1, keep_dims=True),
    "reverse_sequence_dims": lambda tf: v1(tf).reverse_sequence(X, [2, 3], seq_dim=1, batch_dim=0),
    "assert_equal_fails": lambda tf: v1(tf).assert_equal(X, X + 1, data=[X], message="m"),
    "assert_less_passes": lambda tf: v1(tf).assert_less(X, X + 1),
    "assert_rank": lambda tf: v1(tf).assert_rank(X, 3),
    "device_string": lambda tf: _under_device(tf),
})


def _under_device(tf):
    with v1(tf).device("/CPU:0"):
        return tf.constant([1.0]) * 2

BN_X = (np.arange(2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3) / 7 - 1) ** 2
BN_SCALE, BN_OFFSET = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 0.5, -1.0], np.float32)
BN_MEAN, BN_VAR = np.array([0.5, 0.4, 0.3], np.float32), np.array([1.0, 2.0, 0.5], np.float32)
CASES.update({
    "fused_bn_training": lambda tf: list(v1(tf).nn.fused_batch_norm(BN_X, BN_SCALE, BN_OFFSET)),
    "fused_bn_inference": lambda tf: list(v1(tf).nn.fused_batch_norm(
        BN_X, BN_SCALE, BN_OFFSET, BN_MEAN, BN_VAR, is_training=False)),
    "fused_bn_nchw_training": lambda tf: list(v1(tf).nn.fused_batch_norm(
        BN_X.transpose(0, 3, 1, 2), BN_SCALE, BN_OFFSET, data_format="NCHW")),
    "fused_bn_avg_factor": lambda tf: list(v1(tf).nn.fused_batch_norm(
        BN_X, BN_SCALE, BN_OFFSET, BN_MEAN, BN_VAR, exponential_avg_factor=0.25)),
    "fused_bn_half": lambda tf: list(v1(tf).nn.fused_batch_norm(
        BN_X.astype(np.float16), BN_SCALE, BN_OFFSET, BN_MEAN, BN_VAR, is_training=False)),
    "fused_bn_inference_missing_stats": lambda tf: list(v1(tf).nn.fused_batch_norm(
        BN_X, BN_SCALE, BN_OFFSET, is_training=False)),
})
