"""`tf.compat.v1.train.Optimizer` in eager mode, and the global step.

TF 1's optimizer base class (`tensorflow/python/training/optimizer.py`), as TF 2.21
runs it eagerly:

* `minimize(loss, global_step=None, var_list=None, ...)` takes a *callable* loss
  (TF's `RuntimeError` for a tensor: there is no graph to differentiate);
  `compute_gradients` returns `[(gradient, variable)]`; `apply_gradients` creates the
  slots, calls `_prepare`, updates each variable (`_resource_apply_dense`, or for
  `IndexedSlices` `_resource_apply_sparse_duplicate_indices`, which sums duplicate
  indices first), calls `_finish`, then adds 1 to `global_step`. It returns None, as
  the eager `group` op TF returns is None.
* Slots are named as TF 1's `slot_creator` names them: `<variable>/<optimizer name>`,
  made unique like a `variable_scope(None, default_name=...)` (`dense/kernel/Adam`,
  `dense/kernel/Adam_1`; a second Adam on the same variable: `..._2`, `..._3`), so a
  name-based `tf1.train.Saver` checkpoint holds TF 1's keys. Non-slot variables
  (`beta1_power`) are named as given.
* Trackable as TF 1: the non-slot variables are children (restore-on-create through
  `_create_non_slot_variable`), slots are reached through `get_slot_names()` /
  `get_slot()` and restored by `_create_or_restore_slot_variable`, so
  `tf.train.Checkpoint(optimizer=opt)` writes TF's keys
  (`v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE`).

Hyperparameters follow TF's conversions: a Python float becomes a float32 tensor in
`_prepare` and is cast to each variable's dtype (so a float64 variable sees
`float64(float32(0.1))`); a tensor keeps its dtype until that cast; a callable is
called once per `apply_gradients`.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Dict, List, Optional

import torch

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...distribute.reduce_util import ReduceOp
from ...distribute.values import DistributedValues
from ...framework import dtypes, errors
from ...framework import variable_protocol as protocol
from ...framework.indexed_slices import IndexedSlices
from ...framework.name_scope import name_scope
from ...framework.tensor_conversion import convert_to_tensor
from ...keras.optimizers.multi_tensor import deduplicate
from ...keras.optimizers.weights import _component, var_key
from ...train.trackable import Trackable
from ...variables import Variable
from ...variables.enums import VariableAggregation

__all__ = ["Optimizer", "get_global_step", "create_global_step", "get_or_create_global_step"]


# -- slot names: TF 1's `variable_scope(None, default_name=...)` uniquification -----------

#: Scope name -> how many times it was opened, while `variable_scopes.py` is not there (TF
#: keeps this per default graph, which eager TF never resets).
_scope_counts: Dict[str, int] = {}


def _sibling(module: str, *attributes: str) -> Any:
    """A sibling module of the porting kit (`variable_scope`, `collections`), if it is
    there and has `attributes`; else None (each piece of the kit lands on its own)."""
    name = f"{__package__}.{module}"
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return None
    return mod if all(hasattr(mod, a) for a in attributes) else None


def _unique_scope(prefix: str) -> str:
    """The full name of the scope TF's `variable_scope(None, default_name=prefix)` opens:
    `prefix`, or `prefix_1`, `prefix_2`, ... the first not yet opened, under the current
    variable scope. The counts are the emulated graph's (`variable_scopes.py`), so
    `reset_default_graph()` starts them again; without that module, this module's own."""
    vs = _sibling("variable_scopes", "get_variable_scope_store", "get_variable_scope")
    if vs is not None:
        store = vs.get_variable_scope_store()
        current = vs.get_variable_scope().name
        count, opened = store.variable_scope_count, store.open_variable_scope
        base = f"{current}/{prefix}" if current else prefix
    else:
        count = lambda n: _scope_counts.get(n, 0)  # noqa: E731
        opened = lambda n: _scope_counts.__setitem__(n, count(n) + 1)  # noqa: E731
        base = prefix
    name = base
    if count(name):
        index = 1
        while count(f"{base}_{index}"):
            index += 1
        name = f"{base}_{index}"
    opened(name)
    return name


def _reset_slot_names() -> None:
    """Forget the slot scopes used so far (what `tf1.reset_default_graph()` does in TF)."""
    _scope_counts.clear()


def _primary_name(var: Any) -> str:
    """TF's slot prefix: the primary variable's shared name (`dense/kernel`)."""
    shared = getattr(var, "_shared_name", None)
    if isinstance(shared, str):
        return shared
    name = getattr(var, "name", "Variable")
    return name[:-2] if name.endswith(":0") else name


def hyper(value: Any) -> torch.Tensor:
    """TF's `ops.convert_to_tensor(hyperparameter)`: a Python float becomes float32."""
    return convert_to_tensor(value)


def cast(value: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`math_ops.cast(value, var.dtype.base_dtype)` (rounds to nearest even)."""
    return value.to(dtype) if value.dtype != dtype else value


class Optimizer(Trackable):
    """Base class of TF 1's optimizers (`tf.compat.v1.train.Optimizer`).

    Subclasses implement `_create_slots(var_list)`, `_prepare()`,
    `_resource_apply_dense(grad, var)`, `_resource_apply_sparse(grad, var, indices)`
    (indices unique) and optionally `_finish(update_ops, name_scope)`, as in TF 1.
    Updates are written through the variable API (`assign`, `scatter_*`), so
    strategies' hooks and copy-on-write snapshots see them.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        # slot name -> {variable key: slot variable}
        self._slots: Dict[str, Dict[str, Any]] = {}
        self._non_slot_dict: Dict[tuple, Any] = {}
        # slot name -> {variable key: [CheckpointPosition]}: restores waiting for the slot.
        self._deferred_slot_restorations: Dict[str, Dict[str, list]] = {}

    def get_name(self) -> str:
        return self._name

    # -- gradients ------------------------------------------------------------------
    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: Optional[str] = None,
                 grad_loss: Any = None) -> None:
        """`compute_gradients` then `apply_gradients` (TF's `ValueError` when no variable
        gets a gradient)."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> List[tuple]:
        """`[(gradient, variable)]` of the callable `loss`; without `var_list`, the
        variables the loss read (in creation order, as TF's tape lists them)."""
        if not callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        with GradientTape() as tape:
            if var_list is not None:
                tape.watch(var_list)
            loss_value = loss()
        if var_list is None:
            var_list = list(tape.watched_variables())
        else:
            var_list = list(var_list)
        grads = tape.gradient(loss_value, var_list, grad_loss)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: Optional[str] = None) -> None:
        """Apply the `(gradient, variable)` pairs (see the module docstring).

        In a replica context of several replicas (`strategy.run`), as TF 1: one
        `merge_call` sums the replicas' gradients (`batch_reduce_to(SUM)`), every
        component of each mirrored variable gets the summed update, `_finish` runs once
        and the global step moves by one.
        """
        if distribute_lib.in_cross_replica_context():
            raise ValueError("apply_gradients() must be called in a replica context.")
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        context = distribute_lib.get_replica_context()
        if context is not None and context.num_replicas_in_sync > 1:
            return context.merge_call(self._distributed_apply, args=(grads_and_vars, global_step, name))
        return self._apply(grads_and_vars, global_step, name, None)

    def _distributed_apply(self, distribution: Any, grads_and_vars: Any, global_step: Any = None,
                           name: Optional[str] = None) -> None:
        """The merge function: sum the replicas' gradients, then `_apply` them."""
        pairs = list(grads_and_vars)
        present = [(g, v) for g, v in pairs if g is not None]
        reduced = iter(distribution.extended.batch_reduce_to(ReduceOp.SUM, present) if present else ())
        summed = [(None, v) if g is None else (next(reduced), v) for g, v in pairs]
        return self._apply(summed, global_step, name, distribution)

    def _apply(self, grads_and_vars: tuple, global_step: Any, name: Optional[str],
               distribution: Any) -> None:
        converted = []
        for g, v in grads_and_vars:
            if g is not None and not isinstance(g, (IndexedSlices, DistributedValues)):
                try:
                    g = convert_to_tensor(g)
                except (TypeError, ValueError):
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, "
                                    f"or None: {g}") from None
            if not protocol.is_variable(v):
                raise NotImplementedError(f"Trying to update a Tensor {v}")
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{([str(v) for _, v in converted],)}.")
        for g, v in converted:  # checked before anything changes (TF's kernels check each)
            if g is not None:
                _check_gradient(_first_component(g), v)
        with torch.no_grad():
            self._create_slots(var_list)
            self._prepare()
            update_ops = []
            for grad, var in converted:
                if grad is None:
                    continue
                if distribution is None:
                    update_ops.append(self._update(grad, var))
                else:
                    update_ops.append(distribution.extended.update(
                        var, lambda component, g: self._update(g, component), args=(grad,),
                        group=False))
            # Once, also under a strategy: in the cross-replica context of the merge, an
            # assignment to a mirrored non-slot variable (`beta1_power`) writes every
            # component, which is what TF's `update_non_slot` over its devices amounts to.
            self._finish(update_ops, name or self._name if distribution is None else "update")
            if global_step is not None:
                one = torch.ones((), dtype=_torch_dtype(global_step))
                if distribution is None:
                    global_step.assign_add(one)
                else:
                    distribution.extended.update(global_step, lambda g: g.assign_add(one))
        return None

    def _update(self, grad: Any, var: Any) -> Any:
        """TF's `_DenseResourceVariableProcessor.update_op`."""
        if isinstance(grad, IndexedSlices):
            if getattr(var, "constraint", None) is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return self._resource_apply_sparse_duplicate_indices(grad.values, var, grad.indices)
        result = self._resource_apply_dense(grad, var)
        if getattr(var, "constraint", None) is not None:
            var.assign(var.constraint(var))
        return result

    # -- what subclasses implement ---------------------------------------------------
    def _create_slots(self, var_list: list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> Any:
        raise NotImplementedError()

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, handle: Any,
                                                 indices: torch.Tensor) -> Any:
        """Sum the rows of duplicate indices (TF's `_deduplicate_indexed_slices`), then
        `_resource_apply_sparse`."""
        summed, unique = deduplicate(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> Any:
        raise NotImplementedError()

    def _finish(self, update_ops: list, name_scope: str) -> None:
        return None

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        """A callable hyperparameter is called once per step (TF's helper)."""
        return param() if callable(param) else param

    # -- slots --------------------------------------------------------------------------
    def get_slot_names(self) -> List[str]:
        """The slot names this optimizer created, sorted (as TF 1)."""
        return sorted(self._slots.keys())

    def get_slot(self, var: Any, name: str) -> Any:
        """The slot `name` of `var`, or None. For a mirrored variable's component (what
        a strategy's update hands the kernels) the slot's component of that replica."""
        named = self._slots.get(name)
        if not named:
            return None
        slot = named.get(var_key(var))
        index = getattr(var, "_component_index", None)
        if slot is None or index is None:
            return slot
        return _component(slot, index)

    def _slot_dict(self, slot_name: str) -> Dict[str, Any]:
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Any:
        return self._get_or_make_slot_with_initializer(
            var, _zeros, var.shape, var.dtype, slot_name, op_name)

    def _get_or_make_slot(self, var: Any, val: Any, slot_name: str, op_name: str) -> Any:
        """A slot holding `val` (a tensor of the slot's shape)."""
        value = convert_to_tensor(val)
        return self._get_or_make_slot_with_initializer(
            var, lambda shape=None, dtype=None, **_: value, value.shape,
            dtypes.from_torch(value.dtype), slot_name, op_name)

    def _get_or_make_slot_with_initializer(self, var: Any, initializer: Callable, shape: Any,
                                           dtype: Any, slot_name: str, op_name: str) -> Any:
        named = self._slot_dict(slot_name)
        key = var_key(var)
        if key not in named:
            slot = _create_slot(var, initializer, shape, dtype, op_name)
            self._restore_slot_variable(slot_name, var, slot)
            named[key] = slot
        return named[key]

    def _restore_slot_variable(self, slot_name: str, variable: Any, slot_variable: Any) -> None:
        """Give a new slot the value a checkpoint restored for it before it existed."""
        pending = self._deferred_slot_restorations.get(slot_name, {}).pop(var_key(variable), [])
        for position in sorted(pending, key=lambda p: p.restore_uid, reverse=True):
            position.restore(slot_variable)

    def _create_or_restore_slot_variable(self, slot_variable_position: Any, slot_name: str,
                                         variable: Any) -> Any:
        """The slot a checkpoint restores into now, or None (deferred until created).

        As TF 1 eagerly: a missing slot of a plain checkpointed value is created at once
        with the checkpoint's value, unless a variable creator scope is active.
        """
        from ...variables import creator as creator_lib
        slot = self.get_slot(variable, slot_name)
        if (slot is None and slot_variable_position.is_simple_variable()
                and not creator_lib.get_creator_stack()):
            initializer = slot_variable_position.initial_value_callable()
            slot = self._get_or_make_slot_with_initializer(
                variable, initializer, slot_variable_position.value_shape(), variable.dtype,
                slot_name, self._name)
        if slot is not None:
            return slot
        self._deferred_slot_restorations.setdefault(slot_name, {}).setdefault(
            var_key(variable), []).append(slot_variable_position)
        return None

    # -- non-slot variables ----------------------------------------------------------------
    def _create_non_slot_variable(self, initial_value: Any, name: str, colocate_with: Any) -> Any:
        """A variable of the optimizer itself (`beta1_power`), created once; a checkpoint
        restore waiting for `name` gives it its value."""
        key = (name, None)
        var = self._non_slot_dict.get(key)
        if var is None:
            self._maybe_initialize_trackable()
            pending = self._deferred_dependencies.get(name)
            if pending:
                newest = max(pending, key=lambda p: p.restore_uid)
                if newest.is_simple_variable():
                    initial_value = newest.value()
            var = Variable(initial_value, name=name, trainable=False)
            _add_to_global_variables(var)
            self._handle_deferred_dependencies(name=name, trackable=var)
            self._non_slot_dict[key] = var
        return var

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Any:
        return self._non_slot_dict.get((name, None))

    def _non_slot_variables(self) -> list:
        return list(self._non_slot_dict.values())

    def variables(self) -> list:
        """The optimizer's variables (non-slot and slots), sorted by name (as TF 1)."""
        found = self._non_slot_variables()
        for named in self._slots.values():
            found.extend(named.values())
        return sorted(found, key=lambda v: v.name)

    # -- Trackable ---------------------------------------------------------------------------
    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        children = {name: var for (name, _), var in
                    sorted(self._non_slot_dict.items(), key=lambda item: item[0][0])}
        children.update(super()._trackable_children(save_type, **kwargs))
        return children

    def _lookup_dependency(self, name: str, cached_dependencies: Optional[dict] = None) -> Any:
        found = super()._lookup_dependency(name, cached_dependencies)
        if found is not None:
            return found
        return self._get_non_slot_variable(name)


def _first_component(value: Any) -> Any:
    """A distributed (summed, mirrored) gradient's first component; other values as they are."""
    if isinstance(value, DistributedValues):
        return value.values[0]
    return value


def _check_gradient(grad: Any, var: Any) -> None:
    """TF's kernels' `InvalidArgumentError`s for a gradient that does not fit `var`."""
    values = grad.values if isinstance(grad, IndexedSlices) else grad
    want, got = _torch_dtype(var), values.dtype
    if got != want:
        raise errors.invalid_argument(
            f"cannot compute the update of {var.name} as the gradient was expected to be a "
            f"{dtypes.tf_type_name(dtypes.from_torch(want))} tensor but is a "
            f"{dtypes.tf_type_name(dtypes.from_torch(got))} tensor")
    shape = tuple(var.shape)
    if not isinstance(grad, IndexedSlices):
        if tuple(values.shape) != shape:
            raise errors.invalid_argument(
                f"var and grad do not have the same shape{_debug_string(shape)} "
                f"{_debug_string(tuple(values.shape))}")
        return
    indices = grad.indices.reshape(-1)
    if not shape or tuple(values.shape[1:]) != shape[1:] or values.shape[0] != indices.numel():
        raise errors.invalid_argument(
            f"var and grad do not match in the inner dimensions, or grad and indices in the "
            f"outer one: var {_debug_string(shape)}, grad {_debug_string(tuple(values.shape))}, "
            f"indices {_debug_string(tuple(grad.indices.shape))}")
    bad = (indices < 0) | (indices >= shape[0])
    if bool(bad.any()):
        at = int(torch.nonzero(bad)[0, 0])
        raise errors.invalid_argument(
            f"indices[{at}] = {int(indices[at])} is not in [0, {shape[0]})")


def _debug_string(shape: tuple) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _zeros(shape: Any = None, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
    return torch.zeros(tuple(_dims(shape)), dtype=dtypes.as_dtype(dtype).as_torch)


def _dims(shape: Any) -> tuple:
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return tuple(int(d) for d in shape)


def _torch_dtype(var: Any) -> torch.dtype:
    return dtypes.as_dtype(var.dtype).as_torch


def _create_slot(primary: Any, initializer: Callable, shape: Any, dtype: Any, op_name: str) -> Any:
    """TF 1's `slot_creator.create_slot_with_initializer`: a non-trainable variable named
    `<primary>/<op_name>` (made unique), created outside any name scope (TF's
    `get_variable` ignores name scopes), through the variable creator stack."""
    name = _unique_scope(f"{_primary_name(primary)}/{op_name}")
    dtype = dtypes.as_dtype(dtype)
    with name_scope(""):
        with torch.no_grad():
            value = initializer(shape=_dims(shape), dtype=dtype)
        value = convert_to_tensor(value, dtype=dtype)
        slot = Variable(value, name=name, trainable=False, dtype=dtype)
    _add_to_global_variables(slot)
    return slot


# -- the global step --------------------------------------------------------------------

#: Used while `tfcompat.compat.v1.collections` (TF's graph collections) is not there.
_GLOBAL_STEP: list = []
_GLOBAL_STEP_KEY = "global_step"


def _collections() -> Any:
    """The v1 collections module (TF's graph collections), if present."""
    return _sibling("collections", "get_collection", "add_to_collection", "GraphKeys")


def _add_to_global_variables(var: Any) -> None:
    """TF 1 graphs list optimizer variables in `GLOBAL_VARIABLES` (so
    `Saver(tf1.global_variables())` saves slots and `beta1_power` as TF 1 does)."""
    mod = _collections()
    if mod is not None and hasattr(mod.GraphKeys, "GLOBAL_VARIABLES"):
        mod.add_to_collection(mod.GraphKeys.GLOBAL_VARIABLES, var)


def _global_steps() -> list:
    mod = _collections()
    if mod is not None:
        return list(mod.get_collection(mod.GraphKeys.GLOBAL_STEP))
    return list(_GLOBAL_STEP)


def _clear_global_step() -> None:
    """Forget the global step (a test hook; `tf1.reset_default_graph()` in TF)."""
    _GLOBAL_STEP.clear()
    mod = _collections()
    if mod is not None and hasattr(mod, "get_collection_ref"):
        del mod.get_collection_ref(mod.GraphKeys.GLOBAL_STEP)[:]


def get_global_step(graph: Any = None) -> Any:
    """`tf.compat.v1.train.get_global_step()`: the global step variable, or None."""
    found = _global_steps()
    if len(found) > 1:
        raise TypeError("Multiple tensors in global_step collection.")
    return found[0] if found else None


def create_global_step(graph: Any = None) -> Any:
    """`tf.compat.v1.train.create_global_step()`: a new int64 scalar variable
    `global_step:0` (zero, not trainable, `ONLY_FIRST_REPLICA` aggregation), added to
    `GraphKeys.GLOBAL_STEP` and `GLOBAL_VARIABLES`. TF's `ValueError` if one exists."""
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with name_scope(""):
        step = Variable(torch.zeros((), dtype=torch.int64), name=_GLOBAL_STEP_KEY, trainable=False,
                        dtype=dtypes.int64, aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
    mod = _collections()
    if mod is not None:
        mod.add_to_collection(mod.GraphKeys.GLOBAL_STEP, step)
        _add_to_global_variables(step)
    else:
        _GLOBAL_STEP.append(step)
    return step


def get_or_create_global_step(graph: Any = None) -> Any:
    """`tf.compat.v1.train.get_or_create_global_step()`."""
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)
