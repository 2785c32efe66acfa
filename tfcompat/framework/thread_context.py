"""Thread-local context that work run on a caller's behalf in another thread carries over.

A strategy's replica threads (`distribute/mirrored_run.py`) start each replica in the
caller's creator stack, name scope and device. Context that lives in a higher layer (the
porting kit's TF 1 variable scope, `compat/v1/variable_scopes.py`) registers a capturer here
instead of being imported from below: `capturer()` runs in the calling thread and returns a
function that, in the other thread, gives a context manager re-entering that context.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, List

__all__ = ["register", "capture"]

_capturers: List[Callable[[], Callable[[], Any]]] = []


def register(capturer: Callable[[], Callable[[], Any]]) -> None:
    """Add `capturer` (once) to what `capture()` carries over."""
    if capturer not in _capturers:
        _capturers.append(capturer)


def capture() -> Callable[[], Any]:
    """In the calling thread: the registered contexts. The result, called in another thread,
    is one context manager entering them all."""
    enters = [capturer() for capturer in _capturers]

    @contextlib.contextmanager
    def enter() -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for enter_one in enters:
                stack.enter_context(enter_one())
            yield
    return enter
