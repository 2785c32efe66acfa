"""`tf.linalg`: matrix products, decompositions, solves, structure and norms (re-exports only)."""

from .ops.clip_ops import global_norm
from .ops.linalg_ops import (cholesky, cholesky_solve, det, eigh, eigvalsh, expm, inv, logdet,
                             lstsq, pinv, qr, slogdet, solve, svd, triangular_solve)
from .ops.math_ops import matmul
from .ops.matrix_ops import (adjoint, band_part, diag, diag_part, einsum, eye, l2_normalize,
                             matrix_transpose, matvec, norm, set_diag, tensordot, trace)

__all__ = ["matmul", "global_norm",
           "matvec", "inv", "det", "slogdet", "logdet", "solve", "lstsq", "cholesky",
           "cholesky_solve", "qr", "svd", "eigh", "eigvalsh", "norm", "diag", "diag_part",
           "set_diag", "band_part", "trace", "triangular_solve", "expm", "pinv", "l2_normalize",
           "adjoint", "matrix_transpose", "eye", "tensordot", "einsum"]
