"""`AggregatingVariable`: the central-storage strategy's variables (TF's `ps_values.py`).

One variable, on the parameter device, standing for every replica: reads
are the variable's; an update in replica context is first aggregated across
the replicas (SUM, MEAN, or ONLY_FIRST_REPLICA's value; NONE is refused, as
the seed did), then applied once; in cross-replica context it goes through
`extended.update`. The variable's one "component" is the variable itself
(`_update_components`), so the optimizer updates it in place like any other.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import torch

from ..variables.enums import VariableAggregation
from ..variables.variable import Variable
from . import distributed_variables as dv
from . import values as values_lib

__all__ = ["AggregatingVariable"]


class AggregatingVariable(dv._AssignsThroughFunc, Variable):
    """One variable whose replica-context updates are aggregated first (central storage)."""

    _is_distributed_variable = True

    def __init__(self, strategy: Any, v: Variable, aggregation: VariableAggregation) -> None:
        self._distribute_strategy = strategy
        self._v = v
        self._aggregation = aggregation
        v._aggregating_container = weakref.ref(self)
        v._component_index = 0

    def get(self) -> Variable:
        return self._v

    @property
    def distribute_strategy(self) -> Any:
        return self._distribute_strategy

    name = property(lambda self: self._v.name)
    dtype = property(lambda self: self._v.dtype)
    shape = property(lambda self: self._v.shape)
    device = property(lambda self: self._v.device)
    trainable = property(lambda self: self._v.trainable)
    constraint = property(lambda self: self._v.constraint)
    synchronization = property(lambda self: self._v.synchronization)
    aggregation = property(lambda self: self._aggregation)
    handle = property(lambda self: self._v.handle)
    _unique_id = property(lambda self: self._v._unique_id)
    _creation_order = property(lambda self: self._v._creation_order)
    _shared_name = property(lambda self: self._v._shared_name)

    def _current_shape(self) -> tuple:
        return self._v._current_shape()

    def _torch_device(self) -> torch.device:
        return self._v._torch_device()

    def _storage(self) -> None:
        return None

    def _update_components(self) -> tuple:
        return (self._v,)

    def _watch_targets(self) -> tuple:
        return (self._v,)

    @property
    def values(self) -> tuple:
        return (self._v,)

    def value(self) -> torch.Tensor:
        return self._v.value()

    def read_value(self) -> torch.Tensor:
        return self._v.read_value()

    def sparse_read(self, indices: Any, name: Any = None) -> torch.Tensor:
        return self._v.sparse_read(indices, name=name)

    def gather_nd(self, indices: Any, name: Any = None) -> torch.Tensor:
        return self._v.gather_nd(indices, name=name)

    def _assign_func(self, f: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
        if not dv._in_replica_context():
            if values_lib.update_replica_id() is not None:
                return f(self._v, value, **kwargs)
            with dv._strategy_scope(self):
                return self._distribute_strategy.extended.update(self, f, args=(value,),
                                                                 kwargs=kwargs)
        return dv._aggregated_update(self, f, value, kwargs, broadcast=False)

    def _gather_saveables_for_checkpoint(self) -> dict:
        return {"VARIABLE_VALUE": self._v}

    def __repr__(self) -> str:
        return repr(self._v)

    __str__ = __repr__

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"'AggregatingVariable' object has no attribute {name!r}")
        return getattr(self._v, name)
