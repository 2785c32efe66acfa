"""Reductions across the GPUs of one process, coalesced (torch's `torch.cuda.comm`).

`MirroredStrategy` over several GPUs sums the replicas' gradients here:
`sum_across_gpus` adds one list of tensors per GPU into the first GPU with
`torch.cuda.comm.reduce_add_coalesced` (the tensors are flattened into
buckets, so a step makes a few transfers, not one per gradient), and
`broadcast_from_first` sends the sums back to every GPU with
`broadcast_coalesced`. Two GPUs sum `a + b` exactly as TF's `add_n` does;
with more, the order is torch's (NCCL's or a chain), which may differ from
TF's in the last bits.

Tested where two GPUs exist (tests/gpu/test_distribute_gpu.py).
"""

from __future__ import annotations

from typing import List, Sequence

import torch

__all__ = ["on_distinct_gpus", "sum_across_gpus", "broadcast_from_first"]

# The coalescing bucket torch's DataParallel uses for its reduce/broadcast (10 MiB).
_BUFFER_BYTES = 10 * 1024 * 1024


def on_distinct_gpus(components: Sequence[torch.Tensor]) -> bool:
    """Whether `components` are CUDA tensors, one per distinct GPU."""
    devices = [c.device for c in components]
    return all(d.type == "cuda" for d in devices) and len(set(devices)) == len(devices)


def sum_across_gpus(per_gpu: Sequence[Sequence[torch.Tensor]]) -> List[torch.Tensor]:
    """`per_gpu[r]` is GPU r's list (same shapes and dtypes on every GPU, in the same order):
    the elementwise sums, on GPU 0's device."""
    destination = per_gpu[0][0].device.index
    with torch.no_grad():
        return list(torch.cuda.comm.reduce_add_coalesced(
            [list(xs) for xs in per_gpu], destination=destination, buffer_size=_BUFFER_BYTES))


def broadcast_from_first(tensors: Sequence[torch.Tensor],
                         devices: Sequence[torch.device]) -> List[List[torch.Tensor]]:
    """`tensors` (on `devices[0]`) on every device: one list per device, the first the inputs
    themselves."""
    indices = [d.index for d in devices]
    with torch.no_grad():
        out = torch.cuda.comm.broadcast_coalesced(list(tensors), indices, buffer_size=_BUFFER_BYTES)
    return [list(xs) for xs in out]
