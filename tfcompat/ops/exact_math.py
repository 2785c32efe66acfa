"""TF's correctly rounded square root, on every CPU.

TF's `Sqrt` kernels (Eigen: the `sqrtss`/`vsqrtps` instructions) return the float nearest the
square root, as IEEE 754 requires. torch's CPU `sqrt` goes through MKL's vector math library,
whose default accuracy is one ulp: on some CPUs (seen on AMD EPYC, every code path and
`ATEN_CPU_CAPABILITY`) about a fifth of float32 results and 1.4% of float64 ones are the
other neighbour of the true value. Every square root tfcompat takes where TF's is exact
(`tf.sqrt`, norms, standard deviations, the optimizers' `sqrt(v) + epsilon`) goes through
`sqrt` / `foreach_sqrt` here:

* where torch's `sqrt` is exact for the device and dtype (probed once per device type and
  dtype against NumPy's, which is the instruction), torch's own op, nothing added;
* otherwise float32: the square root of the float64 value rounded to float32, which is the
  correctly rounded one (a float64 result within one ulp cannot cross a float32 rounding
  boundary: the square root of a float32 lies at least 2**-50 relative from every float32
  midpoint, the error is at most 2**-52); float16 and bfloat16 round that float32 value once
  more, as Eigen's half-precision `sqrt` (float32 arithmetic, one rounding) does;
* float64: torch's value, or its neighbour where the exact residual `x - y*y` (Dekker's
  product, no fused multiply-add needed) shows the true root past the midpoint.

Gradients flow as through torch's `sqrt` (float32 through the float64 value's derivative,
rounded once: within an ulp of TF's `SqrtGrad`; float64 through torch's node at the
uncorrected value: within two). Complex inputs are torch's.
"""

from __future__ import annotations

import threading
from typing import Dict, List, Tuple

import numpy as np
import torch

__all__ = ["sqrt", "foreach_sqrt", "foreach_sqrt_", "torch_sqrt_is_exact"]

_REAL = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_exact: Dict[Tuple[str, torch.dtype], bool] = {}
_lock = threading.Lock()


def _probe_values(dtype: torch.dtype) -> np.ndarray:
    """Positive floats of every binade the dtype has (several thousand), fixed."""
    rs = np.random.RandomState(20261204)
    if dtype in (torch.float16, torch.bfloat16):  # every positive finite value of the type
        bits = np.arange(1, 0x7C00 if dtype is torch.float16 else 0x7F80, dtype=np.uint16)
        return torch.from_numpy(bits.view(np.int16)).view(dtype).float().numpy()
    mant = rs.uniform(1.0, 2.0, 8192)
    exps = rs.randint(-120, 120, 8192) if dtype is torch.float32 else rs.randint(-1000, 1000, 8192)
    return (mant * np.exp2(exps.astype(np.float64))).astype(
        np.float32 if dtype is torch.float32 else np.float64)


def _reference(values: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """The correctly rounded square roots (Eigen's for half precision)."""
    if dtype is torch.float64:
        return torch.from_numpy(np.sqrt(values))
    exact32 = torch.from_numpy(np.sqrt(values.astype(np.float64)).astype(np.float32))
    return exact32.to(dtype)


def torch_sqrt_is_exact(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether torch's `sqrt` gives TF's (correctly rounded) results on this device type and
    dtype (probed once; accelerators' `sqrt` is IEEE)."""
    key = (device.type, dtype)
    found = _exact.get(key)
    if found is not None:
        return found
    if device.type != "cpu" or dtype not in _REAL:
        found = True
    else:
        values = _probe_values(dtype)
        given = torch.from_numpy(values).to(dtype)
        found = bool(torch.equal(torch.sqrt(given), _reference(values, dtype)))
    with _lock:
        _exact[key] = found
    return found


def _corrected64(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """`y` (torch's float64 `sqrt(x)`, within an ulp) replaced by the float nearest the true
    root: the exact residual `r = x - y*y` (Dekker's split product) against the midpoints
    `y + u/2` and `y - d/2` (`u`, `d`: the gaps to `y`'s neighbours) decides, with every
    comparison exact (`x - (y + u/2)**2 = r - y*u - u*u/4`). Inputs are scaled by an even
    power of two where a product would under- or overflow."""
    with torch.no_grad():
        tiny = x < 2.0 ** -900
        huge = x > 2.0 ** 900
        xs = torch.where(tiny, x * 2.0 ** 600, torch.where(huge, x * 2.0 ** -600, x))
        ys = torch.where(tiny, y * 2.0 ** 300, torch.where(huge, y * 2.0 ** -300, y))
        split = ys * 134217729.0  # 2**27 + 1: hi and lo of 26 bits, their products exact
        hi = split - (split - ys)
        lo = ys - hi
        residual = ((xs - hi * hi) - 2.0 * hi * lo) - lo * lo  # exactly xs - ys * ys
        up_gap = torch.nextafter(ys, torch.full((), float("inf"), dtype=ys.dtype)) - ys
        down_gap = ys - torch.nextafter(ys, torch.zeros((), dtype=ys.dtype))
        up = (residual - ys * up_gap) > up_gap * up_gap * 0.25
        down = (residual + ys * down_gap) < down_gap * down_gap * 0.25
        fixed = torch.where(up, ys + up_gap, torch.where(down, ys - down_gap, ys))
        fixed = torch.where(tiny, fixed * 2.0 ** -300, torch.where(huge, fixed * 2.0 ** 300, fixed))
        ordinary = torch.isfinite(y) & (y > 0)
        delta = torch.where(ordinary, fixed - y, torch.zeros((), dtype=y.dtype))
    return torch.where(ordinary, y + delta, y)  # (the gradient is torch's sqrt node's)


def sqrt(x: torch.Tensor) -> torch.Tensor:
    """TF's `sqrt`: correctly rounded (see the module docstring)."""
    dtype = x.dtype
    if dtype not in _REAL or torch_sqrt_is_exact(x.device, dtype):
        return torch.sqrt(x)
    if dtype is torch.float64:
        return _corrected64(x, torch.sqrt(x))
    root = torch.sqrt(x.to(torch.float64)).to(torch.float32)
    return root if dtype is torch.float32 else root.to(dtype)


def foreach_sqrt(tensors: List[torch.Tensor]) -> List[torch.Tensor]:
    """`torch._foreach_sqrt(tensors)`, correctly rounded (the tensors share a device and dtype)."""
    if not tensors:
        return []
    first = tensors[0]
    if first.dtype not in _REAL or torch_sqrt_is_exact(first.device, first.dtype):
        return torch._foreach_sqrt(tensors)
    return [sqrt(t) for t in tensors]


def foreach_sqrt_(tensors: List[torch.Tensor]) -> None:
    """`torch._foreach_sqrt_(tensors)`, correctly rounded, in place."""
    if not tensors:
        return
    first = tensors[0]
    if first.dtype not in _REAL or torch_sqrt_is_exact(first.device, first.dtype):
        torch._foreach_sqrt_(tensors)
        return
    torch._foreach_copy_(tensors, [sqrt(t) for t in tensors])
