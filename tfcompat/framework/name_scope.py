"""`tf.name_scope` as in TF 2 eager: a thread-local prefix, never uniquified."""

from __future__ import annotations

import threading

__all__ = ["name_scope", "current_name_scope"]


class _ScopeState(threading.local):
    def __init__(self) -> None:
        self.prefix = ""  # "" or "outer/inner/"


_state = _ScopeState()


def current_name_scope() -> str:
    """The active prefix, `""` at top level or `"outer/inner/"` (trailing slash)."""
    return _state.prefix


class name_scope:  # noqa: N801 - TF's public spelling
    """`tf.name_scope(name)`: prefix names of variables created in the block.

    In TF 2 eager mode names are labels, not keys: two variables created with
    the same name in the same scope both get it (no `_1` suffix). A name that
    ends in `/` is absolute and replaces the current scope; `""` resets to the
    top level. `with tf.name_scope("a") as scope:` binds `scope` to `"a/"`.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}.")
        self._name = name
        self._saved: list = []

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        old = _state.prefix
        if not self._name:
            new = ""
        elif self._name.endswith("/"):
            new = self._name
        else:
            new = old + self._name + "/"
        self._saved.append(old)
        _state.prefix = new
        return new

    def __exit__(self, *exc: object) -> None:
        _state.prefix = self._saved.pop()
