"""Matrix structure and contractions: `eye`, `band_part`, `trace`, `norm`, `einsum`, `tensordot`, ...

The structural ops (`band_part`, `trace`,
`matrix_transpose`, `adjoint`; the diagonals in `diag_ops`) take any dtype
TF's kernels take (ints included) and work on the last two axes. `norm` follows
TF's Python formula (`sqrt(reduce_sum(x * conj(x)))`), not torch's scaled
`vector_norm`, so it rounds as TF does. `einsum` validates the equation
and the operand shapes with TF's rules (labels must have equal sizes; only
`...` broadcasts) before calling `torch.einsum`.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, Optional

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import dtypes, errors
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from . import _dispatch as D
from . import math_ops
from ._shape_args import int_values, shape_arg
from . import exact_math

__all__ = ["eye", "matvec", "band_part", "trace",
           "matrix_transpose", "adjoint", "norm", "einsum", "tensordot", "cross",
           "normalize", "matrix_rank", "tensor_diag", "tensor_diag_part"]


def eye(num_rows: int, num_columns: Optional[int] = None, batch_shape: Any = None,
        dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.eye`: `batch_shape + [num_rows, num_columns]` identity matrices (`torch.eye`), on the current device."""
    cols = num_rows if num_columns is None else num_columns
    for v in (num_rows, cols):
        if isinstance(v, torch.Tensor):
            continue
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer "
                            f"values. Received: num_rows={num_rows}, num_columns={num_columns}")
    rows, cols = int_values(num_rows, "Fill", attr="T"), int_values(cols, "Fill", attr="T")
    batch = () if batch_shape is None else shape_arg(batch_shape, "Fill")
    for d in (rows, cols):
        if d < 0:
            raise invalid(f"Dimension {d} must be >= 0", "Fill")
    out = torch.eye(rows, cols, dtype=dtypes.to_torch(dtype),
                    device=device_lib.current_torch_device())
    return out.expand(batch + (rows, cols)).clone() if batch else out


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.matvec`: `a @ b` for matrices `a [..., M, N]` and vectors `b [..., N]` (batch axes broadcast)."""
    at, bt = D.hinted("MatMul", a, b, allowed=D.NUMERIC)
    if at.dim() < 2 or bt.dim() < 1:
        return math_ops.matmul(at, bt.unsqueeze(-1) if bt.dim() else bt, transpose_a=transpose_a,
                               adjoint_a=adjoint_a)  # its errors
    if transpose_a or adjoint_a:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        at = at.mH if adjoint_a and at.is_complex() else at.transpose(-1, -2)
    if at.shape[-1] != bt.shape[-1]:
        raise invalid(f"Matrix size-incompatible: In[0]: {list(at.shape)}, In[1]: "
                      f"{list(bt.shape) + [1]}", "MatMul")
    return D.run(torch.matmul, at, bt.unsqueeze(-1)).squeeze(-1)


def _matrix_input(x: Any, op: str) -> torch.Tensor:
    t = convert_to_tensor(x)
    if t.dim() < 2:
        raise invalid(f"input must be at least 2-dim, received shape: {D.fmt_shape(t.shape)}", op)
    return t


def band_part(input: Any, num_lower: Any, num_upper: Any,  # noqa: A002
              name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.band_part`: keep `num_lower` subdiagonals and `num_upper` superdiagonals (negative: all), zero the rest."""
    t = _matrix_input(input, "MatrixBandPart")
    lo = int_values(num_lower, "MatrixBandPart", attr="Tindex", python_dtype=torch.int64)
    hi = int_values(num_upper, "MatrixBandPart", attr="Tindex", python_dtype=torch.int64)
    rows, cols = t.shape[-2], t.shape[-1]
    if lo > rows:
        raise invalid(f"num_lower must be negative or less or equal to number of rows ({rows}) "
                      f"got: {lo}", "MatrixBandPart")
    if hi > cols:
        raise invalid(f"num_upper must be negative or less or equal to number of columns ({cols}) "
                      f"got: {hi}", "MatrixBandPart")
    i = torch.arange(rows, device=t.device).unsqueeze(-1)
    j = torch.arange(cols, device=t.device)
    keep = torch.ones((rows, cols), dtype=torch.bool, device=t.device)
    if lo >= 0:
        keep &= (i - j) <= lo
    if hi >= 0:
        keep &= (j - i) <= hi
    return torch.where(keep, t, torch.zeros((), dtype=t.dtype, device=t.device))


def trace(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.trace`: the sum of each matrix's main diagonal, in the input dtype."""
    t = _matrix_input(x, "MatrixDiagPartV3")
    return torch.diagonal(t, dim1=-2, dim2=-1).sum(-1, dtype=t.dtype)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> torch.Tensor:
    """`tf.linalg.matrix_transpose`: swap the last two axes (`conjugate`: also conjugate); a view."""
    t = convert_to_tensor(a)
    if t.dim() < 2:
        raise ValueError("Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
                         f"{t.detach().cpu().numpy()} with shape: {tuple(t.shape)}")
    return t.mH if conjugate and t.is_complex() else t.transpose(-1, -2)


def adjoint(matrix: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.adjoint`: the conjugate transpose of the last two axes."""
    return matrix_transpose(matrix, conjugate=True)


_NORM_NAMES = ("bfloat16", "half", "float", "double", "complex64", "complex128")
_NORM_TYPES = D.FLOATS | D.COMPLEX


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None,  # noqa: A002
         name: Optional[str] = None) -> torch.Tensor:
    """`tf.norm` / `tf.linalg.norm`: vector norms (`axis` None or int) or matrix norms (`axis` a pair).

    Vector `ord`: 'euclidean', 1, 2, np.inf or any real p > 0; matrix
    `ord`: 'euclidean'/'fro', 1, 2 (the largest singular value), np.inf.
    Computed with TF's formulas in the input dtype.
    """
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not all(type(a) is int for a in axis) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, got "
                             f"{axis}")
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError("'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                             f"inf], got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, got "
                             f"{axis}")
        if ord not in ("euclidean", 1, 2, np.inf) and (isinstance(ord, str) or not np.isreal(ord)
                                                       or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    t = convert_to_tensor(tensor)
    D.check_dtype("Sqrt" if ord in ("euclidean", "fro", 2) else "Abs", t.dtype, _NORM_TYPES,
                  names=_NORM_NAMES)
    rank = t.dim()
    dims = tuple(range(rank)) if axis is None else tuple(a % rank if -rank <= a < rank else a
                                                         for a in axis)
    for a in dims:
        if not 0 <= a < rank:
            raise invalid(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)",
                          "Sum")
    if ord in ("fro", "euclidean") or (ord == 2 and not matrix):
        sq = t * t.conj() if t.is_complex() else t * t
        result = exact_math.sqrt(torch.sum(sq, dim=dims, keepdim=True))
    elif ord == 2:
        rest = [d for d in range(rank) if d not in dims]
        permed = t.permute(rest + list(dims))
        s = torch.linalg.svdvals(permed)
        top = torch.amax(s.abs(), dim=-1, keepdim=True).unsqueeze(-1)
        inverse = [0] * rank
        for pos, d in enumerate(rest + list(dims)):
            inverse[d] = pos
        result = top.permute(inverse)
    else:
        result = t.abs()
        if ord == 1:
            result = torch.sum(result, dim=dims[:1] if axis is not None else dims, keepdim=True)
            if matrix:
                result = torch.amax(result, dim=dims[-1], keepdim=True)
        elif ord == np.inf:
            if matrix:
                result = torch.sum(result, dim=dims[1], keepdim=True)
            result = torch.amax(result, dim=dims[:1] if axis is not None else dims, keepdim=True)
        else:
            p = torch.tensor(float(ord), dtype=result.dtype)
            result = torch.pow(torch.sum(torch.pow(result, p), dim=dims, keepdim=True), 1.0 / p)
    if not keepdims:
        result = result.squeeze(dims) if axis is not None else result.reshape(())
    return result


_EINSUM_TYPES = frozenset({torch.bfloat16, torch.float16, torch.float32, torch.float64,
                           torch.int32, torch.int64, torch.complex64, torch.complex128})


@functools.lru_cache(maxsize=256)
def _parse_einsum(equation: str) -> tuple:
    """`(compact equation, operand subscripts, output subscripts or None)`; TF's equation errors."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if not re.fullmatch(r"[A-Za-z,.>-]*", eq) or any(s.count("...") > 1 or
                                                      s.replace("...", "").count(".")
                                                      for s in subs + [rhs]):
        raise ValueError(f"Invalid einsum equation: {equation!r}: use letters, ',', '->' and at "
                         "most one '...' per operand.")
    if arrow:
        out = rhs.replace("...", "")
        present = set(lhs.replace("...", "").replace(",", ""))
        for label in out:
            if label not in present:
                raise ValueError(f"Output subscripts contain the label {label} not present in the "
                                 "input subscripts.")
            if out.count(label) > 1:
                raise ValueError(f"Output subscripts contain a label appearing more than once: "
                                 f"{equation}")
    return eq, tuple(subs), rhs if arrow else None


def _einsum_check(equation: str, shapes: list) -> str:
    """TF's validation of an einsum equation against its operands' shapes; the compact equation."""
    eq, subs, _ = _parse_einsum(equation)
    if len(subs) != len(shapes):
        raise ValueError(f'Got {len(shapes)} inputs for equation "{equation}", expecting '
                         f"{len(subs)}")
    sizes: dict = {}
    for i, (s, shape) in enumerate(zip(subs, shapes)):
        labels = s.replace("...", "")
        if "..." in s:
            if len(shape) < len(labels):
                raise invalid(f"Expected input {i} to have rank at least {len(labels)} but got: "
                              f"{len(shape)}", "Einsum")
            head = s.index("...")
            named = list(shape[:head]) + list(shape[len(shape) - (len(labels) - head):])
        else:
            if len(shape) != len(labels):
                raise invalid(f"Expected input {i} to have rank {len(labels)} but got: "
                              f"{len(shape)}", "Einsum")
            named = list(shape)
        for axis, (label, n) in enumerate(zip(labels, named)):
            if sizes.setdefault(label, n) != n:
                raise invalid(f"Expected dimension {sizes[label]} at axis {axis} of the input "
                              f"shaped {D.fmt_shape(shape)} but got dimension {n}", "Einsum")
    return eq


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> torch.Tensor:
    """`tf.einsum`: Einstein summation (`torch.einsum`) with TF's equation and shape checks.

    Implicit output (no `->`) lists the labels that appear once, sorted, as
    numpy; `...` broadcasts, named labels must agree in size. Operands share
    the first one's dtype (Python/numpy ones are converted to it).
    """
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {sorted(kwargs)}")
    ts = D.matched("Einsum", *inputs) if inputs else []
    if ts and ts[0].dtype not in _EINSUM_TYPES:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node Einsum}}}} = Einsum[N={len(ts)}, "
            f"T=DT_{D.tf_type_name(ts[0].dtype).upper()}, equation=\"{equation}\"]: TF has no "
            "einsum kernel for this dtype; cast first.")
    eq = _einsum_check(equation, [t.shape for t in ts])
    out = torch.einsum(eq, *(D.same_device(ts) if len(ts) > 1 else ts))
    # torch sums integers into int64; TF keeps the input dtype.
    return out if not ts or out.dtype is ts[0].dtype else out.to(ts[0].dtype)


def _axes_list(v: Any) -> list:
    if isinstance(v, torch.Tensor):
        v = v.tolist()
    return [int(v)] if isinstance(v, (int, np.integer)) else [int(a) for a in v]


def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.tensordot`: contract `a`'s `axes[0]` with `b`'s `axes[1]` (`torch.tensordot`).

    `axes` an int N means `a`'s last N axes with `b`'s first N.
    """
    at, bt = convert_to_tensor(a), convert_to_tensor(b)
    if isinstance(axes, (int, np.integer)) or (isinstance(axes, torch.Tensor) and axes.dim() == 0):
        n = int(axes)
        if n < 0:
            raise ValueError(f"'axes' must be at least 0, got {n}.")
        if n > at.dim() or n > bt.dim():
            raise ValueError("`axes` must not be larger than the number of dimensions of tensor "
                             f"{at if n > at.dim() else bt}.  Received {n}, vs tensor dimensions "
                             f"{min(at.dim(), bt.dim())}.")
        a_axes, b_axes = list(range(at.dim() - n, at.dim())), list(range(n))
    else:
        pair = axes.tolist() if isinstance(axes, torch.Tensor) else list(axes)
        if len(pair) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = _axes_list(pair[0]), _axes_list(pair[1])
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != "
                             f"{len(b_axes)}.")
    if bt.dtype is not at.dtype:
        raise D.mismatch("MatMul", 1, at.dtype, bt.dtype)
    a_axes = [x % at.dim() if at.dim() else x for x in a_axes]
    b_axes = [x % bt.dim() if bt.dim() else x for x in b_axes]
    for x, y in zip(a_axes, b_axes):
        if at.shape[x] != bt.shape[y]:
            ka, kb = math.prod(at.shape[i] for i in a_axes), math.prod(bt.shape[i] for i in b_axes)
            raise invalid(f"Matrix size-incompatible: contracting {ka} elements of a (axes "
                          f"{a_axes} of {D.fmt_shape(at.shape)}) with {kb} of b (axes {b_axes} of "
                          f"{D.fmt_shape(bt.shape)})", "MatMul")
    D.check_dtype("MatMul", at.dtype, D.NUMERIC)
    return D.run(torch.tensordot, at, bt, dims=(a_axes, b_axes))


def cross(a: Any, b: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.cross`: pairwise cross products of the 3-vectors in the last axis (`torch.linalg.cross`)."""
    at, bt = D.matched("Cross", a, b, allowed=D.REAL)
    if at.shape != bt.shape:
        raise invalid(f"Both inputs must be of same shape: {D.fmt_shape(at.shape)} vs. "
                      f"{D.fmt_shape(bt.shape)}", "Cross")
    if at.dim() < 1 or at.shape[-1] != 3:
        raise errors.FailedPreconditionError(
            None, None, "Cross-products are only defined for 3-element vectors. [Op:Cross]")
    return D.run(torch.linalg.cross, at, bt)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
              name: Optional[str] = None) -> tuple:
    """`tf.linalg.normalize`: `(tensor / norm, norm)` with `norm = tf.norm(tensor, ord, axis, keepdims=True)`."""
    t = convert_to_tensor(tensor)
    n = norm(t, ord=ord, axis=axis, keepdims=True)
    if axis is None:
        n = n.reshape((1,) * max(t.dim(), 1)) if t.dim() else n
    return t / n, n


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False,
                name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.matrix_rank`: the number of singular values above `tol` (int32).

    `tol` defaults to TF's `max(M, N) * eps(dtype) * max(s)`.
    """
    t = convert_to_tensor(a)
    D.check_dtype("Svd", t.dtype, (D.FLOATS | D.COMPLEX) - {torch.bfloat16, torch.float16},
                  names=("double", "float", "half", "complex64", "complex128"))
    s = torch.linalg.svdvals(t)
    if tol is None:
        real = t.real.dtype if t.is_complex() else t.dtype
        cutoff = max(t.shape[-2], t.shape[-1]) * torch.finfo(real).eps * torch.amax(
            s, dim=-1, keepdim=True)
    else:
        cutoff = convert_to_tensor_on(s.device, tol, dtype=dtypes.from_torch(s.dtype))
        cutoff = cutoff.unsqueeze(-1) if cutoff.dim() else cutoff
    return torch.sum(s > cutoff, dim=-1, dtype=torch.int32)


def tensor_diag(diagonal: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.linalg.tensor_diag`: `out[i1..ik, i1..ik] = diagonal[i1..ik]`, zeros elsewhere (shape doubled)."""
    d = convert_to_tensor(diagonal)
    if d.dim() == 0:
        raise invalid("Input must be at least rank 1, got 0", "Diag")
    return torch.diag_embed(d.reshape(-1)).reshape(tuple(d.shape) * 2)


def tensor_diag_part(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.linalg.tensor_diag_part`: the inverse of `tensor_diag` for an input of shape `s + s`."""
    t = convert_to_tensor(input)
    k = t.dim() // 2
    if t.dim() == 0 or t.dim() % 2 or tuple(t.shape[:k]) != tuple(t.shape[k:]):
        raise invalid("The rank of the tensor should be even and positive, got shape "
                      f"{D.fmt_shape(t.shape)} (and its two halves must match)", "DiagPart")
    n = math.prod(t.shape[:k])
    return torch.diagonal(t.reshape(n, n)).reshape(tuple(t.shape[:k]))
