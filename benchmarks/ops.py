"""Per-call overhead of representative TF ops: tfcompat vs the raw torch call.

    python benchmarks/ops.py [--device cuda] [--threads 1] [--quick]

For 20 ops, at 64 elements (where the Python path of the op dominates) and at 1M
elements (where the kernel does), prints microseconds per call of `tf.<op>` and of
the torch call a PyTorch programmer would write for the same result, and their ratio.
Targets (issue 9): within 1.5x at 64 elements, within 1.05x at 1M. A last section
times `tf.nn.conv2d` with TF's `SAME` padding on NHWC input (strides 2: asymmetric
padding) against `torch.nn.functional.conv2d` on the same NHWC tensor (permuted to
NCHW, padded with `F.pad`, permuted back).
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tfcompat as tf  # noqa: E402
from benchmarks import _cli  # noqa: E402
from benchmarks._timing import interleaved_us  # noqa: E402

SIZES = (("64", 64), ("1M", 1 << 20))
QUICK_SIZES = (("64", 64), ("64K", 1 << 16))


def _cases(n: int, device: torch.device) -> Dict[str, Tuple[Callable, Callable]]:
    """op name -> (tfcompat call, raw torch call), on float32 tensors of n elements."""
    side = int(round(n ** 0.5))
    x = torch.randn(n, device=device)
    y = torch.randn(n, device=device)
    m = torch.randn(side, side, device=device)
    cond = x > 0
    idx = torch.randint(0, n, (max(1, n // 4),), device=device)
    return {
        "add": (lambda: tf.add(x, y), lambda: torch.add(x, y)),
        "multiply": (lambda: tf.multiply(x, y), lambda: torch.mul(x, y)),
        "math.sin": (lambda: tf.math.sin(x), lambda: torch.sin(x)),
        "exp": (lambda: tf.exp(x), lambda: torch.exp(x)),
        "round": (lambda: tf.round(x), lambda: torch.round(x)),
        "reduce_sum": (lambda: tf.reduce_sum(m, axis=0), lambda: m.sum(0)),
        "reduce_mean": (lambda: tf.reduce_mean(x), lambda: x.mean()),
        "reduce_logsumexp": (lambda: tf.reduce_logsumexp(m, axis=1), lambda: torch.logsumexp(m, 1)),
        "matmul": (lambda: tf.matmul(m, m), lambda: torch.matmul(m, m)),
        "reshape": (lambda: tf.reshape(x, [side, -1]), lambda: x.reshape(side, -1)),
        "transpose": (lambda: tf.transpose(m), lambda: m.permute(1, 0)),
        "concat": (lambda: tf.concat([x, y], 0), lambda: torch.cat([x, y], 0)),
        "gather": (lambda: tf.gather(x, idx), lambda: torch.index_select(x, 0, idx)),
        "where": (lambda: tf.where(cond, x, y), lambda: torch.where(cond, x, y)),
        "cast": (lambda: tf.cast(x, tf.float64), lambda: x.to(torch.float64)),
        "clip_by_value": (lambda: tf.clip_by_value(x, -1.0, 1.0), lambda: torch.clamp(x, -1.0, 1.0)),
        "nn.relu": (lambda: tf.nn.relu(x), lambda: torch.relu(x)),
        "nn.softmax": (lambda: tf.nn.softmax(m), lambda: torch.softmax(m, -1)),
        "sort": (lambda: tf.sort(x), lambda: torch.sort(x).values),
        "einsum": (lambda: tf.einsum("ij,jk->ik", m, m), lambda: torch.einsum("ij,jk->ik", m, m)),
    }


def _same_pads(size: int, k: int, s: int) -> Tuple[int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _conv_case(device: torch.device, quick: bool) -> Tuple[Callable, Callable]:
    n, h, c_in, c_out, k, s = (2, 16, 8, 16, 3, 2) if quick else (8, 64, 32, 64, 3, 2)
    x = torch.randn(n, h, h, c_in, device=device)
    w = torch.randn(k, k, c_in, c_out, device=device)
    w_oihw = w.permute(3, 2, 0, 1).contiguous()
    top, bottom = _same_pads(h, k, s)

    def torch_conv():
        xc = F.pad(x.permute(0, 3, 1, 2), (top, bottom, top, bottom))
        return F.conv2d(xc, w_oihw, stride=s).permute(0, 2, 3, 1)

    return (lambda: tf.nn.conv2d(x, w, strides=s, padding="SAME")), torch_conv


def main(argv: Optional[List[str]] = None) -> None:
    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=9, quick_help="small sizes, short runs")
    device = torch.device(args.device)
    repeat, target_s = (3, 0.002) if args.quick else (args.repeat, 0.01)
    rows = []
    for label, n in (QUICK_SIZES if args.quick else SIZES):
        for name, (ours, theirs) in _cases(n, device).items():
            try:
                ours()
            except (AttributeError, NotImplementedError) as e:
                rows.append((label, name, None, None, f"not built ({type(e).__name__})"))
                continue
            times = interleaved_us({"ours": ours, "theirs": theirs}, repeat=repeat,
                                   target_s=target_s, device=device)
            rows.append((label, name, times["ours"], times["theirs"], None))
    try:
        ours, theirs = _conv_case(device, args.quick)
        ours()
        times = interleaved_us({"ours": ours, "theirs": theirs}, repeat=repeat,
                               target_s=target_s, device=device)
        rows.append(("NHWC", "nn.conv2d SAME s2", times["ours"], times["theirs"], None))
    except (AttributeError, NotImplementedError) as e:
        rows.append(("NHWC", "nn.conv2d SAME s2", None, None, f"not built ({type(e).__name__})"))
    print(f"device: {device}, torch {torch.__version__}, threads {torch.get_num_threads()}; "
          "baseline: the raw torch call")
    print(f"{'size':<6}{'op':<20}{'tfcompat us':>12}{'torch us':>10}{'ratio':>8}")
    for label, name, ours_us, theirs_us, note in rows:
        if note:
            print(f"{label:<6}{name:<20}{note:>30}")
        else:
            print(f"{label:<6}{name:<20}{ours_us:12.2f}{theirs_us:10.2f}{ours_us / theirs_us:8.2f}")


if __name__ == "__main__":
    main()
