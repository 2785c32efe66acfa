"""Lists, dicts and tuples that track their contents (TF's `trackable/data_structures.py`).

Assigning a list, dict or tuple to an attribute of an `AutoTrackable`
(`tf.Module`, `tf.train.Checkpoint`) wraps it, so trackable elements
become children of the container in the object graph:

* a list becomes a `ListWrapper` (a `list` subclass); element `i` is child
  `"i"`. Restoring into it is append-only, as TF: after an element is
  replaced, deleted or moved, saving raises TF's `ValueError`;
* a dict becomes a `_DictWrapper` (a `dict` subclass); value `d[k]` is
  child `k` (keys must be strings to be saved);
* a tuple (namedtuples included) stays the very tuple the user assigned;
  a `_TupleWrapper` node stands for it in the graph: children are the
  field names of a namedtuple, then the indices `"0"`, `"1"`, ....

Nested lists and dicts are wrapped too. `NoDependency(x)` keeps `x` as is
and untracked. Difference from TF: the wrapper holds its own copy of the
list or dict, so mutating the original object afterwards does not change
the attribute (TF aliases it and then refuses to save).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable

from .trackable import NoDependency, Trackable, is_trackable

__all__ = ["ListWrapper", "sticky_attribute_assignment", "wrap_or_unwrap", "TrackableDataStructure"]


def wrap_or_unwrap(value: Any) -> Any:
    """The tracking wrapper for `value` (lists and dicts), `NoDependency`'s content, or `value`."""
    if isinstance(value, NoDependency):
        return value.value
    if isinstance(value, TrackableDataStructure):
        return value
    if type(value) is list:
        return ListWrapper(value)
    if type(value) is dict:
        return _DictWrapper(value)
    return value


def _as_trackable(value: Any) -> Any:
    """The graph node for `value`: itself, a tuple's wrapper, or None (not trackable)."""
    if isinstance(value, tuple):
        wrapper = _TupleWrapper(value)
        return wrapper if wrapper._trackable_children() else None
    return value if is_trackable(value) else None


def sticky_attribute_assignment(trackable: Trackable, name: str, value: Any) -> Any:
    """Track `value` as `trackable`'s dependency `name` if it is trackable; the value to store."""
    # As TF, a plain (or NoDependency) value leaves an earlier dependency of that name tracked.
    if isinstance(value, NoDependency):
        return value.value
    value = wrap_or_unwrap(value)
    node = _as_trackable(value)
    if node is not None:
        trackable._track_trackable(node, name=name, overwrite=True)
    return value


class TrackableDataStructure(Trackable):
    """Base of the wrappers: children are computed from the current contents."""

    def _contents(self) -> Iterable:
        raise NotImplementedError

    def _lookup_dependency(self, name: str, cached_dependencies: Any = None) -> Any:
        return self._trackable_children().get(name)

    def _track_value(self, value: Any, name: str) -> Any:
        """Wrap `value` and restore into it whatever waited for `name`."""
        value = wrap_or_unwrap(value)
        node = _as_trackable(value)
        if node is not None:
            self._handle_deferred_dependencies(name, node)
        return value

    @property
    def trainable_weights(self) -> list:
        from .module import _flatten_values
        return [v for v in _flatten_values(list(self._contents()))
                if getattr(v, "trainable", False)]


class ListWrapper(TrackableDataStructure, list):
    """A list whose trackable elements are the children `"0"`, `"1"`, ... (TF's `ListWrapper`)."""

    def __init__(self, wrapped_list: Iterable = ()) -> None:
        list.__init__(self, [wrap_or_unwrap(v) for v in wrapped_list])
        object.__setattr__(self, "_non_append_mutation", False)

    def _contents(self) -> Iterable:
        return list(self)

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        if self._non_append_mutation and any(_as_trackable(v) is not None for v in self):
            raise ValueError(
                f"Unable to save the object {self!r} (a list wrapper constructed to track "
                "trackable TensorFlow objects). A list element was replaced (__setitem__, "
                "__setslice__), deleted (__delitem__, __delslice__), or moved (sort). In order "
                "to support restoration on object creation, tracking is exclusively for "
                "append-only data structures.\n\nIf you don't need this list checkpointed, wrap "
                "it in a non-trackable object; it will be subsequently ignored.")
        children = {}
        for index, value in enumerate(self):
            node = _as_trackable(value)
            if node is not None:
                children[str(index)] = node
        return children

    def _mutated(self) -> None:
        object.__setattr__(self, "_non_append_mutation", True)

    # -- append-only growth ------------------------------------------------------
    def append(self, value: Any) -> None:
        list.append(self, self._track_value(value, str(len(self))))

    def extend(self, values: Iterable) -> None:
        for value in values:
            self.append(value)

    def __iadd__(self, values: Iterable) -> "ListWrapper":
        self.extend(values)
        return self

    # -- anything else breaks restore-on-create ---------------------------------
    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, slice):
            self._mutated()
            list.__setitem__(self, key, [wrap_or_unwrap(v) for v in value])
            return
        if list.__getitem__(self, key) is not value:
            self._mutated()
        list.__setitem__(self, key, self._track_value(value, str(key % len(self))))

    def __delitem__(self, key: Any) -> None:
        self._mutated()
        list.__delitem__(self, key)

    def insert(self, index: int, value: Any) -> None:
        self._mutated()
        list.insert(self, index, wrap_or_unwrap(value))

    def pop(self, index: int = -1) -> Any:
        self._mutated()
        return list.pop(self, index)

    def remove(self, value: Any) -> None:
        self._mutated()
        list.remove(self, value)

    def clear(self) -> None:
        self._mutated()
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._mutated()
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        self._mutated()
        list.reverse(self)

    def __eq__(self, other: Any) -> bool:
        return list.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        return list.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"

    def __copy__(self) -> list:
        return ListWrapper(self)

    def __deepcopy__(self, memo: dict) -> list:
        import copy
        return ListWrapper(copy.deepcopy(list(self), memo))


class _DictWrapper(TrackableDataStructure, dict):
    """A dict whose trackable values are children named by their keys (TF's `_DictWrapper`)."""

    def __init__(self, wrapped_dict: Any = None) -> None:
        dict.__init__(self, {k: wrap_or_unwrap(v) for k, v in dict(wrapped_dict or {}).items()})

    def _contents(self) -> Iterable:
        return list(self.values())

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        children = {}
        for key, value in self.items():
            node = _as_trackable(value)
            if node is None:
                continue
            if not isinstance(key, str):
                raise ValueError(
                    f"Unable to save the object {self!r} (a dictionary wrapper constructed "
                    "automatically on attribute assignment). The wrapped dictionary contains a "
                    f"non-string key ({key!r}) which maps to a trackable object or mutable data "
                    "structure.\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                    "non-trackable object; it will be subsequently ignored.")
            children[key] = node
        return children

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, self._track_value(value, str(key)))

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __eq__(self, other: Any) -> bool:
        return dict.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        return dict.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"DictWrapper({dict.__repr__(self)})"

    def __copy__(self) -> dict:
        return _DictWrapper(self)

    def __deepcopy__(self, memo: dict) -> dict:
        import copy
        return _DictWrapper(copy.deepcopy(dict(self), memo))


class _TupleWrapper(TrackableDataStructure):
    """The graph node of a tuple attribute (the attribute itself stays the user's tuple)."""

    def __init__(self, original: tuple) -> None:
        object.__setattr__(self, "_original", original)
        object.__setattr__(self, "_wrapped", tuple(wrap_or_unwrap(v) for v in original))

    def _contents(self) -> Iterable:
        return self._wrapped

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        children = {}
        fields = getattr(self._original, "_fields", None)
        if fields is not None:  # as TF: a namedtuple's fields by name, then by index
            for field, value in zip(fields, self._wrapped):
                node = _as_trackable(value)
                if node is not None:
                    children[field] = node
        for index, value in enumerate(self._wrapped):
            node = _as_trackable(value)
            if node is not None:
                children[str(index)] = node
        return children

    def __repr__(self) -> str:
        return f"_TupleWrapper({self._original!r})"
