"""TF's on-disk layout of a string tensor inside a bundle's data file.

    [varint64 len_0] ... [varint64 len_n-1] [masked CRC32C of the lengths, 4 bytes] [bytes_0] ... [bytes_n-1]

The lengths' checksum is taken over each length as a little-endian
`uint32` (a `uint64` for an element past 4 GiB), not over the varints; the
entry's own CRC32C continues from it over the 4 checksum bytes and then
the elements' bytes (TF's `WriteStringTensor`).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from . import crc32c
from .wire import DecodeError, decode_varint, encode_varint

__all__ = ["encode", "decode", "StringTensorError"]

_UINT32_MAX = 0xFFFFFFFF


class StringTensorError(ValueError):
    """Bytes that are not a well-formed string tensor of the expected element count."""


def _element_bytes(x: Any) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview, np.bytes_)):
        return bytes(x)
    raise TypeError(f"string tensors hold bytes or str elements, got {type(x).__name__}")


def _lengths_crc(lengths: list[int]) -> int:
    if all(n <= _UINT32_MAX for n in lengths):
        return crc32c.value(np.asarray(lengths, dtype="<u4"))
    crc = 0
    for n in lengths:
        crc = crc32c.extend(crc, struct.pack("<I" if n <= _UINT32_MAX else "<Q", n))
    return crc


def encode(arr: np.ndarray) -> tuple[bytes, bytes, int]:
    """`(header, body, crc32c)` of a string tensor: header = varint lengths + their checksum.

    Elements may be `bytes` or `str` (UTF-8 encoded), in any numpy array.
    """
    elems = [_element_bytes(x) for x in arr.reshape(-1).tolist()] if arr.size else []
    lengths = [len(e) for e in elems]
    header = bytearray()
    for n in lengths:
        header += encode_varint(n)
    crc = _lengths_crc(lengths)
    length_checksum = struct.pack("<I", crc32c.mask(crc))
    crc = crc32c.extend(crc, length_checksum)
    body = b"".join(elems)
    crc = crc32c.extend(crc, body)
    return bytes(header) + length_checksum, body, crc


def decode(buf: bytes, count: int) -> tuple[np.ndarray, int]:
    """`(flat object array of bytes, crc32c)` of a string tensor of `count` elements in `buf`.

    Raises `StringTensorError` when the lengths are malformed, do not add up
    to `len(buf)`, or their own checksum does not match (the caller compares
    the returned CRC with the entry's).
    """
    if count + 4 > len(buf):  # each element takes at least one varint byte
        raise StringTensorError(f"{len(buf)} bytes cannot hold {count} string elements")
    lengths = []
    pos = 0
    total = 0
    try:
        for _ in range(count):
            n, pos = decode_varint(buf, pos, len(buf))
            lengths.append(n)
            total += n
    except DecodeError:
        raise StringTensorError("A corrupted string length") from None
    if pos + 4 + total != len(buf):
        raise StringTensorError(f"The string lengths ({total} bytes) do not match the entry's size {len(buf)}")
    crc = _lengths_crc(lengths)
    (stored,) = struct.unpack_from("<I", buf, pos)
    if stored != crc32c.mask(crc):
        raise StringTensorError("Checksum of the string lengths does not match")
    crc = crc32c.extend(crc, memoryview(buf)[pos:])
    pos += 4
    out = np.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        out[i] = buf[pos:pos + n]
        pos += n
    return out, crc
