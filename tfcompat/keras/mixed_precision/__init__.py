"""`tf.keras.mixed_precision`: dtype policies and loss scaling (tf_keras 2.21's namespace).

tf_keras exports `LossScaleOptimizer`, `Policy`, `global_policy` and
`set_global_policy` here; `policy` and `autocast_variable` are the modules
the layers use.
"""

from __future__ import annotations

from . import autocast_variable, policy
from .loss_scale_optimizer import LossScaleOptimizer
from .policy import Policy, global_policy, set_global_policy

__all__ = ["LossScaleOptimizer", "Policy", "global_policy", "set_global_policy"]
