"""`tf.VariableSynchronization` and `tf.VariableAggregation`, with TF's checks."""

from __future__ import annotations

import enum
from typing import Any, Optional

__all__ = ["VariableSynchronization", "VariableAggregation",
           "validate_synchronization_aggregation_trainable"]


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are brought in sync.

    `AUTO` lets the strategy choose (ON_WRITE for mirrored strategies);
    `ON_WRITE` syncs on every update; `ON_READ` keeps per-replica values that
    are aggregated when read in cross-replica context (metrics, batch-norm
    statistics); `NONE` means one copy, never synced.
    """
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How per-replica updates (or values, for ON_READ) combine: TF's V2 enum."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self) -> int:
        return self.value

    def __eq__(self, other: Any) -> bool:
        if self is other:
            return True
        # TF compares equal to the legacy (v1) enum members of the same name.
        return getattr(other, "name", None) == self.name and isinstance(other, enum.Enum)


def validate_synchronization_aggregation_trainable(
        synchronization: Any, aggregation: Any, trainable: Optional[bool],
        name: Optional[str]) -> tuple:
    """Defaults and checks, as TF: ON_READ variables default to non-trainable."""
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        try:
            aggregation = VariableAggregation[aggregation.name]
        except (AttributeError, KeyError):
            raise ValueError(
                f"Invalid variable aggregation mode: {aggregation} for variable: {name}. Use a "
                "member of tf.VariableAggregation.") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    elif not isinstance(synchronization, VariableSynchronization):
        raise ValueError(
            f"Invalid variable synchronization mode: {synchronization} for variable: {name}. "
            "Use a member of tf.VariableSynchronization.")
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, bool(trainable)
