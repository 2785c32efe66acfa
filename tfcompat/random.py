"""`tf.random`: seeds and the random ops of the TF subset (re-exports only)."""

from .ops.random_ops import normal, set_seed, truncated_normal, uniform

__all__ = ["set_seed", "normal", "uniform", "truncated_normal"]
