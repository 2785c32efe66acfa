"""Reshaping layers: `Flatten`, `Reshape`."""

from .flatten import Flatten
from .reshape import Reshape

__all__ = ["Flatten", "Reshape"]
