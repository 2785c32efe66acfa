"""Truncated, bit-flipped and hostile bundles raise DataLossError naming the file (and key).

The law for damage: a reader either raises `DataLossError` or returns
exactly the tensors that were written -- never other values, never a
MemoryError, crash or hang. Hostile indexes are built with valid block
CRCs (table.build_table) so they get past the table to the entries.
"""

import os
import shutil
import struct

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.train.format import crc32c
from tfcompat.train.format.protos import (BundleEntryProto, BundleHeaderProto, TensorShapeProto,
                                          TensorSliceProto, VersionDef)
from tfcompat.train.format.table import FOOTER_SIZE, build_table
from tfcompat.train.format.tensor_bundle import BundleReader, BundleWriter

DataLossError = tf.errors.DataLossError

TENSORS = {
    "a": np.arange(6, dtype=np.float32).reshape(2, 3),
    "b/strings": np.array([b"xy", b"", b"\x00z"], dtype=object),
    "c": np.array(7, dtype=np.int64),
}


def _write(prefix):
    with BundleWriter(prefix) as w:
        for k, v in TENSORS.items():
            w.add(k, v)


def _read_all(prefix):
    with BundleReader(prefix) as r:
        return {k: r.read(k) for k in r.keys()}


def _equal_to_written(got):
    if sorted(got) != sorted(TENSORS):
        return False
    return all(got[k].dtype == TENSORS[k].dtype and got[k].shape == TENSORS[k].shape
               and got[k].tolist() == TENSORS[k].tolist() for k in TENSORS)


@pytest.fixture
def bundle(tmp_path):
    prefix = str(tmp_path / "good" / "ckpt")
    _write(prefix)
    return prefix


def _copy(prefix, tmp_path, name):
    dst = str(tmp_path / name / "ckpt")
    os.makedirs(os.path.dirname(dst))
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(prefix + suffix, dst + suffix)
    return dst


def test_index_truncated_anywhere(bundle, tmp_path):
    data = open(bundle + ".index", "rb").read()
    target = _copy(bundle, tmp_path, "t")
    for cut in range(len(data)):
        with open(target + ".index", "wb") as f:
            f.write(data[:cut])
        with pytest.raises(DataLossError, match="ckpt.index"):
            _read_all(target)


def test_index_every_byte_flipped(bundle, tmp_path):
    data = open(bundle + ".index", "rb").read()
    target = _copy(bundle, tmp_path, "f")
    detected = 0
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 1 << (i % 8)
        with open(target + ".index", "wb") as f:
            f.write(flipped)
        try:
            got = _read_all(target)
        except DataLossError as e:
            assert "ckpt" in str(e)
            detected += 1
            continue
        assert _equal_to_written(got), f"byte {i}: a flip changed what was read"
    # Only the footer's zero padding is unchecked (as in LevelDB and TF).
    footer_handles = len(data) - FOOTER_SIZE
    assert detected >= len(data) - (40 - _handles_len(data[footer_handles:]))


def _handles_len(footer):
    from tfcompat.train.format.wire import decode_varint
    pos = 0
    for _ in range(4):
        _, pos = decode_varint(footer, pos)
    return pos


def test_data_every_byte_flipped_names_key_and_file(bundle, tmp_path):
    path = bundle + ".data-00000-of-00001"
    data = open(path, "rb").read()
    target = _copy(bundle, tmp_path, "d")
    with BundleReader(bundle) as r:
        spans = {k: (r.entry(k).offset, r.entry(k).offset + r.entry(k).size) for k in r.keys()}
    for i in range(len(data)):
        flipped = bytearray(data)
        flipped[i] ^= 0x80 >> (i % 8)
        with open(target + ".data-00000-of-00001", "wb") as f:
            f.write(flipped)
        with BundleReader(target) as r:
            for k, (lo, hi) in spans.items():
                if lo <= i < hi:
                    with pytest.raises(DataLossError) as e:
                        r.read(k)
                    assert repr(k) in str(e.value) and "data-00000-of-00001" in str(e.value)
                else:
                    assert r.read(k).tolist() == TENSORS[k].tolist()


def test_data_truncated_anywhere(bundle, tmp_path):
    path = bundle + ".data-00000-of-00001"
    data = open(path, "rb").read()
    target = _copy(bundle, tmp_path, "dt")
    for cut in range(len(data)):
        with open(target + ".data-00000-of-00001", "wb") as f:
            f.write(data[:cut])
        with BundleReader(target) as r:
            for k in r.keys():
                e = r.entry(k)
                if e.offset + e.size > cut:
                    with pytest.raises(DataLossError, match="outside the data file"):
                        r.read(k)
                else:
                    assert r.read(k).tolist() == TENSORS[k].tolist()


def test_missing_data_file(bundle):
    os.remove(bundle + ".data-00000-of-00001")
    with BundleReader(bundle) as r:
        with pytest.raises(DataLossError, match="data-00000-of-00001"):
            r.read("a")


def test_wrong_magic_and_garbage(tmp_path):
    prefix = str(tmp_path / "m")
    good = build_table([(b"", BundleHeaderProto(num_shards=1).encode())])
    for content in (good[:-1] + b"\x00", b"\x00" * 100, b"not a table at all" * 10, b""):
        with open(prefix + ".index", "wb") as f:
            f.write(content)
        with pytest.raises(DataLossError, match="m.index"):
            BundleReader(prefix)


# -- hostile indexes with valid checksums ---------------------------------------------

def _hostile(tmp_path, entries, header=None, data=b"\x00" * 64, name="h"):
    prefix = str(tmp_path / name)
    header = header or BundleHeaderProto(num_shards=1, version=VersionDef(producer=1))
    items = [(b"", header.encode())] + sorted((k.encode(), v if isinstance(v, bytes) else v.encode())
                                              for k, v in entries.items())
    with open(prefix + ".index", "wb") as f:
        f.write(build_table(items))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(data)
    return prefix


def _shape(*dims):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims])


HOSTILE_ENTRIES = {
    "huge_size": BundleEntryProto(dtype=1, shape=_shape(1 << 40), size=4 << 40),
    "huge_offset": BundleEntryProto(dtype=1, shape=_shape(2), offset=(1 << 62), size=8),
    "negative_offset": BundleEntryProto(dtype=1, shape=_shape(2), offset=-8, size=8),
    "negative_size": BundleEntryProto(dtype=1, shape=_shape(2), size=-8),
    "size_mismatch": BundleEntryProto(dtype=1, shape=_shape(3), size=8),
    "dims_overflow": BundleEntryProto(dtype=1, shape=_shape(1 << 62, 1 << 62, 0), size=0),
    "negative_dim": BundleEntryProto(dtype=1, shape=_shape(-1), size=0),
    "unknown_rank": BundleEntryProto(dtype=1, shape=TensorShapeProto(unknown_rank=True), size=4),
    "bad_dtype": BundleEntryProto(dtype=20, shape=_shape(1), size=4),
    "bad_shard": BundleEntryProto(dtype=1, shape=_shape(1), shard_id=5, size=4),
    "many_strings": BundleEntryProto(dtype=7, shape=_shape(1 << 40), size=60),
    "string_lengths_lie": BundleEntryProto(dtype=7, shape=_shape(2), size=8),
    "deep_nesting": b"\x7b" * 5000 + b"\x7c" * 5000,  # unknown field 15 as nested groups
    "truncated_proto": b"\x12\x05\x12",
    "bad_slice": BundleEntryProto(dtype=1, shape=_shape(4), slices=[
        TensorSliceProto(extent=[TensorSliceProto.Extent(start=2, length=1 << 40)])]),
    "slices_gap": BundleEntryProto(dtype=1, shape=_shape(4), slices=[
        TensorSliceProto(extent=[TensorSliceProto.Extent(start=0, length=2)])]),
    "slice_missing": BundleEntryProto(dtype=1, shape=_shape(4), slices=[
        TensorSliceProto(extent=[TensorSliceProto.Extent(start=0, length=4)])]),
}


@pytest.mark.parametrize("key", sorted(HOSTILE_ENTRIES))
def test_hostile_entries(tmp_path, key):
    data = b"\x05\x01" + b"\x00" * 62  # varint lengths 5 and 1 that do not fit the size
    prefix = _hostile(tmp_path, {key: HOSTILE_ENTRIES[key], "ok": BundleEntryProto(
        dtype=1, shape=_shape(1), offset=60, size=4,
        crc32c=crc32c.mask(crc32c.value(b"\x00" * 4)))}, data=data)
    readers = ["read"] + ([] if "string" in key else ["read_torch"])
    for method in readers:
        with BundleReader(prefix) as r:
            assert r.read("ok").tolist() == [0.0]
            with pytest.raises(DataLossError) as e:
                getattr(r, method)(key)
            assert repr(key) in str(e.value)
            assert "h.index" in str(e.value) or "h.data" in str(e.value)


@pytest.mark.parametrize("header,match", [
    (BundleHeaderProto(num_shards=0), "shards"),
    (BundleHeaderProto(num_shards=-3), "shards"),
    (BundleHeaderProto(num_shards=1, version=VersionDef(producer=2, min_consumer=2)), "version"),
    (BundleHeaderProto(num_shards=1, version=VersionDef(producer=1, bad_consumers=[1])), "version"),
])
def test_hostile_headers(tmp_path, header, match):
    with pytest.raises(DataLossError, match=match):
        BundleReader(_hostile(tmp_path, {}, header=header))


def test_big_endian_is_unimplemented(tmp_path):
    with pytest.raises(tf.errors.UnimplementedError):
        BundleReader(_hostile(tmp_path, {}, header=BundleHeaderProto(num_shards=1, endianness=1)))


def test_missing_header(tmp_path):
    prefix = str(tmp_path / "nh")
    with open(prefix + ".index", "wb") as f:
        f.write(build_table([(b"a", BundleEntryProto(dtype=1).encode())]))
    with pytest.raises(DataLossError, match="header"):
        BundleReader(prefix)


def test_huge_num_shards_reads_fail_cleanly(tmp_path):
    prefix = _hostile(tmp_path, {"x": BundleEntryProto(dtype=1, shape=_shape(1), size=4, shard_id=7)},
                      header=BundleHeaderProto(num_shards=(1 << 31) - 1))
    with BundleReader(prefix) as r:
        with pytest.raises(DataLossError, match="cannot be opened"):
            r.read("x")


def test_crafted_block_restarts(tmp_path):
    # A data block whose restart count claims more restarts than bytes, with a valid CRC.
    prefix = str(tmp_path / "rb")
    table = bytearray(build_table([(b"", BundleHeaderProto(num_shards=1).encode())]))
    # the first block starts at 0; its last 4 bytes before the trailer are num_restarts
    from tfcompat.train.format.wire import decode_varint
    footer = len(table) - FOOTER_SIZE
    _, pos = decode_varint(table, footer)
    _, pos = decode_varint(table, pos)
    index_off, pos = decode_varint(table, pos)
    index_size, _ = decode_varint(table, pos)
    block = table[index_off:index_off + index_size]
    block[-4:] = struct.pack("<I", 1 << 30)
    trailer = bytes((0,)) + struct.pack("<I", crc32c.mask(crc32c.extend(crc32c.value(bytes(block)), b"\x00")))
    table[index_off:index_off + index_size + 5] = bytes(block) + trailer
    with open(prefix + ".index", "wb") as f:
        f.write(table)
    with pytest.raises(DataLossError, match="restart"):
        BundleReader(prefix)


# -- hostile sliced entries: every slice is checked before the tensor is allocated ----------

def _full(dtype, n, slices=None):
    extent = slices or [TensorSliceProto(extent=[TensorSliceProto.Extent()])]  # full extent
    return BundleEntryProto(dtype=dtype, shape=_shape(n), slices=extent)


def _part(dtype, shape, data, offset=0, size=None):
    return BundleEntryProto(dtype=dtype, shape=_shape(*shape), offset=offset,
                            size=len(data) if size is None else size,
                            crc32c=crc32c.mask(crc32c.value(data)))


def _slice_key(bounds):
    from tfcompat.train.format.tensor_slices import encode_tensor_name_slice
    return encode_tensor_name_slice(b"x", bounds)


def _half(start, length):
    return TensorSliceProto(extent=[TensorSliceProto.Extent(start=start, length=length)])


FOUR = b"\x00\x01\x02\x03"
STRING_ONE = b"\x00" + struct.pack("<I", crc32c.mask(crc32c.value(b"\x00\x00\x00\x00")))
# {case: (index entries, data file)}: the 4-byte data file under a [4e9] float and a
# [3e8] string tensor, and the other ways a slice can claim more than the file holds.
HOSTILE_SLICED = {
    "float_4e9_over_4_bytes": ({b"x": _full(1, 4_000_000_000),
                                _slice_key([(0, -1)]): _part(1, (1,), FOUR)}, FOUR),
    "uint8_4e9_over_4_bytes": ({b"x": _full(4, 4_000_000_000),
                                _slice_key([(0, -1)]): _part(4, (4,), FOUR)}, FOUR),
    "float_slice_claims_its_extent": ({b"x": _full(1, 1_000_000_000),
                                       _slice_key([(0, -1)]): _part(1, (1_000_000_000,), FOUR,
                                                                    size=4_000_000_000)}, FOUR),
    "string_3e8_over_5_bytes": ({b"x": _full(7, 300_000_000),
                                 _slice_key([(0, -1)]): _part(7, (1,), STRING_ONE)}, STRING_ONE),
    "string_slice_claims_its_extent": ({b"x": _full(7, 300_000_000),
                                        _slice_key([(0, -1)]): _part(7, (300_000_000,), STRING_ONE)},
                                       STRING_ONE),
    "slice_shape_transposed": ({b"x": BundleEntryProto(dtype=1, shape=_shape(1, 2), slices=[
        TensorSliceProto(extent=[TensorSliceProto.Extent(), TensorSliceProto.Extent()])]),
        _slice_key([(0, -1), (0, -1)]): BundleEntryProto(
            dtype=1, shape=_shape(2, 1), size=8, crc32c=crc32c.mask(crc32c.value(b"\x00" * 8)))},
        b"\x00" * 8),
    "slice_listed_twice": ({b"x": _full(1, 2, [_half(0, 1), _half(0, 1)]),
                            _slice_key([(0, 1)]): _part(1, (1,), FOUR)}, FOUR),
    "slices_share_bytes": ({b"x": _full(1, 2, [_half(0, 1), _half(1, 1)]),
                            _slice_key([(0, 1)]): _part(1, (1,), FOUR),
                            _slice_key([(1, 1)]): _part(1, (1,), FOUR)}, FOUR),
    "slice_outside_file": ({b"x": _full(1, 2, [_half(0, 1), _half(1, 1)]),
                            _slice_key([(0, 1)]): _part(1, (1,), FOUR),
                            _slice_key([(1, 1)]): _part(1, (1,), FOUR, offset=4)}, FOUR),
}


def _hostile_raw(tmp_path, entries, data, name="hs"):
    prefix = str(tmp_path / name)
    header = BundleHeaderProto(num_shards=1, version=VersionDef(producer=1))
    items = [(b"", header.encode())] + sorted((k, v.encode()) for k, v in entries.items())
    with open(prefix + ".index", "wb") as f:
        f.write(build_table(items))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(data)
    return prefix


@pytest.mark.parametrize("case", sorted(HOSTILE_SLICED))
def test_hostile_sliced_entries(tmp_path, case):
    entries, data = HOSTILE_SLICED[case]
    prefix = _hostile_raw(tmp_path, entries, data)
    methods = ["read"] + ([] if "string" in case else ["read_torch"])
    for method in methods:
        with BundleReader(prefix) as r:
            assert r.keys() == ["x"]
            with pytest.raises(DataLossError) as e:
                getattr(r, method)("x")
            assert "'x'" in str(e.value) and "hs." in str(e.value)
    reader = tf.train.load_checkpoint(prefix)
    with pytest.raises(DataLossError):
        reader.get_tensor("x")


def test_sound_slices_still_read(tmp_path):
    # the two-slice layouts above, written soundly, read back
    data = FOUR + b"\x04\x05\x06\x07"
    a, b = np.frombuffer(FOUR, np.float32), np.frombuffer(data[4:], np.float32)
    prefix = _hostile_raw(tmp_path, {
        b"x": _full(1, 2, [_half(0, 1), _half(1, 1)]),
        _slice_key([(0, 1)]): _part(1, (1,), FOUR),
        _slice_key([(1, 1)]): _part(1, (1,), data[4:], offset=4)}, data)
    with BundleReader(prefix) as r:
        assert r.read("x").tolist() == [a[0], b[0]]


_UNDER_LIMIT = r'''
import resource, sys
sys.path.insert(0, {root!r})
from tfcompat.train.format.tensor_bundle import BundleReader
from tfcompat.framework.errors import DataLossError
with open("/proc/self/statm") as f:
    used = int(f.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (512 << 20), resource.RLIM_INFINITY))
for prefix in sys.argv[1:]:
    with BundleReader(prefix) as r:
        for method in ("read", "read_torch"):
            try:
                getattr(r, method)("x")
            except DataLossError:
                print("DataLossError")
            except TypeError:
                print("DataLossError")  # read_torch of a string tensor: not torch's
            except MemoryError:
                print("MemoryError")
'''


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_hostile_sliced_entries_allocate_nothing_big(tmp_path):
    # Under an address-space limit of 512 MiB beyond what is mapped, each claim (4-16 GB)
    # would be a MemoryError if anything were allocated before the checks.
    import subprocess
    import sys
    prefixes = [_hostile_raw(tmp_path, *HOSTILE_SLICED[case], name=case) for case in sorted(HOSTILE_SLICED)]
    root = str(__import__("pathlib").Path(__file__).resolve().parents[3])
    out = subprocess.run([sys.executable, "-c", _UNDER_LIMIT.format(root=root)] + prefixes,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["DataLossError"] * (2 * len(prefixes))
