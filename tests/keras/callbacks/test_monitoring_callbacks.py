"""EarlyStopping, ReduceLROnPlateau and LearningRateScheduler as laws over arbitrary metric
sequences (the exact tf_keras traces are in test_callback_golden.py), plus their errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras import callbacks as cbks

from tests.keras.callbacks import callback_driver as cc

VALUES = st.sampled_from([0.1, 0.2, 0.3, 0.4, 0.5])


def env():
    return cc.Env(tf, tf.keras, [0.0], "/nonexistent", lambda r: True, [])


def run(callbacks, table, key="val_loss", steps=1):
    e = env()
    model = cc.make_model(e)
    snapshots = []
    spy = cbks.LambdaCallback(on_epoch_end=lambda ep, logs: snapshots.append(model.get_weights()))
    history = cc.fit(e, model, list(callbacks) + [spy], epochs=len(table), steps=steps,
                     val_logs=lambda ep: {key: table[ep]})
    return model, history, snapshots


@settings(max_examples=30)
@given(st.lists(VALUES, min_size=1, max_size=8), st.integers(0, 3), st.integers(0, 3))
def test_early_stopping_law(table, patience, start):
    # Stops at the first epoch e > 0 (looked at: e >= start) that does not beat the best
    # looked-at value before it while at least `patience` epochs separate e from that best.
    cb = cbks.EarlyStopping(patience=patience, start_from_epoch=start,
                            restore_best_weights=True)
    model, history, snapshots = run([cb], table)
    expected_stop = None
    for e in range(1, len(table)):
        seen = table[start:e]
        if e < start or not seen:
            continue
        best_epoch = start + int(np.argmin(seen))
        if table[e] >= min(seen) and e - best_epoch >= patience:
            expected_stop = e
            break
    assert cb.stopped_epoch == (expected_stop or 0)
    run_epochs = (expected_stop + 1) if expected_stop is not None else len(table)
    assert history.epoch == list(range(run_epochs))
    looked = table[start:run_epochs]
    if looked:
        best_epoch = start + int(np.argmin(looked))
        assert cb.best_epoch == best_epoch and cb.best == min(looked)
        for a, b in zip(model.get_weights(), snapshots[best_epoch]):
            np.testing.assert_array_equal(a, b)
    else:  # nothing looked at: nothing restored
        for a, b in zip(model.get_weights(), snapshots[-1]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("monitor,maximise", [
    ("val_acc", True), ("accuracy", True), ("val_auc", True), ("val_loss", False),
    ("val_acc_top5", False), ("mae", False)])
def test_early_stopping_auto_direction(monitor, maximise):
    cb = cbks.EarlyStopping(monitor=monitor, min_delta=0.5)
    assert (cb.monitor_op is np.greater) is maximise
    assert cb.min_delta == (0.5 if maximise else -0.5)


@settings(max_examples=30)
@given(st.lists(VALUES, min_size=1, max_size=10), st.integers(0, 3), st.integers(0, 2),
       st.sampled_from([0.0, 0.01, 0.05]), st.sampled_from([0.5, 0.1]))
def test_reduce_lr_on_plateau_law(table, patience, cooldown, min_lr, factor):
    cb = cbks.ReduceLROnPlateau(patience=patience, cooldown=cooldown, min_lr=min_lr,
                                factor=factor, min_delta=0.0)
    e = env()
    model = cc.make_model(e)
    trace = []
    spy = cbks.LambdaCallback(on_epoch_end=lambda ep, logs: trace.append(
        (logs["lr"], model.optimizer.lr.numpy())))
    cc.fit(e, model, [cb, spy], epochs=len(table), steps=1,
           val_logs=lambda ep: {"val_loss": table[ep]})
    logged = [lr for lr, _ in trace]
    after = [lr for _, lr in trace]
    assert all(type(lr) is np.float32 for lr in logged)  # backend.get_value's type
    assert logged[0] == np.float32(0.1) and logged[1:] == after[:-1]  # logged before acting
    previous, reductions = np.float32(0.1), []
    for ep, lr in enumerate(after):
        assert lr <= previous and lr >= np.float32(min_lr)
        if lr != previous:
            assert lr == np.float32(max(previous * factor, min_lr))
            reductions.append(ep)
        previous = lr
    if reductions:
        assert reductions[0] >= max(patience, 1)
    gap = max(1, patience + max(cooldown - 1, 0))
    assert all(b - a >= gap for a, b in zip(reductions, reductions[1:]))


def test_reduce_lr_adds_lr_to_history():
    _, history, _ = run([cbks.ReduceLROnPlateau(patience=0, factor=0.5)], [1.0, 1.0, 1.0])
    assert history.history["lr"] == [np.float32(0.1), np.float32(0.1), np.float32(0.05)]


def test_reduce_lr_factor_check():
    with pytest.raises(ValueError, match="ReduceLROnPlateau does not support a factor >= 1.0. "
                                         "Got 1.5"):
        cbks.ReduceLROnPlateau(factor=1.5)


@settings(max_examples=20)
@given(st.lists(st.floats(1e-5, 1.0), min_size=1, max_size=5), st.booleans())
def test_scheduler_sets_each_epochs_rate(rates, two_args):
    schedule = (lambda ep, lr: rates[ep]) if two_args else (lambda ep: rates[ep])
    e = env()
    model = cc.make_model(e)
    at_begin = []
    spy = cbks.LambdaCallback(
        on_epoch_begin=lambda ep, logs: at_begin.append(model.optimizer.lr.numpy()))
    history = cc.fit(e, model, [cbks.LearningRateScheduler(schedule), spy],
                     epochs=len(rates), steps=1)
    expected = [np.float32(r) for r in rates]
    assert at_begin == expected and history.history["lr"] == expected


def test_scheduler_two_argument_form_gets_the_current_rate():
    seen = []

    def schedule(epoch, lr):
        seen.append(lr)
        return lr * 0.5

    run([cbks.LearningRateScheduler(schedule)], [1.0, 1.0, 1.0])
    assert seen == [float(np.float32(0.1)), float(np.float32(0.05)), float(np.float32(0.025))]
    assert all(type(v) is float for v in seen)


def test_scheduler_accepts_float_tensors_and_refuses_others():
    run([cbks.LearningRateScheduler(lambda ep: torch.tensor(0.25, dtype=torch.float64))],
        [1.0])
    with pytest.raises(ValueError, match=r"The dtype of `lr` Tensor should be float. Got: "
                                         r"<dtype: 'int64'>"):
        run([cbks.LearningRateScheduler(lambda ep: torch.tensor(3))], [1.0])
    with pytest.raises(ValueError, match='The output of the "schedule" function should be '
                                         "float. Got: None"):
        run([cbks.LearningRateScheduler(lambda ep: None)], [1.0])


def test_scheduler_needs_an_optimizer_with_lr():
    model = cc.make_model(env())
    model.optimizer = object()
    cb = cbks.LearningRateScheduler(lambda ep: 0.1)
    cb.set_model(model)
    with pytest.raises(ValueError, match='Optimizer must have a "lr" attribute.'):
        cb.on_epoch_begin(0)
