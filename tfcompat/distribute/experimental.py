"""`tf.distribute.experimental`: the strategies and helpers TF files under `experimental`."""

from .central_storage_strategy import CentralStorageStrategy
from .distribute_lib import ValueContext
from .multi_worker_mirrored_strategy import (
    _ExperimentalMultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy)

__all__ = ["CentralStorageStrategy", "ValueContext", "MultiWorkerMirroredStrategy"]
