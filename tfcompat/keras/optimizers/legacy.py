"""`tf.keras.optimizers.legacy`: the same OptimizerV2 classes (re-exports)."""

from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .ftrl import Ftrl
from .nadam import Nadam
from .optimizer_v2 import OptimizerV2 as Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam", "Ftrl"]
