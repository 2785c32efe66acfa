"""Preprocessing layers: image resizing/cropping/rescaling and augmentation (`Resizing`,
`CenterCrop`, `Rescaling`, `RandomFlip`, `RandomRotation`, `RandomZoom`,
`RandomTranslation`, ...), `Normalization`, and the integer lookup/encoding layers
(`CategoryEncoding`, `Discretization`, `IntegerLookup`). String layers are not provided.

Each module below lists its public names in `__all__`; this package re-exports the modules
in `_MODULES` that are present.
"""

from __future__ import annotations

import importlib
import importlib.util

_MODULES = ("base_preprocessing_layer", "image_preprocessing", "image_augmentation",
            "normalization", "category_encoding", "discretization", "integer_lookup")

__all__: list = []
for _module_name in _MODULES:
    if importlib.util.find_spec(f"{__name__}.{_module_name}") is None:
        continue
    _module = importlib.import_module(f"{__name__}.{_module_name}")
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
