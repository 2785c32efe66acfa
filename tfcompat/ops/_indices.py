"""Index arguments of TF's gather/scatter ops, and what happens out of range.

TF's kernels disagree by device, and tfcompat follows each:

* on CPU an index outside `[0, n)` is an `InvalidArgumentError` naming
  the first bad position (`indices[1,0] = 5 is not in [0, 3)`);
* on GPU nothing is checked: a gather reads zeros and a scatter skips the
  update. Checking would cost a device-to-host sync per call, which TF does
  not pay either, so tensors on an accelerator get TF's GPU behaviour.

`checks_on_host` is that policy for every data-dependent check TF's CPU
kernels make (indices, integer division by zero, negative integer powers).

`host_as_accelerator()` is its one switch: inside the block, CPU tensors
get the accelerator's policy too (nothing is validated by reading data), so
a CPU-only test run makes exactly the host reads a GPU run makes. Every
module that asks `checks_on_host` sees it (it is read at each call, not
bound at import). `tfcompat.testing.accelerator_policy()` is the public
name for tests.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional, Union

import torch

from ..framework.tensor_conversion import convert_to_tensor_on
from . import _dispatch as D

__all__ = ["index_tensor", "checks_on_host", "host_as_accelerator", "all_in_range", "first_bad", "position",
           "in_range"]

INDEX_TYPES = frozenset({torch.int16, torch.int32, torch.int64})


def index_tensor(indices: Any, op: str, attr: str = "Tindices", allowed: frozenset = INDEX_TYPES,
                 device: Optional[torch.device] = None) -> torch.Tensor:
    """`indices` as an integer tensor of a dtype TF's op accepts.

    Python or NumPy indices are made on `device` (the data's), where given.
    """
    t = convert_to_tensor_on(device, indices)
    D.check_dtype(op, t.dtype, allowed, attr=attr)
    return t


# Depth of the `host_as_accelerator()` blocks open in the process (0: CPU tensors are checked).
_host_as_accelerator = 0
_switch_lock = threading.Lock()


def checks_on_host(t: Union[torch.Tensor, torch.device]) -> bool:
    """Whether TF validates data on the device of `t` (a tensor or a device).

    TF's CPU kernels do (and reading is free there); its GPU kernels do
    not. Inside `host_as_accelerator()`, CPU tensors answer as an
    accelerator's.
    """
    device = t if isinstance(t, torch.device) else t.device
    return device.type == "cpu" and not _host_as_accelerator


@contextlib.contextmanager
def host_as_accelerator() -> Iterator[None]:
    """Inside the block, `checks_on_host` is False for CPU tensors too (the accelerator's policy).

    The switch is process-wide (every thread sees it, as autograd's worker
    threads must) and nests; it changes no data, only which checks run.
    A `ResourceVariable` asks once, when it is created.
    """
    global _host_as_accelerator
    with _switch_lock:
        _host_as_accelerator += 1
    try:
        yield
    finally:
        with _switch_lock:
            _host_as_accelerator -= 1


class _Tracing(threading.local):
    """While this thread traces a compiled region (`keras/engine/compiled_step.py`), range
    checks are not decided at trace time: each appends its condition, a boolean tensor the
    region returns, to `checks`; the region's caller tests them after every run (and replays
    the step eagerly, for TF's error, if one fails)."""
    checks: Optional[list] = None


tracing = _Tracing()


def all_in_range(idx: torch.Tensor, n: int) -> bool:
    """Whether every index is in `[0, n)`: the fast check before looking for the bad one."""
    if idx.numel() == 0:
        return True
    checks = tracing.checks
    if checks is not None:
        checks.append(((idx >= 0) & (idx < n)).all())
        return True
    lo, hi = torch.aminmax(idx)
    return lo.item() >= 0 and hi.item() < n


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
