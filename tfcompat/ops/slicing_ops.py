"""Slicing and reordering: `reverse`, `slice`, `strided_slice`, `roll`, `repeat`.

TF slices with negative steps (`x[::-1]`, `tf.strided_slice(x, [-1], [0],
[-1])`); torch's own slicing refuses them. Here a negative-step range is a
positive-step view of the same elements followed by `torch.flip` along that
axis (a copy, as TF's kernel also copies), so `tf.strided_slice` and
`tf.reverse` take every TF spelling and stay differentiable.

`tf.strided_slice` follows TF's kernel (`strided_slice_op.cc`): the sparse
spec (begin/end/strides with the five masks) is expanded into a dense one
per input axis, with TF's clamping of out-of-range bounds and TF's errors.
"""

from __future__ import annotations

import builtins
from typing import Any, List, Optional, Tuple

import torch

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._indices import checks_on_host
from ._shape_args import int_values

__all__ = ["reverse", "slice", "strided_slice", "roll", "repeat", "reverse_sequence"]

_STRIDED_INDEX = frozenset({torch.int16, torch.int32, torch.int64})


def _ints(value: Any) -> Optional[list]:
    """`value` as a list of ints when it is a Python int or a list/tuple of them (the common,
    free case), else None."""
    if type(value) is int:
        return [value]
    if type(value) in (list, tuple) and all(type(v) is int for v in value):
        return list(value)
    return None


def _int_list(value: Any, op: str, attr: str, allowed: frozenset = D.INT32_64) -> List[int]:
    fast = _ints(value)
    if fast is not None:
        return fast
    # No `python_dtype`: a Python float fails as TF's attr check (`Value for attr 'Index' ...`).
    out = int_values(value, op, attr=attr, allowed=allowed)
    return out if isinstance(out, list) else [out]


def reverse(tensor: Any, axis: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.reverse`: reverse the order of elements along each axis in `axis` (`torch.flip`).

    `axis` is a 1-D list of ints (negative counts from the end); a repeated
    axis is an `InvalidArgumentError`, as in TF.
    """
    t = convert_to_tensor(tensor)
    dims = _ints(axis) if type(axis) is not int else None
    if dims is None:
        dims = int_values(axis, "ReverseV2", attr="Tidx")
    if isinstance(dims, int):
        raise invalid("'dims' must be 1-dimension, not 0", "ReverseV2")
    rank = t.dim()
    seen = set()
    for i, a in enumerate(dims):
        if not -rank <= a < rank:
            raise invalid(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}", "ReverseV2")
        a %= rank
        if a in seen:
            raise invalid(f"axis {a} specified more than once.", "ReverseV2")
        seen.add(a)
    return torch.flip(t, tuple(seen)) if seen else t


def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001
    """`tf.slice`: the block `input_[begin[i] : begin[i] + size[i]]` per axis; size -1 means "to the end".

    `begin` must lie in `[0, dim]` (no negative indices, unlike Python) and
    the block inside the tensor, else `InvalidArgumentError`. A view in torch.
    """
    t = convert_to_tensor(input_)
    b = _int_list(begin, "Slice", "Index")
    s = _int_list(size, "Slice", "Index")
    rank = t.dim()
    if len(b) != rank or len(s) != rank:
        raise invalid(f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got "
                      f"shapes [{len(b)}] and [{len(s)}] instead.", "Slice")
    out = t
    for i, (start, n) in enumerate(zip(b, s)):
        dim = t.shape[i]
        if n == -1:
            n = dim - start
        if not 0 <= start <= dim:
            raise invalid(f"Expected begin[{i}] in [0, {dim}], but got {start}", "Slice")
        if not 0 <= n <= dim - start:
            raise invalid(f"Expected size[{i}] in [0, {dim - start}], but got {n}", "Slice")
        if start or n != dim:
            out = out.narrow(i, start, n)
    return out


def _dense_spec(rank: int, begin: list, end: list, strides: list, begin_mask: int, end_mask: int,
                ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int) -> tuple:
    """TF's sparse-to-dense expansion: per input axis `(begin, end, stride, bmask, emask, shrink)`,

    plus the output layout: a list of ("axis", input_axis) / ("new",) entries
    in output order (shrunk axes omitted).
    """
    n = len(begin)
    if ellipsis_mask & (ellipsis_mask - 1):
        raise invalid("Multiple ellipses in slice spec not allowed", "StridedSlice")
    # Without an ellipsis TF appends an implicit one at the end.
    implicit = ellipsis_mask == 0
    spec = list(range(n))
    if implicit:
        ellipsis_mask = 1 << n
        spec.append(n)
    dense: List[Tuple[int, int, int, bool, bool, bool]] = []
    layout: list = []
    for pos, i in enumerate(spec):
        bit = 1 << i
        if ellipsis_mask & bit:
            new_after = sum(1 for j in spec[pos + 1:] if j < n and new_axis_mask & (1 << j))
            stop = min(rank - (len(spec) - pos) + 1 + new_after, rank)
            while len(dense) < stop:
                layout.append(("axis", len(dense)))
                dense.append((0, 0, 1, True, True, False))
        elif new_axis_mask & bit:
            layout.append(("new",))
        else:
            if len(dense) >= rank:
                raise invalid(f"Index out of range using input dim {len(dense)}; input has only "
                              f"{rank} dims", "StridedSlice")
            shrink = bool(shrink_axis_mask & bit)
            if not shrink:
                layout.append(("axis", len(dense)))
            dense.append((begin[i], end[i], strides[i], bool(begin_mask & bit),
                          bool(end_mask & bit), shrink))
    while len(dense) < rank:  # the implicit ellipsis consumed nothing: keep the remaining axes
        layout.append(("axis", len(dense)))
        dense.append((0, 0, 1, True, True, False))
    return dense, layout


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: Optional[str] = None) -> torch.Tensor:
    """`tf.strided_slice`: numpy-style `input_[begin:end:stride, ...]` with TF's five bit masks.

    Bit i of `begin_mask`/`end_mask` ignores `begin[i]`/`end[i]` (the widest
    range for the stride's sign); `ellipsis_mask` marks an `...`;
    `new_axis_mask` inserts a size-1 axis; `shrink_axis_mask` takes the
    single index `begin[i]` and drops the axis. Negative strides walk
    backwards (`x[::-1]`); out-of-range bounds are clamped, as in numpy.
    Torch mapping: views (`narrow`/slicing) plus `torch.flip` for negative
    strides.
    """
    t = convert_to_tensor(input_)
    b = _int_list(begin, "StridedSlice", "Index", _STRIDED_INDEX)
    e = _int_list(end, "StridedSlice", "Index", _STRIDED_INDEX)
    s = [1] * len(b) if strides is None else _int_list(strides, "StridedSlice", "Index",
                                                       _STRIDED_INDEX)
    if not len(b) == len(e) == len(s):
        raise invalid("Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                      f"[{len(b)}], [{len(e)}], and [{len(s)}] instead.", "StridedSlice")
    for i, st in enumerate(s):
        if st == 0:
            raise invalid(f"strides[{i}] must be non-zero", "StridedSlice")
    dense, layout = _dense_spec(t.dim(), b, e, s, begin_mask, end_mask, ellipsis_mask,
                                new_axis_mask, shrink_axis_mask)
    key: list = []
    flips: list = []
    for axis, (bi, ei, si, bm, em, shrink) in enumerate(dense):
        dim = t.shape[axis]
        if shrink:
            if si <= 0:
                raise invalid("only stride 1 allowed on non-range indexing.", "StridedSlice")
            x = bi + dim if bi < 0 else bi
            if not 0 <= x < dim:
                raise invalid(f"slice index {x} of dimension {axis} out of bounds.", "StridedSlice")
            key.append(x)
            continue
        # TF's canonical bounds: masked ends take the widest range for the stride's sign;
        # given ones count from the end when negative and are clamped into range.
        if si > 0:
            start = 0 if bm else min(max(bi + dim if bi < 0 else bi, 0), dim)
            stop = dim if em else min(max(ei + dim if ei < 0 else ei, 0), dim)
            key.append(builtins.slice(start, max(start, stop), si))
            continue
        start = dim - 1 if bm else min(max(bi + dim if bi < 0 else bi, -1), dim - 1)
        stop = -1 if em else min(max(ei + dim if ei < 0 else ei, -1), dim - 1)
        count = (start - stop - si - 1) // -si if start > stop else 0
        if count == 0:
            key.append(builtins.slice(0, 0))
        else:
            # The same elements walked forwards, flipped afterwards (torch has no negative steps).
            key.append(builtins.slice(start + (count - 1) * si, start + 1, -si))
            flips.append(axis)
    out = t[tuple(key)] if key else t
    if flips:
        # Positions of the flipped input axes among the kept (non-shrunk) ones.
        kept = [a for a, spec in enumerate(dense) if not spec[5]]
        out = torch.flip(out, tuple(kept.index(a) for a in flips))
    for i, item in enumerate(layout):
        if item[0] == "new":
            out = out.unsqueeze(i)
    return out


def roll(input: Any, shift: Any, axis: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A002
    """`tf.roll`: shift elements cyclically by `shift[i]` along `axis[i]` (`torch.roll`).

    `shift` and `axis` are scalars or equal-length 1-D lists; shifts on a
    repeated axis add up, as in TF.
    """
    t = convert_to_tensor(input)
    shifts = _ints(shift)
    axes = _ints(axis)
    if shifts is None:
        shifts = int_values(shift, "Roll", attr="Tshift")
        shifts = [shifts] if isinstance(shifts, int) else shifts
    if axes is None:
        axes = int_values(axis, "Roll", attr="Taxis")
        axes = [axes] if isinstance(axes, int) else axes
    if len(shifts) != len(axes):
        raise invalid("shift and axis must have the same size", "Roll")
    rank = t.dim()
    for a in axes:
        if not -rank <= a < rank:
            raise invalid(f"axis {a} is out of range", "Roll")
    if not axes:
        return t
    return torch.roll(t, shifts, [a % rank for a in axes])


def repeat(input: Any, repeats: Any, axis: Optional[int] = None,  # noqa: A002
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.repeat`: repeat each element `repeats` times along `axis` (flattened when None).

    `repeats` is a scalar or a 1-D list/tensor broadcast to `input.shape[axis]`
    (`torch.repeat_interleave`). A repeats tensor is read on the host, as
    the result's size depends on it.
    """
    t = convert_to_tensor(input)
    tensor_reps = None
    if isinstance(repeats, int) and not isinstance(repeats, bool):
        values, rdim = [repeats], 0  # Python repeats: nothing to read back from a tensor
    elif (isinstance(repeats, (list, tuple)) and repeats
          and all(type(v) is int for v in repeats)):
        values, rdim = list(repeats), 1
    else:
        r = convert_to_tensor(repeats)
        if r.dtype.is_floating_point or r.dtype is torch.bool or r.is_complex():
            raise TypeError("Argument `tensor` (name: repeats) must be of type integer. Received "
                            f"`tensor` = {r.tolist()} of dtype: <dtype: "
                            f"'{D.tf_type_name(r.dtype)}'>")
        if r.dim() > 1:
            raise ValueError(f"Shape must be rank <= 1, got {list(r.shape)} for repeats")
        values, rdim = r.reshape(-1).tolist(), r.dim()  # the result's size depends on them
        tensor_reps = r.reshape(-1)
    if axis is None:
        t = t.reshape(-1)
        a = 0
    else:
        rank = max(t.dim(), 1)
        if not -rank <= axis < rank:
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        if t.dim() == 0:
            t = t.reshape(1)
        a = axis % rank
    n = t.shape[a]
    if rdim == 1 and len(values) not in (1, n):
        raise ValueError(f"Dimensions {n} and {len(values)} are not compatible")
    for i, v in enumerate(values):
        if v < 0:
            # TF tiles an expanded axis a + 1 by the repeats, hence its message.
            raise invalid(f"Expected multiples[{a + 1}] >= 0, but got {v}", "Tile")
    if len(values) == 1:
        return torch.repeat_interleave(t, values[0], dim=a)
    if tensor_reps is not None:  # already on a device: no copy of the host list back
        reps = tensor_reps.to(t.device, torch.int64)
    else:
        reps = torch.tensor(values, dtype=torch.int64, device=t.device)
    return torch.repeat_interleave(t, reps, dim=a, output_size=sum(values))


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,  # noqa: A002
                     batch_axis: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.reverse_sequence`: for each batch entry `b`, reverse its first `seq_lengths[b]` elements along `seq_axis`.

    The rest of each sequence stays in place. One gather with a computed
    index (no host sync); on CPU lengths outside `[0, dim]` are TF's
    `InvalidArgumentError`.
    """
    t = convert_to_tensor(input)
    lens = convert_to_tensor(seq_lengths)
    D.check_dtype("ReverseSequence", lens.dtype, D.INT32_64, attr="Tlen")
    sa = 0 if seq_axis is None else int(seq_axis)
    ba = 0 if batch_axis is None else int(batch_axis)
    rank = t.dim()
    sa, ba = (sa + rank if sa < 0 else sa), (ba + rank if ba < 0 else ba)
    if sa == ba:
        raise invalid(f"batch_dim == seq_dim == {sa}", "ReverseSequence")
    if not (0 <= sa < rank and 0 <= ba < rank):
        raise invalid(f"Invalid seq_dim {sa} or batch_dim {ba} for an input of rank {rank}",
                      "ReverseSequence")
    if lens.dim() != 1 or lens.shape[0] != t.shape[ba]:
        raise invalid(f"Length of seq_lengths != input.dims({ba}), ({lens.numel()} vs. "
                      f"{t.shape[ba]})", "ReverseSequence")
    lens = lens.to(t.device, torch.int64)
    n = t.shape[sa]
    if checks_on_host(lens) and lens.numel():
        lo, hi = torch.aminmax(lens)
        if bool(hi > n) or bool(lo < 0):
            bad = (lens > n) | (lens < 0)
            i = int(torch.argmax(bad.to(torch.uint8)))
            word = ">" if int(lens[i]) > n else "<"
            raise invalid(f"seq_lens({i}) {word} {'input.dims(' + str(sa) + ')' if word == '>' else '0'}",
                          "ReverseSequence")
    j = torch.arange(n, device=t.device)
    src = torch.where(j < lens.unsqueeze(-1), lens.unsqueeze(-1) - 1 - j, j)  # [batch, n]
    # Lay the [batch, n] index out along (batch_axis, seq_axis) and broadcast it over the rest.
    shape = [1] * rank
    shape[ba], shape[sa] = t.shape[ba], n
    src = src if ba < sa else src.T
    return t.gather(sa, src.reshape(shape).expand(t.shape))
