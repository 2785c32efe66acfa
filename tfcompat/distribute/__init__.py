"""`tf.distribute`: strategies, replica contexts, reductions."""

from .distribute_lib import (ReplicaContext, Strategy, StrategyExtended,
                             experimental_set_strategy, get_cross_replica_context,
                             get_replica_context, get_strategy, has_strategy,
                             in_cross_replica_context)
from .reduce_util import ReduceOp

__all__ = ["Strategy", "StrategyExtended", "ReplicaContext", "ReduceOp", "get_strategy",
           "has_strategy", "get_replica_context", "get_cross_replica_context",
           "in_cross_replica_context", "experimental_set_strategy"]
