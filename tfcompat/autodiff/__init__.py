"""`tf.GradientTape` over torch autograd."""

from .tape import GradientTape, UnconnectedGradients, stop_gradient

__all__ = ["GradientTape", "UnconnectedGradients", "stop_gradient"]
