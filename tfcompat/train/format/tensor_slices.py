"""Keys of sliced bundle entries (TF1 partitioned variables, size-sharded saves).

A tensor saved in slices has one entry under its own name (dtype, full
shape, the list of `TensorSliceProto`s, no data) and one entry per slice
under a key built with TF's *OrderedCode* (`checkpoint::EncodeTensorNameSlice`):

    NumIncreasing(0) String(name) NumIncreasing(rank) {SignedNumIncreasing(start) SignedNumIncreasing(length)}*

where a whole-dimension extent has start 0 and length -1. Such keys start
with a zero byte, so they sort before every ordinary name.
"""

from __future__ import annotations

from .protos import TensorSliceProto

__all__ = ["encode_tensor_name_slice", "slice_bounds", "is_slice_key"]


def _num_increasing(value: int) -> bytes:
    # One length byte, then the value big-endian without leading zero bytes.
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes((len(body),)) + body


def _escape(value: bytes) -> bytes:
    out = bytearray()
    for b in value:
        if b == 0x00:
            out += b"\x00\xff"
        elif b == 0xFF:
            out += b"\xff\x00"
        else:
            out.append(b)
    return bytes(out)


# Header bits OrderedCode puts on the first two bytes of an L-byte signed number.
_HEADER = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0), 6: (0xFC, 0),
           7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _signed_num_increasing(value: int) -> bytes:
    x = ~value if value < 0 else value
    if x < 64:
        return bytes(((0x80 ^ value) & 0xFF,))
    bits = x.bit_length()
    length = next(n for n in range(2, 11) if 7 * n - 1 >= bits)
    body = bytearray((value & ((1 << (8 * length)) - 1)).to_bytes(length, "big"))
    body[0] ^= _HEADER[length][0]
    body[1] ^= _HEADER[length][1]
    return bytes(body)


def slice_bounds(slice_proto: TensorSliceProto, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """`(start, length)` per dimension, a whole dimension as `(0, -1)` (TF's kFullExtent)."""
    if len(slice_proto.extent) != len(shape):
        raise ValueError(f"slice rank {len(slice_proto.extent)} does not match the tensor's rank {len(shape)}")
    out = []
    for ext in slice_proto.extent:
        out.append((0, -1) if ext.length is None else (ext.start, ext.length))
    return out


def encode_tensor_name_slice(name: bytes, bounds: list[tuple[int, int]]) -> bytes:
    """The bundle key of one slice of tensor `name` (TF's `EncodeTensorNameSlice`)."""
    out = [_num_increasing(0), _escape(name) + b"\x00\x01", _num_increasing(len(bounds))]
    for start, length in bounds:
        out.append(_signed_num_increasing(start))
        out.append(_signed_num_increasing(length))
    return b"".join(out)


def is_slice_key(key: bytes) -> bool:
    return key[:1] == b"\x00"
