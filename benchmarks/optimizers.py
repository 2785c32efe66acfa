"""Optimizer step time: tfcompat's Keras optimizers vs torch.optim (vs tf_keras).

    python benchmarks/optimizers.py [--device cuda] [--tf-python /path/to/python-with-tf] [--quick]
                                    [--suite sgd_momentum] [--layout 2000x100]

Gradients are precomputed; only the update is timed (median of repeated
steps). Layouts: 1 tensor of 10,000,000 floats, 200 of 50,000, 2,000 of 100
(`--quick`: tiny layouts, to check the script runs).

* Adam: tfcompat `apply_gradients` vs `torch.optim.Adam(foreach=True)` and
  `torch.optim.Adam(fused=True)`; ratios are tfcompat / torch.
* SGD with momentum 0.9 and Adagrad against their torch counterparts
  (fused where torch has a fused kernel for the device, else foreach).
* With `--tf-python`, tf_keras' legacy optimizers in TF eager (CPU), in a
  worker process: each repetition times tfcompat, the torch columns and TF
  in turn, so all columns see the same machine.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, List, Optional

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tfcompat as tf  # noqa: E402
from benchmarks import _cli  # noqa: E402
from benchmarks._tf import remote  # noqa: E402
from benchmarks._timing import interleaved_ms  # noqa: E402

LAYOUTS = ((1, 10_000_000), (200, 50_000), (2000, 100))
QUICK_LAYOUTS = ((1, 1000), (20, 50))

# name -> (tfcompat/tf_keras class and kwargs, torch makers)
SUITES = {
    "adam": (("Adam", dict(learning_rate=1e-3)), {
        "torch foreach": lambda ps: torch.optim.Adam(ps, lr=1e-3, foreach=True),
        "torch fused": lambda ps: torch.optim.Adam(ps, lr=1e-3, fused=True)}),
    "sgd_momentum": (("SGD", dict(learning_rate=1e-2, momentum=0.9)), {
        "torch foreach": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, foreach=True),
        "torch fused": lambda ps: torch.optim.SGD(ps, lr=1e-2, momentum=0.9, fused=True)}),
    "adagrad": (("Adagrad", dict(learning_rate=1e-2)), {
        "torch foreach": lambda ps: torch.optim.Adagrad(ps, lr=1e-2, foreach=True),
        "torch fused": lambda ps: torch.optim.Adagrad(ps, lr=1e-2, fused=True)}),
}


def _torch_step(params: list, grads: list, make: Callable) -> Callable[[], None]:
    for p, g in zip(params, grads):
        p.grad = g
    return make(params).step


def _cell(x: Optional[float], width: int, digits: int = 2) -> str:
    return f"{x:{width}.{digits}f}" if x else f"{'-':>{width}}"


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", action="append", choices=sorted(SUITES),
                        help="only this optimizer (repeatable; default: all)")
    parser.add_argument("--layout", action="append", metavar="COUNTxSIZE",
                        help="only this layout, e.g. 2000x100 (repeatable; default: the three above)")


def main(argv: Optional[List[str]] = None) -> None:
    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=15, quick_help="tiny layouts, few repetitions",
                      extra=_options)
    device, tf_device, worker = _cli.start(args)
    layouts = QUICK_LAYOUTS if args.quick else LAYOUTS
    if args.layout:
        layouts = [tuple(int(n) for n in text.split("x")) for text in args.layout]
    suites = {k: v for k, v in SUITES.items() if not args.suite or k in args.suite}
    repeat = 3 if args.quick else args.repeat
    try:
        print(f"device: {device}, torch {torch.__version__}; tf_keras legacy (eager): "
              + ("measured, interleaved" if worker else "not measured (pass --tf-python)"))
        print(f"{'optimizer':<14}{'layout':<14}{'tfcompat ms':>12}{'torch foreach':>15}{'torch fused':>13}"
              f"{'tf_keras':>10}{'/foreach':>10}{'/fused':>8}{'tf_keras/us':>12}")
        for name, ((cls_name, kwargs), torch_makers) in suites.items():
            for count, size in layouts:
                gen = torch.Generator(device="cpu").manual_seed(0)
                values = [torch.randn(size, generator=gen).to(device) for _ in range(count)]
                grads = [torch.randn(size, generator=gen).to(device) for _ in range(count)]
                with tf.device(tf_device):
                    variables = [tf.Variable(v) for v in values]
                opt = getattr(tf.keras.optimizers, cls_name)(**kwargs)
                pairs = list(zip(grads, variables))
                steps = {"tfcompat": lambda: opt.apply_gradients(pairs)}
                for label, make in torch_makers.items():
                    params = [torch.nn.Parameter(v.clone()) for v in values]
                    try:
                        step = _torch_step(params, grads, make)
                        step()  # (torch may refuse a kernel for this device only when stepping)
                    except (RuntimeError, ValueError):  # no such kernel for this device: column "-"
                        continue
                    steps[label] = step
                tf_timer = remote(worker, "optimizers", dict(optimizer=cls_name, kwargs=kwargs,
                                                             count=count, size=size))
                if tf_timer is not None:
                    steps["tf_keras"] = tf_timer
                times = interleaved_ms(steps, repeat=repeat, device=device)
                ours = times["tfcompat"]
                foreach, fused, tf_value = (times.get(k) for k in ("torch foreach", "torch fused", "tf_keras"))
                print(f"{name:<14}{f'{count}x{size}':<14}{ours:12.2f}{_cell(foreach, 15)}{_cell(fused, 13)}"
                      f"{_cell(tf_value, 10)}{_cell(foreach and ours / foreach, 10)}"
                      f"{_cell(fused and ours / fused, 8)}{_cell(tf_value and tf_value / ours, 12)}")
                del variables, opt, pairs, values, grads, steps
    finally:
        if worker is not None:
            worker.close()


if __name__ == "__main__":
    main()
