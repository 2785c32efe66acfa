"""The conv2d `SAME` benchmark cases: `tf.nn.conv2d` vs the torch a PyTorch programmer writes.

`cases(device, quick)` returns `[(label, ours, theirs, extras)]`, for `benchmarks/conv.py`
and for the lead's `benchmarks/ops.py` to import. The shapes have odd sizes with stride 2, so
TF's SAME padding is asymmetric (one more row and column at the end) and tfcompat pads the
input explicitly. The torch baseline does the same job from the same NHWC input and HWIO
filter: permute to NCHW views, `F.pad` the asymmetric part, `F.conv2d`, permute back.
`extras` holds other baselines worth a row (torch on a contiguous NCHW copy of the input:
the layout a torch model would keep).
"""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import torch
import torch.nn.functional as F

import tfcompat as tf

# (label, batch, height, width, in channels, out channels, kernel)
SHAPES = (
    ("small 1x15x15x8 k3 -> 16", 1, 15, 15, 8, 16, 3),
    ("resnet 8x57x57x64 k3 -> 64", 8, 57, 57, 64, 64, 3),
)
QUICK_SHAPES = (("small 1x15x15x8 k3 -> 16", 1, 15, 15, 8, 16, 3),
                ("medium 4x29x29x32 k3 -> 32", 4, 29, 29, 32, 32, 3))


def _same_pads(size: int, k: int, s: int) -> Tuple[int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def cases(device: Optional[torch.device] = None, quick: bool = False
          ) -> List[Tuple[str, Callable[[], object], Callable[[], object], dict]]:
    """The benchmark rows: `(label, tfcompat call, torch call, {name: other torch call})`."""
    out = []
    g = torch.Generator().manual_seed(0)
    for label, n, h, w, cin, cout, k in (QUICK_SHAPES if quick else SHAPES):
        x = torch.randn(n, h, w, cin, generator=g).to(device)
        f = torch.randn(k, k, cin, cout, generator=g).to(device)
        (pt, pb), (pl, pr) = _same_pads(h, k, 2), _same_pads(w, k, 2)
        sym_h, sym_w = min(pt, pb), min(pl, pr)
        spec = (0, 0, pl - sym_w, pr - sym_w, pt - sym_h, pb - sym_h)
        weight = f.permute(3, 2, 0, 1)
        x_nchw = x.permute(0, 3, 1, 2).contiguous()
        weight_c = weight.contiguous()

        def ours(x=x, f=f):
            return tf.nn.conv2d(x, f, strides=2, padding="SAME")

        def theirs(x=x, spec=spec, weight=weight, sym=(sym_h, sym_w)):
            xp = F.pad(x, spec).permute(0, 3, 1, 2)
            return F.conv2d(xp, weight, None, 2, sym).permute(0, 2, 3, 1)

        def torch_nchw(x=x_nchw, weight=weight_c, spec=spec, sym=(sym_h, sym_w)):
            xp = F.pad(x, (spec[2], spec[3], spec[4], spec[5]))
            return F.conv2d(xp, weight, None, 2, sym)

        out.append((label, ours, theirs, {"torch NCHW": torch_nchw}))
    return out
