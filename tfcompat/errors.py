"""`tf.errors`: TensorFlow's exception classes and error codes (re-exports)."""

from .framework.errors import *  # noqa: F401,F403
from .framework.errors import __all__  # noqa: F401
