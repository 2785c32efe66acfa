"""How TF ops take their inputs: dtype matching, TF's type errors, device moves.

TF ops are strict where torch promotes: `int32 + float32` is an error, and a
Python value is converted to the dtype of the tensor it meets (a Python
float never becomes an int). Two TF conventions exist and both are kept:

* *hinted* ops (`tf.add`, `tf.matmul`, `tf.truediv`) convert the second
  input with the first input's dtype as a hint: `1 + 2.5` meets an int32 and
  a float32 and fails as `InvalidArgumentError`;
* *matched* ops (most generated ops: `tf.multiply`, `tf.maximum`, `tf.less`)
  convert every non-tensor input to the first tensor's dtype: `int32 * 2.5`
  fails as `TypeError` ("Cannot convert 2.5 to EagerTensor of dtype int32").

A Python operand is created on the device of the tensor it meets (a fill
kernel there, no host-to-device copy), so the op runs where its tensors are.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Optional, Sequence

import torch

from ..framework import errors
from ..framework.dtypes import tf_type_name
from ..framework.errors import dtype_mismatch as mismatch
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like

__all__ = [
    "FLOATS", "SIGNED_INTS", "INTS", "INT32_64", "COMPLEX", "REAL", "NUMERIC", "SIGNED",
    "tf_type_name", "mismatch", "check_dtype", "hinted", "matched", "same_device", "run",
    "broadcastable", "fmt_shape",
]

FLOATS = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
SIGNED_INTS = frozenset({torch.int8, torch.int16, torch.int32, torch.int64})
INTS = SIGNED_INTS | {torch.uint8}
INT32_64 = frozenset({torch.int32, torch.int64})  # shape, index and `out_type` attrs
COMPLEX = frozenset({torch.complex64, torch.complex128})
REAL = FLOATS | INTS
NUMERIC = REAL | COMPLEX
SIGNED = FLOATS | SIGNED_INTS | COMPLEX


def check_dtype(op: str, dtype: torch.dtype, allowed: frozenset, attr: str = "T",
                names: Optional[Sequence[str]] = None) -> None:
    """TF's error for a kernel that has no registration for `dtype`.

    `Value for attr 'T' of int32 is not in the list of allowed values: ...`;
    the list is `names` where TF's own order (or a type tfcompat lacks) must
    show, else the allowed dtypes' TF names, sorted.
    """
    if dtype not in allowed:
        shown = ", ".join(names if names is not None else sorted(tf_type_name(d) for d in allowed))
        raise errors.invalid_argument(
            f"Value for attr '{attr}' of {tf_type_name(dtype)} is not in the list of allowed "
            f"values: {shown}", op)


def _device_of(x: Any) -> Optional[torch.device]:
    return x.device if isinstance(x, torch.Tensor) else None


def hinted(op: str, x: Any, y: Any, allowed: Optional[frozenset] = None) -> tuple:
    """Inputs of a hinted op: `x` alone, then `y` with `x`'s dtype as a hint.

    `x`'s dtype is checked against `allowed` (TF's kernel list) before `y` is
    converted.
    """
    if type(x) is torch.Tensor and type(y) is torch.Tensor and x.dtype is y.dtype:
        # The common case, two tensors of one dtype: nothing to convert (the per-call cost
        # of every binary op).
        if allowed is not None and x.dtype not in allowed:
            check_dtype(op, x.dtype, allowed)
        return x, y
    xt = convert_to_tensor_on(_device_of(y), x)
    if allowed is not None:
        check_dtype(op, xt.dtype, allowed)
    if isinstance(y, torch.Tensor) and y.dtype is xt.dtype:
        return xt, y
    yt = convert_to_tensor_on(xt.device, y, dtype_hint=xt.dtype)
    if yt.dtype is not xt.dtype:
        raise mismatch(op, 1, xt.dtype, yt.dtype)
    return xt, yt


def matched(op: str, *values: Any, allowed: Optional[frozenset] = None) -> list:
    """Inputs of a matched op: all converted to the dtype of the first tensor among them.

    With `allowed` (TF's kernel list) the errors come in TF's order: Python
    values that do not convert to the first tensor's dtype (`TypeError`),
    then that dtype not in the list, then another tensor of a different
    dtype.
    """
    if len(values) == 2:
        x, y = values
        if type(x) is torch.Tensor and type(y) is torch.Tensor and x.dtype is y.dtype:
            if allowed is not None and x.dtype not in allowed:
                check_dtype(op, x.dtype, allowed)
            return [x, y]  # (as below, without the conversions two tensors do not need)
    items = list(values)
    dtype: Optional[torch.dtype] = None
    device: Optional[torch.device] = None
    for i, v in enumerate(items):
        if is_tensor_like(v):
            first = items[i] = convert_to_tensor(v)  # a variable is read once
            dtype, device = first.dtype, first.device
            break
    if dtype is not None and allowed is not None and dtype not in allowed:
        for v in items:
            if not is_tensor_like(v):
                convert_to_tensor_on(device, v, dtype=dtype)
        check_dtype(op, dtype, allowed)
    out = []
    for i, v in enumerate(items):
        if isinstance(v, torch.Tensor):
            t = v
        elif is_tensor_like(v):
            t = convert_to_tensor(v)
        else:
            t = convert_to_tensor_on(device, v, dtype=dtype)
        if dtype is None:
            dtype, device = t.dtype, t.device
        elif t.dtype is not dtype:
            raise mismatch(op, i, dtype, t.dtype)
        out.append(t)
    if allowed is not None and dtype is not None:
        check_dtype(op, dtype, allowed)  # Python inputs only: TF checks after converting them
    return out


def same_device(tensors: Iterable[torch.Tensor]) -> list:
    """Move inputs to the first one's device, as TF copies inputs to the op's device."""
    tensors = list(tensors)
    dev = tensors[0].device
    return [t if t.device == dev else t.to(dev) for t in tensors]


def _mixed_devices(tensors: Sequence[Any]) -> bool:
    devices = {t.device for t in tensors if isinstance(t, torch.Tensor)}
    return len(devices) > 1


def run(fn: Any, *tensors: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    """Call a torch op; on inputs from different devices, retry once on the first one's.

    (torch takes a 0-d CPU tensor with accelerator tensors, so only genuinely
    mixed inputs pay for the failed call and the copy.)
    """
    try:
        return fn(*tensors, **kwargs)
    except RuntimeError as e:
        message = str(e)
        if "same device" in message and _mixed_devices(tensors):
            return fn(*same_device(tensors), **kwargs)
        if "must match the size of tensor" in message and len(tensors) == 2:
            raise errors.invalid_argument(
                f"Incompatible shapes: {list(tensors[0].shape)} vs. {list(tensors[1].shape)}: the "
                "shapes must be equal or broadcast (dimensions equal or 1).") from None
        raise errors.invalid_argument(message) from None


def reduce_to(g: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """A gradient of a broadcast result summed back to an input's `shape` (TF's
    `_ReduceGradientArgs`)."""
    return g if g.shape == shape else g.sum_to_size(shape)


def broadcastable(*shapes: Sequence[int]) -> bool:
    """Whether the shapes broadcast together (trailing dims equal or 1)."""
    for dims in itertools.zip_longest(*(reversed(tuple(s)) for s in shapes), fillvalue=1):
        if len({d for d in dims if d != 1}) > 1:
            return False
    return True


def fmt_shape(shape: Iterable[int]) -> str:
    """A shape as TF's kernels print it in messages: `[2,3]`."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"
