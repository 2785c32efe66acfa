"""A torch tensor that counts reads of its value on the host, to test that callbacks and
the progress bar leave device tensors alone until they must show or save them."""

from __future__ import annotations

import torch


class Counted(torch.Tensor):
    """`Counted.reads` lists each `item`/`numpy`/`tolist`/`float()` call on any instance."""

    reads: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("item", "numpy", "tolist", "__float__"):
            cls.reads.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs or {})


def counted(x: float) -> Counted:
    """A 0-d float32 `Counted` tensor holding `x`."""
    return torch.tensor(x).as_subclass(Counted)
