"""Per-call cost of variable reads and writes: tfcompat vs raw torch (vs TF eager).

    python benchmarks/variables.py [--device cuda] [--tf-python /path/to/python-with-tf]

Prints microseconds per call and the ratio tfcompat / torch. The raw-torch
baselines are what a PyTorch programmer writes for the same job:

* assign_add:   `t.add_(x)`
* read_value:   `t.clone()`, a snapshot later writes cannot change. tfcompat
  reads cost about as much as `t.detach()` (row "read (alias)"): the copy
  is deferred to the next write, and only made if the read is still alive.
* v + x:        `t + x`
* sparse_read:  `torch.index_select(t, 0, idx)`

With `--tf-python`, the same operations are timed in TF eager (CPU) in that
interpreter, for the last columns.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tfcompat as tf  # noqa: E402
from benchmarks._tf import tf_timings  # noqa: E402
from benchmarks._timing import interleaved_us  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--tf-python", default=os.environ.get("TFCOMPAT_TF_PYTHON"),
                        help="a Python interpreter with tensorflow installed (optional)")
    args = parser.parse_args()
    device = torch.device(args.device)
    tf_device = "/GPU:0" if device.type == "cuda" else "/CPU:0"
    rows = []
    for label, shape in (("small (64)", (64,)), ("large (4M)", (2048, 2048))):
        with tf.device(tf_device):
            v = tf.Variable(torch.randn(shape))
        t = torch.randn(shape, device=device)
        x = torch.randn(shape, device=device)
        idx = torch.randint(0, shape[0], (16,), device=device)
        cases = {
            "assign_add": (lambda: v.assign_add(x), lambda: t.add_(x)),
            "read_value": (lambda: v.read_value(), lambda: t.clone()),
            "read (alias)": (lambda: v.read_value(), lambda: t.detach()),
            "v + x": (lambda: v + x, lambda: t + x),
            "sparse_read": (lambda: v.sparse_read(idx), lambda: torch.index_select(t, 0, idx)),
        }
        for name, (ours, theirs) in cases.items():
            times = interleaved_us({"ours": ours, "theirs": theirs}, device=device)
            rows.append((label, name, times["ours"], times["theirs"]))
    tf_us = tf_timings(args.tf_python, {"kind": "variables"}) if device.type == "cpu" else None
    print(f"device: {device}, torch {torch.__version__}; TF eager: "
          + ("measured" if tf_us else "not measured (pass --tf-python)"))
    print(f"{'size':<12}{'op':<14}{'tfcompat us':>12}{'torch us':>10}{'ratio':>8}{'TF us':>10}"
          f"{'TF/tfcompat':>12}")
    for label, name, ours, theirs in rows:
        t_us = (tf_us or {}).get(f"{label}/{name}")
        tf_text = f"{t_us:10.2f}{t_us / ours:12.2f}" if t_us else f"{'-':>10}{'-':>12}"
        print(f"{label:<12}{name:<14}{ours:12.2f}{theirs:10.2f}{ours / theirs:8.2f}{tf_text}")


if __name__ == "__main__":
    main()
