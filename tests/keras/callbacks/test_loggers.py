"""ProgbarLogger, CSVLogger and BaseLogger beyond the tf_keras goldens: argument errors,
CSV round trips (a law), paths, and the public names of `tf.keras.callbacks`."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras import callbacks as cbks

from tests.keras.callbacks import callback_driver as cc


def test_public_names():
    expected = {"BackupAndRestore", "BaseLogger", "CSVLogger", "Callback", "CallbackList",
                "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler",
                "ModelCheckpoint", "ProgbarLogger", "ReduceLROnPlateau", "TensorBoard",
                "TerminateOnNaN"}
    assert set(tf.keras.callbacks.__all__) == expected
    for name in expected:
        assert getattr(tf.keras.callbacks, name).__module__.startswith(
            "tfcompat.keras.callbacks.")


def test_progbar_logger_count_mode_error():
    with pytest.raises(ValueError, match=r'Unknown `count_mode`: batches. Expected values are '
                                         r'\["samples", "steps"\]'):
        cbks.ProgbarLogger(count_mode="batches")


def test_progbar_logger_silent_inside_fit_validation(capsys):
    e = cc.Env(tf, tf.keras, [0.0], "/nonexistent", lambda r: True, [])
    cc.fit(e, cc.make_model(e), [], epochs=1, steps=2, verbose=2, validation_steps=3)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("2/2 - ")


@settings(max_examples=20)
@given(st.lists(st.dictionaries(st.sampled_from(["loss", "acc", "val_loss", "mae"]),
                                st.floats(-1e6, 1e6, allow_nan=False), min_size=1),
                min_size=1, max_size=4),
       st.sampled_from([",", ";", "\t"]))
def test_csv_rows_read_back(tmp_path_factory, epochs, sep):
    # Law: reading the file with the same delimiter gives the first epoch's keys (plus val_
    # twins when it had none) and each epoch's values, "NA" where a key was missing.
    path = str(tmp_path_factory.mktemp("csv") / "log.csv")
    cb = cbks.CSVLogger(path, separator=sep)
    cb.on_train_begin()
    for i, logs in enumerate(epochs):
        cb.on_epoch_end(i, dict(logs))
    cb.on_train_end()
    keys = sorted(epochs[0])
    if not any(k.startswith("val_") for k in keys):
        keys += ["val_" + k for k in keys]
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter=sep))
    assert rows[0] == ["epoch"] + keys
    for i, (row, logs) in enumerate(zip(rows[1:], epochs)):
        assert row[0] == str(i)
        assert row[1:] == [repr(logs[k]) if k in logs else "NA" for k in keys]


def test_csv_logger_pathlike_and_reuse(tmp_path):
    cb = cbks.CSVLogger(tmp_path / "a.csv")
    assert cb.filename == str(tmp_path / "a.csv")
    for _ in range(2):  # a second fit rewrites the file (append=False)
        cb.on_train_begin()
        cb.on_epoch_end(0, {"loss": 1.0, "v": np.float32(0.5), "t": np.array(2.0)})
        cb.on_train_end()
    with open(tmp_path / "a.csv", newline="") as f:
        assert f.read() == "epoch,loss,t,v,val_loss,val_t,val_v\r\n0,1.0,2.0,0.5,NA,NA,NA\r\n"


def test_base_logger_epoch_averages():
    cb = cbks.BaseLogger(stateful_metrics=["acc"])
    cb.set_params({"metrics": ["loss", "acc", "absent"]})
    cb.on_epoch_begin(0)
    cb.on_batch_end(0, {"size": 2, "loss": 1.0, "acc": 0.1})
    cb.on_batch_end(1, {"size": 6, "loss": 3.0, "acc": 0.9})
    logs = {}
    cb.on_epoch_end(0, logs)
    assert logs == {"loss": (2 * 1.0 + 6 * 3.0) / 8, "acc": 0.9}


def test_terminate_on_nan_inside_a_fit_stops_the_epoch(capsys):
    e = cc.Env(tf, tf.keras, [0.0], "/nonexistent", lambda r: True, [])
    model = cc.make_model(e)
    seen = []
    spy = cbks.LambdaCallback(on_batch_end=lambda b, logs: seen.append(b))
    cc.fit(e, model, [cbks.TerminateOnNaN(), spy], epochs=2, steps=4,
           batch_logs=lambda ep, s: {"loss": float("nan") if s == 2 else 0.5})
    assert seen == [0, 1, 2] and model.stop_training
    assert capsys.readouterr().out == "Batch 2: Invalid loss, terminating training\n"


def test_progbar_logger_reads_a_tensor_counter(capsys):
    # With no steps known, the bar's target at epoch end is the model's train counter
    # when it has one (tf_keras's `_train_counter`).
    e = cc.Env(tf, tf.keras, [0.0], "/nonexistent", lambda r: True, [])
    model = cc.make_model(e)
    if getattr(model, "_train_counter", None) is not None:  # the training loop's counter
        model._train_counter.assign(5)
    else:
        model.__dict__.update(_train_counter=tf.Variable(5, dtype=tf.int64),
                              _test_counter=None, _predict_counter=None)
    logger = cbks.ProgbarLogger("steps")
    logger.set_model(model)
    logger.set_params({"verbose": 2, "epochs": 1, "steps": None})
    assert not logger._call_batch_hooks
    logger.on_epoch_begin(0)
    logger.on_epoch_end(0, {"loss": torch.tensor(0.5)})
    assert capsys.readouterr().out.startswith("5/5 - 0s - loss: 0.5000")
