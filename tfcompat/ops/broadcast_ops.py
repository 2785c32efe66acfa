"""Broadcasting: `broadcast_to`, `broadcast_static_shape`, `broadcast_dynamic_shape`, `meshgrid`.

TF's broadcasting is numpy's (trailing axes equal or 1). `broadcast_to`
returns a materialised copy (`expand` then `clone`), as TF's kernel
allocates its output: a torch in-place write into the result never
reaches the input.
"""

from __future__ import annotations

import itertools
from typing import Any, Optional

import torch

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, is_tensor_like
from ..framework.tensor_shape import TensorShape, as_shape
from . import _dispatch as D
from ._shape_args import int_values, shape_arg

__all__ = ["broadcast_to", "broadcast_static_shape", "broadcast_dynamic_shape", "meshgrid"]

_CPU = torch.device("cpu")


def broadcast_to(input: Any, shape: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.broadcast_to`: `input` repeated along size-1 (or missing leading) axes to `shape`."""
    t = convert_to_tensor(input)
    if type(shape) is list and all(type(d) is int and d >= 0 for d in shape):
        dims = tuple(shape)  # the common call, without the general parser
    else:
        dims = shape_arg(shape, "BroadcastTo")
    if t.dim() > len(dims):
        raise invalid(f"Rank of input ({t.dim()}) must be no greater than rank of output shape "
                      f"({len(dims)}).", "BroadcastTo")
    for have, want in zip(reversed(t.shape), reversed(dims)):
        if have != want and have != 1:
            raise invalid(f"Incompatible shapes: {D.fmt_shape(t.shape)} vs. {D.fmt_shape(dims)}",
                          "BroadcastTo")
    if tuple(t.shape) == dims:
        return t
    return t.expand(dims).clone()


def broadcast_static_shape(shape_x: TensorShape, shape_y: TensorShape) -> TensorShape:
    """`tf.broadcast_static_shape`: the broadcast of two `TensorShape`s (unknown dims stay unknown)."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    out = []
    for a, b in itertools.zip_longest(reversed(x.as_list()), reversed(y.as_list()), fillvalue=1):
        if a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            out.append(a if b is None else b)
        elif a == b:
            out.append(a)
        else:
            raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for "
                             "each dimension pair they are either equal or one of them is 1. "
                             f"Received: {tuple(x.as_list())} and {tuple(y.as_list())}.")
    return TensorShape(list(reversed(out)))


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> torch.Tensor:
    """`tf.broadcast_dynamic_shape`: the broadcast of two shape vectors, as an int32/int64 host tensor.

    The dtype is int64 if either input is an int64 tensor, else int32.
    """
    dtype = torch.int32
    for s in (shape_x, shape_y):
        if is_tensor_like(s) and convert_to_tensor(s).dtype is torch.int64:
            dtype = torch.int64
    xs = int_values(shape_x, "BroadcastArgs", attr="T", python_dtype=torch.int32)
    ys = int_values(shape_y, "BroadcastArgs", attr="T", python_dtype=torch.int32)
    xs, ys = ([v] if isinstance(v, int) else v for v in (xs, ys))
    out = []
    for a, b in itertools.zip_longest(reversed(xs), reversed(ys), fillvalue=1):
        if a != b and a != 1 and b != 1:
            raise invalid(f"Incompatible shapes: {D.fmt_shape(xs)} vs. {D.fmt_shape(ys)}",
                          "BroadcastArgs")
        out.append(b if a == 1 else a)
    return torch.tensor(list(reversed(out)), dtype=dtype, device=_CPU)


def meshgrid(*args: Any, **kwargs: Any) -> list:
    """`tf.meshgrid`: N-D coordinate grids from 1-D inputs (`indexing` 'xy', the default, or 'ij').

    Inputs share the first one's dtype (no promotion); each input is
    flattened first, as TF does.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {list(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    if not args:
        return []
    # TF converts each input on its own, then multiplies by ones: dtypes must agree.
    ts = [convert_to_tensor(a) for a in args]
    for i, t in enumerate(ts[1:], 1):
        if t.dtype is not ts[0].dtype:
            raise D.mismatch("Mul", 1, ts[0].dtype, t.dtype)
    flat = [t.reshape(-1) for t in ts]
    if len(flat) == 1:
        return flat
    return list(torch.meshgrid(*D.same_device(flat), indexing=indexing))
