"""TensorBoard's own readers load tfcompat's event files (skipped without `tensorboard`).

`EventFileLoader` is what TensorBoard's data ingestion iterates (framing + `Event` parse);
the plugin `EventAccumulator` is how TensorBoard's plugins see TF 2 summaries (tags by
plugin, tensor events with steps and values).
"""

import numpy as np
import pytest

import tfcompat.summary as summary
from tfcompat.summary import png, records

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import event_file_loader  # noqa: E402
from tensorboard.backend.event_processing import plugin_event_accumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


@pytest.fixture(params=["maintained", "fallback"])
def logdir(request, tmp_path, monkeypatch):
    if request.param == "fallback":
        monkeypatch.setattr(png, "_pillow", lambda: None)
        monkeypatch.setattr(records, "_tensorboard_record_writer", lambda: None)
    writer = summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            summary.scalar("loss", 1.0 / (step + 1), step=step)
        summary.histogram("w", np.arange(10.0), step=2, buckets=5)
        summary.text("note", "hello", step=1)
        summary.image("img", np.full((1, 2, 3, 3), 0.5, np.float32), step=1)
    writer.close()
    return str(tmp_path), writer.path


def test_event_file_loader_reads_every_record(logdir):
    _, path = logdir
    events = list(event_file_loader.EventFileLoader(path).Load())
    assert events[0].file_version == "brain.Event:2"
    assert [(e.step, e.summary.value[0].tag) for e in events[1:]] == [
        (0, "loss"), (1, "loss"), (2, "loss"), (2, "w"), (1, "note"), (1, "img")]


def test_plugin_accumulator_sees_tf2_summaries(logdir):
    directory, _ = logdir
    acc = plugin_event_accumulator.EventAccumulator(directory, size_guidance={"tensors": 0})
    acc.Reload()
    assert acc.PluginTagToContent("scalars").keys() == {"loss"}
    assert acc.PluginTagToContent("histograms").keys() == {"w"}
    assert acc.PluginTagToContent("text").keys() == {"note"}
    assert acc.PluginTagToContent("images").keys() == {"img"}
    losses = [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors("loss")]
    assert losses == [(0, 1.0), (1, 0.5), (2, np.float32(1 / 3))]
    (hist,) = acc.Tensors("w")
    np.testing.assert_array_equal(tensor_util.make_ndarray(hist.tensor_proto)[:, 2], [2, 2, 2, 2, 2])
    (img,) = acc.Tensors("img")
    strings = tensor_util.make_ndarray(img.tensor_proto)
    assert list(strings[:2]) == [b"3", b"2"] and strings[2].startswith(b"\x89PNG")
    (note,) = acc.Tensors("note")
    assert tensor_util.make_ndarray(note.tensor_proto).item() == b"hello"
