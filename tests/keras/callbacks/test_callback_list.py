"""`CallbackList`, `Callback`, `History`, `LambdaCallback`: which hooks run, what logs each
callback receives, when tensors are read on the host, defaults, and the slow-hook warning."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.keras import callbacks as cbks
from tfcompat.keras.callbacks.base import sync_to_numpy_or_python_type

from tests.keras.callbacks.host_reads import Counted, counted


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    Counted.reads = []
    return now


def model():
    x = tf.keras.Input((2,))
    return tf.keras.Model(x, tf.keras.layers.Dense(1)(x))


def run_epoch(cbl, steps, clock, logs_fn, dt=0.01, epoch_logs=None):
    cbl.on_train_begin()
    cbl.on_epoch_begin(0)
    logs = None
    for step in range(steps):
        clock[0] += dt
        cbl.on_train_batch_begin(step)
        logs = logs_fn(step)
        cbl.on_train_batch_end(step, logs)
    # The epoch's logs as fit hands them over: already Python numbers.
    cbl.on_epoch_end(0, epoch_logs if epoch_logs is not None else {"loss": 0.5})
    cbl.on_train_end()


# ------------------------------------------------------------------ host reads
def test_history_and_verbose1_progbar_read_only_when_printing(clock, capsys):
    # interval 0.05 s, 0.01 s a batch: the bar prints about every 5th batch, and only
    # then reads the (stateful) loss; History has no batch hooks.
    cbl = cbks.CallbackList(
        [cbks.ProgbarLogger("steps", stateful_metrics=["loss"])], add_history=True,
        model=model(), verbose=1, epochs=1, steps=100)
    run_epoch(cbl, 100, clock, lambda s: {"loss": counted(1.0 / (s + 1))})
    printed = capsys.readouterr().out.count("\r")
    assert 10 <= printed <= 25
    assert len(Counted.reads) == printed - 1  # the final line shows the epoch's Python logs


def test_model_metrics_are_stateful_for_the_progbar(clock, capsys):
    m = model()
    m._metrics.append(tf.keras.metrics.Mean(name="loss"))  # as compile's loss tracker
    cbl = cbks.CallbackList(None, add_history=True, add_progbar=True, model=m, verbose=1,
                            epochs=1, steps=50)
    run_epoch(cbl, 50, clock, lambda s: {"loss": counted(0.5)})
    assert len(Counted.reads) < 20


def test_verbose2_calls_no_batch_hooks(clock, capsys):
    cbl = cbks.CallbackList(None, add_history=True, add_progbar=True, model=model(), verbose=2,
                            epochs=1, steps=20)
    assert not cbl._should_call_train_batch_hooks
    run_epoch(cbl, 20, clock, lambda s: {"loss": counted(0.5)})
    assert Counted.reads == []
    assert capsys.readouterr().out.startswith("20/20 - 0s - loss: 0.5000 - 200ms/epoch")


def test_only_callbacks_implementing_the_hook_cause_reads(clock):
    seen = []

    class TestOnly(cbks.Callback):
        def on_test_batch_end(self, batch, logs=None):
            seen.append(logs)

    class TrainTensors(cbks.Callback):
        def __init__(self):
            super().__init__()
            self._supports_tf_logs = True

        def on_train_batch_end(self, batch, logs=None):
            seen.append(type(logs["loss"]))

    cbl = cbks.CallbackList([TestOnly(), TrainTensors()], add_history=True, model=model())
    run_epoch(cbl, 5, clock, lambda s: {"loss": counted(0.5)})
    assert Counted.reads == [] and seen == [Counted] * 5
    cbl.on_test_batch_end(0, {"loss": counted(0.25)})
    assert seen[-1] == {"loss": 0.25} and Counted.reads == ["item"]


def test_plain_callback_gets_python_numbers_once_per_batch(clock):
    got = []

    class Plain(cbks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            got.append(logs)

    cbl = cbks.CallbackList([Plain(), Plain()], model=model())
    cbl.on_train_batch_end(0, {"loss": counted(0.5), "v": torch.tensor([1.0, 2.0]),
                               "name": "x", "n": 3})
    assert Counted.reads == ["item"]  # one read, shared by both callbacks
    assert got[0] is got[1]
    assert got[0]["loss"] == 0.5 and type(got[0]["loss"]) is float
    assert isinstance(got[0]["v"], np.ndarray) and got[0]["v"].tolist() == [1.0, 2.0]
    assert got[0]["name"] == "x" and got[0]["n"] == 3


def test_epoch_logs_are_one_shared_dict():
    # A key added by one callback (ReduceLROnPlateau's lr) is seen by the later ones.
    seen = []

    class Adds(cbks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["extra"] = 1

    class Reads(cbks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append(dict(logs))

    cbl = cbks.CallbackList([Adds(), Reads()], add_history=True, model=model())
    cbl.on_train_begin()
    cbl.on_epoch_end(0, {"loss": torch.tensor(0.5)})
    assert seen == [{"loss": 0.5, "extra": 1}]
    assert cbl._history.history == {"loss": [0.5], "extra": [1]}


@given(st.recursive(st.one_of(st.floats(allow_nan=False), st.integers(-5, 5), st.text(max_size=3)),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.text(max_size=2), inner, max_size=3), max_leaves=6))
def test_sync_leaves_plain_python_alone(structure):
    assert sync_to_numpy_or_python_type(structure) == structure


def test_sync_converts_tensors_and_numpy_scalars():
    out = sync_to_numpy_or_python_type({
        "a": torch.tensor(2, dtype=torch.int64), "b": np.float32(0.5),
        "c": torch.ones(2, dtype=torch.bfloat16), "d": [torch.tensor(1.5)],
        "e": np.array(3.0), "f": tf.Variable(1.0)})
    assert out["a"] == 2 and type(out["a"]) is int
    assert type(out["b"]) is float and type(out["e"]) is float
    assert out["c"].dtype == np.float32 and out["c"].tolist() == [1.0, 1.0]
    assert out["d"] == [1.5]
    assert isinstance(out["f"], tf.Variable)  # variables are left as tf_keras leaves them


# ------------------------------------------------------------------ which hooks run
def test_batch_hooks_run_only_when_some_callback_implements_them():
    calls = []

    class Quiet(cbks.Callback):
        def _implements_train_batch_hooks(self):
            return False

        def on_train_batch_end(self, batch, logs=None):
            calls.append(batch)

    cbl = cbks.CallbackList([Quiet()])
    cbl.on_train_batch_end(0, {})
    assert calls == []
    cbl.append(cbks.LambdaCallback(on_batch_end=lambda b, logs: None))
    cbl.on_train_batch_end(1, {})  # now every callback's hook runs, as in tf_keras
    assert calls == [1]


def test_default_hooks_and_old_names():
    cb = cbks.Callback()
    assert not cb._implements_train_batch_hooks()
    assert not cb._implements_test_batch_hooks()
    assert not cb._implements_predict_batch_hooks()
    calls = []

    class Old(cbks.Callback):
        def on_batch_begin(self, batch, logs=None):
            calls.append(("begin", batch))

    old = Old()
    assert old._implements_train_batch_hooks() and not old._implements_test_batch_hooks()
    cbks.CallbackList([old]).on_train_batch_begin(3)
    cbks.CallbackList([old]).on_batch_begin(4)
    assert calls == [("begin", 3), ("begin", 4)]


@pytest.mark.parametrize("mode", ["test", "predict"])
def test_mode_batch_hooks(mode):
    calls = []
    cls = type("C", (cbks.Callback,), {f"on_{mode}_batch_end": lambda self, b, logs=None:
                                       calls.append((b, logs))})
    cbl = cbks.CallbackList([cls()])
    getattr(cbl, f"on_{mode}_batch_begin")(0)
    getattr(cbl, f"on_{mode}_batch_end")(0, None)
    cbl.on_train_batch_end(0, {"loss": 1.0})
    assert calls == [(0, {})]


def test_unknown_batch_hook_raises():
    cbl = cbks.CallbackList([cbks.LambdaCallback(on_batch_end=lambda b, l: None)])
    with pytest.raises(ValueError, match=r'Unrecognized hook: middle. Expected values are '
                                         r'\["begin", "end"\]'):
        cbl._call_batch_hook("train", "middle", 0)


def test_defaults_added_once_and_wired():
    m = model()
    history = cbks.History()
    cbl = cbks.CallbackList([history], add_history=True, add_progbar=True, model=m,
                            verbose=1, epochs=2, steps=3)
    assert [type(c).__name__ for c in cbl] == ["History", "ProgbarLogger"]
    assert cbl._progbar.use_steps and cbl._progbar.target == 3
    assert m.history is history
    assert all(c.model is m for c in cbl)
    assert history.params == {"verbose": 1, "epochs": 2, "steps": 3}
    assert (cbl._progbar.verbose, cbl._progbar.epochs) == (1, 2)  # it keeps no `params`
    assert list(cbks.CallbackList(None).callbacks) == []
    nested = cbks.CallbackList([[history], (cbks.Callback(),)])
    assert len(nested.callbacks) == 2


def test_history_records_epochs():
    m = model()
    cbl = cbks.CallbackList(None, add_history=True, model=m, epochs=3, steps=1, verbose=0)
    cbl.on_train_begin()
    for e in range(3):
        cbl.on_epoch_end(e, {"loss": 1.0 / (e + 1), "val_loss": 2.0})
    h = m.history
    assert h.epoch == [0, 1, 2] and h.history["val_loss"] == [2.0] * 3
    assert h.params == {"epochs": 3, "steps": 1, "verbose": 0}
    cbl.on_train_begin()  # a new fit resets `epoch`, not `history` (tf_keras)
    assert h.epoch == [] and len(h.history["loss"]) == 3


def test_lambda_callback():
    calls = []
    cb = cbks.LambdaCallback(on_epoch_begin=lambda e, logs: calls.append(("eb", e)),
                             on_train_end=lambda logs: calls.append(("te", logs)),
                             on_test_batch_end=lambda b, logs: calls.append(("tb", b)),
                             color="red")
    assert cb.color == "red" and cb._implements_test_batch_hooks()
    assert not cb._implements_train_batch_hooks()
    cbl = cbks.CallbackList([cb])
    cbl.on_epoch_begin(2)
    cbl.on_test_batch_end(5)
    cbl.on_train_end({"loss": torch.tensor(1.0)})
    assert calls == [("eb", 2), ("tb", 5), ("te", {"loss": 1.0})]


# ------------------------------------------------------------------ slow hooks
def test_slow_user_hook_warns_once(clock, caplog):
    class Slow(cbks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            clock[0] += 1.0

    cbl = cbks.CallbackList([Slow()], model=model())
    with caplog.at_level(logging.WARNING, logger="tfcompat.keras.callbacks"):
        for step in range(12):
            cbl.on_train_batch_begin(step)
            clock[0] += 0.1  # the step itself
            cbl.on_train_batch_end(step, {})
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "Callback method `on_train_batch_end` is slow compared to the batch time (batch time: "
        "0.1000s vs `on_train_batch_end` time: 1.0000s). Check your callbacks."]


def test_builtin_callbacks_are_not_timed():
    cbl = cbks.CallbackList([cbks.History(), cbks.TerminateOnNaN()])
    assert not cbl._check_timing
    assert cbks.CallbackList([cbks.LambdaCallback()])._check_timing is False
    assert cbks.CallbackList([type("Mine", (cbks.Callback,), {})()])._check_timing


def test_terminate_on_nan_reads_loss_and_stops(capsys):
    m = model()
    m.stop_training = False
    cb = cbks.TerminateOnNaN()
    cb.set_model(m)
    cb.on_train_batch_end(0, {"loss": torch.tensor(0.5)})
    assert not m.stop_training
    cb.on_train_batch_end(1, {"acc": torch.tensor(float("nan"))})  # no loss: nothing
    assert not m.stop_training
    cb.on_batch_end(7, {"loss": torch.tensor(float("-inf"))})
    assert m.stop_training
    assert capsys.readouterr().out == "Batch 7: Invalid loss, terminating training\n"
