"""tf.data pipelines: one epoch in tfcompat vs the torch.utils.data equivalent (and TF).

    .venv/bin/python benchmarks/data.py [--quick] [--tf-python /work/tfenv/bin/python]

Each row times one full pass (ms, median of alternating runs). The torch
column is what a torch user writes for the same input: `DataLoader` over a
`TensorDataset` (its per-index fetch and `default_collate` stack). With
`--tf-python` the same pipelines run under TensorFlow in a subprocess (its
own timing loop, so only this machine's order of magnitude is comparable).
No assertions: figures depend on the machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch
from torch.utils.data import DataLoader, TensorDataset

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tfcompat as tf  # noqa: E402
from benchmarks import _cli, _timing  # noqa: E402


def _consume(iterable) -> int:
    n = 0
    for _ in iterable:
        n += 1
    return n


def _cases(n: int, features: int, batch: int) -> dict:
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, features, generator=gen)
    y = torch.randint(0, 10, (n,), generator=gen)
    pairs = TensorDataset(x, y)
    return {
        f"slices.batch({batch})": (
            lambda: _consume(tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)),
            lambda: _consume(DataLoader(pairs, batch_size=batch))),
        f"slices.map.batch({batch})": (
            lambda: _consume(tf.data.Dataset.from_tensor_slices((x, y)).map(
                lambda a, b: (a * 2.0, b)).batch(batch)),
            lambda: _consume(DataLoader(pairs, batch_size=batch, collate_fn=lambda items: (
                torch.stack([a * 2.0 for a, _ in items]), torch.stack([b for _, b in items]))))),
        f"slices.shuffle(1000).batch({batch})": (
            lambda: _consume(tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
                1000, seed=0).batch(batch)),
            lambda: _consume(DataLoader(pairs, batch_size=batch, shuffle=True))),
        "range elements": (
            lambda: _consume(tf.data.Dataset.range(n)),
            lambda: _consume(torch.arange(n).unbind(0))),
    }


_TF_SCRIPT = """
import json, os, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np, tensorflow as tf
n, features, batch, repeat = map(int, sys.argv[1:5])
rng = np.random.default_rng(0)
x = rng.standard_normal((n, features), dtype=np.float32); y = rng.integers(0, 10, n)
cases = {
  f"slices.batch({batch})": tf.data.Dataset.from_tensor_slices((x, y)).batch(batch),
  f"slices.map.batch({batch})": tf.data.Dataset.from_tensor_slices((x, y)).map(
      lambda a, b: (a * 2.0, b)).batch(batch),
  f"slices.shuffle(1000).batch({batch})": tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
      1000, seed=0).batch(batch),
  "range elements": tf.data.Dataset.range(n),
}
out = {}
for name, ds in cases.items():
    for _ in ds: pass
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in ds: pass
        times.append(time.perf_counter() - t)
    out[name] = sorted(times)[len(times) // 2] * 1e3
print(json.dumps(out))
"""


def _tf_times(python: str, n: int, features: int, batch: int, repeat: int) -> dict:
    done = subprocess.run([python, "-c", _TF_SCRIPT, str(n), str(features), str(batch),
                           str(repeat)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=7,
                      quick_help="tiny sizes, to check the script runs")
    n, features, batch = (512, 4, 32) if args.quick else (60_000, 32, 256)
    repeat = 2 if args.quick else args.repeat
    tf_ms = _tf_times(args.tf_python, n, features, batch, repeat) if args.tf_python else {}
    print(f"one epoch of {n} examples x {features} floats, ms (median of {repeat})")
    print(f"{'pipeline':40s} {'tfcompat':>10s} {'torch':>10s} {'ratio':>7s} {'TF':>10s}")
    for name, (ours, theirs) in _cases(n, features, batch).items():
        ms = _timing.interleaved_ms({"tfcompat": ours, "torch": theirs}, repeat=repeat, warmup=1)
        tf_text = f"{tf_ms[name]:10.2f}" if name in tf_ms else "not measured (pass --tf-python)"
        print(f"{name:40s} {ms['tfcompat']:10.2f} {ms['torch']:10.2f} "
              f"{ms['tfcompat'] / ms['torch']:7.2f} {tf_text}")


if __name__ == "__main__":
    main()
