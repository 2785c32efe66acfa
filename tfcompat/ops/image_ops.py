"""`tf.image`: resizing (TF2's half-pixel kernels), crops, pads, flips and conversions.

The resize kernels transcribe TF's CPU kernels arithmetic for arithmetic, in float32 as TF
computes them (every method but nearest returns float32, whatever the input's dtype):

* bilinear (`ResizeBilinear`, half_pixel_centers): source coordinate
  `in = (out + 0.5) * (in_size / out_size) - 0.5`, neighbours `max(floor(in), 0)` and
  `min(ceil(in), in_size - 1)`, `lerp = in - floor(in)`; rows first
  (`top = tl + (tr - tl) * x_lerp`), then `top + (bottom - top) * y_lerp`.
* nearest (`ResizeNearestNeighbor`, half_pixel_centers): `floor((out + 0.5) * scale)`
  clamped into the image; the dtype is kept.
* bicubic (`ResizeBicubic`, half_pixel_centers): Keys' cubic with `a = -0.5` (torch uses
  -0.75), its weights read from TF's 1024-entry table; taps outside the image get weight 0
  and the four weights are renormalized; columns are interpolated first, then rows.
* area (`ResizeArea`): each output cell averages the input cells it covers, weighted by the
  covered fraction (no half-pixel offset).

Every kernel is gathers and elementwise torch ops, so gradients flow to the images.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Optional, Sequence

import numpy as np
import torch

from ..framework import dtypes, errors
from ..framework.tensor_conversion import convert_to_tensor
from . import exact_math
from .binary_math_ops import _NotDifferentiable

__all__ = ["ResizeMethod", "resize", "flip_left_right", "flip_up_down", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
           "rgb_to_grayscale", "grayscale_to_rgb", "convert_image_dtype",
           "per_image_standardization", "smart_resize", "adjust_brightness", "adjust_contrast"]


class ResizeMethod:
    """`tf.image.ResizeMethod`: the names `resize` accepts as `method`."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_IMPLEMENTED = (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR, ResizeMethod.BICUBIC,
                ResizeMethod.AREA)
_KNOWN = _IMPLEMENTED + (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN,
                         ResizeMethod.MITCHELLCUBIC)


# -- the kernels (NHWC, float32) ---------------------------------------------------------

def _scale(in_size: int, out_size: int) -> torch.Tensor:
    # TF: static_cast<float>(in_size) / out_size, a float32 division
    return torch.tensor(float(in_size), dtype=torch.float32) / torch.tensor(
        float(out_size), dtype=torch.float32)


def _bilinear_axis(in_size: int, out_size: int, device: torch.device):
    pos = (torch.arange(out_size, dtype=torch.float32) + 0.5) * _scale(in_size, out_size) - 0.5
    floor = torch.floor(pos)
    lower = torch.clamp(floor.to(torch.int64), min=0)
    upper = torch.clamp(torch.ceil(pos).to(torch.int64), max=in_size - 1)
    lerp = pos - floor
    return lower.to(device), upper.to(device), lerp.to(device)


def _bilinear_forward(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    y0, y1, yl = _bilinear_axis(x.shape[1], h, x.device)
    x0, x1, xl = _bilinear_axis(x.shape[2], w, x.device)
    top, bottom = x.index_select(1, y0), x.index_select(1, y1)
    xl = xl.view(1, 1, w, 1)
    tl, tr = top.index_select(2, x0), top.index_select(2, x1)
    bl, br = bottom.index_select(2, x0), bottom.index_select(2, x1)
    top = tl + (tr - tl) * xl
    bottom = bl + (br - bl) * xl
    return top + (bottom - top) * yl.view(1, h, 1, 1)


def _grad_axis(index: np.ndarray, weight: np.ndarray, in_size: int):
    """Invert one axis's taps (`index[out, taps]`, `weight[out, taps]`): for each source row,
    the `(out_index, tap, weight)` entries that read it in the kernels' loop order (output
    row, then tap), padded with `out_size` (a zero row), tap 0 and weight 0."""
    out_size, taps = index.shape
    src = index.reshape(-1)
    out = np.repeat(np.arange(out_size), taps)
    tap = np.tile(np.arange(taps), out_size)
    weight = weight.reshape(-1).astype(np.float32)
    order = np.lexsort((tap, out, src))
    src, out, tap, weight = src[order], out[order], tap[order], weight[order]
    counts = np.bincount(src, minlength=in_size)
    width = max(int(counts.max()), 1)
    slot = np.arange(src.size) - np.repeat(np.cumsum(counts) - counts, counts)
    table_out = np.full((in_size, width), out_size, dtype=np.int64)
    table_tap = np.zeros((in_size, width), dtype=np.int64)
    table_weight = np.zeros((in_size, width), dtype=np.float32)
    table_out[src, slot], table_tap[src, slot], table_weight[src, slot] = out, tap, weight
    return table_out, table_tap, table_weight, taps


def _axis_taps(method: str, in_size: int, out_size: int):
    if method == ResizeMethod.BILINEAR:
        lower, upper, lerp = (t.numpy() for t in _bilinear_axis(in_size, out_size, "cpu"))
        return (np.stack([lower, upper], axis=1),
                np.stack([np.float32(1.0) - lerp, lerp], axis=1))
    if method == ResizeMethod.BICUBIC:
        index, weight = (t.numpy() for t in _bicubic_axis(in_size, out_size, "cpu"))
        return index, weight
    index = _nearest_axis(in_size, out_size, "cpu").numpy()[:, None]
    return index, np.ones_like(index, dtype=np.float32)


@functools.lru_cache(maxsize=32)
def _grad_plan(method: str, in_h: int, in_w: int, out_h: int, out_w: int):
    """Per source pixel, the output cotangents it receives in the order TF's resize
    gradient kernels add them (output row, output column, row tap, column tap): flat
    indices into the zero-padded `[out_h + 1, out_w + 1]` cotangent and the row and column
    weights, each `[in_h * in_w, terms]`."""
    yi, yt, yw, ty = _grad_axis(*_axis_taps(method, in_h, out_h), in_h)
    xi, xt, xw, tx = _grad_axis(*_axis_taps(method, in_w, out_w), in_w)
    ry, rx = yi.shape[1], xi.shape[1]
    shape = (in_h, in_w, ry, rx)
    flat = yi[:, None, :, None] * (out_w + 1) + xi[None, :, None, :]
    key = (flat * ty + yt[:, None, :, None]) * tx + xt[None, :, None, :]
    order = np.argsort(key.reshape(in_h, in_w, -1), axis=2, kind="stable")

    def pick(a: np.ndarray) -> torch.Tensor:
        a = np.broadcast_to(a, shape).reshape(in_h, in_w, -1)
        return torch.from_numpy(np.ascontiguousarray(
            np.take_along_axis(a, order, axis=2).reshape(in_h * in_w, -1)))
    return pick(flat), pick(yw[:, None, :, None]), pick(xw[None, :, None, :])


def _resize_grad(method: str, grad: torch.Tensor, shape: tuple, dtype: torch.dtype):
    """TF's `ResizeBilinearGrad` / `ResizeBicubicGrad` / `ResizeNearestNeighborGrad` (CPU):
    every output cotangent sends `g * y_weight * x_weight` to each source pixel it read,
    and each source pixel adds its terms one by one in the kernel's loop order.

    * bilinear: the terms are float32 products, added in float64 for a float64 image and
      in float32 otherwise (float16 / bfloat16 run the float32 kernel and cast its sum);
    * bicubic: the cotangent is cast to the image's dtype and the products and sums run in
      it (TF has no half kernel and returns no gradient there; here: float32, cast);
    * nearest: the cotangent (already the image's dtype) is added as it is.
    """
    n, in_h, in_w, c = shape
    out_h, out_w = grad.shape[1], grad.shape[2]
    index, wy, wx = (t.to(grad.device) for t in _grad_plan(method, in_h, in_w, out_h, out_w))
    wide = torch.float64 if dtype == torch.float64 else torch.float32
    if method == ResizeMethod.BILINEAR:
        compute, acc_dtype = torch.float32, wide
    elif method == ResizeMethod.BICUBIC:
        compute = acc_dtype = wide
    else:
        compute = acc_dtype = dtype
    g = torch.nn.functional.pad(grad.to(compute), (0, 0, 0, 1, 0, 1))
    g = g.reshape(n, (out_h + 1) * (out_w + 1), c)
    wy, wx = wy.to(compute), wx.to(compute)
    acc = torch.zeros((n, in_h * in_w, c), dtype=acc_dtype, device=grad.device)
    for k in range(index.shape[1]):
        term = g.index_select(1, index[:, k])
        if method != ResizeMethod.NEAREST_NEIGHBOR:
            term = term * wy[:, k].view(1, -1, 1) * wx[:, k].view(1, -1, 1)
        acc = acc + term.to(acc_dtype)
    return acc.reshape(shape).to(dtype)


class _Resize(torch.autograd.Function):
    """A resize kernel (`forward(x_float32_or_dtype, h, w)`) with TF's gradient kernel."""

    @staticmethod
    def forward(ctx: Any, images: torch.Tensor, method: str, height: int,
                width: int) -> torch.Tensor:
        ctx.method, ctx.input_shape, ctx.input_dtype = method, tuple(images.shape), images.dtype
        if method == ResizeMethod.NEAREST_NEIGHBOR:
            return _nearest_forward(images, height, width)
        forward = _bilinear_forward if method == ResizeMethod.BILINEAR else _bicubic_forward
        return forward(images.to(torch.float32), height, width)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor):
        return (_resize_grad(ctx.method, grad, ctx.input_shape, ctx.input_dtype), None, None,
                None)


def _resize_bilinear(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    return _Resize.apply(x, ResizeMethod.BILINEAR, h, w)


def _resize_bicubic(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    return _Resize.apply(x, ResizeMethod.BICUBIC, h, w)


def _resize_nearest(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    if x.is_floating_point():
        return _Resize.apply(x, ResizeMethod.NEAREST_NEIGHBOR, h, w)
    return _nearest_forward(x, h, w)


def _nearest_axis(in_size: int, out_size: int, device: torch.device) -> torch.Tensor:
    pos = (torch.arange(out_size, dtype=torch.float32) + 0.5) * _scale(in_size, out_size)
    index = torch.clamp(torch.floor(pos).to(torch.int64), 0, in_size - 1)
    return index.to(device)


def _nearest_forward(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    rows = _nearest_axis(x.shape[1], h, x.device)
    cols = _nearest_axis(x.shape[2], w, x.device)
    return x.index_select(1, rows).index_select(2, cols)


_TABLE_SIZE = 1024


def _keys_table() -> np.ndarray:
    """TF's bicubic coefficient table (Keys, a = -0.5): entry i holds the weights at
    distance i / 1024 ([2i]) and 1 + i / 1024 ([2i + 1]), computed in double, stored float."""
    a = -0.5
    x = np.arange(_TABLE_SIZE + 1, dtype=np.float64) / _TABLE_SIZE
    x = x.astype(np.float32).astype(np.float64)
    table = np.empty((_TABLE_SIZE + 1) * 2, dtype=np.float32)
    table[0::2] = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = (x.astype(np.float32) + np.float32(1.0)).astype(np.float64)
    table[1::2] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return table


_KEYS = _keys_table()


def _bicubic_axis(in_size: int, out_size: int, device: torch.device):
    """Per output position: the four source indices and their renormalized weights."""
    scale = np.float32(in_size) / np.float32(out_size)
    out = np.arange(out_size, dtype=np.float32)
    pos = ((out + np.float32(0.5)) * scale - np.float32(0.5)).astype(np.float32)
    base = np.floor(pos).astype(np.int64)
    delta = (pos - np.floor(pos)).astype(np.float32)
    offset = np.rint(delta * np.float32(_TABLE_SIZE)).astype(np.int64)
    weights = np.stack([_KEYS[offset * 2 + 1], _KEYS[offset * 2],
                        _KEYS[(_TABLE_SIZE - offset) * 2],
                        _KEYS[(_TABLE_SIZE - offset) * 2 + 1]], axis=1).astype(np.float32)
    taps = base[:, None] + np.arange(-1, 3)[None, :]
    index = np.clip(taps, 0, in_size - 1)
    weights = np.where(index == taps, weights, np.float32(0.0)).astype(np.float32)
    total = (((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]).astype(np.float32)
    ok = np.abs(total) >= 1000.0 * np.finfo(np.float32).tiny
    inverse = np.where(ok, np.float32(1.0) / np.where(ok, total, np.float32(1.0)),
                       np.float32(1.0)).astype(np.float32)
    weights = np.where(ok[:, None], weights * inverse[:, None], weights).astype(np.float32)
    return (torch.from_numpy(index).to(device), torch.from_numpy(weights).to(device))


def _bicubic_forward(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    yi, yw = _bicubic_axis(x.shape[1], h, x.device)
    xi, xw = _bicubic_axis(x.shape[2], w, x.device)
    # along the height first (four source rows per output row), then along the width
    rows = [x.index_select(1, yi[:, k]) for k in range(4)]
    col = None
    for k in range(4):
        term = rows[k] * yw[:, k].view(1, h, 1, 1)
        col = term if col is None else col + term
    out = None
    for k in range(4):
        term = col.index_select(2, xi[:, k]) * xw[:, k].view(1, 1, w, 1)
        out = term if out is None else out + term
    return out


def _area_axis(in_size: int, out_size: int) -> np.ndarray:
    """The covered fraction of each input cell by each output cell, as TF's `ResizeArea`
    computes it in float32: `[out_size, in_size]`."""
    scale = np.float32(in_size) / np.float32(out_size)
    weights = np.zeros((out_size, in_size), dtype=np.float32)
    one = np.float32(1.0)
    for o in range(out_size):
        start_pos = np.float32(o) * scale
        end_pos = np.float32(o + 1) * scale
        start, end = int(math.floor(start_pos)), int(math.ceil(end_pos))
        for i in range(start, end):
            lo, hi = np.float32(i), np.float32(i + 1)
            if lo < start_pos:
                frac = scale if hi > end_pos else np.float32(hi - start_pos)
            else:
                frac = np.float32(end_pos - lo) if hi > end_pos else one
            weights[o, min(i, in_size - 1)] += frac
    return weights


def _resize_area(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    in_h, in_w = x.shape[1], x.shape[2]
    wh = torch.from_numpy(_area_axis(in_h, h)).to(x.device)
    ww = torch.from_numpy(_area_axis(in_w, w)).to(x.device)
    hs, ws = _scale(in_h, h).item(), _scale(in_w, w).item()
    scale = float(np.float32(1.0 / (np.float64(np.float32(hs)) * np.float64(np.float32(ws)))))
    # sum over the covered columns of each covered row, weight the rows, then normalize
    cols = torch.einsum("nhwc,ow->nhoc", x, ww)
    out = torch.einsum("nhoc,ph->npoc", cols, wh)
    return out * scale


_KERNELS = {ResizeMethod.BILINEAR: _resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR:
            _resize_nearest, ResizeMethod.BICUBIC: _resize_bicubic,
            ResizeMethod.AREA: _resize_area}


# -- resize ------------------------------------------------------------------------------

def _size_pair(size: Any) -> list:
    try:
        if isinstance(size, torch.Tensor):
            values = size.detach().cpu().reshape(-1).tolist() if size.dim() == 1 else None
            if size.dim() != 1:
                raise ValueError
            if size.is_floating_point():
                raise ValueError
        else:
            arr = np.asarray(size)
            if arr.dtype.kind not in "iu" or arr.ndim != 1:
                if arr.ndim != 1 or arr.dtype.kind not in "iu":
                    raise ValueError
            values = arr.tolist()
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if len(values) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return [int(v) for v in values]


def resize(images: Any, size: Any, method: str = ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: Optional[str] = None) -> torch.Tensor:
    """`tf.image.resize` (TF2): resize 3-D `[h, w, c]` or 4-D `[n, h, w, c]` images to
    `size = [new_height, new_width]`. `preserve_aspect_ratio` scales both sides by the
    smaller factor (rounded as TF, in float32). The result is float32, except for
    `"nearest"`, which keeps the dtype. `antialias` and the scale-and-translate kernels
    (`lanczos3/5`, `gaussian`, `mitchellcubic`) are not implemented."""
    images = convert_to_tensor(images)
    if images.dim() == 3:
        batched, x = False, images.unsqueeze(0)
    elif images.dim() == 4:
        batched, x = True, images
    else:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    new_h, new_w = _size_pair(size)
    method = method if isinstance(method, str) else str(method)
    if method not in _KNOWN:
        raise ValueError(f"Resize method is not implemented: {method}")
    if antialias or method not in _IMPLEMENTED:
        raise NotImplementedError(
            f"tfcompat's tf.image.resize implements {', '.join(_IMPLEMENTED)} without "
            f"antialias; got method={method!r}, antialias={antialias}")
    if preserve_aspect_ratio:
        h32, w32 = np.float32(x.shape[1]), np.float32(x.shape[2])
        factor = min(np.float32(new_h) / h32, np.float32(new_w) / w32)
        new_h = int(np.round(np.float32(factor * h32)))
        new_w = int(np.round(np.float32(factor * w32)))
    if new_h <= 0 or new_w <= 0:
        from ..framework import errors
        raise errors.InvalidArgumentError(
            None, None, f"output dimensions must be positive, got [{new_h}, {new_w}]")
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _resize_nearest(x, new_h, new_w)
    else:
        if x.dtype is torch.bool or x.is_complex():
            raise TypeError(f"Value for attr 'T' of {dtypes.from_torch(x.dtype).name} is not "
                            "in the list of allowed values")
        # bilinear and bicubic cast inside (their gradients follow the input's dtype)
        x = x.to(torch.float32) if method == ResizeMethod.AREA else x
        out = _KERNELS[method](x, new_h, new_w)
    return out if batched else out.squeeze(0)


def smart_resize(x: Any, size: Sequence[int], interpolation: str = "bilinear") -> torch.Tensor:
    """`tf.keras.preprocessing.image.smart_resize`: take the largest centred crop with the
    target's aspect ratio, then resize it to `size` (float32 out, as `resize`)."""
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = convert_to_tensor(x)
    if img.dim() < 3 or img.dim() > 4:
        raise ValueError("Expected an image array with shape `(height, width, channels)`, "
                         "or `(batch_size, height, width, channels)`, but got input with "
                         f"incorrect rank, of shape {tuple(img.shape)}.")
    height, width = img.shape[-3], img.shape[-2]
    target_h, target_w = int(size[0]), int(size[1])
    # TF: int32 arithmetic, cast(float32) products, then int32 truncation
    crop_h = int(np.float32(width * target_h) / np.float32(target_w))
    crop_w = int(np.float32(height * target_w) / np.float32(target_h))
    crop_h = min(height, crop_h)
    crop_w = min(width, crop_w)
    off_h = int(np.float32(height - crop_h) / np.float32(2))
    off_w = int(np.float32(width - crop_w) / np.float32(2))
    img = img[..., off_h:off_h + crop_h, off_w:off_w + crop_w, :]
    return resize(img, size=[target_h, target_w], method=interpolation)


# -- geometry ----------------------------------------------------------------------------

def _batched(image: Any, what: str = "image") -> tuple:
    image = convert_to_tensor(image)
    if image.dim() == 3:
        return image.unsqueeze(0), False
    if image.dim() == 4:
        return image, True
    raise ValueError(f"'{what}' (shape {_shape_str(image)}) must have either 3 or 4 "
                     "dimensions.")


def _shape_str(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ("," if t.dim() == 1 else "") + ")"


def _int(v: Any) -> int:
    if isinstance(v, torch.Tensor):
        return int(v.item())
    return int(v)


def flip_left_right(image: Any) -> torch.Tensor:
    """`tf.image.flip_left_right`: reverse the width axis of `[h, w, c]` / `[n, h, w, c]`."""
    x, _ = _batched(image)
    return torch.flip(convert_to_tensor(image), dims=[-2])


def flip_up_down(image: Any) -> torch.Tensor:
    """`tf.image.flip_up_down`: reverse the height axis."""
    x, _ = _batched(image)
    return torch.flip(convert_to_tensor(image), dims=[-3])


def _check_at_least_3d(image: torch.Tensor) -> None:
    if image.dim() < 3:
        raise ValueError(f"'image' (shape {_shape_str(image)}) must be at least "
                         "three-dimensional.")
    if any(d <= 0 for d in image.shape[-3:]):
        raise ValueError("inner 3 dims of 'image.shape' must be > 0: "
                         f"{_shape_str(image)}")


def central_crop(image: Any, central_fraction: float) -> torch.Tensor:
    """`tf.image.central_crop`: keep the central `central_fraction` of height and width
    (start offsets `int((size - size * fraction) / 2)`, as TF)."""
    image = convert_to_tensor(image)
    fraction = float(central_fraction.item() if isinstance(central_fraction, torch.Tensor)
                     else central_fraction)
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return image
    _check_at_least_3d(image)
    if image.dim() not in (3, 4):
        raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. Had "
                         f"rank = {image.dim()}.")
    h, w = image.shape[-3], image.shape[-2]
    h0 = int((float(h) - float(h) * fraction) / 2)
    w0 = int((float(w) - float(w) * fraction) / 2)
    return image[..., h0:h - h0, w0:w - w0, :]


def crop_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                         target_height: Any, target_width: Any) -> torch.Tensor:
    """`tf.image.crop_to_bounding_box`: the `[target_height, target_width]` window whose
    top-left corner is `(offset_height, offset_width)`."""
    x, batched = _batched(image)
    oh, ow, th, tw = (_int(v) for v in (offset_height, offset_width, target_height,
                                        target_width))
    _check_at_least_3d(x)
    h, w = x.shape[1], x.shape[2]
    for ok, message in ((ow >= 0, "offset_width must be >= 0."),
                        (oh >= 0, "offset_height must be >= 0."),
                        (tw > 0, "target_width must be > 0."),
                        (th > 0, "target_height must be > 0."),
                        (w >= tw + ow, "width must be >= target + offset."),
                        (h >= th + oh, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(message)
    out = x[:, oh:oh + th, ow:ow + tw, :]
    return out if batched else out.squeeze(0)


def pad_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                        target_height: Any, target_width: Any) -> torch.Tensor:
    """`tf.image.pad_to_bounding_box`: zero-pad to `[target_height, target_width]`, the
    image's top-left corner at `(offset_height, offset_width)`."""
    x, batched = _batched(image)
    oh, ow, th, tw = (_int(v) for v in (offset_height, offset_width, target_height,
                                        target_width))
    h, w = x.shape[1], x.shape[2]
    after_w, after_h = tw - ow - w, th - oh - h
    _check_at_least_3d(x)
    for ok, message in ((oh >= 0, "offset_height must be >= 0"),
                        (ow >= 0, "offset_width must be >= 0"),
                        (after_w >= 0, "width must be <= target - offset"),
                        (after_h >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(message)
    out = torch.nn.functional.pad(x, (0, 0, ow, after_w, oh, after_h))
    return out if batched else out.squeeze(0)


def resize_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> torch.Tensor:
    """`tf.image.resize_with_crop_or_pad`: centrally crop and/or zero-pad to the target size
    (crop offset `max(-diff // 2, 0)`, pad offset `max(diff // 2, 0)`, as TF)."""
    x, batched = _batched(image)
    th, tw = _int(target_height), _int(target_width)
    _check_at_least_3d(x)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = x.shape[1], x.shape[2]
    w_diff, h_diff = tw - w, th - h
    cropped = crop_to_bounding_box(x, max(-h_diff // 2, 0), max(-w_diff // 2, 0),
                                   min(th, h), min(tw, w))
    out = pad_to_bounding_box(cropped, max(h_diff // 2, 0), max(w_diff // 2, 0), th, tw)
    return out if batched else out.squeeze(0)


# -- conversions -------------------------------------------------------------------------

def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: Optional[str] = None) -> torch.Tensor:
    """`tf.image.convert_image_dtype`: floats in [0, 1] <-> integers in [0, MAX]; integer to
    integer by a power-of-two factor; float to float a plain cast (as TF's formulas)."""
    from . import math_ops

    image = convert_to_tensor(image)
    target = dtypes.as_dtype(dtype)
    source = dtypes.from_torch(image.dtype)
    if not target.is_floating and not target.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not source.is_floating and not source.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if target == source:
        return image.clone()
    cast = math_ops.saturate_cast if saturate else math_ops.cast
    if source.is_integer and target.is_integer:
        if source.max > target.max:
            factor = (source.max + 1) // (target.max + 1)
            return cast(torch.div(image, factor, rounding_mode="floor"), target)
        factor = (target.max + 1) // (source.max + 1)
        return cast(image, target) * factor
    if source.is_floating and target.is_floating:
        return math_ops.cast(image, target)
    if source.is_integer:
        out = math_ops.cast(image, target)
        return out * torch.tensor(1.0 / source.max, dtype=out.dtype)
    scaled = image * torch.tensor(target.max + 0.5, dtype=image.dtype)
    return cast(scaled, target)


def rgb_to_grayscale(images: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.image.rgb_to_grayscale`: luma `0.2989 R + 0.5870 G + 0.1140 B` in float32, the
    last axis kept with size 1, converted back to the input's dtype."""
    images = convert_to_tensor(images)
    source = dtypes.from_torch(images.dtype)
    flt = convert_image_dtype(images, dtypes.float32)
    weights = torch.tensor([0.2989, 0.5870, 0.1140], dtype=torch.float32, device=flt.device)
    gray = torch.tensordot(flt, weights, dims=([-1], [0])).unsqueeze(-1)
    return convert_image_dtype(gray, source)


def grayscale_to_rgb(images: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.image.grayscale_to_rgb`: repeat the size-1 last axis three times."""
    images = convert_to_tensor(images)
    if images.dim() < 2:
        raise ValueError(f"A grayscale image (shape {_shape_str(images)}) must be at least "
                         "two-dimensional.")
    if images.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return images.expand(*images.shape[:-1], 3).clone()


def per_image_standardization(image: Any) -> torch.Tensor:
    """`tf.image.per_image_standardization`: `(x - mean) / max(stddev, 1 / sqrt(N))` over
    each image's last three axes, in float32 (TF's `reduce_std` is the population std)."""
    image = convert_to_tensor(image)
    _check_at_least_3d(image)
    x = image.to(torch.float32)
    n = x.shape[-1] * x.shape[-2] * x.shape[-3]
    dims = [-1, -2, -3]
    mean = x.mean(dim=dims, keepdim=True)
    std = exact_math.sqrt(torch.square(x - mean).mean(dim=dims, keepdim=True))
    min_std = torch.rsqrt(torch.tensor(float(n), dtype=torch.float32, device=x.device))
    return (x - mean) / torch.maximum(std, min_std)


def _as_adjustable(image: Any) -> tuple:
    """`(the image in the dtype TF's adjust ops compute in, its dtype)`: float16 and float32
    as they are, anything else through `convert_image_dtype` to float32 (as TF)."""
    image = convert_to_tensor(image)
    source = dtypes.from_torch(image.dtype)
    if source in (dtypes.float16, dtypes.float32):
        return image, source
    return convert_image_dtype(image, dtypes.float32), source


def adjust_brightness(image: Any, delta: Any) -> torch.Tensor:
    """`tf.image.adjust_brightness`: `image + delta` in the image's float dtype (integers via
    float32), converted back with saturation."""
    flt, source = _as_adjustable(image)
    delta = convert_to_tensor(delta)
    adjusted = flt + delta.to(flt.dtype).to(flt.device)
    return convert_image_dtype(adjusted, source, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> torch.Tensor:
    """`tf.image.adjust_contrast`: per image and channel, `(x - mean) * contrast_factor + mean`
    with the mean over height and width (TF's AdjustContrastv2: float32 arithmetic; float16
    images only off the CPU, as TF's kernels), converted back with saturation. TF registers
    no gradient for it: differentiating through it is TF's `LookupError`."""
    flt, source = _as_adjustable(images)
    _check_at_least_3d(flt)
    if flt.dtype is torch.float16 and flt.device.type == "cpu":
        raise errors.NotFoundError(
            None, None, "Could not find device for node: {{node AdjustContrastv2}} = "
            "AdjustContrastv2[T=DT_HALF] (TF has no CPU kernel for float16 images: convert "
            "them with tf.image.convert_image_dtype(images, tf.float32) first)")
    x = flt.to(torch.float32)
    factor = convert_to_tensor(contrast_factor).to(torch.float32).to(x.device)
    mean = x.mean(dim=(-3, -2), keepdim=True)
    adjusted = ((x - mean) * factor + mean).to(flt.dtype)
    if adjusted.requires_grad:  # (TF registers no gradient for AdjustContrastv2)
        adjusted = _NotDifferentiable.apply(adjusted, "AdjustContrastv2")
    return convert_image_dtype(adjusted, source, saturate=True)


# -- projective transforms (ImageProjectiveTransformV3) ----------------------------------

_FILL_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")


def _trunc_int(v: torch.Tensor) -> torch.Tensor:
    return torch.trunc(v)


def _map_coordinate(coord: torch.Tensor, length: int, mode: str) -> torch.Tensor:
    """TF's `MapCoordinate` for one axis (float32), before interpolation."""
    top = float(length - 1)
    if mode == "CONSTANT":
        return coord
    if mode == "NEAREST":
        return torch.clamp(coord, 0.0, top)
    if length <= 1:
        return torch.zeros_like(coord)
    if mode == "REFLECT":
        sz2 = float(2 * length)
        low = coord < 0
        neg = sz2 * _trunc_int(-coord / sz2) + coord
        neg = torch.where(neg < -length, neg + sz2, -neg - 1)
        high = coord > top
        pos = coord - sz2 * _trunc_int(coord / sz2)
        pos = torch.where(pos >= length, sz2 - pos - 1, pos)
        out = torch.where(low, neg, torch.where(high, pos, coord))
    else:  # WRAP
        sz = float(length - 1)
        low = coord < 0
        neg = coord + float(length) * (_trunc_int(-coord / sz) + 1)
        high = coord > top
        pos = coord - float(length) * _trunc_int(coord / sz)
        out = torch.where(low, neg, torch.where(high, pos, coord))
    return torch.clamp(out, 0.0, top)


def _read(flat: torch.Tensor, yi: torch.Tensor, xi: torch.Tensor, h: int, w: int,
          fill: torch.Tensor) -> torch.Tensor:
    """Values of `flat` [n, h*w, c] at integer-valued float coordinates [n, p], the fill
    value outside the image."""
    inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    index = (torch.clamp(yi, 0, h - 1) * w + torch.clamp(xi, 0, w - 1)).to(torch.int64)
    values = torch.gather(flat, 1, index.unsqueeze(-1).expand(-1, -1, flat.shape[-1]))
    return torch.where(inside.unsqueeze(-1), values, fill)


def _transform_forward(images: torch.Tensor, transforms: torch.Tensor, out_h: int, out_w: int,
                       fill_value: float, interpolation: str, fill_mode: str) -> torch.Tensor:
    n, h, w, c = images.shape
    t = transforms.to(torch.float32)
    if t.shape[0] == 1 and n > 1:
        t = t.expand(n, 8)
    device = images.device
    oy, ox = torch.meshgrid(torch.arange(out_h, dtype=torch.float32, device=device),
                            torch.arange(out_w, dtype=torch.float32, device=device),
                            indexing="ij")
    ox, oy = ox.reshape(1, -1), oy.reshape(1, -1)
    a = [t[:, i:i + 1] for i in range(8)]
    projection = a[6] * ox + a[7] * oy + 1.0
    in_x = (a[0] * ox + a[1] * oy + a[2]) / projection
    in_y = (a[3] * ox + a[4] * oy + a[5]) / projection
    x = _map_coordinate(in_x, w, fill_mode)
    y = _map_coordinate(in_y, h, fill_mode)
    # far-outside coordinates only ever read the fill value: keep them finite for the casts
    x = torch.clamp(torch.nan_to_num(x, nan=-2.0), -2.0, float(w + 1))
    y = torch.clamp(torch.nan_to_num(y, nan=-2.0), -2.0, float(h + 1))
    flat = images.reshape(n, h * w, c).to(torch.float32)
    fill = torch.tensor(float(fill_value), dtype=torch.float32, device=device)
    if interpolation == "NEAREST":
        yr = torch.sign(y) * torch.floor(torch.abs(y) + 0.5)  # std::round: half away from 0
        xr = torch.sign(x) * torch.floor(torch.abs(x) + 0.5)
        out = _read(flat, yr, xr, h, w, fill)
    else:
        y0, x0 = torch.floor(y), torch.floor(x)
        y1, x1 = y0 + 1, x0 + 1
        wx0, wx1 = (x1 - x).unsqueeze(-1), (x - x0).unsqueeze(-1)
        top = wx0 * _read(flat, y0, x0, h, w, fill) + wx1 * _read(flat, y0, x1, h, w, fill)
        bottom = wx0 * _read(flat, y1, x0, h, w, fill) + wx1 * _read(flat, y1, x1, h, w, fill)
        out = (y1 - y).unsqueeze(-1) * top + (y - y0).unsqueeze(-1) * bottom
    out = torch.where((projection == 0).unsqueeze(-1), fill, out)
    out = out.reshape(n, out_h, out_w, c)
    if not images.dtype.is_floating_point:
        out = torch.trunc(out)
    return out.to(images.dtype)


def _invert_transforms(transforms: torch.Tensor) -> torch.Tensor:
    t = transforms.to(torch.float32)
    m = torch.cat([t, torch.ones(t.shape[0], 1, dtype=t.dtype, device=t.device)], 1)
    inverse = torch.linalg.inv(m.reshape(-1, 3, 3)).reshape(-1, 9)
    return (inverse / inverse[:, 8:9])[:, :8]


class _ProjectiveTransform(torch.autograd.Function):
    """TF's gradient of ImageProjectiveTransformV3: the incoming gradient transformed by the
    inverse transforms (fill value 0), not the sampler's exact adjoint."""

    @staticmethod
    def forward(ctx, images, transforms, out_h, out_w, fill_value, interpolation, fill_mode):
        ctx.save_for_backward(transforms)
        ctx.meta = (images.shape[1], images.shape[2], interpolation, fill_mode)
        return _transform_forward(images, transforms, out_h, out_w, fill_value,
                                  interpolation, fill_mode)

    @staticmethod
    def backward(ctx, grad):
        (transforms,) = ctx.saved_tensors
        h, w, interpolation, fill_mode = ctx.meta
        inverse = _invert_transforms(transforms)
        g = _transform_forward(grad, inverse, h, w, 0.0, interpolation, fill_mode)
        return g, None, None, None, None, None, None


def image_projective_transform_v3(images: Any, transforms: Any, output_shape: Any,
                                  fill_value: Any, interpolation: str,
                                  fill_mode: str = "CONSTANT",
                                  name: Optional[str] = None) -> torch.Tensor:
    """`tf.raw_ops.ImageProjectiveTransformV3`: each row `[a0, a1, a2, b0, b1, b2, c0, c1]`
    maps the output point `(x, y)` to the input point `((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k)`, `k = c0 x + c1 y + 1`; points outside are mapped by `fill_mode`
    (REFLECT, WRAP, CONSTANT, NEAREST as TF's `MapCoordinate`), then sampled by
    `interpolation` (NEAREST, BILINEAR), reads outside the image giving `fill_value`. Images
    are `[n, h, w, c]`; the dtype is kept."""
    images = convert_to_tensor(images)
    if images.dim() != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.dim()}")
    transforms = convert_to_tensor(transforms, dtype=dtypes.float32)
    if transforms.dim() != 2 or transforms.shape[1] != 8 or \
            transforms.shape[0] not in (1, images.shape[0]):
        from ..framework import errors
        raise errors.InvalidArgumentError(
            None, None, "Input transform should be num_images x 8 or 1 x 8")
    out_h, out_w = (int(v) for v in np.asarray(
        output_shape.detach().cpu() if isinstance(output_shape, torch.Tensor)
        else output_shape).reshape(-1))
    fill_mode = fill_mode.upper()
    interpolation = interpolation.upper()
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"fill_mode must be one of {_FILL_MODES}, got {fill_mode}")
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise ValueError(f"interpolation must be NEAREST or BILINEAR, got {interpolation}")
    fill = float(fill_value.item() if isinstance(fill_value, torch.Tensor) else fill_value)
    if images.requires_grad and images.dtype.is_floating_point:
        return _ProjectiveTransform.apply(images, transforms.detach(), out_h, out_w, fill,
                                          interpolation, fill_mode)
    return _transform_forward(images, transforms, out_h, out_w, fill, interpolation,
                              fill_mode)
