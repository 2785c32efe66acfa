"""CRC32C and LevelDB's masking (known vectors from RFC 3720 and LevelDB's crc32c_test)."""

import numpy as np
from hypothesis import given, strategies as st

from tfcompat.train.format import crc32c


def test_known_vectors():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.value(bytes(32)) == 0x8A9136AA            # RFC 3720 B.4
    assert crc32c.value(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.value(bytes(range(32))) == 0x46DD794E
    assert crc32c.value(b"") == 0


@given(st.binary(max_size=200), st.binary(max_size=200))
def test_extend_and_buffers(a, b):
    whole = crc32c.value(a + b)
    assert crc32c.extend(crc32c.value(a), b) == whole
    assert crc32c.value(bytearray(a + b)) == whole
    assert crc32c.value(memoryview(a + b)) == whole
    assert crc32c.value(np.frombuffer(a + b, np.uint8)) == whole


def test_numpy_arrays_in_place():
    arr = np.arange(1000, dtype=np.float64)
    assert crc32c.value(arr) == crc32c.value(arr.tobytes())
    arr.flags.writeable = False
    assert crc32c.value(arr) == crc32c.value(arr.tobytes())


@given(st.integers(0, 0xFFFFFFFF))
def test_mask_round_trip(c):
    assert crc32c.unmask(crc32c.mask(c)) == c


def test_mask_values():
    c = crc32c.value(b"foo")
    assert c != crc32c.mask(c) != crc32c.mask(crc32c.mask(c))  # LevelDB's crc32c_test
    assert crc32c.mask(0) == 0xA282EAD8  # what TF stores for an empty tensor
