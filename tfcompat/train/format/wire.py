"""A small protocol-buffer wire-format codec (proto3), enough for TF's checkpoint protos.

Checkpoints carry a handful of protobuf messages (`BundleHeaderProto`,
`BundleEntryProto`, `TrackableObjectGraph`, ...). Rather than depend on the
`protobuf` package and generated `_pb2` modules, a message is declared as a
`Message` subclass listing its `Field`s (number, name, kind) and this module
encodes and decodes the binary wire format:

* encoding writes fields in number order; proto3 defaults (0, "", b"", False,
  empty lists, unset messages) are not written; repeated scalars are packed
  (as protoc does for proto3) unless the field says `packed=False`;
* decoding accepts packed and unpacked repeated scalars, merges a repeated
  occurrence of a singular message field (protobuf's merge semantics), keeps
  the last value of a singular scalar, and skips (and keeps, for re-encoding)
  fields it does not know;
* anything malformed -- truncation, a varint longer than 10 bytes, a length
  past the end of the buffer, wire types 6/7, a known field with the wrong
  wire type, invalid UTF-8 in a `string`, nesting beyond `max_depth` --
  raises `DecodeError` (a `ValueError`). Nothing is allocated from a length
  before that length is checked against the bytes actually present.
"""

from __future__ import annotations

import operator
import struct
from typing import Any, ClassVar, Iterator, Optional, Union

__all__ = ["DecodeError", "Field", "Message", "encode_varint", "decode_varint"]

Buffer = Union[bytes, bytearray, memoryview]


class DecodeError(ValueError):
    """Malformed protobuf bytes (truncated, bad wire type or length, too deep)."""


# Wire types.
VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5

_VARINT_KINDS = frozenset({"int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool", "enum"})
_FIXED32_KINDS = {"fixed32": "<I", "sfixed32": "<i", "float": "<f"}
_FIXED64_KINDS = {"fixed64": "<Q", "sfixed64": "<q", "double": "<d"}
_LEN_KINDS = frozenset({"string", "bytes", "message"})
KINDS = _VARINT_KINDS | set(_FIXED32_KINDS) | set(_FIXED64_KINDS) | _LEN_KINDS

# Inclusive integer ranges, checked on encode so an out-of-range value fails
# loudly instead of being silently truncated on the wire.
_RANGES = {
    "int32": (-(1 << 31), (1 << 31) - 1), "sint32": (-(1 << 31), (1 << 31) - 1),
    "sfixed32": (-(1 << 31), (1 << 31) - 1), "enum": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1), "sint64": (-(1 << 63), (1 << 63) - 1),
    "sfixed64": (-(1 << 63), (1 << 63) - 1),
    "uint32": (0, (1 << 32) - 1), "fixed32": (0, (1 << 32) - 1),
    "uint64": (0, (1 << 64) - 1), "fixed64": (0, (1 << 64) - 1),
}
_MASK64 = (1 << 64) - 1


def _wire_type(kind: str) -> int:
    if kind in _VARINT_KINDS:
        return VARINT
    if kind in _FIXED32_KINDS:
        return I32
    if kind in _FIXED64_KINDS:
        return I64
    return LEN


# -- varints -----------------------------------------------------------------

def encode_varint(value: int) -> bytes:
    """The base-128 varint of a non-negative integer below 2**64."""
    if value < 0 or value > _MASK64:
        raise ValueError(f"varint out of range: {value}")
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: Buffer, pos: int, end: Optional[int] = None) -> tuple[int, int]:
    """Decodes a varint at `data[pos:]`: `(value, new_pos)`; at most 10 bytes, below 2**64."""
    if end is None:
        end = len(data)
    if pos < end:
        b = data[pos]
        if b < 0x80:
            return b, pos + 1
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise DecodeError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift >= 70:
            raise DecodeError("varint longer than 10 bytes")
    if result > _MASK64:
        raise DecodeError("varint exceeds 64 bits")
    return result, pos


_SMALL_VARINTS = [bytes((i,)) for i in range(0x80)]


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63) if value < 0 else value << 1


def _unzigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def _to_signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


# -- fields ------------------------------------------------------------------

class Field:
    """One field of a `Message`: `Field(number, name, kind, repeated=False, message=None, packed=None)`.

    `kind` is a protobuf scalar type name (`"int32"`, `"sint64"`, `"double"`,
    `"string"`, `"bytes"`, ...) or `"message"`, in which case `message` is the
    `Message` subclass (or a zero-argument callable returning it, for
    recursive or later-defined types). `packed` applies to repeated scalars:
    `None` means proto3's default (packed). `presence=True` marks a proto3
    `optional`/`oneof` member: its value is written even when it equals the
    default, and `None` means unset.
    """

    __slots__ = ("number", "name", "kind", "repeated", "_message", "packed", "presence", "wire_type",
                 "tag", "len_tag", "small_is_raw", "unpack")

    def __init__(self, number: int, name: str, kind: str, repeated: bool = False,
                 message: Any = None, packed: Optional[bool] = None, presence: bool = False) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown field kind {kind!r} for field {name!r}")
        if not 1 <= number < (1 << 29) or 19000 <= number <= 19999:
            raise ValueError(f"invalid field number {number} for field {name!r}")
        if (kind == "message") != (message is not None):
            raise ValueError(f"field {name!r}: `message` is given exactly when kind == 'message'")
        if packed and (not repeated or kind in _LEN_KINDS):
            raise ValueError(f"field {name!r}: only repeated scalar fields can be packed")
        self.number = number
        self.name = name
        self.kind = kind
        self.repeated = repeated
        self._message = message
        self.packed = repeated and kind not in _LEN_KINDS and packed is not False
        self.presence = presence
        self.wire_type = _wire_type(kind)
        self.tag = encode_varint((number << 3) | self.wire_type)  # (precomputed: encode is hot)
        self.len_tag = encode_varint((number << 3) | LEN)
        # A one-byte varint is the value itself for these kinds (not zigzag, not bool).
        self.small_is_raw = kind in ("int32", "int64", "uint32", "uint64", "enum")
        fmt = _FIXED32_KINDS.get(kind) or _FIXED64_KINDS.get(kind)
        self.unpack = struct.Struct(fmt).unpack_from if fmt else None

    @property
    def message(self) -> Optional[type]:
        m = self._message
        if m is None or (isinstance(m, type) and issubclass(m, Message)):
            return m
        m = m()  # a lazy reference
        self._message = m
        return m

    def default(self) -> Any:
        if self.repeated:
            return []
        if self.kind == "message" or self.presence:
            return None
        return _SCALAR_DEFAULTS[self.kind]

    def __repr__(self) -> str:
        return f"Field({self.number}, {self.name!r}, {self.kind!r}{', repeated=True' if self.repeated else ''})"


_SCALAR_DEFAULTS: dict[str, Any] = {k: 0 for k in _VARINT_KINDS | set(_FIXED32_KINDS) | set(_FIXED64_KINDS)}
_SCALAR_DEFAULTS.update({"bool": False, "float": 0.0, "double": 0.0, "string": "", "bytes": b""})


# -- scalar encoding ---------------------------------------------------------

def _check_int(field: Field, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = operator.index(value)  # numpy integers
        except TypeError:
            raise TypeError(f"field {field.name!r} ({field.kind}) needs an int, got {type(value).__name__}") from None
    lo, hi = _RANGES.get(field.kind, (None, None))
    if lo is not None and not lo <= value <= hi:
        raise ValueError(f"field {field.name!r}: {value} out of range for {field.kind}")
    return value


def _encode_varint_value(field: Field, value: Any) -> bytes:
    kind = field.kind
    if kind == "bool":
        return b"\x01" if value else b"\x00"
    if type(value) is int and 0 <= value < 0x80 and kind not in ("sint32", "sint64"):
        return _SMALL_VARINTS[value]
    v = _check_int(field, value)
    if kind in ("sint32", "sint64"):
        v = _zigzag(v)
    return encode_varint(v & _MASK64)


def _encode_fixed(field: Field, value: Any) -> bytes:
    fmt = _FIXED32_KINDS.get(field.kind) or _FIXED64_KINDS[field.kind]
    if field.kind not in ("float", "double"):
        value = _check_int(field, value)
    return struct.pack(fmt, value)


def _encode_scalar(field: Field, value: Any) -> bytes:
    if field.wire_type == VARINT:
        return _encode_varint_value(field, value)
    return _encode_fixed(field, value)


def _encode_len_value(field: Field, value: Any) -> bytes:
    if field.kind == "string":
        if not isinstance(value, str):
            raise TypeError(f"field {field.name!r} (string) needs a str, got {type(value).__name__}")
        return value.encode("utf-8")
    if field.kind == "bytes":
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError(f"field {field.name!r} (bytes) needs bytes, got {type(value).__name__}")
        return bytes(value)
    if not isinstance(value, field.message):
        raise TypeError(f"field {field.name!r} needs a {field.message.__name__}, got {type(value).__name__}")
    return value.encode()


# -- scalar decoding ---------------------------------------------------------

def _decode_varint_value(kind: str, raw: int) -> Any:
    if kind in ("int64",):
        return _to_signed(raw, 64)
    if kind in ("int32", "enum"):
        return _to_signed(raw, 32)
    if kind == "uint32":
        return raw & 0xFFFFFFFF
    if kind == "uint64":
        return raw
    if kind == "bool":
        return raw != 0
    if kind == "sint32":
        return _to_signed(_unzigzag(raw & 0xFFFFFFFF), 32)
    return _unzigzag(raw)  # sint64


class Message:
    """A protobuf message: subclasses declare `FIELDS = (Field(...), ...)`.

    `Message(**kwargs)` sets fields by name; unset fields take proto3's
    defaults (0, "", b"", False, [] for repeated fields, None for a singular
    message). Fields are plain attributes. `encode()` / `decode(data)` are
    the binary wire format; `SerializeToString` / `FromString` are aliases
    for code written against protobuf's API.
    """

    FIELDS: ClassVar[tuple] = ()
    _BY_NUMBER: ClassVar[dict] = {}
    _BY_NAME: ClassVar[dict] = {}
    _SORTED: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        by_number: dict[int, Field] = {}
        by_name: dict[str, Field] = {}
        for f in cls.FIELDS:
            if f.number in by_number or f.name in by_name:
                raise ValueError(f"{cls.__name__}: duplicate field {f.name!r} / number {f.number}")
            by_number[f.number] = f
            by_name[f.name] = f
        cls._BY_NUMBER = by_number
        cls._BY_NAME = by_name
        cls._SORTED = tuple(sorted(cls.FIELDS, key=lambda f: f.number))
        cls._SCALAR_INIT = {f.name: f.default() for f in cls.FIELDS if not f.repeated}
        cls._REPEATED = tuple(f.name for f in cls.FIELDS if f.repeated)

    _SCALAR_INIT: ClassVar[dict] = {}
    _REPEATED: ClassVar[tuple] = ()

    def __init__(self, **kwargs: Any) -> None:
        d = self.__dict__
        d.update(self._SCALAR_INIT)
        for name in self._REPEATED:
            d[name] = []
        d["_unknown"] = b""
        for name, value in kwargs.items():
            f = self._BY_NAME.get(name)
            if f is None:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            setattr(self, name, list(value) if f.repeated else value)

    # -- encoding ----------------------------------------------------------
    def encode(self) -> bytes:
        """The message's binary wire format (fields in number order, defaults omitted)."""
        out: list[bytes] = []
        for f in self._SORTED:
            value = getattr(self, f.name)
            if f.repeated:
                if not value:
                    continue
                if f.packed:
                    body = b"".join(_encode_scalar(f, v) for v in value)
                    out += (f.len_tag, encode_varint(len(body)), body)
                elif f.wire_type == LEN:
                    tag = f.tag
                    for v in value:
                        body = _encode_len_value(f, v)
                        out += (tag, encode_varint(len(body)), body)
                else:
                    tag = f.tag
                    for v in value:
                        out += (tag, _encode_scalar(f, v))
                continue
            if value is None:
                if f.kind == "message" or f.presence:
                    continue
                raise TypeError(f"field {f.name!r} ({f.kind}) is None")
            if f.wire_type == LEN:
                if f.kind != "message" and not f.presence and not value:
                    continue
                body = _encode_len_value(f, value)
                out += (f.tag, encode_varint(len(body)), body)
            else:
                if not f.presence and not value and not _is_negative_zero(value):
                    continue
                out += (f.tag, _encode_scalar(f, value))
        if self._unknown:
            out.append(self._unknown)
        return b"".join(out)

    SerializeToString = encode

    # -- decoding ----------------------------------------------------------
    @classmethod
    def decode(cls, data: Buffer, *, max_depth: int = 100) -> "Message":
        """Parses the binary wire format; raises `DecodeError` on malformed input."""
        msg = cls()
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        msg._merge(view, 0, len(view), max_depth)
        return msg

    @classmethod
    def FromString(cls, data: Buffer) -> "Message":
        return cls.decode(data)

    def ParseFromString(self, data: Buffer) -> None:
        """Replaces this message's contents with the parsed `data` (protobuf's API)."""
        parsed = self.decode(data)
        self.__dict__.update(parsed.__dict__)

    def _merge(self, data: Buffer, pos: int, end: int, depth: int) -> None:
        # The hot loop of every checkpoint read: small varints (tags, dtypes,
        # dims, most sizes) are decoded inline.
        if depth <= 0:
            raise DecodeError(f"{type(self).__name__}: message nesting deeper than max_depth")
        by_number = self._BY_NUMBER
        d = self.__dict__
        unknown: list[bytes] = []
        while pos < end:
            start = pos
            tag = data[pos]
            if tag < 0x80:
                pos += 1
            else:
                tag, pos = decode_varint(data, pos, end)
            number, wt = tag >> 3, tag & 7
            f = by_number.get(number)
            if f is None:
                if number == 0:
                    raise DecodeError("field number 0")
                pos = _skip(data, pos, end, wt, number, depth)
                unknown.append(bytes(data[start:pos]))
                continue
            if wt != f.wire_type:
                if wt == LEN and f.repeated and f.wire_type != LEN:
                    pos = self._read_packed(f, data, pos, end)
                    continue
                raise DecodeError(
                    f"{type(self).__name__}.{f.name} (field {number}): wire type {wt}, "
                    f"expected {f.wire_type}")
            if wt == VARINT:
                if pos < end and data[pos] < 0x80 and f.small_is_raw:
                    value = data[pos]
                    pos += 1
                else:
                    raw, pos = decode_varint(data, pos, end)
                    value = _decode_varint_value(f.kind, raw)
            elif wt == LEN:
                if pos < end and data[pos] < 0x80:
                    length = data[pos]
                    pos += 1
                else:
                    length, pos = decode_varint(data, pos, end)
                if length > end - pos:
                    raise DecodeError(
                        f"{type(self).__name__}.{f.name}: length {length} runs past the end of the data")
                stop = pos + length
                kind = f.kind
                if kind == "message":
                    value = None if f.repeated else d[f.name]
                    if value is None:
                        value = f.message()
                    value._merge(data, pos, stop, depth - 1)
                elif kind == "string":
                    try:
                        value = bytes(data[pos:stop]).decode("utf-8")
                    except UnicodeDecodeError as e:
                        raise DecodeError(f"{type(self).__name__}.{f.name}: invalid UTF-8 ({e})") from None
                else:
                    value = bytes(data[pos:stop])
                pos = stop
            else:
                n = 4 if wt == I32 else 8
                if pos + n > end:
                    raise DecodeError(f"{type(self).__name__}.{f.name}: truncated fixed-width value")
                value = f.unpack(data, pos)[0]
                pos += n
            if f.repeated:
                d[f.name].append(value)
            else:
                d[f.name] = value
        if unknown:
            self._unknown += b"".join(unknown)

    def _read_packed(self, f: Field, data: Buffer, pos: int, end: int) -> int:
        length, pos = decode_varint(data, pos, end)
        if length > end - pos:
            raise DecodeError(f"{type(self).__name__}.{f.name}: packed length {length} runs past the end")
        stop = pos + length
        out = getattr(self, f.name)
        if f.wire_type == VARINT:
            kind = f.kind
            while pos < stop:
                raw, pos = decode_varint(data, pos, stop)
                out.append(_decode_varint_value(kind, raw))
        else:
            n = 4 if f.wire_type == I32 else 8
            if length % n:
                raise DecodeError(f"{type(self).__name__}.{f.name}: packed length {length} not a multiple of {n}")
            fmt = (_FIXED32_KINDS.get(f.kind) or _FIXED64_KINDS[f.kind])
            out.extend(struct.unpack_from(f"<{length // n}{fmt[1]}", data, pos))
            pos = stop
        return pos

    # -- protocol ----------------------------------------------------------
    def _values(self) -> Iterator[tuple[str, Any]]:
        for f in self._SORTED:
            yield f.name, getattr(self, f.name)

    def __eq__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in self._SORTED)

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        parts = []
        for f in self._SORTED:
            value = getattr(self, f.name)
            if value != f.default() or (f.presence and value is not None):
                parts.append(f"{f.name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def HasField(self, name: str) -> bool:
        """Whether a singular message (or presence) field is set (protobuf's API)."""
        f = self._BY_NAME.get(name)
        if f is None or f.repeated or not (f.kind == "message" or f.presence):
            raise ValueError(f"{type(self).__name__} has no singular message/optional field {name!r}")
        return getattr(self, name) is not None


def _is_negative_zero(value: Any) -> bool:
    # -0.0 == 0.0, but protoc writes -0.0 (its bits are not the default's).
    return isinstance(value, float) and value == 0.0 and struct.pack("<d", value)[7] & 0x80 != 0


def _skip(data: Buffer, pos: int, end: int, wt: int, number: int, depth: int) -> int:
    """Skips one unknown field's value; returns the position after it."""
    if wt == VARINT:
        return decode_varint(data, pos, end)[1]
    if wt == I64 or wt == I32:
        n = 8 if wt == I64 else 4
        if pos + n > end:
            raise DecodeError(f"unknown field {number}: truncated fixed-width value")
        return pos + n
    if wt == LEN:
        length, pos = decode_varint(data, pos, end)
        if length > end - pos:
            raise DecodeError(f"unknown field {number}: length {length} runs past the end")
        return pos + length
    if wt == SGROUP:
        if depth <= 1:
            raise DecodeError("group nesting deeper than max_depth")
        while True:
            if pos >= end:
                raise DecodeError(f"unterminated group {number}")
            tag, pos = decode_varint(data, pos, end)
            if tag & 7 == EGROUP:
                if tag >> 3 != number:
                    raise DecodeError(f"group {number} closed by end-group {tag >> 3}")
                return pos
            pos = _skip(data, pos, end, tag & 7, tag >> 3, depth - 1)
    raise DecodeError(f"field {number}: invalid wire type {wt}")

