"""The benchmark scripts run (tiny sizes, `--quick`), and their TF worker protocol works.

No timing is asserted: figures depend on the machine. TensorFlow is not
needed: the worker's "selftest" suite drives the same pipe protocol with
numpy only, from this interpreter.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import _timing, optimizers, steps, variables  # noqa: E402
from benchmarks._tf import TFWorker, WorkerError  # noqa: E402

# (torch.optim.Adagrad's sparse path warns that it skips sparse invariant checks)
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


@pytest.mark.parametrize("script", [optimizers, variables, steps], ids=lambda m: m.__name__.split(".")[-1])
def test_script_runs_quick(script, capsys):
    script.main(["--quick", "--device", "cpu", "--tf-python", ""])
    out = capsys.readouterr().out
    assert "not measured (pass --tf-python)" in out
    assert re.search(r"\d+\.\d\d", out)
    assert "tensorflow" not in sys.modules  # TF only ever runs in the worker process


def test_keras_script_runs_quick_and_its_losses_agree(capsys):
    from benchmarks import keras as keras_bench
    keras_bench.main(["--quick", "--device", "cpu", "--tf-python", "", "--models", "mlp"])
    out = capsys.readouterr().out
    losses = {line.split()[1]: line.split()[2:] for line in out.splitlines()
              if line.startswith("  mlp ")}
    assert set(losses) == {"tfcompat", "torch"}
    assert [float(v) for v in losses["tfcompat"]] == pytest.approx(
        [float(v) for v in losses["torch"]], rel=1e-5)
    assert "tensorflow" not in sys.modules


def test_steps_losses_agree_across_columns(capsys):
    """tfcompat and both torch columns compute the same steps from the same start (the torch
    Adam baseline takes Keras' epsilon placement), so their first losses agree."""
    steps.main(["--quick", "--device", "cpu", "--tf-python", ""])
    out = capsys.readouterr().out
    diffs = [float(d) for d in re.findall(r"max rel\. diff vs tfcompat (\S+)", out)]
    assert len(diffs) == 6 and max(diffs) < 1e-6, out


def test_models_need_only_numpy():
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import _models; "
            "assert 'torch' not in sys.modules and 'tfcompat' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_worker_protocol_and_interleaving():
    """Local and remote timers take turns, in rotating order; the worker times its own calls and
    reports errors."""
    order = []

    class Fake:
        def __init__(self, name):
            self.name = name

        def run(self, number):
            order.append(self.name)
            return 0.001 * number

    with TFWorker(sys.executable) as worker:
        remote = worker.setup("selftest", {"n": 10})
        assert remote.info["pid"] != 0
        assert 0 <= remote.run(5) < 5
        result = _timing.interleaved({"a": Fake("a"), "b": Fake("b"), "tf": remote}, repeat=3,
                                     numbers={"a": 2})
        # rotated turns (a b tf, b tf a, tf a b): each timer follows every other one
        assert order == ["a", "b", "b", "a", "a", "b"]
        assert result["a"] == pytest.approx(0.001) and result["tf"] >= 0
        with pytest.raises(WorkerError, match="KeyError"):
            worker.setup("no such suite", {})
        with pytest.raises(WorkerError, match="no case is set up"):
            remote.run(1)
        assert worker.setup("selftest", {}).run(1) >= 0  # the worker survives a failed request
    assert worker.proc.poll() is not None


def test_local_timer_times_calls():
    calls = []
    timer = _timing.LocalTimer(lambda: calls.append(time.perf_counter()), warmup=2)
    timer.prepare()
    timer.prepare()  # (once)
    assert len(calls) == 2
    assert timer.run(4) >= 0 and len(calls) == 6


def test_distribute_script_runs_quick(capsys):
    """benchmarks/distribute.py --quick: 2 gloo workers against DDP (which must train alike),
    and the in-process figures."""
    from benchmarks import distribute
    distribute.main(["--quick", "--device", "cpu", "--threads", "1", "--repeat", "3"])
    out = capsys.readouterr().out
    assert "MultiWorkerMirroredStrategy, 2 gloo workers" in out
    assert "MirroredStrategy over 2 logical CPUs" in out and "merge_call round trip" in out


def test_ops_script_runs_quick(capsys):
    """benchmarks/ops.py --quick: 20 ops and the conv2d SAME path against raw torch."""
    from benchmarks import ops
    ops.main(["--quick", "--device", "cpu", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "baseline: the raw torch call" in out and "nn.conv2d SAME s2" in out
    assert len(re.findall(r"^64 ", out, flags=re.M)) == 20


def test_checkpoint_script_runs_quick(capsys, tmp_path):
    """benchmarks/checkpoint.py --quick: tfcompat's bundle against torch.save, safetensors and the
    disk, save and restore, and tfcompat's restore checked equal to the saved state."""
    from benchmarks import checkpoint
    checkpoint.main(["--quick", "--device", "cpu", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "tfcompat throughput / disk:" in out and "restore cold" in out
    assert re.search(r"^safetensors +\d+\.\d{3}", out, flags=re.M)
    assert list(tmp_path.iterdir()) == []  # its files are removed


def test_keras_fit_script_runs_quick_and_its_losses_agree(capsys):
    """benchmarks/keras_fit.py --quick: an epoch of `Model.fit` and of the torch loop from the
    same weights and data give the same epoch loss; the subnormal setting is put back."""
    from benchmarks import keras_fit
    keras_fit.main(["--quick", "--device", "cpu", "--threads", "1", "--tf-python", ""])
    out = capsys.readouterr().out
    losses = {}
    for line in out.splitlines():
        m = re.match(r"  (mlp|cnn) +(fit(?: verbose=1| jit_compile)?) +tfcompat (\S+) +torch (\S+)$",
                     line)
        if m:
            losses[m.group(1, 2)] = (float(m.group(3)), float(m.group(4)))
    assert set(losses) == {("mlp", "fit"), ("mlp", "fit verbose=1"), ("mlp", "fit jit_compile"),
                           ("cnn", "fit")}, out
    for ours, theirs in losses.values():
        assert ours == pytest.approx(theirs, rel=1e-5)
    assert re.search(r"^mlp +fit verbose=1 +\d+\.\d", out, flags=re.M)
    assert "subnormals flushed" in out
    assert (torch.tensor(1e-38) * 1e-3).item() != 0.0  # (flush-to-zero is off again)
    assert "tensorflow" not in sys.modules
