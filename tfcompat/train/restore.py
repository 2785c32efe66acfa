"""Restoring an object-based checkpoint into Python objects, now or when they appear.

As TF (`checkpoint/restore.py`, `_CheckpointRestoreCoordinator`):

* every `restore()`/`read()` call is a `RestoreCoordinator` with a new,
  larger `restore_uid`; `CheckpointPosition(coordinator, node_id)` is a
  node of the file's object graph, and `position.restore(obj)` binds the
  node to `obj` and walks the node's children breadth first, matching them
  to `obj`'s children by local name. A child that does not exist yet is
  deferred: its position waits in the parent's `_deferred_dependencies`
  until an object is tracked under that name (`trackable.py`);
* an optimizer's slot values are restored when both the optimizer and the
  variable are bound: through the optimizer's
  `_create_or_restore_slot_variable`, which creates the slot at once with
  the checkpoint's value or defers it to the optimizer's
  `_deferred_slot_restorations` until `add_slot` creates it;
* an object already restored by a newer call keeps its value (later
  restores win);
* tfcompat's guarantee: each walk is all-or-nothing. Every value it would
  assign is checked against its variable (dtype: TF's
  `InvalidArgumentError`; shape: TF's `ValueError`) and read from the
  file (which verifies checksums) before the first assignment; on error
  nothing is assigned, no slot is created and nothing is left deferred.
"""

from __future__ import annotations

import collections
import itertools
import threading
from typing import Any, Dict, List, NamedTuple, Optional

import torch

from ..framework import errors
from ..framework.tensor_shape import TensorShape
from .graph_view import Saveable, saveables_of
from .trackable import children_of, deferred_dependencies, get_update_uid, lookup_dependency, \
    set_update_uid

__all__ = ["RestoreCoordinator", "CheckpointPosition", "tf_dtype_name"]

_uid_lock = threading.Lock()
_uids = itertools.count(1)


def _next_uid() -> int:
    with _uid_lock:
        return next(_uids)


_CPP_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_dtype_name(dtype: Any) -> str:
    """TF's C++ name of a dtype (`float`, `double`, `half`, `int32`, ...), as its errors print it."""
    name = getattr(dtype, "name", str(dtype))
    return _CPP_DTYPE_NAMES.get(name, name)


class _SlotRestoration(NamedTuple):
    optimizer_id: int
    slot_variable_id: int
    slot_name: str


class _DeferredSlotRestoration(NamedTuple):
    original_variable: Any
    slot_variable_id: int
    slot_name: str


class RestoreCoordinator:
    """The state of one restore call: the graph read from the file and what was matched."""

    def __init__(self, object_graph_proto: Any, save_path: str, reader: Any,
                 skip_slot_variables: bool = False) -> None:
        self.object_graph_proto = object_graph_proto
        self.save_path = save_path
        self.reader = reader
        self.restore_uid = _next_uid()
        self.object_by_proto_id: Dict[int, Any] = {}
        self.matched_proto_ids: set = set()
        self.all_python_objects: Dict[int, Any] = {}
        self.unused_attributes: Dict[int, list] = {}
        self.deferred_slot_restorations: Dict[int, list] = {}
        self.slot_restorations: Dict[int, list] = collections.defaultdict(list)
        self.expect_partial = False
        self.skip_slot_variables = skip_slot_variables
        for node_index, node in enumerate(() if skip_slot_variables else object_graph_proto.nodes):
            for ref in node.slot_variables:
                self.slot_restorations[ref.original_variable_node_id].append(
                    _SlotRestoration(node_index, ref.slot_variable_node_id, ref.slot_name))


class _Walk:
    """One all-or-nothing restore walk: planned effects, applied only if all are valid."""

    def __init__(self, checkpoint: RestoreCoordinator) -> None:
        self.checkpoint = checkpoint
        self.assignments: List[tuple] = []   # (obj, saveable, key)
        self.slots: List[tuple] = []         # (optimizer, variable, slot position, slot name)
        self.undo: List[Any] = []            # callables undoing bookkeeping on failure
        self.extra: tuple = (None, {})
        self.gathered: set = set()           # ids of the objects this walk restores

    # -- bookkeeping that is undone on failure ---------------------------------
    def bind(self, position: "CheckpointPosition", obj: Any) -> bool:
        ck = self.checkpoint
        pid = position.proto_id
        if id(obj) not in ck.all_python_objects:
            ck.all_python_objects[id(obj)] = obj
            self.undo.append(lambda: ck.all_python_objects.pop(id(obj), None))
        current = ck.object_by_proto_id.get(pid)
        if pid not in ck.matched_proto_ids:
            ck.matched_proto_ids.add(pid)
            self.undo.append(lambda: ck.matched_proto_ids.discard(pid))
        if current is None:
            ck.object_by_proto_id[pid] = obj
            self.undo.append(lambda: ck.object_by_proto_id.pop(pid, None))
            return True
        return False

    def defer(self, table: dict, key: Any, item: Any) -> None:
        bucket = table.setdefault(key, [])
        bucket.append(item)

        def undo() -> None:
            if item in bucket:
                bucket.remove(item)
            if not bucket and table.get(key) is bucket:
                del table[key]
        self.undo.append(undo)

    def pop(self, table: dict, key: Any) -> list:
        items = table.pop(key, None)
        if items:
            self.undo.append(lambda: table.__setitem__(key, items))
        return list(items or ())

    # -- the walk --------------------------------------------------------------------
    def run(self, position: "CheckpointPosition", obj: Any, extra_children: Optional[dict] = None) -> None:
        """Walk from `position` bound to `obj`; `extra_children` are more children of `obj`
        (a `tf.train.Checkpoint`'s keyword arguments attached to its `root`)."""
        self.extra = (obj, extra_children or {})
        queue = collections.deque([(position, obj)])
        while queue:
            pos, current = queue.popleft()
            self._queue_children(pos, current, queue)
            self._queue_slots(pos, current, queue)
            self._gather(pos, current)
        try:
            values = self._validate_and_read()
        except BaseException:
            for undo in reversed(self.undo):
                undo()
            raise
        self._apply(values)

    def _queue_children(self, pos: "CheckpointPosition", obj: Any, queue: Any) -> None:
        ck = self.checkpoint
        children = children_of(obj)
        if obj is self.extra[0] and self.extra[1]:
            children = {**children, **self.extra[1]}
        for child in pos.object_proto.children:
            if ck.object_by_proto_id.get(child.node_id) is not None:
                continue
            child_pos = CheckpointPosition(ck, child.node_id)
            local = children.get(child.local_name)
            if local is None:
                local = lookup_dependency(obj, child.local_name)
            if local is None:
                proto = child_pos.object_proto
                if proto.has_checkpoint_values is not None:
                    has_value = proto.has_checkpoint_values.value
                else:
                    has_value = bool(proto.children or proto.attributes or proto.slot_variables)
                table = deferred_dependencies(obj)
                if has_value and table is not None:
                    self.defer(table, child.local_name, child_pos)
            elif self.bind(child_pos, local):
                queue.append((child_pos, local))

    def _queue_slots(self, pos: "CheckpointPosition", obj: Any, queue: Any) -> None:
        ck = self.checkpoint
        # This node is an optimizer some of whose variables were bound before it.
        for deferred in self.pop(ck.deferred_slot_restorations, pos.proto_id):
            self.slots.append((obj, deferred.original_variable,
                               CheckpointPosition(ck, deferred.slot_variable_id), deferred.slot_name))
        # This node is a variable with slots.
        for slot in self.pop(ck.slot_restorations, pos.proto_id):
            optimizer = ck.object_by_proto_id.get(slot.optimizer_id)
            if optimizer is None:
                self.defer(ck.deferred_slot_restorations, slot.optimizer_id,
                           _DeferredSlotRestoration(obj, slot.slot_variable_id, slot.slot_name))
            elif hasattr(optimizer, "_create_or_restore_slot_variable"):
                self.slots.append((optimizer, obj, CheckpointPosition(ck, slot.slot_variable_id),
                                   slot.slot_name))

    def _gather(self, pos: "CheckpointPosition", obj: Any) -> None:
        # As TF's `_single_restore`, which sets the object's update uid as it gathers: an
        # object reached again in the same walk (one variable under two names, a module
        # shared by two parents) keeps the value of the node that reached it first, in
        # the breadth-first order of the file's graph.
        ck = self.checkpoint
        if get_update_uid(obj) >= ck.restore_uid or id(obj) in self.gathered:
            return
        self.gathered.add(id(obj))
        saveables = saveables_of(obj)
        for attr in pos.object_proto.attributes:
            saveable = saveables.get(attr.name)
            if saveable is None:
                unused = ck.unused_attributes.setdefault(pos.proto_id, [])
                unused.append(attr.name)
                self.undo.append(lambda u=unused, n=attr.name: u.remove(n))
                continue
            self.assignments.append((obj, saveable, attr.checkpoint_key))
        if not pos.object_proto.attributes:
            self.assignments.append((obj, None, None))  # (only the uid is recorded)

    def _validate_and_read(self) -> dict:
        reader = self.checkpoint.reader
        values: Dict[str, torch.Tensor] = {}
        for _, saveable, key in self.assignments:
            if saveable is None or key in values:
                continue
            values[key] = _checked_read(reader, key, saveable)
        for optimizer, variable, slot_pos, _ in self.slots:
            key = slot_pos.variable_key()
            if key is not None and key not in values:
                values[key] = _checked_read(reader, key, _slot_expectation(variable, key))
        return values

    def _apply(self, values: dict) -> None:
        uid = self.checkpoint.restore_uid
        # Restores that can still fail (an iterator's replay) are staged first: if one
        # fails, nothing of this walk has been assigned.
        commits = {id(saveable): saveable.prepare(values[key])
                   for _, saveable, key in self.assignments
                   if saveable is not None and getattr(saveable, "prepare", None) is not None}
        for obj, saveable, key in self.assignments:
            if saveable is not None:
                commit = commits.get(id(saveable))
                if commit is not None:
                    commit()
                else:
                    saveable.restore(values[key])
            set_update_uid(obj, uid)
        for optimizer, variable, slot_pos, slot_name in self.slots:
            slot_pos.preloaded = values.get(slot_pos.variable_key())
            slot = optimizer._create_or_restore_slot_variable(
                slot_variable_position=slot_pos, slot_name=slot_name, variable=variable)
            if slot is not None:
                slot_pos.restore(slot)
            slot_pos.preloaded = None


def _slot_expectation(variable: Any, key: str) -> Saveable:
    """What a slot value must match: the variable's dtype (its shape may differ, e.g. Adafactor)."""
    dtype = getattr(variable, "true_dtype", None) or variable.dtype
    return Saveable("VARIABLE_VALUE", "", lambda: None, lambda t: None, dtype, None, variable)


def _checked_read(reader: Any, key: str, saveable: Saveable) -> torch.Tensor:
    """The value at `key`, after TF's dtype and shape checks against `saveable`."""
    if not reader.has(key):
        raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
    stored = reader.dtype(key)
    if saveable.dtype is not None and stored != saveable.dtype:
        raise errors.InvalidArgumentError(
            None, None,
            f"tensor_name = {key}; expected dtype {tf_dtype_name(saveable.dtype)} does not equal "
            f"original dtype {tf_dtype_name(stored)}")
    shape = tuple(reader.shape(key))
    if saveable.shape is not None and not TensorShape(saveable.shape).is_compatible_with(shape):
        var = saveable.variable
        name = getattr(var, "name", saveable.full_name)
        raise ValueError(
            f"Received incompatible tensor with shape {_shape_text(shape)} when attempting to "
            f"restore variable with shape {_shape_text(tuple(TensorShape(saveable.shape).as_list()))} "
            f"and name {name}.")
    return reader.read_torch(key)


def _shape_text(shape: tuple) -> str:
    return str(tuple(shape))


class CheckpointPosition:
    """A node of a checkpoint's object graph, in one restore call (TF's `CheckpointPosition`)."""

    __slots__ = ("checkpoint", "proto_id", "preloaded")

    def __init__(self, checkpoint: RestoreCoordinator, proto_id: int) -> None:
        self.checkpoint = checkpoint
        self.proto_id = proto_id
        self.preloaded: Optional[torch.Tensor] = None

    @property
    def restore_uid(self) -> int:
        return self.checkpoint.restore_uid

    @property
    def object_proto(self) -> Any:
        return self.checkpoint.object_graph_proto.nodes[self.proto_id]

    def restore(self, trackable: Any, extra_children: Optional[dict] = None) -> None:
        """Bind this node to `trackable` and restore it and its subtree (all or nothing)."""
        walk = _Walk(self.checkpoint)
        if walk.bind(self, trackable):
            walk.run(self, trackable, extra_children)

    def is_simple_variable(self) -> bool:
        """A node holding one `VARIABLE_VALUE` and nothing else (a plain variable)."""
        proto = self.object_proto
        return (len(proto.attributes) == 1 and proto.attributes[0].name == "VARIABLE_VALUE"
                and not proto.children)

    def variable_key(self) -> Optional[str]:
        proto = self.object_proto
        for attr in proto.attributes:
            if attr.name == "VARIABLE_VALUE":
                return attr.checkpoint_key
        return None

    def value_shape(self) -> Optional[tuple]:
        key = self.variable_key()
        return None if key is None else tuple(self.checkpoint.reader.shape(key))

    def value(self) -> torch.Tensor:
        """The node's `VARIABLE_VALUE` (read now unless the walk already read it)."""
        if self.preloaded is not None:
            return self.preloaded
        return self.checkpoint.reader.read_torch(self.variable_key())

    def initial_value_callable(self) -> "CheckpointInitialValueCallable":
        return CheckpointInitialValueCallable(self)


class CheckpointInitialValueCallable:
    """An initializer giving a new variable its checkpointed value (TF's class of this name).

    Called as Keras initializers are, `(shape=None, dtype=None)`; the shape
    is the checkpoint's (`shape` is ignored, as TF).
    """

    def __init__(self, checkpoint_position: CheckpointPosition) -> None:
        self.checkpoint_position = checkpoint_position

    @property
    def restore_uid(self) -> int:
        return self.checkpoint_position.restore_uid

    def __call__(self, shape: Any = None, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        position = self.checkpoint_position
        if dtype is not None:
            key = position.variable_key()
            stored = position.checkpoint.reader.dtype(key)
            if stored != dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"tensor_name = {key}; expected dtype {tf_dtype_name(dtype)} does "
                    f"not equal original dtype {tf_dtype_name(stored)}")
        return position.value()
