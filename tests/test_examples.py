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
