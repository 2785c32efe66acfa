"""Distributed variables: one component variable per replica (the seed's `values.py`).

A strategy's variable creator builds these inside `strategy.scope()`; no
other code special-cases them. Each is a `tf.Variable` (the RFC thread's
request: "anything instantiated using Variable is guaranteed to subclass
Variable"), and a `DistributedValues` whose `.values` are the components:

* `MirroredVariable` (synchronization `ON_WRITE`): the components are kept
  equal. In replica context an `assign*` goes through `merge_call`: the
  replicas' values are combined with the variable's aggregation (`SUM`,
  `MEAN`, `ONLY_FIRST_REPLICA`: replica 0's) and every component gets the
  result. With aggregation `NONE` that is a `ValueError` (the seed's rule;
  TF 2.21 lets the replicas diverge silently). In cross-replica context an
  `assign*` updates every component. `scatter_add/sub/mul/div` aggregate
  the replicas' `IndexedSlices` likewise; `scatter_update/min/max` need
  aggregation `NONE` or `ONLY_FIRST_REPLICA` (TF's rule). As TF, an update
  returns values, not the variable: in cross-replica context a `Mirrored`
  of the components' new values, in replica context this replica's new
  value (`strategy.run` regroups them into a `PerReplica`).
* `SyncOnReadVariable` (`ON_READ`; the seed's `TowerLocalVariable`): each
  replica updates its own component (returning an `UnreadVariable` of it);
  a cross-replica read combines them (`SUM`/`MEAN`; `ONLY_FIRST_REPLICA`
  reads replica 0's). A cross-replica `assign` sets every component
  (divided by the number of replicas for `SUM`, so that saving and
  restoring keeps the total) and returns the combined read.
* MEAN aggregation needs a floating dtype (TF's `ValueError` at creation).
* `AggregatingVariable` (`ps_values.py`): one variable (on the parameter device) whose
  replica-context updates are aggregated first: the central-storage
  strategy's variables.

Reads resolve to a component: inside `strategy.run`, the replica's own;
inside `extended.update`, the component being updated; in cross-replica
context, the component on the current device or the primary (replica 0's);
outside every strategy scope (TF's default replica context) the primary,
except `read_value()` and `numpy()`, which enter the strategy first (TF).
A read under a `GradientTape` is the component's read, so the tape's
gradient with respect to the container is the component's
(`_watch_targets`).

Save and restore (the checkpoint issue's hooks): `_saveable()` gives one
object with `tensor()` (the value to save: the primary's, or the reduced
value of a sync-on-read variable) and `restore(tensor)` (into every
component), as the seed's `_MirroredSaveable` / `_TowerLocalSaveable`.

Components know their container (`_distributed_container()`, a weak
reference, as the seed) and their index (`_component_index`).
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Callable

import torch

from ..framework import device as device_lib
from ..framework.numpy_interop import to_numpy
from ..framework.tensor_conversion import convert_to_tensor
from ..variables.enums import VariableAggregation
from ..variables.variable import Variable
from . import distribute_lib
from . import values as values_lib
from .reduce_util import ReduceOp

__all__ = ["DistributedVariable", "MirroredVariable", "SyncOnReadVariable", "TowerLocalVariable",
           "UnreadVariable", "aggregation_error"]


def aggregation_error(variable_type: str) -> ValueError:
    return ValueError(
        f"You must specify an aggregation method to update a {variable_type} in Replica Context. "
        "You can do so by passing an explicit value for argument `aggregation` to "
        "tf.Variable(..), e.g. `tf.Variable(..., aggregation=tf.VariableAggregation.SUM)`: the "
        f"replicas' updates are then combined so that every copy of the {variable_type} stays "
        "the same. Alternatively, update it in cross-replica context: "
        "`tf.distribute.get_replica_context().merge_call(merge_fn, ...)`, and inside `merge_fn` "
        "`strategy.extended.update(variable, update_fn, ...)`.")


def _in_replica_context() -> bool:
    ctx = distribute_lib.get_replica_context()
    return ctx is not None and not ctx._is_default


# Scatters a MirroredVariable refuses unless its aggregation is NONE or ONLY_FIRST_REPLICA (TF's
# rule); the others aggregate the replicas' IndexedSlices (concatenated; MEAN: values / n).
_UNAGGREGATED_SCATTERS = frozenset({"scatter_update", "scatter_min", "scatter_max"})


def _assign_fn(var: Variable, value: Any, read_value: bool = True) -> Any:
    return var.assign(value, read_value=read_value)


def _assign_add_fn(var: Variable, value: Any, read_value: bool = True) -> Any:
    return var.assign_add(value, read_value=read_value)


def _assign_sub_fn(var: Variable, value: Any, read_value: bool = True) -> Any:
    return var.assign_sub(value, read_value=read_value)


class _AssignsThroughFunc:
    """`assign`, `assign_add`, `assign_sub` and slice assignment as one `_assign_func(f, value)`
    (the seed's shape: the subclass decides where `f` runs and what is aggregated first)."""

    def _assign_func(self, f: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def assign(self, value: Any, use_locking: Any = None, name: Any = None,
               read_value: bool = True) -> Any:
        return self._assign_func(_assign_fn, value, read_value=read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._assign_func(_assign_add_fn, delta, read_value=read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._assign_func(_assign_sub_fn, delta, read_value=read_value)

    def _strided_slice_assign(self, key: Any, value: Any, read_value: bool = True) -> Any:
        return self._assign_func(
            lambda var, v, read_value=True: var._strided_slice_assign(key, v, read_value=read_value),
            value, read_value=read_value)


def _aggregated_update(var: Any, f: Callable[..., Any], value: Any, kwargs: dict,
                       broadcast: bool) -> Any:
    """A replica-context update of `var`: one `merge_call` that combines the replicas' values
    with `var`'s aggregation (ONLY_FIRST_REPLICA: replica 0's, broadcast with `broadcast`),
    then updates every component; NONE is refused (the seed's rule)."""
    aggregation = var._aggregation
    if aggregation == VariableAggregation.NONE:
        raise aggregation_error(type(var).__name__)

    def merge_fn(strategy: Any, value: Any, **kw: Any) -> Any:
        if aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            reduced = strategy.experimental_local_results(value)[0]
            if broadcast:
                reduced = strategy.extended.broadcast_to(reduced, destinations=var)
        else:
            reduced = strategy.extended.reduce_to(
                ReduceOp.from_variable_aggregation(aggregation), value, destinations=var)
        return strategy.extended.update(var, f, args=(reduced,), kwargs=kw)

    return distribute_lib.get_replica_context().merge_call(merge_fn, args=(value,), kwargs=kwargs)


class DistributedVariable(_AssignsThroughFunc, Variable, values_lib.DistributedDelegate):
    """A `tf.Variable` with one component per replica (`.values`)."""

    _is_distributed_variable = True

    def __init__(self, strategy: Any, values: tuple, aggregation: VariableAggregation) -> None:
        if aggregation == VariableAggregation.MEAN and not values[0].dtype.is_floating:
            # As TF (after the components are made): a mean of integers has no integer result.
            raise ValueError("creating distributed tf.Variable with aggregation=MEAN and a "
                             "non-floating dtype is not supported, please use a different "
                             "aggregation or dtype")
        values_lib.DistributedValues.__init__(self, values)
        self._distribute_strategy = strategy
        self._aggregation = aggregation
        primary = self._values[0]
        self._common_name = primary.name.split(":")[0]
        ref = weakref.ref(self)
        for i, v in enumerate(self._values):
            v._distributed_container = ref
            v._component_index = i

    # -- identity and metadata (the primary's) --------------------------------
    @property
    def distribute_strategy(self) -> Any:
        return self._distribute_strategy

    name = property(lambda self: self._values[0].name)
    dtype = property(lambda self: self._values[0].dtype)
    shape = property(lambda self: self._values[0].shape)
    trainable = property(lambda self: self._values[0].trainable)
    constraint = property(lambda self: self._values[0].constraint)
    synchronization = property(lambda self: self._values[0].synchronization)
    aggregation = property(lambda self: self._aggregation)

    @property
    def device(self) -> str:
        return self._get_on_device_or_primary().device

    @property
    def handle(self) -> Any:
        return self._get_on_device_or_primary().handle

    @property
    def _unique_id(self) -> Any:
        return self._values[0]._unique_id

    @property
    def _creation_order(self) -> int:
        return self._values[0]._creation_order

    @property
    def _shared_name(self) -> str:
        return self._common_name

    def _current_shape(self) -> tuple:
        return self._values[0]._current_shape()

    def _torch_device(self) -> torch.device:
        return self._get_on_device_or_primary()._torch_device()

    # -- the storage protocol: updates go to the components -------------------
    def _storage(self) -> None:
        return None

    def _update_components(self) -> tuple:
        return self._values

    def _watch_targets(self) -> tuple:
        return self._values

    def is_initialized(self, name: Any = None) -> bool:
        return True

    # -- reads ------------------------------------------------------------------
    def _read_component(self, entering: bool = False) -> Variable:
        """The component a read resolves to here (see the module docstring)."""
        return self._get_on_device_or_primary(entering)

    def value(self) -> torch.Tensor:
        return self._get_read().value()

    def read_value(self) -> torch.Tensor:
        # As TF, a read that enters the variable's strategy: outside every scope, under
        # tf.device, the component on that device (value() and operators: the primary).
        return self._get_read(entering=True).read_value()

    def _get_read(self, entering: bool = False) -> Any:
        return self._read_component(entering)

    def sparse_read(self, indices: Any, name: Any = None) -> torch.Tensor:
        return self._read_component().sparse_read(indices, name=name)

    def gather_nd(self, indices: Any, name: Any = None) -> torch.Tensor:
        return self._read_component().gather_nd(indices, name=name)

    def numpy(self) -> Any:
        return to_numpy(self.read_value())

    def _scatter_func(self, method: str, *args: Any) -> Any:
        raise NotImplementedError

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_update", sparse_delta)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_add", sparse_delta)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_sub", sparse_delta)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_mul", sparse_delta)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_div", sparse_delta)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_min", sparse_delta)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("scatter_max", sparse_delta)

    def scatter_nd_update(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._scatter_func("scatter_nd_update", indices, updates)

    def scatter_nd_add(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._scatter_func("scatter_nd_add", indices, updates)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: Any = None) -> Any:
        return self._scatter_func("scatter_nd_sub", indices, updates)

    def batch_scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        return self._scatter_func("batch_scatter_update", sparse_delta)

    # -- checkpoints ------------------------------------------------------------
    def _saveable(self) -> "_Saveable":
        raise NotImplementedError

    def _gather_saveables_for_checkpoint(self) -> dict:
        return {"VARIABLE_VALUE": self._saveable}

    # -- python protocol ----------------------------------------------------------
    def __repr__(self) -> str:
        return values_lib.DistributedValues.__repr__(self)

    def __str__(self) -> str:
        return values_lib.DistributedValues.__str__(self)

    def __deepcopy__(self, memo: dict) -> Any:
        """A new distributed variable of the same strategy, devices and aggregation (as TF)."""
        import copy
        with _strategy_scope(self):
            parts = []
            for value in self._values:
                with device_lib.device(value.device):
                    parts.append(copy.deepcopy(value, memo))
            copied = type(self)(self._distribute_strategy, tuple(parts), self._aggregation)
        memo[id(self)] = copied
        return copied


class _Saveable:
    """What a checkpoint saves of a distributed variable and how it restores it."""

    def __init__(self, variable: DistributedVariable, tensor: Callable[[], torch.Tensor],
                 restore: Callable[[Any], Any]) -> None:
        self.variable = variable
        self.name = variable._common_name
        self.dtype = variable.dtype
        self._tensor = tensor
        self._restore = restore

    def tensor(self) -> torch.Tensor:
        return self._tensor()

    def restore(self, tensor: Any) -> Any:
        return self._restore(tensor)


def _strategy_scope(var: DistributedVariable) -> Any:
    """The variable's strategy scope unless it (or its run) is already entered."""
    if distribute_lib.get_strategy() is var._distribute_strategy:
        return contextlib.nullcontext()
    return var._distribute_strategy.scope()


class MirroredVariable(DistributedVariable, values_lib.Mirrored):
    """Components kept equal on every replica (`tf.distribute` `ON_WRITE` variables)."""

    def _get_cross_replica(self) -> Any:
        return self._get_on_device_or_primary()

    def _assign_func(self, f: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
        """Update every component (see the module docstring).

        Returns as TF: inside `extended.update`, what the component's update
        returns; in cross-replica context a `Mirrored` of the components' new
        values; in replica context (through `merge_call`) this replica's new
        value. None with `read_value=False`.
        """
        update_id = values_lib.update_replica_id()
        if update_id is not None and not _in_replica_context():
            # Inside extended.update for one replica: that replica's component only.
            return f(self._values[update_id], value, **kwargs)
        if not _in_replica_context():
            with _strategy_scope(self):
                return self._distribute_strategy.extended.update(self, f, args=(value,),
                                                                 kwargs=kwargs)
        return _aggregated_update(self, f, value, kwargs, broadcast=True)

    def _scatter_func(self, method: str, *args: Any) -> Any:
        def f(var: Variable, *a: Any, read_value: bool = True) -> Any:
            return getattr(var, method)(*a)
        if method in _UNAGGREGATED_SCATTERS and self._aggregation not in (
                VariableAggregation.NONE, VariableAggregation.ONLY_FIRST_REPLICA):
            # As TF, in every context: what would aggregating replacements (or minima) mean?
            raise NotImplementedError(
                f"{method} is only supported for mirrored variable (variable created within "
                "certain `tf.distribute.Strategy` scope) with NONE or `ONLY_FIRST_REPLICA` "
                f"aggregation, got: {self._aggregation}.")
        if _in_replica_context() and self._aggregation == VariableAggregation.NONE:
            raise aggregation_error(type(self).__name__)
        if len(args) == 1:
            return self._assign_func(f, args[0])
        indices, updates = args
        return self._assign_func(lambda var, u, read_value=True: getattr(var, method)(indices, u),
                                 updates)

    def _saveable(self) -> _Saveable:
        def restore(tensor: Any) -> None:
            for component in self._values:
                component.assign(tensor, read_value=False)
        return _Saveable(self, lambda: self._values[0].read_value(), restore)


class SyncOnReadVariable(DistributedVariable):
    """Replica-local components, combined when read in cross-replica context (`ON_READ`)."""

    def _get_cross_replica(self) -> Any:
        if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            return self._values[0]
        op = ReduceOp.from_variable_aggregation(self._aggregation)
        with _strategy_scope(self):
            return self._distribute_strategy.reduce(op, self, axis=None)

    def _get_read(self, entering: bool = False) -> Any:
        if _in_replica_context() or values_lib.update_replica_id() is not None:
            return self._get()
        return _TensorRead(self._get_cross_replica())

    def _read_component(self, entering: bool = False) -> Any:
        if _in_replica_context() or values_lib.update_replica_id() is not None:
            return self._get()
        if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            return self._values[0]
        raise ValueError(f"{type(self).__name__} {self.name}: a sparse read in cross-replica "
                         "context needs the reduced value: read v.read_value() and index it.")

    def _assign_func(self, f: Callable[..., Any], value: Any, **kwargs: Any) -> Any:
        """Replica context: update this replica's component (TF returns its `_UnreadVariable`);
        cross-replica context: set every component, return the reduced read (as TF)."""
        if _in_replica_context():
            component = self._get()
            out = f(component, value, **kwargs)
            return UnreadVariable(component) if out is component else out
        if values_lib.update_replica_id() is not None:
            return f(self._get(), value, **kwargs)
        read_value = kwargs.get("read_value", True)
        if f is not _assign_fn:
            if self._aggregation == VariableAggregation.SUM:
                name = "assign_add" if f is _assign_add_fn else "assign_sub" if f is _assign_sub_fn \
                    else "this update"
                raise ValueError(
                    f"SyncOnReadVariable does not support `{name}` in cross-replica context when "
                    "aggregation is set to `tf.VariableAggregation.SUM`.")
            for component in self._values:
                f(component, value, read_value=False)
            return self.read_value() if read_value else None
        tensor = value
        if self._aggregation == VariableAggregation.SUM:
            t = convert_to_tensor(value, dtype=self.dtype)
            total = self._distribute_strategy.num_replicas_in_sync
            # TF: cast(value / n, dtype); integers divide in float64 and truncate.
            tensor = (t / total).to(t.dtype) if t.is_floating_point() else \
                (t.double() / total).to(t.dtype)
        for component in self._values:
            component.assign(tensor, read_value=False)
        return self.read_value() if read_value else None

    def _scatter_func(self, method: str, *args: Any) -> Any:
        # As TF, in every context (scatter into a per-replica partial sum has no clear meaning).
        raise NotImplementedError(
            f"Variables with `synchronization=ON_READ` doesn't support `{method}`: update the "
            "replica's value with assign/assign_add inside strategy.run instead.")

    def _saveable(self) -> _Saveable:
        def tensor() -> torch.Tensor:
            return convert_to_tensor(self._get_cross_replica())

        def restore(t: Any) -> None:
            with _strategy_scope(self):
                if distribute_lib.in_cross_replica_context():
                    self.assign(t, read_value=False)
                else:  # pragma: no cover - restore runs in cross-replica context
                    raise RuntimeError("Restore a SyncOnReadVariable in cross-replica context.")
        return _Saveable(self, tensor, restore)


TowerLocalVariable = SyncOnReadVariable  # the seed's name


class UnreadVariable(Variable):
    """What an update of one component returns (TF's `_UnreadVariable`): a replica's update of
    its sync-on-read component, each call of an `extended.update` whose function returned its
    component (`assign` returns its variable).

    A variable over the component (its reads read it, its updates update
    it) that is not the component, so that the replicas' results regroup
    into per-replica values (`PerReplica`, or an update's `Mirrored` of
    their values) rather than into the distributed variable.
    """

    def __init__(self, component: Variable) -> None:
        self._component = component

    name = property(lambda self: "UnreadVariable")
    dtype = property(lambda self: self._component.dtype)
    shape = property(lambda self: self._component.shape)
    device = property(lambda self: self._component.device)
    trainable = property(lambda self: self._component.trainable)
    constraint = property(lambda self: self._component.constraint)
    synchronization = property(lambda self: self._component.synchronization)
    aggregation = property(lambda self: self._component.aggregation)
    handle = property(lambda self: self._component.handle)

    def _watch_targets(self) -> tuple:
        return (self._component,)

    def _update_components(self) -> tuple:
        return (self._component,)

    def _torch_device(self) -> torch.device:
        return self._component._torch_device()

    def value(self) -> torch.Tensor:
        return self._component.value()

    def read_value(self) -> torch.Tensor:
        return self._component.read_value()

    def assign(self, value: Any, use_locking: Any = None, name: Any = None,
               read_value: bool = True) -> Any:
        return self._component.assign(value, read_value=read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._component.assign_add(delta, read_value=read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None,
                   read_value: bool = True) -> Any:
        return self._component.assign_sub(delta, read_value=read_value)


class _TensorRead:
    """A reduced value standing in for a component in cross-replica reads."""

    __slots__ = ("_t",)

    def __init__(self, t: Any) -> None:
        self._t = convert_to_tensor(t)

    def value(self) -> torch.Tensor:
        return self._t

    read_value = value
