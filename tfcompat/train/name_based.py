"""Restoring a name-based checkpoint (a TF 1 `tf.compat.v1.train.Saver` file) by variable names.

As TF 2 when a file has no `_CHECKPOINTABLE_OBJECT_GRAPH`: every object of
the graph restores each of its values from the key equal to the value's
global name (a variable's name without `:0`, e.g. `dense/kernel`); a value
whose name is not in the file is recorded as unused (`assert_consumed`
fails). Objects tracked later (a variable created after the restore under
a restored module) are restored by name when they are tracked.

As for object-based restores, the values of the objects existing at
`restore()` are all checked (dtype, shape) and read before any is
assigned.
"""

from __future__ import annotations

from typing import Any, Dict, List

from .graph_view import saveables_of
from .restore import _checked_read, _next_uid
from .trackable import Trackable, children_of, get_update_uid, set_update_uid

__all__ = ["NameBasedRestoreCoordinator", "NameBasedSaverStatus", "restore_by_name"]


class NameBasedRestoreCoordinator:
    """One name-based restore call: the reader and what it could not restore."""

    def __init__(self, save_path: str, reader: Any) -> None:
        self.save_path = save_path
        self.reader = reader
        self.restore_uid = _next_uid()
        self.unused_attributes: Dict[int, tuple] = {}  # id(obj) -> (obj, [attribute names])

    def plan(self, obj: Any) -> List[tuple]:
        """`[(saveable, value)]` to assign to `obj` (checked and read; nothing assigned yet)."""
        out = []
        for attr, saveable in saveables_of(obj).items():
            name = saveable.full_name
            if not name or not self.reader.has(name):
                entry = self.unused_attributes.setdefault(id(obj), (obj, []))
                entry[1].append(name or attr)
                continue
            out.append((saveable, _checked_read(self.reader, name, saveable)))
        return out

    def eager_restore(self, obj: Any) -> None:
        """Restore `obj` now unless a newer restore already did."""
        if get_update_uid(obj) >= self.restore_uid:
            return
        for saveable, value in self.plan(obj):
            saveable.restore(value)
        set_update_uid(obj, self.restore_uid)


class NameBasedSaverStatus:
    """The status of a name-based restore (TF's `NameBasedSaverStatus`)."""

    def __init__(self, checkpoint: NameBasedRestoreCoordinator, graph_view: Any) -> None:
        self._checkpoint = checkpoint
        self._object_graph_view = graph_view
        self._optionally_restored: list = []
        self._root = graph_view.root

    def add_to_optionally_restored(self, var: Any) -> None:
        """Leave `var` out of the assertions (a `save_counter` a TF 1 file cannot have)."""
        self._optionally_restored.append(var)

    def assert_consumed(self) -> "NameBasedSaverStatus":
        """AssertionError if some value of a live object was not restored."""
        unused = [(obj, attrs) for obj, attrs in self._checkpoint.unused_attributes.values()
                  if all(obj is not x for x in self._optionally_restored)]
        if unused:
            text = "".join(f"\n    {obj}: {attrs}" for obj, attrs in unused)
            raise AssertionError(f"Some objects had attributes which were not restored: {text}")
        for obj in self._object_graph_view.list_objects():
            if any(obj is x for x in self._optionally_restored):
                continue
            if get_update_uid(obj) < self._checkpoint.restore_uid:
                raise AssertionError(f"Object not restored: {obj}")
        return self

    def assert_existing_objects_matched(self) -> "NameBasedSaverStatus":
        return self.assert_consumed()

    def assert_nontrivial_match(self) -> "NameBasedSaverStatus":
        return self.assert_consumed()

    def expect_partial(self) -> "NameBasedSaverStatus":
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        return None

    def initialize_or_restore(self, session: Any = None) -> None:
        return None


def restore_by_name(view: Any, reader: Any, save_path: str) -> NameBasedSaverStatus:
    """Restore every object of `view` from `reader` by global names (all checked first)."""
    coordinator = NameBasedRestoreCoordinator(save_path, reader)
    objects = view.list_objects()
    plans = []
    for obj in objects:
        if get_update_uid(obj) < coordinator.restore_uid:
            plans.append((obj, coordinator.plan(obj)))
    for obj, plan in plans:
        for saveable, value in plan:
            saveable.restore(value)
        set_update_uid(obj, coordinator.restore_uid)
    for obj in objects:  # restore-on-create for what is tracked later
        if isinstance(obj, Trackable):
            obj._maybe_initialize_trackable()
            obj._self_name_based_restores.add(coordinator)
    return NameBasedSaverStatus(coordinator, view)


def restore_new_dependency(parent: Any, child: Any) -> None:
    """Restore a newly tracked `child` of `parent` from `parent`'s name-based restores."""
    restores = getattr(parent, "_self_name_based_restores", None)
    if not restores:
        return
    for coordinator in sorted(restores, key=lambda c: c.restore_uid, reverse=True):
        coordinator.eager_restore(child)
        if isinstance(child, Trackable):
            child._maybe_initialize_trackable()
            child._self_name_based_restores.add(coordinator)
            for grandchild in children_of(child).values():
                restore_new_dependency(child, grandchild)
