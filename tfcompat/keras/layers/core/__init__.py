"""Core layers."""

from .tf_op_layers import TFOpLambda

__all__ = ["TFOpLambda"]
