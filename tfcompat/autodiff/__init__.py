"""`tf.GradientTape` over torch autograd."""

from .tape import GradientTape, UnconnectedGradients, init_scope, stop_gradient

__all__ = ["GradientTape", "UnconnectedGradients", "init_scope", "stop_gradient"]
