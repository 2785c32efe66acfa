"""`tf.keras`: the optimizer subset of tf_keras (OptimizerV2 and schedules)."""

from . import optimizers

__all__ = ["optimizers"]
