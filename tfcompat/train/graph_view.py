"""The object graph of a checkpoint: traversal, keys, and what each node saves.

As TF (`checkpoint/graph_view.py`, `util.py`, `save_util.py`,
`trackable_utils.py`):

* nodes are numbered breadth first from the root, children in their
  tracking order; an object reachable along several paths is one node (its
  key uses the first, shortest path);
* the slot variables of an optimizer in the graph follow all other nodes:
  for each slot name (in the optimizer's creation order), for each node
  that has that slot (in node order);
* keys: `<path>/.ATTRIBUTES/<attribute>` with `/` in a local name escaped
  as `.S` and `.` as `..`; a slot is `<variable path>/.OPTIMIZER_SLOT/
  <optimizer path>/<slot name>/.ATTRIBUTES/VARIABLE_VALUE`;
* `has_checkpoint_values` is set on every node with values of its own or
  a descendant that has some.

A node's values are its `Saveable`s: a variable saves `VARIABLE_VALUE`; a
distributed variable saves what its `_gather_saveables_for_checkpoint()`
factories give (one value for all its replicas); any other `Trackable`
saves its `_serialize_to_tensors()` dict.
"""

from __future__ import annotations

import collections
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

from ..framework import dtypes
from ..framework import variable_protocol as protocol
from ..framework.tensor_conversion import convert_to_tensor
from . import object_graph as og
from .trackable import Trackable, TrackableReference, children_of

__all__ = ["ObjectGraphView", "Saveable", "saveables_of", "escape_local_name", "OBJECT_GRAPH_KEY"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ESCAPE = "."
ATTRIBUTES = ".ATTRIBUTES"
_SLOTS = ".OPTIMIZER_SLOT"


def escape_local_name(name: str) -> str:
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def checkpoint_key(object_path: str, local_name: str) -> str:
    return f"{object_path}/{ATTRIBUTES}/{escape_local_name(local_name)}"


def slot_variable_key(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    return f"{variable_path}/{_SLOTS}/{optimizer_path}/{escape_local_name(slot_name)}"


class Saveable:
    """One saved attribute of a node: how to read it and how to restore it.

    `dtype` / `shape` (a `TensorShape`, or None) are what a restored value
    must match; `variable` is the variable it belongs to (for messages).
    """

    __slots__ = ("name", "full_name", "read", "restore", "dtype", "shape", "variable", "prepare")

    def __init__(self, name: str, full_name: str, read: Callable[[], Any],
                 restore: Callable[[torch.Tensor], Any], dtype: Any = None, shape: Any = None,
                 variable: Any = None, prepare: Optional[Callable[[torch.Tensor], Any]] = None) -> None:
        self.name = name
        self.full_name = full_name
        self.read = read
        self.restore = restore
        self.dtype = dtype
        self.shape = shape
        self.variable = variable
        # `prepare(value)` (optional): check and stage a restore that can fail, changing
        # nothing; it returns the callable that commits it (run after every check passed)
        self.prepare = prepare


def _full_name(var: Any) -> str:
    name = getattr(var, "_shared_name", None)
    return name if isinstance(name, str) else ""


def _variable_saveable(name: str, var: Any) -> Saveable:
    def restore(t: torch.Tensor) -> None:
        var.assign(t, read_value=False)
    return Saveable(name, _full_name(var), var.read_value, restore, var.dtype, var.shape, var)


def saveables_of(obj: Any) -> Dict[str, Saveable]:
    """`{attribute name: Saveable}` of `obj`'s own values (empty for a plain container)."""
    gather = getattr(type(obj), "_gather_saveables_for_checkpoint", None)
    if gather is not None:
        out = {}
        for name, factory in obj._gather_saveables_for_checkpoint().items():
            if protocol.is_variable(factory):
                out[name] = _variable_saveable(name, factory)
                continue
            made = factory() if callable(factory) else factory
            variable = getattr(made, "variable", obj)
            out[name] = Saveable(name, getattr(made, "name", "") or _full_name(variable),
                                 made.tensor, made.restore, getattr(made, "dtype", None),
                                 getattr(variable, "shape", None), variable)
        return out
    if protocol.is_variable(obj):
        return {"VARIABLE_VALUE": _variable_saveable("VARIABLE_VALUE", obj)}
    if isinstance(obj, Trackable) and type(obj)._serialize_to_tensors is not \
            Trackable._serialize_to_tensors:
        tensors = obj._serialize_to_tensors()
        staged = getattr(obj, "_prepare_restore", None)  # (a restore that may fail: staged)
        out = {}
        for name, value in tensors.items():
            def restore(t: torch.Tensor, _name: str = name) -> None:
                obj._restore_from_tensors({_name: t})
            prepare = None if staged is None else (
                lambda t, _name=name: staged({_name: t}))
            value = convert_to_tensor(value)
            out[name] = Saveable(name, "", lambda _v=value: _v, restore,
                                 dtypes.from_torch(value.dtype), None, obj, prepare)
        return out
    return {}


def has_values(obj: Any) -> bool:
    """Whether `obj` saves values of its own (TF's `saveable_objects_from_trackable`)."""
    if protocol.is_variable(obj) or hasattr(type(obj), "_gather_saveables_for_checkpoint"):
        return True
    return isinstance(obj, Trackable) and \
        type(obj)._serialize_to_tensors is not Trackable._serialize_to_tensors


class ObjectGraphView:
    """The graph reachable from `root`, plus `attached_dependencies` of the root (TF's view)."""

    def __init__(self, root: Any, attached_dependencies: Optional[List[TrackableReference]] = None) -> None:
        self.root = root
        self.attached_dependencies = attached_dependencies

    def list_children(self, obj: Any) -> List[Tuple[str, Any]]:
        if hasattr(obj, "_maybe_initialize_trackable") and not protocol.is_variable(obj):
            obj._maybe_initialize_trackable()
        children = list(children_of(obj).items())
        if obj is self.root and self.attached_dependencies:
            children.extend((ref.name, ref.ref) for ref in self.attached_dependencies)
        return children

    def breadth_first_traversal(self) -> Tuple[list, Dict[int, tuple]]:
        """Nodes in id order, and `{id(obj): path of local names}` (the shortest)."""
        order = [self.root]
        paths: Dict[int, tuple] = {id(self.root): ()}
        queue = collections.deque([self.root])
        while queue:
            current = queue.popleft()
            for name, child in self.list_children(current):
                if id(child) not in paths:
                    paths[id(child)] = paths[id(current)] + (name,)
                    order.append(child)
                    queue.append(child)
        return order, paths

    def objects_ids_and_slots(self, skip_slot_variables: bool = False
                              ) -> Tuple[list, Dict[int, int], Dict[int, list], Dict[int, str]]:
        """All nodes (slot variables last), node ids, slot references per optimizer, names."""
        objects, paths = self.breadth_first_traversal()
        names = {id(o): "/".join(escape_local_name(p) for p in paths[id(o)]) for o in objects}
        node_ids = {id(o): i for i, o in enumerate(objects)}
        slots: Dict[int, list] = {}
        non_slot = list(objects)
        for opt in () if skip_slot_variables else non_slot:
            if protocol.is_variable(opt) or not hasattr(opt, "get_slot_names"):
                continue
            for slot_name in opt.get_slot_names():
                for original_id, original in enumerate(non_slot):
                    try:
                        slot = opt.get_slot(original, slot_name)
                    except (AttributeError, KeyError):
                        slot = None
                    if slot is None:
                        continue
                    if id(slot) in node_ids:
                        raise NotImplementedError(
                            "A slot variable was re-used as a dependency of a Trackable object: "
                            f"{slot}. This is not currently allowed. File a feature request if "
                            "this limitation bothers you.")
                    names[id(slot)] = slot_variable_key(names[id(original)], names[id(opt)],
                                                        slot_name)
                    node_ids[id(slot)] = len(objects)
                    objects.append(slot)
                    slots.setdefault(id(opt), []).append(og.SlotVariableReference(
                        slot_name=slot_name, original_variable_node_id=original_id,
                        slot_variable_node_id=node_ids[id(slot)]))
        return objects, node_ids, slots, names

    def list_objects(self, skip_slot_variables: bool = False) -> list:
        return self.objects_ids_and_slots(skip_slot_variables)[0]

    def serialize(self, skip_slot_variables: bool = False
                  ) -> Tuple[Dict[str, Saveable], og.TrackableObjectGraph]:
        """`({checkpoint key: Saveable}, the object graph proto)` for the current objects."""
        objects, node_ids, slots, names = self.objects_ids_and_slots(skip_slot_variables)
        saveables: Dict[str, Saveable] = {}
        nodes = []
        for obj in objects:
            node = og.TrackableObject()
            for name, child in self.list_children(obj):
                node.children.append(og.ObjectReference(node_id=node_ids[id(child)], local_name=name))
            for attr, saveable in saveables_of(obj).items():
                key = checkpoint_key(names[id(obj)], attr)
                saveables[key] = saveable
                node.attributes.append(og.SerializedTensor(
                    name=attr, full_name=saveable.full_name, checkpoint_key=key))
            node.slot_variables.extend(slots.get(id(obj), ()))
            nodes.append(node)
        graph = og.TrackableObjectGraph(nodes=nodes)
        _add_checkpoint_values_check(graph)
        return saveables, graph


def _add_checkpoint_values_check(graph: og.TrackableObjectGraph) -> None:
    """Mark the nodes that have values, or descendants with values (TF's rule)."""
    parents: Dict[int, set] = {}
    marked = set()
    for node_id, node in enumerate(graph.nodes):
        if node.attributes or node.slot_variables or node.registered_saver is not None:
            marked.add(node_id)
        for child in node.children:
            parents.setdefault(child.node_id, set()).add(node_id)
    to_visit = set(marked)
    while to_visit:
        current = to_visit.pop()
        for parent in parents.pop(current, ()):
            if parent not in marked:
                marked.add(parent)
            to_visit.add(parent)
    for node_id, node in enumerate(graph.nodes):
        node.has_checkpoint_values = og.BoolValue(value=node_id in marked)


def text_format(message: Any, indent: int = 0) -> str:
    """A message in protobuf's text format (as TF's error messages print protos)."""
    pad = "  " * indent
    lines = []
    for field in type(message).FIELDS:
        value = getattr(message, field.name)
        values = value if field.repeated else ([] if value is None else [value])
        for item in values:
            if field.kind == "message":
                lines.append(f"{pad}{field.name} {{\n{text_format(item, indent + 1)}{pad}}}\n")
            elif field.kind == "string":
                if item == "" and not field.repeated:
                    continue
                lines.append(f'{pad}{field.name}: "{_escape_text(item)}"\n')
            elif field.kind == "bool":
                if item or field.repeated:
                    lines.append(f"{pad}{field.name}: {'true' if item else 'false'}\n")
            elif item != 0 or field.repeated:
                lines.append(f"{pad}{field.name}: {item}\n")
    return "".join(lines)


def _escape_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
