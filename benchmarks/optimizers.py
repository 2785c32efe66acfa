"""Optimizer step time: tfcompat's Keras optimizers vs torch.optim (vs tf_keras).

    python benchmarks/optimizers.py [--device cuda] [--tf-python /path/to/python-with-tf]

Gradients are precomputed; only the update is timed (median of repeated
steps). Layouts: 1 tensor of 10,000,000 floats, 200 of 50,000, 2,000 of 100.

* Adam: tfcompat `apply_gradients` vs `torch.optim.Adam(foreach=True)` and
  `torch.optim.Adam(fused=True)`; ratios are tfcompat / torch.
* SGD with momentum 0.9 and Adagrad against their torch counterparts
  (fused where torch has a fused kernel for the device, else foreach).
* With `--tf-python`, tf_keras' legacy optimizers in TF eager (CPU).
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tfcompat as tf  # noqa: E402
from benchmarks._tf import tf_timings  # noqa: E402
from benchmarks._timing import interleaved_ms  # noqa: E402

LAYOUTS = ((1, 10_000_000), (200, 50_000), (2000, 100))


def _torch_step(params: list, grads: list, make) -> callable:
    for p, g in zip(params, grads):
        p.grad = g
    opt = make(params)
    return opt.step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--tf-python", default=os.environ.get("TFCOMPAT_TF_PYTHON"),
                        help="a Python interpreter with tensorflow and tf_keras (optional)")
    args = parser.parse_args()
    device = torch.device(args.device)
    tf_device = "/GPU:0" if device.type == "cuda" else "/CPU:0"
    fused_adagrad = device.type == "cpu"
    suites = {
        "adam": (lambda: tf.keras.optimizers.Adam(1e-3), {
            "torch foreach": lambda ps: torch.optim.Adam(ps, lr=1e-3, foreach=True),
            "torch fused": lambda ps: torch.optim.Adam(ps, lr=1e-3, fused=True)}),
        "sgd_momentum": (lambda: tf.keras.optimizers.SGD(1e-2, momentum=0.9), {
            "torch foreach": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, foreach=True),
            "torch fused": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, fused=True)}),
        "adagrad": (lambda: tf.keras.optimizers.Adagrad(1e-2), {
            "torch foreach": lambda ps: torch.optim.Adagrad(ps, lr=1e-2, foreach=True),
            **({"torch fused": lambda ps: torch.optim.Adagrad(ps, lr=1e-2, fused=True)}
               if fused_adagrad else {})}),
    }
    tf_ms = tf_timings(args.tf_python, {"kind": "optimizers", "layouts": LAYOUTS,
                                        "repeat": args.repeat}) if device.type == "cpu" else None
    print(f"device: {device}, torch {torch.__version__}; tf_keras legacy (eager): "
          + ("measured" if tf_ms else "not measured (pass --tf-python)"))
    header = f"{'optimizer':<14}{'layout':<14}{'tfcompat ms':>12}"
    print(header + f"{'torch foreach':>15}{'torch fused':>13}{'tf_keras':>10}"
          f"{'/foreach':>10}{'/fused':>8}{'tf_keras/us':>12}")
    for name, (make_ours, torch_makers) in suites.items():
        for count, size in LAYOUTS:
            gen = torch.Generator(device="cpu").manual_seed(0)
            values = [torch.randn(size, generator=gen).to(device) for _ in range(count)]
            grads = [torch.randn(size, generator=gen).to(device) for _ in range(count)]
            with tf.device(tf_device):
                variables = [tf.Variable(v) for v in values]
            opt = make_ours()
            pairs = list(zip(grads, variables))
            steps = {"tfcompat": lambda: opt.apply_gradients(pairs)}
            for label, make in torch_makers.items():
                params = [torch.nn.Parameter(v.clone()) for v in values]
                steps[label] = _torch_step(params, grads, make)
            times = interleaved_ms(steps, repeat=args.repeat, device=device)
            ours = times.pop("tfcompat")
            theirs = times
            foreach = theirs.get("torch foreach")
            fused = theirs.get("torch fused")
            tf_value = (tf_ms or {}).get(f"{name}/{count}x{size}")
            cells = [f"{x:13.2f}" if x else f"{'-':>13}" for x in (foreach, fused)]
            print(f"{name:<14}{f'{count}x{size}':<14}{ours:12.2f}{cells[0]:>15}{cells[1]}"
                  + (f"{tf_value:10.2f}" if tf_value else f"{'-':>10}")
                  + (f"{ours / foreach:10.2f}" if foreach else f"{'-':>10}")
                  + (f"{ours / fused:8.2f}" if fused else f"{'-':>8}")
                  + (f"{tf_value / ours:12.2f}" if tf_value else f"{'-':>12}"))
            del variables, opt, pairs, values, grads, steps


if __name__ == "__main__":
    main()
