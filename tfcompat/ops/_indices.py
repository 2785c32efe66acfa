"""Index arguments of TF's gather/scatter ops, and what happens out of range.

TF's kernels disagree by device, and tfcompat follows each:

* on CPU an index outside `[0, n)` is an `InvalidArgumentError` naming
  the first bad position (`indices[1,0] = 5 is not in [0, 3)`);
* on GPU nothing is checked: a gather reads zeros and a scatter skips the
  update. Checking would cost a device-to-host sync per call, which TF does
  not pay either, so tensors on an accelerator get TF's GPU behaviour.

`checks_on_host` is that policy for every data-dependent check TF's CPU
kernels make (indices, integer division by zero, negative integer powers).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework.tensor_conversion import convert_to_tensor_on
from . import _dispatch as D

__all__ = ["index_tensor", "checks_on_host", "all_in_range", "first_bad", "position", "in_range"]

INDEX_TYPES = frozenset({torch.int16, torch.int32, torch.int64})


def index_tensor(indices: Any, op: str, attr: str = "Tindices", allowed: frozenset = INDEX_TYPES,
                 device: Optional[torch.device] = None) -> torch.Tensor:
    """`indices` as an integer tensor of a dtype TF's op accepts.

    Python or NumPy indices are made on `device` (the data's), where given.
    """
    t = convert_to_tensor_on(device, indices)
    D.check_dtype(op, t.dtype, allowed, attr=attr)
    return t


def checks_on_host(t: torch.Tensor) -> bool:
    """Whether TF validates data on `t`'s device (its CPU kernels do; reading is free there)."""
    return t.device.type == "cpu"


def all_in_range(idx: torch.Tensor, n: int) -> bool:
    """Whether every index is in `[0, n)`: the fast check before looking for the bad one."""
    if idx.numel() == 0:
        return True
    lo, hi = torch.aminmax(idx)
    return bool(lo >= 0) and bool(hi < n)


def position(shape: tuple, flat: int) -> str:
    """TF's rendering of an element position: `[1,2]`, or `` for a scalar."""
    if not shape:
        return ""
    coords = []
    for n in reversed(shape):
        coords.append(flat % n)
        flat //= n
    return "[" + ",".join(str(c) for c in reversed(coords)) + "]"


def first_bad(bad: torch.Tensor) -> int:
    """Flat position of the first True in `bad`, or -1."""
    flat = bad.reshape(-1)
    if flat.numel() == 0 or not bool(flat.any()):
        return -1
    return int(torch.argmax(flat.to(torch.uint8)))


def in_range(idx: torch.Tensor, n: int) -> torch.Tensor:
    return (idx >= 0) & (idx < n)
