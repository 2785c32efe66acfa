"""Variables that read in the layer's compute dtype under a mixed policy (tf_keras's
`AutoCastVariable`).

`enable_auto_cast_variables(dtype)` is the scope a layer's `__call__` opens around `call`:
inside it, an AutoCastVariable created by `add_weight` under a mixed policy reads as `dtype`
(float16/bfloat16) while its storage stays float32.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

__all__ = ["enable_auto_cast_variables", "autocast_dtype", "create_autocast_variable",
           "is_autocast_variable"]


class _State(threading.local):
    def __init__(self) -> None:
        self.dtype: Any = None


_state = _State()


def autocast_dtype() -> Any:
    """The dtype AutoCastVariables read as in this thread (None: their own dtype)."""
    return _state.dtype


@contextlib.contextmanager
def enable_auto_cast_variables(dtype: Any) -> Iterator[None]:
    """Read AutoCastVariables as `dtype` (a floating dtype, or None to disable) in the block."""
    previous = _state.dtype
    _state.dtype = dtype
    try:
        yield
    finally:
        _state.dtype = previous


def create_autocast_variable(variable: Any) -> Any:
    """Wrap `variable` so reads inside `enable_auto_cast_variables` are cast."""
    raise NotImplementedError(
        "AutoCastVariable is being built (mixed precision); use a float32 policy for now.")


def is_autocast_variable(value: Any) -> bool:
    return False
