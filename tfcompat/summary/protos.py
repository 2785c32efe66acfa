"""The protos of a TensorBoard event file, declared for `train.format.wire`.

An event file is a sequence of `Event` messages. TF 2's summary ops write
each summary as a `Summary.Value` holding a `TensorProto` plus a
`SummaryMetadata` naming the TensorBoard plugin that reads it. Field numbers
and types follow TF 2.21's `event.proto`, `summary.proto` and `tensor.proto`;
the tests compare the bytes with what TF writes.

`tensor_proto` / `to_ndarray` convert between NumPy arrays and
`TensorProto`s the way TF's summary writer does: numbers as raw
little-endian `tensor_content`, strings as `string_val`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..train.format.protos import DataType, TensorShapeProto, datatype_of, numpy_dtype
from ..train.format.wire import Field, Message

__all__ = [
    "DataClass", "SummaryMetadata", "HistogramProto", "TensorProto", "Summary", "SourceMetadata",
    "LogMessage", "SessionLog", "TaggedRunMetadata", "Event", "tensor_proto", "to_ndarray",
    "FILE_VERSION",
]

# The `file_version` of the first event of every TF 2 event file.
FILE_VERSION = "brain.Event:2"


class DataClass:
    """`tensorflow.DataClass`: how TensorBoard's data layer should treat a summary's tensor."""

    DATA_CLASS_UNKNOWN = 0
    DATA_CLASS_SCALAR = 1
    DATA_CLASS_TENSOR = 2
    DATA_CLASS_BLOB_SEQUENCE = 3


class SummaryMetadata(Message):
    """`tensorflow.SummaryMetadata`: the plugin that owns a summary, and its description."""

    class PluginData(Message):
        """The owning plugin's name and its plugin-specific, serialized content."""

        FIELDS = (Field(1, "plugin_name", "string"), Field(2, "content", "bytes"))

    FIELDS = (Field(1, "plugin_data", "message", message=PluginData),
              Field(2, "display_name", "string"), Field(3, "summary_description", "string"),
              Field(4, "data_class", "enum"))


class HistogramProto(Message):
    """`tensorflow.HistogramProto`: TF 1's histogram summary (`bucket[i]` counts the values
    at most `bucket_limit[i]` and above `bucket_limit[i - 1]`)."""

    FIELDS = (Field(1, "min", "double"), Field(2, "max", "double"), Field(3, "num", "double"),
              Field(4, "sum", "double"), Field(5, "sum_squares", "double"),
              Field(6, "bucket_limit", "double", repeated=True),
              Field(7, "bucket", "double", repeated=True))


class TensorProto(Message):
    """`tensorflow.TensorProto`: a dtype, a shape, and the values (raw or typed)."""

    FIELDS = (Field(1, "dtype", "enum"),
              Field(2, "tensor_shape", "message", message=TensorShapeProto),
              Field(3, "version_number", "int32"), Field(4, "tensor_content", "bytes"),
              Field(5, "float_val", "float", repeated=True),
              Field(6, "double_val", "double", repeated=True),
              Field(7, "int_val", "int32", repeated=True),
              Field(8, "string_val", "bytes", repeated=True),
              Field(9, "scomplex_val", "float", repeated=True),
              Field(10, "int64_val", "int64", repeated=True),
              Field(11, "bool_val", "bool", repeated=True),
              Field(12, "dcomplex_val", "double", repeated=True),
              Field(13, "half_val", "int32", repeated=True),
              Field(16, "uint32_val", "uint32", repeated=True),
              Field(17, "uint64_val", "uint64", repeated=True))


class Summary(Message):
    """`tensorflow.Summary`: a list of tagged values (TF 2 writes tensors; TF 1 wrote the
    typed `simple_value`, `image`, `histo` and `audio` members, read here as well)."""

    class Image(Message):
        """TF 1's encoded image value."""

        FIELDS = (Field(1, "height", "int32"), Field(2, "width", "int32"),
                  Field(3, "colorspace", "int32"), Field(4, "encoded_image_string", "bytes"))

    class Audio(Message):
        """TF 1's encoded audio value."""

        FIELDS = (Field(1, "sample_rate", "float"), Field(2, "num_channels", "int64"),
                  Field(3, "length_frames", "int64"), Field(4, "encoded_audio_string", "bytes"),
                  Field(5, "content_type", "string"))

    class Value(Message):
        """One tagged value: TF 2 sets `tag`, `metadata` and `tensor`."""

        # simple_value ... tensor are a oneof in summary.proto: presence, not defaults, decides.
        FIELDS = (Field(7, "node_name", "string"), Field(1, "tag", "string"),
                  Field(9, "metadata", "message", message=SummaryMetadata),
                  Field(2, "simple_value", "float", presence=True),
                  Field(3, "obsolete_old_style_histogram", "bytes", presence=True),
                  Field(4, "image", "message", message=lambda: Summary.Image),
                  Field(5, "histo", "message", message=HistogramProto),
                  Field(6, "audio", "message", message=lambda: Summary.Audio),
                  Field(8, "tensor", "message", message=TensorProto))

    FIELDS = (Field(1, "value", "message", repeated=True, message=Value),)


class SourceMetadata(Message):
    """`tensorflow.SourceMetadata`: which library wrote the file."""

    FIELDS = (Field(1, "writer", "string"),)


class LogMessage(Message):
    """`tensorflow.LogMessage` (deprecated in TF, read for completeness)."""

    FIELDS = (Field(1, "level", "enum"), Field(2, "message", "string"))


class SessionLog(Message):
    """`tensorflow.SessionLog`: START / STOP / CHECKPOINT markers of TF 1 sessions."""

    FIELDS = (Field(1, "status", "enum"), Field(2, "checkpoint_path", "string"),
              Field(3, "msg", "string"))


class TaggedRunMetadata(Message):
    """`tensorflow.TaggedRunMetadata`: a serialized `RunMetadata` under a tag."""

    FIELDS = (Field(1, "tag", "string"), Field(2, "run_metadata", "bytes"))


class Event(Message):
    """`tensorflow.Event`: one record of an event file (a wall time, a step, and one payload:
    the file version, a graph, a summary, ...)."""

    FIELDS = (Field(1, "wall_time", "double"), Field(2, "step", "int64"),
              Field(3, "file_version", "string", presence=True),
              Field(4, "graph_def", "bytes", presence=True),
              Field(5, "summary", "message", message=Summary),
              Field(6, "log_message", "message", message=LogMessage),
              Field(7, "session_log", "message", message=SessionLog),
              Field(8, "tagged_run_metadata", "message", message=TaggedRunMetadata),
              Field(9, "meta_graph_def", "bytes", presence=True),
              Field(10, "source_metadata", "message", message=SourceMetadata))


# -- TensorProto <-> numpy ----------------------------------------------------------

def _shape_proto(shape: Sequence[int]) -> TensorShapeProto:
    # An empty Dim message for a 0-sized axis, as protoc writes it: always one entry per axis.
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(s)) for s in shape])


def tensor_proto(array: Any) -> TensorProto:
    """A `TensorProto` of a NumPy array as TF's summary writer stores it.

    Numeric and bool arrays go in `tensor_content` as little-endian bytes;
    string arrays (`str`, `bytes` or object arrays of them) in `string_val`,
    `str` elements encoded as UTF-8. The shape is always present, empty for a
    scalar.
    """
    arr = np.asarray(array)
    datatype = datatype_of(arr.dtype)
    proto = TensorProto(dtype=datatype, tensor_shape=_shape_proto(arr.shape))
    if datatype == DataType.DT_STRING:
        proto.string_val = [_utf8(v) for v in arr.reshape(-1).tolist()]
    else:
        little = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        proto.tensor_content = np.ascontiguousarray(little).tobytes()
    return proto


def _utf8(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"a string tensor holds str or bytes, got {type(value).__name__} {value!r}")


# The typed `*_val` field each dtype's values live in when `tensor_content` is empty.
_TYPED_FIELD = {
    DataType.DT_FLOAT: "float_val", DataType.DT_DOUBLE: "double_val",
    DataType.DT_INT32: "int_val", DataType.DT_INT16: "int_val", DataType.DT_INT8: "int_val",
    DataType.DT_UINT8: "int_val", DataType.DT_UINT16: "int_val", DataType.DT_INT64: "int64_val",
    DataType.DT_BOOL: "bool_val", DataType.DT_HALF: "half_val", DataType.DT_BFLOAT16: "half_val",
    DataType.DT_UINT32: "uint32_val", DataType.DT_UINT64: "uint64_val",
    DataType.DT_COMPLEX64: "scomplex_val", DataType.DT_COMPLEX128: "dcomplex_val",
}


def to_ndarray(proto: TensorProto) -> np.ndarray:
    """The NumPy array a `TensorProto` holds (TF's `tf.make_ndarray`).

    Reads `tensor_content` when present, otherwise the typed `*_val` field,
    where fewer values than elements mean the last value repeats (TF's
    compact encoding of constant tensors). Strings come back as an object
    array of `bytes`.
    """
    shape = tuple(d.size for d in proto.tensor_shape.dim) if proto.tensor_shape else ()
    count = int(np.prod(shape, dtype=np.int64))
    dtype = numpy_dtype(proto.dtype)
    if proto.dtype == DataType.DT_STRING:
        values = np.empty(len(proto.string_val), dtype=object)
        values[:] = proto.string_val
        return _fill(values, count).reshape(shape)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=dtype).reshape(shape).copy()
    raw = getattr(proto, _TYPED_FIELD.get(proto.dtype, "float_val"))
    if proto.dtype in (DataType.DT_HALF, DataType.DT_BFLOAT16):
        values = np.asarray(raw, dtype=np.uint16).view(dtype)
    elif proto.dtype in (DataType.DT_COMPLEX64, DataType.DT_COMPLEX128):
        pairs = np.asarray(raw, dtype=np.float64).reshape(-1, 2)
        values = (pairs[:, 0] + 1j * pairs[:, 1]).astype(dtype)
    else:
        values = np.asarray(raw).astype(dtype)
    return _fill(values, count).reshape(shape)


def _fill(values: np.ndarray, count: int) -> np.ndarray:
    if values.size == count:
        return values
    if values.size == 0 or values.size > count:
        if count == 0:
            return values[:0]
        raise ValueError(f"a TensorProto holds {values.size} values for {count} elements")
    out = np.empty(count, dtype=values.dtype)
    out[:values.size] = values
    out[values.size:] = values[-1]
    return out
