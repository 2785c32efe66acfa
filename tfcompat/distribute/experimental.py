"""`tf.distribute.experimental`: the strategies and helpers TF files under `experimental`."""

from .central_storage_strategy import CentralStorageStrategy
from .communication import (CollectiveCommunication, CommunicationImplementation,
                            CommunicationOptions)
from .distribute_lib import ValueContext
from .multi_worker_mirrored_strategy import (
    _ExperimentalMultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy)

__all__ = ["CentralStorageStrategy", "ValueContext", "MultiWorkerMirroredStrategy",
           "CommunicationOptions", "CommunicationImplementation", "CollectiveCommunication"]
