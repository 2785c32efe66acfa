"""Per-call cost of variable reads and writes: tfcompat vs raw torch (vs TF eager).

    python benchmarks/variables.py [--device cuda] [--tf-python /path/to/python-with-tf] [--quick]

Prints microseconds per call and the ratio tfcompat / torch. The raw-torch
baselines are what a PyTorch programmer writes for the same job:

* assign_add:     `t.add_(x)`
* read_value:     `t.clone()`, a snapshot later writes cannot change. tfcompat
  reads cost about as much as `t.detach()` (row "read (alias)"): the copy
  is deferred to the next write, and only made if the read is still alive.
* v + x:          `t + x`
* sparse_read:    `torch.index_select(t, 0, idx)`
* v[1:5]:         `t[1:5]`
* reduce_sum(v):  `t.sum()` (tfcompat: `tf.reduce_sum(v)`)
* v * 2.0:        `t * 2.0`

With `--tf-python`, the same operations run in TF eager (CPU) in a worker
process, timed in turn with tfcompat and torch in every repetition.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tfcompat as tf  # noqa: E402
from benchmarks import _cli  # noqa: E402
from benchmarks._tf import remote  # noqa: E402
from benchmarks._timing import interleaved_us  # noqa: E402

SIZES = (("small (64)", (64,)), ("large (4M)", (2048, 2048)))
QUICK_SIZES = (("small (64)", (64,)), ("medium (4K)", (64, 64)))
TF_OPS = {"assign_add", "read_value", "v + x", "sparse_read", "v[1:5]", "reduce_sum(v)", "v * 2.0"}


def main(argv: Optional[List[str]] = None) -> None:
    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=9, quick_help="small sizes, short runs")
    device, tf_device, worker = _cli.start(args)
    repeat, target_s = (3, 0.002) if args.quick else (args.repeat, 0.01)
    rows = []
    try:
        for label, shape in (QUICK_SIZES if args.quick else SIZES):
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
                "v[1:5]": (lambda: v[1:5], lambda: t[1:5]),
                "reduce_sum(v)": (lambda: tf.reduce_sum(v), lambda: t.sum()),
                "v * 2.0": (lambda: v * 2.0, lambda: t * 2.0),
            }
            for name, (ours, theirs) in cases.items():
                timers = {"ours": ours, "theirs": theirs}
                tf_timer = remote(worker, "variables", dict(shape=list(shape), op=name)) if name in TF_OPS else None
                if tf_timer is not None:
                    timers["tf"] = tf_timer
                times = interleaved_us(timers, repeat=repeat, target_s=target_s, device=device)
                rows.append((label, name, times["ours"], times["theirs"], times.get("tf")))
    finally:
        if worker is not None:
            worker.close()
    print(f"device: {device}, torch {torch.__version__}; TF eager: "
          + ("measured, interleaved" if worker else "not measured (pass --tf-python)"))
    print(f"{'size':<13}{'op':<15}{'tfcompat us':>12}{'torch us':>10}{'ratio':>8}{'TF us':>10}"
          f"{'TF/tfcompat':>12}")
    for label, name, ours, theirs, t_us in rows:
        tf_text = f"{t_us:10.2f}{t_us / ours:12.2f}" if t_us else f"{'-':>10}{'-':>12}"
        print(f"{label:<13}{name:<15}{ours:12.2f}{theirs:10.2f}{ours / theirs:8.2f}{tf_text}")


if __name__ == "__main__":
    main()
