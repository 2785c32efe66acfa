"""`tf.nn` convolutions: `conv1d`, `conv2d`, `conv2d_transpose`, `depthwise_conv2d`,
`separable_conv2d`, over torch's `conv{1,2}d` / `conv_transpose2d`.

TF's layouts map onto torch's without copies: a channels-last input
(`NHWC`, TF's default) is permuted to a channels-first *view* whose memory
is torch's `channels_last` format, which torch's CPU and cuDNN kernels take
as is; their channels-last result permutes back to a contiguous `NHWC`
tensor. Filters are `HWIO` (`[height, width, in, out]`) in TF and `OIHW`
in torch, again a permuted view. `NCHW` inputs pass straight through.

`SAME` padding is TF's (see `_windows.py`): the symmetric part is given to
torch's kernel and the odd row or column TF adds at the end is padded
explicitly (one `F.pad` copy of the input, only when strides or even
kernels make the padding asymmetric). Explicit padding lists work too.

On CPU, float16 and bfloat16 convolutions are computed in float32 and
rounded once, which is what TF's CPU kernels return; int32 (which TF's CPU
`Conv2D` accepts) is computed in float64 and cast back.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from . import _windows as W
from ._shape_args import int_values

__all__ = ["conv1d", "conv2d", "conv3d", "convolution", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose", "conv_transpose", "depthwise_conv2d", "separable_conv2d"]

_CONV_TYPES = D.FLOATS | {torch.int32}
_CONV_NAMES = ["half", "bfloat16", "float", "double", "int32"]
_FLOAT_NAMES = ["half", "bfloat16", "float", "double"]
_CONVS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


_FIRST = {n: (0, n + 1) + tuple(range(1, n + 1)) for n in (1, 2, 3)}
_LAST = {n: (0,) + tuple(range(2, n + 2)) + (1,) for n in (1, 2, 3)}


def _to_first(x: torch.Tensor, n: int) -> torch.Tensor:
    return x.permute(_FIRST[n])


def _to_last(x: torch.Tensor, n: int) -> torch.Tensor:
    return x.permute(_LAST[n])


def _compute_dtype(x: torch.Tensor) -> Optional[torch.dtype]:
    """The dtype torch computes in when it is not `x`'s (see the module docstring)."""
    if x.dtype is torch.int32:
        return torch.float64
    if x.device.type == "cpu" and x.dtype in (torch.float16, torch.bfloat16):
        return torch.float32
    return None


def _from_compute(out: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if dtype is torch.int32:
        return out.to(torch.int64).to(torch.int32)  # wraps as TF's int32 accumulation
    return out.to(dtype)


def _pad_extra(x: torch.Tensor, extra: Sequence[Tuple[int, int]], cf: bool) -> torch.Tensor:
    """Zero-pad the spatial dims of `x` (in its TF layout) by `extra` (before, after) pairs."""
    spec: List[int] = []
    for b, a in reversed(extra):
        spec += [b, a]
    if not cf:
        spec = [0, 0] + spec  # the channel axis is last: F.pad starts from the last axis
    return F.pad(x, tuple(spec))  # (a tuple: torch parses a list more slowly)


def convolve(x: torch.Tensor, weight: torch.Tensor, n: int, cf: bool, strides: Sequence[int],
             dilations: Sequence[int], pads: Sequence[Tuple[int, int]], groups: int = 1) -> torch.Tensor:
    """`x` (TF layout) convolved with a torch-layout `weight` under TF's padding `pads`."""
    dtype = x.dtype
    cdt = None if dtype in _FAST_TYPES else _compute_dtype(x)
    if cdt is not None:
        x, weight = x.to(cdt), weight.to(cdt)
    sym = [min(b, a) for b, a in pads]
    if any(b != a for b, a in pads):
        x = _pad_extra(x, [(b - m, a - m) for (b, a), m in zip(pads, sym)], cf)
    xt = x if cf else _to_first(x, n)
    out = _CONVS[n](xt, weight, None, tuple(strides), tuple(sym), tuple(dilations), groups)
    out = out if cf else _to_last(out, n)
    return out if cdt is None else _from_compute(out, dtype)


def _inputs(op: str, value: Any, filters: Any, allowed: frozenset, names: List[str]) -> tuple:
    x, w = D.matched(op, value, filters)
    D.check_dtype(op, x.dtype, allowed, names=names)
    if w.device != x.device:
        w = w.to(x.device)
    return x, w


def _conv_nd(op: str, x: torch.Tensor, w: torch.Tensor, n: int, strides: Any, padding: Any,
             cf: bool, dilations: Any, stride_name: str = "strides") -> torch.Tensor:
    """TF's `Conv{n}D` on a rank-(n + 2) `x` and an `[k..., in, out]` filter `w`."""
    if w.dim() != n + 2:
        raise invalid(f"filter must be {n + 2}-dimensional: {D.fmt_shape(w.shape)}", op)
    st = W.spatial(W.sequence(strides, n, cf, stride_name), cf, op, "strides")
    dl = W.spatial(W.sequence(dilations, n, cf, "dilations"), cf, op, "dilations")
    mode, explicit = W.parse_padding(padding, n, cf, op)
    c_in = x.shape[1] if cf else x.shape[-1]
    f_in, f_out = w.shape[n], w.shape[n + 1]
    if f_in == 0 or c_in % f_in:
        raise invalid(f"input depth must be evenly divisible by filter depth: {c_in} vs {f_in}", op)
    groups = c_in // f_in
    if f_out % groups:
        raise invalid(f"output depth must be evenly divisible by number of groups: {f_out} vs "
                      f"{groups}", op)
    sizes = x.shape[2:] if cf else x.shape[1:-1]
    pads = W.window_pads(mode, explicit, sizes, w.shape[:n], st, dl, op)
    weight = w.permute(n + 1, n, *range(n))  # [k..., in, out] -> [out, in, k...]
    return convolve(x, weight, n, cf, st, dl, pads, groups)


_FAST_TYPES = frozenset({torch.float32, torch.float64})


def _conv2d_fast(x: torch.Tensor, w: torch.Tensor, stride: int, padding: str) -> torch.Tensor:
    """`conv2d` of an NHWC tensor with an HWIO tensor of its depth, an int stride, no dilation."""
    kh, kw = w.shape[0], w.shape[1]
    if padding == "SAME":
        pads = [W.same_pads(x.shape[1], kh, stride), W.same_pads(x.shape[2], kw, stride)]
    else:
        if x.shape[1] < kh or x.shape[2] < kw:
            W.window_pads("VALID", None, x.shape[1:3], (kh, kw), (stride, stride), (1, 1),
                          "Conv2D")
        pads = [(0, 0), (0, 0)]
    return convolve(x, w.permute(3, 2, 0, 1), 2, False, (stride, stride), (1, 1), pads)


def conv2d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
           dilations: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv2d`: 2-D convolution of an `NHWC` (or `NCHW`) input with `HWIO` filters.

    `strides`/`dilations`: an int or a list of 1, 2 or 4; `padding`:
    `"SAME"`, `"VALID"` or `[[0, 0], [top, bottom], [left, right], [0, 0]]`.
    An input depth that is a multiple of the filter's in-depth is a grouped
    convolution, as in TF. Inputs of rank > 4 have extra leading batch dims.
    torch: `F.conv2d` on a channels-last view.
    """
    if (type(input) is torch.Tensor and type(filters) is torch.Tensor and type(strides) is int
            and dilations is None and data_format == "NHWC" and input.dim() == 4
            and filters.dim() == 4 and input.dtype is filters.dtype
            and input.dtype in _FAST_TYPES and (padding == "SAME" or padding == "VALID")
            and strides > 0 and input.device == filters.device
            and input.shape[3] == filters.shape[2]):
        return _conv2d_fast(input, filters, strides, padding)  # the common call, checked less
    x, w = _inputs("Conv2D", input, filters, _CONV_TYPES, _CONV_NAMES)
    cf = W.channels_first(data_format if data_format is not None else "NHWC", 2, "Conv2D",
                          ("NHWC", "NCHW"))
    if x.dim() < 4:
        raise invalid(f"input must be at least 4-dimensional: {D.fmt_shape(x.shape)}", "Conv2D")
    if x.dim() > 4:
        lead = x.shape[:-3]
        out = _conv_nd("Conv2D", x.reshape((-1,) + tuple(x.shape[-3:])), w, 2, strides, padding,
                       cf, dilations)
        return out.reshape(tuple(lead) + tuple(out.shape[1:]))
    return _conv_nd("Conv2D", x, w, 2, strides, padding, cf, dilations)


def conv1d(input: Any, filters: Any, stride: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
           dilations: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv1d`: 1-D convolution of an `NWC` (or `NCW`) input with `[width, in, out]` filters.

    torch: `F.conv1d` on a channels-last view.
    """
    if data_format is None:
        data_format = "NWC"
    if data_format not in ("NWC", "NCW", "NHWC", "NCHW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    cf = data_format.startswith("NC")
    x, w = _inputs("Conv2D", input, filters, _CONV_TYPES, _CONV_NAMES)
    if x.dim() < 3:
        raise invalid(f"input must be at least 3-dimensional: {D.fmt_shape(x.shape)}", "Conv2D")
    if x.dim() > 3:
        lead = x.shape[:-2]
        out = _conv_nd("Conv2D", x.reshape((-1,) + tuple(x.shape[-2:])), w, 1, stride, padding,
                       cf, dilations, "stride")
        return out.reshape(tuple(lead) + tuple(out.shape[1:]))
    return _conv_nd("Conv2D", x, w, 1, stride, padding, cf, dilations, "stride")


def conv3d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NDHWC",  # noqa: A002
           dilations: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv3d`: 3-D convolution of an `NDHWC` (or `NCDHW`) input with `DHWIO` filters.

    `strides` (and `dilations`) are lists of 5, `padding` `"SAME"` or
    `"VALID"`, as TF's `Conv3D`. torch: `F.conv3d` on a channels-last view.
    """
    op = "Conv3D"
    x, w = _inputs(op, input, filters, D.FLOATS, _FLOAT_NAMES)
    cf = W.channels_first(data_format if data_format is not None else "NDHWC", 3, op,
                          ("NDHWC", "NCDHW"))
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'conv3d' Op, not {strides!r}.")
    if len(strides) != 5:
        raise invalid("Sliding window strides field must specify 5 dimensions", op)
    if dilations is not None and (not isinstance(dilations, (list, tuple)) or len(dilations) != 5):
        raise invalid("Dilation rates field must specify 5 dimensions", op)
    if isinstance(padding, (list, tuple)):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if x.dim() != 5:
        raise invalid(f"input must be 5-dimensional{D.fmt_shape(x.shape)}", op)
    return _conv_nd(op, x, w, 3, list(strides), padding, cf, dilations)


_CONV_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def convolution(input: Any, filters: Any, strides: Any = None, padding: str = "VALID",  # noqa: A002
                data_format: Optional[str] = None, dilations: Any = None,
                name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.convolution`: N-D convolution (N = 1, 2, 3 from the filters' rank).

    `strides`/`dilations`: an int or a list of 1 or N; `data_format` None
    means channels last. Runs `conv1d`, `conv2d` or `conv3d`.
    """
    w = convert_to_tensor(filters)
    n = w.dim() - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`filters` must have rank 3, 4 or 5 (1-3 spatial dims). Received: "
                         f"filters.shape={list(w.shape)}")
    formats = _CONV_FORMATS[n]
    fmt = formats[0] if data_format is None else data_format
    if fmt not in formats:  # (TF's kernel attr check names the formats)
        W.channels_first(fmt, n, f"Conv{n}D" if n > 1 else "Conv2D", formats)
    cf = fmt.startswith("NC")
    st = W.sequence(strides, n, cf, "strides")
    dl = W.sequence(dilations, n, cf, "dilations")
    if n == 1:
        return conv1d(input, w, st, padding, fmt, dl)
    if n == 2:
        return conv2d(input, w, st, padding, fmt, dl)
    return conv3d(input, w, st, padding, fmt, dl)


def _output_shape(output_shape: Any, n: int, cf: bool, op: str
                  ) -> Tuple[Optional[int], Tuple[int, ...]]:
    """`(channels or None, spatial sizes)` of a transposed convolution's `output_shape`."""
    dims = int_values(output_shape, op, attr="T", python_dtype=torch.int32)
    dims = [dims] if isinstance(dims, int) else list(dims)
    if len(dims) == n and n < 3:  # (TF's 3-D kernel aborts the process on spatial sizes)
        return None, tuple(dims)
    if len(dims) != n + 2:
        raise invalid(f"{op}: input_sizes must be {n + 2}-dimensional, got: {len(dims)}", op)
    return (dims[1], tuple(dims[2:])) if cf else (dims[-1], tuple(dims[1:-1]))


_TRANSPOSED = {1: ("Conv2DBackpropInput", "Conv2DCustomBackpropInput", ("NWC", "NCW")),
               2: ("Conv2DBackpropInput", "Conv2DCustomBackpropInput", ("NHWC", "NCHW")),
               3: ("Conv3DBackpropInputV2", "Conv3DBackpropInputOp", ("NDHWC", "NCDHW"))}
_CONV_TRANSPOSES = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _conv_transpose(n: int, input: Any, filters: Any, output_shape: Any,  # noqa: A002
                    strides: Any, padding: Any, data_format: Optional[str],
                    dilations: Any) -> torch.Tensor:
    """The n-D transposed convolution (the gradient of `conv{n}d` with respect to its input):
    `F.conv_transpose{n}d`, its result cropped to TF's padding."""
    op, kernel, formats = _TRANSPOSED[n]
    x, w = _inputs(op, input, filters, _CONV_TYPES, _CONV_NAMES)
    cf = W.channels_first(data_format if data_format is not None else formats[0], n, op,
                          formats)
    if x.dim() != n + 2:
        raise invalid(f"out_backprop must be {n + 2}-dimensional: {D.fmt_shape(x.shape)}", op)
    if w.dim() != n + 2:
        raise invalid(f"filter must be {n + 2}-dimensional: {D.fmt_shape(w.shape)}", op)
    st = W.spatial(W.sequence(strides, n, cf, "strides"), cf, op, "strides")
    dl = W.spatial(W.sequence(dilations, n, cf, "dilations"), cf, op, "dilations")
    mode, explicit = W.parse_padding(padding, n, cf, op, explicit=n < 3)
    channels, out_sizes = _output_shape(output_shape, n, cf, op)
    c_in = x.shape[1] if cf else x.shape[-1]
    if w.shape[n + 1] != c_in:
        raise invalid(f"{kernel}: filter and out_backprop must have the same out_depth", op)
    if channels is not None and channels != w.shape[n]:
        raise invalid(f"{kernel}: input and filter must have the same depth: "
                      f"{channels} vs {w.shape[n]}", op)
    in_sizes = x.shape[2:] if cf else x.shape[1:-1]
    ks = w.shape[:n]
    pads = W.window_pads(mode, explicit, out_sizes, ks, st, dl, op)
    crops = []
    for i, (o, k, s, d, (pb, pa), got) in enumerate(zip(out_sizes, ks, st, dl, pads, in_sizes)):
        eff = (k - 1) * d + 1
        want = (o + pb + pa - eff) // s + 1
        if want != got:
            raise invalid(f"{kernel}: Size of out_backprop doesn't match computed: actual = "
                          f"{got}, computed = {want} spatial_dim: {i + 1} input: {o} filter: "
                          f"{k} output: {got} stride: {s} dilation: {d}", op)
        full = (got - 1) * s + eff
        after = full - pb - o  # rows of the full transposed result past TF's output
        q = min(pb, after) if after >= 0 else 0
        crops.append((q, max(-after, 0), pb - q, o))
    dtype = x.dtype
    cdt = _compute_dtype(x)
    if cdt is not None:
        x, w = x.to(cdt), w.to(cdt)
    xt = x if cf else _to_first(x, n)
    weight = w.permute(n + 1, n, *range(n))  # [*k, out, in] -> [in, out, *k]
    out = _CONV_TRANSPOSES[n](xt, weight, None, tuple(st), tuple(c[0] for c in crops),
                              tuple(c[1] for c in crops), 1, tuple(dl))
    for axis, (_, _, start, length) in enumerate(crops):
        if start or out.shape[2 + axis] != length:
            out = out.narrow(2 + axis, start, length)
    out = out if cf else _to_last(out, n)
    return out if cdt is None else _from_compute(out, dtype)


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: Any = "SAME", data_format: str = "NHWC", dilations: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv2d_transpose`: the gradient of `conv2d` with respect to its input.

    `filters` is `[height, width, output_channels, in_channels]`;
    `output_shape` (4 ints, or the 2 spatial sizes) is the shape a `conv2d`
    with these `strides` and `padding` would map back onto `input`'s shape;
    an inconsistent one is TF's `InvalidArgumentError`. torch:
    `F.conv_transpose2d`, its result cropped to TF's padding.
    """
    return _conv_transpose(2, input, filters, output_shape, strides, padding, data_format,
                           dilations)


def conv1d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: Any = "SAME", data_format: str = "NWC", dilations: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv1d_transpose`: the gradient of `conv1d` with respect to its input;
    `filters` is `[width, output_channels, in_channels]`, `output_shape` 3 ints (or the
    width). torch: `F.conv_transpose1d`, cropped to TF's padding."""
    return _conv_transpose(1, input, filters, output_shape, strides, padding, data_format,
                           dilations)


def conv3d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: Any = "SAME", data_format: str = "NDHWC", dilations: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv3d_transpose`: the gradient of `conv3d` with respect to its input;
    `filters` is `[depth, height, width, output_channels, in_channels]`, `output_shape`
    5 ints (or the 3 spatial sizes). torch: `F.conv_transpose3d`, cropped to TF's padding."""
    return _conv_transpose(3, input, filters, output_shape, strides, padding, data_format,
                           dilations)


def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                   padding: Any = "SAME", data_format: Optional[str] = None,
                   dilations: Any = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.conv_transpose`: `conv{1,2,3}d_transpose` by the rank of `output_shape`
    (N + 2 entries for an N-D convolution)."""
    dims = int_values(output_shape, "conv_transpose", attr="T", python_dtype=torch.int32)
    n = (1 if isinstance(dims, int) else len(dims)) - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: "
                         f"output_shape={list(dims) if not isinstance(dims, int) else dims}")
    return _conv_transpose(n, input, filters, output_shape, strides, padding, data_format,
                           dilations)


def _depthwise_strides(strides: Any) -> List[int]:
    if not isinstance(strides, (list, tuple)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, "
                        f"not {strides!r}.")
    if len(strides) != 4:
        raise invalid("Sliding window strides field must specify 4 dimensions",
                      "DepthwiseConv2dNative")
    return [int(s) for s in strides]


def _depthwise(x: torch.Tensor, w: torch.Tensor, strides: Any, padding: Any, cf: bool,
               dilations: Any) -> torch.Tensor:
    op = "DepthwiseConv2dNative"
    if x.dim() != 4:
        raise invalid(f"input must be 4-dimensional{D.fmt_shape(x.shape)}", op)
    if w.dim() != 4:
        raise invalid(f"filter must be 4-dimensional: {D.fmt_shape(w.shape)}", op)
    st = W.spatial(_depthwise_strides(strides), cf, op, "strides")
    dl = W.spatial(W.sequence(dilations, 2, cf, "dilations"), cf, op, "dilations")
    mode, explicit = W.parse_padding(padding, 2, cf, op)
    c_in = x.shape[1] if cf else x.shape[-1]
    kh, kw, f_in, mult = w.shape
    if f_in != c_in:
        raise invalid(f"input and filter must have the same depth: {c_in} vs {f_in}", op)
    sizes = x.shape[2:] if cf else x.shape[1:-1]
    pads = W.window_pads(mode, explicit, sizes, (kh, kw), st, dl, op)
    # [h, w, C, M] -> [C * M, 1, h, w]: torch's group c makes outputs c * M + m, TF's order.
    weight = w.reshape(kh, kw, f_in * mult).permute(2, 0, 1).unsqueeze(1)
    return convolve(x, weight, 2, cf, st, dl, pads, groups=c_in)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                     data_format: Optional[str] = None, dilations: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.depthwise_conv2d`: each input channel convolved with its own `multiplier` filters.

    `filter` is `[height, width, in_channels, multiplier]`; the output has
    `in_channels * multiplier` channels, channel `c * multiplier + m`.
    `strides` is a list of 4; `dilations` (the rate) a list of 2. torch:
    `F.conv2d` with `groups=in_channels`.
    """
    x, w = _inputs("DepthwiseConv2dNative", input, filter, D.FLOATS, _FLOAT_NAMES)
    cf = W.channels_first(data_format, 2, "DepthwiseConv2dNative", ("NHWC", "NCHW"))
    return _depthwise(x, w, strides, padding, cf, dilations)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                     padding: Any, data_format: Optional[str] = None, dilations: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.separable_conv2d`: `depthwise_conv2d`, then a 1x1 `conv2d` mixing the channels.

    `pointwise_filter` is `[1, 1, in_channels * multiplier, out_channels]`.
    """
    x, dw = _inputs("DepthwiseConv2dNative", input, depthwise_filter, D.FLOATS, _FLOAT_NAMES)
    pw = convert_to_tensor(pointwise_filter)
    if pw.dim() != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {pw.dim()}")
    for i in (0, 1):
        if pw.shape[i] != 1:
            raise ValueError(f"Dimensions {pw.shape[i]} and 1 are not compatible")
    if pw.dtype is not x.dtype:
        raise D.mismatch("Conv2D", 1, x.dtype, pw.dtype)
    cf = W.channels_first(data_format, 2, "DepthwiseConv2dNative", ("NHWC", "NCHW"))
    depth = _depthwise(x, dw, strides, padding, cf, dilations)
    return _conv_nd("Conv2D", depth, pw.to(depth.device), 2, 1, "VALID", cf, None)
