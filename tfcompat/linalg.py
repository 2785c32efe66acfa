"""`tf.linalg`: `matmul` and `global_norm` (re-exports only)."""

from .ops.clip_ops import global_norm
from .ops.math_ops import matmul

__all__ = ["matmul", "global_norm"]
