"""The custom-object registry behind `get_config`/`from_config` (tf_keras's `object_registration`).

Deserializing a config finds classes and functions by name: first in the innermost
`custom_object_scope`, then in the global registry that `register_keras_serializable` fills
(keys `"package>name"`), then in the module's own objects. Scopes are thread-local, as
tf_keras's, so a replica thread's scope never leaks into another thread.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Dict, Optional

__all__ = [
    "CustomObjectScope", "custom_object_scope", "get_custom_objects", "get_registered_name",
    "get_registered_object", "register_keras_serializable",
]

_GLOBAL_CUSTOM_OBJECTS: Dict[str, Any] = {}
_GLOBAL_CUSTOM_NAMES: Dict[Any, str] = {}


class _ScopeState(threading.local):
    def __init__(self) -> None:
        self.scopes: list = []


_state = _ScopeState()


class CustomObjectScope:
    """`with custom_object_scope({"MyLayer": MyLayer}):` — names visible to deserialization.

    Accepts any number of dicts (later ones win); nests, the innermost winning.
    """

    def __init__(self, *args: Optional[Dict[str, Any]]) -> None:
        merged: Dict[str, Any] = {}
        for objects in args:
            if objects is None:
                continue
            if not isinstance(objects, dict):
                raise TypeError(
                    f"custom_object_scope expects dicts of name -> object, got {objects!r}.")
            merged.update(objects)
        self.custom_objects = merged

    def __enter__(self) -> "CustomObjectScope":
        _state.scopes.append(self.custom_objects)
        return self

    def __exit__(self, *exc: object) -> None:
        _state.scopes.pop()


custom_object_scope = CustomObjectScope


def scoped_custom_objects() -> Dict[str, Any]:
    """The names of every active `custom_object_scope` (innermost last, so it wins)."""
    merged: Dict[str, Any] = {}
    for objects in _state.scopes:
        merged.update(objects)
    return merged


def get_custom_objects() -> Dict[str, Any]:
    """The global registry (a mutable dict, as tf_keras: `get_custom_objects()["f"] = f`)."""
    return _GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package: str = "Custom", name: Optional[str] = None) -> Callable:
    """Decorator registering a class or function as `"package>name"` for deserialization.

    A registered class must define `get_config` (TF's `ValueError` otherwise).
    """

    def decorator(arg: Any) -> Any:
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    """`"package>name"` for a registered object, else its `__name__`."""
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return obj.__name__


def get_registered_object(name: str, custom_objects: Optional[Dict[str, Any]] = None,
                          module_objects: Optional[Dict[str, Any]] = None) -> Any:
    """Resolve `name`: active scopes, then the global registry, then `custom_objects`,
    then `module_objects`; `None` when nowhere."""
    scoped = scoped_custom_objects()
    if name in scoped:
        return scoped[name]
    if name in _GLOBAL_CUSTOM_OBJECTS:
        return _GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None
