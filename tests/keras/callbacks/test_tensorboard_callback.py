"""tf.keras.callbacks.TensorBoard against tf_keras 2.21, on a real tfcompat.keras model.

The golden (`tests/summary/gen_summary_goldens.py`, section `callback`) is a tf_keras `fit`
with `TensorBoard(histogram_freq=1, update_freq=1, write_images=True)` and a learning-rate
schedule: every hook call with its logs, the model's counters and, at epoch ends, its
weights, plus the events TensorBoard wrote. The tests replay those hooks on the same model
built with tfcompat (weights and counters set as tf_keras had them) and read the files
back with the independent reader of `tests/summary/event_records.py`: the same files,
tags, steps and order, the same scalars, histograms and image pixels.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import pathlib

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras.callbacks import tensorboard as tb_module
from tfcompat.keras.callbacks.tensorboard import TensorBoard
from tests.summary import event_records as er

GOLDEN = json.loads((pathlib.Path(__file__).resolve().parents[2] / "summary" / "fixtures"
                     / "summary_goldens.json").read_text())["callback"]
INIT = {  # as CALLBACK_INIT in gen_summary_goldens.py
    "dense/kernel:0": (np.arange(12).reshape(4, 3) % 5 / 10.0 - 0.2),
    "dense/bias:0": [0.1, -0.1, 0.0],
    "dense_1/kernel:0": [[0.3], [-0.2], [0.5]],
    "dense_1/bias:0": [0.05],
}


def _model(compiled=True):
    keras = tf.keras
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(4,), name="dense"),
                              keras.layers.Dense(1, name="dense_1")])
    for w in model.weights:
        w.assign(np.asarray(INIT[w.name], np.float32))
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=3, decay_rate=0.5)
    optimizer = keras.optimizers.SGD(schedule)
    if compiled and hasattr(model, "compile"):
        model.compile(optimizer, "mse", metrics=["mae"])
    else:
        model.optimizer = optimizer
    return model


def _replay(callback, model, hooks=GOLDEN["hooks"]):
    """Drives `callback` through tf_keras's recorded hook calls, with the model's weights,
    counters and optimizer step as tf_keras had them at each call."""
    callback.set_model(model)
    for h in hooks:
        for attr, key in (("_train_counter", "train_counter"), ("_test_counter", "test_counter")):
            counter = getattr(model, attr, None)
            if counter is not None:
                counter.assign(h[key])
        model.optimizer.iterations.assign(h["iterations"])
        if "weights" in h:
            for w in model.weights:
                w.assign(np.asarray(h["weights"][w.name], np.float32))
        hook = getattr(callback, h["hook"])
        logs = dict(h["logs"])
        if h["arg"] is None:
            hook(logs)
        else:
            hook(h["arg"], logs)


def _rows(log_dir, sub):
    (path,) = glob.glob(os.path.join(log_dir, sub, "events.out.tfevents.*"))
    rows = []
    for payload in er.read_file(path)[1:]:
        event = er.event(payload)
        for v in event["values"]:
            row = {"tag": v["tag"], "step": event["step"], "plugin": v["plugin"], "tensor": v["tensor"]}
            rows.append(row)
    return rows


def _check_rows(rows, golden_rows, exact=True):
    assert [(r["tag"], r["step"], r["plugin"]) for r in rows] == \
        [(g["tag"], g["step"], g["plugin"]) for g in golden_rows]
    for r, g in zip(rows, golden_rows):
        t = r["tensor"]
        if g["plugin"] in ("scalars", "histograms"):
            assert list(t.shape) == g["shape"], g["tag"]
            want = np.array([float(v) for v in g["value"]]).reshape(g["shape"])
            if exact:
                np.testing.assert_array_equal(t.astype(np.float64), want, err_msg=g["tag"])
            else:
                np.testing.assert_allclose(t.astype(np.float64), want, rtol=2e-5, atol=1e-6,
                                           err_msg=g["tag"])
        elif g["plugin"] == "images":
            assert [s.decode() for s in t[:2]] == g["dims"]
            for encoded, pixels in zip(t[2:], g["pixels"]):
                got = er.decode_png(encoded).astype(int)
                if exact:
                    np.testing.assert_array_equal(got, np.array(pixels), err_msg=g["tag"])
                else:
                    assert np.abs(got - np.array(pixels)).max() <= 1, g["tag"]
        elif g["plugin"] == "graph_keras_model":
            assert json.loads(t.item().decode())["class_name"] == "Sequential"


def test_replayed_fit_writes_tf_keras_files(tmp_path):
    log_dir = str(tmp_path / "logs")
    callback = TensorBoard(log_dir, histogram_freq=1, update_freq=1, write_images=True)
    _replay(callback, _model())
    assert sorted(os.listdir(log_dir)) == GOLDEN["subdirs"]
    for sub in ("train", "validation"):
        _check_rows(_rows(log_dir, sub), GOLDEN["events"][sub])


def test_replay_without_model_counters_counts_batches(tmp_path):
    """A model without tf_keras's `_train_counter` (a bare subclass of the hooks' model):
    the callback counts the training batches itself, giving the same steps."""
    log_dir = str(tmp_path / "logs")

    class NoCounters:
        def __init__(self, model):
            self._m = model
            self.optimizer = model.optimizer
            self.layers = model.layers
            self.weights = model.weights
            self._is_graph_network = True

        def to_json(self):
            return self._m.to_json()

    model = NoCounters(_model())
    callback = TensorBoard(log_dir, update_freq=1)
    _replay(callback, model)
    rows = [(r["tag"], r["step"]) for r in _rows(log_dir, "train") if r["tag"].startswith("batch_")]
    assert rows == [(g["tag"], g["step"]) for g in GOLDEN["events"]["train"]
                    if g["tag"].startswith("batch_")]


def test_keras_model_summary_metadata(tmp_path):
    log_dir = str(tmp_path / "logs")
    model = _model()
    TensorBoard(log_dir).set_model(model)
    (path,) = glob.glob(os.path.join(log_dir, "train", "events.out.tfevents.*"))
    ev = er.event(er.read_file(path)[1])
    (value,) = ev["values"]
    assert (value["tag"], ev["step"], value["plugin"], value["content"]) == \
        ("keras", 0, "graph_keras_model", b"1")
    assert value["tensor"].item().decode() == model.to_json()


@pytest.mark.parametrize("freq,steps", [("epoch", []), (2, [2, 4]), ("batch", [1, 2, 3, 4])])
def test_update_freq(tmp_path, freq, steps):
    log_dir = str(tmp_path / "logs")
    callback = TensorBoard(log_dir, update_freq=freq, write_graph=False)
    assert callback._implements_train_batch_hooks() is (freq != "epoch")
    _replay(callback, _model())
    got = [r["step"] for r in _rows(log_dir, "train") if r["tag"] == "batch_loss"]
    assert got == steps
    epoch = [(r["tag"], r["step"]) for r in _rows(log_dir, "train") if r["tag"].startswith("epoch_")]
    assert epoch == [(t, e) for e in (0, 1) for t in ("epoch_loss", "epoch_mae", "epoch_learning_rate")]


def test_histogram_freq_every_other_epoch(tmp_path):
    log_dir = str(tmp_path / "logs")
    _replay(TensorBoard(log_dir, histogram_freq=2, write_graph=False), _model())
    hist = {(r["tag"], r["step"]) for r in _rows(log_dir, "train") if r["plugin"] == "histograms"}
    assert hist == {(f"{w}/histogram", 0) for w in
                    ("dense/kernel_0", "dense/bias_0", "dense_1/kernel_0", "dense_1/bias_0")}


def test_steps_per_second(tmp_path):
    log_dir = str(tmp_path / "logs")
    _replay(TensorBoard(log_dir, write_steps_per_second=True, update_freq=1, write_graph=False),
            _model())
    rows = _rows(log_dir, "train")
    per_batch = [float(r["tensor"]) for r in rows if r["tag"] == "batch_steps_per_second"]
    per_epoch = [float(r["tensor"]) for r in rows if r["tag"] == "epoch_steps_per_second"]
    assert len(per_batch) == 4 and len(per_epoch) == 2
    assert all(v > 0 for v in per_batch + per_epoch)


def test_conv_kernel_images_one_per_output_channel(tmp_path):
    log_dir = str(tmp_path / "logs")
    model = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3, input_shape=(5, 5, 1), name="conv")])
    kernel = (np.arange(18, dtype=np.float32).reshape(3, 3, 1, 2) / 17.0 - 0.25)
    model.layers[0].kernel.assign(kernel)
    model.optimizer = tf.keras.optimizers.SGD(0.1)
    callback = TensorBoard(log_dir, histogram_freq=1, write_images=True, write_graph=False)
    callback.set_model(model)
    callback.on_train_begin()
    callback.on_epoch_end(0, {"loss": 1.0})
    callback.on_train_end()
    (img,) = [r for r in _rows(log_dir, "train") if r["tag"] == "conv/kernel_0/image"]
    assert [s.decode() for s in img["tensor"][:2]] == ["3", "3"] and len(img["tensor"]) == 4
    for channel, encoded in enumerate(img["tensor"][2:]):
        # tf.image.convert_image_dtype(saturate=True): x * 255.5, clipped to [0, 255], truncated
        want = np.clip(kernel[:, :, 0, channel] * np.float32(255.5), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(er.decode_png(encoded)[:, :, 0], want)


def test_dense_kernel_image_is_transposed_to_wide(tmp_path):
    log_dir = str(tmp_path / "logs")
    model = _model()
    callback = TensorBoard(log_dir, histogram_freq=1, write_images=True, write_graph=False)
    callback.set_model(model)
    callback.on_epoch_end(0, {})
    images = {r["tag"]: r["tensor"] for r in _rows(log_dir, "train") if r["plugin"] == "images"}
    # dense/kernel is [4, 3]: taller than wide, so written as its [3, 4] transpose
    assert [s.decode() for s in images["dense/kernel_0/image"][:2]] == ["4", "3"]
    assert [s.decode() for s in images["dense/bias_0/image"][:2]] == ["1", "3"]  # width 1: [1, 3, 1, 1]
    assert "dense_1/bias_0/image" not in images  # a squeezed scalar is no image


def test_kwargs_validation_and_v1_warnings(caplog):
    with pytest.raises(ValueError, match="Unrecognized arguments in `TensorBoard` Callback"):
        TensorBoard(write_gradz=True)
    with caplog.at_level(logging.WARNING, logger="tfcompat.keras.callbacks"):
        TensorBoard(write_grads=True, batch_size=32)
    text = caplog.text
    assert "`write_grads` will be ignored" in text and "`batch_size` is no longer needed" in text


@pytest.mark.parametrize("bad", [-1, (5, 2), (1, 2, 3), "x", 1.5])
def test_profile_batch_validation(bad):
    with pytest.raises((ValueError, TypeError)):
        TensorBoard(profile_batch=bad)


def test_not_written_features_warn_once(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr(tb_module, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="tfcompat.keras.callbacks"):
        for _ in range(2):
            cb = TensorBoard(str(tmp_path), profile_batch=(2, 3), embeddings_freq=1)
            cb.set_model(_model())
        assert TensorBoard(profile_batch="2,3")._should_trace
    assert caplog.text.count("profile_batch asks for a profiler trace") == 1
    assert caplog.text.count("embeddings_freq asks for the projector") == 1
    assert not glob.glob(os.path.join(str(tmp_path), "**", "*.pbtxt"), recursive=True)


def test_defaults_warn_nothing(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="tfcompat.keras.callbacks"):
        cb = TensorBoard(str(tmp_path))
        cb.set_model(_model())
    assert caplog.text == ""


def test_evaluation_scalars_need_an_optimizer(tmp_path):
    log_dir = str(tmp_path / "logs")
    model = _model(compiled=False)
    model.optimizer = None
    callback = TensorBoard(log_dir, write_graph=False)
    callback.set_model(model)
    callback.on_test_begin()
    callback.on_test_end({"loss": 1.0})
    # tf_keras opens the validation writer at on_test_begin, but writes nothing into it
    assert _rows(log_dir, "validation") == []


def test_restores_the_default_writer(tmp_path):
    from tfcompat import summary

    mine = summary.create_file_writer(str(tmp_path / "mine"))
    callback = TensorBoard(str(tmp_path / "logs"), update_freq=1, write_graph=False)
    with mine.as_default(step=11):
        _replay(callback, _model())
        assert bool(summary.scalar("after", 1.0))
    mine.close()
    tags = [v["tag"] for p in er.read_file(mine.path)[1:] for v in er.event(p)["values"]]
    assert tags == ["after"]


@pytest.mark.skipif(not hasattr(tf.keras.Model, "fit"), reason="Model.fit is not there yet")
def test_fit_writes_what_tf_keras_writes(tmp_path):
    """An actual tfcompat `fit`: the same files, tags and steps as tf_keras's, the values to
    float32 training noise (tfcompat's numerics follow TF's, not necessarily bit for bit)."""
    x = (np.arange(32, dtype=np.float64).reshape(8, 4) % 5 / 5.0 - 0.3).astype(np.float32)
    y = (np.arange(8, dtype=np.float64).reshape(8, 1) % 3 / 3.0).astype(np.float32)
    log_dir = str(tmp_path / "logs")
    model = _model()
    callback = TensorBoard(log_dir, histogram_freq=1, update_freq=1, write_images=True)
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(x, y),
              callbacks=[callback])
    for sub in ("train", "validation"):
        _check_rows(_rows(log_dir, sub), GOLDEN["events"][sub], exact=False)
