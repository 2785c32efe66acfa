"""The storage cell behind a variable, with copy-on-write snapshots.

TF's contract (the RFC's point): a read returns an immutable snapshot; later
assigns never change it. The naive way, copying the value on every read,
costs a full copy per read; copying on every write costs a full copy per
optimizer step. Neither is acceptable for a training loop.

`Resource` gives both cheap reads and in-place writes:

* a read hands out an *alias* of the current storage (`tensor.detach()`,
  no copy) and marks the resource `aliased`;
* a write first asks for exclusive storage. If the resource was never read
  since the last write, the storage is private and the write is in place.
  If it was read, torch's storage reference count says whether any alias is
  still alive (a snapshot a user kept, a tensor autograd saved for
  backward). Only then is the storage replaced by a fresh buffer (the
  "copy" of copy-on-write), leaving the old one to its readers.

In a training loop the forward pass's reads are dead by the time the
optimizer runs (the tape has released them), so the optimizer updates in
place: no per-step copies. A snapshot a user keeps costs exactly one copy,
at the next write.

Views of an alias keep the storage alive too, so `v.read_value()[0]` is
protected like the read itself. What is *not* protected is `handle`: the
live tensor itself, for torch interop that wants to mutate the variable.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Optional

import torch

__all__ = ["Resource", "storage_is_shared"]

_STORAGE_USE_COUNT = getattr(torch._C, "_storage_Use_Count", None)


def storage_is_shared(t: torch.Tensor) -> bool:
    """Whether any tensor besides `t` references `t`'s storage."""
    if _STORAGE_USE_COUNT is None:  # pragma: no cover - very old torch: assume shared
        return True
    # The temporary UntypedStorage object holds one reference of its own.
    return _STORAGE_USE_COUNT(t.untyped_storage()._cdata) > 2


_uids = itertools.count()
# shared_name -> Resource, for `Variable.from_proto` (TF's resource manager).
_live: "weakref.WeakValueDictionary[str, Resource]" = weakref.WeakValueDictionary()


class Resource:
    """One variable's storage: the current value plus its aliasing state."""

    __slots__ = ("value", "aliased", "shared_name", "uid", "__weakref__")

    def __init__(self, value: torch.Tensor, name: str) -> None:
        self.value = value
        self.aliased = False
        self.uid = next(_uids)
        self.shared_name = f"{name}_{self.uid}"
        _live[self.shared_name] = self

    def snapshot(self) -> torch.Tensor:
        """An alias of the current value that later writes will never change."""
        self.aliased = True
        return self.value.detach()

    def exclusive(self) -> torch.Tensor:
        """The storage, guaranteed unaliased, for an in-place write."""
        if self.must_copy():
            self.replace(self.value.clone())
        return self.value

    def must_copy(self) -> bool:
        """Whether a write must go to new storage (a live alias exists)."""
        if not self.aliased:
            return False
        if storage_is_shared(self.value):
            return True
        self.aliased = False
        return False

    def replace(self, value: torch.Tensor) -> None:
        """Make `value` (a tensor nobody else holds) the new storage."""
        self.value = value
        self.aliased = False


def lookup(shared_name: str) -> Optional[Resource]:
    """The live resource with this shared name, if any."""
    return _live.get(shared_name)
