"""`tf.Variable` and its machinery: the creator stack, ResourceVariable, slicing, scatters."""

from .creator import variable_creator_scope
from .enums import VariableAggregation, VariableSynchronization
from .resource_variable import ResourceVariable
from .variable import Reference, Variable, VariableDef

__all__ = ["Variable", "ResourceVariable", "VariableDef", "Reference", "variable_creator_scope",
           "VariableAggregation", "VariableSynchronization"]
