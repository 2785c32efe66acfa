"""Golden cases for `tf.linalg` (issue 9): products, decompositions, solves, structure, norms.

Decompositions whose factors are unique only up to signs/phases (`svd`, `eigh`) are compared
through gauge-invariant quantities: singular values and eigenvalues, reconstructions, and
projectors `u u^T`. LAPACK (torch) and Eigen (TF) round differently, so the float32 tolerances
below are a few tens of ulps of the result (or an absolute floor near zero), with the reason.
"""

import numpy as np

from tests.ops.golden.harness import Case, Grad

R = np.random.RandomState(2021)
M = R.randn(3, 3).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)  # well conditioned
SPD = (M @ M.T + np.eye(3)).astype(np.float32)
BM = R.randn(2, 3, 3).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
RHS = R.randn(3, 2).astype(np.float32)
TALL = R.randn(4, 3).astype(np.float32)
WIDE = TALL.T.copy()
LOW = np.tril(M)
SING = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
F64 = M.astype(np.float64)
C64 = (M + 1j * R.randn(3, 3)).astype(np.complex64)
IM = np.arange(1, 10, dtype=np.int32).reshape(3, 3)

# Eigen vs LAPACK: different elimination orders; float32 results agree to tens of ulps.
LA = dict(ulps=64, atol=1e-6)
LA64 = dict(ulps=64, atol=1e-14)


def _recon_svd(tf, a, full=False):
    s, u, v = tf.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    return tf.matmul(u[..., :, :k] * s[..., None, :], v[..., :, :k], adjoint_b=True)


def _proj(tf, v):
    return tf.matmul(v, v, adjoint_b=True)


CASES = {
    # products
    "matmul_transpose_b": Case(lambda tf: tf.linalg.matmul(M, TALL, transpose_b=True), **LA),
    "matmul_adjoint_a_c64": Case(lambda tf: tf.linalg.matmul(C64, C64, adjoint_a=True), **LA),
    "matmul_sparse_flag": Case(lambda tf: tf.linalg.matmul(M, M, a_is_sparse=True), **LA),
    "matmul_int": lambda tf: tf.linalg.matmul(IM, IM),
    "matvec": Case(lambda tf: tf.linalg.matvec(BM, [1.0, -2.0, 0.5]), **LA),
    "matvec_transpose": Case(lambda tf: tf.linalg.matvec(M, [1.0, 2.0, 3.0], transpose_a=True), **LA),
    # inverse, determinants, solves
    "inv": Case(lambda tf: tf.linalg.inv(M), **LA),
    "inv_batch_f64": Case(lambda tf: tf.linalg.inv(BM.astype(np.float64)), **LA64),
    "inv_adjoint": Case(lambda tf: tf.linalg.inv(M, adjoint=True), **LA),
    "inv_c64": Case(lambda tf: tf.linalg.inv(C64), **LA),
    # TF inverts float16 in float16 arithmetic; tfcompat in float32, rounded: a few half ulps.
    "inv_f16": Case(lambda tf: tf.linalg.inv(np.array([[4.0, 1.0], [1.0, 3.0]], np.float16)), ulps=4),
    "inv_singular": Case(lambda tf: tf.linalg.inv(SING), match_message=True),
    "inv_int": lambda tf: tf.linalg.inv(IM),
    "inv_bf16": lambda tf: tf.linalg.inv(tf.cast(M, tf.bfloat16)),
    "inv_nonsquare": lambda tf: tf.linalg.inv(TALL),
    "inv_rank1": lambda tf: tf.linalg.inv(np.ones(2, np.float32)),
    "inv_var": Case(lambda tf: tf.linalg.inv(tf.Variable(M)), **LA),
    "det": Case(lambda tf: tf.linalg.det(M), **LA),
    "det_batch": Case(lambda tf: tf.linalg.det(BM), **LA),
    "det_f64": Case(lambda tf: tf.linalg.det(F64), **LA64),
    "det_singular": Case(lambda tf: tf.linalg.det(SING), **LA),
    "det_f16": lambda tf: tf.linalg.det(np.eye(2, dtype=np.float16)),
    "det_int": lambda tf: tf.linalg.det(IM),
    "slogdet": Case(lambda tf: tf.linalg.slogdet(np.array([[-1.0, 0.0], [0.0, 2.0]], np.float32)), **LA),
    "slogdet_batch": Case(lambda tf: tf.linalg.slogdet(BM), **LA),
    "slogdet_singular": lambda tf: tf.linalg.slogdet(SING),
    "logdet": Case(lambda tf: tf.linalg.logdet(SPD), **LA),
    "solve": Case(lambda tf: tf.linalg.solve(M, RHS), **LA),
    "solve_adjoint": Case(lambda tf: tf.linalg.solve(M, RHS, adjoint=True), **LA),
    "solve_batch_f64": Case(lambda tf: tf.linalg.solve(BM.astype(np.float64), np.ones((2, 3, 1))), **LA64),
    "solve_singular": Case(lambda tf: tf.linalg.solve(SING, np.ones((2, 1), np.float32)), match_message=True),
    "solve_incompatible": lambda tf: tf.linalg.solve(M, np.ones((2, 1), np.float32)),
    "solve_vector_rhs": lambda tf: tf.linalg.solve(M, np.ones(3, np.float32)),
    "solve_f16": lambda tf: tf.linalg.solve(M.astype(np.float16), RHS.astype(np.float16)),
    "triangular_solve": Case(lambda tf: tf.linalg.triangular_solve(LOW, RHS), **LA),
    "triangular_solve_upper_adjoint": Case(lambda tf: tf.linalg.triangular_solve(M, RHS, lower=False, adjoint=True), **LA),
    "triangular_solve_broadcast": Case(lambda tf: tf.linalg.triangular_solve(np.tril(BM), RHS[None]), **LA),
    "triangular_solve_singular": lambda tf: tf.linalg.triangular_solve(np.array([[0.0, 0.0], [1.0, 1.0]], np.float32), np.ones((2, 2), np.float32)),
    "triangular_solve_incompatible": lambda tf: tf.linalg.triangular_solve(LOW, np.ones((2, 1), np.float32)),
    "triangular_solve_f16": lambda tf: tf.linalg.triangular_solve(LOW.astype(np.float16), RHS.astype(np.float16)),
    "cholesky": Case(lambda tf: tf.linalg.cholesky(SPD), **LA),
    "cholesky_f64": Case(lambda tf: tf.linalg.cholesky(SPD.astype(np.float64)), **LA64),
    "cholesky_f16": lambda tf: tf.linalg.cholesky(SPD.astype(np.float16)),
    "cholesky_int": lambda tf: tf.linalg.cholesky(IM),
    "cholesky_solve": Case(lambda tf: tf.linalg.cholesky_solve(tf.linalg.cholesky(SPD), RHS), **LA),
    "lstsq_fast_tall": Case(lambda tf: tf.linalg.lstsq(TALL, RHS[[0, 1, 2, 0]]), ulps=256, atol=1e-5),
    "lstsq_fast_wide_l2": Case(lambda tf: tf.linalg.lstsq(WIDE, RHS, l2_regularizer=0.5), ulps=256, atol=1e-5),
    "lstsq_exact": Case(lambda tf: tf.linalg.lstsq(np.array([[1.0, 0], [0, 1], [1, 1]], np.float32), np.array([[1.0], [2], [3]], np.float32), fast=False, l2_regularizer=1.0), ulps=256, atol=1e-5),
    "lstsq_f16": lambda tf: tf.linalg.lstsq(TALL.astype(np.float16), RHS[[0, 1, 2, 0]].astype(np.float16)),
    # decompositions (gauge-invariant comparisons)
    "qr_reconstruct": Case(lambda tf: tf.matmul(*tf.linalg.qr(TALL)), **LA),
    "qr_shapes_full": Case(lambda tf: [list(x.shape) for x in tf.linalg.qr(TALL, full_matrices=True)]),
    "qr_r_abs_diag": Case(lambda tf: tf.abs(tf.linalg.diag_part(tf.linalg.qr(TALL).r)), **LA),
    "qr_q_projector": Case(lambda tf: _proj(tf, tf.linalg.qr(TALL).q), **LA),
    "qr_f16_reconstruct": Case(lambda tf: tf.matmul(*tf.linalg.qr(M.astype(np.float16))), ulps=8, atol=4e-3),
    "qr_int": lambda tf: tf.linalg.qr(IM),
    "svd_values": Case(lambda tf: tf.linalg.svd(TALL, compute_uv=False), **LA),
    "svd_values_batch": Case(lambda tf: tf.linalg.svd(BM)[0], **LA),
    "svd_reconstruct": Case(lambda tf: _recon_svd(tf, TALL), **LA),
    "svd_reconstruct_full": Case(lambda tf: _recon_svd(tf, WIDE, full=True), **LA),
    "svd_shapes": Case(lambda tf: [list(x.shape) for x in tf.linalg.svd(WIDE, full_matrices=True)]),
    "svd_u_projector": Case(lambda tf: _proj(tf, tf.linalg.svd(TALL)[1]), **LA),
    "svd_v_projector": Case(lambda tf: _proj(tf, tf.linalg.svd(TALL)[2]), **LA),
    "svd_f16": lambda tf: tf.linalg.svd(M.astype(np.float16)),
    "eigh_values": Case(lambda tf: tf.linalg.eigh(SPD)[0], **LA),
    "eigvalsh": Case(lambda tf: tf.linalg.eigvalsh(SPD.astype(np.float64)), **LA64),
    "eigh_reconstruct": Case(lambda tf: tf.matmul(tf.linalg.eigh(SPD)[1] * tf.linalg.eigh(SPD)[0][None, :], tf.linalg.eigh(SPD)[1], transpose_b=True), ulps=64, atol=1e-5),
    "eigh_abs_vectors": Case(lambda tf: tf.abs(tf.linalg.eigh(SPD)[1]), **LA),
    "eigh_f16": lambda tf: tf.linalg.eigh(SPD.astype(np.float16)),
    # expm / pinv
    "expm": Case(lambda tf: tf.linalg.expm(M * 0.3), ulps=64, atol=1e-6),
    "expm_f64": Case(lambda tf: tf.linalg.expm(F64 * 0.3), ulps=64, atol=1e-14),
    "expm_int": lambda tf: tf.linalg.expm(IM),
    "expm_bf16": lambda tf: tf.linalg.expm(tf.cast(M, tf.bfloat16)),
    "pinv": Case(lambda tf: tf.linalg.pinv(TALL), ulps=64, atol=1e-6),
    "pinv_rank_deficient": Case(lambda tf: tf.linalg.pinv(SING), ulps=64, atol=1e-6),
    "pinv_rcond": Case(lambda tf: tf.linalg.pinv(np.diag([1.0, 1e-3, 0.5]).astype(np.float32), rcond=1e-2), ulps=64, atol=1e-6),
    "pinv_int": lambda tf: tf.linalg.pinv(IM),
    # structure
    "diag": lambda tf: tf.linalg.diag([1, 2]),
    "diag_k": lambda tf: tf.linalg.diag([1, 2], k=1),
    "diag_k_neg_pad": lambda tf: tf.linalg.diag([1.0, 2.0], k=-1, padding_value=9.0),
    "diag_rows_cols": lambda tf: tf.linalg.diag([[1, 2], [3, 4]], num_rows=3, num_cols=2),
    "diag_part": lambda tf: tf.linalg.diag_part([[1, 2, 3], [4, 5, 6]]),
    "diag_part_k": lambda tf: tf.linalg.diag_part([[1, 2, 3], [4, 5, 6]], k=1),
    "diag_part_rank1": lambda tf: tf.linalg.diag_part([1, 2]),
    "set_diag": lambda tf: tf.linalg.set_diag(IM, [0, 0, 0]),
    "set_diag_k": lambda tf: tf.linalg.set_diag(np.zeros((2, 3, 3), np.float32), np.ones((2, 2), np.float32), k=1),
    "band_part": lambda tf: tf.linalg.band_part(IM, 0, -1),
    "band_part_lower1": lambda tf: tf.linalg.band_part(BM, 1, 0),
    "band_part_all": lambda tf: tf.linalg.band_part(IM, -2, -1),
    "band_part_bad": lambda tf: tf.linalg.band_part(IM, 4, -1),
    "band_part_bad_upper": lambda tf: tf.linalg.band_part(IM, 0, 4),
    "trace_int": lambda tf: tf.linalg.trace(IM),
    "trace_nonsquare_f64": lambda tf: tf.linalg.trace(np.ones((2, 3))),
    "trace_batch": Case(lambda tf: tf.linalg.trace(BM), ulps=0),
    "trace_rank1": lambda tf: tf.linalg.trace([1, 2]),
    "matrix_transpose": lambda tf: tf.linalg.matrix_transpose(np.arange(6).reshape(1, 2, 3)),
    "matrix_transpose_rank1": lambda tf: tf.linalg.matrix_transpose([1.0, 2.0]),
    "adjoint": lambda tf: tf.linalg.adjoint(C64),
    "eye_linalg": lambda tf: tf.linalg.eye(2, batch_shape=[1]),
    # norms
    # norms are reductions (the error model of harness.py): n = the squares summed, + 1 for sqrt
    "norm_euclidean": Case(lambda tf: tf.norm(M), ulps=0, n=10),
    "norm_axis": Case(lambda tf: tf.norm(M, axis=1), ulps=0, n=4),
    "norm_keepdims": Case(lambda tf: tf.norm(BM, axis=[-2, -1], keepdims=True), ulps=0, n=10),
    "norm_fro_matrix": Case(lambda tf: tf.linalg.norm(BM, ord="fro", axis=(1, 2)), ulps=0, n=10),
    "norm_1_matrix": Case(lambda tf: tf.norm(BM, ord=1, axis=[1, 2]), ulps=0),
    "norm_inf_matrix": Case(lambda tf: tf.norm(BM, ord=np.inf, axis=[1, 2]), ulps=0),
    "norm_2_matrix": Case(lambda tf: tf.norm(BM, ord=2, axis=[1, 2]), **LA),
    "norm_2_matrix_swapped": Case(lambda tf: tf.norm(BM, ord=2, axis=[2, 0]), **LA),
    "norm_1_vector": Case(lambda tf: tf.norm(M, ord=1, axis=0), ulps=0),
    "norm_inf_vector": Case(lambda tf: tf.norm(M, ord=np.inf), ulps=0),
    "norm_p3": Case(lambda tf: tf.norm(M, ord=3, axis=-1), ulps=4),
    "norm_f16": Case(lambda tf: tf.norm(np.array([3.0, 4.0], np.float16)), ulps=0),
    "norm_bf16": Case(lambda tf: tf.norm(tf.cast(M, tf.bfloat16), axis=0), ulps=1, n=4,
                      accumulate="float32"),
    "norm_f64": Case(lambda tf: tf.norm(F64, axis=0), ulps=0, n=4),
    "norm_complex": Case(lambda tf: tf.norm(tf.constant([3 + 4j, 1 - 1j])), ulps=2),
    "norm_int": lambda tf: tf.norm([3, 4]),
    "norm_fro_vector": lambda tf: tf.norm([3.0, 4.0], ord="fro"),
    "norm_ord0": lambda tf: tf.norm([3.0, 4.0], ord=0),
    "norm_axis3": lambda tf: tf.norm(M, axis=[0, 1, 1]),
    "norm_matrix_ord3": lambda tf: tf.norm(M, ord=3, axis=[0, 1]),
    "l2_normalize": Case(lambda tf: tf.linalg.l2_normalize(M, axis=1), ulps=2, n=4),  # + rsqrt
    "l2_normalize_all": Case(lambda tf: tf.linalg.l2_normalize([3.0, 4.0]), ulps=0),
    "l2_normalize_zero": Case(lambda tf: tf.linalg.l2_normalize([0.0, 0.0]), ulps=0),
    "l2_normalize_f16_tiny": Case(lambda tf: tf.linalg.l2_normalize(np.array([1e-4, 0.0], np.float16)), ulps=1),
    "l2_normalize_int": lambda tf: tf.linalg.l2_normalize([3, 4]),
    "global_norm": Case(lambda tf: tf.linalg.global_norm([M, RHS]), ulps=0, n=16),
    "einsum_linalg": Case(lambda tf: tf.linalg.einsum("ij,jk->ik", M, RHS), ulps=0, n=3,
                          terms=lambda tf: tf.linalg.matmul(np.abs(M), np.abs(RHS))),
    "tensordot_linalg": Case(lambda tf: tf.linalg.tensordot(M, RHS, 1), ulps=0, n=3,
                             terms=lambda tf: tf.linalg.matmul(np.abs(M), np.abs(RHS))),
}

# Gradients: d sum(f(x)) with TF's tape. Gauge-dependent factors enter only through
# gauge-invariant functions (reconstructions, projectors, singular values, eigenvalues).
GRADIENTS = {
    "det": Grad(lambda tf, x: tf.linalg.det(x), [M], ulps=64, atol=1e-5),
    "slogdet": Grad(lambda tf, x: tf.linalg.slogdet(x).log_abs_determinant, [M], ulps=64, atol=1e-6),
    "logdet": Grad(lambda tf, x: tf.linalg.logdet(x), [SPD], ulps=64, atol=1e-6),
    "inv": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.inv(x) ** 2), [M], ulps=64, atol=1e-6),
    "solve": Grad(lambda tf, a, b: tf.reduce_sum(tf.linalg.solve(a, b) ** 2), [M, RHS], ulps=64, atol=1e-6),
    "triangular_solve": Grad(lambda tf, a, b: tf.reduce_sum(tf.linalg.triangular_solve(a, b) ** 2), [LOW, RHS], ulps=64, atol=1e-6),
    "cholesky": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.cholesky(x) * tf.constant(np.tril(M))), [SPD], ulps=64, atol=1e-6),
    "qr": Grad(lambda tf, x: tf.reduce_sum(tf.matmul(*tf.linalg.qr(x)) ** 2) + tf.reduce_sum(_proj(tf, tf.linalg.qr(x).q) * tf.constant(np.arange(16.0, dtype=np.float32).reshape(4, 4))), [TALL], ulps=64, atol=1e-5),
    "svd_values": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.svd(x, compute_uv=False) * tf.constant([3.0, 2.0, 1.0])), [TALL], ulps=64, atol=1e-6),
    # Projector gradients divide by s_i^2 - s_j^2: float32 rounding is amplified (atol).
    "svd_projector": Grad(lambda tf, x: tf.reduce_sum(_proj(tf, tf.linalg.svd(x)[1][:, :2]) * tf.constant(np.arange(16.0, dtype=np.float32).reshape(4, 4))), [TALL], ulps=64, atol=5e-5),
    "eigh_values": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.eigh(x)[0] * tf.constant([1.0, 2.0, 3.0])), [SPD], ulps=64, atol=1e-6),
    "eigh_projector": Grad(lambda tf, x: tf.reduce_sum(_proj(tf, tf.linalg.eigh(x)[1][:, :1]) * tf.constant(np.arange(9.0, dtype=np.float32).reshape(3, 3))), [SPD], ulps=64, atol=1e-5),
    "norm_euclidean": Grad(lambda tf, x: tf.norm(x), [M], ulps=4),
    "norm_2_matrix": Grad(lambda tf, x: tf.norm(x, ord=2, axis=[0, 1]), [M], ulps=64, atol=1e-6),
    "norm_1_matrix": Grad(lambda tf, x: tf.norm(x, ord=1, axis=[0, 1]), [M], ulps=0),
    "expm": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.expm(x) * tf.constant(M)), [M * 0.3], ulps=64, atol=1e-5),
    "pinv": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.pinv(x) ** 2), [TALL], ulps=64, atol=1e-5),
    # Cancellation in (I - x x^T) g leaves values near zero: an absolute floor.
    "l2_normalize": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.l2_normalize(x, axis=0) * tf.constant(M)), [M], ulps=4, atol=1e-6),
    "trace_band_diag": Grad(lambda tf, x: tf.linalg.trace(x) + tf.reduce_sum(tf.linalg.band_part(x, 1, 0) ** 2) + tf.reduce_sum(tf.linalg.diag_part(x, k=1) * 3.0), [M], ulps=0),
    "matvec": Grad(lambda tf, a, b: tf.reduce_sum(tf.linalg.matvec(a, b) ** 2), [BM, np.array([1.0, -2.0, 0.5], np.float32)], ulps=16, atol=1e-5),
}

GM = np.array([[4.0, 3.0], [6.0, 3.0]], np.float32)

CASES.update({
    "lu": Case(lambda tf: tf.linalg.lu(BM), **LA),
    "lu_int64_perm": lambda tf: tf.linalg.lu(GM, output_idx_type=tf.int64),
    "lu_singular": lambda tf: tf.linalg.lu(np.zeros((2, 2), np.float32)),
    "lu_reconstruct": Case(lambda tf: tf.linalg.lu_reconstruct(*tf.linalg.lu(BM)), **LA),
    "lu_solve": Case(lambda tf: tf.linalg.lu_solve(*tf.linalg.lu(M), RHS), **LA),
    # Eigen and LAPACK may order general eigenvalues differently: compare them sorted.
    "eigvals_sorted": Case(lambda tf: tf.sort(tf.math.real(tf.linalg.eigvals(GM))), **LA),
    "eigvals_dtype": Case(lambda tf: tf.linalg.eigvals(GM.astype(np.float64)), values=False),
    "eig_reconstruct": Case(lambda tf: tf.math.real(tf.matmul(tf.linalg.eig(GM)[1] * tf.linalg.eig(GM)[0][None, :], tf.linalg.inv(tf.linalg.eig(GM)[1]))), **LA),
    "cross": lambda tf: tf.linalg.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    "cross_int_batch": lambda tf: tf.linalg.cross([[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [1, 0, 2]]),
    "cross_bad": lambda tf: tf.linalg.cross([1.0, 0.0], [0.0, 1.0]),
    "normalize": Case(lambda tf: tf.linalg.normalize([3.0, 4.0]), ulps=0),
    "normalize_axis_ord1": Case(lambda tf: tf.linalg.normalize(GM, ord=1, axis=0), ulps=0),
    "matrix_rank": lambda tf: tf.linalg.matrix_rank(SING),
    "matrix_rank_tol": lambda tf: tf.linalg.matrix_rank(np.diag([1.0, 1e-3]).astype(np.float32), tol=1e-2),
    "matrix_rank_batch": lambda tf: tf.linalg.matrix_rank(BM),
    "tensor_diag": lambda tf: tf.linalg.tensor_diag([[1, 2], [3, 4]]),
    "tensor_diag_part": lambda tf: tf.linalg.tensor_diag_part(np.arange(16).reshape(2, 2, 2, 2)),
    "tensor_diag_part_bad": lambda tf: tf.linalg.tensor_diag_part(np.arange(8).reshape(2, 2, 2)),
})

GRADIENTS.update({
    "cross": Grad(lambda tf, a: tf.reduce_sum(tf.linalg.cross(a, tf.constant([[0.5, -1.0, 2.0]])) ** 2), [np.array([[1.0, 2.0, 3.0]], np.float32)], ulps=4),
})

A34 = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
A43 = np.arange(1, 13, dtype=np.int32).reshape(4, 3)

CASES.update({
    "diag_part_band": lambda tf: tf.linalg.diag_part(A34, k=(-1, 2)),
    "diag_part_band_tall_pad": lambda tf: tf.linalg.diag_part(A43, k=(-2, 1), padding_value=-7),
    "diag_part_band_left_right": lambda tf: tf.linalg.diag_part(A34, k=(-2, 1), align="LEFT_RIGHT"),
    "diag_part_band_left_left": lambda tf: tf.linalg.diag_part(A43, k=(-1, 1), align="LEFT_LEFT"),
    "diag_part_band_right_right_batch": lambda tf: tf.linalg.diag_part(np.stack([A34, -A34]), k=(0, 2), align="RIGHT_RIGHT"),
    "diag_part_band_oob": lambda tf: tf.linalg.diag_part(A34, k=(-3, 1)),
    "diag_part_band_reversed": lambda tf: tf.linalg.diag_part(A34, k=(1, -1)),
    "diag_band": lambda tf: tf.linalg.diag(tf.linalg.diag_part(A34, k=(-1, 2)), k=(-1, 2), num_rows=3, num_cols=4),
    "diag_band_square_default": lambda tf: tf.linalg.diag([[1, 2, 0], [3, 4, 5]], k=(-1, 0)),
    "diag_band_align": lambda tf: tf.linalg.diag([[5.0, 6.0], [1.0, 2.0]], k=(0, 1), align="LEFT_LEFT", padding_value=0.5),
    "diag_band_count": lambda tf: tf.linalg.diag([[1, 2], [3, 4]], k=(-2, 0)),
    "set_diag_band": lambda tf: tf.linalg.set_diag(A34, -tf.linalg.diag_part(A34, k=(-1, 1)), k=(-1, 1)),
    "set_diag_band_shape": lambda tf: tf.linalg.set_diag(A34, np.zeros((2, 2), np.float32), k=(-1, 1)),
})

GRADIENTS.update({
    "diag_band": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.diag(x, k=(-1, 1), padding_value=3.0) ** 2), [np.arange(9.0, dtype=np.float32).reshape(3, 3)], ulps=0),
    "diag_part_band": Grad(lambda tf, x: tf.reduce_sum(tf.linalg.diag_part(x, k=(-1, 2)) * tf.constant(np.arange(12.0, dtype=np.float32).reshape(4, 3))), [A34], ulps=0),
})

H = np.random.RandomState(5).rand(1000).astype(np.float16)

CASES.update({
    # A long float16 sum: shows whether the accumulation is wide (TF's reduce_sum) or in float16.
    # Both accumulate in float32 and round once: 1 ulp of the result + float32's reduction
    # bound (a float16 accumulation would be off by many float16 ulps).
    "norm_f16_long": Case(lambda tf: tf.norm(H), ulps=1, n=1001, accumulate="float32"),
    "norm_bf16_long": Case(lambda tf: tf.norm(tf.cast(H, tf.bfloat16)), ulps=1, n=1001,
                           accumulate="float32"),
    "einsum_f16_long": Case(lambda tf: tf.einsum("i,i->", H, H), ulps=1, n=1000,
                            accumulate="float32"),
    "matvec_f16_long": Case(lambda tf: tf.linalg.matvec(H.reshape(10, 100), H[:100]), ulps=1,
                            n=100, accumulate="float32"),
})
