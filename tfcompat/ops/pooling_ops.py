"""`tf.nn` pooling: `max_pool{,1d,2d,3d}`, `avg_pool{,1d,2d,3d}` and `pool`, over torch's pools.

TF's `SAME` pooling pads asymmetrically (one more at the end when the total
is odd). Padding never takes part in a window: max pooling pads with -inf
and average pooling divides by the number of *input* elements in each
window, not the window size. Both map onto torch's pools without copying
the input: the symmetric part of the padding goes to torch's `padding`
(with `count_include_pad=False`), and the extra row at the end is torch's
`ceil_mode` window (strides > 1) or, for stride 1, one more row of padding
at both ends and the first output row dropped. Explicit padding lists
(`max_pool` only, as in TF) pad the input with the dtype's lowest value.

Channels-last inputs (TF's default) are permuted to channels-first views in
torch's `channels_last` memory format, as for the convolutions.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from ..framework import errors
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from . import _windows as W

__all__ = ["max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool", "avg_pool1d",
           "avg_pool2d", "avg_pool3d", "pool"]

_MAX_TYPES = D.REAL
_MAX_NAMES = ["half", "bfloat16", "float", "double", "int32", "int64", "uint8", "int16", "int8",
              "uint16", "qint8"]
_FLOAT_NAMES = ["half", "bfloat16", "float", "double"]
_POOL3D_TYPES = frozenset({torch.float16, torch.bfloat16, torch.float32})
_POOL3D_NAMES = ["half", "bfloat16", "float"]
_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
_KERNELS = {1: "2D", 2: "", 3: "3D"}  # 1-D pools run TF's 2-D kernels (`MaxPool`, `AvgPool`)


def _torch_pads(pads: Sequence[Tuple[int, int]], strides: Sequence[int]) -> tuple:
    """`(torch padding, ceil_mode, first output rows to drop)` for TF's per-dim pads."""
    sym, crop, ceil = [], [], False
    for (b, a), s in zip(pads, strides):
        if a == b:
            sym.append(b)
            crop.append(0)
        elif a == b + 1 and s > 1:
            sym.append(b)  # ceil_mode adds the window that reaches into the extra row
            crop.append(0)
            ceil = True
        elif a == b + 1:
            sym.append(a)  # stride 1: one more window at the start, dropped below
            crop.append(1)
        else:
            return None
    return sym, ceil, crop


def _lowest(x: torch.Tensor) -> float:
    if x.is_floating_point():
        return float("-inf")
    return int(torch.iinfo(x.dtype).min)


def _pool(kind: str, x: torch.Tensor, n: int, cf: bool, ks: Sequence[int], st: Sequence[int],
          pads: List[Tuple[int, int]], op: str) -> torch.Tensor:
    xt = x if cf else x.permute(0, n + 1, *range(1, n + 1))
    squeeze = False
    if n == 1:  # torch's 1-D pools lack integer kernels: pool over a unit height instead
        xt, ks, st, pads, n, squeeze = xt.unsqueeze(2), (1,) + tuple(ks), (1,) + tuple(st), \
            [(0, 0)] + list(pads), 2, True
    plan = _torch_pads(pads, st)
    if plan is None or any(p > k // 2 for p, k in zip(plan[0], ks)):
        spec: List[int] = []
        for b, a in reversed(pads):
            spec += [b, a]
        if kind == "MAX":
            xt = F.pad(xt, spec, value=_lowest(xt))
            plan = ([0] * n, False, [0] * n)
        else:  # (TF takes no explicit padding for average pools; only dilation gets here)
            raise invalid("average pooling takes no explicit padding", op)
    sym, ceil, crop = plan
    if kind == "MAX":
        fn = F.max_pool2d if n == 2 else F.max_pool3d
        try:
            out = fn(xt, tuple(ks), tuple(st), tuple(sym), 1, ceil)
        except (RuntimeError, NotImplementedError):
            if xt.is_floating_point():
                raise
            # torch's accelerator pools lack integer kernels: float64 holds every value of
            # int32 and narrower types exactly (and int64 up to 2**53)
            out = fn(xt.double(), tuple(ks), tuple(st), tuple(sym), 1, ceil).to(xt.dtype)
    elif n == 3 and any(size < k for size, k in zip(xt.shape[2:], ks)):
        return _window_sums_over_counts(x, xt, cf, ks, st, pads)
    else:
        fn = F.avg_pool2d if n == 2 else F.avg_pool3d
        out = fn(xt, tuple(ks), tuple(st), tuple(sym), ceil, False)
    for axis, c in enumerate(crop):
        if c:
            out = out.narrow(2 + axis, c, out.shape[2 + axis] - c)
    if squeeze:
        out, n = out.squeeze(2), 1
    return out if cf else out.permute(0, *range(2, n + 2), 1)


def _window_sums_over_counts(x: torch.Tensor, xt: torch.Tensor, cf: bool, ks: Sequence[int],
                             st: Sequence[int], pads: Sequence[Tuple[int, int]]) -> torch.Tensor:
    """A 3-D SAME average whose window is larger than the input (torch's `avg_pool3d` refuses
    it): each window's sum over the zero-padded input divided by its count of input elements,
    TF's `sum / count`."""
    spec: List[int] = []
    for b, a in reversed(pads):
        spec += [b, a]
    padded = F.pad(xt, spec)
    sums = F.avg_pool3d(padded, tuple(ks), tuple(st), 0, False, True, divisor_override=1)
    ones = F.pad(torch.ones((1, 1) + tuple(xt.shape[2:]), dtype=xt.dtype, device=xt.device),
                 spec)
    counts = F.avg_pool3d(ones, tuple(ks), tuple(st), 0, False, True, divisor_override=1)
    out = sums / counts
    return out if cf else out.permute(0, 2, 3, 4, 1)


def _prepare(kind: str, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str], n: Optional[int]) -> torch.Tensor:
    x = convert_to_tensor(input)
    if n is None:
        n = x.dim() - 2
        if n not in (1, 2, 3):
            raise ValueError("`input.shape.rank` must be 3, 4 or 5. Received: "
                             f"input.shape={TensorShape(tuple(x.shape))} of rank {x.dim()}")
    op = ("MaxPool" if kind == "MAX" else "AvgPool") + _KERNELS[n]
    if n == 3 and x.dtype is torch.float64 and kind == "AVG":
        raise errors.NotFoundError(None, None, (
            "Could not find device for node: {{node AvgPool3D}} = AvgPool3D[T=DT_DOUBLE]: TF "
            "has no float64 AvgPool3D kernel; cast to float32"))
    if n == 3:
        D.check_dtype(op, x.dtype, _POOL3D_TYPES, names=_POOL3D_NAMES)
    elif kind == "MAX":
        D.check_dtype(op, x.dtype, _MAX_TYPES, names=_MAX_NAMES)
    else:
        D.check_dtype(op, x.dtype, D.FLOATS, names=_FLOAT_NAMES)
    formats = _FORMATS[n]
    if data_format is None:
        data_format = formats[0]
    if n == 1 and data_format in ("NHWC", "NCHW"):
        data_format = "NCW" if data_format == "NCHW" else "NWC"
    if data_format not in formats:
        if n == 1:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        W.channels_first(data_format, n, op, formats)
    cf = data_format.startswith("NC")
    if x.dim() != n + 2:
        raise invalid(f"input must be {n + 2}-dimensional: {D.fmt_shape(x.shape)}", op)
    ks = W.spatial(W.sequence(ksize, n, cf, "ksize"), cf, op, "ksize")
    st = W.spatial(W.sequence(strides, n, cf, "strides"), cf, op, "strides")
    mode, explicit = W.parse_padding(padding, n, cf, op, explicit=(kind == "MAX" and n == 2))
    sizes = x.shape[2:] if cf else x.shape[1:-1]
    if explicit is not None:
        names = (("Top", "Bottom"), ("Left", "Right"))
        for (b, a), k, (nb, na) in zip(explicit, ks, names):
            for side, p in ((nb, b), (na, a)):
                if p >= k:
                    raise invalid(f"{side} padding {p} needs to be smaller than the window size "
                                  f"{k}", op)
    pads = W.window_pads(mode, explicit, sizes, ks, st, (1,) * n, op)
    return _pool(kind, x, n, cf, ks, st, pads, op)


def max_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.max_pool`: the maximum of each window; 1-, 2- or 3-D by the input's rank.

    `SAME` padding never wins a window (it is -inf). The gradient goes to the
    first maximum of each window (torch's `max_pool` backward).
    """
    return _prepare("MAX", input, ksize, strides, padding, data_format, None)


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.max_pool1d`: `max_pool` of an `NWC` (or `NCW`) input."""
    return _prepare("MAX", input, ksize, strides, padding, data_format, 1)


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.max_pool2d`: `max_pool` of an `NHWC` (or `NCHW`) input; explicit padding allowed."""
    return _prepare("MAX", input, ksize, strides, padding, data_format, 2)


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NDHWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.max_pool3d`: `max_pool` of an `NDHWC` (or `NCDHW`) input (half, bfloat16, float)."""
    return _prepare("MAX", input, ksize, strides, padding, data_format, 3)


def avg_pool(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
             data_format: Optional[str] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.avg_pool`: the mean of each window's input elements (padding is not counted).

    torch: `avg_pool{2,3}d(count_include_pad=False)`.
    """
    return _prepare("AVG", input, ksize, strides, padding, data_format, None)


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.avg_pool1d`: `avg_pool` of an `NWC` (or `NCW`) input."""
    return _prepare("AVG", input, ksize, strides, padding, data_format, 1)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.avg_pool2d`: `avg_pool` of an `NHWC` (or `NCHW`) input."""
    return _prepare("AVG", input, ksize, strides, padding, data_format, 2)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NDHWC", name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.avg_pool3d`: `avg_pool` of an `NDHWC` (or `NCDHW`) input (half, bfloat16, float)."""
    return _prepare("AVG", input, ksize, strides, padding, data_format, 3)


def _dilated(kind: str, x: torch.Tensor, n: int, cf: bool, window: Sequence[int],
             rate: Sequence[int]) -> torch.Tensor:
    """A VALID, stride-1 pool whose window elements are `rate` apart."""
    xt = x if cf else x.permute(0, n + 1, *range(1, n + 1))
    if n == 1:
        xt, window, rate = xt.unsqueeze(2), (1,) + tuple(window), (1,) + tuple(rate)
    m = len(window)
    if kind == "MAX":
        fn = F.max_pool2d if m == 2 else F.max_pool3d
        out = fn(xt, tuple(window), 1, 0, tuple(rate))
    else:  # the window sum as a depthwise convolution with ones, then TF's division by the count
        c = xt.shape[1]
        ones = torch.ones((c, 1) + tuple(window), dtype=xt.dtype, device=xt.device)
        conv = F.conv2d if m == 2 else F.conv3d
        count = 1
        for k in window:
            count *= k
        out = conv(xt, ones, None, 1, 0, tuple(rate), c) / count
    if n == 1:
        out = out.squeeze(2)
    return out if cf else out.permute(0, *range(2, n + 2), 1)


def pool(input: Any, window_shape: Any, pooling_type: str, strides: Any = None,  # noqa: A002
         padding: str = "VALID", data_format: Optional[str] = None, dilations: Any = None,
         name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.pool`: N-D `"MAX"` or `"AVG"` pooling with optional dilation (`VALID` only).

    `window_shape`, `strides` and `dilations` have one entry per spatial dim;
    strides and dilations above 1 cannot be combined, as in TF.
    """
    window = [int(v) for v in (window_shape if isinstance(window_shape, (list, tuple))
                               else [window_shape])]
    n = len(window)
    if n not in (1, 2, 3):
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: "
                         f"window_shape={window_shape} of length {n}")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    st = [1] * n if strides is None else [int(s) for s in strides]
    rate = [1] * n if dilations is None else [int(d) for d in dilations]
    if len(st) != n or len(rate) != n:
        raise ValueError(f"`strides` and `dilations` must have {n} entries, as `window_shape`.")
    if any(r > 1 for r in rate):
        if padding == "SAME":
            raise ValueError("pooling with 'SAME' padding is not implemented for `dilation_rate` "
                             f"> 1. Received: padding={padding} and dilation_rate={rate}")
        if any(s > 1 for s in st):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`."
                             f" Received: strides={st} and dilation_rate={rate}")
    x = convert_to_tensor(input)
    if x.dim() != n + 2:
        raise ValueError(f"`input` must have rank {n + 2} for {n}-D pooling. Received: "
                         f"input.shape={TensorShape(tuple(x.shape))}")
    if not any(r > 1 for r in rate):
        return _prepare(pooling_type, x, window, st, padding, data_format, n)
    cf = data_format is not None and data_format.startswith("NC")
    op = ("MaxPool" if pooling_type == "MAX" else "AvgPool") + _KERNELS[n]
    D.check_dtype(op, x.dtype, _MAX_TYPES if pooling_type == "MAX" else D.FLOATS)
    W.parse_padding(padding, n, cf, op, explicit=False)
    sizes = x.shape[2:] if cf else x.shape[1:-1]
    W.window_pads("VALID", None, sizes, window, [1] * n, rate, op)
    return _dilated(pooling_type, x, n, cf, window, rate)
