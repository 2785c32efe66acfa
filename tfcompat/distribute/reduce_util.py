"""`tf.distribute.ReduceOp`: how values from several replicas combine."""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
    """SUM adds the replicas' values; MEAN averages them."""
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_value(value: Any) -> "ReduceOp":
        """A `ReduceOp` from itself or its name (`"SUM"`, `"MEAN"`)."""
        if isinstance(value, ReduceOp):
            return value
        try:
            return ReduceOp(str(value).upper())
        except ValueError:
            raise ValueError(f"Unsupported reduce op {value!r}: use tf.distribute.ReduceOp.SUM or "
                             "MEAN.") from None

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> "ReduceOp":
        """The reduction a `tf.VariableAggregation` implies (SUM or MEAN)."""
        name = getattr(aggregation, "name", str(aggregation))
        if name == "SUM":
            return ReduceOp.SUM
        if name == "MEAN":
            return ReduceOp.MEAN
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                         "`tf.distribute.ReduceOp` type")
