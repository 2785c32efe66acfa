"""The .index sorted table: TF's layout reproduced, block splitting, block types, damage."""

import struct
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.train.format import crc32c
from tfcompat.train.format.table import (FOOTER_SIZE, MAGIC, TableWriter, _shortest_separator,
                                         _short_successor, build_table, read_table)
from tfcompat.train.format.wire import decode_varint, encode_varint

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize("index", sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.index")))
def test_rebuilding_tf_indexes_gives_tf_bytes(index):
    data = (FIXTURES / index).read_bytes()
    assert build_table(read_table(data, index)) == data
    assert struct.unpack("<Q", data[-8:])[0] == MAGIC


@given(st.lists(st.tuples(st.binary(max_size=40), st.binary(max_size=300)), max_size=120),
       st.sampled_from([64, 256, 4096]))
def test_round_trip_with_many_blocks(items, block_size):
    items = sorted(dict(items).items())
    data = build_table(items, block_size=block_size)
    assert read_table(data, "t") == items


def _handles(data):
    """(offset, size) of every data block, from the index block."""
    footer = len(data) - FOOTER_SIZE
    _, pos = decode_varint(data, footer)
    _, pos = decode_varint(data, pos)
    index_off, pos = decode_varint(data, pos)
    index_size, _ = decode_varint(data, pos)
    return [(off, size) for off, size in (_handle(v) for _, v in _entries(data[index_off:index_off + index_size]))]


def _handle(v):
    off, p = decode_varint(v, 0)
    return off, decode_varint(v, p)[0]


def _entries(block):
    """(key, value) of a raw block, and checks each restart point is an entry with shared == 0."""
    n = struct.unpack("<I", block[-4:])[0]
    end = len(block) - 4 - 4 * n
    restarts = struct.unpack(f"<{n}I", block[end:-4])
    out, key, pos, starts = [], b"", 0, []
    while pos < end:
        starts.append(pos)
        shared, pos = decode_varint(block, pos)
        unshared, pos = decode_varint(block, pos)
        vlen, pos = decode_varint(block, pos)
        key = key[:shared] + block[pos:pos + unshared]
        out.append((key, block[pos + unshared:pos + unshared + vlen]))
        pos += unshared + vlen
    _entries.restart_entries = [starts.index(r) for r in restarts]
    return out


def test_blocks_split_at_block_size_and_restart_every_16():
    items = [(b"key%05d" % i, b"v" * 50) for i in range(400)]
    data = build_table(items, block_size=4096)
    handles = _handles(data)
    assert len(handles) == 6  # 400 entries of ~60 bytes in blocks cut once past 4096
    assert all(size >= 4096 for _, size in handles[:-1]) and all(size < 4096 + 80 for _, size in handles)
    first = _entries(data[:handles[0][1]])
    assert _entries.restart_entries == list(range(0, len(first), 16))
    assert read_table(data, "t") == items


def test_keys_must_increase():
    w = TableWriter()
    w.add(b"b", b"")
    with pytest.raises(ValueError):
        w.add(b"a", b"")
    with pytest.raises(ValueError):
        w.add(b"b", b"")


def test_separators_are_leveldb_s():
    assert _shortest_separator(b"abcdefg", b"abzzz") == b"abd"
    assert _shortest_separator(b"abc", b"abd") == b"abc"        # no room between
    assert _shortest_separator(b"ab", b"abc") == b"ab"          # prefix
    assert _shortest_separator(b"a\xff\x01", b"b") == b"a\xff\x01"
    assert _short_successor(b"abc") == b"b"
    assert _short_successor(b"\xff\xffa") == b"\xff\xffb"
    assert _short_successor(b"\xff\xff") == b"\xff\xff"


def _first_block_retyped(data, block_type):
    """The table with its first data block's type byte replaced (CRC recomputed to match)."""
    off, size = _handles(data)[0]
    assert off == 0
    trailer = bytes((block_type,))
    crc = struct.pack("<I", crc32c.mask(crc32c.extend(crc32c.value(data[:size]), trailer)))
    return data[:size] + trailer + crc + data[size + 5:]


def test_unknown_block_type():
    data = build_table([(b"a", b"1")])
    with pytest.raises(tf.errors.DataLossError, match="Unknown block type 7"):
        read_table(_first_block_retyped(data, 7), "x.index")


def _snappy_literals(raw):
    """A raw snappy stream holding `raw` as literals (valid snappy, no compression)."""
    out = bytearray(encode_varint(len(raw)))
    for i in range(0, len(raw), 60):
        chunk = raw[i:i + 60]
        out.append((len(chunk) - 1) << 2)
        out += chunk
    return bytes(out)


def _unsnappy_literals(data):
    n, pos = decode_varint(data, 0)
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        if tag & 3 or tag >> 2 >= 60:
            raise ValueError("only short literals here")
        length = (tag >> 2) + 1
        out += data[pos + 1:pos + 1 + length]
        pos += 1 + length
    if len(out) != n:
        raise ValueError("bad length")
    return bytes(out)


def _snappy_table(items, corrupt=False):
    # A table as LevelDB writes one with snappy compression on (TF never does).
    from tfcompat.train.format.table import _BlockBuilder
    block = _BlockBuilder(16)
    for k, v in items:
        block.add(k, v)
    out = bytearray()

    def put(contents, block_type):
        handle = encode_varint(len(out)) + encode_varint(len(contents))
        trailer = bytes((block_type,))
        out.extend(contents + trailer + struct.pack("<I", crc32c.mask(crc32c.extend(crc32c.value(contents), trailer))))
        return handle

    stream = _snappy_literals(block.finish())
    if corrupt:
        stream = b"\x7f" + stream[1:]  # a wrong uncompressed length
    data_handle = put(stream, 1)
    meta = put(_BlockBuilder(16).finish(), 0)
    index = _BlockBuilder(1)
    index.add(items[-1][0] + b"\x00", data_handle)
    index_handle = put(index.finish(), 0)
    out += (meta + index_handle).ljust(40, b"\0") + struct.pack("<Q", MAGIC)
    return bytes(out)


def test_snappy_block_without_a_decoder(monkeypatch):
    items = [(b"a", b"1" * 100), (b"b", b"2")]
    monkeypatch.setitem(sys.modules, "cramjam", None)  # import fails
    monkeypatch.setitem(sys.modules, "snappy", None)
    with pytest.raises(tf.errors.DataLossError, match="pip install cramjam") as e:
        read_table(_snappy_table(items), "x.index")
    assert "x.index" in str(e.value)


def test_snappy_block_with_a_decoder(monkeypatch):
    items = [(b"a", b"1" * 100), (b"b", b"2")]
    try:
        import cramjam  # noqa: F401  (the real one, when installed)
    except ImportError:
        fake = types.ModuleType("cramjam")
        fake.snappy = types.SimpleNamespace(decompress_raw=_unsnappy_literals)
        monkeypatch.setitem(sys.modules, "cramjam", fake)
    assert read_table(_snappy_table(items), "x.index") == items
    with pytest.raises(tf.errors.DataLossError, match="corrupted snappy block"):
        read_table(_snappy_table(items, corrupt=True), "x.index")
