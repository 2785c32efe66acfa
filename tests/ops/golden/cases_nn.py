"""Golden cases for the `tf.nn` activations and normalization ops of issue 9 (engineer F).

Record with `/work/tfenv/bin/python tests/ops/golden/gen_ops.py nn`.
"""

import numpy as np

from tests.ops.golden.harness import Case, Grad

_rng = np.random.default_rng(9)
# The interesting points of every activation: 0, the relu6 bounds, NaN, large values.
X = np.array([-20.0, -3.0, -1.0, -0.5, -1e-3, -0.0, 0.0, 1e-3, 0.5, 1.0, 3.0, 6.0, 7.0, 20.0],
             np.float32)
XN = np.append(X, np.nan).astype(np.float32)
X16, X64 = X.astype(np.float16), X.astype(np.float64)
XI = np.array([-7, -1, 0, 3, 6, 9], np.int32)
B = _rng.standard_normal((4, 3, 5)).astype(np.float32)
B64 = B.astype(np.float64)
B16 = B.astype(np.float16)
W3 = np.abs(_rng.standard_normal((4, 1, 5))).astype(np.float32)



def _parts(tf, z):
    return tf.math.real(z), tf.math.imag(z)


CASES = {}
for _op in ("relu6", "elu", "selu", "gelu", "silu", "leaky_relu"):
    CASES[f"{_op}_f32"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(XN))
    CASES[f"{_op}_f16"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(X16))
    CASES[f"{_op}_bf16"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(tf.cast(X, tf.bfloat16)))
    CASES[f"{_op}_f64"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(X64))
    CASES[f"{_op}_int"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(XI))
    CASES[f"{_op}_variable"] = Case(lambda tf, _op=_op: getattr(tf.nn, _op)(tf.Variable(X)))
CASES.update({
    "relu6_exact": Case(lambda tf: tf.nn.relu6(XN), ulps=0),
    "relu6_uint8": lambda tf: tf.nn.relu6(np.array([0, 5, 7, 255], np.uint8)),
    "relu6_bool": lambda tf: tf.nn.relu6([True]),
    "relu6_python": lambda tf: tf.nn.relu6([-1.0, 7.0]),
    "leaky_relu_exact": Case(lambda tf: tf.nn.leaky_relu(XN, alpha=0.3), ulps=0),
    "leaky_relu_f64_alpha": Case(lambda tf: tf.nn.leaky_relu(X64, 0.1), ulps=0),
    "leaky_relu_f16_alpha": Case(lambda tf: tf.nn.leaky_relu(X16, 0.1), ulps=0),
    "leaky_relu_alpha_above_1": lambda tf: tf.nn.leaky_relu(X, alpha=2.0),
    "leaky_relu_alpha_tensor": lambda tf: tf.nn.leaky_relu(X, alpha=tf.constant(0.5)),
    "leaky_relu_alpha_numpy": lambda tf: tf.nn.leaky_relu(X, alpha=np.array(0.5)),
    "leaky_relu_complex": lambda tf: tf.nn.leaky_relu(np.array([1 + 1j], np.complex64)),
    "gelu_approximate_f32": lambda tf: tf.nn.gelu(XN, approximate=True),
    "gelu_approximate_f16": lambda tf: tf.nn.gelu(X16, approximate=True),
    # (1 + tanh(z) cancels near z = -3: an ulp of tanh(z) there is ~1e-16, absolute)
    "gelu_approximate_f64": Case(lambda tf: tf.nn.gelu(X64, approximate=True), atol=4e-16),
    "silu_beta": lambda tf: tf.nn.silu(X, beta=1.7),
    "silu_beta_f64": lambda tf: tf.nn.silu(X64, beta=0.3),
    # (complex results compared as their real and imaginary parts)
    "silu_complex": lambda tf: _parts(tf, tf.nn.silu(np.array([1 + 1j, -2 + 0.5j], np.complex64))),
    "swish": lambda tf: tf.nn.swish(X),
    # softmax: exp (ulps), then a sum of k positive terms and a division (n = k + 1)
    "softmax_axis0": Case(lambda tf: tf.nn.softmax(B, axis=0), n=4 + 1),
    "softmax_axis1_f16": Case(lambda tf: tf.nn.softmax(B16, axis=1), n=3 + 1),
    "log_softmax_axis1": lambda tf: tf.nn.log_softmax(B, axis=1),
    "log_softmax_f64": lambda tf: tf.nn.log_softmax(B64),
    "log_softmax_int": lambda tf: tf.nn.log_softmax([1, 2]),
    # moments: TF's two-pass formula; float16 computed in float32
    "moments_012": lambda tf: tf.nn.moments(B, [0, 1]),
    # (a mean near 0 is a cancelling sum: the absolute floor covers the summation order)
    "moments_keepdims": Case(lambda tf: tf.nn.moments(B, [0, 2], keepdims=True), atol=1e-7),
    "moments_last": lambda tf: tf.nn.moments(B64, [-1]),
    "moments_f16": lambda tf: tf.nn.moments(B16 * 100, [0, 1, 2]),
    "moments_bf16": lambda tf: tf.nn.moments(tf.cast(B, tf.bfloat16), [0]),
    "moments_int": lambda tf: tf.nn.moments(np.array([[1, 2], [4, 7]], np.int32), [0]),
    "moments_empty_axes": lambda tf: tf.nn.moments(B[:1], []),
    "moments_bad_axis": lambda tf: tf.nn.moments(B, [3]),
    "moments_variable": lambda tf: tf.nn.moments(tf.Variable(B), [1]),
    "weighted_moments": Case(lambda tf: tf.nn.weighted_moments(B, [0, 2], W3),  # 20 terms
                             n=2 * 20 + 4),
    "weighted_moments_keepdims": lambda tf: tf.nn.weighted_moments(B, [1], W3, keepdims=True),
    "weighted_moments_zero_weight": lambda tf: tf.nn.weighted_moments(B, [0], np.zeros((1, 3, 5),
                                                                                       np.float32)),
    "weighted_moments_f16": lambda tf: tf.nn.weighted_moments(B16, [0], W3.astype(np.float16)),
    # batch_normalization: inv = rsqrt(var + eps) * scale; x * inv + (offset - mean * inv)
    "batch_normalization": lambda tf: tf.nn.batch_normalization(
        B, B[0, 0], np.abs(B[1, 1]), B[2, 2], B[3, 0], 1e-3),
    "batch_normalization_no_scale_offset": lambda tf: tf.nn.batch_normalization(
        B, B[0, 0], np.abs(B[1, 1]), None, None, 1e-3),
    "batch_normalization_moments": Case(lambda tf: tf.nn.batch_normalization(
        B, *tf.nn.moments(B, [0, 1], keepdims=True), None, 2.0, 1e-5), atol=1e-6),
    "batch_normalization_f16": lambda tf: tf.nn.batch_normalization(
        B16, B16[0, 0], np.abs(B16[1, 1]), B16[2, 2], B16[3, 0], 1e-3),
    "batch_normalization_f16_x_f32_stats": lambda tf: tf.nn.batch_normalization(
        B16, B[0, 0], np.abs(B[1, 1]), B[2, 2], B[3, 0], 1e-3),
    "batch_normalization_f64": lambda tf: tf.nn.batch_normalization(
        B64, B64[0, 0], np.abs(B64[1, 1]), B64[2, 2], B64[3, 0], 1e-3),
    "batch_normalization_dtype_mismatch": lambda tf: tf.nn.batch_normalization(
        B, B[0, 0], np.abs(B64[1, 1]), B[2, 2], B[3, 0], 1e-3),
    # l2_normalize: x * rsqrt(max(sum(x^2), epsilon))
    "l2_normalize_all": lambda tf: tf.nn.l2_normalize(B),
    "l2_normalize_axis": lambda tf: tf.nn.l2_normalize(B, axis=-1),
    "l2_normalize_axes": lambda tf: tf.nn.l2_normalize(B, axis=[0, 2]),
    "l2_normalize_zero": lambda tf: tf.nn.l2_normalize(np.zeros((2, 3), np.float32), axis=1),
    "l2_normalize_epsilon": lambda tf: tf.nn.l2_normalize(B * 1e-3, axis=1, epsilon=1e-2),
    "l2_normalize_f16_tiny": lambda tf: tf.nn.l2_normalize(np.array([1e-4, 0.0], np.float16)),
    "l2_normalize_f64": lambda tf: tf.nn.l2_normalize(B64, 0),
    "l2_normalize_int": lambda tf: tf.nn.l2_normalize([3, 4]),
    "l2_normalize_complex": lambda tf: _parts(tf, tf.nn.l2_normalize(np.array([3 + 4j, 1j],
                                                                             np.complex64))),
})

_GX = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0], np.float32)
_GW = _rng.standard_normal(_GX.shape).astype(np.float32)


def _weighted(op, **kw):
    return lambda tf, x: tf.reduce_sum(tf.multiply(getattr(tf.nn, op)(x, **kw), _GW))


# The gradients below are sums of O(1) terms that cancel, or products with TF's own
# sigmoid/tanh (Eigen's rounding, not SLEEF's) inside `1 + x * (1 - s)`: an absolute floor
# of a few float32 epsilons (1.2e-7) times the terms' size covers the rounding order.
ACT_ATOL = 3e-7


GRADIENTS = {
    "relu6": Grad(_weighted("relu6"), [_GX]),
    "leaky_relu": Grad(_weighted("leaky_relu"), [_GX]),
    "leaky_relu_alpha": Grad(_weighted("leaky_relu", alpha=0.05), [_GX.astype(np.float64)]),
    "elu": Grad(_weighted("elu"), [_GX]),
    "elu_f64": Grad(_weighted("elu"), [_GX.astype(np.float64)]),
    "selu": Grad(_weighted("selu"), [_GX]),
    "gelu": Grad(_weighted("gelu"), [_GX]),
    "gelu_approximate": Grad(_weighted("gelu", approximate=True), [_GX], atol=ACT_ATOL),
    "silu": Grad(_weighted("silu"), [_GX], atol=ACT_ATOL),
    "silu_beta": Grad(lambda tf, x, b: tf.reduce_sum(tf.multiply(tf.nn.silu(x, b), _GW)),
                      [_GX, np.array(1.5, np.float32)], atol=ACT_ATOL),
    "elu_large": Grad(lambda tf, x: tf.reduce_sum(tf.nn.elu(x)),
                      [np.array([-100.0, 100.0, 1e5], np.float32)]),
    "moments": Grad(lambda tf, x: tf.reduce_sum(tf.multiply(tf.nn.moments(x, [0])[1], B[0])), [B]),
    "moments_mean": Grad(lambda tf, x: tf.reduce_sum(tf.nn.moments(x, [0, 2])[0]), [B]),
    "weighted_moments": Grad(lambda tf, x, w: tf.reduce_sum(tf.nn.weighted_moments(x, [0], w)[1]),
                             [B, W3], atol=ACT_ATOL),
    "batch_normalization": Grad(
        lambda tf, x, m, v, o, s: tf.reduce_sum(tf.multiply(
            tf.nn.batch_normalization(x, m, v, o, s, 1e-3), B[::-1])),
        # (the variance's gradient terms scale with (var + eps)^-1.5, ~1e2 for these values)
        [B, B[0, 0], np.abs(B[1, 1]), B[2, 2], B[3, 0]], atol=2e-5),
    "l2_normalize": Grad(lambda tf, x: tf.reduce_sum(tf.multiply(tf.nn.l2_normalize(x, 1), B[0])),
                         [B], atol=ACT_ATOL),
    # B - softmax(x) * sum(B, 0): the sum of 4 cancels, S = |B| + softmax(x) * sum(|B|, 0)
    "log_softmax_axis0": Grad(lambda tf, x: tf.reduce_sum(tf.multiply(tf.nn.log_softmax(x, 0), B)),
                              [B[::-1].copy()], n=4 + 3, terms=lambda tf: [
                                  np.abs(B) + tf.nn.softmax(B[::-1].copy(), 0).numpy()
                                  * np.abs(B).sum(0)]),
}

# -- embedding_lookup (TF 2: "div" partitions; compat.v1's "mod" is tested in test_nn_ext.py)
E = _rng.standard_normal((7, 3)).astype(np.float32)
_PARTS = [E[:3], E[3:5], E[5:]]  # "div" layout of 7 ids over 3 partitions: 3, 2, 2
_UNEVEN = [E[:2], E[2:5], E[5:]]  # sizes TF's "div" formula does not assume
IDS = np.array([[0, 6, 2], [5, 5, 3]], np.int32)
CASES.update({
    "embedding_lookup": lambda tf: tf.nn.embedding_lookup(E, IDS),
    "embedding_lookup_int64_ids": lambda tf: tf.nn.embedding_lookup(E, IDS.astype(np.int64)),
    "embedding_lookup_scalar_id": lambda tf: tf.nn.embedding_lookup(E, 4),
    "embedding_lookup_variable": lambda tf: tf.nn.embedding_lookup(tf.Variable(E), IDS),
    "embedding_lookup_partitions": lambda tf: tf.nn.embedding_lookup(_PARTS, IDS),
    "embedding_lookup_uneven_partitions": lambda tf: tf.nn.embedding_lookup(_UNEVEN,
                                                                            [0, 1, 2, 3]),
    "embedding_lookup_max_norm": lambda tf: tf.nn.embedding_lookup(E * 3, IDS, max_norm=1.5),
    "embedding_lookup_max_norm_scalar_id": lambda tf: tf.nn.embedding_lookup(E * 3, 2,
                                                                             max_norm=1.0),
    "embedding_lookup_partitions_max_norm": lambda tf: tf.nn.embedding_lookup(_PARTS, IDS,
                                                                              max_norm=0.5),
    "embedding_lookup_out_of_range": lambda tf: tf.nn.embedding_lookup(E, [7]),
    "embedding_lookup_float_ids": lambda tf: tf.nn.embedding_lookup(E, [1.0]),
    "embedding_lookup_empty_list": lambda tf: tf.nn.embedding_lookup([], [0]),
})
GRADIENTS.update({
    "embedding_lookup": Grad(lambda tf, e: tf.reduce_sum(tf.multiply(
        tf.nn.embedding_lookup(e, IDS), E[:3])), [E]),
    "embedding_lookup_max_norm": Grad(lambda tf, e: tf.reduce_sum(
        tf.nn.embedding_lookup(e, IDS, max_norm=1.0)), [E * 3]),
    "embedding_lookup_partitions": Grad(lambda tf, a, b, c: tf.reduce_sum(tf.multiply(
        tf.nn.embedding_lookup([a, b, c], IDS), E[:3])), _PARTS),
})

# -- sampled softmax: deterministic given `sampled_values` (TF's draws are its own stream)
_SW = _rng.standard_normal((10, 4)).astype(np.float32)
_SB = _rng.standard_normal(10).astype(np.float32)
_SX = _rng.standard_normal((3, 4)).astype(np.float32)
_SL = np.array([[2], [7], [0]], np.int64)
_SL2 = np.array([[2, 5], [7, 1], [0, 9]], np.int64)
_SAMPLED = (np.array([5, 0, 7, 3], np.int64), np.array([[0.3], [0.1], [0.6]], np.float32),
            np.array([0.2, 0.6, 0.1, 0.25], np.float32))
_SAMPLED2 = (_SAMPLED[0], np.full((3, 2), 0.3, np.float32), _SAMPLED[2])
CASES.update({
    # 4-wide logits, a logsumexp over 5 classes: n = 4 + 1 + 5 + 2 (harness.py's error model)
    "sampled_softmax_loss": Case(lambda tf: tf.nn.sampled_softmax_loss(
        _SW, _SB, _SL, _SX, 4, 10, sampled_values=_SAMPLED), n=12),
    "sampled_softmax_loss_keep_hits": lambda tf: tf.nn.sampled_softmax_loss(
        _SW, _SB, _SL, _SX, 4, 10, sampled_values=_SAMPLED, remove_accidental_hits=False),
    "sampled_softmax_loss_num_true_2": lambda tf: tf.nn.sampled_softmax_loss(
        _SW, _SB, _SL2, _SX, 4, 10, num_true=2, sampled_values=_SAMPLED2),
    "sampled_softmax_loss_partitions": lambda tf: tf.nn.sampled_softmax_loss(
        [_SW[:4], _SW[4:7], _SW[7:]], _SB, _SL.astype(np.int32), _SX, 4, 10,
        sampled_values=_SAMPLED),
    "sampled_softmax_loss_f64": lambda tf: tf.nn.sampled_softmax_loss(
        _SW.astype(np.float64), _SB.astype(np.float64), _SL, _SX.astype(np.float64), 4, 10,
        sampled_values=_SAMPLED),
    "compute_accidental_hits": lambda tf: tf.nn.compute_accidental_hits(_SL2, _SAMPLED[0], 2),
    # the non-unique sampler's expected counts are P(k) * num_sampled: deterministic
    "log_uniform_sampler_expected": lambda tf: tf.random.log_uniform_candidate_sampler(
        _SL2, 2, 6, False, 10, seed=1)[1],
    "log_uniform_sampler_shapes": Case(lambda tf: tf.random.log_uniform_candidate_sampler(
        _SL2, 2, 6, True, 10, seed=1), values=False),
    "log_uniform_sampler_too_small": lambda tf: tf.random.log_uniform_candidate_sampler(
        _SL2, 2, 11, True, 10),
    "log_uniform_sampler_int32": Case(lambda tf: tf.random.log_uniform_candidate_sampler(
        _SL2.astype(np.int32), 2, 3, True, 10), values=False),
})
GRADIENTS.update({
    "sampled_softmax_loss": Grad(lambda tf, w, b, x: tf.reduce_sum(tf.nn.sampled_softmax_loss(
        w, b, _SL, x, 4, 10, sampled_values=_SAMPLED)), [_SW, _SB, _SX]),
})

# -- ctc_loss (dense labels)
_CT = _rng.standard_normal((8, 3, 5)).astype(np.float32)  # [frames, batch, num_labels]
_CL = np.array([[1, 2, 2, 0], [3, 0, 0, 0], [4, 1, 3, 2]], np.int32)  # 0 pads past the lengths
_CLL = np.array([3, 1, 4], np.int32)
_CGL = np.array([8, 5, 7], np.int32)
CASES.update({
    "ctc_loss": lambda tf: tf.nn.ctc_loss(_CL, _CT, _CLL, _CGL),
    "ctc_loss_batch_major": lambda tf: tf.nn.ctc_loss(_CL, _CT.transpose(1, 0, 2).copy(), _CLL,
                                                      _CGL, logits_time_major=False),
    "ctc_loss_blank_last": lambda tf: tf.nn.ctc_loss(_CL, _CT, _CLL, _CGL, blank_index=-1),
    "ctc_loss_blank_2": lambda tf: tf.nn.ctc_loss(np.where(_CL == 2, 0, _CL), _CT, _CLL, _CGL,
                                                  blank_index=2),
    "ctc_loss_f64": lambda tf: tf.nn.ctc_loss(_CL.astype(np.int64), _CT.astype(np.float64), _CLL,
                                              _CGL),
    "ctc_loss_f16": lambda tf: tf.nn.ctc_loss(_CL, _CT.astype(np.float16), _CLL, _CGL),
    "ctc_loss_int_logits": lambda tf: tf.nn.ctc_loss(_CL, _CL.reshape(4, 3, 1), _CLL, _CGL),
})
# The gradient is softmax - posterior: TF and torch sum the alignments' probabilities in log
# space in different orders (over up to 8 frames), an error of a few eps per frame.
CTC_ATOL = 2e-6
GRADIENTS.update({
    "ctc_loss": Grad(lambda tf, z: tf.reduce_sum(tf.multiply(tf.nn.ctc_loss(_CL, z, _CLL, _CGL),
                                                             [1.0, -2.0, 0.5])), [_CT],
                     atol=CTC_ATOL),
    "ctc_loss_blank_last": Grad(lambda tf, z: tf.reduce_sum(tf.nn.ctc_loss(
        _CL, z, _CLL, _CGL, blank_index=-1)), [_CT], atol=CTC_ATOL),
})
