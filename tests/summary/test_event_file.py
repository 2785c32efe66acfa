"""Event files: TFRecord framing and CRCs, the file's name and first record, the queue and
flush policy of TF's writer, and reading files back -- checked with an independent reader."""

import os
import re
import socket
import struct

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat.summary as summary
from tfcompat.framework import errors as tf_errors
from tfcompat.summary import event_file, records
from tfcompat.summary.reader import summary_iterator
from tfcompat.summary.protos import Event, Summary, tensor_proto, to_ndarray
from tests.summary import event_records as er


@given(st.binary(max_size=300))
def test_frame_is_tfrecord(data):
    framed = records.frame(data)
    assert len(framed) == len(data) + 16
    assert struct.unpack("<Q", framed[:8])[0] == len(data)
    assert er.records(framed) == [data]


def test_frame_equals_tfs_tfrecord_writer():
    # Records written by TF's tf.io.TFRecordWriter (recorded by gen_summary_goldens.py).
    import json
    import pathlib
    golden = json.loads((pathlib.Path(__file__).parent / "fixtures" / "summary_goldens.json").read_text())
    payloads = [bytes.fromhex(p) for p in golden["tfrecord"]["payloads_hex"]]
    assert b"".join(records.frame(p) for p in payloads).hex() == golden["tfrecord"]["file_hex"]


@pytest.mark.skipif(records._tensorboard_record_writer() is None, reason="tensorboard not installed")
@given(st.lists(st.binary(max_size=200), max_size=5))
def test_tensorboard_framing_and_own_framing_agree(payloads):
    import io

    outs = []
    for use_tb in (True, False):
        buf = io.BytesIO()
        sink = records.RecordSink(buf, use_tensorboard=use_tb)
        assert sink.uses_tensorboard is use_tb
        for p in payloads:
            sink.write(p)
        sink.flush()
        outs.append(buf.getvalue())
    assert outs[0] == outs[1] == b"".join(records.frame(p) for p in payloads)


def test_read_records_checks_crcs_and_stops_at_truncation(tmp_path):
    path = tmp_path / "r"
    good = records.frame(b"one") + records.frame(b"two")
    path.write_bytes(good + records.frame(b"three")[:10])
    seen = []
    assert list(records.read_records(path, on_truncated=seen.append)) == [b"one", b"two"]
    assert seen == [len(good)]
    corrupt = bytearray(good)
    corrupt[13] ^= 1  # a payload byte of the first record
    path.write_bytes(bytes(corrupt))
    with pytest.raises(tf_errors.DataLossError, match="data CRC"):
        list(records.read_records(path))
    corrupt = bytearray(good)
    corrupt[0] ^= 1  # the length
    path.write_bytes(bytes(corrupt))
    with pytest.raises(tf_errors.DataLossError, match="length CRC"):
        list(records.read_records(path))


def test_file_name_and_first_record(tmp_path):
    logdir = tmp_path / "new" / "dir"  # created on demand
    writer = summary.create_file_writer(str(logdir))
    name = os.path.basename(writer.path)
    m = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.v2", name)
    assert m and m.group(2) == socket.gethostname() and int(m.group(3)) == os.getpid()
    # the first record is on disk as soon as the writer exists
    (first,) = er.read_file(writer.path)
    ev = er.event(first)
    assert ev["file_version"] == b"brain.Event:2" and ev["step"] == 0 and ev["values"] == []
    assert ev["source_writer"] == "tfcompat.summary"
    assert abs(ev["wall_time"] - int(m.group(1))) < 5
    writer.close()


def test_file_ids_count_and_suffixes(tmp_path):
    names = [os.path.basename(summary.create_file_writer(str(tmp_path), filename_suffix=s).path)
             for s in (None, "abc", ".xyz")]
    ids = [int(n.split(".")[-2]) for n in names]
    assert ids == list(range(ids[0], ids[0] + 3))
    assert [n.split(".")[-1] for n in names] == ["v2", "abc", "xyz"]
    assert len(set(names)) == 3


def _count(path):
    return len(er.read_file(path)) - 1


def test_queue_flushes_when_more_than_max_queue(tmp_path):
    writer = summary.create_file_writer(str(tmp_path), max_queue=3, flush_millis=10 ** 9)
    with summary.record_if(True):
        writer.set_as_default(step=1)
        try:
            for i in range(3):
                summary.scalar("x", float(i))
                assert _count(writer.path) == 0  # 1..3 events queued: not more than 3
            summary.scalar("x", 3.0)  # the 4th makes the queue exceed max_queue
            assert _count(writer.path) == 4
            summary.scalar("x", 4.0)
            assert _count(writer.path) == 4
            writer.flush()
            assert _count(writer.path) == 5
        finally:
            from tfcompat.summary import writer as writer_lib
            writer_lib._state.writer = None
            writer_lib._state.step = None
    writer.close()


def test_flush_millis_zero_writes_each_event(tmp_path):
    writer = summary.create_file_writer(str(tmp_path), max_queue=100, flush_millis=0)
    ev = Event(step=1, summary=Summary(value=[Summary.Value(tag="t", simple_value=1.0)]))
    import time
    time.sleep(0.002)  # more than 0 ms since creation
    writer._file.add_event(ev)
    assert _count(writer.path) == 1
    writer.close()


def test_close_flushes_and_finalizer_flushes(tmp_path):
    f = event_file.EventFileWriter(str(tmp_path / "b"))
    f.add_event(Event(step=2, file_version="x"))
    path = f.path
    assert _count(path) == 0 and f.pending() == 1
    del f  # dropping the last reference flushes, as TF's resource destructor does
    import gc
    gc.collect()
    assert _count(path) == 1
    g = event_file.EventFileWriter(str(tmp_path / "c"))
    g.add_event(Event(step=3))
    g.close()
    g.close()
    assert g.closed and _count(g.path) == 1
    with pytest.raises(ValueError, match="closed"):
        g.add_event(Event(step=4))


def test_summary_iterator_round_trip(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=7):
        summary.scalar("s", 2.5, description="d")
        summary.text("t", [["a", "b"]])
        summary.histogram("h", [1.0, 2.0, 3.0], buckets=2)
    writer.close()
    events = list(summary_iterator(writer.path))
    assert events[0].file_version == "brain.Event:2"
    s, t, h = (e.summary.value[0] for e in events[1:])
    assert (s.tag, s.metadata.plugin_data.plugin_name, s.metadata.summary_description) == \
        ("s", "scalars", "d")
    assert to_ndarray(s.tensor) == np.float32(2.5)
    assert to_ndarray(t.tensor).tolist() == [[b"a", b"b"]]
    np.testing.assert_array_equal(to_ndarray(h.tensor), [[1.0, 2.0, 1.0], [2.0, 3.0, 2.0]])
    assert {e.step for e in events[1:]} == {7}


@given(st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8,
                        np.int16, np.float16, np.bool_, np.complex64]),
       st.lists(st.integers(0, 3), max_size=3))
def test_tensor_proto_round_trip(dtype, shape):
    arr = (np.arange(int(np.prod(shape)), dtype=np.int64) % 5).astype(dtype).reshape(shape)
    proto = tensor_proto(arr)
    back = to_ndarray(type(proto).decode(proto.encode()))
    assert back.dtype == np.dtype(dtype) and back.shape == tuple(shape)
    np.testing.assert_array_equal(back, arr)
    # the independent reader sees the same raw content
    if dtype not in (np.complex64,):
        np.testing.assert_array_equal(er.tensor_value(proto.encode()), arr)


def test_to_ndarray_reads_typed_fields_with_repeat():
    from tfcompat.summary.protos import TensorProto
    from tfcompat.train.format.protos import TensorShapeProto

    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=3)])
    p = TensorProto(dtype=1, tensor_shape=shape, float_val=[1.5])  # TF's compact constant form
    assert to_ndarray(p).tolist() == [1.5, 1.5, 1.5]
    p = TensorProto(dtype=19, tensor_shape=shape, half_val=[int(np.float16(2).view(np.uint16))] * 3)
    assert to_ndarray(p).tolist() == [2.0, 2.0, 2.0]
    p = TensorProto(dtype=7, tensor_shape=shape, string_val=[b"a", b"b", b"c"])
    assert to_ndarray(p).tolist() == [b"a", b"b", b"c"]
    with pytest.raises(ValueError):
        to_ndarray(TensorProto(dtype=1, tensor_shape=shape, float_val=[1.0] * 4))
