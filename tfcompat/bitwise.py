"""`tf.bitwise`: bitwise ops on integer tensors (re-exports only)."""

from .ops.math_ops import bitwise_and, bitwise_or, bitwise_xor, invert

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert"]
