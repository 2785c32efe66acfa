"""`tf.optimizers`: the Keras optimizers under TF's short path (re-exports)."""

from .keras.optimizers import (SGD, Adadelta, Adagrad, Adam, Adamax, Ftrl, Nadam, Optimizer,
                               RMSprop, deserialize, get, legacy, schedules, serialize)

__all__ = ["Optimizer", "SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam", "Ftrl",
           "get", "serialize", "deserialize", "legacy", "schedules"]
