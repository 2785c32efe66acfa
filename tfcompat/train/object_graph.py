"""TF's `TrackableObjectGraph` protocol buffer (`trackable_object_graph.proto`).

A checkpoint stores it, serialized, as the scalar string tensor
`_CHECKPOINTABLE_OBJECT_GRAPH`: one `TrackableObject` per node (node 0 is
the root), each with its named children, its saved attributes (name,
the variable's full name, the checkpoint key) and, for optimizers, the
slot variables as (original variable node, slot name, slot node)
triples. Field numbers are TF's, so TF parses ours and we parse TF's.
"""

from __future__ import annotations

from .format.wire import Field, Message

__all__ = ["TrackableObjectGraph", "TrackableObject", "ObjectReference", "SerializedTensor",
           "SlotVariableReference", "RegisteredSaver", "BoolValue"]


class ObjectReference(Message):
    """An edge: the child's node id and its local name."""
    FIELDS = (Field(1, "node_id", "int32"), Field(2, "local_name", "string"))


class SerializedTensor(Message):
    """A saved attribute of a node (`VARIABLE_VALUE` for a variable)."""
    FIELDS = (Field(1, "name", "string"), Field(2, "full_name", "string"),
              Field(3, "checkpoint_key", "string"))


class SlotVariableReference(Message):
    """An optimizer slot: for the variable at one node, the slot variable at another."""
    FIELDS = (Field(1, "original_variable_node_id", "int32"), Field(2, "slot_name", "string"),
              Field(3, "slot_variable_node_id", "int32"))


class RegisteredSaver(Message):
    """`tensorflow.RegisteredSaver` (a custom saver's name; tfcompat registers none)."""
    FIELDS = (Field(1, "name", "string"), Field(2, "object_name", "string"))


class BoolValue(Message):
    """`google.protobuf.BoolValue`."""
    FIELDS = (Field(1, "value", "bool"),)


class TrackableObject(Message):
    """One node of the object graph."""
    FIELDS = (Field(1, "children", "message", repeated=True, message=ObjectReference),
              Field(2, "attributes", "message", repeated=True, message=SerializedTensor),
              Field(3, "slot_variables", "message", repeated=True, message=SlotVariableReference),
              Field(4, "registered_saver", "message", message=RegisteredSaver),
              Field(5, "has_checkpoint_values", "message", message=BoolValue))


class TrackableObjectGraph(Message):
    """The whole graph: `nodes[0]` is the root."""
    FIELDS = (Field(1, "nodes", "message", repeated=True, message=TrackableObject),)
