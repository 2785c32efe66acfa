"""`tf.keras.layers`: every layer class and the functional merge forms (`add`, `concatenate`).

The layers live one module (or package) per family below this one; each lists its public
names in `__all__`, and this namespace resolves a name on first use by importing the
families, so adding a family needs no edit here beyond `_FAMILIES`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Dict

from ..engine.base_layer import Layer
from ..engine.input_spec import InputSpec

_FAMILIES = (
    "core", "convolutional", "pooling", "normalization", "regularization", "reshaping",
    "merging", "rnn", "attention", "preprocessing", "activation",
)
_ENGINE = {"Input": "..engine.input_layer", "InputLayer": "..engine.input_layer",
           "serialize": ".serialization", "deserialize": ".serialization"}
_index: Dict[str, Any] = {}


def _build_index() -> Dict[str, Any]:
    if not _index:
        for family in _FAMILIES:
            if importlib.util.find_spec(f"{__name__}.{family}") is None:
                continue
            module = importlib.import_module(f"{__name__}.{family}")
            for name in getattr(module, "__all__", ()):
                _index[name] = getattr(module, name)
    return _index


def __getattr__(name: str) -> Any:
    if name in _ENGINE:
        value = getattr(importlib.import_module(_ENGINE[name], __name__), name)
    else:
        index = _build_index()
        if name not in index:
            raise AttributeError(f"module 'tfcompat.keras.layers' has no attribute {name!r}")
        value = index[name]
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(_build_index()) | set(_ENGINE) | {"Layer", "InputSpec"})
