"""Golden values for tfcompat.summary and the TensorBoard callback, from TF 2.21 + tf_keras.

Run with the TensorFlow venv; tf.summary's typed ops need the `tensorboard` package next to
TF (TF 2.21 no longer depends on it): install it there, or put a `pip install --target DIR
--no-deps tensorboard==2.21.0` copy on PYTHONPATH. First write tfcompat's files with the main
venv, then run this script to check them and record the goldens:

    .venv/bin/python tests/summary/write_tfcompat_events.py /tmp/tfcompat_events
    PYTHONPATH=DIR TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python \\
        tests/summary/gen_summary_goldens.py --tfcompat-dir /tmp/tfcompat_events

It writes `fixtures/summary_goldens.json`:

* `cases`: for each case of `cases.py`, what TF wrote -- the tag, the step, and the
  serialized `Summary` (hex); for images the plugin metadata, the two dimension strings
  and the decoded pixels of each PNG instead (PNG bytes depend on the encoder);
* `errors` / `returns`: the exception (type and message) or the return value TF gives for
  the error and return cases;
* `file`: the first record and the name of a TF event file;
* `tfcompat_read_by_tf`: TF reading tfcompat's file (`summary_iterator`, which checks the
  framing CRCs): for each case whether tag, step, metadata, dtype, shape and values (image
  pixels decoded by `tf.image.decode_png`) equal TF's, and a digest of what tfcompat wrote,
  so the tests can tell when tfcompat's output changed since the check;
* `tfrecord`: a few records framed by TF's `tf.io.TFRecordWriter`;
* `callback`: a tf_keras `fit` with `TensorBoard(histogram_freq=1, update_freq=1,
  write_images=True)`: every hook call with its logs, counters and (at epoch ends)
  weights, and the events TensorBoard wrote in `train/` and `validation/`.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import sys
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from tests.summary.cases import CASES, ERROR_CASES, RETURN_CASES, run_case  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "summary_goldens.json")


def _clean_message(message: str) -> str:
    """TF's eager error text without the graph-function prefix and the empty name suffix."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" name: $", "", message)


def _events(tf, path):
    return list(tf.compat.v1.train.summary_iterator(path))


def _pixels(tf, png: bytes) -> list:
    return tf.io.decode_png(png).numpy().tolist()


def _json_value(arr: np.ndarray):
    """A JSON form of an ndarray that keeps NaN / inf (as strings)."""
    if arr.dtype == object:
        return [v.hex() if isinstance(v, bytes) else v for v in arr.reshape(-1).tolist()]
    flat = arr.astype(np.float64).reshape(-1)
    return [repr(float(v)) if not np.isfinite(v) else float(v) for v in flat]


def tf_cases(tf, workdir: str) -> dict:
    logdir = os.path.join(workdir, "tf_cases")
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default():
        for case in CASES:
            assert bool(run_case(tf.summary, case, tf.name_scope)), case["id"]
    writer.close()
    (path,) = glob.glob(os.path.join(logdir, "*"))
    events = _events(tf, path)
    assert len(events) == len(CASES) + 1
    out = {}
    for case, event in zip(CASES, events[1:]):
        (value,) = event.summary.value
        entry = {"tag": value.tag, "step": event.step}
        if case["op"] == "image":
            strings = tf.make_ndarray(value.tensor)
            entry["metadata_hex"] = value.metadata.SerializeToString().hex()
            entry["dims"] = [strings[0].decode(), strings[1].decode()]
            entry["pixels"] = [_pixels(tf, png) for png in strings[2:]]
        else:
            entry["summary_hex"] = event.summary.SerializeToString().hex()
        out[case["id"]] = entry
    return out, events[0], os.path.basename(path)


def _compare_value(tf, case, mine, theirs) -> str:
    """'' when tfcompat's Summary.Value `mine` carries what TF's `theirs` does, else why not."""
    if mine.tag != theirs.tag:
        return f"tag {mine.tag!r} != {theirs.tag!r}"
    if mine.metadata.SerializeToString() != theirs.metadata.SerializeToString():
        return "metadata differs"
    a, b = tf.make_ndarray(mine.tensor), tf.make_ndarray(theirs.tensor)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"dtype/shape {a.dtype}{a.shape} != {b.dtype}{b.shape}"
    if case["op"] == "image":
        if list(a[:2]) != list(b[:2]):
            return f"dims {a[:2]} != {b[:2]}"
        for x, y in zip(a[2:], b[2:]):
            if _pixels(tf, x) != _pixels(tf, y):
                return "pixels differ"
        return ""
    if a.dtype == object:
        return "" if a.tolist() == b.tolist() else "strings differ"
    if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
        return f"values {a.tolist()} != {b.tolist()}"
    if mine.SerializeToString() != theirs.SerializeToString():
        return "same values, different bytes"
    return ""


def _digest(tf, case, value) -> str:
    """A digest of what tfcompat wrote: the Summary.Value bytes, or for an image the tag,
    metadata, dims and decoded pixels (PNG bytes depend on the encoder)."""
    h = hashlib.sha256()
    if case["op"] == "image":
        strings = tf.make_ndarray(value.tensor)
        h.update(value.tag.encode() + b"\0" + value.metadata.SerializeToString())
        h.update(b"\0".join(strings[:2]))
        for png in strings[2:]:
            pixels = tf.io.decode_png(png).numpy()
            h.update(repr(pixels.shape).encode() + pixels.tobytes())
    else:
        h.update(value.SerializeToString())
    return h.hexdigest()


def check_tfcompat(tf, tfcompat_dir: str, tf_events_path: str) -> dict:
    (path,) = glob.glob(os.path.join(tfcompat_dir, "events.out.tfevents.*"))
    mine = _events(tf, path)  # TF's reader checks every framing CRC
    theirs = _events(tf, tf_events_path)
    result = {"file": _name_pattern(os.path.basename(path)), "records": len(mine),
              "first_file_version": mine[0].file_version, "cases": {}}
    for case, m, t in zip(CASES, mine[1:], theirs[1:]):
        (mv,), (tv,) = m.summary.value, t.summary.value
        why = _compare_value(tf, case, mv, tv)
        if m.step != t.step:
            why = why or f"step {m.step} != {t.step}"
        result["cases"][case["id"]] = {"match": not why, "detail": why,
                                       "digest": _digest(tf, case, mv)}
    result["all_match"] = (len(mine) == len(theirs)
                           and all(c["match"] for c in result["cases"].values()))
    return result


def _name_pattern(name: str) -> str:
    """An event file's name with its time, host and pid as placeholders."""
    name = re.sub(r"^events\.out\.tfevents\.\d{10}\.", "events.out.tfevents.<time>.", name)
    name = name.replace(socket.gethostname(), "<host>", 1)
    return re.sub(r"<host>\.\d+\.", "<host>.<pid>.", name)


def _without_time_and_writer(event):
    event = type(event).FromString(event.SerializeToString())
    event.ClearField("wall_time")
    event.ClearField("source_metadata")
    return event


def tf_errors(tf, workdir: str) -> tuple:
    errors, returns = {}, {}
    writer = tf.summary.create_file_writer(os.path.join(workdir, "tf_errors"))
    for table, sink in ((ERROR_CASES, errors), (RETURN_CASES, returns)):
        for case in table:
            try:
                if case["writer"]:
                    with writer.as_default():
                        got = case["call"](tf.summary)
                else:
                    got = case["call"](tf.summary)
            except Exception as e:  # noqa: BLE001 - recording what TF raises
                sink[case["id"]] = {"type": type(e).__name__, "message": _clean_message(str(e))}
            else:
                sink[case["id"]] = {"returned": None if got is None else bool(got)}
    writer.close()
    return errors, returns


def tf_records(tf, workdir: str) -> dict:
    """A TFRecord file written by TF's own `tf.io.TFRecordWriter`."""
    payloads = [b"", b"abc", bytes(range(256)) * 3]
    path = os.path.join(workdir, "records.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for p in payloads:
            w.write(p)
    with open(path, "rb") as f:
        return {"payloads_hex": [p.hex() for p in payloads], "file_hex": f.read().hex()}


# -- the TensorBoard callback ----------------------------------------------------------------

CALLBACK_X = (np.arange(32, dtype=np.float64).reshape(8, 4) % 5 / 5.0 - 0.3).astype(np.float32)
CALLBACK_Y = (np.arange(8, dtype=np.float64).reshape(8, 1) % 3 / 3.0).astype(np.float32)
CALLBACK_INIT = {  # Dense(3) on 4 inputs, then Dense(1): fixed initial weights
    "dense/kernel:0": (np.arange(12).reshape(4, 3) % 5 / 10.0 - 0.2).tolist(),
    "dense/bias:0": [0.1, -0.1, 0.0],
    "dense_1/kernel:0": [[0.3], [-0.2], [0.5]],
    "dense_1/bias:0": [0.05],
}


def tf_callback(tf, workdir: str) -> dict:
    keras = tf.keras
    log_dir = os.path.join(workdir, "tb_callback")
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(4,), name="dense"),
                              keras.layers.Dense(1, name="dense_1")])
    for w in model.weights:
        w.assign(np.asarray(CALLBACK_INIT[w.name], np.float32))
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=3, decay_rate=0.5)
    model.compile(keras.optimizers.SGD(schedule), "mse", metrics=["mae"])
    hooks = []

    class Recorder(keras.callbacks.Callback):
        def _record(self, hook, arg=None, logs=None):
            entry = {"hook": hook, "arg": arg,
                     "logs": {k: float(v) for k, v in (logs or {}).items()},
                     "train_counter": int(self.model._train_counter.numpy()),
                     "test_counter": int(self.model._test_counter.numpy()),
                     "iterations": int(self.model.optimizer.iterations.numpy())}
            if hook == "on_epoch_end":
                entry["weights"] = {w.name: w.numpy().tolist() for w in self.model.weights}
            hooks.append(entry)

        def on_train_begin(self, logs=None): self._record("on_train_begin", None, logs)
        def on_train_end(self, logs=None): self._record("on_train_end", None, logs)
        def on_epoch_begin(self, epoch, logs=None): self._record("on_epoch_begin", epoch, logs)
        def on_epoch_end(self, epoch, logs=None): self._record("on_epoch_end", epoch, logs)
        def on_test_begin(self, logs=None): self._record("on_test_begin", None, logs)
        def on_test_end(self, logs=None): self._record("on_test_end", None, logs)
        def on_train_batch_begin(self, batch, logs=None): self._record("on_train_batch_begin", batch, logs)
        def on_train_batch_end(self, batch, logs=None): self._record("on_train_batch_end", batch, logs)

    # The Recorder comes first: TensorBoard sees the same state after it records. Overriding
    # the batch hooks, it also makes tf_keras call TensorBoard's (tf_keras calls every
    # callback's batch hooks when any has them, as the progress bar does at verbose=1), so
    # `batch_<metric>` is written as in a verbose fit.
    tb = keras.callbacks.TensorBoard(log_dir, histogram_freq=1, update_freq=1, write_images=True)
    model.fit(CALLBACK_X, CALLBACK_Y, batch_size=4, epochs=2, shuffle=False, verbose=0,
              validation_data=(CALLBACK_X, CALLBACK_Y), callbacks=[Recorder(), tb])
    events = {}
    for sub in ("train", "validation"):
        (path,) = glob.glob(os.path.join(log_dir, sub, "events.out.tfevents.*"))
        rows = []
        for event in _events(tf, path)[1:]:
            for value in event.summary.value:
                plugin = value.metadata.plugin_data.plugin_name
                row = {"tag": value.tag, "step": event.step, "plugin": plugin}
                arr = tf.make_ndarray(value.tensor)
                if plugin == "images":
                    row["dims"] = [arr[0].decode(), arr[1].decode()]
                    row["pixels"] = [_pixels(tf, png) for png in arr[2:]]
                elif plugin in ("scalars", "histograms"):
                    row["value"] = _json_value(arr)
                    row["shape"] = list(arr.shape)
                rows.append(row)
        events[sub] = rows
    return {"hooks": hooks, "events": events, "subdirs": sorted(os.listdir(log_dir))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tfcompat-dir", help="a directory holding the event file that "
                        "write_tfcompat_events.py wrote")
    args = parser.parse_args()
    try:
        import tensorboard
    except ImportError:
        sys.exit("the tensorboard package is needed next to TensorFlow: see this script's doc")
    import tensorflow as tf

    workdir = tempfile.mkdtemp()
    try:
        cases, first, name = tf_cases(tf, workdir)
        errors, returns = tf_errors(tf, workdir)
        golden = {
            "tensorflow": tf.__version__, "tensorboard": tensorboard.__version__,
            "cases": cases, "errors": errors, "returns": returns,
            "file": {
                "name_pattern": _name_pattern(name),
                "first_event_hex": _without_time_and_writer(first).SerializeToString().hex(),
                "file_version": first.file_version,
                "source_writer": first.source_metadata.writer,
            },
            "callback": tf_callback(tf, workdir),
            "tfrecord": tf_records(tf, workdir),
        }
        if args.tfcompat_dir:
            tf_path = glob.glob(os.path.join(workdir, "tf_cases", "*"))[0]
            golden["tfcompat_read_by_tf"] = check_tfcompat(tf, args.tfcompat_dir, tf_path)
        elif os.path.exists(FIXTURE):
            with open(FIXTURE) as f:
                old = json.load(f).get("tfcompat_read_by_tf")
            if old:
                golden["tfcompat_read_by_tf"] = old
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    with open(FIXTURE, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    check = golden.get("tfcompat_read_by_tf")
    if check:
        bad = {k: v["detail"] for k, v in check["cases"].items() if not v["match"]}
        print("tfcompat's file read by TF:", "all cases match" if check["all_match"] else bad)
    print("wrote", FIXTURE)


if __name__ == "__main__":
    main()
