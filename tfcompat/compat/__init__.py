"""`tf.compat`: `v1` and `v2`, and TF's string and dimension helpers.

`tf.compat.v2` is `tfcompat` itself (so `import tfcompat.compat.v2 as tf` works as
`import tensorflow.compat.v2 as tf` does); `tf.compat.v1` is described in `v1/__init__.py`.
"""

from __future__ import annotations

import os as _os
import sys as _sys
from typing import Any, Optional

from . import v1

# `import tfcompat.compat.v2 as tf` finds the package itself (it is importing right now:
# the same module object, bound as it completes).
_sys.modules.setdefault(__name__ + ".v2", _sys.modules["tfcompat"])
__all__ = ["v1", "v2", "as_bytes", "as_text", "as_str", "as_str_any", "path_to_str",
           "dimension_value", "dimension_at_index", "forward_compatible",
           "bytes_or_text_types", "complex_types", "integral_types", "real_types"]

bytes_or_text_types = (bytes, str)
integral_types = (int,)
real_types = (int, float)
complex_types = (int, float, complex)


def __getattr__(name: str) -> Any:
    if name == "v2":  # the package, bound lazily: it is still importing when this module is
        return _sys.modules["tfcompat"]
    if name in v1._api().get("compat", {}).get("names", ()):
        return v1.NotBuilt(f"compat.{name}")  # TF has it; tfcompat does not build it
    raise AttributeError(f"module 'tfcompat.compat' has no attribute {name!r}")


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """TF's `as_bytes`: `str` encoded with `encoding`, `bytes`/`bytearray` as bytes; else TypeError."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """TF's `as_text` (also `as_str`): `bytes` decoded with `encoding`, `str` unchanged; else TypeError."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """TF's `as_str_any`: `bytes` decoded, anything else through `str()`."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path: Any) -> Any:
    """TF's `path_to_str`: an `os.PathLike` as its string; anything else unchanged."""
    return _os.fspath(path) if isinstance(path, _os.PathLike) else path


def dimension_value(dimension: Any) -> Optional[int]:
    """TF's `dimension_value`: a `Dimension`'s value (TF 2 shapes hold ints or None already)."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape: Any, index: int) -> Any:
    """TF's `dimension_at_index`: `shape[index]`, or None for a shape of unknown rank."""
    from ..framework.tensor_shape import TensorShape
    shape = TensorShape(shape)
    return None if shape.rank is None else shape[index]


def forward_compatible(year: int, month: int, day: int) -> bool:
    """TF's `forward_compatible`: whether the horizon is past a date. tfcompat follows
    TF 2.21 eager semantics, so every forward-compatibility window TF 2.21 knows is open."""
    return True
