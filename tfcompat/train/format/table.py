"""The LevelDB-style immutable sorted table TF uses for a bundle's `.index` file.

Layout (TF's `tensorflow/core/lib/io/table*`, LevelDB's format):

    [data block]* [metaindex block] [index block] [footer: 48 bytes]

* A block is a run of entries, each `varint32 shared | varint32 unshared |
  varint32 value_len | key[shared:] | value`, keys prefix-compressed against
  the previous key and reset at *restart points* (every 16 entries in data
  blocks, every entry in the index block), then the restart offsets
  (`fixed32` each) and their count (`fixed32`).
* Each block is followed by a 5-byte trailer: a type byte (0 = raw,
  1 = snappy) and the masked CRC32C of the block contents plus that byte.
* The index block maps a separator key `>=` each data block's last key (and
  `<` the next block's first key) to the block's handle (`varint64 offset,
  varint64 size`). TF's metaindex block is empty.
* The footer holds the metaindex and index handles, zero padding to 40 bytes
  and the magic number `0xdb4775248b80fb57` (`fixed64`).

`TableWriter` writes what TF writes (uncompressed, TF's 256 KiB block size,
LevelDB's shortest separators), so an index built here is byte-identical to
TF's for the same entries. `read_table` validates everything against the
file's real size before slicing and raises `DataLossError` naming the file.
"""

from __future__ import annotations

import struct
from typing import Iterable, Optional

from ...framework.errors import DataLossError
from . import crc32c
from .wire import DecodeError, decode_varint, encode_varint

__all__ = ["TableWriter", "read_table", "build_table", "MAGIC", "FOOTER_SIZE", "BLOCK_SIZE"]

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
BLOCK_SIZE = 262144  # TF's table::Options::block_size
RESTART_INTERVAL = 16
NO_COMPRESSION, SNAPPY_COMPRESSION = 0, 1


def _data_loss(filename: str, what: str) -> DataLossError:
    return DataLossError(None, None, f"{what} in checkpoint index file {filename}")


# -- writing -------------------------------------------------------------------

class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self.interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            limit = min(len(self.last_key), len(key))
            while shared < limit and self.last_key[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        self.buf += encode_varint(shared)
        self.buf += encode_varint(len(key) - shared)
        self.buf += encode_varint(len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.counter += 1

    def size_estimate(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        return bytes(self.buf) + struct.pack(f"<{len(self.restarts)}I", *self.restarts) + struct.pack(
            "<I", len(self.restarts))

    @property
    def empty(self) -> bool:
        return not self.buf


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    # LevelDB's BytewiseComparator::FindShortestSeparator.
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes((b + 1,))
    return start


def _short_successor(key: bytes) -> bytes:
    # LevelDB's BytewiseComparator::FindShortSuccessor.
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes((b + 1,))
    return key


class TableWriter:
    """Builds a table from keys added in strictly increasing (bytewise) order.

    `add(key, value)` appends; `finish()` returns the whole file's bytes.
    Tables are small (one entry per tensor), so they are built in memory.
    """

    def __init__(self, block_size: int = BLOCK_SIZE) -> None:
        self._block_size = block_size
        self._out = bytearray()
        self._data = _BlockBuilder(RESTART_INTERVAL)
        self._index = _BlockBuilder(1)
        self._last_key: Optional[bytes] = None
        self._pending: Optional[bytes] = None  # handle of the last flushed data block

    def add(self, key: bytes, value: bytes) -> None:
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(f"table keys must be added in increasing order: {key!r} after {self._last_key!r}")
        if self._pending is not None:
            self._index.add(_shortest_separator(self._last_key, key), self._pending)
            self._pending = None
        self._data.add(key, value)
        self._last_key = key
        if self._data.size_estimate() >= self._block_size:
            self._flush()

    def _flush(self) -> None:
        if self._data.empty:
            return
        self._pending = self._write_block(self._data)

    def _write_block(self, block: _BlockBuilder) -> bytes:
        contents = block.finish()
        block.reset()
        handle = encode_varint(len(self._out)) + encode_varint(len(contents))
        trailer_type = bytes((NO_COMPRESSION,))
        crc = crc32c.mask(crc32c.extend(crc32c.value(contents), trailer_type))
        self._out += contents + trailer_type + struct.pack("<I", crc)
        return handle

    def finish(self) -> bytes:
        self._flush()
        meta_handle = self._write_block(_BlockBuilder(RESTART_INTERVAL))
        if self._pending is not None:
            self._index.add(_short_successor(self._last_key), self._pending)
            self._pending = None
        index_handle = self._write_block(self._index)
        footer = (meta_handle + index_handle).ljust(40, b"\0") + struct.pack("<Q", MAGIC)
        self._out += footer
        return bytes(self._out)


def build_table(items: Iterable[tuple[bytes, bytes]], block_size: int = BLOCK_SIZE) -> bytes:
    """A whole table from `(key, value)` pairs in increasing key order."""
    w = TableWriter(block_size)
    for k, v in items:
        w.add(k, v)
    return w.finish()


# -- reading -------------------------------------------------------------------

def _snappy_decompress(data: bytes, filename: str) -> bytes:
    try:
        import cramjam  # type: ignore

        decompress = lambda b: bytes(cramjam.snappy.decompress_raw(b))  # noqa: E731
    except ImportError:
        try:
            import snappy  # type: ignore

            decompress = snappy.uncompress
        except ImportError:
            raise _data_loss(
                filename, "A snappy-compressed block (TF writes indexes uncompressed; this one was "
                "written by another tool) cannot be read without a snappy decoder: "
                "pip install cramjam (or python-snappy)") from None
    try:
        return decompress(data)
    except Exception as e:  # the decoders raise their own error types
        raise _data_loss(filename, f"A corrupted snappy block ({e})") from None


def _read_handle(data: bytes, pos: int, end: int) -> tuple[int, int, int]:
    offset, pos = decode_varint(data, pos, end)
    size, pos = decode_varint(data, pos, end)
    return offset, size, pos


def _read_block(data: bytes, offset: int, size: int, filename: str, what: str) -> bytes:
    """One block's contents, checked: in bounds, known type, CRC matches."""
    limit = len(data) - FOOTER_SIZE
    if offset < 0 or size < 0 or offset + size + BLOCK_TRAILER_SIZE > limit:
        raise _data_loss(filename, f"The {what} block (offset {offset}, size {size}) lies outside the file")
    contents = data[offset:offset + size]
    block_type = data[offset + size]
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    actual = crc32c.extend(crc32c.value(contents), data[offset + size:offset + size + 1])
    if crc32c.unmask(stored) != actual:
        raise _data_loss(filename, f"Checksum mismatch (corrupted block) for the {what} block at offset {offset}")
    if block_type == NO_COMPRESSION:
        return contents
    if block_type == SNAPPY_COMPRESSION:
        return _snappy_decompress(contents, filename)
    raise _data_loss(filename, f"Unknown block type {block_type} for the {what} block at offset {offset}")


def _block_entries(block: bytes, filename: str, what: str) -> list[tuple[bytes, bytes]]:
    n = len(block)
    if n < 4:
        raise _data_loss(filename, f"The {what} block is too short")
    (num_restarts,) = struct.unpack_from("<I", block, n - 4)
    if num_restarts == 0 or num_restarts > (n - 4) // 4:
        raise _data_loss(filename, f"The {what} block has a bad restart count {num_restarts}")
    end = n - 4 - 4 * num_restarts
    restarts = struct.unpack_from(f"<{num_restarts}I", block, end)
    if restarts[0] != 0 or any(r > end for r in restarts):
        raise _data_loss(filename, f"The {what} block has a restart point outside its entries")
    out = []
    key = b""
    pos = 0
    restart_set = set(restarts)
    try:
        while pos < end:
            at_restart = pos in restart_set
            shared, pos = decode_varint(block, pos, end)
            unshared, pos = decode_varint(block, pos, end)
            vlen, pos = decode_varint(block, pos, end)
            if shared > len(key) or (at_restart and shared) or unshared + vlen > end - pos:
                raise _data_loss(filename, f"A corrupted entry in the {what} block")
            key = key[:shared] + block[pos:pos + unshared]
            pos += unshared
            out.append((key, block[pos:pos + vlen]))
            pos += vlen
    except DecodeError as e:
        raise _data_loss(filename, f"A corrupted entry in the {what} block ({e})") from None
    return out


def read_table(data: bytes, filename: str) -> list[tuple[bytes, bytes]]:
    """Every `(key, value)` of a table held in `data`, in order; `DataLossError` on any damage."""
    if len(data) < FOOTER_SIZE:
        raise _data_loss(filename, f"The file is too short ({len(data)} bytes) to be a table")
    footer_at = len(data) - FOOTER_SIZE
    (magic,) = struct.unpack_from("<Q", data, footer_at + 40)
    if magic != MAGIC:
        raise _data_loss(filename, "Not a table (bad magic number)")
    try:
        meta_off, meta_size, pos = _read_handle(data, footer_at, footer_at + 40)
        index_off, index_size, _ = _read_handle(data, pos, footer_at + 40)
    except DecodeError:
        raise _data_loss(filename, "A corrupted table footer") from None
    # TF's metaindex is empty and unused, but checking it leaves only the
    # footer's padding unverified.
    _block_entries(_read_block(data, meta_off, meta_size, filename, "metaindex"), filename, "metaindex")
    index = _block_entries(_read_block(data, index_off, index_size, filename, "index"), filename, "index")
    out: list[tuple[bytes, bytes]] = []
    prev_end = 0
    for sep, handle in index:
        try:
            off, size, used = _read_handle(handle, 0, len(handle))
        except DecodeError:
            raise _data_loss(filename, "A corrupted block handle in the index block") from None
        if used != len(handle) or off < prev_end:
            raise _data_loss(filename, "A corrupted block handle in the index block")
        prev_end = off + size + BLOCK_TRAILER_SIZE
        entries = _block_entries(_read_block(data, off, size, filename, "data"), filename, "data")
        for k, v in entries:
            if (out and k <= out[-1][0]) or k > sep:
                raise _data_loss(filename, f"Keys out of order at {k!r}")
            out.append((k, v))
    return out
