"""Matrix decompositions and solves of `tf.linalg`, over `torch.linalg`.

Every op works on the last two axes, batched over the rest, with TF's
dtype lists: float32/float64/complex64/complex128; float16 only where TF
has a CPU kernel (`inv`, `qr`: computed here in float32 and rounded to
float16, see below); elsewhere float16 is TF's `NotFoundError` (no
kernel) and bfloat16/ints are `InvalidArgumentError`.

Singular inputs follow TF's CPU kernels: `inv` and `solve` raise
`InvalidArgumentError` ("Input is not invertible.") when LU meets an exact
zero pivot, which is also where torch's `inv_ex`/`solve_ex` report
`info > 0`. Reading `info` is a host sync: TF's CPU kernel makes the same
check, and it is free on CPU; on an accelerator (TF's GPU kernels check
asynchronously) nothing is read, and the result holds inf/NaN. `cholesky`
of a matrix that is not positive definite does not raise (TF's CPU kernel
returns a partial factor with NaN; so does this, with other garbage
entries). `triangular_solve` with a zero on the diagonal gives inf, as TF.

Gradients are torch's autograd formulas for the same functions (TF's
are the same mathematics); `svd`, `eigh` and `qr` are unique only up to
signs (phases) of singular/eigen vectors, so compare gauge-invariant
quantities (reconstructions, singular values, projectors) across
libraries. The output order is TF's: `svd` returns `(s, u, v)` with `v`
not transposed, `eigh` returns `(e, v)`.
"""

from __future__ import annotations

import collections
from typing import Any, Optional

import torch

from ..framework import dtypes, errors
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._indices import checks_on_host

__all__ = ["inv", "det", "slogdet", "logdet", "solve", "cholesky", "cholesky_solve", "qr", "svd",
           "eigh", "eigvalsh", "triangular_solve", "lstsq", "expm", "pinv", "lu", "lu_reconstruct",
           "lu_solve", "eig", "eigvals"]

_LINALG = frozenset({torch.float16, torch.float32, torch.float64, torch.complex64,
                     torch.complex128})
_NAMES_DFH = ("double", "float", "half", "complex64", "complex128")
_NAMES_HFD = ("half", "float", "double", "complex64", "complex128")

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])
Qr = collections.namedtuple("Qr", ["q", "r"])


def _matrix(x: Any, op: str, names: tuple = _NAMES_HFD, half: bool = False,
            square: bool = True, attrs: str = "") -> torch.Tensor:
    """`x` as a (batch of) matrices of a dtype `op` has a kernel for."""
    t = convert_to_tensor(x)
    allowed = _LINALG if "half" in names else _LINALG - {torch.float16}
    D.check_dtype(op, t.dtype, allowed, names=names)
    if t.dtype is torch.float16 and not half:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_HALF"
            f"{attrs}]: TF has no float16 kernel for {op}; cast to float32 first.")
    if t.dim() < 2:
        raise invalid(f"Input tensor 0 must have rank >= 2, got {t.dim()}", op)
    if square and t.shape[-1] != t.shape[-2]:
        raise invalid("Input matrix must be square.", op)
    return t


def _in_float32(fn: Any, t: torch.Tensor) -> Any:
    """Run `fn` on a float16 input in float32 (torch has no float16 LAPACK), rounding back."""
    if t.dtype is not torch.float16:
        return fn(t)
    out = fn(t.float())
    if isinstance(out, tuple):
        return tuple(o.half() if o.is_floating_point() else o for o in out)
    return out.half()


def _raise_if_singular(info: torch.Tensor, message: str, op: str) -> None:
    # TF's CPU kernel checks every pivot; on an accelerator nothing is read (no host sync).
    if checks_on_host(info) and info.numel() and bool((info > 0).any()):
        raise invalid(message, op)


def inv(input: Any, adjoint: bool = False, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.linalg.inv`: the inverse of each square matrix (`torch.linalg.inv_ex`).

    `adjoint=True` inverts the conjugate transpose. A singular matrix (an
    exact zero pivot in LU) is `InvalidArgumentError: Input is not
    invertible.` on CPU, as TF. float16 is computed in float32 and rounded
    (TF computes in float16 with Eigen: a few float16 ulps apart).
    """
    t = _matrix(input, "MatrixInverse", _NAMES_DFH, half=True)
    if adjoint:
        t = t.mH
    result, info = _in_float32(torch.linalg.inv_ex, t)
    _raise_if_singular(info, "Input is not invertible.", "MatrixInverse")
    return result


def det(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.linalg.det`: the determinant of each square matrix (`torch.linalg.det`, LU)."""
    t = _matrix(input, "MatrixDeterminant")
    return torch.linalg.det(t)


def slogdet(input: Any, name: Optional[str] = None) -> LogMatrixDeterminant:  # noqa: A002
    """`tf.linalg.slogdet`: `(sign, log_abs_determinant)` of each square matrix.

    A singular matrix gives sign 0 and `-inf` (`torch.linalg.slogdet`).
    """
    t = _matrix(input, "LogMatrixDeterminant")
    sign, logabs = torch.linalg.slogdet(t)
    return LogMatrixDeterminant(sign, logabs)


def logdet(matrix: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.logdet`: log-determinant of Hermitian positive definite matrices.

    As TF: `2 * sum(log(diag(cholesky(matrix))))` (real for complex input).
    """
    c = cholesky(matrix)
    d = torch.diagonal(c, dim1=-2, dim2=-1)
    return 2.0 * torch.sum(torch.log(d.real if d.is_complex() else d), dim=-1)


def solve(matrix: Any, rhs: Any, adjoint: bool = False,
          name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.solve`: `X` with `matrix @ X = rhs` (`adjoint`: `matrix^H @ X = rhs`).

    Batch axes must be equal (TF does not broadcast them); a singular matrix
    is `InvalidArgumentError: Input matrix is not invertible.` on CPU.
    """
    m, b = D.matched("MatrixSolve", matrix, rhs)
    m = _matrix(m, "MatrixSolve", _NAMES_DFH, square=False)
    if b.dim() != m.dim():
        raise invalid("All input tensors must have the same rank.", "MatrixSolve")
    if tuple(b.shape[:-2]) != tuple(m.shape[:-2]):
        raise invalid("All input tensors must have the same outer dimensions.", "MatrixSolve")
    if m.shape[-1] != m.shape[-2]:
        raise invalid("Input matrix must be square.", "MatrixSolve")
    if b.shape[-2] != m.shape[-1]:
        raise invalid("Input matrix and rhs are incompatible.", "MatrixSolve")
    if m.dtype is torch.float16:
        raise errors.NotFoundError(None, None, "Could not find device for node: {{node MatrixSolve}}"
                                   " = MatrixSolve[T=DT_HALF]: cast to float32 first.")
    if b.device != m.device:
        b = b.to(m.device)
    result, info = torch.linalg.solve_ex(m.mH if adjoint else m, b)
    _raise_if_singular(info, "Input matrix is not invertible.", "MatrixSolve")
    return result


def cholesky(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.linalg.cholesky`: the lower-triangular `L` with `L @ L^H = input` (lower triangle read).

    Not positive definite: no error (TF returns NaN in the failed part; the
    entries differ from TF's there).
    """
    t = _matrix(input, "Cholesky", _NAMES_DFH)
    return torch.linalg.cholesky_ex(t).L


def cholesky_solve(chol: Any, rhs: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.cholesky_solve`: `X` with `A X = rhs` given `chol = cholesky(A)` (two triangular solves)."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None) -> Qr:  # noqa: A002
    """`tf.linalg.qr`: `(q, r)` with `input = q @ r`, `q` orthonormal columns, `r` upper-triangular.

    `full_matrices=False` gives `q` `[..., M, min(M, N)]` (`torch.linalg.qr`,
    Householder as TF's, so the same signs). float16 is computed in float32.
    """
    t = _matrix(input, "Qr", _NAMES_DFH, half=True, square=False,
                attrs=f", full_matrices={str(full_matrices).lower()}")
    q, r = _in_float32(lambda x: tuple(torch.linalg.qr(x, mode="complete" if full_matrices
                                                       else "reduced")), t)
    return Qr(q, r)


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: Optional[str] = None) -> Any:
    """`tf.linalg.svd`: `(s, u, v)` with `tensor = u @ diag(s) @ adjoint(v)`; `s` descending.

    TF's order and `v` (not `v^H`: torch returns `Vh`). With
    `compute_uv=False` only `s` (`torch.linalg.svdvals`). Singular vectors
    are unique up to sign (phase), so they may differ from TF's by one.
    """
    t = _matrix(tensor, "Svd", _NAMES_DFH, square=False,
                attrs=f", compute_uv={str(bool(compute_uv)).lower()}, full_matrices="
                      f"{str(bool(full_matrices)).lower()}")
    if not compute_uv:
        return torch.linalg.svdvals(t)
    u, s, vh = torch.linalg.svd(t, full_matrices=full_matrices)
    return s, u, vh.mH


class _LowerTriangleGrad(torch.autograd.Function):
    """Identity forward; backward gives TF's gradient for an op that reads only the lower triangle.

    TF's `SelfAdjointEigV2` gradient is `tril(G + G^H)` with the diagonal
    halved (the upper triangle is never read, so its gradient is zero);
    torch's `eigh` backward returns the unsymmetrised `G`.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        full = g + g.mH
        return torch.tril(full, -1) + torch.diag_embed(0.5 * torch.diagonal(full, dim1=-2, dim2=-1))


def eigh(tensor: Any, name: Optional[str] = None) -> tuple:
    """`tf.linalg.eigh`: `(e, v)`: eigenvalues ascending, eigenvectors as columns (lower triangle read).

    Eigenvectors are unique up to sign (phase, and rotation within repeated
    eigenvalues).
    """
    t = _matrix(tensor, "SelfAdjointEigV2", _NAMES_DFH, attrs=", compute_v=true")
    e, v = torch.linalg.eigh(_LowerTriangleGrad.apply(t))
    return e, v


def eigvalsh(tensor: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.eigvalsh`: the eigenvalues of Hermitian matrices, ascending (`torch.linalg.eigvalsh`)."""
    t = _matrix(tensor, "SelfAdjointEigV2", _NAMES_DFH, attrs=", compute_v=false")
    return torch.linalg.eigvalsh(_LowerTriangleGrad.apply(t))


def triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.triangular_solve`: `X` with `matrix @ X = rhs` for triangular `matrix`.

    Only the `lower` (or upper) triangle is read; `adjoint` solves with
    `matrix^H`. Batch axes broadcast (TF's `MatrixTriangularSolve` V2). A
    zero on the diagonal gives inf/NaN, no error (as TF).
    """
    m, b = D.matched("MatrixTriangularSolve", matrix, rhs)
    low = m.dtype is torch.bfloat16  # TF has a bfloat16 kernel; torch's LAPACK does not
    m = _matrix(m.float() if low else m, "MatrixTriangularSolve",
                ("bfloat16",) + _NAMES_DFH, attrs=f", adjoint={str(adjoint).lower()}, "
                f"lower={str(lower).lower()}")
    b = b.float() if low else b
    if b.dim() < 2:
        raise invalid(f"Input tensor 1 must have rank >= 2, got {b.dim()}", "MatrixTriangularSolve")
    if b.shape[-2] != m.shape[-1]:
        raise invalid(f"In[0] mismatch In[1] shape: {m.shape[-1]} vs. {b.shape[-2]}: "
                      f"{D.fmt_shape(m.shape)} {D.fmt_shape(b.shape)} (the rows of rhs must "
                      "equal the size of matrix)", "MatrixTriangularSolve")
    if not D.broadcastable(m.shape[:-2], b.shape[:-2]):
        raise invalid(f"Incompatible batch shapes: {D.fmt_shape(m.shape[:-2])} vs. "
                      f"{D.fmt_shape(b.shape[:-2])}", "MatrixTriangularSolve")
    if b.device != m.device:
        b = b.to(m.device)
    if adjoint:
        out = torch.linalg.solve_triangular(m.mH, b, upper=lower)
    else:
        out = torch.linalg.solve_triangular(m, b, upper=not lower)
    return out.bfloat16() if low else out


def lstsq(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True,
          name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.lstsq`: `X` minimising `||matrix @ X - rhs||^2 + l2_regularizer * ||X||^2`.

    `fast=True` (TF's default) solves the regularised normal equations by
    Cholesky, as TF: `(A^H A + l2 I)^-1 A^H B` when `M >= N`, else
    `A^H (A A^H + l2 I)^-1 B`; it needs `matrix` of full rank. `fast=False`
    gives the minimum-norm solution from the pseudo-inverse (TF: a complete
    orthogonal decomposition; same solution), where TF ignores `l2_regularizer`.
    """
    a, b = D.matched("MatrixSolveLs", matrix, rhs)
    a = _matrix(a, "Cholesky" if fast else "MatrixSolveLs", _NAMES_DFH, square=False)
    if b.dim() != a.dim() or b.shape[-2] != a.shape[-2]:
        raise invalid(f"Incompatible shapes: matrix {D.fmt_shape(a.shape)} and rhs "
                      f"{D.fmt_shape(b.shape)} (rhs must be [..., M, K] for matrix [..., M, N])",
                      "MatrixSolveLs")
    if b.device != a.device:
        b = b.to(a.device)
    if not fast:
        return torch.linalg.pinv(a) @ b
    lam = convert_to_tensor(l2_regularizer, dtype=dtypes.from_torch(
        a.real.dtype if a.is_complex() else a.dtype))
    m, n = a.shape[-2], a.shape[-1]
    ah = a.mH
    if m >= n:
        gram = ah @ a
        eye = torch.eye(n, dtype=a.dtype, device=a.device)
        chol = torch.linalg.cholesky_ex(gram + lam.to(a.device) * eye).L
        return torch.cholesky_solve(ah @ b, chol)
    gram = a @ ah
    eye = torch.eye(m, dtype=a.dtype, device=a.device)
    chol = torch.linalg.cholesky_ex(gram + lam.to(a.device) * eye).L
    return ah @ torch.cholesky_solve(b, chol)


def expm(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.linalg.expm`: the matrix exponential of each square matrix (`torch.linalg.matrix_exp`).

    Both use scaling and squaring with Padé approximants (Higham); the
    polynomial degrees differ, so results agree to a few ulps, not bit for bit.
    """
    t = convert_to_tensor(input)
    if t.dtype not in _LINALG:
        raise ValueError(f"tf.linalg.expm does not support matrices of type "
                         f"<dtype: '{dtypes.from_torch(t.dtype).name}'>")
    t = _matrix(t, "MatrixSolve", square=False)
    if t.shape[-1] != t.shape[-2]:
        raise ValueError(f"tf.linalg.expm needs square matrices, got shape {list(t.shape)}")
    return torch.linalg.matrix_exp(t)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False,
         name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.pinv`: the Moore-Penrose pseudo-inverse, from the SVD.

    Singular values `<= rcond * max(s)` count as zero; `rcond` defaults to
    TF's `10 * max(M, N) * eps(dtype)` (`torch.linalg.pinv(rtol=rcond)`).
    """
    t = convert_to_tensor(a)
    if not (t.is_floating_point() or t.is_complex()):
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {D.tf_type_name(t.dtype)}).")
    t = _matrix(t, "Svd", _NAMES_DFH, square=False,
                attrs=", compute_uv=true, full_matrices=false")
    if rcond is None:
        real = t.real.dtype if t.is_complex() else t.dtype
        rcond = 10.0 * max(t.shape[-2], t.shape[-1]) * torch.finfo(real).eps
    return torch.linalg.pinv(t, rtol=rcond)


Lu = collections.namedtuple("Lu", ["lu", "p"])


def lu(input: Any, output_idx_type: Any = dtypes.int32,  # noqa: A002
       name: Optional[str] = None) -> Lu:
    """`tf.linalg.lu`: `(lu, p)` with `input[..., p, :] = L @ U` (partial pivoting, `torch.linalg.lu_factor_ex`).

    `lu` packs the unit lower `L` (below the diagonal) and `U`; `p` is the
    row permutation (not LAPACK's swap list). A singular matrix is
    `InvalidArgumentError: Input is not invertible.` on CPU, as TF.
    """
    t = _matrix(input, "Lu", _NAMES_DFH)
    idx = dtypes.to_torch(output_idx_type)
    D.check_dtype("Lu", idx, D.INT32_64, attr="output_idx_type")
    packed, pivots, info = torch.linalg.lu_factor_ex(t)
    _raise_if_singular(info, "Input is not invertible.", "Lu")
    perm, _, _ = torch.lu_unpack(packed, pivots, unpack_data=False)
    # A = P L U, so row i of L U is row p[i] of A: p is where each column of P has its 1.
    return Lu(packed, perm.argmax(dim=-2).to(idx))


def _unpack_lu(lower_upper: torch.Tensor) -> tuple:
    n = lower_upper.shape[-1]
    eye = torch.eye(n, dtype=lower_upper.dtype, device=lower_upper.device)
    return torch.tril(lower_upper, -1) + eye, torch.triu(lower_upper)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False,
                   name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.lu_reconstruct`: the matrix `A` that `tf.linalg.lu` factored into `(lower_upper, perm)`."""
    packed = _matrix(lower_upper, "MatMul", _NAMES_DFH)
    p = convert_to_tensor(perm).to(packed.device, torch.int64)
    low, up = _unpack_lu(packed)
    rows = low @ up
    inverse = torch.argsort(p, dim=-1)
    return rows.gather(-2, inverse.unsqueeze(-1).expand(rows.shape))


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False,
             name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.lu_solve`: `X` with `A X = rhs`, given `(lower_upper, perm) = tf.linalg.lu(A)`."""
    packed, b = D.matched("MatrixTriangularSolve", lower_upper, rhs)
    packed = _matrix(packed, "MatrixTriangularSolve", _NAMES_DFH)
    p = convert_to_tensor(perm).to(packed.device, torch.int64)
    if b.dim() < 2 or b.shape[-2] != packed.shape[-1]:
        raise invalid(f"rhs must be [..., {packed.shape[-1]}, K], got {D.fmt_shape(b.shape)}",
                      "MatrixTriangularSolve")
    permuted = b.gather(-2, p.unsqueeze(-1).expand(p.shape + (b.shape[-1],)))
    y = torch.linalg.solve_triangular(packed, permuted, upper=False, unitriangular=True)
    return torch.linalg.solve_triangular(packed, y, upper=True)


def eig(tensor: Any, name: Optional[str] = None) -> tuple:
    """`tf.linalg.eig`: `(e, v)`, complex eigenvalues and unit eigenvectors of general square matrices.

    `torch.linalg.eig` (LAPACK geev; TF: Eigen): the eigenvalues' order and
    each eigenvector's phase may differ from TF's.
    """
    t = _matrix(tensor, "Eig", ("float", "double", "complex64", "complex128"))
    e, v = torch.linalg.eig(t)
    return e, v


def eigvals(tensor: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.eigvals`: the complex eigenvalues of general square matrices (order may differ from TF's)."""
    t = _matrix(tensor, "Eig", ("float", "double", "complex64", "complex128"))
    return torch.linalg.eigvals(t)
