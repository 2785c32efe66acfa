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
