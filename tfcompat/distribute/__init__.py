"""`tf.distribute`: strategies, replica contexts, distributed values, reductions."""

from . import distributed_variables, values
from .communication import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce,
                            ReductionToOneDevice)
from .distribute_lib import (ReplicaContext, Strategy, StrategyExtended, ValueContext,
                             experimental_set_strategy, get_cross_replica_context,
                             get_replica_context, get_strategy, has_strategy,
                             in_cross_replica_context)
from .ps_values import AggregatingVariable
from .distributed_variables import (DistributedVariable, MirroredVariable,
                                    SyncOnReadVariable)
from .input_lib import InputContext, InputOptions, InputReplicationMode
from .mirrored_strategy import MirroredStrategy
from .multi_worker_mirrored_strategy import MultiWorkerMirroredStrategy
from . import cluster_resolver
from .one_device_strategy import OneDeviceStrategy
from . import experimental
from .reduce_util import ReduceOp
from .values import DistributedValues, Mirrored, PerReplica

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce",
           "ReductionToOneDevice", "Strategy", "StrategyExtended", "ReplicaContext", "ReduceOp", "get_strategy",
           "has_strategy", "get_replica_context", "get_cross_replica_context",
           "in_cross_replica_context", "experimental_set_strategy", "MirroredStrategy",
           "DistributedValues", "PerReplica", "Mirrored", "DistributedVariable",
           "MirroredVariable", "SyncOnReadVariable", "AggregatingVariable", "ValueContext",
           "OneDeviceStrategy", "experimental", "InputContext", "InputOptions",
           "InputReplicationMode", "MultiWorkerMirroredStrategy", "cluster_resolver"]
