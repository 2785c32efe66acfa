"""`tf.train.Checkpoint`: object-based checkpoints in TF 2's file format.

As TF 2.21 (`checkpoint/checkpoint.py`):

* `Checkpoint(root=None, **children)` tracks its keyword arguments (in
  sorted order) as children; with `root` the graph is rooted at `root` and
  the keyword arguments are attached to it. Anything not trackable is TF's
  `ValueError`.
* `write(prefix)` writes the bundle `prefix.index` / `prefix.data-00000-of-
  00001`: one tensor per saved attribute under its object-graph key, plus
  the serialized `TrackableObjectGraph` as the scalar string
  `_CHECKPOINTABLE_OBJECT_GRAPH`. `save(prefix)` increments `save_counter`
  (an int64 variable created on first use), writes `prefix-N`, then (last,
  once the bundle is in place) points the directory's `checkpoint` state
  file at it.
* `read(path)` / `restore(path)` match the file's graph to the live
  objects (`restore.py`) and return a `CheckpointLoadStatus`; values for
  objects that do not exist yet are restored when they are created.
  `restore(None)` is an `InitializationOnlyStatus`. A file without an
  object graph (a TF 1 `Saver` checkpoint) is restored by variable names
  (`NameBasedSaverStatus`).
* Under a multi-worker strategy every worker serializes (a sync-on-read
  variable's saved value is a collective reduction), but only the chief's
  files land at `prefix`: the others write into
  `<dir>/workertemp_<task id>/`, deleted right after (tf_keras'
  `distributed_file_utils` scheme), and do not touch the state file.
"""

from __future__ import annotations

import os
import shutil
import weakref
from typing import Any, Optional

import numpy as np

from ..framework import dtypes, errors
from ..framework import device as device_lib
from ..framework import variable_protocol as protocol
from .checkpoint_options import CheckpointOptions, execute_callbacks
from .format.tensor_bundle import BundleReader, BundleWriter
from .graph_view import OBJECT_GRAPH_KEY, ObjectGraphView, has_values, text_format
from .object_graph import TrackableObjectGraph
from .restore import CheckpointPosition, RestoreCoordinator
from .trackable import AutoTrackable, NoDependency, TrackableReference, get_update_uid, is_trackable
from . import name_based

__all__ = ["Checkpoint", "CheckpointLoadStatus", "InitializationOnlyStatus", "NameBasedSaverStatus",
           "ObjectGraphProtoPrettyPrinter"]

NameBasedSaverStatus = name_based.NameBasedSaverStatus


def _assert_trackable(obj: Any, name: str) -> None:
    if not is_trackable(obj):
        raise ValueError(
            f"`Checkpoint` was expecting {name} to be a trackable object (an object derived "
            f"from `Trackable`), got {obj}. If you believe this object should be trackable "
            "(i.e. it is part of the TensorFlow Python API and manages state), please open an "
            "issue.")


class ObjectGraphProtoPrettyPrinter:
    """Names of a file's nodes for messages: `(root).model.layers.0.w` (as TF)."""

    def __init__(self, object_graph_proto: TrackableObjectGraph) -> None:
        self._proto = object_graph_proto
        self._names: Optional[dict] = None

    @property
    def node_names(self) -> dict:
        if self._names is not None:
            return self._names
        paths = {0: ("(root)",)}
        queue = [0]
        while queue:
            node_id = queue.pop(0)
            for child in self._proto.nodes[node_id].children:
                if child.node_id not in paths:
                    paths[child.node_id] = paths[node_id] + (child.local_name,)
                    queue.append(child.node_id)
        names = {k: ".".join(v) for k, v in paths.items()}
        for node_id, node in enumerate(self._proto.nodes):
            for ref in node.slot_variables:
                names[ref.slot_variable_node_id] = (
                    f"{names[node_id]}'s state '{ref.slot_name}' for "
                    f"{names[ref.original_variable_node_id]}")
        self._names = names
        return names


class _LoadStatus:
    def expect_partial(self) -> "_LoadStatus":
        """Silence warnings about an incomplete restore (tfcompat never prints them)."""
        return self

    def initialize_or_restore(self, session: Any = None) -> None:
        """Graph-mode API: eagerly, restoring already happened."""
        return None


class CheckpointLoadStatus(_LoadStatus):
    """What an object-based restore matched (TF's `CheckpointLoadStatus`).

    Restoring is eager: values are assigned during `restore()` (or when a
    deferred object is created); the assertions check what matched.
    """

    def __init__(self, checkpoint: RestoreCoordinator, graph_view: ObjectGraphView) -> None:
        self._checkpoint = checkpoint
        self._object_graph_view = graph_view
        self._root = graph_view.root

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """AssertionError unless every checkpointed value and every live object matched."""
        printer = ObjectGraphProtoPrettyPrinter(self._checkpoint.object_graph_proto)
        self.assert_existing_objects_matched()
        ck = self._checkpoint
        ignored = {ref.slot_variable_node_id for node in ck.object_graph_proto.nodes
                   for ref in node.slot_variables} if ck.skip_slot_variables else set()
        for node_id, node in enumerate(ck.object_graph_proto.nodes):
            if not node.attributes or node_id in ignored:
                continue
            if ck.object_by_proto_id.get(node_id) is None:
                raise AssertionError(
                    f"Unresolved object in checkpoint {printer.node_names[node_id]}: "
                    f"{text_format(node)}")
        if any(ck.slot_restorations.values()):
            pending = {k: v for k, v in ck.slot_restorations.items() if v}
            raise AssertionError(f"Unresolved slot restorations: {pending}")
        unused = {k: v for k, v in ck.unused_attributes.items() if v}
        if unused:
            lines = []
            for node_id, attributes in unused.items():
                obj = ck.object_by_proto_id[node_id]
                lines.append(f"{printer.node_names[node_id]} ({obj}): {attributes}")
            joined = "\n".join(lines)
            raise AssertionError(
                "Unused attributes in these objects (the attributes exist in the checkpoint but "
                f"were not restored):\n{joined}")
        return self

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """AssertionError if a live object (with values) has no value in the checkpoint."""
        ck = self._checkpoint
        for node_id, node in enumerate(ck.object_graph_proto.nodes):
            obj = ck.object_by_proto_id.get(node_id)
            if obj is not None and get_update_uid(obj) < ck.restore_uid:
                raise AssertionError(f"Object {text_format(node)} not assigned a value from "
                                     "checkpoint.")
        for obj in self._object_graph_view.list_objects(ck.skip_slot_variables):
            ck.all_python_objects[id(obj)] = obj
        matched = {id(o) for o in ck.object_by_proto_id.values()}
        unused = [o for o in ck.all_python_objects.values() if has_values(o) and id(o) not in matched]
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed values, "
                "likely due to changes in the Python program. Showing "
                f"{shown} of {len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        """AssertionError if nothing but the root matched."""
        ck = self._checkpoint
        for obj in self._object_graph_view.list_objects():
            ck.all_python_objects[id(obj)] = obj
        if len(ck.object_by_proto_id) <= 1:
            matched = {id(o) for o in ck.object_by_proto_id.values()}
            unused = [o for o in ck.all_python_objects.values()
                      if has_values(o) and id(o) not in matched]
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically this "
                    "means that the checkpoint does not match the Python program. The following "
                    f"objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to "
                                 f"{self._object_graph_view.root} yet.")
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Graph-mode API: eagerly, restoring already happened."""
        return None

    def expect_partial(self) -> "CheckpointLoadStatus":
        self._checkpoint.expect_partial = True
        return self


class InitializationOnlyStatus(_LoadStatus):
    """The status of `restore(None)`: nothing restored; every assertion fails (as TF)."""

    def __init__(self, graph_view: ObjectGraphView, restore_uid: int) -> None:
        self._object_graph_view = graph_view
        self._restore_uid = restore_uid
        self._root = graph_view.root

    def assert_consumed(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_existing_objects_matched(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_nontrivial_match(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def run_restore_ops(self, session: Any = None) -> None:
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")


# -- writing ------------------------------------------------------------------------

def _multi_worker_extended(saveables: dict) -> Any:
    """The `extended` of the multi-worker strategy in scope or owning a saved variable, or None.

    `save()` is usually called outside `strategy.scope()`, so the saved
    distributed variables name the strategy too.
    """
    from ..distribute import distribute_lib
    candidates = []
    if distribute_lib.has_strategy():
        candidates.append(distribute_lib.get_strategy())
    for saveable in saveables.values():
        strategy = getattr(saveable.variable, "_distribute_strategy", None)
        if strategy is not None:
            candidates.append(strategy)
            break
    for strategy in candidates:
        extended = strategy.extended
        in_multi_worker = getattr(extended, "_in_multi_worker_mode", None)
        if in_multi_worker is not None and in_multi_worker():
            return extended
    return None


def _worker_target(file_prefix: str, extended: Any) -> tuple:
    """`(where this worker writes, a temporary directory to delete, or None)`.

    The chief writes `file_prefix`; another worker writes under
    `<dir>/workertemp_<task id>/` (tf_keras' `distributed_file_utils`).
    """
    if extended is None or extended.should_checkpoint:
        return file_prefix, None
    directory, base = os.path.split(file_prefix)
    temp_dir = os.path.join(directory, f"workertemp_{extended._worker_index()}")
    return os.path.join(temp_dir, base), temp_dir


def write_bundle(view: ObjectGraphView, file_prefix: str,
                 options: Optional[CheckpointOptions] = None) -> bool:
    """Serialize `view` and write the bundle at `file_prefix` (atomically).

    Returns whether this process wrote the real files (False: a non-chief
    worker, whose copy went to a temporary directory, now removed).
    """
    saveables, graph = view.serialize()  # (TF writes slots even with skip_slot_variables)
    # Every worker reads every value (a sync-on-read value is a collective), in the same order.
    tensors = [(key, s.read()) for key, s in saveables.items()]
    target, temp_dir = _worker_target(file_prefix, _multi_worker_extended(saveables))
    try:
        with BundleWriter(target) as writer:
            for key, value in tensors:
                writer.add(key, value)
            writer.add(OBJECT_GRAPH_KEY, np.array(graph.encode(), dtype=object))
    finally:
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
    return temp_dir is None


def _update_state_file(file_path: str) -> None:
    """Point `<dir>/checkpoint` at `file_path` (relative paths, as TF's `Checkpoint.save`)."""
    from .format import state_file
    from .format.protos import CheckpointState
    directory = os.path.dirname(file_path)
    rel = os.path.relpath(file_path, directory or ".") if directory else file_path
    state_file.write_state(directory or ".", CheckpointState(
        model_checkpoint_path=rel, all_model_checkpoint_paths=[rel]))


# -- reading ------------------------------------------------------------------------

def _open(save_path: str) -> BundleReader:
    try:
        return BundleReader(save_path)
    except errors.NotFoundError as e:
        raise errors.NotFoundError(
            None, None,
            f"Error when restoring from checkpoint or SavedModel at {save_path}: {e.message}\n"
            "Please double-check that the path is correct. You may be missing the checkpoint "
            "suffix (e.g. the '-1' in 'path/to/ckpt-1').") from None


def restore_into(view: ObjectGraphView, save_path: str,
                 options: Optional[CheckpointOptions] = None) -> Any:
    """Restore the checkpoint at `save_path` into the objects of `view`; the load status."""
    reader = _open(save_path)
    if not reader.has(OBJECT_GRAPH_KEY):
        return name_based.restore_by_name(view, reader, save_path)
    raw = reader.read(OBJECT_GRAPH_KEY)
    try:
        graph = TrackableObjectGraph.decode(raw.item() if isinstance(raw, np.ndarray) else raw)
    except ValueError as e:
        raise errors.DataLossError(
            None, None, f"The object graph in checkpoint {save_path} is corrupted: {e}") from None
    _check_graph(graph, save_path)
    skip = bool(options is not None and options.experimental_skip_slot_variables)
    coordinator = RestoreCoordinator(graph, save_path, reader, skip_slot_variables=skip)
    extra = {}
    for ref in view.attached_dependencies or ():
        extra[ref.name] = ref.ref
    CheckpointPosition(coordinator, 0).restore(view.root, extra_children=extra)
    return CheckpointLoadStatus(coordinator, view)


def _check_graph(graph: TrackableObjectGraph, save_path: str) -> None:
    """DataLossError unless every node id the graph refers to exists (a damaged file)."""
    count = len(graph.nodes)
    bad = None
    if count == 0:
        bad = "it has no nodes"
    for node_id, node in enumerate(graph.nodes):
        for child in node.children:
            if not 0 <= child.node_id < count:
                bad = f"node {node_id} has a child {child.local_name!r} at node {child.node_id}"
        for ref in node.slot_variables:
            if not (0 <= ref.original_variable_node_id < count
                    and 0 <= ref.slot_variable_node_id < count):
                bad = f"node {node_id} has a slot {ref.slot_name!r} referring to a missing node"
    if bad is not None:
        raise errors.DataLossError(
            None, None, f"The object graph in checkpoint {save_path} is corrupted: {bad} "
            f"(the graph has {count} nodes).")


class Checkpoint(AutoTrackable):
    """Manages saving and restoring trackable values to disk (`tf.train.Checkpoint`).

    `Checkpoint(model=model, optimizer=opt)` saves the values reachable from
    its keyword arguments; `Checkpoint(root)` makes `root` the graph's root
    (keys start at its attributes). See the module docstring for the file
    format and `restore` for the restore semantics.
    """

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        super().__init__()
        self._root = NoDependency(root)
        self._save_counter = None
        attached = None
        if root is not None:
            trackable_root = root() if isinstance(root, weakref.ref) else root
            _assert_trackable(trackable_root, "root")
            attached = []
            kwargs["root"] = root
            if hasattr(trackable_root, "_maybe_initialize_trackable") and \
                    not protocol.is_variable(trackable_root):
                trackable_root._maybe_initialize_trackable()
                self._save_counter = NoDependency(trackable_root._lookup_dependency("save_counter"))
        for k, v in sorted(kwargs.items(), key=lambda item: item[0]):
            setattr(self, k, v)
            converted = getattr(self, k)
            if isinstance(converted, weakref.ref):
                converted = converted()
            _assert_trackable(converted, k)
            if root is not None:
                child = _child_of(trackable_root, k)
                if child is None:
                    attached.append(TrackableReference(k, converted))
                elif child is not converted:
                    raise ValueError(
                        f"Cannot create a Checkpoint with keyword argument {k} if root.{k} "
                        "already exists.")
        self._attached_dependencies = NoDependency(attached)
        graph_root = (root() if isinstance(root, weakref.ref) else root) if root is not None else self
        self._view = NoDependency(ObjectGraphView(graph_root, attached_dependencies=attached))

    def _maybe_create_save_counter(self) -> None:
        """Create `save_counter` (restoring a value a restore left waiting for it, as TF)."""
        if self._save_counter is not None:
            return
        root = self._view.root
        with device_lib.device("/cpu:0"):
            if root is self:
                counter = self._add_variable_with_custom_getter(
                    "save_counter", shape=[], dtype=dtypes.int64, initializer=0,
                    getter=_make_counter)
            else:
                counter = _make_counter(name="save_counter", shape=[], dtype=dtypes.int64,
                                        initializer=0)
        object.__setattr__(self, "_save_counter", counter)
        if self._attached_dependencies is not None:
            self._attached_dependencies.append(TrackableReference("save_counter", counter))
            table = getattr(root, "_deferred_dependencies", None) \
                if not protocol.is_variable(root) else None
            pending = table.pop("save_counter", ()) if table is not None else ()
            for position in sorted(pending, key=lambda p: p.restore_uid, reverse=True):
                position.restore(counter)

    @property
    def save_counter(self) -> Any:
        """The number of `save()` calls (an int64 variable, created on first use)."""
        self._maybe_create_save_counter()
        return self._save_counter

    def sync(self) -> None:
        """Wait for an asynchronous write: tfcompat writes synchronously, so nothing to wait for."""
        return None

    def write(self, file_prefix: Any, options: Any = None) -> str:
        """Write a checkpoint at `file_prefix` (no counter, no state file); returns the path."""
        file_prefix = os.fspath(file_prefix)
        write_bundle(self._view, file_prefix, options)
        execute_callbacks(options.experimental_write_callbacks if options else None, file_prefix)
        return file_prefix

    def save(self, file_prefix: Any, options: Any = None) -> str:
        """Write `file_prefix-N` (N = the incremented `save_counter`) and update the state file."""
        file_prefix = os.fspath(file_prefix)
        counter = self.save_counter
        number = int(counter.assign_add(1, read_value=True).numpy())
        path = f"{file_prefix}-{number}"
        chief = write_bundle(self._view, path, options)
        execute_callbacks(options.experimental_write_callbacks if options else None, path)
        if chief:  # the state file last, and by the chief only
            _update_state_file(path)
        return path

    def read(self, save_path: Any, options: Any = None) -> CheckpointLoadStatus:
        """Restore a checkpoint written by `write` (see `restore`)."""
        return restore_into(self._view, os.fspath(save_path), options)

    def restore(self, save_path: Any, options: Any = None) -> Any:
        """Restore the checkpoint at `save_path` into the tracked objects; the load status.

        Existing objects get their values now, all or nothing (a value of
        the wrong dtype or shape raises TF's error and assigns nothing);
        objects created later under a restored name get theirs when they
        are created. `None` restores nothing (`InitializationOnlyStatus`).
        """
        if save_path is None:
            from .restore import _next_uid
            return InitializationOnlyStatus(self._view, _next_uid())
        status = self.read(save_path, options)
        # As TF: the counter is created now, taking the value the restore left waiting for it.
        self._maybe_create_save_counter()
        if isinstance(status, NameBasedSaverStatus):
            status.add_to_optionally_restored(self.save_counter)
        return status


def _child_of(obj: Any, name: str) -> Any:
    if protocol.is_variable(obj) or not hasattr(obj, "_lookup_dependency"):
        return None
    return obj._lookup_dependency(name)


def _make_counter(name: str, shape: Any, dtype: Any, initializer: Any, **kwargs: Any) -> Any:
    from ..variables import Variable
    value = initializer(shape=shape, dtype=dtype) if callable(initializer) else initializer
    return Variable(value, name=name, dtype=dtype, trainable=False)
