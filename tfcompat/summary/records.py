"""TFRecord framing: how event files (and `tf.io.TFRecordWriter` files) store records.

Each record is::

    uint64  length              (little-endian)
    uint32  masked CRC32C of the 8 length bytes
    bytes   data[length]
    uint32  masked CRC32C of the data

The CRC is Castagnoli's CRC32C, masked as LevelDB does (`train.format.crc32c`,
whose native implementation this uses). TensorBoard's own `RecordWriter` can
frame the records instead (`use_tensorboard=True`; the tests check both write
the same bytes), but it is not the default: it computes the CRCs in pure Python
(about 12 ms per 100 KB against microseconds here).
"""

from __future__ import annotations

import struct
from typing import Any, BinaryIO, Callable, Iterator, Optional

from ..framework import errors
from ..train.format import crc32c

__all__ = ["frame", "RecordSink", "read_records"]

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def _masked(data: bytes) -> int:
    return crc32c.mask(crc32c.value(data))


def frame(data: bytes) -> bytes:
    """One record's bytes: length, its masked CRC, the data, the data's masked CRC."""
    header = _LENGTH.pack(len(data))
    return b"".join((header, _CRC.pack(_masked(header)), data, _CRC.pack(_masked(data))))


def _tensorboard_record_writer() -> Optional[type]:
    """TensorBoard's `RecordWriter`, or None when the package is not importable.

    Only the framing class is taken: TensorBoard's `EventFileWriter` reaches
    the file system through `tensorboard.compat.tf`, which imports TensorFlow
    whenever it is installed, and tfcompat never imports TensorFlow.
    """
    try:
        from tensorboard.summary.writer.record_writer import RecordWriter
    except Exception:  # absent, or broken by a missing dependency (protobuf, numpy)
        return None
    return RecordWriter


class _OwnRecordWriter:
    """The framing of `frame`, written to a binary file object."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file

    def write(self, data: bytes) -> None:
        self._file.write(frame(data))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class RecordSink:
    """Writes framed records to a binary file object.

    `use_tensorboard=True` frames with TensorBoard's `RecordWriter` (an
    ImportError without the package); None or False with the framing here, whose
    CRCs are native (see the module docstring).
    """

    def __init__(self, file: BinaryIO, use_tensorboard: Optional[bool] = None) -> None:
        impl: Any = None
        if use_tensorboard:
            impl = _tensorboard_record_writer()
            if impl is None and use_tensorboard:
                raise ImportError("the tensorboard package is not importable: pip install tensorboard")
        self._writer = impl(file) if impl is not None else _OwnRecordWriter(file)
        self.uses_tensorboard = impl is not None

    def write(self, data: bytes) -> None:
        """Appends one record holding `data`."""
        self._writer.write(data)

    def flush(self) -> None:
        """Pushes the records written so far to the operating system."""
        self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the file."""
        self._writer.close()


def read_records(path: Any, check_crc: bool = True,
                 on_truncated: Optional[Callable[[int], None]] = None) -> Iterator[bytes]:
    """Yields the data of each record of a TFRecord file, in order.

    A corrupt length or data CRC raises `tf.errors.DataLossError`, as TF's
    record reader does. A record cut short at the end of the file (a writer
    still writing, or killed) ends the iteration, as TensorBoard's reader
    treats it; `on_truncated(offset)` is told where when given.
    """
    with open(path, "rb") as f:
        data = f.read()
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 12:
            if on_truncated is not None:
                on_truncated(pos)
            return
        header = data[pos:pos + 8]
        (length,) = _LENGTH.unpack(header)
        (length_crc,) = _CRC.unpack_from(data, pos + 8)
        if check_crc and length_crc != _masked(header):
            raise errors.DataLossError(None, None, f"corrupted record at {pos}: bad length CRC")
        start = pos + 12
        stop = start + length
        if stop + 4 > end:
            if on_truncated is not None:
                on_truncated(pos)
            return
        payload = data[start:stop]
        (data_crc,) = _CRC.unpack_from(data, stop)
        if check_crc and data_crc != _masked(payload):
            raise errors.DataLossError(None, None, f"corrupted record at {pos}: bad data CRC")
        yield payload
        pos = stop + 4
