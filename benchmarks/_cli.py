"""The command line every benchmark script shares, and the setup it implies."""

from __future__ import annotations

import argparse
import os
from typing import Callable, List, Optional

import torch

from benchmarks._tf import start_worker

__all__ = ["parse", "start"]


def parse(description: str, argv: Optional[List[str]], repeat: int, quick_help: str,
          extra: Optional[Callable[[argparse.ArgumentParser], None]] = None) -> argparse.Namespace:
    """`--device`, `--repeat`, `--threads`, `--quick`, `--tf-python` (plus `extra`'s), parsed;
    `--threads` is applied to torch here."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeat", type=int, default=repeat)
    if extra is not None:
        extra(parser)
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for torch and for TF's worker (default: each library's own)")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--tf-python", default=os.environ.get("TFCOMPAT_TF_PYTHON"),
                        help="a Python interpreter with tensorflow and tf_keras (optional)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    return args


def start(args: argparse.Namespace) -> tuple:
    """`(torch device, TF device name, TF worker or None)` for parsed `args`."""
    device = torch.device(args.device)
    tf_device = "/GPU:0" if device.type == "cuda" else "/CPU:0"
    return device, tf_device, start_worker(args.tf_python, device.type, args.threads)


def close_workers(*workers: object) -> None:
    """Stop the remote workers that were started (None entries skipped)."""
    for worker in workers:
        if worker is not None:
            worker.close()


def keras_header(device: object, tf_worker: object, keras3: object, extra: str = "") -> str:
    """The Keras benchmarks' first line: the device, torch, and which remote columns ran."""
    import torch
    return (f"device: {device}, torch {torch.__version__}; tf_keras: "
            + ("measured" if tf_worker else "not measured (--tf-python)") + "; Keras 3 on torch: "
            + ("measured" if keras3 else "not measured (--keras3-python)") + extra)


def _cell(x: Optional[float], width: int, digits: int = 2) -> str:
    return f"{x:{width}.{digits}f}" if x else f"{'-':>{width}}"


def print_keras_table(rows: list, targets: dict, row_width: int, digits: int) -> None:
    """The Keras benchmarks' table: per (model, row), the four columns' milliseconds, the
    ratios to torch and the target (`rows`: `(model, row, {column: ms})`)."""
    print(f"\n{'model':<7}{'row':<{row_width}}{'tfcompat ms':>12}{'torch ms':>10}{'tf_keras':>10}"
          f"{'keras3':>9}{'/torch':>8}{'tf_keras/':>10}{'keras3/':>9}{'target':>8}")
    for name, row, times in rows:
        ours, base, tfk, k3 = (times.get(k) for k in ("tfcompat", "torch", "tf_keras", "keras3"))
        target = targets.get((name, row))
        print(f"{name:<7}{row:<{row_width}}{ours:12.{digits}f}{_cell(base, 10, digits)}"
              f"{_cell(tfk, 10, digits)}{_cell(k3, 9, digits)}{_cell(base and ours / base, 8)}"
              f"{_cell(tfk and tfk / base, 10)}{_cell(k3 and k3 / base, 9)}"
              + (f"{target:7.2f}x" if target else f"{'-':>8}"))
