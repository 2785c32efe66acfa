"""PNG encoding of uint8 images for `tf.summary.image` (TF's `tf.image.encode_png`).

Pillow encodes when it is importable; otherwise a small encoder here writes
a valid 8-bit PNG (signature, IHDR, one zlib-compressed IDAT of unfiltered
scanlines, IEND). The bytes differ from TF's libpng output, the pixels do
not: any PNG decoder reads back the exact array.
"""

from __future__ import annotations

import struct
import zlib
from typing import Optional

import numpy as np

from ..framework import errors

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour types for 1, 2, 3, 4 channels: grey, grey + alpha, RGB, RGBA.
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}
_PIL_MODE = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pillow() -> Optional[object]:
    try:
        from PIL import Image
    except Exception:
        return None
    return Image


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _encode_own(image: np.ndarray) -> bytes:
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPE[channels], 0, 0, 0)
    rows = np.empty((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 0] = 0  # filter type None on every scanline
    rows[:, 1:] = image.reshape(height, width * channels)
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)), _chunk(b"IEND", b"")))


def _encode_pillow(pil_image: object, image: np.ndarray) -> bytes:
    import io

    channels = image.shape[2]
    pixels = image[:, :, 0] if channels == 1 else image
    out = io.BytesIO()
    # Pillow infers L / LA / RGB / RGBA from a uint8 array's shape (its `mode=` is deprecated).
    picture = pil_image.fromarray(np.ascontiguousarray(pixels))
    if picture.mode != _PIL_MODE[channels]:
        raise RuntimeError(f"Pillow read a {channels}-channel image as mode {picture.mode!r}")
    picture.save(out, format="PNG")
    return out.getvalue()


def encode_png(image: np.ndarray, use_pillow: Optional[bool] = None) -> bytes:
    """The PNG bytes of one `[height, width, channels]` uint8 image (1-4 channels).

    `use_pillow=None` takes Pillow when importable; `True` / `False` force
    one encoder. A wrong channel count or an empty image raises
    `tf.errors.InvalidArgumentError`, as TF's `EncodePng` does.
    """
    image = np.asarray(image)
    if image.ndim != 3:
        raise errors.invalid_argument(f"image must be 3-dimensional, got shape {image.shape}",
                                      "EncodePng")
    height, width, channels = image.shape
    if channels not in _COLOR_TYPE:
        raise errors.invalid_argument(f"image must have 1, 2, 3, or 4 channels, got {channels}",
                                      "EncodePng")
    if height == 0 or width == 0:
        # TF's libpng wrapper aborts the process here; a PNG cannot be empty.
        raise errors.invalid_argument(
            f"image must have a non-zero width and height, got {width}x{height}", "EncodePng")
    if image.dtype != np.uint8:
        raise errors.invalid_argument(f"image must be uint8, got {image.dtype}", "EncodePng")
    pil = None if use_pillow is False else _pillow()
    if pil is None and use_pillow:
        raise ImportError("Pillow is not importable: pip install pillow")
    return _encode_pillow(pil, image) if pil is not None else _encode_own(image)
