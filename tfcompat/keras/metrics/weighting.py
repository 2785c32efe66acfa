"""How a metric weights its values: TF's `broadcast_weights` and the `Reduction` kinds.

`broadcast_weights(weights, values)` is `tf.__internal__.ops.broadcast_weights`: a scalar
weight, or one of the values' rank whose every dimension is 1 or the values', is broadcast
to the values' shape; anything else is TF's `ValueError` (which `Reduce` catches to fall
back to averaging the values over the dimensions the weight lacks, as tf_keras).
"""

from __future__ import annotations

import enum
from typing import Any

import torch

from ...framework import tensor_conversion
from ...ops import creation_ops, math_ops

__all__ = ["Reduction", "broadcast_weights", "assert_broadcastable"]

_PREFIX = "weights can not be broadcast to values."


class Reduction(enum.Enum):
    """tf_keras's metric reductions: `SUM` (the weighted sum), `SUM_OVER_BATCH_SIZE` (that
    sum over the number of values), `WEIGHTED_MEAN` (that sum over the sum of weights)."""

    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    WEIGHTED_MEAN = "weighted_mean"


def assert_broadcastable(weights: torch.Tensor, values: torch.Tensor) -> None:
    """TF's static check: a scalar weight, or the values' rank with each dimension 1 or
    equal; otherwise TF's `ValueError` text."""
    w_rank, v_rank = weights.dim(), values.dim()
    if w_rank == 0:
        return
    if w_rank != v_rank:
        raise ValueError(
            f"{_PREFIX} values.rank={v_rank}. weights.rank={w_rank}. "
            f"values.shape={_shape(values)}. weights.shape={_shape(weights)}. "
            f"Received weights={weights}, values={values}")
    for i, (w, v) in enumerate(zip(weights.shape, values.shape)):
        if w not in (1, v):
            raise ValueError(
                f"{_PREFIX} Mismatch at dim {i}. values.shape={list(values.shape)}, "
                f"weights.shape={list(weights.shape)}. Received weights={weights}, "
                f"values={values}")


def _shape(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ("," if t.dim() == 1 else "") + ")"


def broadcast_weights(weights: Any, values: Any) -> torch.Tensor:
    """`weights` broadcast to `values`' shape (`weights * ones_like(values)`; returned as
    is when the shapes are equal), after TF's broadcastability check."""
    weights = tensor_conversion.convert_to_tensor(weights)
    values = tensor_conversion.convert_to_tensor(values)
    if tuple(weights.shape) == tuple(values.shape):
        return weights
    assert_broadcastable(weights, values)
    return math_ops.multiply(weights, creation_ops.ones_like(values, dtype=weights.dtype))
