"""`ModelCheckpoint`: which epochs save under `save_best_only` (a law), what is saved and
how it loads back, host reads only when saving, and the errors tfcompat's savers add."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras import callbacks as cbks

from tests.keras.callbacks import callback_driver as cc
from tests.keras.callbacks.host_reads import Counted, counted


def env(tmpdir):
    return cc.Env(tf, tf.keras, [0.0], str(tmpdir), lambda r: True, ["tfcompat.keras.callbacks"])


@settings(max_examples=15)
@given(st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.5, 0.8]), min_size=1, max_size=6),
       st.sampled_from(["min", "max", "auto_acc", "auto_loss"]))
def test_best_only_saves_exactly_at_strict_running_best(tmp_path_factory, table, mode):
    e = env(tmp_path_factory.mktemp("c"))
    monitor = "val_acc" if mode == "auto_acc" else "val_loss"
    maximise = mode in ("max", "auto_acc")
    cb = cbks.ModelCheckpoint(os.path.join(e.tmpdir, "e{epoch}.h5"), monitor=monitor,
                              save_best_only=True, save_weights_only=True,
                              mode=mode.split("_")[0])
    cc.fit(e, cc.make_model(e), [cb], epochs=len(table), steps=1,
           val_logs=lambda ep: {monitor: table[ep]})
    best, expected = (-np.inf if maximise else np.inf), []
    for ep, v in enumerate(table):
        if (v > best) if maximise else (v < best):
            best = v
            expected.append(f"e{ep + 1}.h5")
    assert sorted(os.listdir(e.tmpdir)) == sorted(expected)
    assert cb.best == best


@pytest.mark.parametrize("filepath", ["w-{epoch}.h5", "w-{epoch}"])
def test_saved_weights_load_back(tmp_path, filepath):
    e = env(tmp_path)
    model = cc.make_model(e)
    cc.fit(e, model, [cbks.ModelCheckpoint(os.path.join(e.tmpdir, filepath),
                                           save_weights_only=True)], epochs=2, steps=2)
    fresh = cc.make_model(e)
    fresh.load_weights(os.path.join(e.tmpdir, filepath.format(epoch=2)))
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_full_model_h5_loads_back(tmp_path):
    e = env(tmp_path)
    model = cc.make_model(e)
    cc.fit(e, model, [cbks.ModelCheckpoint(tmp_path / "m.h5")], epochs=1, steps=1)
    loaded = tf.keras.models.load_model(str(tmp_path / "m.h5"), compile=False)
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_load_weights_on_restart_picks_the_newest(tmp_path):
    e = env(tmp_path)
    model = cc.make_model(e)
    path = os.path.join(e.tmpdir, "r{epoch}.h5")
    cc.fit(e, model, [cbks.ModelCheckpoint(path, save_weights_only=True)], epochs=3, steps=1)
    # Same mtime for all three (coarse clocks): the largest name wins, as in tf_keras.
    for name in os.listdir(e.tmpdir):
        os.utime(os.path.join(e.tmpdir, name), (1000, 1000))
    fresh = cc.make_model(e)
    cb = cbks.ModelCheckpoint(path, save_weights_only=True, load_weights_on_restart=True)
    cb.set_model(fresh)
    assert cb._get_most_recently_modified_file_matching_pattern(path).endswith("r3.h5")
    os.utime(os.path.join(e.tmpdir, "r2.h5"), (2000, 2000))
    assert cb._get_most_recently_modified_file_matching_pattern(path).endswith("r2.h5")
    os.utime(os.path.join(e.tmpdir, "r3.h5"), (3000, 3000))
    cb.on_train_begin()
    for a, b in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_load_weights_on_restart_prefers_latest_tf_checkpoint(tmp_path):
    e = env(tmp_path)
    model = cc.make_model(e)
    path = os.path.join(e.tmpdir, "ck-{epoch}")
    cc.fit(e, model, [cbks.ModelCheckpoint(path, save_weights_only=True)], epochs=2, steps=1)
    cb = cbks.ModelCheckpoint(path, save_weights_only=True, load_weights_on_restart=True)
    assert cb._get_most_recently_modified_file_matching_pattern(path) == \
        os.path.join(e.tmpdir, "ck-2")


def test_logs_are_read_only_when_saving(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "time", lambda: 0.0)
    Counted.reads = []
    e = env(tmp_path)
    model = cc.make_model(e)
    cb = cbks.ModelCheckpoint(os.path.join(e.tmpdir, "b{batch}-{loss:.1f}.h5"),
                              save_weights_only=True, save_freq=3)
    cbl = cbks.CallbackList([cb], model=model)
    cbl.on_epoch_begin(0)
    for step in range(7):
        cbl.on_train_batch_end(step, {"loss": counted(0.5)})
    assert len(Counted.reads) == 2
    assert sorted(os.listdir(e.tmpdir)) == ["b3-0.5.h5", "b6-0.5.h5"]
    assert not cbks.ModelCheckpoint(e.tmpdir)._implements_train_batch_hooks()


def test_batch_key_in_logs_is_not_overridden(tmp_path):
    e = env(tmp_path)
    cb = cbks.ModelCheckpoint(os.path.join(e.tmpdir, "{batch}.h5"), save_weights_only=True,
                              save_freq=1)
    cb.set_model(cc.make_model(e))
    cb.on_epoch_begin(0)
    cb.on_train_batch_end(0, {"batch": 42, "loss": torch.tensor(1.0)})
    assert os.listdir(e.tmpdir) == ["42.h5"]


def test_directory_filepath(tmp_path):
    e = env(tmp_path)
    os.mkdir(tmp_path / "d.h5")
    cb = cbks.ModelCheckpoint(str(tmp_path / "d.h5"), save_weights_only=True)
    cb.set_model(cc.make_model(e))
    with pytest.raises(OSError, match="Please specify a non-directory filepath for "
                                      "ModelCheckpoint. Filepath used is an existing "
                                      "directory: .*d.h5"):
        cb.on_epoch_end(0, {})


@pytest.mark.parametrize("filepath,weights_only", [("x.weights.h5", True),
                                                   ("saved_model_dir", False),
                                                   ("m.keras", False)])
def test_formats_tfcompat_cannot_write_raise(tmp_path, filepath, weights_only):
    # Keras 3 `.weights.h5`/`.keras` files and SavedModels: tfcompat's savers refuse them,
    # and the callback lets their NotImplementedError (which names what works) through.
    cb = cbks.ModelCheckpoint(str(tmp_path / filepath), save_weights_only=weights_only)
    cb.set_model(cc.make_model(env(tmp_path)))
    with pytest.raises(NotImplementedError, match="not support"):
        cb.on_epoch_end(0, {})


def test_checkpoint_options_reach_save_weights(tmp_path):
    seen = []
    options = tf.train.CheckpointOptions(experimental_write_callbacks=[seen.append])
    cb = cbks.ModelCheckpoint(str(tmp_path / "o"), save_weights_only=True, options=options)
    cb.set_model(cc.make_model(env(tmp_path)))
    cb.on_epoch_end(0, {})
    assert seen == [str(tmp_path / "o")]


def test_save_freq_counts_batches_across_epochs(tmp_path):
    e = env(tmp_path)
    cb = cbks.ModelCheckpoint(os.path.join(e.tmpdir, "{epoch}-{batch}.h5"),
                              save_weights_only=True, save_freq=4)
    cc.fit(e, cc.make_model(e), [cb], epochs=3, steps=3)
    # 9 batches: saves after the 4th (epoch 2, batch 1) and the 8th (epoch 3, batch 2).
    assert sorted(os.listdir(e.tmpdir)) == ["2-1.h5", "3-2.h5"]
