"""`tf.nn.embedding_lookup`: rows of one embedding tensor, or of a list of partitions.

* One tensor (or variable): `tf.gather(params, ids)`; a variable reads
  through `sparse_read`, so its gradient is `tf.IndexedSlices`, as in TF.
* A list of partitions: id `i` lives in partition `p` at row `r`. TF 2's
  `embedding_lookup` uses the `"div"` strategy (contiguous blocks: the first
  `total % n` partitions hold one id more); `tf.compat.v1`'s default is
  `"mod"` (`p = i % n`, `r = i // n`). TF gathers each partition and stitches
  the rows back (`dynamic_partition` / `dynamic_stitch`); here the partitions
  are concatenated and one gather reads `offset[p] + r`, which is the same
  rows without a data-dependent split (no host sync). An id whose row falls
  outside its partition fails as TF's gather does.
* `max_norm`: each looked-up embedding is clipped to that L2 norm
  (`tf.clip_by_norm` over the embedding axes).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variable_protocol import is_variable
from . import clip_ops
from ._indices import index_tensor
from .indexing_ops import gather

__all__ = ["embedding_lookup", "embedding_lookup_v1"]


def _clip(result: torch.Tensor, ids_rank: int, max_norm: Any) -> torch.Tensor:
    if max_norm is None:
        return result
    return clip_ops.clip_by_norm(result, max_norm, axes=list(range(ids_rank, result.dim())))


def _rows(ids: torch.Tensor, sizes: list, strategy: str) -> torch.Tensor:
    """The row of the concatenated partitions holding each id (an out-of-range row if none)."""
    n = len(sizes)
    total = sum(sizes)
    flat = ids.to(torch.int64)
    if strategy == "mod":
        part, row = torch.remainder(flat, n), torch.div(flat, n, rounding_mode="floor")
    else:  # "div": TF's formula, including its treatment of the `extras` first partitions
        per, extras = total // n, total % n
        part = torch.maximum(torch.div(flat, per + 1, rounding_mode="floor"),
                             torch.div(flat - extras, max(per, 1), rounding_mode="floor"))
        row = torch.where(part < extras, torch.remainder(flat, per + 1),
                          torch.remainder(flat - extras, max(per, 1)))
    offsets = torch.tensor([0] + sizes[:-1], dtype=torch.int64).cumsum(0).to(flat.device)
    size_t = torch.tensor(sizes, dtype=torch.int64, device=flat.device)
    safe_part = part.clamp(0, n - 1)
    ok = (flat >= 0) & (part < n) & (row < size_t[safe_part])
    return torch.where(ok, offsets[safe_part] + row, torch.full_like(flat, total))


def embedding_lookup_v1(params: Any, ids: Any, partition_strategy: str = "mod",
                        name: Optional[str] = None, validate_indices: bool = True,
                        max_norm: Any = None) -> torch.Tensor:
    """`tf.compat.v1.nn.embedding_lookup`: as `embedding_lookup`, `"mod"` partitioning by default."""
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}."
                         "Must be one of either `mod` or `div`.")
    parts = list(params) if isinstance(params, (list, tuple)) else [params]
    if len(parts) == 1:
        p = parts[0]
        idx = ids if is_variable(p) else index_tensor(ids, "GatherV2")
        result = gather(p, idx)
        return _clip(result, convert_to_tensor(ids).dim(), max_norm)
    tensors = [convert_to_tensor(p) for p in parts]
    device = tensors[0].device
    tensors = [t if t.device == device else t.to(device) for t in tensors]
    idx = index_tensor(ids, "GatherV2", device=device)
    rows = _rows(idx, [t.shape[0] for t in tensors], partition_strategy)
    result = gather(torch.cat(tensors, 0), rows)
    return _clip(result, idx.dim(), max_norm)


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None,
                     name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.embedding_lookup`: `tf.gather(params, ids)`, over `"div"`-partitioned lists too.

    `params` is a tensor, a variable or a list of them (partitions along
    axis 0, see the module docstring); `max_norm` clips each embedding's L2
    norm. Output shape `ids.shape + params.shape[1:]`.
    """
    return embedding_lookup_v1(params, ids, "div", name, max_norm=max_norm)
