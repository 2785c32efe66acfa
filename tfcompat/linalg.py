"""`tf.linalg`: matrix products, decompositions, solves, structure and norms (re-exports only)."""

from .ops.clip_ops import global_norm
from .ops.linalg_ops import (cholesky, cholesky_solve, det, eig, eigh, eigvals, eigvalsh, expm,
                             inv, logdet, lstsq, lu, lu_reconstruct, lu_solve, pinv, qr, slogdet,
                             solve, svd, triangular_solve)
from .ops.math_ops import matmul
from .ops.diag_ops import diag, diag_part, set_diag
from .ops.matrix_ops import (adjoint, band_part, cross, einsum, eye, matrix_rank, matrix_transpose,
                             matvec, norm, normalize, tensor_diag, tensor_diag_part, tensordot,
                             trace)
from .ops.normalization_ops import l2_normalize  # one implementation with tf.nn's

__all__ = ["matmul", "global_norm",
           "matvec", "inv", "det", "slogdet", "logdet", "solve", "lstsq", "cholesky",
           "cholesky_solve", "qr", "svd", "eigh", "eigvalsh", "norm", "diag", "diag_part",
           "set_diag", "band_part", "trace", "triangular_solve", "expm", "pinv", "l2_normalize",
           "adjoint", "matrix_transpose", "eye", "tensordot", "einsum", "lu", "lu_reconstruct",
           "lu_solve", "eig", "eigvals", "cross", "normalize", "matrix_rank", "tensor_diag",
           "tensor_diag_part"]
