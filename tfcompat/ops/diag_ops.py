"""Diagonals of matrices: `tf.linalg.diag`, `diag_part`, `set_diag` (TF's `MatrixDiagV3` family).

`k` is one diagonal offset or a band `(k0, k1)`, `k0 <= k1` (0 the main
diagonal, positive above it). A band is stored as `[..., k1 - k0 + 1,
max_diag_len]`, diagonal `k1` first; shorter diagonals are padded to
`max_diag_len` as `align` says: `"RIGHT_LEFT"` (TF's default) aligns the
superdiagonals (`d >= 0`) right and the subdiagonals left, `"LEFT_RIGHT"`
the other way, `"LEFT_LEFT"`/`"RIGHT_RIGHT"` both the same. A single
diagonal is a view (`torch.diagonal`); a band is one gather.
"""

from __future__ import annotations

from typing import Any

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._shape_args import int_values

__all__ = ["diag", "diag_part", "set_diag"]

_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _band(k: Any, op: str) -> tuple:
    value = int_values(k, op, attr="k", python_dtype=torch.int32)
    if isinstance(value, int):
        return value, value
    if len(value) == 1:
        return value[0], value[0]
    if len(value) != 2:
        raise invalid(f"diag_index must be a scalar or vector with at most 2 elements, got "
                      f"{value}", op)
    if value[0] > value[1]:
        raise invalid(f"lower_diag_index must not be larger than upper_diag_index: {value[0]} > "
                      f"{value[1]}", op)
    return value[0], value[1]


def _right_aligned(d: int, align: str) -> bool:
    """Whether diagonal `d` is padded on the left (aligned right) under `align`."""
    sup, sub = align.split("_")
    return (sup if d >= 0 else sub) == "RIGHT"


def _check_align(align: str) -> None:
    if align not in _ALIGNS:
        raise ValueError(f"align must be one of {', '.join(_ALIGNS)}, got {align!r}")


def _diag_len(d: int, rows: int, cols: int) -> int:
    return max(0, min(rows + min(d, 0), cols - max(d, 0)))


def _positions(k0: int, k1: int, rows: int, cols: int, align: str, device: torch.device) -> tuple:
    """Where each element of the band `[k1 .. k0]` lives, as flat index tensors: its matrix row
    and column, and its packed `(diagonal, slot)`; plus `max_diag_len`.

    Built from shapes alone with one `arange` per diagonal (no boolean indexing: no host sync).
    """
    max_len = max(_diag_len(d, rows, cols) for d in range(k0, k1 + 1))
    rs, cs, ds, js = [], [], [], []
    for pos, d in enumerate(range(k1, k0 - 1, -1)):
        n = _diag_len(d, rows, cols)
        i = torch.arange(n, device=device)
        offset = max_len - n if _right_aligned(d, align) else 0
        rs.append(i + max(-d, 0))
        cs.append(i + max(d, 0))
        ds.append(torch.full((n,), pos, dtype=torch.int64, device=device))
        js.append(i + offset)
    return torch.cat(rs), torch.cat(cs), torch.cat(ds), torch.cat(js), max_len


def diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1, num_cols: Any = -1,
         padding_value: Any = 0, align: str = "RIGHT_LEFT") -> torch.Tensor:
    """`tf.linalg.diag`: matrices holding `diagonal` on their `k`-th diagonal(s), `padding_value` elsewhere.

    With one `k` the matrices are square of size `N + |k|` unless
    `num_rows`/`num_cols` say otherwise (TF's MatrixDiagV3 rules); a band
    `k = (k0, k1)` takes `diagonal [..., k1 - k0 + 1, max_diag_len]`.
    """
    _check_align(align)
    d = convert_to_tensor(diagonal)
    k0, k1 = _band(k, "MatrixDiagV3")
    band = k0 != k1
    if d.dim() < (2 if band else 1):
        raise invalid(f"diagonal must be at least {2 if band else 1}-dim, received shape: "
                      f"{D.fmt_shape(d.shape)}", "MatrixDiagV3")
    if band and d.shape[-2] != k1 - k0 + 1:
        raise invalid(f"The number of diagonals provided in the input does not match the "
                      f"lower_diag_index and upper_diag_index range. ({d.shape[-2]} vs. "
                      f"{k1 - k0 + 1})", "MatrixDiagV3")
    n = d.shape[-1]
    min_rows, min_cols = n - min(k1, 0), n + max(k0, 0)
    rows = int_values(num_rows, "MatrixDiagV3", attr="num_rows", python_dtype=torch.int32)
    cols = int_values(num_cols, "MatrixDiagV3", attr="num_cols", python_dtype=torch.int32)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if not (rows == min_rows or cols == min_cols) or rows < min_rows or cols < min_cols:
        raise invalid("The number of rows or columns is not consistent with the specified d_lower, "
                      f"d_upper, and diagonal. (num_rows={rows}, num_cols={cols}, k=({k0}, {k1}), "
                      f"diagonal length {n})", "MatrixDiagV3")
    pad = convert_to_tensor(padding_value, dtype=dtypes.from_torch(d.dtype)).to(d.device)
    batch = tuple(d.shape[:-2] if band else d.shape[:-1])
    out = pad.expand(batch + (rows, cols)).clone()
    packed = d if band else d.unsqueeze(-2)
    r, c, di, j, max_len = _positions(k0, k1, rows, cols, align, d.device)
    if max_len != n:
        raise invalid(f"diagonal's last dimension {n} must be the longest diagonal's length "
                      f"{max_len}", "MatrixDiagV3")
    out[..., r, c] = packed[..., di, j]
    return out


def diag_part(input: Any, name: str = "diag_part", k: Any = 0, padding_value: Any = 0,  # noqa: A002
              align: str = "RIGHT_LEFT") -> torch.Tensor:
    """`tf.linalg.diag_part`: the `k`-th diagonal of each matrix (`torch.diagonal`, a view), or a band packed as TF."""
    _check_align(align)
    t = convert_to_tensor(input)
    if t.dim() < 2:
        raise invalid(f"input must be at least 2-dim, received shape: {D.fmt_shape(t.shape)}",
                      "MatrixDiagPartV3")
    k0, k1 = _band(k, "MatrixDiagPartV3")
    rows, cols = t.shape[-2], t.shape[-1]
    if rows and cols:
        for bound, word in ((k0, "lower"), (k1, "upper")):
            if not -rows < bound < cols:
                raise invalid(f"{word}_diag_index is out of bound: {bound}. It must be between "
                              f"{-rows} and {cols}", "MatrixDiagPartV3")
    if k0 == k1:
        return torch.diagonal(t, offset=k0, dim1=-2, dim2=-1)
    r, c, di, j, max_len = _positions(k0, k1, rows, cols, align, t.device)
    pad = convert_to_tensor(padding_value, dtype=dtypes.from_torch(t.dtype)).to(t.device)
    out = pad.expand(tuple(t.shape[:-2]) + (k1 - k0 + 1, max_len)).clone()
    out[..., di, j] = t[..., r, c]
    return out


def set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0,  # noqa: A002
             align: str = "RIGHT_LEFT") -> torch.Tensor:
    """`tf.linalg.set_diag`: a copy of `input` whose `k`-th diagonal(s) are `diagonal` (packed as `diag_part`'s)."""
    _check_align(align)
    t = convert_to_tensor(input)
    if t.dim() < 2:
        raise invalid(f"input must be at least 2-dim, received shape: {D.fmt_shape(t.shape)}",
                      "MatrixSetDiagV3")
    t, dg = D.matched("MatrixSetDiagV3", t, diagonal)
    k0, k1 = _band(k, "MatrixSetDiagV3")
    rows, cols = t.shape[-2], t.shape[-1]
    r, c, di, j, max_len = _positions(k0, k1, rows, cols, align, t.device)
    want = tuple(t.shape[:-2]) + ((k1 - k0 + 1,) if k0 != k1 else ()) + (max_len,)
    if tuple(dg.shape) != want:
        raise invalid(f"diagonal must have shape {D.fmt_shape(want)}, got "
                      f"{D.fmt_shape(dg.shape)}", "MatrixSetDiagV3")
    out = t.clone()
    packed = dg if k0 != k1 else dg.unsqueeze(-2)
    out[..., r, c] = packed[..., di, j]
    return out
