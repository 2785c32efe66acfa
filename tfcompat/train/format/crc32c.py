"""CRC32C (Castagnoli) and LevelDB's masking, as TF's checkpoints use them.

TF checksums every tensor and every table block with CRC32C -- not zlib's
CRC-32 -- and stores it *masked* (rotated and offset, so that a CRC of data
that itself contains CRCs is not degenerate). The CRC comes from the native
`google-crc32c` package (hardware-accelerated where the CPU has it); if only
its pure-Python fallback is installed, a warning says once that it is slow.
"""

from __future__ import annotations

import ctypes
import warnings
from typing import Any, Optional, Union

import google_crc32c
import numpy as np

__all__ = ["value", "extend", "mask", "unmask", "MASK_DELTA"]

MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF

_warned = False


def _check_native() -> None:
    global _warned
    if not _warned and google_crc32c.implementation != "c":
        _warned = True
        warnings.warn(
            "google-crc32c is using its pure-Python fallback: checkpoint checksums will be "
            "very slow. Reinstall it with its native extension (pip install --force-reinstall "
            "google-crc32c) on a platform with prebuilt wheels or a C compiler.",
            RuntimeWarning, stacklevel=3)


Buffer = Union[bytes, bytearray, memoryview, np.ndarray]


def _native_extend() -> Optional[Any]:
    """google-crc32c's own C function `crc32c_extend`, reached through its extension module.

    The extension's Python entry points only take `bytes` (its `y#` argument
    parsing refuses memoryviews and numpy arrays), which would cost a copy of
    every tensor; the C function it wraps takes a pointer and a length, and
    ctypes releases the GIL around it. `None` when it cannot be found (another
    wheel layout, the pure-Python build): then buffers go through `bytes`
    chunks.
    """
    try:
        from google_crc32c import _crc32c  # type: ignore[attr-defined]

        fn = ctypes.CDLL(_crc32c.__file__).crc32c_extend
    except (ImportError, OSError, AttributeError):
        return None
    fn.restype = ctypes.c_uint32
    fn.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t]
    return fn


_EXTEND = _native_extend()
_CHUNK = 1 << 22


def extend(crc: int, data: Buffer) -> int:
    """The CRC32C of `prev + data`, where `crc` is the CRC32C of `prev`.

    `data` is any C-contiguous buffer (bytes, memoryview, mmap slice, numpy
    array); it is read in place, not copied.
    """
    if isinstance(data, bytes):
        _check_native()
        return google_crc32c.extend(crc, data)
    arr = data if isinstance(data, np.ndarray) else np.frombuffer(data, np.uint8)
    if not arr.flags.c_contiguous:
        raise ValueError("crc32c needs a contiguous buffer")
    nbytes = arr.nbytes
    if _EXTEND is not None:
        return _EXTEND(crc, arr.ctypes.data if nbytes else None, nbytes)
    _check_native()
    flat = arr.reshape(-1).view(np.uint8)
    for start in range(0, nbytes, _CHUNK):
        crc = google_crc32c.extend(crc, flat[start:start + _CHUNK].tobytes())
    return crc


def value(data: Buffer) -> int:
    """The CRC32C of `data` (any contiguous buffer, read in place)."""
    return extend(0, data)


def mask(crc: int) -> int:
    """LevelDB's masked form of a CRC: rotate right by 15 bits, add a constant."""
    return ((((crc >> 15) | (crc << 17)) & _U32) + MASK_DELTA) & _U32


def unmask(masked: int) -> int:
    """Inverts `mask`."""
    rot = (masked - MASK_DELTA) & _U32
    return ((rot >> 17) | (rot << 15)) & _U32
