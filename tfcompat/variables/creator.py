"""`tf.variable_creator_scope`: the seam through which every variable is built.

`tf.Variable(...)` does not construct anything itself: it hands its
arguments to the innermost creator on this thread's stack as
`creator(next_creator, **kwargs)`. A creator may rewrite the arguments and
call `next_creator(**kwargs)`, or build and return something else entirely.
The bottom of the stack builds a `ResourceVariable`. Strategies (mirrored
variables), compat.v1 variable stores and user code all customize
variable creation this way and nowhere else (TF's RFC "Variables in TF 2.0").

The stack is thread-local, as TF's. A strategy that runs replicas in threads
copies its creator stack into each replica thread with `get_creator_stack`
and `creator_stack`.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator

__all__ = ["variable_creator_scope", "get_creator_stack", "creator_stack", "create_variable"]

class _CreatorStack(threading.local):
    def __init__(self) -> None:
        self.creators: tuple = ()


_stack = _CreatorStack()


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable[..., Any]) -> Iterator[None]:
    """Push `variable_creator(next_creator, **kwargs)` for `tf.Variable` calls in this block.

    The innermost scope's creator runs first. The stack is restored on exit,
    also when the block raises.
    """
    if not callable(variable_creator):
        raise TypeError(f"variable_creator must be callable, got {variable_creator!r}")
    saved = _stack.creators
    _stack.creators = saved + (variable_creator,)
    try:
        yield
    finally:
        _stack.creators = saved


def get_creator_stack() -> tuple:
    """This thread's creators, outermost first (to hand to another thread)."""
    return _stack.creators


@contextlib.contextmanager
def creator_stack(creators: tuple) -> Iterator[None]:
    """Run a block with `creators` as this thread's stack (replica threads use it)."""
    saved = _stack.creators
    _stack.creators = tuple(creators)
    try:
        yield
    finally:
        _stack.creators = saved


def create_variable(default_creator: Callable[..., Any], **kwargs: Any) -> Any:
    """Run `kwargs` through the creator stack, bottoming out in `default_creator`."""
    def bottom(**kws: Any) -> Any:
        return default_creator(**kws)

    next_creator: Callable[..., Any] = bottom
    for creator in _stack.creators:
        next_creator = _chain(creator, next_creator)
    return next_creator(**kwargs)


def _chain(creator: Callable[..., Any], next_creator: Callable[..., Any]) -> Callable[..., Any]:
    def call(**kwargs: Any) -> Any:
        return creator(next_creator, **kwargs)
    return call
