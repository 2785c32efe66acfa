"""The operand layout of CPU matrix products whose result is a few columns wide.

TF stores a dense layer's kernel as `[in, out]` and computes `x @ kernel`; torch's
`nn.Linear` stores `[out, in]` and computes `x @ weight.T`. MKL's single and double precision
GEMM (torch's CPU matmul on x86 builds) is about twice as slow in the first layout when the
product has 2 to 10 columns -- a classifier's head, `Dense(10)` -- both for the forward
product and for the kernel's gradient (`x.T @ grad`). Measured on torch 2.13 / MKL 2024.2,
1 and 2 threads, `M=256, K=512`: N=2..10 take 0.3-0.65x the time through the other layout;
N=1 (a matrix-vector product), N=12 and wider the same or longer. Inside a training epoch of
the 784-512-512-10 MLP (`benchmarks/keras_fit.py`, medians of 6 epochs under torch.profiler,
1 thread) the head's three products took 31 ms against `nn.Linear`'s 15 ms. So for such
products `matmul_2d` hands MKL the kernel's transposed copy (`K*N` values, a few KiB): the
layout `nn.Linear` keeps, in which autograd also computes the kernel's gradient
(`(grad.T @ x).T`, a transposed view).

Only the order in which the GEMM kernel sums changes, inside the rounding model of a matrix
product (TF's MatMul sums in yet another order). The choice depends on shapes, dtype and
device alone, never on timings, so a program gets the same bits on every run. Small
products (`M*K` below 32768) keep the plain call, where the copy costs more than it saves;
so do builds without MKL and every device but the CPU.
"""

from __future__ import annotations

import torch

__all__ = ["matmul_2d"]

_NARROW = frozenset(range(2, 11))
_MIN_ROWS_BY_DEPTH = 32768
_DTYPES = (torch.float32, torch.float64)
_MKL = torch.backends.mkl.is_available()


def transposed_layout(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether `matmul_2d(a, b)` takes `b` through its transposed copy (see the module)."""
    return (_MKL and b.dim() == 2 and a.dim() == 2 and b.shape[1] in _NARROW
            and a.shape[1] == b.shape[0] and a.shape[0] * a.shape[1] >= _MIN_ROWS_BY_DEPTH
            and b.dtype in _DTYPES and a.dtype is b.dtype and b.device.type == "cpu"
            and a.device.type == "cpu" and b.stride(0) != 1)


def matmul_2d(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """`torch.matmul(a, b)` for matrices `a` `[M, K]` and `b` `[K, N]` (see the module)."""
    if transposed_layout(a, b):
        return torch.mm(a, b.t().contiguous().t())
    return torch.matmul(a, b)
