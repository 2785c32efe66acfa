"""`tf.keras.callbacks`: hooks into `fit`, `evaluate` and `predict` (tf_keras 2.21).

Re-exports only; each concept has its own module: the base class, the list `fit` drives
and `History` (`base.py`), console/CSV reporting (`loggers.py`), metric-watching callbacks
(`monitoring.py`), saving during training (`checkpointing.py`), TensorBoard event files
(`tensorboard.py`, over `tf.summary`).
"""

from .base import Callback, CallbackList, History, LambdaCallback, TerminateOnNaN
from .checkpointing import BackupAndRestore, ModelCheckpoint
from .loggers import BaseLogger, CSVLogger, ProgbarLogger
from .monitoring import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau
from .tensorboard import TensorBoard

__all__ = [
    "BackupAndRestore", "BaseLogger", "CSVLogger", "Callback", "CallbackList", "EarlyStopping",
    "History", "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger",
    "ReduceLROnPlateau", "TensorBoard", "TerminateOnNaN",
]
