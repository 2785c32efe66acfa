"""Tensors as the little-endian host bytes a bundle stores, and back (numpy and torch).

A bundle's bytes are numpy's C-order little-endian layout of each dtype.
torch tensors are viewed through numpy without a copy where they are
already contiguous CPU tensors; bfloat16 and the wide unsigned types, which
numpy lacks or torch cannot export, go through a same-size integer view.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import torch

from . import protos
from .protos import DataType

__all__ = ["host_array", "numpy_view", "torch_datatype"]

_TORCH_DATATYPE = {
    torch.float16: DataType.DT_HALF, torch.bfloat16: DataType.DT_BFLOAT16,
    torch.float32: DataType.DT_FLOAT, torch.float64: DataType.DT_DOUBLE,
    torch.int8: DataType.DT_INT8, torch.int16: DataType.DT_INT16, torch.int32: DataType.DT_INT32,
    torch.int64: DataType.DT_INT64, torch.uint8: DataType.DT_UINT8, torch.uint16: DataType.DT_UINT16,
    torch.uint32: DataType.DT_UINT32, torch.uint64: DataType.DT_UINT64, torch.bool: DataType.DT_BOOL,
    torch.complex64: DataType.DT_COMPLEX64, torch.complex128: DataType.DT_COMPLEX128,
}
# numpy cannot take these from torch directly: a same-size view that it can.
_VIA = {torch.bfloat16: (torch.int16, np.dtype(ml_dtypes.bfloat16)),
        torch.uint16: (torch.int16, np.dtype("<u2")), torch.uint32: (torch.int32, np.dtype("<u4")),
        torch.uint64: (torch.int64, np.dtype("<u8"))}


def torch_datatype(dtype: torch.dtype) -> int:
    """TF's DataType number for a torch dtype (`TypeError` if a checkpoint cannot hold it)."""
    try:
        return _TORCH_DATATYPE[dtype]
    except KeyError:
        raise TypeError(f"cannot save a torch tensor of dtype {dtype} in a TF checkpoint") from None


def numpy_view(t: torch.Tensor) -> np.ndarray:
    """A numpy view (no copy) of a contiguous CPU tensor, bfloat16 and wide unsigned types included."""
    if t.device.type != "cpu" or not t.is_contiguous():
        raise ValueError("needs a contiguous CPU tensor")
    via = _VIA.get(t.dtype)
    if via is not None:
        return t.view(via[0]).numpy().view(via[1])
    return t.numpy()


def host_array(value: Any) -> tuple[int, np.ndarray]:
    """`(DataType, C-contiguous little-endian numpy array)` of a value to save.

    A torch tensor on any device is copied to host here, one at a time; a
    contiguous CPU tensor is viewed, not copied. Anything else goes through
    `np.asarray` (object, `str` and `bytes` arrays are DT_STRING).
    """
    if isinstance(value, torch.Tensor):
        t = value.detach()
        datatype = torch_datatype(t.dtype)
        if t.device.type != "cpu":
            t = t.to("cpu")
        return datatype, numpy_view(t.resolve_conj().resolve_neg().contiguous())
    arr = np.asarray(value)
    datatype = protos.datatype_of(arr.dtype)
    if datatype == DataType.DT_STRING:
        return datatype, arr
    target = protos.numpy_dtype(datatype)
    if arr.dtype != target or not arr.flags.c_contiguous:
        arr = arr.astype(target, order="C")  # (np.ascontiguousarray would make a scalar 1-d)
    return datatype, arr
