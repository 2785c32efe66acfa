"""tf.train.CheckpointManager, latest_checkpoint, get_checkpoint_state: TF's rules.

The expectations follow TF 2.21's `checkpoint_management.py` (the sweep, the
last-preserved timestamp, the interval rules); the state file TF wrote for the
object-based fixture is recovered as TF would."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfcompat as tf
from tests.train import fixture_data as fx
from tests.train import tf2_program
from tfcompat.train import checkpoint_management as cm

ROOT = pathlib.Path(__file__).resolve().parents[2]


def files(directory) -> list[str]:
    return sorted(p for p in os.listdir(directory) if ".tmp" not in p)


class Clock:
    """A controllable time.time for the manager's timestamps."""

    def __init__(self, monkeypatch, start: float = 1_000_000.0):
        self.now = start
        monkeypatch.setattr(cm.time, "time", lambda: self.now)


def test_keeps_max_to_keep_and_deletes_index_and_every_shard(tmp_path):
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(checkpoint, tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    first = manager.save()
    # a shard of another layout under the same prefix is deleted with the checkpoint
    (tmp_path / "ckpt-1.data-00001-of-00002").write_bytes(b"x")
    paths = [first] + [manager.save() for _ in range(2)]
    assert paths == [os.path.join(str(tmp_path), f"ckpt-{i}") for i in (1, 2, 3)]
    assert manager.checkpoints == paths[1:] and manager.latest_checkpoint == paths[2]
    assert files(tmp_path) == ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index",
                               "ckpt-3.data-00000-of-00001", "ckpt-3.index"]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == paths[2]
    assert list(state.all_model_checkpoint_paths) == paths[1:]
    assert len(state.all_model_checkpoint_timestamps) == 2
    text = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-3"' in text and 'all_model_checkpoint_paths: "ckpt-2"' in text
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[2]
    assert int(checkpoint.save_counter.numpy()) == 3


def test_max_to_keep_none_keeps_everything(tmp_path):
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=None)
    for _ in range(4):
        manager.save()
    assert len(manager.checkpoints) == 4 and len([f for f in files(tmp_path) if f.endswith(".index")]) == 4


def test_constructor_errors(tmp_path):
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=0)
    with pytest.raises(ValueError, match="`step_counter` should be passed if `checkpoint_interval` is not None."):
        tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1, checkpoint_interval=2)


def test_recovers_the_state_tf_wrote_and_continues_numbering(tmp_path):
    directory = fx.copy("object_based", tmp_path)
    model, optimizer, step = tf2_program.build(tf, seed=1)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    manager = tf.train.CheckpointManager(checkpoint, str(directory), max_to_keep=2)
    assert manager.checkpoints == [str(directory / "ckpt-2"), str(directory / "ckpt-3")]
    assert manager.latest_checkpoint == str(directory / "ckpt-3")
    assert manager.restore_or_initialize() == str(directory / "ckpt-3")
    assert int(step.numpy()) == 5 and int(checkpoint.save_counter.numpy()) == 3
    assert manager.save() == str(directory / "ckpt-4")
    assert files(directory) == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                                "ckpt-4.data-00000-of-00001", "ckpt-4.index"]


def test_restore_or_initialize_runs_init_fn_without_a_checkpoint(tmp_path):
    calls = []
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=1,
                                         init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]


def test_checkpoint_number_from_int_or_variable(tmp_path):
    step = tf.Variable(41, dtype=tf.int64)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), max_to_keep=3,
                                         checkpoint_name="model")
    assert manager.save(checkpoint_number=step) == os.path.join(str(tmp_path), "model-41")
    assert manager.save(checkpoint_number=np.int32(7)) == os.path.join(str(tmp_path), "model-7")
    assert manager.save(checkpoint_number=7) == os.path.join(str(tmp_path), "model-7")
    assert manager.checkpoints == [os.path.join(str(tmp_path), "model-41"), os.path.join(str(tmp_path), "model-7")]


def test_checkpoint_interval(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path), max_to_keep=None,
                                         step_counter=step, checkpoint_interval=3)
    saved = []
    for value in range(8):
        step.assign(value)
        saved.append(manager.save() is not None)
    assert saved == [True, False, False, True, False, False, True, False]
    assert manager.save() is None  # the same step again: never saved twice
    step.assign(7)
    assert manager.save(check_interval=False) is not None  # a new step, inside the interval


def test_keep_checkpoint_every_n_hours_preserves_and_recovers(tmp_path, monkeypatch):
    clock = Clock(monkeypatch)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=1,
                                         keep_checkpoint_every_n_hours=1.0)
    names = {}
    for number, at in enumerate([10.0, 1800.0, 3700.0, 7400.0, 7500.0], start=1):
        clock.now = 1_000_000.0 + at
        names[number] = manager.save()
    # TF's sweep: ckpt-1 and ckpt-2 are under an hour past the start and go; ckpt-3 is an
    # hour on and is kept for good; ckpt-4 is an hour past ckpt-3 and is kept too.
    assert [f for f in files(tmp_path) if f.endswith(".index")] == ["ckpt-3.index", "ckpt-4.index", "ckpt-5.index"]
    assert manager.checkpoints == [names[5]]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.last_preserved_timestamp == 1_000_000.0 + 7400.0
    clock.now += 10
    recovered = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=1,
                                           keep_checkpoint_every_n_hours=1.0)
    assert recovered.checkpoints == [names[5]] and recovered.latest_checkpoint == names[5]


def test_a_failed_write_changes_nothing(tmp_path, monkeypatch):
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    manager.save()
    before = (tmp_path / "checkpoint").read_text()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint, "write", broken)
    with pytest.raises(OSError, match="disk full"):
        manager.save()
    assert int(checkpoint.save_counter.numpy()) == 1
    assert (tmp_path / "checkpoint").read_text() == before
    assert manager.checkpoints == [os.path.join(str(tmp_path), "ckpt-1")]


def test_latest_checkpoint_and_state_edge_cases(tmp_path):
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "no_such_dir")) is None
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-9"\n')
    assert tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path == str(tmp_path / "ckpt-9")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # its files are not there
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "x"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from"):
        tf.train.get_checkpoint_state(str(tmp_path))
    (tmp_path / "checkpoint").write_text("this is { not a proto")
    with pytest.warns(RuntimeWarning):
        assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    (tmp_path / "other").write_text('model_checkpoint_path: "/abs/path-1"\n')
    assert tf.train.get_checkpoint_state(str(tmp_path), "other").model_checkpoint_path == "/abs/path-1"


def test_update_checkpoint_state_rules(tmp_path):
    with pytest.raises(ValueError, match="Checkpoint timestamps, if provided, must match checkpoint paths"):
        cm.update_checkpoint_state(str(tmp_path), "a", ["a"], all_model_checkpoint_timestamps=[1.0, 2.0])
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "checkpoint"), [])


def _index_files(directory):
    return [f for f in files(directory) if f.endswith(".index")]


def test_a_tf1_saver_state_without_timestamps_is_never_swept(tmp_path):
    # TF1's Saver (and old TF) wrote no timestamps: TF takes the last-preserved time (0 when
    # absent) for each, which is not newer than itself, so no listed checkpoint is the
    # manager's to delete; its own saves are swept as usual.
    directory = fx.copy("name_based", tmp_path)
    before = _index_files(directory)
    assert "model.ckpt-3.index" in before
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(checkpoint, str(directory), max_to_keep=1)
    assert manager.checkpoints == [] and manager.latest_checkpoint == str(directory / "model.ckpt-3")
    for _ in range(3):
        manager.save()
    assert _index_files(directory) == sorted(before + ["ckpt-3.index"])
    assert manager.checkpoints == [str(directory / "ckpt-3")]


@pytest.mark.parametrize("preserved", [None, 1_500_000_000.0])
def test_a_state_without_timestamps_lists_nothing_to_delete(tmp_path, preserved):
    # (checked against TF 2.21: the files stay, the new state lists only the new saves)
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    for i in (1, 2, 3):
        checkpoint.write(str(tmp_path / f"model.ckpt-{i}"))
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-3"\n'
        + "".join(f'all_model_checkpoint_paths: "model.ckpt-{i}"\n' for i in (1, 2, 3))
        + (f"last_preserved_timestamp: {preserved}\n" if preserved else ""))
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    assert manager.checkpoints == []
    for _ in range(3):
        manager.save()
    assert _index_files(tmp_path) == ["ckpt-3.index"] + [f"model.ckpt-{i}.index" for i in (1, 2, 3)]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "ckpt-3")]
    assert state.last_preserved_timestamp == (preserved or 0.0)


def test_a_checkpoint_as_old_as_the_last_preserved_time_is_kept_for_good(tmp_path, monkeypatch):
    # TF's recovery keeps only checkpoints strictly newer than last_preserved_timestamp as
    # deletable: one stamped exactly at it is the one kept for good (pins `>`, not `>=`).
    clock = Clock(monkeypatch, start=10_000.0)
    checkpoint = tf.train.Checkpoint(v=tf.Variable(1.0))
    for i in (1, 2, 3):
        checkpoint.write(str(tmp_path / f"ckpt-{i}"))
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "ckpt-3"\n'
        + "".join(f'all_model_checkpoint_paths: "ckpt-{i}"\n' for i in (1, 2, 3))
        + "".join(f"all_model_checkpoint_timestamps: {t}\n" for t in (100.0, 200.0, 300.0))
        + "last_preserved_timestamp: 200.0\n")
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    assert manager.checkpoints == [str(tmp_path / "ckpt-3")]
    clock.now += 1
    manager.save(checkpoint_number=4)
    assert _index_files(tmp_path) == ["ckpt-1.index", "ckpt-2.index", "ckpt-4.index"]


class _Killed(BaseException):
    """The process dying at a point of the sweep (nothing after it runs)."""


@pytest.mark.parametrize("max_to_keep", [1, 2, 3])
@pytest.mark.parametrize("killed", ["before_any_removal", "after_the_data_file", "before_the_last_state"])
def test_a_save_killed_during_its_sweep_leaves_the_new_checkpoint_named(tmp_path, monkeypatch,
                                                                       max_to_keep, killed):
    # The state file must name the new checkpoint before anything is deleted: killed at
    # any point of the sweep, `latest_checkpoint` is the new, complete checkpoint, and it
    # restores. (Writing the state only after the sweep leaves it naming the checkpoint
    # being deleted when max_to_keep is 1.)
    directory = str(tmp_path / "d")
    v = tf.Variable(0.0)
    checkpoint = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=max_to_keep)
    for i in range(max_to_keep):
        v.assign(float(i + 1))
        manager.save()
    real_remove, real_update = cm._remove, cm.update_checkpoint_state
    removed, updates = [], []

    def dying_remove(path):
        if len(removed) == {"before_any_removal": 0, "after_the_data_file": 1}.get(killed, 99):
            raise _Killed(path)
        removed.append(path)
        real_remove(path)

    def dying_update(*args, **kwargs):
        updates.append(args)
        if killed == "before_the_last_state" and len(updates) == 2:
            raise _Killed("state")
        real_update(*args, **kwargs)

    monkeypatch.setattr(cm, "_remove", dying_remove)
    monkeypatch.setattr(cm, "update_checkpoint_state", dying_update)
    v.assign(99.0)
    with pytest.raises(_Killed):
        manager.save()
    kinds = ["index" if p.endswith(".index") else "data" for p in removed]
    assert kinds == {"before_any_removal": [], "after_the_data_file": ["data"],
                     "before_the_last_state": ["data", "index"]}[killed]
    new = os.path.join(directory, f"ckpt-{max_to_keep + 1}")
    latest = tf.train.latest_checkpoint(directory)
    assert latest == new
    probe = tf.Variable(-1.0)
    tf.train.Checkpoint(v=probe).restore(latest).assert_consumed()
    assert float(probe.numpy()) == 99.0
    # a restarted manager recovers it as its latest, and its next save sweeps as usual
    monkeypatch.setattr(cm, "_remove", real_remove)
    monkeypatch.setattr(cm, "update_checkpoint_state", real_update)
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(0.0)), directory,
                                       max_to_keep=max_to_keep)
    assert again.latest_checkpoint == new


_KILL_DRIVER = textwrap.dedent("""
    import os, random, signal, sys, time
    import numpy as np
    import torch
    torch.set_num_threads(1)
    import tfcompat as tf

    directory = sys.argv[1]
    values = [tf.Variable(np.zeros((64, 64), np.float32)) for _ in range(4)]
    counter = tf.Variable(0, dtype=tf.int64)
    checkpoint = tf.train.Checkpoint(values=values, counter=counter)

    def saver_process():
        # a restarted trainer: recover, then save forever (every tensor holds the save's number)
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=int(sys.argv[2]))
        manager.restore_or_initialize()
        while True:
            counter.assign_add(1)
            for v in values:
                v.assign(tf.fill([64, 64], tf.cast(counter, tf.float32)))
            manager.save()

    rng = random.Random(0)
    kills = 0
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            try:
                saver_process()
            finally:
                os._exit(1)
        if kills == 0:  # the first trainer runs until it has saved once (bounded), so later rounds restore
            deadline = time.monotonic() + 60
            while tf.train.latest_checkpoint(directory) is None and time.monotonic() < deadline:
                time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        kills += 1
        latest = tf.train.latest_checkpoint(directory)
        assert latest is not None
        probe_values = [tf.Variable(np.full((64, 64), -1.0, np.float32)) for _ in range(4)]
        probe_counter = tf.Variable(-1, dtype=tf.int64)
        tf.train.Checkpoint(values=probe_values, counter=probe_counter).restore(latest).assert_consumed()
        n = int(probe_counter.numpy())
        assert n >= 1, latest
        assert all(float(np.abs(v.numpy() - n).max()) == 0.0 for v in probe_values), (latest, n)
        assert latest.endswith(f"ckpt-{int(tf.train.load_variable(latest, 'save_counter/.ATTRIBUTES/VARIABLE_VALUE'))}")
    print("kills", kills, "final", tf.train.latest_checkpoint(directory))
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the kill test forks trainers")
@pytest.mark.parametrize("max_to_keep", [1, 2])
def test_killed_saves_always_leave_a_complete_latest_checkpoint(tmp_path, max_to_keep):
    done = subprocess.run([sys.executable, "-c", _KILL_DRIVER, str(tmp_path / "ckpts"), str(max_to_keep)],
                          capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "kills 20 final " in done.stdout, done.stdout


def test_a_relative_directory_round_trips(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "ckpts", max_to_keep=1)
    assert manager.save() == os.path.join("ckpts", "ckpt-1")
    assert 'model_checkpoint_path: "ckpt-1"' in (tmp_path / "ckpts" / "checkpoint").read_text()
    assert tf.train.latest_checkpoint("ckpts") == os.path.join("ckpts", "ckpt-1")
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), "ckpts", max_to_keep=1)
    assert again.checkpoints == [os.path.join("ckpts", "ckpt-1")]
    os.mkdir("tf1")
    path = tf.compat.v1.train.Saver([tf.Variable(2.0, name="x")]).save(None, os.path.join("tf1", "model"),
                                                                       global_step=3)
    assert 'model_checkpoint_path: "model-3"' in (tmp_path / "tf1" / "checkpoint").read_text()  # as TF
    assert tf.train.latest_checkpoint("tf1") == path == os.path.join("tf1", "model-3")


def test_checkpoints_iterator_yields_new_checkpoints_then_times_out(tmp_path):
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=3)
    assert list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0)) == []  # nothing yet
    first = manager.save()
    asked = []

    def timeout_fn():  # TF asks after every wait; a save between waits is found next
        asked.append(1)
        if len(asked) == 1:
            manager.save()
        return len(asked) >= 3

    got = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0, timeout_fn=timeout_fn))
    assert got == [first, os.path.join(str(tmp_path), "ckpt-2")] and len(asked) == 3
