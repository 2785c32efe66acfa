"""`tf.DType`: names, properties, conversions and comparisons, as TF 2.21.

Every expectation below was checked against TF 2.21 (the golden fixture's
`dtypes` section replays the same properties case by case); the torch
mapping is tfcompat's own contract (`DType.as_torch`, equality with torch
dtypes).
"""

from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import dtypes

# name, torch dtype, numpy type (TF's: ml_dtypes.bfloat16 for bfloat16), TF enum, bytes
TABLE = [
    ("float16", torch.float16, np.float16, 19, 2),
    ("bfloat16", torch.bfloat16, ml_dtypes.bfloat16, 14, 2),
    ("float32", torch.float32, np.float32, 1, 4),
    ("float64", torch.float64, np.float64, 2, 8),
    ("int8", torch.int8, np.int8, 6, 1),
    ("int16", torch.int16, np.int16, 5, 2),
    ("int32", torch.int32, np.int32, 3, 4),
    ("int64", torch.int64, np.int64, 9, 8),
    ("uint8", torch.uint8, np.uint8, 4, 1),
    ("bool", torch.bool, np.bool_, 10, 1),
    ("complex64", torch.complex64, np.complex64, 8, 8),
    ("complex128", torch.complex128, np.complex128, 18, 16),
]
NAMES = [row[0] for row in TABLE]

# name: (is_floating, is_integer, is_complex, is_unsigned, is_bool)
CLASSES = {
    "float16": (True, False, False, False, False),
    "bfloat16": (True, False, False, False, False),
    "float32": (True, False, False, False, False),
    "float64": (True, False, False, False, False),
    "int8": (False, True, False, False, False),
    "int16": (False, True, False, False, False),
    "int32": (False, True, False, False, False),
    "int64": (False, True, False, False, False),
    "uint8": (False, True, False, True, False),
    "bool": (False, False, False, False, True),
    "complex64": (False, False, True, False, False),
    "complex128": (False, False, True, False, False),
}


@pytest.mark.parametrize("name,torch_dtype,np_type,enum,size", TABLE, ids=NAMES)
def test_identity_and_mapping(name, torch_dtype, np_type, enum, size):
    d = getattr(tf, name)
    assert isinstance(d, tf.DType)
    assert d.name == name
    assert d.as_torch is torch_dtype
    assert d.as_datatype_enum == enum
    assert d.size == size
    assert d.base_dtype is d
    assert repr(d) == f"tf.{name}"
    assert str(d) == f"<dtype: '{name}'>"
    assert d.as_numpy_dtype is np_type
    assert dtypes.from_torch(torch_dtype) is d
    assert dtypes.to_torch(d) is torch_dtype
    assert dtypes.to_torch(name) is torch_dtype
    assert dtypes.to_torch(torch_dtype) is torch_dtype
    assert torch.zeros(2, dtype=d.as_torch).dtype is torch_dtype


@pytest.mark.parametrize("name", NAMES)
def test_classification(name):
    d = getattr(tf, name)
    assert (d.is_floating, d.is_integer, d.is_complex, d.is_unsigned, d.is_bool) == CLASSES[name]


def test_aliases_are_the_same_objects():
    assert tf.half is tf.float16
    assert tf.double is tf.float64
    assert tf.dtypes.float32 is tf.float32


@pytest.mark.parametrize("name,lo,hi", [
    ("int8", -128, 127), ("int16", -32768, 32767), ("int32", -2 ** 31, 2 ** 31 - 1),
    ("int64", -2 ** 63, 2 ** 63 - 1), ("uint8", 0, 255),
])
def test_integer_min_max(name, lo, hi):
    d = getattr(tf, name)
    assert (d.min, d.max) == (lo, hi)


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_float_min_max(name):
    d = getattr(tf, name)
    info = np.finfo(d.as_numpy_dtype)
    assert d.min == float(info.min) and d.max == float(info.max)


def test_bfloat16_min_max():
    assert tf.bfloat16.max == 3.3895313892515355e+38
    assert tf.bfloat16.min == -3.3895313892515355e+38


@pytest.mark.parametrize("name", ["bool", "complex64", "complex128"])
@pytest.mark.parametrize("prop", ["min", "max"])
def test_min_max_undefined(name, prop):
    # TF: "Cannot find minimum value of <dtype: 'bool'> with type <dtype: 'bool'>."
    with pytest.raises(TypeError, match=f"Cannot find {prop}imum value of"):
        getattr(getattr(tf, name), prop)


def test_real_dtype():
    assert tf.complex64.real_dtype is tf.float32
    assert tf.complex128.real_dtype is tf.float64
    assert tf.float16.real_dtype is tf.float16
    assert tf.int32.real_dtype is tf.int32


@pytest.mark.parametrize("value,expected", [
    ("float32", "float32"), ("float", "float32"), ("double", "float64"), ("half", "float16"),
    ("float64", "float64"), ("int32", "int32"), ("bool", "bool"), ("bfloat16", "bfloat16"),
    ("complex64", "complex64"), ("uint8", "uint8"),
    (np.float32, "float32"), (np.int64, "int64"), (np.bool_, "bool"), (np.uint8, "uint8"),
    (np.complex128, "complex128"), (np.dtype("float16"), "float16"), (np.dtype("int8"), "int8"),
    (ml_dtypes.bfloat16, "bfloat16"), (np.dtype(ml_dtypes.bfloat16), "bfloat16"),
    (float, "float32"), (bool, "bool"),
    (1, "float32"), (3, "int32"), (9, "int64"), (10, "bool"), (14, "bfloat16"), (19, "float16"),
    (torch.float32, "float32"), (torch.int64, "int64"), (torch.bfloat16, "bfloat16"),
    (torch.bool, "bool"),
])
def test_as_dtype(value, expected):
    assert tf.as_dtype(value) is getattr(tf, expected)


@pytest.mark.parametrize("value", ["foo", "int", 99, 1.5, None, int, complex, object()],
                         ids=["foo", "str_int", "enum99", "float", "None", "py_int",
                              "py_complex", "object"])
def test_as_dtype_rejects(value):
    # TF: "Cannot convert the argument `type_value`: ... to a TensorFlow DType."
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
        tf.as_dtype(value)


def test_as_dtype_passes_dtypes_through():
    for name in NAMES:
        d = getattr(tf, name)
        assert tf.as_dtype(d) is d


@pytest.mark.parametrize("other", ["float32", np.float32, np.dtype("float32"), 1, "float", float,
                                   torch.float32, tf.float32],
                         ids=["str", "nptype", "npdtype", "enum", "alias", "pyfloat", "torch",
                              "dtype"])
def test_equality_with_every_vocabulary(other):
    assert tf.float32 == other
    assert not (tf.float32 != other)


@pytest.mark.parametrize("other", ["int32", "foo", None, tf.float64, 1.5, torch.float64, np.int8],
                         ids=["str", "bad_str", "None", "dtype", "float", "torch", "nptype"])
def test_inequality(other):
    assert tf.float32 != other
    assert not (tf.float32 == other)


def test_python_types_compare_as_tf_does():
    # tf.as_dtype(int) is an error in TF, so tf.int32/int64 == int are False.
    assert tf.int32 != int and tf.int64 != int
    assert tf.bool == bool
    assert tf.float64 != float  # Python float means float32 to TF
    assert tf.bool != True  # noqa: E712 - a value, not a type


def test_hashing_and_dict_keys():
    table = {tf.float32: "f", tf.int64: "i"}
    assert table[tf.float32] == "f"
    assert table[tf.as_dtype("int64")] == "i"
    assert len({tf.float16, tf.half, tf.as_dtype("float16")}) == 1
    assert hash(tf.double) == hash(tf.float64)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_round_trip_keeps_identity(name):
    d = getattr(tf, name)
    assert pickle.loads(pickle.dumps(d)) is d


def test_is_compatible_with():
    assert tf.float32.is_compatible_with(tf.float32)
    assert tf.float32.is_compatible_with("float32")
    assert not tf.float32.is_compatible_with(tf.float64)
    assert not tf.int32.is_compatible_with("nonsense")


def test_from_torch_rejects_types_without_a_tf_counterpart():
    with pytest.raises(TypeError):
        dtypes.from_torch(torch.uint16)


def test_numpy_compatibility():
    # TF 2.21: every one of these is numpy-compatible, bfloat16 through ml_dtypes
    # (`tf.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16`, `is_numpy_compatible` True).
    for name in NAMES:
        d = getattr(tf, name)
        assert d.is_numpy_compatible
        assert np.dtype(d.as_numpy_dtype).name == name
        assert tf.as_dtype(np.dtype(d.as_numpy_dtype)) is d
