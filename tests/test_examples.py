"""Every script in examples/ runs to completion (each in a fresh interpreter)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))
SPECIAL = {"multi_worker_training.py"}  # started by torchrun in tests/distribute/test_multi_worker.py


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in SPECIAL])
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()


def test_mirrored_example_learns():
    done = subprocess.run([sys.executable, str(EXAMPLES / "mirrored_training.py")],
                          capture_output=True, text=True, timeout=300)
    assert "Number of devices: 2" in done.stdout
    last = [line for line in done.stdout.splitlines() if line.startswith("epoch 5")][0]
    assert float(last.split("accuracy ")[1]) > 0.95
    assert "components ['dense/kernel:0', 'dense/kernel/replica_1:0']" in done.stdout


def test_keras_fit_example_learns_and_writes_its_files(tmp_path):
    """keras_fit.py: accuracy rises, EarlyStopping stops before the last epoch and restores the
    best weights (the checkpoint's), TensorBoard logs both runs' epoch scalars, and the
    MirroredStrategy fit learns as well."""
    import os
    import re

    import h5py

    from tfcompat.summary.protos import to_ndarray
    from tfcompat.summary.reader import summary_iterator

    env = dict(os.environ, TMPDIR=str(tmp_path))  # the example's mkdtemp lands in tmp_path
    done = subprocess.run([sys.executable, str(EXAMPLES / "keras_fit.py")], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    # tf_keras's verbose=1 bar (an epoch's last line) and verbose=2 line; any time unit
    unit = r"\d+(?:s|ms|us)"
    assert re.search(rf"(?:^|\r)25/25 \[=+\] - \d+s {unit}/step - loss: [\d.]+ - accuracy: [\d.]+"
                     r" - val_loss: [\d.]+ - val_accuracy: [\d.]+$", out, re.M)
    assert re.search(rf"^25/25 - \d+s - loss: .* - {unit}/epoch - {unit}/step$", out, re.M)
    assert "history keys: ['accuracy', 'loss', 'val_accuracy', 'val_loss']" in out

    before, after, loss, restored, restored_loss = map(float, re.search(
        r"test accuracy before training ([\d.]+), after ([\d.]+) \(loss ([\d.]+)\); "
        r"from the checkpoint ([\d.]+) \(loss ([\d.]+)\)", out).groups())
    assert before < 0.3 and after > 0.9
    assert (restored, restored_loss) == (after, loss), "restored best weights != the checkpoint's"
    run, best = map(int, re.search(r"epochs run: (\d+) \(best epoch (\d+)", out).groups())
    assert best < run < 20, "EarlyStopping should have stopped the 20-epoch fit"
    assert f"Epoch {run}: early stopping" in out

    (workdir,) = tmp_path.glob("keras_fit_*")
    with h5py.File(workdir / "best.h5", "r") as weights:
        assert "conv2d" in weights.attrs["layer_names"].astype(str)
    for run_name in ("train", "validation"):  # one epoch_accuracy an epoch, steps from 0
        (events,) = (workdir / "logs" / run_name).glob("events.out.tfevents.*")
        steps = [event.step for event in summary_iterator(events) if event.summary
                 for value in event.summary.value if value.tag == "epoch_accuracy"]
        assert steps == list(range(run)), run_name
    (train_events,) = (workdir / "logs" / "train").glob("events.out.tfevents.*")
    accuracies = [float(to_ndarray(value.tensor))
                  for event in summary_iterator(train_events) if event.summary
                  for value in event.summary.value if value.tag == "epoch_accuracy"]
    assert accuracies[-1] > accuracies[0] + 0.5

    assert "Number of devices: 2" in out
    mirrored = float(re.search(r"mirrored: test accuracy ([\d.]+)", out).group(1))
    assert mirrored > 0.9 and "kernel is a MirroredVariable" in out


def _run_example(script: str, **env_overrides: str) -> str:
    import os

    env = dict(os.environ, **env_overrides)
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_custom_training_loop_example_learns_checkpoints_and_resumes():
    """custom_training_loop.py: accuracy rises, the Progbar prints its bar, the manager keeps
    the newest three checkpoints, and a restarted program restores the same accuracy and
    step, then continues from it."""
    import re

    out = _run_example("custom_training_loop.py")
    before = float(re.search(r"validation accuracy before training ([\d.]+)", out).group(1))
    accuracies = [float(a) for a in re.findall(r"^validation accuracy ([\d.]+); saved ckpt-\d+", out, re.M)]
    assert len(accuracies) == 5 and before < 0.6 and min(accuracies) > 0.8
    assert re.search(r"(?:^|\r)24/24 \[=+\] - \d+s \d+(?:s|ms|us)/step - loss: [\d.e-]+ - accuracy: [\d.]+$",
                     out, re.M)
    assert "checkpoints kept: ['ckpt-48', 'ckpt-72', 'ckpt-96']" in out
    restored, final = map(float, re.search(
        r"restored ckpt-96 at step 96, Adam iterations 96: validation accuracy ([\d.]+) "
        r"\(before the restart ([\d.]+)\)", out).groups())
    assert restored == final == accuracies[3]
    assert "final step 120, Adam iterations 120" in out


def test_embedding_sparse_example_updates_only_touched_rows():
    """embedding_sparse.py: the table's gradient is IndexedSlices, Adagrad changes only the
    batch's rows (checked inside the script at every step), unused rows never move, Adam
    moves the rows touched so far and no others, and the classifier learns."""
    import re

    out = _run_example("embedding_sparse.py")
    assert "gradients of the table were IndexedSlices: True" in out
    assert re.search(r"Adagrad: in each of 160 steps only the batch's rows .* changed: True", out)
    assert "rows no document uses (1800) unchanged after training: True" in out
    assert "Adam: rows changed by step 1 (ids 1, 2, 3): [1, 2, 3]; by step 2 (ids 4, 5): [1, 2, 3, 4, 5]" in out
    assert "Adam: rows never looked up unchanged: True" in out
    before = float(re.search(r"accuracy before training ([\d.]+)", out).group(1))
    last = float(re.findall(r"Adagrad epoch 5: loss [\d.]+, accuracy ([\d.]+)", out)[0])
    assert before < 0.6 < 0.85 < last


def test_tf1_variable_scope_example_trains_saves_and_restores_by_name():
    """tf1_variable_scope_model.py: TF 1 names (scopes, tf.layers' hidden_2/logits), the v1
    Adam's global step and slot names in the Saver checkpoint, learning, and a restore by
    name into fresh variables that gives the trained accuracy back."""
    import re

    out = _run_example("tf1_variable_scope_model.py")
    assert ("variables: ['classifier/hidden/kernel:0 [2, 32]', 'classifier/hidden/bias:0 [32]', "
            "'classifier/hidden_2/kernel:0 [32, 32]', 'classifier/hidden_2/bias:0 [32]', "
            "'classifier/logits/kernel:0 [32, 2]', 'classifier/logits/bias:0 [2]']") in out
    first = float(re.search(r"step 0: loss [\d.]+, accuracy ([\d.]+)", out).group(1))
    last = float(re.search(r"step 300: loss [\d.]+, accuracy ([\d.]+)", out).group(1))
    assert first < 0.8 < 0.9 < last
    assert ("saved model.ckpt-300: 21 tensors, e.g. ['classifier/hidden/kernel', "
            "'classifier/hidden/kernel/Adam', 'classifier/hidden/kernel/Adam_1'] "
            "['beta1_power', 'beta2_power']") in out
    restored, fresh, trained = map(float, re.search(
        r"restored model.ckpt-300: step 300, accuracy ([\d.]+) \(fresh variables ([\d.]+), "
        r"trained ([\d.]+)\)", out).groups())
    assert restored == trained and fresh < trained
