"""The protobuf wire-format codec: round trips, protoc's encodings, malformed input."""

import struct

import pytest
from hypothesis import given, strategies as st

from tfcompat.train.format.wire import DecodeError, Field, Message, decode_varint, encode_varint

I32 = st.integers(-(1 << 31), (1 << 31) - 1)
I64 = st.integers(-(1 << 63), (1 << 63) - 1)
U32 = st.integers(0, (1 << 32) - 1)
U64 = st.integers(0, (1 << 64) - 1)
F32 = st.floats(width=32, allow_nan=False)
F64 = st.floats(allow_nan=False)

KIND_VALUES = {
    "int32": I32, "int64": I64, "uint32": U32, "uint64": U64, "sint32": I32, "sint64": I64,
    "bool": st.booleans(), "enum": I32, "fixed32": U32, "fixed64": U64, "sfixed32": I32,
    "sfixed64": I64, "float": F32, "double": F64, "string": st.text(), "bytes": st.binary(),
}
KINDS = sorted(KIND_VALUES)


class Inner(Message):
    FIELDS = (Field(1, "a", "int32"), Field(2, "s", "string"), Field(3, "xs", "sint64", repeated=True))


class AllKinds(Message):
    FIELDS = tuple(Field(i + 1, k, k) for i, k in enumerate(KINDS)) + tuple(
        Field(i + 101, "r_" + k, k, repeated=True) for i, k in enumerate(KINDS)) + (
        Field(200, "inner", "message", message=Inner),
        Field(201, "inners", "message", repeated=True, message=Inner),
        Field(202, "unpacked", "int64", repeated=True, packed=False),
    )


class Node(Message):
    FIELDS = (Field(1, "child", "message", message=lambda: Node), Field(2, "v", "int32"))


inner_st = st.builds(Inner, a=I32, s=st.text(max_size=5), xs=st.lists(I64, max_size=3))


@st.composite
def all_kinds(draw):
    kwargs = {}
    for k in KINDS:
        kwargs[k] = draw(KIND_VALUES[k])
        kwargs["r_" + k] = draw(st.lists(KIND_VALUES[k], max_size=4))
    kwargs["inner"] = draw(st.none() | inner_st)
    kwargs["inners"] = draw(st.lists(inner_st, max_size=3))
    kwargs["unpacked"] = draw(st.lists(I64, max_size=3))
    return AllKinds(**kwargs)


@given(all_kinds())
def test_round_trip_every_kind(msg):
    data = msg.encode()
    back = AllKinds.decode(data)
    assert back == msg
    assert back.encode() == data
    assert AllKinds.decode(memoryview(data)) == msg


@given(U64)
def test_varint_round_trip(v):
    enc = encode_varint(v)
    assert len(enc) <= 10
    assert decode_varint(enc, 0) == (v, len(enc))


# protoc's bytes for known values (the protobuf encoding spec's examples).
@pytest.mark.parametrize("kind,value,expected", [
    ("int32", 150, b"\x08\x96\x01"),
    ("int32", -1, b"\x08" + b"\xff" * 9 + b"\x01"),          # 10-byte varint
    ("int64", -2, b"\x08\xfe" + b"\xff" * 8 + b"\x01"),
    ("enum", -1, b"\x08" + b"\xff" * 9 + b"\x01"),
    ("sint32", -1, b"\x08\x01"), ("sint32", 1, b"\x08\x02"), ("sint64", -(1 << 63), b"\x08" + b"\xff" * 9 + b"\x01"),
    ("uint64", (1 << 64) - 1, b"\x08" + b"\xff" * 9 + b"\x01"),
    ("bool", True, b"\x08\x01"),
    ("fixed32", 1, b"\x0d\x01\x00\x00\x00"), ("sfixed64", -1, b"\x09" + b"\xff" * 8),
    ("float", 1.5, b"\x0d" + struct.pack("<f", 1.5)), ("double", -0.0, b"\x09" + struct.pack("<d", -0.0)),
    ("string", "testing", b"\x0a\x07testing"), ("bytes", b"\x00\xff", b"\x0a\x02\x00\xff"),
])
def test_known_encodings(kind, value, expected):
    cls = type("M", (Message,), {"FIELDS": (Field(1, "f", kind),)})
    assert cls(f=value).encode() == expected
    assert cls.decode(expected).f == value


@pytest.mark.parametrize("kind", KINDS)
def test_defaults_not_written(kind):
    cls = type("M", (Message,), {"FIELDS": (Field(1, "f", kind), Field(2, "r", kind, repeated=True))})
    assert cls().encode() == b""
    m = cls.decode(b"")
    assert m.f == Field(1, "f", kind).default() and m.r == []


def test_packed_and_unpacked_decode_the_same():
    cls = type("M", (Message,), {"FIELDS": (Field(4, "d", "sint32", repeated=True),
                                             Field(5, "f", "float", repeated=True))})
    m = cls(d=[3, 270, -86942], f=[1.0, -2.5])
    packed = m.encode()
    # packed: one LEN record per field, as protoc writes proto3 repeated scalars
    assert packed[:2] == b"\x22\x06"
    unpacked = b"".join(b"\x20" + encode_varint((v << 1) ^ (v >> 63)) for v in m.d) + b"".join(
        b"\x2d" + struct.pack("<f", v) for v in m.f)
    assert cls.decode(unpacked) == m
    # a mixture (packed then unpacked) appends, as protobuf does
    assert cls.decode(packed + unpacked).d == m.d * 2


def test_unpacked_encoding_when_asked():
    m = AllKinds(unpacked=[1, -1])
    assert m.encode() == b"\xd0\x0c\x01\xd0\x0c" + b"\xff" * 9 + b"\x01"


def test_unknown_fields_skipped_and_kept():
    known = Inner(a=7, s="x")
    unknown = (b"\xa0\x06\x05"             # field 100 varint
               b"\xa9\x06" + b"\x00" * 8 +  # field 101 fixed64
               b"\xb5\x06" + b"\x00" * 4 +  # field 102 fixed32
               b"\xba\x06\x03abc" +         # field 103 bytes
               b"\xc3\x06\x08\x01\xc4\x06")  # field 104 group containing field 1 = 1
    m = Inner.decode(unknown + known.encode())
    assert m == known
    assert Inner.decode(m.encode()) == known
    assert unknown in m.encode()


def test_last_scalar_wins_and_messages_merge():
    cls = type("M", (Message,), {"FIELDS": (Field(1, "a", "int32"), Field(2, "m", "message", message=Inner))})
    data = cls(a=1, m=Inner(a=5, xs=[1])).encode() + cls(a=2, m=Inner(s="q", xs=[2])).encode()
    m = cls.decode(data)
    assert m.a == 2 and m.m == Inner(a=5, s="q", xs=[1, 2])


def test_empty_submessage_is_written():
    cls = type("M", (Message,), {"FIELDS": (Field(1, "m", "message", message=Inner),)})
    assert cls(m=Inner()).encode() == b"\x0a\x00"
    assert cls.decode(b"\x0a\x00").m == Inner()
    assert cls.decode(b"").m is None


def test_presence_field_writes_default():
    cls = type("M", (Message,), {"FIELDS": (Field(1, "o", "int32", presence=True),)})
    assert cls(o=0).encode() == b"\x08\x00"
    assert cls().encode() == b""
    assert cls.decode(b"\x08\x00").o == 0 and cls.decode(b"").o is None


@pytest.mark.parametrize("data", [
    b"\x08",                       # tag without value
    b"\x08\x96",                   # truncated varint
    b"\x08" + b"\xff" * 10 + b"\x01",  # 11-byte varint
    b"\x08" + b"\xff" * 9 + b"\x7f",   # 10 bytes but over 64 bits
    b"\x12\x05ab",                 # length past the end
    b"\x12" + b"\xff" * 9 + b"\x01",  # absurd length
    b"\x0e",                       # wire type 6
    b"\x0f",                       # wire type 7
    b"\x0a\x00",                   # field 1 is int32 but sent as LEN
    b"\x12\x02\xff\xfe",           # invalid UTF-8 in a string
    b"\x00\x00",                   # field number 0
    b"\xa3\x06\x08",               # unterminated group
    b"\x1a\x05\x08",               # packed length past the end
    b"\x1a\x01\x80",               # truncated varint inside packed
])
def test_malformed_raises_decode_error(data):
    with pytest.raises(DecodeError):
        Inner.decode(data)


def test_truncation_anywhere_raises_or_parses_prefix():
    msg = AllKinds(string="hello", r_int64=[-1, 2], inner=Inner(a=-3, xs=[5]), double=2.5)
    data = msg.encode()
    for cut in range(len(data)):
        try:
            AllKinds.decode(data[:cut])
        except DecodeError:
            continue
        # a cut at a field boundary is a valid (shorter) message -- never anything else


def test_depth_limit():
    node = Node(v=1)
    for _ in range(150):
        node = Node(child=node)
    data = node.encode()
    with pytest.raises(DecodeError, match="max_depth"):
        Node.decode(data)
    assert Node.decode(data, max_depth=200) == node
    # a hostile stream of nested unknown groups is bounded too
    with pytest.raises(DecodeError):
        Inner.decode(b"\xa3\x06" * 200 + b"\xa4\x06" * 200)


def test_encode_rejects_out_of_range_and_wrong_types():
    cls = type("M", (Message,), {"FIELDS": (Field(1, "i", "int32"), Field(2, "u", "uint32"),
                                             Field(3, "s", "string"))})
    with pytest.raises(ValueError):
        cls(i=1 << 31).encode()
    with pytest.raises(ValueError):
        cls(u=-1).encode()
    with pytest.raises(TypeError):
        cls(s=b"x").encode()
    with pytest.raises(TypeError):
        cls(nope=1)


def test_repr_and_eq():
    a = Inner(a=1, xs=[2])
    assert repr(a) == "Inner(a=1, xs=[2])"
    assert a == Inner(a=1, xs=[2]) and a != Inner(a=1)
    assert a.SerializeToString() == a.encode() and Inner.FromString(a.encode()) == a
