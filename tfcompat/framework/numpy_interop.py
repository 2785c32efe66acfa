"""TF's numpy values of torch tensors, bfloat16 included (through `ml_dtypes`).

TF's `Tensor.numpy()` hands out a copy on the host: detached from any
gradient, moved off the device, bfloat16 as `ml_dtypes.bfloat16` (the numpy
type TF itself uses for it), and a 0-d tensor as a numpy scalar
(`np.float32(2.5)`). torch's `Tensor.numpy()` instead shares the tensor's
memory and refuses tensors that require grad, live on an accelerator, carry
a lazy conjugate/negative bit or are bfloat16. This module is the one place
that turns a tensor into TF's value; `Variable.numpy()`, TF-style reprs and
the `numpy()` that `import tfcompat` adds to `torch.Tensor` use it.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import torch

__all__ = ["BFLOAT16", "host_array", "to_numpy", "tensor_from_numpy"]

#: numpy's bfloat16 (`ml_dtypes.bfloat16`), `tf.bfloat16.as_numpy_dtype` as in TF.
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def host_array(t: torch.Tensor) -> np.ndarray:
    """`t`'s values as a new numpy array on the host that shares no memory with `t`.

    Detached, copied off the device, conjugate/negative bits resolved,
    bfloat16 as `ml_dtypes.bfloat16`; the array has `t`'s shape (0-d stays a
    0-d array). One copy: a tensor that had to move or be resolved is already
    a new buffer, and only a host tensor is copied out of its own storage.
    Raises torch's `TypeError` for what numpy cannot hold (sparse layouts,
    float8, complex32).
    """
    t = t.detach()
    fresh = False
    if t.device.type != "cpu":
        t = t.cpu()
        fresh = True
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
        fresh = True
    if t.dtype is torch.bfloat16:
        # Same bits, reinterpreted: torch's numpy() has no bfloat16, ml_dtypes does.
        arr = t.view(torch.int16).numpy().view(BFLOAT16)
    else:
        arr = t.numpy()
    return arr if fresh else arr.copy()


def to_numpy(t: torch.Tensor) -> Any:
    """TF's `Tensor.numpy()` / `Variable.numpy()` of `t`: a new host array, a numpy scalar for 0-d.

    `tf.constant([1.5], tf.bfloat16)` gives `array([1.5], dtype=bfloat16)`;
    `tf.constant(2.5)` gives `np.float32(2.5)`; a tensor that requires grad
    or lives on a GPU gives the same as its detached host copy. The result
    never aliases `t` (writing into it changes nothing), as in TF.
    """
    arr = host_array(t)
    return arr[()] if arr.ndim == 0 else arr


def tensor_from_numpy(array: np.ndarray) -> torch.Tensor:
    """`torch.from_numpy` that also takes `ml_dtypes.bfloat16` arrays (sharing memory, as it does).

    A bfloat16 array (what `to_numpy` returns for a bfloat16 tensor) becomes
    a `torch.bfloat16` tensor with the same bits; other dtypes go to
    `torch.from_numpy` unchanged (and its `TypeError` for what torch cannot hold).
    """
    if array.dtype == BFLOAT16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)
