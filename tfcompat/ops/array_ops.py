"""Shape manipulation: reshape, transpose, concat/stack/split, squeeze, tile, pad, shape.

Thin mappings onto torch views and copies. TF's rules that torch does not
share are kept: `concat`/`stack` never promote dtypes (a Python value takes
the first tensor's dtype), `squeeze` with an explicit axis insists on size
1, `split` takes a count or a list of sizes with one `-1`, and `pad` has
TF's REFLECT/SYMMETRIC modes for any rank.

`tf.shape`/`tf.size`/`tf.rank` return int32 (`out_type`) tensors in host
memory (torch's CPU), as TF keeps shape tensors on the host: reading them
back (`tf.reshape(x, tf.shape(y))`) then costs no device sync. A 0-d CPU
tensor mixes freely with accelerator tensors in torch ops.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch
import torch.nn.functional as F

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on, is_tensor_like
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from ..framework.variable_protocol import is_variable
from ._shape_args import int_values, single_axis

__all__ = ["reshape", "transpose", "concat", "stack", "unstack", "split", "expand_dims",
           "squeeze", "tile", "pad", "identity", "stop_gradient", "shape", "size", "rank",
           "sequence_mask", "ensure_shape"]

_CPU = torch.device("cpu")


def reshape(tensor: Any, shape: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.reshape`: same elements, new shape; one dimension may be -1 (inferred)."""
    t = convert_to_tensor(tensor)
    dims = int_values(shape, "Reshape", attr="Tshape")
    dims = [dims] if isinstance(dims, int) else dims
    try:
        # Every shape TF refuses torch refuses too, so the checks below only run to give
        # TF's error once torch has raised (they cost more than the reshape itself).
        return t.reshape(dims)
    except RuntimeError:
        pass
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise invalid(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}",
                      "Reshape")
    known = 1
    for i, d in enumerate(dims):
        if d < -1:
            raise invalid(f"Size {i} must be non-negative, not {d}", "Reshape")
        if d != -1:
            known *= d
    n = t.numel()
    if unknown and known == 0 and n == 0:
        # TF infers the unknown size of an empty result from the sizes that are not 0, by
        # integer division: [0, 6] -> [0, -1, 2] is [0, 3, 2], [0, 6] -> [0, -1, 4] is
        # [0, 1, 4], [0] -> [-1, 0] is [1, 0].
        have = math.prod(d for d in t.shape if d != 0)
        want = math.prod(d for d in dims if d not in (0, -1))
        return t.reshape([have // want if d == -1 else d for d in dims])
    if unknown:
        if known == 0 or n % known:
            raise invalid(f"Input to reshape is a tensor with {n} values, but the requested shape "
                          f"requires a multiple of {known}", "Reshape")
    elif known != n:
        raise invalid(f"Input to reshape is a tensor with {n} values, but the requested shape has "
                      f"{known}", "Reshape")
    return t.reshape(dims)


def transpose(a: Any, perm: Any = None, conjugate: bool = False,
              name: Optional[str] = None) -> torch.Tensor:
    """`tf.transpose`: permute axes (reverse them when `perm` is None); a view in torch."""
    t = convert_to_tensor(a)
    rank = t.dim()
    if perm is None:
        order = list(range(rank - 1, -1, -1))
    else:
        order = int_values(perm, "Transpose", attr="Tperm")
        order = [order] if isinstance(order, int) else order
        try:  # (as in reshape: what TF refuses torch refuses; the checks give TF's error)
            out = t.permute(order)
            return out.conj() if conjugate and out.is_complex() else out
        except (RuntimeError, IndexError):
            pass
        if len(order) != rank:
            raise invalid(f"transpose expects a vector of size {rank}. But input(1) is a vector of "
                          f"size {len(order)}", "Transpose")
        order = [p % rank if -rank <= p < rank else p for p in order]
        for i in range(rank):
            if i not in order:
                raise invalid(f"{i} is missing from {{{','.join(str(p) for p in order)}}}.",
                              "Transpose")
    out = t.permute(order)
    return out.conj() if conjugate and out.is_complex() else out


def _same_dtype(op: str, values: Any) -> list:
    """Inputs of a list op (`concat`, `stack`): one dtype, set by the first tensor."""
    if isinstance(values, torch.Tensor) or not isinstance(values, (list, tuple)):
        values = [values]
    return D.matched(op, *values)


def concat(values: Any, axis: Any, name: str = "concat") -> torch.Tensor:
    """`tf.concat`: join along an existing axis; ranks and other dims must match."""
    ts = _same_dtype("ConcatV2", values)
    if not ts:
        raise invalid("ConcatOp: needs at least one input", "ConcatV2")
    a = single_axis(axis, "ConcatV2")
    first = ts[0]
    rank = first.dim()
    if rank == 0:
        raise invalid("ConcatOp : Can't concatenate scalars (use tf.stack instead)", "ConcatV2")
    if not -rank <= a < rank:
        raise invalid(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), "
                      f"but got {a}", "ConcatV2")
    a %= rank
    for i, t in enumerate(ts[1:], 1):
        if t.dim() != rank:
            raise invalid(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                          f"{list(first.shape)} vs. shape[{i}] = {list(t.shape)}", "ConcatV2")
        for d in range(rank):
            if d != a and t.shape[d] != first.shape[d]:
                raise invalid(f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                              f"{list(first.shape)} vs. shape[{i}] = {list(t.shape)}", "ConcatV2")
    if len(ts) == 1:
        return first
    return torch.cat(D.same_device(ts), dim=a)


def _has_array(values: Any) -> bool:
    if isinstance(values, (list, tuple)):
        return any(_has_array(v) for v in values)
    return isinstance(values, np.ndarray) or is_tensor_like(values)


def stack(values: Any, axis: int = 0, name: str = "stack") -> torch.Tensor:
    """`tf.stack`: join same-shaped tensors along a new axis.

    With `axis` 0 a list of Python values is converted as one tensor, as TF
    does (so `tf.stack([1, 2.])` is float32); when that conversion fails, or
    otherwise, the values are packed one by one, the first value's dtype
    being every value's (`tf.stack([True, 1])` is a `TypeError`).
    """
    if (axis == 0 and isinstance(values, (list, tuple)) and values
            and not _has_array(values)):
        try:
            return convert_to_tensor(list(values))
        except (TypeError, ValueError):
            pass  # as TF: pack them one by one, with Pack's errors
    ts = _same_dtype("Pack", values)
    if not ts:
        return torch.zeros((0,), dtype=torch.float32, device=device_lib.current_torch_device())
    rank = ts[0].dim() + 1
    a = single_axis(axis, "Pack")
    if not -rank <= a < rank:
        raise ValueError(f"Argument `axis` = {a} not in range [{-rank}, {rank})")
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise invalid(f"Shapes of all inputs must match: values[0].shape = {list(ts[0].shape)} "
                          f"!= values[{i}].shape = {list(t.shape)}", "Pack")
    return torch.stack(D.same_device(ts), dim=a % rank)


def unstack(value: Any, num: Optional[int] = None, axis: int = 0,
            name: str = "unstack") -> list:
    """`tf.unstack`: the list of slices along `axis` (views in torch)."""
    t = convert_to_tensor(value)
    rank = t.dim()
    a = single_axis(axis, "Unpack")
    if not -rank <= a < rank:
        raise ValueError(f"Argument `axis` = {a} not in range [{-rank}, {rank})")
    a %= rank
    if num is not None and t.shape[a] != num:
        raise invalid(f"Input shape axis {a} must equal {num}, got shape {list(t.shape)}", "Unpack")
    return list(t.unbind(a))


_SPLIT_SIZES = frozenset({torch.int8, torch.int32, torch.int64})


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: Optional[int] = None,
          name: str = "split") -> list:
    """`tf.split`: `num_or_size_splits` equal parts, or parts of the listed sizes.

    A size list may hold one -1, which takes what is left over.
    """
    t = convert_to_tensor(value)
    rank = t.dim()
    a = single_axis(axis, "Split")
    if not -rank <= a < rank:
        raise invalid(f"-input rank(-1) <= split_dim < input rank ({rank}), but got {a}", "Split")
    a %= rank
    n = t.shape[a]
    if isinstance(num_or_size_splits, torch.Tensor) and num_or_size_splits.dim() == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to "
                         f"split. Argument provided: {num_or_size_splits}")
    if isinstance(num_or_size_splits, (list, tuple)) and not num_or_size_splits:
        # TF converts the empty list to a float32 tensor, which SplitV refuses.
        D.check_dtype("SplitV", torch.float32, _SPLIT_SIZES, attr="Tlen",
                      names=("int8", "int32", "int64"))
    sizes = int_values(num_or_size_splits, "SplitV", attr="Tlen", allowed=_SPLIT_SIZES)
    if isinstance(sizes, int):
        if sizes < 1:
            raise invalid(f"Value for attr 'num_split' of {sizes} must be at least minimum 1", "Split")
        if n % sizes:
            raise invalid("Number of ways to split should evenly divide the split dimension, but got "
                          f"split_dim {a} (size = {n}) and num_split {sizes}", "Split")
        return list(torch.split(t, n // sizes, dim=a))
    if num is not None and num != len(sizes):
        raise invalid("size of the split_tensor must be 1-D and have the same elements as outputs "
                      f"got 1 -D and {len(sizes)} elements", "SplitV")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise invalid("There can only be one -1 in the input.", "SplitV")
    known = sum(s for s in sizes if s != -1)
    if (unknown and known > n) or (not unknown and known != n) or any(s < -1 for s in sizes):
        raise invalid("Determined shape must either match input shape along split_dim exactly if "
                      "fully specified, or be less than the size of the input along split_dim if "
                      f"not fully specified.  Got: {known}", "SplitV")
    if unknown:
        sizes = list(sizes)
        sizes[unknown[0]] = n - known
    return list(torch.split(t, sizes, dim=a))


def stop_gradient(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002 - TF name
    """`tf.stop_gradient`: the same values, cut from the autograd graph (`detach`).

    A variable is read first (a snapshot), so the result never aliases it.
    """
    if isinstance(input, IndexedSlices):
        return IndexedSlices(input.values.detach(), input.indices, input.dense_shape)
    return convert_to_tensor(input).detach()


def expand_dims(input: Any, axis: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.expand_dims`: insert a size-1 axis at `axis` (in `[-rank-1, rank]`)."""
    t = convert_to_tensor(input)
    if axis is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    values = int_values(axis, "ExpandDims", attr="Tdim")
    if isinstance(values, list):
        if len(values) != 1:
            raise invalid("'dim' must be a tensor with a single value", "ExpandDims")
        values = values[0]
    rank = t.dim()
    if not -rank - 1 <= values <= rank:
        raise invalid(f"Tried to expand dim index {values} for tensor with {rank} dimensions.",
                      "ExpandDims")
    return t.unsqueeze(values)


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.squeeze`: drop size-1 axes: all of them (`axis` None or `[]`), or those in `axis`.

    An explicit axis whose size is not 1 is an `InvalidArgumentError`
    (torch would silently keep it).
    """
    t = convert_to_tensor(input)
    values = [] if axis is None else int_values(axis, "Squeeze", attr="squeeze_dims")
    values = [values] if isinstance(values, int) else values
    if not values:  # TF's empty squeeze_dims means every size-1 axis
        return t.squeeze()
    rank = t.dim()
    dims = set()
    for a in values:
        if not -rank <= a < rank:
            raise invalid(f"Tried to squeeze dim index {a} for tensor with {rank} dimensions.",
                          "Squeeze")
        a %= rank
        if t.shape[a] != 1:
            raise invalid(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                          f"{t.shape[a]}", "Squeeze")
        dims.add(a)
    return t.squeeze(tuple(sorted(dims)))


def tile(input: Any, multiples: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.tile`: repeat the whole tensor `multiples[i]` times along axis i (`Tensor.repeat`)."""
    t = convert_to_tensor(input)
    reps = int_values(multiples, "Tile", attr="Tmultiples")
    reps = [reps] if isinstance(reps, int) else reps
    if len(reps) != t.dim():
        raise invalid(f"Expected multiples argument to be a vector of length {t.dim()} but got "
                      f"length {len(reps)}", "Tile")
    for i, r in enumerate(reps):
        if r < 0:
            raise invalid(f"Expected multiples[{i}] >= 0, but got {r}", "Tile")
    return t.repeat(reps) if reps else t


_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: Optional[str] = None) -> torch.Tensor:
    """`tf.pad`: pad each axis by `paddings[i] = [before, after]`.

    CONSTANT fills with `constant_values` (converted to the tensor's dtype);
    REFLECT mirrors without repeating the edge (`[1,2,3]` -> `2,1,2,3,2`),
    SYMMETRIC with it (`1,1,2,3,3`). Mirror modes work for any rank here
    (torch's own reflect padding only covers the last 1-3 axes).
    """
    t = convert_to_tensor(tensor)
    kind = str(mode).upper()
    if kind not in _PAD_MODES:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                         f'"SYMMETRIC". Received `mode` = {mode}')
    op = "Pad" if kind == "CONSTANT" else "MirrorPad"
    pads = int_values(paddings, op, attr="Tpaddings")
    rank = t.dim()
    rows = pads if isinstance(pads, list) else [pads]
    if rows and not all(isinstance(p, list) and len(p) == 2 for p in rows):
        width = len(rows[0]) if isinstance(rows[0], list) else 1
        raise invalid(f"paddings must be a matrix with 2 columns: [{len(rows)},{width}]", op)
    pads = rows
    if len(pads) != rank:
        raise invalid(f"The first dimension of paddings must be the rank of inputs[{len(pads)},2] "
                      f"{list(t.shape)}", op)
    for before, after in pads:
        if before < 0 or after < 0:
            raise invalid(f"Paddings must be non-negative: {before} {after}", op)
    if kind == "CONSTANT":
        return _pad_constant(t, pads, constant_values)
    symmetric = kind == "SYMMETRIC"
    out = t
    for d, (before, after) in enumerate(pads):
        n = t.shape[d]
        limit = n if symmetric else n - 1
        if before > limit or after > limit:
            word = "no greater than" if symmetric else "less than"
            bad = "greater than" if symmetric else "not less than"
            raise invalid(f"paddings must be {word} the dimension size: {before}, {after} {bad} {n}",
                          op)
        if before or after:
            out = out.index_select(d, _mirror_index(n, before, after, symmetric, t.device))
    return out


def _mirror_index(n: int, before: int, after: int, symmetric: bool,
                  device: torch.device) -> torch.Tensor:
    shift = 0 if symmetric else 1
    head = torch.arange(before - 1 + shift, shift - 1, -1, device=device)
    body = torch.arange(n, device=device)
    tail = torch.arange(n - 1 - shift, n - 1 - shift - after, -1, device=device)
    return torch.cat([head, body, tail])


def _pad_constant(t: torch.Tensor, pads: list, constant_values: Any) -> torch.Tensor:
    flat = [p for before_after in reversed(pads) for p in before_after]
    if isinstance(constant_values, (bool, int, float)):
        if constant_values != 0:
            # TF converts the fill value to the tensor's dtype: 9.5 cannot pad an int tensor.
            _check_fill_value(constant_values, t.dtype)
        return F.pad(t, flat, mode="constant", value=constant_values)
    # A tensor fill value: fill without reading it back to the host.
    value = convert_to_tensor_on(t.device, constant_values, dtype_hint=dtypes.from_torch(t.dtype))
    if value.dtype is not t.dtype:
        raise D.mismatch("PadV2", 2, t.dtype, value.dtype)
    if value.dim() != 0:
        raise invalid(f"constant_values must be a scalar. Got: {list(value.shape)}", "PadV2")
    out_shape = [n + b + a for n, (b, a) in zip(t.shape, pads)]
    out = torch.empty(out_shape, dtype=t.dtype, device=t.device)
    out.fill_(value.to(t.device))
    out[tuple(slice(b, b + n) for n, (b, _) in zip(t.shape, pads))] = t
    return out


def _check_fill_value(value: Any, dtype: torch.dtype) -> None:
    """TF's `TypeError` for a Python fill value the tensor's dtype cannot hold."""
    fits = (isinstance(value, bool)
            or (isinstance(value, int) and dtype is not torch.bool)
            or (dtype.is_floating_point or dtype.is_complex))
    if not fits:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                        f"{dtypes.from_torch(dtype).name}")


def identity(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002 - TF name
    """`tf.identity`: the same values as a new tensor object (a torch alias; differentiable)."""
    t = convert_to_tensor(input)
    return t.view_as(t)


def shape(input: Any, out_type: Any = dtypes.int32,  # noqa: A002 - TF name
          name: Optional[str] = None) -> torch.Tensor:
    """`tf.shape`: the dynamic shape as an int32 (or int64) vector, in host memory."""
    out = dtypes.to_torch(out_type)
    D.check_dtype("Shape", out, D.INT32_64, attr="out_type")
    return torch.tensor(_static_shape(input), dtype=out, device=_CPU)


def size(input: Any, out_type: Any = dtypes.int32,  # noqa: A002 - TF name
         name: Optional[str] = None) -> torch.Tensor:
    """`tf.size`: the number of elements, as an `out_type` scalar in host memory."""
    return torch.tensor(math.prod(_static_shape(input)), dtype=dtypes.to_torch(out_type),
                        device=_CPU)


def rank(input: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002 - TF name
    """`tf.rank`: the number of dimensions, as an int32 scalar in host memory."""
    return torch.tensor(len(_static_shape(input)), dtype=torch.int32, device=_CPU)


def _static_shape(x: Any) -> tuple:
    if isinstance(x, torch.Tensor):
        return tuple(x.shape)
    if is_variable(x):
        # A variable's shape needs no read (and no tape record), as in TF.
        s = x.shape
        if isinstance(s, TensorShape) and s.rank is not None and None not in s.as_list():
            return tuple(s.as_list())
    return tuple(convert_to_tensor(x).shape)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool,
                  name: Optional[str] = None) -> torch.Tensor:
    """`tf.sequence_mask`: `mask[i..., j] = j < lengths[i...]`, with `maxlen` columns.

    `maxlen` None means `max(lengths)` (read on the host, as the shape
    depends on it). The mask is cast to `dtype` (default bool).
    """
    lens = convert_to_tensor(lengths)
    if maxlen is None:
        n = int(lens.max()) if lens.numel() else 0
    else:
        if isinstance(maxlen, (list, tuple)) or (isinstance(maxlen, torch.Tensor) and maxlen.dim()):
            shape = (len(maxlen),) if isinstance(maxlen, (list, tuple)) else tuple(maxlen.shape)
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{shape}' instead")
        n = int(maxlen) if not isinstance(maxlen, torch.Tensor) else int(maxlen.item())
        if n < 0:
            raise invalid(f"Requires start <= limit when delta > 0: 0/{n}", "Range")
    cols = torch.arange(n, device=lens.device, dtype=lens.dtype if lens.is_floating_point()
                        else torch.int64)
    mask = cols < lens.unsqueeze(-1)
    out = dtypes.to_torch(dtype)
    return mask if out is torch.bool else mask.to(out)


def ensure_shape(x: Any, shape: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.ensure_shape`: `x` unchanged if its shape is compatible with `shape` (None dims match anything).

    Otherwise `InvalidArgumentError`, as TF's `EnsureShape` kernel.
    """
    t = convert_to_tensor(x)
    want = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if want.rank is None:
        return t
    dims = want.as_list()
    if len(dims) != t.dim() or any(d is not None and d != n for d, n in zip(dims, t.shape)):
        shown = "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
        raise invalid(f"Shape of tensor {name or 'input'} {D.fmt_shape(t.shape)} is not compatible "
                      f"with expected shape {shown}.", "EnsureShape")
    return t
