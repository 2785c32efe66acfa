"""Merging layers: elementwise merges, `Concatenate`, `Dot`, and their functional forms."""

from .arithmetic import (Add, Average, Maximum, Minimum, Multiply, Subtract, add, average,
                         maximum, minimum, multiply, subtract)
from .concatenate import Concatenate, concatenate
from .dot import Dot, dot

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot",
           "add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"]
