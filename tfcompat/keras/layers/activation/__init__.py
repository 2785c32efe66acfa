"""Activation layers: `ReLU`, `LeakyReLU`, `PReLU`, `ELU`, `ThresholdedReLU`, `Softmax`."""

from .prelu import PReLU, ThresholdedReLU
from .relu_family import ELU, LeakyReLU, ReLU
from .softmax import Softmax

__all__ = ["ReLU", "LeakyReLU", "PReLU", "ELU", "ThresholdedReLU", "Softmax"]
