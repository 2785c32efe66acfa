"""Ops that make new tensors: zeros, ones, fill, range, one_hot and the `*_like` ops.

New tensors go to the current `tf.device` (TF's placement: GPU:0 when
present). The `*_like` ops and `one_hot` follow their input's device, as
torch's `zeros_like` does. Default dtypes are TF's: float32 for `zeros`,
`ones` and `one_hot`; the value's own dtype for `fill`; for `range` the
widest of its arguments' dtypes (Python ints are int32, floats float32).
"""

from __future__ import annotations

import builtins
from typing import Any, Optional

import torch

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like
from . import _dispatch as D
from ._indices import index_tensor
from ._shape_args import int_values, shape_arg

__all__ = ["zeros", "ones", "zeros_like", "ones_like", "fill", "range", "one_hot", "linspace"]

_INT32_MAX = 2 ** 31 - 1


def zeros(shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.zeros`: a tensor of `shape` (ints, a list, a `TensorShape` or an int tensor)."""
    return torch.zeros(shape_arg(shape, "Fill"), dtype=dtypes.to_torch(dtype),
                       device=device_lib.current_torch_device())


def ones(shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
    """`tf.ones`: a tensor of `shape` filled with 1 (True for bool)."""
    return torch.ones(shape_arg(shape, "Fill"), dtype=dtypes.to_torch(dtype),
                      device=device_lib.current_torch_device())


def zeros_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.zeros_like`: zeros of `input`'s shape and dtype (or `dtype`), on its device."""
    t = convert_to_tensor(input)
    return torch.zeros_like(t, dtype=None if dtype is None else dtypes.to_torch(dtype))


def ones_like(input: Any, dtype: Any = None, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.ones_like`: ones of `input`'s shape and dtype (or `dtype`), on its device."""
    t = convert_to_tensor(input)
    return torch.ones_like(t, dtype=None if dtype is None else dtypes.to_torch(dtype))


def _python_scalar_dtype(value: Any) -> Optional[torch.dtype]:
    """TF's dtype for a Python scalar (int32 unless it needs int64), or None if not one."""
    if isinstance(value, builtins.bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int32 if -_INT32_MAX - 1 <= value <= _INT32_MAX else torch.int64
    if isinstance(value, float):
        return torch.float32
    return None


def fill(dims: Any, value: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.fill`: a tensor of shape `dims` filled with the scalar `value` (its dtype).

    A tensor `value` stays differentiable (its gradient is the sum).
    """
    shape = shape_arg(dims, "Fill")
    device = device_lib.current_torch_device()
    dtype = _python_scalar_dtype(value)
    if dtype is not None:
        return torch.full(shape, value, dtype=dtype, device=device)
    v = convert_to_tensor(value)
    if v.dim() != 0:
        raise invalid(f"value must represent a scalar, got shape {list(v.shape)}", "Fill")
    return v.to(device).expand(shape).clone()


# tf.range infers the widest dtype of its arguments in this order.
_RANGE_HIERARCHY = (torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
                    torch.float64)
_RANGE_ALLOWED = frozenset({torch.bfloat16, torch.float16, torch.float32, torch.float64,
                            torch.int8, torch.int16, torch.int32, torch.int64})


def _range_arg(value: Any, dtype: Optional[dtypes.DType]) -> tuple:
    """`(host value, dtype)` of one `tf.range` argument, converted as TF converts it."""
    if is_tensor_like(value):
        t = convert_to_tensor(value)
        return t.reshape(-1)[0].item() if t.numel() == 1 else t.tolist(), t.dtype
    inferred = _python_scalar_dtype(value)
    if inferred is not None and inferred is not torch.bool and dtype is None:
        return value, inferred
    if inferred is not None and dtype is not None:
        if inferred is torch.bool or dtype.is_bool or (inferred is torch.float32
                                                       and not dtype.is_floating):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
        return value, dtype.as_torch
    t = convert_to_tensor(value, dtype=dtype)
    if t.numel() != 1:
        raise invalid(f"start, limit and delta must be scalars, got shape {list(t.shape)}", "Range")
    return t.reshape(-1)[0].item(), t.dtype


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> torch.Tensor:
    """`tf.range`: `start, start + delta, ...` up to (excluding) `limit`.

    With one argument it is the limit. The dtype is `dtype`, else the widest
    of the arguments' (`tf.range(5)` is int32, `tf.range(0, 1, 0.1)`
    float32). Elements are `start + i * delta` in that dtype, as TF's kernel
    computes them (so `tf.range(0, 1, 0.1)[9]` is 0.90000004 in float32).
    """
    if limit is None:
        start, limit = 0, start
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    args = [_range_arg(v, requested) for v in (start, limit, delta)]
    if requested is not None:
        out_dtype = requested.as_torch
    else:
        for _, d in args:
            if d not in _RANGE_HIERARCHY:
                raise TypeError(f"tf.range arguments must be int32, int64 or floating, got "
                                f"{dtypes.from_torch(d).name}; pass dtype= or cast them.")
        out_dtype = max((d for _, d in args), key=_RANGE_HIERARCHY.index)
    D.check_dtype("Range", out_dtype, _RANGE_ALLOWED, attr="Tidx",
                  names=("bfloat16", "half", "float", "double", "int8", "int16", "int32", "int64"))
    s, lim, d = (float(v) if out_dtype.is_floating_point else int(v) for v, _ in args)
    if d == 0:
        raise invalid(f"Requires delta != 0: {d}", "Range")
    if d > 0 and s > lim:
        raise invalid(f"Requires start <= limit when delta > 0: {s}/{lim}", "Range")
    if d < 0 and s < lim:
        raise invalid(f"Requires start >= limit when delta < 0: {s}/{lim}", "Range")
    device = device_lib.current_torch_device()
    if not out_dtype.is_floating_point:
        n = (builtins.abs(lim - s) + builtins.abs(d) - 1) // builtins.abs(d)
        return torch.arange(s, s + n * d, d, dtype=out_dtype, device=device)
    # The size and the values in the output dtype, as TF's kernel (not in double, as torch).
    # Host scalars: torch reads a 0-d CPU tensor as a kernel argument, with no copy.
    st, li, de = (torch.tensor(v, dtype=out_dtype) for v in (s, lim, d))
    n = int(torch.ceil(torch.abs((li - st) / de)))
    return torch.arange(n, dtype=out_dtype, device=device) * de + st


_ONE_HOT_INDICES = frozenset({torch.uint8, torch.int8, torch.int32, torch.int64})


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.one_hot`: a new axis of size `depth` holding `on_value` at each index.

    Indices outside `[0, depth)` give a row of `off_value`. The dtype comes
    from `dtype`, else from `on_value`/`off_value`, else float32; given
    values must agree with it (`TypeError` otherwise, as TF). `axis` places
    the new axis (default last).
    """
    idx = index_tensor(indices, "OneHot", attr="TI", allowed=_ONE_HOT_INDICES)
    n = int_values(depth, "OneHot", attr="depth")
    if isinstance(n, list):
        raise invalid(f"depth must be a scalar, got {n}", "OneHot")
    if n < 0:
        raise invalid(f"depth must be non-negative, got: {n}", "OneHot")
    requested = None if dtype is None else dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor_on(idx.device, on_value,
                                                             dtype_hint=requested)
    off = None if off_value is None else convert_to_tensor_on(idx.device, off_value,
                                                               dtype_hint=requested)
    on_dtype = None if on is None else dtypes.from_torch(on.dtype)
    off_dtype = None if off is None else dtypes.from_torch(off.dtype)
    if on is not None or off is not None:
        if requested is not None:
            if on is not None and on_dtype != requested:
                raise TypeError(f"dtype {on_dtype} of on_value does not match dtype parameter "
                                f"{requested}")
            if off is not None and off_dtype != requested:
                raise TypeError(f"dtype {off_dtype} of off_value does not match dtype parameter "
                                f"{requested}")
        else:
            requested = on_dtype if on is not None else off_dtype
        if on is not None and off is not None and on_dtype != off_dtype:
            raise TypeError(f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of "
                            "off_value")
    elif requested is None:
        requested = dtypes.float32
    if on is None:
        on = convert_to_tensor_on(idx.device, 1, dtype=requested)
    if off is None:
        off = convert_to_tensor_on(idx.device, 0, dtype=requested)
    rank = idx.dim()
    a = -1 if axis is None else axis
    if a != -1 and not 0 <= a <= rank:
        raise invalid(f"Expected axis to be -1 or between [0, {rank + 1}).  But received: {a}",
                      "OneHot")
    # Out-of-range indices match no position, so their rows are all off_value.
    hot = idx.unsqueeze(-1) == torch.arange(n, device=idx.device)
    out = torch.where(hot, on.to(idx.device), off.to(idx.device))
    return out if a == -1 or a == rank else out.movedim(-1, a)


_LINSPACE = frozenset({torch.bfloat16, torch.float16, torch.float32, torch.float64})


def linspace(start: Any, stop: Any, num: Any, name: Optional[str] = None,
             axis: int = 0) -> torch.Tensor:
    """`tf.linspace`: `num` evenly spaced values from `start` to `stop`, both included.

    As TF's `linspace_nd`: `delta = (stop - start) / max(num - 1, 1)` in the
    result dtype, interior values `start + delta * i`, the end points exact.
    `start`/`stop` may be N-D (broadcast together; the new axis goes at
    `axis`); integer inputs give float64 (TF's true division), Python floats
    float32. `num` must be an integer.
    """
    s = convert_to_tensor(start)
    e = convert_to_tensor_on(s.device, stop, dtype=dtypes.from_torch(s.dtype))
    if isinstance(num, float) or (isinstance(num, torch.Tensor) and not (
            num.dtype in D.INT32_64 or num.dtype in (torch.int8, torch.int16, torch.uint8))):
        value = num.tolist() if isinstance(num, torch.Tensor) else num
        dname = "float32" if isinstance(num, float) else dtypes.from_torch(num.dtype).name
        raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received `tensor` "
                        f"= {value} of dtype: <dtype: '{dname}'>")
    n = int_values(num, "Range", attr="Tidx")
    if isinstance(n, list):
        raise invalid(f"num must be a scalar, got {n}", "LinSpace")
    if s.dtype in _LINSPACE:
        dtype = s.dtype
    elif s.dtype in (torch.int8, torch.int16):
        dtype = torch.float32
    elif s.dtype in (torch.int32, torch.int64):
        dtype = torch.float64
    else:
        raise TypeError(f"tf.linspace takes floating or integer start/stop, got "
                        f"{dtypes.from_torch(s.dtype).name}")
    shape = torch.broadcast_shapes(s.shape, e.shape)
    s, e = s.to(dtype).expand(shape), e.to(dtype).expand(shape)
    rank = len(shape) + 1
    if not -rank <= axis < rank:
        raise invalid(f"Tried to expand dim index {axis} for tensor with {rank - 1} dimensions.",
                      "ExpandDims")
    a = axis % rank
    if n < 0:
        raise invalid("Requires start <= limit when delta > 0: 1/-1 (num must be >= 0)", "Range")
    s, e = s.unsqueeze(a), e.unsqueeze(a)
    steps = torch.tensor(builtins.max(n - 1, 1), dtype=dtype)
    delta = (e - s) / steps.to(s.device)
    view = [1] * rank
    view[a] = builtins.max(n - 2, 0)
    i = torch.arange(1, builtins.max(n - 1, 1), dtype=torch.int64, device=s.device).to(dtype)
    mid = s + delta * i.reshape(view)
    return torch.cat([s, mid, e], dim=a).narrow(a, 0, n)
