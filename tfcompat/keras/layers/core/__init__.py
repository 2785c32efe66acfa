"""Core layers."""

from .dense import Dense
from .tf_op_layers import TFOpLambda

__all__ = ["Dense", "TFOpLambda"]
