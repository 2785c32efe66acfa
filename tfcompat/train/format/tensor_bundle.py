"""TF's tensor bundle (the V2 checkpoint format), written and read with numpy/torch.

A bundle with prefix `P` is

* `P.data-00000-of-0000N`: the tensors' bytes, back to back, little-endian,
  C order, no padding; a string tensor is `varint64` lengths of all its
  elements, the masked CRC32C of those lengths (each as a little-endian
  `uint32`, `uint64` past 4 GiB), then the elements' bytes;
* `P.index`: a sorted table (`table.py`) mapping each tensor name to a
  `BundleEntryProto` (dtype, shape, shard, offset, size, and the masked
  CRC32C of the bytes -- for strings, of the lengths as above, the length
  checksum and the bytes), with the `BundleHeaderProto` under the empty key.

`BundleWriter` streams tensors to one data shard (one tensor's size of
memory at most beyond the caller's tensors), then writes the index; both go
under temporary names, are fsynced and renamed into place, the index last,
so a crash never leaves a torn bundle under the final names.
`BundleReader` reads any shard count; every read is checked against the
file's real size before anything is allocated and against its CRC after,
and any damage raises `tf.errors.DataLossError` naming the file and key.
"""

from __future__ import annotations

import os
import secrets
from typing import Any, Optional

import numpy as np
import torch

from ...framework.dtypes import DType
from ...framework.errors import DataLossError, NotFoundError, UnimplementedError
from . import crc32c, protos, string_tensor
from .host_buffers import host_array, numpy_view
from .protos import BundleEntryProto, BundleHeaderProto, DataType, VersionDef
from .table import build_table, read_table
from .tensor_slices import encode_tensor_name_slice, slice_bounds
from .wire import DecodeError

__all__ = ["BundleWriter", "BundleReader", "data_filename", "index_filename", "BUNDLE_VERSION"]

BUNDLE_VERSION = 1  # TF's kTensorBundleVersion
_SMALL_WRITE = 1 << 20  # tensors below this are coalesced into one buffered write
_MAX_DIM = 1 << 62
_WRITEBACK_CHUNK = 32 << 20  # start the disk's write-back after every 32 MiB written


def _sync_file_range() -> Optional[Any]:
    """Linux's sync_file_range(2), to start write-back early (None elsewhere)."""
    try:
        import ctypes

        fn = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_SYNC_FILE_RANGE = _sync_file_range()
_SYNC_FILE_RANGE_WRITE = 2


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    """`<prefix>.data-NNNNN-of-MMMMM`, TF's name of a data shard."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the files themselves are synced
    finally:
        os.close(fd)


class BundleWriter:
    """Writes a bundle: `<prefix>.data-00000-of-00001` and `<prefix>.index` (TF's `BundleWriter`).

    `add(key, value)` streams one tensor (numpy array -- bfloat16 via
    ml_dtypes, object/str/bytes arrays as DT_STRING -- or a torch tensor on
    any device) to the data file; keys may come in any order, each once.
    `finish()` writes the index and renames both files into place (data
    first, index last). Used as a context manager it finishes on success and
    `abort()`s (removing the temporaries) on an exception.
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = os.fspath(prefix)
        directory = os.path.dirname(self._prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._dir = directory
        tag = secrets.token_hex(8)
        self._data_final = data_filename(self._prefix, 0, 1)
        self._index_final = index_filename(self._prefix)
        self._data_tmp = f"{self._data_final}.tempstate{tag}"
        self._index_tmp = f"{self._index_final}.tempstate{tag}"
        self._fd: Optional[int] = os.open(self._data_tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        self._entries: dict[bytes, BundleEntryProto] = {}
        self._offset = 0
        self._written = 0
        self._synced = 0
        self._buffer = bytearray()
        self._done = False

    @property
    def prefix(self) -> str:
        return self._prefix

    def _write(self, data: Any) -> None:
        view = memoryview(data).cast("B")
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
            self._written += n
        # Hand finished ranges to the disk now (asynchronously), so that writing
        # them overlaps with the CPU work on the next tensors instead of all
        # waiting for the final fsync.
        if _SYNC_FILE_RANGE is not None and self._written - self._synced >= _WRITEBACK_CHUNK:
            _SYNC_FILE_RANGE(self._fd, self._synced, self._written - self._synced, _SYNC_FILE_RANGE_WRITE)
            self._synced = self._written

    def _append(self, data: Any, nbytes: int) -> None:
        if nbytes < _SMALL_WRITE:
            self._buffer += memoryview(data).cast("B")
            if len(self._buffer) >= _SMALL_WRITE:
                self._write(self._buffer)
                self._buffer = bytearray()
        else:
            if self._buffer:
                self._write(self._buffer)
                self._buffer = bytearray()
            self._write(data)
        self._offset += nbytes

    def add(self, key: str, value: Any) -> None:
        """Appends tensor `value` under `key` (a str; bytes allowed for exotic keys)."""
        if self._fd is None:
            raise ValueError(f"BundleWriter for {self._prefix} is already finished or aborted")
        bkey = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        if not bkey:
            raise ValueError("the empty key is reserved for the bundle header")
        if bkey in self._entries:
            raise ValueError(f"Adding duplicate key: {key}")
        datatype, arr = host_array(value)
        offset = self._offset
        if datatype == DataType.DT_STRING:
            header, body, crc = string_tensor.encode(arr)
            size = len(header) + len(body)
            self._append(header, len(header))
            self._append(body, len(body))
        else:
            size = arr.nbytes
            crc = crc32c.value(arr)
            self._append(arr.reshape(-1).view(np.uint8), size)
        self._entries[bkey] = BundleEntryProto(
            dtype=datatype, shape=protos.shape_proto(arr.shape), shard_id=0, offset=offset,
            size=size, crc32c=crc32c.mask(crc))

    def finish(self) -> None:
        """Writes the index, fsyncs both files and renames them into place (index last)."""
        if self._fd is None:
            raise ValueError(f"BundleWriter for {self._prefix} is already finished or aborted")
        try:
            if self._buffer:
                self._write(self._buffer)
                self._buffer = bytearray()
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None
            header = BundleHeaderProto(num_shards=1, endianness=BundleHeaderProto.LITTLE,
                                       version=VersionDef(producer=BUNDLE_VERSION))
            items = [(b"", header.encode())] + [(k, self._entries[k].encode()) for k in sorted(self._entries)]
            table = build_table(items)
            fd = os.open(self._index_tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(table)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(self._data_tmp, self._data_final)
            os.replace(self._index_tmp, self._index_final)
            _fsync_dir(self._dir)
            self._done = True
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Closes and removes the temporary files; nothing appears under the final names."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            finally:
                self._fd = None
        for path in (self._data_tmp, self._index_tmp):
            try:
                os.remove(path)
            except FileNotFoundError:
                pass

    def __enter__(self) -> "BundleWriter":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            if self._fd is not None:
                self.finish()
        else:
            self.abort()

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            self.abort()


class BundleReader:
    """Reads a bundle written by TF or `BundleWriter` (TF's `BundleReader`).

    The index is read and checked (block CRCs, header, version) on
    construction; data shards are opened on first use. `read(key)` returns
    an owning numpy array (object array of `bytes` for strings),
    `read_torch(key)` a CPU tensor; both read the bytes straight into the
    result (one copy from the file, no intermediate buffer) and check the
    entry's size and CRC32C.
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = os.fspath(prefix)
        self._index_path = index_filename(self._prefix)
        try:
            with open(self._index_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                f"files for {self._prefix}") from None
        except IsADirectoryError:
            raise NotFoundError(
                None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                f"files for {self._prefix}") from None
        items = read_table(data, self._index_path)
        if not items or items[0][0] != b"":
            raise self._loss("The bundle header (the entry under the empty key) is missing")
        try:
            header = BundleHeaderProto.decode(items[0][1])
        except DecodeError as e:
            raise self._loss(f"The bundle header is corrupted ({e})") from None
        if header.num_shards <= 0:
            raise self._loss(f"The bundle header claims {header.num_shards} shards")
        if header.endianness != BundleHeaderProto.LITTLE:
            raise UnimplementedError(
                None, None, f"Reading a big-endian bundle is not supported: {self._index_path}")
        version = header.version or VersionDef()
        if version.min_consumer > BUNDLE_VERSION or BUNDLE_VERSION in version.bad_consumers:
            raise self._loss(
                f"The bundle needs a reader of version >= {version.min_consumer} (this one is "
                f"{BUNDLE_VERSION}; bad consumers {list(version.bad_consumers)})")
        self._num_shards = header.num_shards
        self._raw = dict(items[1:])
        self._entries: dict[bytes, BundleEntryProto] = {}
        self._keys: Optional[list[bytes]] = None
        self._fds: dict[int, tuple[int, int, str]] = {}  # shard -> (fd, size, path)

    # -- errors --------------------------------------------------------------
    def _loss(self, what: str, key: Optional[bytes] = None, path: Optional[str] = None) -> DataLossError:
        where = f" (key {self._key_str(key)!r})" if key is not None else ""
        return DataLossError(None, None, f"{what}{where} in checkpoint file {path or self._index_path}")

    @staticmethod
    def _key_str(key: bytes) -> str:
        return key.decode("utf-8", "surrogateescape")

    @staticmethod
    def _bkey(key: Any) -> bytes:
        return key.encode("utf-8", "surrogateescape") if isinstance(key, str) else bytes(key)

    # -- the index ------------------------------------------------------------
    @property
    def prefix(self) -> str:
        return self._prefix

    @property
    def num_shards(self) -> int:
        return self._num_shards

    def keys(self) -> list[str]:
        """The tensor names, sorted (without the header key and slices' internal keys).

        As TF's checkpoint reader, the keys left out are exactly those that
        some sliced entry names as one of its slices.
        """
        if self._keys is None:
            slice_keys = set()
            for k in self._raw:
                entry = self.entry(k)
                for sp in entry.slices:
                    try:
                        bounds = slice_bounds(sp, self._checked_shape(entry, k))
                    except ValueError as e:
                        raise self._loss(str(e), k) from None
                    slice_keys.add(encode_tensor_name_slice(k, bounds))
            self._keys = [k for k in self._raw if k not in slice_keys]
        return [self._key_str(k) for k in self._keys]

    def has(self, key: str) -> bool:
        return self._bkey(key) in self._raw

    def __contains__(self, key: str) -> bool:
        return self.has(key)

    def entry(self, key: Any) -> BundleEntryProto:
        """The `BundleEntryProto` of `key`: `NotFoundError` if absent, `DataLossError` if corrupt."""
        bkey = self._bkey(key)
        found = self._entries.get(bkey)
        if found is not None:
            return found
        raw = self._raw.get(bkey)
        if raw is None:
            raise NotFoundError(None, None, f"Key {self._key_str(bkey)} not found in checkpoint")
        try:
            found = BundleEntryProto.decode(raw)
        except DecodeError as e:
            raise self._loss(f"A corrupted BundleEntryProto ({e})", bkey) from None
        self._entries[bkey] = found
        return found

    def dtype(self, key: str) -> DType:
        entry = self.entry(key)
        try:
            return protos.tf_dtype(entry.dtype)
        except TypeError as e:
            raise self._loss(str(e), self._bkey(key)) from None

    def shape(self, key: str) -> tuple[int, ...]:
        return self._checked_shape(self.entry(key), self._bkey(key))

    def _checked_shape(self, entry: BundleEntryProto, bkey: bytes) -> tuple[int, ...]:
        shape_msg = entry.shape
        if shape_msg is not None and shape_msg.unknown_rank:
            raise self._loss("The entry has an unknown rank", bkey)
        shape = protos.shape_of(shape_msg)
        if len(shape) > 254 or any(d < 0 or d >= _MAX_DIM for d in shape):
            raise self._loss(f"The entry has an invalid shape {list(shape)}", bkey)
        return shape

    # -- data shards ------------------------------------------------------------
    def _shard(self, shard_id: int, bkey: bytes) -> tuple[int, int, str]:
        opened = self._fds.get(shard_id)
        if opened is None:
            if not 0 <= shard_id < self._num_shards:
                raise self._loss(f"The entry names shard {shard_id} of {self._num_shards}", bkey)
            path = data_filename(self._prefix, shard_id, self._num_shards)
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as e:
                raise self._loss(f"The data file cannot be opened ({e.strerror})", bkey, path) from None
            opened = (fd, os.fstat(fd).st_size, path)
            self._fds[shard_id] = opened
            if hasattr(os, "posix_fadvise"):  # reads go mostly forward: a larger read-ahead
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        return opened

    def _pread_into(self, fd: int, offset: int, dest: np.ndarray, bkey: bytes, path: str) -> None:
        view = memoryview(dest.reshape(-1).view(np.uint8))
        pos = offset
        while view:
            n = os.preadv(fd, [view], pos)
            if n <= 0:
                raise self._loss(f"The data file is truncated (wanted bytes up to {offset + dest.nbytes})",
                                 bkey, path)
            view = view[n:]
            pos += n

    def _locate(self, entry: BundleEntryProto, bkey: bytes) -> tuple[int, str]:
        fd, file_size, path = self._shard(entry.shard_id, bkey)
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > file_size:
            raise self._loss(
                f"The entry's bytes [{entry.offset}, {entry.offset + entry.size}) lie outside the "
                f"data file ({file_size} bytes)", bkey, path)
        return fd, path

    def _check_crc(self, actual: int, entry: BundleEntryProto, bkey: bytes, path: str) -> None:
        if crc32c.mask(actual) != entry.crc32c:
            raise self._loss(
                f"TensorBundle shard {entry.shard_id} ({entry.size} bytes): Checksum does not match: "
                f"stored {entry.crc32c} vs. calculated on the restored bytes {crc32c.mask(actual)}",
                bkey, path)

    def _np_dtype(self, entry: BundleEntryProto, bkey: bytes) -> np.dtype:
        try:
            return protos.numpy_dtype(entry.dtype)
        except TypeError as e:
            raise self._loss(str(e), bkey) from None

    def _read_numeric_into(self, entry: BundleEntryProto, bkey: bytes, dest: np.ndarray) -> None:
        fd, path = self._locate(entry, bkey)
        self._pread_into(fd, entry.offset, dest, bkey, path)
        self._check_crc(crc32c.value(dest), entry, bkey, path)

    def _alloc(self, entry: BundleEntryProto, bkey: bytes, dtype: np.dtype) -> tuple[int, ...]:
        """The entry's shape, once its claimed size is checked against its dtype and the file."""
        shape = self._checked_shape(entry, bkey)
        count = 1
        for d in shape:
            count *= d
        if count * dtype.itemsize != entry.size:
            raise self._loss(
                f"The entry's size {entry.size} does not match its shape {list(shape)} and dtype "
                f"{dtype.name} ({count * dtype.itemsize} bytes)", bkey)
        self._locate(entry, bkey)
        return shape

    def _read_string(self, entry: BundleEntryProto, bkey: bytes) -> np.ndarray:
        shape = self._checked_shape(entry, bkey)
        count = 1
        for d in shape:
            count *= d
        fd, path = self._locate(entry, bkey)
        if count + 4 > entry.size:  # checked before the read and the allocation
            raise self._loss(f"The string entry's size {entry.size} cannot hold {count} elements", bkey, path)
        raw = np.empty(entry.size, np.uint8)
        self._pread_into(fd, entry.offset, raw, bkey, path)
        try:
            out, crc = string_tensor.decode(raw.tobytes(), count)
        except string_tensor.StringTensorError as e:
            raise self._loss(str(e), bkey, path) from None
        self._check_crc(crc, entry, bkey, path)
        return out.reshape(shape)

    # -- public reads -------------------------------------------------------------
    def read(self, key: str) -> np.ndarray:
        """The tensor under `key` as an owning numpy array (strings: object array of `bytes`)."""
        bkey = self._bkey(key)
        entry = self.entry(bkey)
        if entry.slices:
            return self._read_sliced(entry, bkey)
        return self._read_entry(entry, bkey)

    def _read_entry(self, entry: BundleEntryProto, bkey: bytes) -> np.ndarray:
        dtype = self._np_dtype(entry, bkey)
        if entry.dtype == DataType.DT_STRING:
            return self._read_string(entry, bkey)
        shape = self._alloc(entry, bkey, dtype)
        out = np.empty(shape, dtype)
        self._read_numeric_into(entry, bkey, out)
        return out

    def read_torch(self, key: str) -> torch.Tensor:
        """The tensor under `key` as a CPU torch tensor (`TypeError` for strings: use `read()`)."""
        bkey = self._bkey(key)
        entry = self.entry(bkey)
        if entry.dtype == DataType.DT_STRING:
            raise TypeError(f"{self._key_str(bkey)!r} is a string tensor, which torch cannot hold: use read()")
        dtype = self.dtype(bkey).as_torch
        if entry.slices:
            return _to_torch(self._read_sliced(entry, bkey), dtype)
        shape = self._alloc(entry, bkey, self._np_dtype(entry, bkey))
        out = torch.empty(shape, dtype=dtype)
        self._read_numeric_into(entry, bkey, numpy_view(out))
        return out

    def read_into(self, key: str, out: Any) -> None:
        """Reads `key` straight into `out`, a contiguous CPU numpy array or torch tensor of its
        shape and dtype (no allocation)."""
        bkey = self._bkey(key)
        entry = self.entry(bkey)
        dest = numpy_view(out) if isinstance(out, torch.Tensor) else out
        want = self._np_dtype(entry, bkey)
        if entry.dtype == DataType.DT_STRING or entry.slices:
            dest[...] = self.read(bkey)
            return
        shape = self._alloc(entry, bkey, want)
        if dest.dtype != want or tuple(dest.shape) != shape or not dest.flags.c_contiguous:
            raise ValueError(f"read_into({self._key_str(bkey)!r}): needs a contiguous {want.name} "
                             f"buffer of shape {shape}, got {dest.dtype} {tuple(dest.shape)}")
        self._read_numeric_into(entry, bkey, dest)

    def _read_sliced(self, entry: BundleEntryProto, bkey: bytes) -> np.ndarray:
        dtype = self._np_dtype(entry, bkey)
        shape = self._checked_shape(entry, bkey)
        if entry.size or entry.offset:
            raise self._loss("A sliced entry carries data of its own", bkey)
        slices = []
        covered = 0
        for sp in entry.slices:
            try:
                bounds = slice_bounds(sp, shape)
            except ValueError as e:
                raise self._loss(str(e), bkey) from None
            index = []
            volume = 1
            for (start, length), dim in zip(bounds, shape):
                stop = dim if length == -1 else start + length
                if start < 0 or length < -1 or stop > dim:
                    raise self._loss(f"A slice {bounds} outside the shape {list(shape)}", bkey)
                index.append(slice(start, stop))
                volume *= stop - start
            slices.append((bounds, tuple(index)))
            covered += volume
        total = 1
        for d in shape:
            total *= d
        if covered != total:
            raise self._loss(f"The slices cover {covered} of the tensor's {total} elements", bkey)
        # Each slice is checked against its extent, its own size and the data file before
        # `out` exists, and no two slices may share bytes: `out` is then bounded by the
        # data files' sizes, whatever the index claims.
        parts = []
        seen_keys = set()
        ranges: dict[int, list[tuple[int, int]]] = {}
        for bounds, index in slices:
            skey = encode_tensor_name_slice(bkey, bounds)
            if skey in seen_keys:
                raise self._loss(f"The slice {bounds} is listed twice", bkey)
            seen_keys.add(skey)
            if skey not in self._raw:
                raise self._loss(f"The entry of slice {bounds} is missing", bkey)
            sentry = self.entry(skey)
            if sentry.dtype != entry.dtype or sentry.slices:
                raise self._loss("A slice's entry does not match its tensor", bkey)
            extent = tuple(s.stop - s.start for s in index)
            if self._checked_shape(sentry, skey) != extent:
                raise self._loss(f"A slice's shape {list(self._checked_shape(sentry, skey))} does not "
                                 f"match its extent {list(extent)}", bkey)
            try:
                if dtype.kind != "O":
                    self._alloc(sentry, skey, dtype)
                else:
                    _, path = self._locate(sentry, skey)
                    count = 1
                    for d in extent:
                        count *= d
                    if count + 4 > sentry.size:
                        raise self._loss(f"The string entry's size {sentry.size} cannot hold {count} "
                                         "elements", skey, path)
            except DataLossError as e:  # named by the tensor's key and the slice, not the slice's key
                what, _, where = e.message.rpartition(" in checkpoint file ")
                raise self._loss(f"Slice {bounds}: {what.split(' (key ')[0]}", bkey, where) from None
            if sentry.size:
                ranges.setdefault(sentry.shard_id, []).append((sentry.offset, sentry.offset + sentry.size))
            parts.append((skey, sentry, index))
        for spans in ranges.values():
            spans.sort()
            for (_, end), (start, _) in zip(spans, spans[1:]):
                if start < end:
                    raise self._loss("Two slices' entries share bytes of the data file", bkey)
        out = np.empty(shape, dtype)
        seen = np.zeros(shape, bool)
        for skey, sentry, index in parts:
            if seen[index].any():
                raise self._loss("Overlapping slices", bkey)
            seen[index] = True
            part = self._read_entry(sentry, skey)
            if part.shape != out[index].shape:
                raise self._loss(f"A slice's shape {part.shape} does not match its extent", bkey)
            out[index] = part
        return out

    # -- lifetime ---------------------------------------------------------------
    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd, _, _ in fds.values():
            os.close(fd)

    def __enter__(self) -> "BundleReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_fds", None):
            self.close()


def _to_torch(arr: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    out = torch.empty(arr.shape, dtype=dtype)
    numpy_view(out)[...] = arr
    return out
