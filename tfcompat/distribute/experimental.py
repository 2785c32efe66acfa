"""`tf.distribute.experimental`: the strategies and helpers TF files under `experimental`."""

from .central_storage_strategy import CentralStorageStrategy
from .distribute_lib import ValueContext

__all__ = ["CentralStorageStrategy", "ValueContext"]
