"""Trackable objects: the nodes of TF's object graph, and restore-on-create.

As TF (`tensorflow/python/trackable/base.py`, `autotrackable.py`):

* a `Trackable` names its children (`_track_trackable(child, name)`), which
  makes a directed graph rooted at whatever is checkpointed; a checkpoint
  key is the path of names from the root to the object that owns a value;
* `AutoTrackable` tracks whatever trackable value is assigned to one of its
  attributes (lists, dicts and tuples are wrapped so their contents are
  tracked too, see `data_structures.py`), and untracks on `del`;
* a restore that reaches a name with no object yet leaves a
  `CheckpointPosition` in `_deferred_dependencies[name]`; when an object is
  later tracked under that name it is restored there and then ("restore on
  create"). Several pending restores are applied newest first, and an
  object already restored by a newer `restore()` call (a larger
  `_update_uid`) is not overwritten by an older one: later restores win.

Variables take part without deriving from `Trackable` (the variables layer
sits below this one): any `tf.Variable` is a trackable leaf, its one value
saved as `VARIABLE_VALUE`; its `_update_uid` lives in its `__dict__`.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional

from ..framework import variable_protocol as protocol

__all__ = ["Trackable", "AutoTrackable", "TrackableReference", "NoDependency", "is_trackable",
           "get_update_uid", "set_update_uid", "children_of", "lookup_dependency"]


class TrackableReference(NamedTuple):
    """A named edge of the object graph (TF's `TrackableReference`)."""
    name: str
    ref: Any


class NoDependency:
    """Assign `NoDependency(x)` to an attribute to keep `x` out of the object graph (as TF)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def is_trackable(obj: Any) -> bool:
    """Whether `obj` can be a node of a checkpoint's object graph (a Trackable or a variable)."""
    return isinstance(obj, Trackable) or protocol.is_variable(obj)


def get_update_uid(obj: Any) -> int:
    """The uid of the newest restore applied to `obj` (-1: never restored)."""
    return vars(obj).get("_self_update_uid", -1) if hasattr(obj, "__dict__") else -1


def set_update_uid(obj: Any, uid: int) -> None:
    if isinstance(obj, Trackable):
        obj._maybe_initialize_trackable()
    # object.__setattr__: bypasses AutoTrackable's tracking and any delegating __setattr__.
    object.__setattr__(obj, "_self_update_uid", uid)


def children_of(obj: Any) -> Dict[str, Any]:
    """`{local name: child}` of `obj` in the object graph (a variable has none)."""
    children = getattr(obj, "_trackable_children", None)
    if children is None or protocol.is_variable(obj):
        return {}
    return children()


def lookup_dependency(obj: Any, name: str) -> Any:
    """`obj`'s child called `name`, or None."""
    if protocol.is_variable(obj) or not hasattr(obj, "_lookup_dependency"):
        return None
    return obj._lookup_dependency(name)


def deferred_dependencies(obj: Any) -> Optional[dict]:
    """`obj`'s pending restorations by child name (None for an object that can have no children)."""
    if isinstance(obj, Trackable):
        return obj._deferred_dependencies
    return None


class Trackable:
    """Base class of the objects a checkpoint saves and restores (TF's `Trackable`).

    Subclasses name their dependencies with `_track_trackable`, or override
    `_trackable_children` / `_lookup_dependency` (the data structures do).
    An object with values of its own overrides `_serialize_to_tensors` and
    `_restore_from_tensors` (TF's protocol: a dict `{name: tensor}`).
    """

    # -- lazily created state (as TF: nothing appears in vars() before first use) ----
    def _maybe_initialize_trackable(self) -> None:
        if "_self_unconditional_checkpoint_dependencies" in self.__dict__:
            return
        setter = object.__setattr__
        setter(self, "_self_unconditional_checkpoint_dependencies", [])
        setter(self, "_self_unconditional_dependency_names", {})
        setter(self, "_self_unconditional_deferred_dependencies", {})
        if "_self_update_uid" not in self.__dict__:
            setter(self, "_self_update_uid", -1)
        setter(self, "_self_name_based_restores", set())
        setter(self, "_self_saveable_object_factories", {})
        if "_self_setattr_tracking" not in self.__dict__:
            setter(self, "_self_setattr_tracking", True)

    @property
    def _update_uid(self) -> int:
        self._maybe_initialize_trackable()
        return self._self_update_uid

    @_update_uid.setter
    def _update_uid(self, value: int) -> None:
        self._maybe_initialize_trackable()
        object.__setattr__(self, "_self_update_uid", value)

    @property
    def _unconditional_checkpoint_dependencies(self) -> List[TrackableReference]:
        self._maybe_initialize_trackable()
        return self._self_unconditional_checkpoint_dependencies

    @property
    def _checkpoint_dependencies(self) -> List[TrackableReference]:
        return self._unconditional_checkpoint_dependencies

    @property
    def _deferred_dependencies(self) -> Dict[str, list]:
        """`{name: [CheckpointPosition]}`: restores waiting for a child of that name."""
        self._maybe_initialize_trackable()
        return self._self_unconditional_deferred_dependencies

    # -- the graph ------------------------------------------------------------------
    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        """`{local name: child}`, in the order the children were tracked."""
        self._maybe_initialize_trackable()
        return {ref.name: ref.ref for ref in self._self_unconditional_checkpoint_dependencies}

    def _lookup_dependency(self, name: str, cached_dependencies: Optional[dict] = None) -> Any:
        """The child tracked as `name`, or None."""
        if cached_dependencies is not None:
            return cached_dependencies.get(name)
        self._maybe_initialize_trackable()
        return self._self_unconditional_dependency_names.get(name)

    def _track_trackable(self, trackable: Any, name: str, overwrite: bool = False) -> Any:
        """Declare `trackable` a dependency of this object under `name` (TF's rules).

        A name can be re-declared for another object only with `overwrite`.
        A new name picks up the restorations deferred for it.
        """
        self._maybe_initialize_trackable()
        if not is_trackable(trackable):
            raise TypeError(
                f"Trackable._track_trackable() passed type {type(trackable)}, not a Trackable.")
        deps = self._self_unconditional_checkpoint_dependencies
        current = self._lookup_dependency(name)
        if current is not None and current is not trackable:
            if not overwrite:
                raise ValueError(
                    f"Called Trackable._track_trackable() with name='{name}', but a Trackable "
                    "with this name is already declared as a dependency. Names must be unique "
                    "(or overwrite=True).")
            for index, ref in enumerate(deps):
                if ref.name == name:
                    deps[index] = TrackableReference(name, trackable)
            self._self_unconditional_dependency_names[name] = trackable
        elif current is None:
            deps.append(TrackableReference(name, trackable))
            self._self_unconditional_dependency_names[name] = trackable
            try:
                self._handle_deferred_dependencies(name, trackable)
            except BaseException:
                # A restore-on-create that fails (a value of the wrong shape) leaves
                # nothing tracked, and the restore still waiting for a fitting object.
                self._untrack(name)
                raise
        return trackable

    def _untrack(self, name: str) -> None:
        """Drop the dependency `name` (after `del obj.name`)."""
        if "_self_unconditional_dependency_names" not in self.__dict__:
            return
        if name in self._self_unconditional_dependency_names:
            del self._self_unconditional_dependency_names[name]
            self._self_unconditional_checkpoint_dependencies[:] = [
                ref for ref in self._self_unconditional_checkpoint_dependencies if ref.name != name]

    def _handle_deferred_dependencies(self, name: str, trackable: Any) -> None:
        """Apply the restores that were waiting for a child called `name` (newest first)."""
        self._maybe_initialize_trackable()
        table = self._self_unconditional_deferred_dependencies
        pending = table.pop(name, None)
        try:
            for position in sorted(pending or (), key=lambda p: p.restore_uid, reverse=True):
                position.restore(trackable)
        except BaseException:
            if pending:
                table[name] = pending
            raise
        if self._self_name_based_restores:
            from .name_based import restore_new_dependency
            restore_new_dependency(self, trackable)

    # -- values -------------------------------------------------------------------------
    def _serialize_to_tensors(self) -> Dict[str, Any]:
        """`{name: tensor}` of this object's own values (none by default)."""
        return {}

    def _restore_from_tensors(self, restored_tensors: Dict[str, Any]) -> None:
        """Take the values `_serialize_to_tensors` saved."""

    def _add_variable_with_custom_getter(self, name: str, shape: Any = None, dtype: Any = None,
                                         initializer: Any = None, getter: Any = None,
                                         overwrite: bool = False, **kwargs: Any) -> Any:
        """Create a variable with `getter` and track it as `name` (TF's helper).

        A restore waiting for `name` gives the variable its initial value
        (the checkpoint's, shape included), as TF's
        `CheckpointInitialValueCallable` does.
        """
        self._maybe_initialize_trackable()
        if not overwrite and self._lookup_dependency(name) is not None:
            raise ValueError(
                f"A variable named '{name}' already exists. Use a different name, or pass "
                "overwrite=True.")
        pending = self._self_unconditional_deferred_dependencies.get(name)
        if pending:
            newest = max(pending, key=lambda p: p.restore_uid)
            if newest.is_simple_variable():
                initializer = newest.initial_value_callable()
                shape = None
        variable = getter(name=name, shape=shape, dtype=dtype, initializer=initializer, **kwargs)
        return self._track_trackable(variable, name=name, overwrite=overwrite)


class AutoTrackable(Trackable):
    """Tracks every trackable value assigned to an attribute (TF's `AutoTrackable`)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_self_setattr_tracking", True):
            try:
                if self.__dict__.get(name, _MISSING) is value:
                    return  # `self.x = self.x`
            except Exception:  # pragma: no cover - exotic __eq__-free dicts
                pass
            from .data_structures import sticky_attribute_assignment
            value = sticky_attribute_assignment(self, name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._untrack(name)
        object.__delattr__(self, name)

    def _delete_tracking(self, name: str) -> None:
        """Stop tracking attribute `name` (the attribute itself stays)."""
        self._untrack(name)


_MISSING = object()
