"""tf.summary's ops against TF 2.21's goldens: the bytes of every summary, errors, returns.

The fixture comes from `gen_summary_goldens.py` (TF venv). Every case of `cases.py` is
written by tfcompat and read back with the independent reader of `event_records.py`; the
`Summary` bytes must equal TF's (images: the same metadata, dimensions and decoded pixels).
Each runs twice: with the maintained helpers where importable (Pillow's PNG encoder,
TensorBoard's record framing) and with tfcompat's own fallbacks.
"""

import hashlib
import json
import pathlib
import re

import numpy as np
import pytest
import torch

import tfcompat.summary as summary
from tfcompat.framework import errors as tf_errors
from tfcompat.framework.name_scope import name_scope
from tfcompat.summary import png, records
from tfcompat.summary.protos import SummaryMetadata
from tests.summary import event_records as er
from tests.summary.cases import CASES, ERROR_CASES, RETURN_CASES, run_case
from tests.summary.write_tfcompat_events import write_all

GOLDEN = json.loads((pathlib.Path(__file__).parent / "fixtures" / "summary_goldens.json").read_text())


@pytest.fixture(params=["maintained", "fallback"])
def helpers(request, monkeypatch):
    """Which PNG encoder and record framing the writer uses."""
    if request.param == "fallback":
        monkeypatch.setattr(png, "_pillow", lambda: None)
        monkeypatch.setattr(records, "_tensorboard_record_writer", lambda: None)
    return request.param


@pytest.fixture
def written(tmp_path, helpers):
    """Every case written by tfcompat into one file, parsed by the independent reader."""
    path = write_all(str(tmp_path))
    payloads = er.read_file(path)
    assert len(payloads) == len(CASES) + 1
    return dict(zip([c["id"] for c in CASES], payloads[1:]))


def _summary_bytes(payload):
    return er.first(payload, 5)


@pytest.mark.parametrize("case", [c for c in CASES if c["op"] != "image"], ids=lambda c: c["id"])
def test_summary_bytes_equal_tfs(written, case):
    golden = GOLDEN["cases"][case["id"]]
    payload = written[case["id"]]
    event = er.event(payload)
    assert event["step"] == golden["step"]
    assert _summary_bytes(payload).hex() == golden["summary_hex"]


@pytest.mark.parametrize("case", [c for c in CASES if c["op"] == "image"], ids=lambda c: c["id"])
def test_image_summaries_decode_to_tfs_pixels(written, case):
    golden = GOLDEN["cases"][case["id"]]
    (value,) = er.event(written[case["id"]])["values"]
    assert value["tag"] == golden["tag"]
    assert er.first(value["raw"], 9).hex() == golden["metadata_hex"]
    strings = value["tensor"]
    assert [s.decode() for s in strings[:2]] == golden["dims"]
    assert len(strings) - 2 == len(golden["pixels"])
    for encoded, pixels in zip(strings[2:], golden["pixels"]):
        np.testing.assert_array_equal(er.decode_png(encoded), np.array(pixels, np.uint8))


def _digest(case, value):
    # The same digest as gen_summary_goldens.py's `_digest`.
    h = hashlib.sha256()
    if case["op"] == "image":
        strings = value["tensor"]
        h.update(value["tag"].encode() + b"\0" + er.first(value["raw"], 9, b""))
        h.update(b"\0".join(strings[:2]))
        for encoded in strings[2:]:
            pixels = er.decode_png(encoded)
            h.update(repr(pixels.shape).encode() + pixels.tobytes())
    else:
        h.update(value["raw"])
    return h.hexdigest()


def test_tf_read_what_tfcompat_writes_now(written):
    """TF's own reader checked tfcompat's file (CRCs, tags, steps, values, pixels); the
    digests say tfcompat still writes exactly what was checked (else rerun the check)."""
    check = GOLDEN["tfcompat_read_by_tf"]
    assert check["all_match"], {k: v["detail"] for k, v in check["cases"].items() if not v["match"]}
    assert check["first_file_version"] == "brain.Event:2"
    assert check["records"] == len(CASES) + 1
    for case in CASES:
        (value,) = er.event(written[case["id"]])["values"]
        assert _digest(case, value) == check["cases"][case["id"]]["digest"], case["id"]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c["id"])
def test_errors_as_tf(tmp_path, case):
    golden = GOLDEN["errors"][case["id"]]
    writer = summary.create_file_writer(str(tmp_path))
    with pytest.raises(Exception) as info:
        if case["writer"]:
            with writer.as_default():
                case["call"](summary)
        else:
            case["call"](summary)
    assert type(info.value).__name__ == golden["type"]
    message = str(info.value)
    if golden["type"] in ("ValueError", "TypeError") and "[Op:" not in golden["message"]:
        assert message == golden["message"] or message.startswith(golden["message"])
    else:
        assert golden["message"] in message
    writer.close()


@pytest.mark.parametrize("case", RETURN_CASES, ids=lambda c: c["id"])
def test_returns_as_tf(tmp_path, case):
    golden = GOLDEN["returns"][case["id"]]["returned"]
    writer = summary.create_file_writer(str(tmp_path))
    if case["writer"]:
        with writer.as_default():
            got = case["call"](summary)
    else:
        got = case["call"](summary)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bool and got.dim() == 0
    assert bool(got) is golden
    writer.close()


def test_op_errors_are_tf_error_classes():
    assert issubclass(tf_errors.UnimplementedError, tf_errors.OpError)
    with pytest.raises(tf_errors.InvalidArgumentError, match="channels"):
        png.encode_png(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(tf_errors.InvalidArgumentError, match="non-zero"):
        png.encode_png(np.zeros((0, 2, 3), np.uint8))


# -- tags, steps, recording ------------------------------------------------------------------

def _values(writer):
    writer.flush()
    return [(e["step"], v["tag"]) for e in map(er.event, er.read_file(writer.path)[1:])
            for v in e["values"]]


def test_tags_follow_name_scopes_and_defaults(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        with name_scope("a"):
            with name_scope("b"):
                summary.scalar("x", 1.0)
            summary.histogram("", [1.0])
            summary.text(None, "t")
            summary.image("", np.zeros((1, 1, 1, 1), np.float32))
            with summary.experimental.summary_scope("odd name!", "dflt") as (tag, scope):
                assert (tag, scope) == ("a/odd name!", "a/oddname/")
    assert _values(writer) == [(3, "a/b/x"), (3, "a/histogram_summary"), (3, "a/text_summary"),
                               (3, "a/image_summary")]


def test_default_step_sources(tmp_path):
    from tfcompat.variables import Variable

    writer = summary.create_file_writer(str(tmp_path))
    counter = Variable(5, dtype="int64")
    summary.experimental.set_step(counter)
    try:
        with writer.as_default():
            summary.scalar("a", 1.0)
            counter.assign_add(2)
            summary.scalar("a", 1.0)  # a variable step is read at each write
            with writer.as_default(step=100):
                assert summary.experimental.get_step() == 100
                summary.scalar("b", 1.0)
            assert summary.experimental.get_step() is counter
            summary.scalar("c", 1.0, step=torch.tensor(9))  # explicit int64 tensor
    finally:
        summary.experimental.set_step(None)
    assert _values(writer) == [(5, "a"), (7, "a"), (100, "b"), (9, "c")]


def test_int32_tensor_step_is_tfs_conversion_error(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(), pytest.raises(ValueError, match="requested dtype int64"):
        summary.scalar("x", 1.0, step=torch.tensor(3, dtype=torch.int32))


def test_record_if_callable_is_evaluated_per_write(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    step = [0]
    with writer.as_default(), summary.record_if(lambda: step[0] % 3 == 0):
        for step[0] in range(7):
            summary.scalar("x", float(step[0]), step=step[0])
    assert [s for s, _ in _values(writer)] == [0, 3, 6]


def test_record_if_nests_and_restores(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with summary.record_if(False):
            assert not bool(summary.should_record_summaries())
            with summary.record_if(True):
                assert bool(summary.should_record_summaries())
            assert not bool(summary.should_record_summaries())
        assert bool(summary.should_record_summaries())


def test_lazy_tensor_only_called_when_recording(tmp_path):
    calls = []

    def data():
        calls.append(1)
        return np.array([1.0])

    writer = summary.create_file_writer(str(tmp_path))
    assert not bool(summary.write("x", data, step=1))  # no default writer
    with writer.as_default():
        with summary.record_if(False):
            assert not bool(summary.write("x", data, step=1))
        assert bool(summary.write("x", data, step=1))
    assert calls == [1]


def test_writers_nest_and_flush_on_exit(tmp_path):
    a = summary.create_file_writer(str(tmp_path / "a"))
    b = summary.create_file_writer(str(tmp_path / "b"))
    with a.as_default(step=1):
        summary.scalar("in_a", 1.0)
        with b.as_default(step=2):
            summary.scalar("in_b", 1.0)
        # leaving b's block flushed b: its event is on disk although its queue was not full
        assert [v["tag"] for p in er.read_file(b.path)[1:] for v in er.event(p)["values"]] == ["in_b"]
        summary.scalar("in_a_again", 1.0)
    assert _values(a) == [(1, "in_a"), (1, "in_a_again")]


def test_set_as_default_and_noop_writer(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    noop = summary.create_noop_writer()
    noop.set_as_default()
    assert not bool(summary.scalar("x", 1.0, step=1))
    with noop.as_default() as inside:
        assert inside is None
    noop.flush(), noop.close(), noop.init()
    from tfcompat.summary import writer as writer_lib
    old = writer_lib._state.writer, writer_lib._state.step
    try:
        writer.set_as_default(step=4)
        assert bool(summary.scalar("x", 1.0))
        summary.flush()
        assert _values(writer) == [(4, "x")]
    finally:
        writer_lib._state.writer, writer_lib._state.step = old


def test_closed_writer(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    writer.close()
    writer.close()  # twice is fine
    writer.flush()  # a no-op once closed
    for call in (writer.as_default, writer.set_as_default, writer.init):
        with pytest.raises(RuntimeError, match="is already closed"):
            call()
    from tfcompat.summary import writer as writer_lib
    old = writer_lib._state.writer
    writer_lib._state.writer = writer  # as after set_as_default then close
    try:
        with pytest.raises(tf_errors.NotFoundError, match="does not exist"):
            summary.scalar("x", 1.0, step=1)
    finally:
        writer_lib._state.writer = old


def test_only_replica_zero_records(tmp_path):
    from tfcompat.distribute import distribute_lib

    writer = summary.create_file_writer(str(tmp_path))
    strategy = distribute_lib.get_strategy()
    with writer.as_default(step=1):
        ctx = distribute_lib._Context(strategy, distribute_lib.ReplicaContext(strategy, 1))
        with distribute_lib._enter(ctx):
            assert not bool(summary.scalar("replica1", 1.0))
        assert bool(summary.scalar("replica0", 1.0))
    assert _values(writer) == [(1, "replica0")]


def test_histogram_reads_values_as_tf_converts_them(tmp_path):
    # Python floats become float32 before the float64 bucketing, as in TF.
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        summary.histogram("h", [0.1, 0.7], buckets=1)
        summary.histogram("h64", np.array([0.1, 0.7]), buckets=1)
    edges = [er.event(p)["values"][0]["tensor"][0, :2] for p in er.read_file(writer.path)[1:]]
    assert edges[0].tolist() == [float(np.float32(0.1)), float(np.float32(0.7))]
    assert edges[1].tolist() == [0.1, 0.7]


def test_write_accepts_protobuf_like_metadata(tmp_path):
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="custom", content=b"\x01"),
        display_name="shown")
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=2):
        assert bool(summary.write("w", torch.tensor([1.0, 2.0]), metadata=meta))
        assert bool(summary.write("w2", torch.tensor(1.0), metadata=meta.SerializeToString()))
        assert bool(summary.write("w3", torch.tensor(1.0), metadata=b""))
    values = [er.event(p)["values"][0] for p in er.read_file(writer.path)[1:]]
    assert [(v["plugin"], v["content"]) for v in values] == [("custom", b"\x01")] * 2 + [("", b"")]
    assert er.first(values[2]["raw"], 9) is None  # empty metadata is not written, as TF
    np.testing.assert_array_equal(values[0]["tensor"], np.array([1.0, 2.0], np.float32))


def test_text_rejects_ragged_and_mixed():
    writer_dir = None  # no writer needed: the checks come first
    del writer_dir
    with pytest.raises(ValueError, match="non-rectangular"):
        summary.text("t", [["a"], ["b", "c"]], step=1)
    with pytest.raises(TypeError):
        summary.text("t", ["a", 3], step=1)


def test_bfloat16_and_device_tensors_write(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        summary.write("bf16", torch.tensor([1.5, -2.0], dtype=torch.bfloat16))
        summary.histogram("bf16h", torch.tensor([1.5, -2.0], dtype=torch.bfloat16), buckets=2)
    payloads = er.read_file(writer.path)[1:]
    tensor = er.first(er.first(er.first(payloads[0], 5), 1), 8)
    assert er.first(tensor, 1) == 14  # DT_BFLOAT16
    assert er.first(tensor, 4) == torch.tensor([1.5, -2.0], dtype=torch.bfloat16).view(torch.int16).numpy().tobytes()
    hist = er.event(payloads[1])["values"][0]["tensor"]
    assert hist[:, 2].tolist() == [1.0, 1.0]


def test_module_never_imports_tensorflow():
    import subprocess
    import sys
    code = ("import sys, numpy as np, tfcompat.summary as s, tempfile\n"
            "w = s.create_file_writer(tempfile.mkdtemp())\n"
            "with w.as_default(step=1):\n"
            "    s.scalar('a', 1.0); s.image('i', np.zeros((1, 2, 2, 3), np.float32))\n"
            "w.close()\n"
            "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_file_name_and_first_event_as_tfs(tmp_path):
    from tfcompat.summary.protos import Event

    writer = summary.create_file_writer(str(tmp_path))
    name = pathlib.Path(writer.path).name
    pattern = re.escape(GOLDEN["file"]["name_pattern"]).replace("<time>", r"\d{10}")
    pattern = pattern.replace("<host>", re.escape(__import__("socket").gethostname()))
    pattern = pattern.replace("<pid>", str(__import__("os").getpid()))
    assert re.fullmatch(pattern.replace(r"\.0\.", r"\.\d+\."), name), (pattern, name)
    first = Event.decode(er.read_file(writer.path)[0])
    assert first.wall_time > 0 and first.source_metadata.writer == "tfcompat.summary"
    first.wall_time, first.source_metadata = 0.0, None  # TF's writer names itself here
    assert first.encode().hex() == GOLDEN["file"]["first_event_hex"]
    writer.close()
