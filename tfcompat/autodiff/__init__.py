"""`tf.GradientTape` over torch autograd."""

from .tape import GradientTape, UnconnectedGradients, init_scope, stop_gradient

__all__ = ["GradientTape", "UnconnectedGradients", "init_scope", "stop_gradient"]
from . import jit as _jit  # noqa: F401,E402  (tf.function(jit_compile=True) compiles through it)
