"""TF's checkpoint protos, declared for `wire`, and the `DataType` enum's numpy mapping.

Field numbers and types follow TF 2.21's descriptors (`tensor_bundle.proto`,
`tensor_shape.proto`, `tensor_slice.proto`, `versions.proto`,
`checkpoint_state.proto`, `types.proto`); the tests check them against
bytes TensorFlow wrote.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import torch

from ...framework import dtypes as _dtypes
from ...framework import type_attributes as _type_attributes
from .wire import Field, Message

__all__ = [
    "TensorShapeProto", "TensorSliceProto", "VersionDef", "BundleHeaderProto",
    "BundleEntryProto", "CheckpointState", "DataType", "numpy_dtype", "datatype_of",
    "tf_dtype", "shape_of", "shape_proto",
]


class TensorShapeProto(Message):
    """`tensorflow.TensorShapeProto`: `dim` (size -1 = unknown) and `unknown_rank`."""

    class Dim(Message):
        FIELDS = (Field(1, "size", "int64"), Field(2, "name", "string"))

    FIELDS = (Field(2, "dim", "message", repeated=True, message=Dim), Field(3, "unknown_rank", "bool"))


class TensorSliceProto(Message):
    """`tensorflow.TensorSliceProto`: one `Extent` per dimension.

    An extent without `length` (a `oneof` in TF, so presence matters) means
    the whole dimension.
    """

    class Extent(Message):
        FIELDS = (Field(1, "start", "int64"), Field(2, "length", "int64", presence=True))

    FIELDS = (Field(1, "extent", "message", repeated=True, message=Extent),)


class VersionDef(Message):
    """`tensorflow.VersionDef` (producer, min_consumer, bad_consumers)."""

    FIELDS = (Field(1, "producer", "int32"), Field(2, "min_consumer", "int32"),
              Field(3, "bad_consumers", "int32", repeated=True))


class BundleHeaderProto(Message):
    """`tensorflow.BundleHeaderProto`, stored under the empty key of a bundle's `.index`."""

    LITTLE = 0
    BIG = 1
    FIELDS = (Field(1, "num_shards", "int32"), Field(2, "endianness", "enum"),
              Field(3, "version", "message", message=VersionDef))


class BundleEntryProto(Message):
    """`tensorflow.BundleEntryProto`: where one tensor lives and its masked CRC32C."""

    FIELDS = (Field(1, "dtype", "enum"), Field(2, "shape", "message", message=TensorShapeProto),
              Field(3, "shard_id", "int32"), Field(4, "offset", "int64"), Field(5, "size", "int64"),
              Field(6, "crc32c", "fixed32"),
              Field(7, "slices", "message", repeated=True, message=TensorSliceProto))


class CheckpointState(Message):
    """`tensorflow.CheckpointState`: the `checkpoint` file's contents."""

    FIELDS = (Field(1, "model_checkpoint_path", "string"),
              Field(2, "all_model_checkpoint_paths", "string", repeated=True),
              Field(3, "all_model_checkpoint_timestamps", "double", repeated=True),
              Field(4, "last_preserved_timestamp", "double"))


# -- DataType ------------------------------------------------------------------

class DataType:
    """TF's `DataType` enum numbers for the types a checkpoint stores here."""

    DT_INVALID = 0
    DT_FLOAT = 1
    DT_DOUBLE = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 5
    DT_INT8 = 6
    DT_STRING = 7
    DT_COMPLEX64 = 8
    DT_INT64 = 9
    DT_BOOL = 10
    DT_BFLOAT16 = 14
    DT_UINT16 = 17
    DT_COMPLEX128 = 18
    DT_HALF = 19
    DT_RESOURCE = 20
    DT_VARIANT = 21
    DT_UINT32 = 22
    DT_UINT64 = 23


# Little-endian numpy dtypes, as TF writes them on every platform it supports.
_NUMPY = {
    DataType.DT_FLOAT: np.dtype("<f4"), DataType.DT_DOUBLE: np.dtype("<f8"),
    DataType.DT_HALF: np.dtype("<f2"), DataType.DT_BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DataType.DT_INT8: np.dtype("i1"), DataType.DT_INT16: np.dtype("<i2"),
    DataType.DT_INT32: np.dtype("<i4"), DataType.DT_INT64: np.dtype("<i8"),
    DataType.DT_UINT8: np.dtype("u1"), DataType.DT_UINT16: np.dtype("<u2"),
    DataType.DT_UINT32: np.dtype("<u4"), DataType.DT_UINT64: np.dtype("<u8"),
    DataType.DT_BOOL: np.dtype("?"), DataType.DT_COMPLEX64: np.dtype("<c8"),
    DataType.DT_COMPLEX128: np.dtype("<c16"), DataType.DT_STRING: np.dtype(object),
}
_BY_NUMPY = {v: k for k, v in _NUMPY.items() if k != DataType.DT_STRING}
_NAMES = {v: k[3:].lower() for k, v in vars(DataType).items() if k.startswith("DT_")}


class _StringDType(_dtypes.DType):
    """`tf.string`: TF's byte-string dtype, which has no torch storage."""

    __slots__ = ()

    @property
    def as_torch(self) -> Any:
        raise TypeError("tf.string tensors have no torch dtype; read them as numpy object arrays of bytes")

    is_floating = is_complex = is_integer = is_unsigned = is_bool = property(lambda self: False)

    @property
    def size(self) -> int:
        raise TypeError("tf.string has no fixed element size")

    def __eq__(self, other: Any) -> bool:
        return other is self or other == "string"

    __hash__ = _dtypes.DType.__hash__


def _extra(name: str, torch_dtype: Any, numpy_type: Any, enum: int) -> _dtypes.DType:
    found = getattr(_dtypes, name, None)
    if isinstance(found, _dtypes.DType):
        return found
    if name == "string":
        return _StringDType(name, None, numpy_type, enum)
    return _dtypes.DType(name, torch_dtype, numpy_type, enum)


# DTypes a checkpoint can hold that tfcompat's dtype module may not define (it
# keeps to what its ops compute in): its own objects are used where it has them.
_EXTRA_DTYPES = {
    DataType.DT_UINT16: _extra("uint16", torch.uint16, np.uint16, DataType.DT_UINT16),
    DataType.DT_UINT32: _extra("uint32", torch.uint32, np.uint32, DataType.DT_UINT32),
    DataType.DT_UINT64: _extra("uint64", torch.uint64, np.uint64, DataType.DT_UINT64),
    DataType.DT_STRING: _extra("string", None, object, DataType.DT_STRING),
}


def numpy_dtype(datatype: int) -> np.dtype:
    """The numpy dtype a bundle entry of TF `DataType` `datatype` holds (object for strings).

    Raises `TypeError` for types a checkpoint reader here does not decode
    (quantized, resource, variant, ...).
    """
    try:
        return _NUMPY[datatype]
    except KeyError:
        name = _NAMES.get(datatype, str(datatype))
        raise TypeError(f"unsupported checkpoint dtype DT_{name.upper()} ({datatype})") from None


def datatype_of(array_dtype: Any) -> int:
    """TF's `DataType` number for a numpy dtype (object/str/bytes arrays -> DT_STRING)."""
    dt = np.dtype(array_dtype)
    if dt.kind in "OSU":
        return DataType.DT_STRING
    found = _BY_NUMPY.get(dt.newbyteorder("<") if dt.byteorder == ">" else dt)
    if found is None:
        raise TypeError(f"numpy dtype {dt} has no TensorFlow checkpoint dtype")
    return found


def tf_dtype(datatype: int) -> _dtypes.DType:
    """The tfcompat `DType` for a TF `DataType` number."""
    try:
        return _dtypes.as_dtype(datatype)
    except TypeError:
        extra = _EXTRA_DTYPES.get(datatype)
        if extra is not None:
            return extra
        numpy_dtype(datatype)  # raises the unsupported-dtype TypeError
        raise


def shape_of(proto: TensorShapeProto | None) -> tuple[int, ...]:
    """A fully defined shape as a tuple (a missing shape is a scalar, as in TF's protos)."""
    if proto is None:
        return ()
    return tuple(d.size for d in proto.dim)


def shape_proto(shape: tuple[int, ...]) -> TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(s)) for s in shape])


_type_attributes.register_shape_proto(shape_proto)  # torch.Size.as_proto()
