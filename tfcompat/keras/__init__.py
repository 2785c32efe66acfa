"""`tf.keras`: tf_keras 2.x (Keras 2) on tfcompat.

Submodules load on first use (`tf.keras.layers`, `tf.keras.losses`, ...), so
`import tfcompat` stays cheap and a program that never touches Keras never
imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import optimizers

_SUBMODULES = (
    "activations", "backend", "constraints", "datasets", "initializers", "layers", "losses",
    "metrics", "mixed_precision", "models", "regularizers", "saving", "utils", "callbacks",
    "optimizers", "preprocessing",
)
# Top-level names of tf.keras and the submodule that defines each.
_ATTRIBUTES = {
    "Input": "layers", "Model": "models", "Sequential": "models",
}

__all__ = sorted(set(_SUBMODULES) | set(_ATTRIBUTES))


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return "2.21.0"  # the tf_keras release whose semantics tfcompat.keras follows
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name in _ATTRIBUTES:
        value = getattr(importlib.import_module(f"{__name__}.{_ATTRIBUTES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tfcompat.keras' has no attribute {name!r}")


def __dir__() -> list:
    return __all__
