"""`BackupAndRestore`: a fit interrupted at any step and rerun with the same backup
directory ends with exactly the weights and optimizer state of an uninterrupted fit; the
resume point `maybe_load_initial_counters_from_ckpt` gives; backup files and cleanup;
a real process killed mid-fit."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras import callbacks as cbks

from tests.keras.callbacks import callback_driver as cc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def env(tmpdir):
    return cc.Env(tf, tf.keras, [0.0], str(tmpdir), lambda r: True, ["tfcompat.keras.callbacks"])


def adam_model(e):
    m = cc.make_model(e)
    m.optimizer = tf.keras.optimizers.legacy.Adam(0.05)
    return m


def state(model):
    # Slots by (variable, slot name): a restored optimizer may create them in another order.
    opt = model.optimizer
    slots = {(i, name): opt.get_slot(v, name).numpy().copy()
             for i, v in enumerate(model.trainable_variables) for name in opt.get_slot_names()}
    slots["iterations"] = opt.iterations.numpy()
    slots["lr"] = opt.lr.numpy()
    return [w.copy() for w in model.get_weights()], slots


def assert_same_state(a, b):
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    assert set(a[1]) == set(b[1])
    for name in a[1]:
        np.testing.assert_array_equal(a[1][name], b[1][name], err_msg=str(name))


@settings(max_examples=8)
@given(st.integers(0, 3), st.integers(0, 2), st.sampled_from(["epoch", 1, 2, 4]))
def test_interrupted_fit_resumes_to_the_same_state(tmp_path_factory, epoch, step, save_freq):
    e = env(tmp_path_factory.mktemp("b"))
    reference = adam_model(e)
    cc.fit(e, reference, [], epochs=4, steps=3)
    backup = os.path.join(e.tmpdir, "backup")
    killed = adam_model(e)
    with pytest.raises(KeyboardInterrupt):
        cc.fit(e, killed, [cbks.BackupAndRestore(backup, save_freq=save_freq)], epochs=4,
               steps=3, interrupt=(epoch, step))
    resumed = adam_model(e)
    cc.fit(e, resumed, [cbks.BackupAndRestore(backup, save_freq=save_freq)], epochs=4, steps=3)
    assert_same_state(state(resumed), state(reference))
    assert int(resumed.optimizer.iterations.numpy()) == 12
    assert not os.path.exists(backup) or os.listdir(backup) == []
    assert getattr(resumed, "_training_state", None) is None


def _counters(e, save_freq, epoch, batch, steps=3, initial_epoch=0):
    model = cc.make_model(e)
    cb = cbks.BackupAndRestore(os.path.join(e.tmpdir, "c"), save_freq=save_freq)
    cb.set_model(model)
    cb.on_train_begin()
    state_ = model._training_state
    state_._ckpt_saved_epoch.assign(epoch)
    state_._ckpt_saved_batch.assign(batch)
    return state_.maybe_load_initial_counters_from_ckpt(steps, initial_epoch)


@pytest.mark.parametrize("save_freq,epoch,batch,expected", [
    ("epoch", -1, -1, (5, 0)),   # nothing backed up: the caller's initial epoch
    ("epoch", 2, -1, (3, 0)),    # backed up at the end of epoch 2
    ("epoch", 2, 1, (3, 0)),     # the batch does not matter for epoch saving
    (2, 1, 1, (1, 2)),           # mid-epoch: the next step of the same epoch
    (2, 1, 2, (2, 0)),           # the epoch's last batch: the next epoch
    (2, 1, -1, (5, 0)),          # no batch recorded
])
def test_resume_point(tmp_path, save_freq, epoch, batch, expected):
    assert _counters(env(tmp_path), save_freq, epoch, batch, initial_epoch=5) == expected


def test_resume_point_outside_training(tmp_path):
    e = env(tmp_path)
    model = cc.make_model(e)
    cb = cbks.BackupAndRestore(e.tmpdir)
    cb.set_model(model)
    cb.on_train_begin()
    model._training_state._ckpt_saved_epoch.assign(3)
    assert model._training_state.maybe_load_initial_counters_from_ckpt(2, 0, "test") == (0, 0)


def test_backup_layout_and_keep_on_request(tmp_path):
    e = env(tmp_path)
    backup = os.path.join(e.tmpdir, "keep")
    cc.fit(e, cc.make_model(e), [cbks.BackupAndRestore(backup, delete_checkpoint=False)],
           epochs=3, steps=1)
    names = sorted(os.listdir(os.path.join(backup, "chief")))
    assert names == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index"]  # one kept
    path = tf.train.latest_checkpoint(os.path.join(backup, "chief"))
    assert int(tf.train.load_variable(path, "ckpt_saved_epoch/.ATTRIBUTES/VARIABLE_VALUE")) == 2
    # A rerun of a finished fit restores the end state and starts after the last epoch.
    rerun = cc.make_model(e)
    seen = []
    cc.fit(e, rerun, [cbks.BackupAndRestore(backup),
                      cbks.LambdaCallback(on_epoch_begin=lambda ep, logs: seen.append(ep))],
           epochs=3, steps=1)
    assert seen == [] and os.listdir(backup) == []  # `chief/` removed, as tf_keras does


def test_argument_and_build_checks(tmp_path, caplog):
    with pytest.raises(ValueError, match="Either `save_freq` or `save_before_preemption` "
                                         "must be set."):
        cbks.BackupAndRestore(str(tmp_path), save_freq=False)
    cbks.BackupAndRestore(str(tmp_path), save_freq=False, save_before_preemption=True)
    unbuilt = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    cb = cbks.BackupAndRestore(tmp_path / "u")  # a PathLike directory
    cb.set_model(unbuilt)
    with caplog.at_level(logging.WARNING, logger="tfcompat.keras.callbacks"):
        cb.on_train_begin()
    assert "you model must be built before you call `fit()`" in caplog.text
    assert cb.backup_dir == str(tmp_path / "u")


def test_epoch_saving_skips_batch_hooks(tmp_path):
    assert not cbks.BackupAndRestore(str(tmp_path))._implements_train_batch_hooks()
    assert cbks.BackupAndRestore(str(tmp_path), save_freq=3)._implements_train_batch_hooks()


_CHILD = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    import tfcompat as tf
    from tests.keras.callbacks import callback_driver as cc
    e = cc.Env(tf, tf.keras, [0.0], {tmp!r}, lambda r: True, [])
    m = cc.make_model(e)
    def die(epoch, logs):
        if epoch == 2:
            os._exit(17)  # killed: no on_train_end, nothing flushed or cleaned up
    cc.fit(e, m, [tf.keras.callbacks.BackupAndRestore({backup!r}),
                  tf.keras.callbacks.LambdaCallback(on_epoch_begin=die)], epochs=4, steps=3)
""")


def test_killed_process_resumes(tmp_path):
    e = env(tmp_path)
    backup = os.path.join(e.tmpdir, "killed")
    child = subprocess.run(
        [sys.executable, "-c", _CHILD.format(root=ROOT, tmp=e.tmpdir, backup=backup)],
        timeout=240, capture_output=True, text=True)
    assert child.returncode == 17, child.stderr[-2000:]
    reference = cc.make_model(e)
    cc.fit(e, reference, [], epochs=4, steps=3)
    resumed = cc.make_model(e)
    seen = []
    cc.fit(e, resumed, [cbks.BackupAndRestore(backup),
                        cbks.LambdaCallback(on_epoch_begin=lambda ep, logs: seen.append(ep))],
           epochs=4, steps=3)
    assert seen == [2, 3]
    assert_same_state(state(resumed), state(reference))
