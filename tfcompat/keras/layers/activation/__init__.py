"""Activation layers: `ReLU`, `LeakyReLU`, `ELU`, `Softmax`."""

from .relu_family import ELU, LeakyReLU, ReLU
from .softmax import Softmax

__all__ = ["ReLU", "LeakyReLU", "ELU", "Softmax"]
