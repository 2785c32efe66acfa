"""`tf.nn.compute_average_loss` and `tf.nn.scale_regularization_loss`: losses under a strategy.

A replica's loss is scaled by the *global* batch, so that summing the
replicas' gradients (what the optimizer does) gives the gradient of the
mean over the global batch.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import errors
from ..framework.tensor_conversion import convert_to_tensor
from . import distribute_lib

__all__ = ["compute_average_loss", "scale_regularization_loss"]


def _replica_context_required(name: str) -> None:
    if distribute_lib.has_strategy() and distribute_lib.in_cross_replica_context():
        raise RuntimeError(f"You are calling `{name}` in cross replica context, while it was "
                           "expected to be called in replica context.")


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Optional[Any] = None) -> torch.Tensor:
    """`sum(per_example_loss * sample_weight) / global_batch_size` (0 for an empty batch).

    Without `global_batch_size`: this replica's batch times the replicas in
    sync. The result keeps a float loss's dtype; an integer loss divides as TF's
    truediv (float64 for int32/int64).
    """
    loss = convert_to_tensor(per_example_loss)
    if loss.dim() < 1:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at "
                         f"least rank 1, received: {loss}")
    dtype = loss.dtype
    if sample_weight is not None:
        weight = convert_to_tensor(sample_weight, dtype=dtype)
        loss = (loss * weight).to(dtype)
    if global_batch_size is None:
        _replica_context_required("compute_average_loss")
        global_batch_size = loss.shape[0] * distribute_lib.get_strategy().num_replicas_in_sync
    size = convert_to_tensor(global_batch_size)
    if size.dim() != 0:
        raise errors.InvalidArgumentError(None, None, "global_batch_size must be scalar.")
    if size.is_floating_point() or size.dtype is torch.bool:
        raise TypeError("global_batch_size must be an integer.")
    if int(size) < 0:
        raise errors.InvalidArgumentError(None, None, "global_batch_size must be non-negative.")
    total = _as_quotient_dtype(loss.sum())
    if int(size) == 0:  # TF's div_no_nan: an empty global batch has loss 0
        return torch.zeros((), dtype=total.dtype, device=total.device)
    return total / size.to(dtype=total.dtype, device=total.device)


def _as_quotient_dtype(x: torch.Tensor) -> torch.Tensor:
    """TF's truediv result dtype: integers divide in float64 (int32/int64) or float32."""
    if x.is_floating_point() or x.is_complex():
        return x
    if x.dtype in (torch.int32, torch.int64):
        return x.to(torch.float64)
    return x.to(torch.float32)


def scale_regularization_loss(regularization_loss: Any) -> torch.Tensor:
    """The sum of `regularization_loss` (a tensor, summed over its elements, or a list of
    them) divided by the replicas in sync."""
    if isinstance(regularization_loss, (list, tuple)):
        from ..ops.reduction_ops import add_n
        regularization_loss = add_n(regularization_loss)
    _replica_context_required("scale_regularization_loss")
    loss = _as_quotient_dtype(convert_to_tensor(regularization_loss).sum())  # TF: reduce_sum
    return loss / distribute_lib.get_strategy().num_replicas_in_sync
