"""The storage cell behind a variable: copy-on-write reads, locked writes.

TF's contract (the RFC's point): a read returns an immutable tensor; later
writes to the variable never change it, and nothing done to the read can
change the variable. Torch tensors are mutable, so both directions matter:
`x = v.read_value(); x += 1` must leave `v` alone, and `v.assign_add(1)`
must leave `x` alone.

Copying on every read costs a copy per read; copying on every write costs a
copy per optimizer step. Neither is acceptable in a training loop. A read is
instead a *lazy clone* (`torch._lazy_clone`, torch's copy-on-write storage):
the read and the variable share memory until one of them is written, and
torch's kernels make the writer's copy at that moment, whichever side it
is (an in-place op on the read, a numpy array of the read that is written,
an assign to the variable). Kernels that only read the data, matmuls,
elementwise ops, reductions, gathers, never copy. So:

* reads cost one small allocation of tensor metadata (no data copy);
* an assign with no live read is in place (a dead read leaves no trace);
* a read someone keeps costs one copy, at the next write, on the writer;
* a write to a read copies the read, never the variable.

Writes and reads of one cell are serialized by a lock (TF takes the
variable's mutex), so a read in one thread never sees a write in another
half done. The lock is shared by every cell on one device: an optimizer's
multi-tensor kernel over thousands of variables takes it once.

The cell is the *storage protocol* the rest of tfcompat uses (the optimizer
kernels, strategies, checkpoints): `snapshot()` to read, `value` to update
in place while holding `lock`, `replace()` for new storage, `token()` to
validate a host-side mirror of the value. `tf.Variable._storage()` gives a
variable's cell (None for variables that keep their value elsewhere).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Optional

import torch

from ..framework.copy_on_write import owned as _owned
from ..framework.copy_on_write import snapshot_of
from ..framework import variable_protocol as protocol

_LAZY = hasattr(torch.Tensor, "_lazy_clone")

__all__ = ["Resource", "Storage", "device_lock", "snapshot_of", "same_token"]

_device_locks: dict = {}
_device_locks_guard = threading.Lock()


def device_lock(device: torch.device) -> "threading.RLock":
    """The lock of every storage cell on `device` (reentrant)."""
    lock = _device_locks.get(device)
    if lock is None:
        with _device_locks_guard:
            lock = _device_locks.setdefault(device, threading.RLock())
    return lock


_uids = itertools.count()
# shared_name -> Resource, for `Variable.from_proto` (TF's resource manager).
_live: "weakref.WeakValueDictionary[str, Resource]" = weakref.WeakValueDictionary()


class Resource:
    """One variable's storage cell.

    `value` is the live tensor. Read it through `snapshot()`; write it in
    place only while holding `lock` (torch's copy-on-write moves the writer
    to new memory if a read still shares it); give it a new tensor with
    `replace()`. `handed_out` counts the times the live tensor was given to
    code outside tfcompat (`Variable.handle`), which may write it without
    torch noticing (a collective, a numpy view): see `token()`.
    """

    __slots__ = ("value", "lock", "shared_name", "uid", "handed_out", "_anchor", "_anchor_of",
                 "__weakref__")

    def __init__(self, value: torch.Tensor, name: str) -> None:
        self.value = _owned(value)
        self._anchor: Optional[torch.Tensor] = None
        self._anchor_of: Optional[torch.Tensor] = None
        self.lock = device_lock(value.device)
        self.handed_out = 0
        self.uid = next(_uids)
        self.shared_name = f"{name}_{self.uid}"
        _live[self.shared_name] = self

    def snapshot(self) -> torch.Tensor:
        """The current value, as a tensor no later write changes and no write to it changes."""
        with self.lock:
            # (the cell's memory is torch's, `owned`, so the clone is lazy: no copy)
            return self.value._lazy_clone() if _LAZY else snapshot_of(self.value)

    def anchor(self) -> torch.Tensor:
        """The gradient anchor: a `requires_grad` alias of the live tensor (hold `lock`).

        `GradientTape` hands out copy-on-write clones of it as the reads it
        differentiates. It is made once per storage and kept across tapes
        and steps (an alias: no memory of its own); no read is ever the
        anchor itself, and no op but those clones uses it, so nothing a
        user holds aliases the variable. Tapes never differentiate at the
        anchor, only at their reads' own autograd nodes.
        """
        value = self.value
        if self._anchor_of is not value:
            self._anchor = value.detach().requires_grad_(True)
            self._anchor_of = value
        return self._anchor

    def exclusive(self) -> torch.Tensor:
        """The live tensor, for an in-place write (hold `lock` while writing)."""
        return self.value

    def replace(self, value: torch.Tensor) -> None:
        """Make `value` (a tensor nobody else holds) the new storage."""
        value = _owned(value)
        with self.lock:
            self.value = value
            self._anchor = self._anchor_of = None  # (the old storage is not kept alive)

    def hand_out(self) -> torch.Tensor:
        """The live tensor for outside code (`Variable.handle`); invalidates host mirrors."""
        self.handed_out += 1
        return self.value

    def token(self) -> tuple:
        """What a host-side copy of the value must match to still be valid.

        Every write through tfcompat either replaces `value` or bumps torch's
        version counter of it; a write by outside code needs the live tensor,
        which only `hand_out` gives. A mirror recorded with `token()` is valid
        while `token()` compares equal (`same_token`).
        """
        value = self.value
        return (value, value._version, self.handed_out)


protocol.set_storage_index(_live.values)


def same_token(a: Optional[tuple], b: tuple) -> bool:
    """Whether two `Resource.token()`s describe the same value."""
    return a is not None and a[0] is b[0] and a[1] == b[1] and a[2] == b[2]


Storage = Resource


def lookup(shared_name: str) -> Optional[Resource]:
    """The live resource with this shared name, if any."""
    return _live.get(shared_name)
