"""An independent reader of event files for the tests: framing, CRCs, protobuf fields, PNG.

Nothing here uses tfcompat: the framing is parsed by hand with `google_crc32c` for the
checksums, protobuf messages by a raw wire-format walker, and PNGs by zlib plus the five
PNG row filters. The tests compare what this reads with what tfcompat meant to write.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import google_crc32c
import numpy as np


def masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(data: bytes) -> list:
    """The payloads of a TFRecord byte string; asserts every length and CRC."""
    out, pos = [], 0
    while pos < len(data):
        assert len(data) - pos >= 16, f"truncated record at {pos}"
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        assert length_crc == masked_crc(header), f"bad length CRC at {pos}"
        payload = data[pos + 12:pos + 12 + length]
        assert len(payload) == length, f"truncated payload at {pos}"
        (crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        assert crc == masked_crc(payload), f"bad data CRC at {pos}"
        out.append(payload)
        pos += 16 + length
    return out


def read_file(path: Any) -> list:
    with open(path, "rb") as f:
        return records(f.read())


def _varint(data: bytes, pos: int) -> tuple:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def fields(data: bytes) -> list:
    """A message's fields in wire order: (number, wire type, raw value) with varints as
    ints, fixed64/fixed32 as 8/4 raw bytes, length-delimited values as bytes."""
    out, pos = [], 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        number, wt = tag >> 3, tag & 7
        if wt == 0:
            value, pos = _varint(data, pos)
        elif wt == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wt == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wt == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        else:
            raise AssertionError(f"unexpected wire type {wt}")
        out.append((number, wt, value))
    assert pos == len(data), "a field ran past the message"
    return out


def first(data: bytes, number: int, default: Any = None) -> Any:
    for n, _, v in fields(data):
        if n == number:
            return v
    return default


def all_of(data: bytes, number: int) -> list:
    return [v for n, _, v in fields(data) if n == number]


_NP = {1: "<f4", 2: "<f8", 3: "<i4", 4: "u1", 5: "<i2", 6: "i1", 9: "<i8", 10: "?", 19: "<f2"}


def event(payload: bytes) -> dict:
    """The parts of an `Event` the tests look at."""
    out = {"wall_time": struct.unpack("<d", first(payload, 1, b"\0" * 8))[0],
           "step": first(payload, 2, 0), "file_version": first(payload, 3),
           "source_writer": None, "values": []}
    out["step"] = out["step"] - (1 << 64) if out["step"] >= 1 << 63 else out["step"]
    source = first(payload, 10)
    if source is not None:
        out["source_writer"] = first(source, 1, b"").decode()
    summary = first(payload, 5)
    if summary is not None:
        out["values"] = [value(v) for v in all_of(summary, 1)]
    return out


def value(data: bytes) -> dict:
    """A `Summary.Value`: tag, plugin name, plugin content, description, tensor."""
    meta = first(data, 9, b"")
    plugin = first(meta, 1, b"")
    tensor = first(data, 8)
    return {"tag": first(data, 1, b"").decode(), "plugin": first(plugin, 1, b"").decode(),
            "content": first(plugin, 2, b""), "description": first(meta, 3, b"").decode(),
            "tensor": None if tensor is None else tensor_value(tensor), "raw": data}


def tensor_value(data: bytes) -> np.ndarray:
    """A `TensorProto` as written by a TF summary writer (tensor_content or string_val)."""
    dtype = first(data, 1, 0)
    shape = tuple(first(d, 1, 0) for d in all_of(first(data, 2, b""), 2))
    if dtype == 7:
        arr = np.empty(len(all_of(data, 8)), dtype=object)
        arr[:] = all_of(data, 8)
        return arr.reshape(shape)
    return np.frombuffer(first(data, 4, b""), dtype=_NP[dtype]).reshape(shape)


def decode_png(png: bytes) -> np.ndarray:
    """The [h, w, c] uint8 pixels of an 8-bit, non-interlaced PNG (any row filters)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, f"bad {kind!r} CRC"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.int32)
    for y in range(height):
        row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, line = row[0], np.frombuffer(row[1:], np.uint8).astype(np.int32)
        prev = out[y - 1] if y else np.zeros(stride, np.int32)
        cur = out[y]
        for x in range(stride):
            a = cur[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[x] = (line[x] + pred) & 0xFF
    return out.astype(np.uint8).reshape(height, width, channels)
