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
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import torch

from ..framework import dtypes, errors
from ..framework.tensor_conversion import convert_to_tensor

_TF_TYPE_NAMES = {
    torch.float32: "float", torch.float64: "double", torch.float16: "half",
    torch.bfloat16: "bfloat16", torch.int8: "int8", torch.int16: "int16",
    torch.int32: "int32", torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool",
    torch.complex64: "complex64", torch.complex128: "complex128",
}

FLOATS = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
SIGNED_INTS = frozenset({torch.int8, torch.int16, torch.int32, torch.int64})
INTS = SIGNED_INTS | {torch.uint8}
COMPLEX = frozenset({torch.complex64, torch.complex128})
REAL = FLOATS | INTS
NUMERIC = REAL | COMPLEX
SIGNED = FLOATS | SIGNED_INTS | COMPLEX
ALL = NUMERIC | {torch.bool}


def tf_type_name(dtype: torch.dtype) -> str:
    """TF's C++ type name (`float`, `double`, `half`, `int32`), as its errors print it."""
    return _TF_TYPE_NAMES.get(dtype, str(dtype))


def check_dtype(op: str, t: torch.Tensor, allowed: frozenset) -> None:
    if t.dtype not in allowed:
        names = ", ".join(sorted(tf_type_name(d) for d in allowed))
        raise errors.InvalidArgumentError(
            None, None,
            f"Value for attr 'T' of {tf_type_name(t.dtype)} is not in the list of allowed "
            f"values: {names} [Op:{op}]")


def mismatch(op: str, index: int, expected: torch.dtype, got: torch.dtype) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        None, None,
        f"cannot compute {op} as input #{index}(zero-based) was expected to be a "
        f"{tf_type_name(expected)} tensor but is a {tf_type_name(got)} tensor [Op:{op}]. "
        "TF does not promote dtypes: cast one input with tf.cast.")


def _is_tensorlike(x: Any) -> bool:
    return isinstance(x, torch.Tensor) or getattr(x, "_tfcompat_tensor_like", False)


def hinted(op: str, x: Any, y: Any) -> tuple:
    """Inputs of a hinted op: `x` alone, then `y` with `x`'s dtype as a hint."""
    xt = convert_to_tensor(x)
    if isinstance(y, torch.Tensor) and y.dtype is xt.dtype:
        return xt, y
    yt = convert_to_tensor(y, dtype_hint=xt.dtype)
    if yt.dtype is not xt.dtype:
        raise mismatch(op, 1, xt.dtype, yt.dtype)
    return xt, yt


def matched(op: str, *values: Any) -> list:
    """Inputs of a matched op: all converted to the dtype of the first tensor among them."""
    dtype: Optional[torch.dtype] = None
    for v in values:
        if _is_tensorlike(v):
            dtype = v.dtype if isinstance(v, torch.Tensor) else dtypes.to_torch(v.dtype)
            break
    out = []
    for i, v in enumerate(values):
        if isinstance(v, torch.Tensor):
            t = v
        elif _is_tensorlike(v):
            t = convert_to_tensor(v)
        else:
            t = convert_to_tensor(v, dtype=dtype)
        if dtype is None:
            dtype = t.dtype
        elif t.dtype is not dtype:
            raise mismatch(op, i, dtype, t.dtype)
        out.append(t)
    return out


def same_device(tensors: Iterable[torch.Tensor]) -> list:
    """Move inputs to the first one's device, as TF copies inputs to the op's device."""
    tensors = list(tensors)
    dev = tensors[0].device
    return [t if t.device == dev else t.to(dev) for t in tensors]


def run(fn: Any, *tensors: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    """Call a torch op; retry once with inputs moved onto one device if torch asks."""
    try:
        return fn(*tensors, **kwargs)
    except RuntimeError as e:
        if "same device" in str(e):
            return fn(*same_device(tensors), **kwargs)
        if "must match the size of tensor" in str(e) and len(tensors) == 2:
            raise errors.InvalidArgumentError(
                None, None, f"Incompatible shapes: {list(tensors[0].shape)} vs. "
                f"{list(tensors[1].shape)}: the shapes must be equal or broadcast "
                "(dimensions equal or 1).") from None
        raise errors.InvalidArgumentError(None, None, str(e)) from None
