"""conv2d with SAME padding and stride 2: tfcompat vs raw torch, NHWC input, HWIO filter.

    python benchmarks/conv.py [--device cuda] [--quick]

Prints milliseconds per call and the ratio tfcompat / torch (same input, same
job: TF's asymmetric SAME padding, NHWC in and out). The "torch NCHW" column
is torch on a contiguous NCHW input, the layout a torch model keeps.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks import _cli  # noqa: E402
from benchmarks._conv_cases import cases  # noqa: E402
from benchmarks._timing import interleaved_us  # noqa: E402


def main(argv: Optional[List[str]] = None) -> None:
    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=9, quick_help="small shapes, short runs")
    device = torch.device(args.device) if getattr(args, "device", None) else None
    repeat, target_s = (3, 0.02) if args.quick else (args.repeat, 0.05)
    print(f"device: {device or 'cpu'}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(f"{'shape':<30}{'tfcompat us':>13}{'torch us':>11}{'ratio':>8}{'torch NCHW us':>15}")
    with torch.no_grad():
        for label, ours, theirs, extras in cases(device, args.quick):
            times = interleaved_us({"ours": ours, "theirs": theirs, **extras}, repeat=repeat,
                                   target_s=target_s, device=device)
            print(f"{label:<30}{times['ours']:13.1f}{times['theirs']:11.1f}"
                  f"{times['ours'] / times['theirs']:8.3f}{times['torch NCHW']:15.1f}")


if __name__ == "__main__":
    main()
