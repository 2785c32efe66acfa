"""What both directions share: memory identity, and the storage cells' locks."""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator

import torch

from ..variables.resource import device_lock

__all__ = ["same_memory", "locked", "own_storage"]


def same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether `a` and `b` are views of one torch storage with the same layout.

    Compares torch's storage objects, not data pointers: asking a
    copy-on-write tensor for its (mutable) data pointer would copy it.
    """
    return (a.untyped_storage()._cdata == b.untyped_storage()._cdata
            and a.storage_offset() == b.storage_offset() and a.shape == b.shape
            and a.stride() == b.stride() and a.dtype == b.dtype)


@contextlib.contextmanager
def locked(tensors: Iterable[torch.Tensor]) -> Iterator[None]:
    """Hold the storage-cell lock of every device in `tensors` (in a fixed order: no deadlock).

    Torch code that writes many shared tensors at once (`load_state_dict`)
    runs under it, so a tfcompat read in another thread never sees the
    write half done, as for the variables' own writes.
    """
    devices = sorted({t.device for t in tensors}, key=str)
    with contextlib.ExitStack() as stack:
        for device in devices:
            stack.enter_context(device_lock(device))
        yield


def own_storage(var: Any) -> Any:
    """`var`'s storage cell, or a `TypeError` saying what to do when it has none."""
    get = getattr(var, "_storage", None)
    cell = get() if get is not None else None
    if cell is None:
        raise TypeError(
            f"The variable {getattr(var, 'name', var)!r} ({type(var).__name__}) has no storage of "
            "its own (a distributed or wrapped variable keeps one copy per replica), so no single "
            "torch tensor can share its memory. Build the module outside strategy.scope(), or "
            "export its values with tfcompat.train.torch_export.to_state_dict.")
    return cell
