"""An optimizer's state: hyperparameters, `iterations`, slots and weights (tf_keras' OptimizerV2).

`OptimizerWeights` is the half of `OptimizerV2` that owns state; the apply
path is in `optimizer_v2.py`.

* Hyperparameters (`_set_hyper` / `_get_hyper`) are Python numbers until the
  first step, then float32 variables (`_create_hypers`); tensors, callables,
  variables and schedules are kept as given. They read and write as
  attributes (`opt.learning_rate = 0.1`).
* `iterations` is an int64 variable created on first use.
* Slots are keyed by the variable's `_unique_id`, or its distributed
  container's (`_var_key`), so a strategy's per-replica components share
  their container's slots. Every variable the optimizer makes goes through
  `tf.Variable`, so creator scopes see it.
"""

from __future__ import annotations

import contextlib
from typing import Any, Optional

import numpy as np
import torch

from ...distribute import distribute_lib
from ...framework import device as device_lib
from ...framework import dtypes
from ...framework import variable_protocol as protocol
from ...framework.tensor_conversion import convert_to_tensor
from ...train.trackable import Trackable, is_trackable
from ...variables import Variable, VariableAggregation, VariableSynchronization
from ...variables import creator as creator_lib
from . import multi_tensor, schedules

__all__ = ["OptimizerWeights", "var_key"]


def var_key(var: Any) -> str:
    """The key of `var`'s slots (TF's `_var_key`): its distributed container's id, if it has one.

    A strategy's component variable answers `_distributed_container()` with
    its container (or None); the container's `_unique_id` keys the slots.
    The container is tested against None, never for truth: `bool()` of a
    variable reads its value.
    """
    get_container = getattr(var, "_distributed_container", None)
    if callable(get_container):
        container = get_container()
        if container is not None:
            var = container
    key = getattr(var, "_unique_id", None)
    return key if key is not None else f"object_{id(var)}"


def _component(slot: Any, index: int) -> Any:
    """The slot's component for replica `index` (the slot itself if it is not distributed)."""
    parts = protocol.update_components(slot)
    return parts[index] if len(parts) > index and parts[0] is not slot else slot


class OptimizerWeights(Trackable):
    """Hyperparameters, `iterations`, slots and weights of an `OptimizerV2`.

    As a `Trackable` (tf_keras' tracking), the optimizer's children in a
    checkpoint are its weights by name (`iter`, then each hyperparameter
    variable) and any trackable hyperparameter value; slots are not
    children: a slot belongs to the (optimizer, variable) pair, and is saved
    under the variable's key (`.OPTIMIZER_SLOT`). A slot value restored
    before the slot exists waits in `_deferred_slot_restorations` until
    `add_slot` creates it.

    The attributes are set by `OptimizerV2.__init__`: `_hyper`, `_slots`
    (`{var_key: {slot_name: variable}}`), `_slot_names`, `_weights`,
    `_iterations`, `_hypers_created`, `_distribution_strategy`,
    `_deferred_slot_restorations`.
    """

    # -- hyperparameters -------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        """Set hyperparameter `name` (a float, tensor, callable or schedule)."""
        if is_trackable(value):
            self._track_trackable(value, name, overwrite=True)
        if name not in self._hyper:
            self._hyper[name] = value
            return
        prev = self._hyper[name]
        if (callable(prev) and not isinstance(prev, Variable)) or isinstance(
                prev, (torch.Tensor, int, float, schedules.LearningRateSchedule)) or isinstance(
                value, schedules.LearningRateSchedule):
            self._hyper[name] = value
        else:
            prev.assign(cast(value, prev.dtype))

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        """Hyperparameter `name` (cast to `dtype` if given; a schedule as itself)."""
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return value
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if dtype is not None:
            return cast(value, dtype)
        return value

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: hyperparameters as attributes.
        if name == "_hyper":
            raise AttributeError(name)
        hyper = self.__dict__.get("_hyper", {})
        key = "learning_rate" if name == "lr" else name
        if key in hyper:
            return self._get_hyper(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    def __dir__(self) -> list:
        result = set(super().__dir__()) | set(self._hyper)
        if "learning_rate" in self._hyper:
            result.add("lr")
        return sorted(result)

    def _create_hypers(self) -> None:
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if isinstance(value, (torch.Tensor, Variable)) or callable(value):
                continue
            self._hyper[name] = self.add_weight(
                name, shape=[], trainable=False, initializer=value,
                aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
        self._hypers_created = True

    def _serialize_hyperparameter(self, hyperparameter_name: str) -> Any:
        value = self._hyper[hyperparameter_name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if isinstance(value, Variable):
            return value.numpy()
        if callable(value):
            return value()
        if isinstance(value, torch.Tensor):
            return _to_numpy_scalar(value)
        return value

    def _hyper_config(self, *hyperparameter_names: str) -> dict:
        """The config entries every built-in optimizer writes after the base's: `learning_rate`,
        `decay`, then each named hyperparameter (serialized) in order."""
        config = {"learning_rate": self._serialize_hyperparameter("learning_rate"),
                  "decay": self._initial_decay}
        config.update((name, self._serialize_hyperparameter(name)) for name in hyperparameter_names)
        return config

    # -- weights -------------------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        """The number of steps this optimizer has run (an int64 variable)."""
        if self._iterations is None:
            self._iterations = self.add_weight(
                "iter", shape=[], dtype=dtypes.int64, trainable=False,
                aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            self._weights.append(self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable: Variable) -> None:
        if self._iterations is not None:
            raise RuntimeError("Cannot set `iterations` to a new Variable after the Optimizer "
                               "weights have been created. Here it is attempting to set "
                               f"`iterations` to {variable}.")
        self._iterations = variable
        self._weights.append(variable)

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = "zeros",
                   trainable: Optional[bool] = None,
                   synchronization: Any = VariableSynchronization.AUTO,
                   aggregation: Any = VariableAggregation.NONE) -> Variable:
        """A new optimizer variable, created through `tf.Variable` (creator scopes see it)."""
        dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                                 "only for non-trainable variables. You have specified trainable=True "
                                 "and synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        def getter(name: str, shape: Any, dtype: Any, initializer: Any, **kwargs: Any) -> Variable:
            initial_value = initializer_fn(initializer, shape if shape is not None else (), dtype)
            with self._distribution_strategy_scope():
                return Variable(initial_value=initial_value, name=name, dtype=dtype, **kwargs)
        # Tracked by name (a restore waiting for `name` gives the variable its value).
        return self._add_variable_with_custom_getter(
            name, shape=shape, dtype=dtype, initializer=initializer, getter=getter,
            overwrite=True, trainable=trainable, synchronization=synchronization,
            aggregation=aggregation)

    def _distribution_strategy_scope(self) -> Any:
        """The strategy this optimizer was created under, if none is in scope now."""
        if self._distribution_strategy is not None and not distribute_lib.has_strategy():
            return self._distribution_strategy.scope()
        return contextlib.nullcontext()

    def add_slot(self, var: Variable, slot_name: str, initializer: Any = "zeros",
                 shape: Any = None) -> Variable:
        """The slot `slot_name` of `var`, created (on `var`'s device) if needed."""
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        key = var_key(var)
        slot_dict = self._slots.setdefault(key, {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = getattr(var, "true_dtype", var.dtype)
            slot_shape = shape if shape is not None else var._current_shape()
            initial_value = initializer_fn(initializer, slot_shape, dtype)
            strategy = distribute_lib.get_strategy()
            with self._distribution_strategy_scope(), strategy.extended.colocate_vars_with(var), \
                    device_lib.device(var.device):
                weight = Variable(name=f"{var._shared_name}/{slot_name}", dtype=dtype,
                                  trainable=False, initial_value=initial_value)
            slot_dict[slot_name] = weight
            self._restore_slot_variable(slot_name=slot_name, variable=var, slot_variable=weight)
            self._weights.append(weight)
        return weight

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot variable `slot_name` of `var` (`KeyError` if there is none)."""
        key = var_key(var)
        try:
            slot_dict = self._slots[key]
        except KeyError:
            raise KeyError(f"{key!r}: the optimizer has no slots for variable {var.name}; slots "
                           "are created by the first apply_gradients that updates it.") from None
        try:
            slot = slot_dict[slot_name]
        except KeyError:
            raise KeyError(f"{slot_name!r}: no slot of that name for {var.name}; this optimizer's "
                           f"slots are {self._slot_names}.") from None
        index = getattr(var, "_component_index", None)
        return slot if index is None else _component(slot, index)

    def get_slot_names(self) -> list:
        """The names of the slots this optimizer created, in creation order."""
        return self._slot_names

    def _slots_of(self, var: Variable) -> dict:
        """`{slot_name: slot variable}` of `var` (empty before its first step).

        For a distributed variable's component (what a strategy's update
        hands the kernels), the slots' components of the same replica.
        """
        slots = self._slots.get(var_key(var), {})
        index = getattr(var, "_component_index", None)
        if index is None or not slots:
            return slots
        return {name: _component(slot, index) for name, slot in slots.items()}

    def _restore_slot_variable(self, slot_name: str, variable: Variable, slot_variable: Variable) -> None:
        """Give a new slot the value a checkpoint restored for it before it existed."""
        pending = self._deferred_slot_restorations.get(slot_name, {}).pop(var_key(variable), [])
        for position in sorted(pending, key=lambda p: getattr(p, "restore_uid", 0), reverse=True):
            position.restore(slot_variable)

    def _create_or_restore_slot_variable(self, slot_variable_position: Any, slot_name: str,
                                         variable: Variable, slot_variable_shape: Any = None) -> Any:
        """The slot a checkpoint restores into now, or None (deferred until `add_slot`).

        As tf_keras: a missing slot of a plain checkpointed variable is
        created at once with the checkpoint's value, unless a variable
        creator scope is active and no strategy owns this optimizer (a scope
        meant for `variable` should not catch its slot); otherwise the
        restore waits for `add_slot`.
        """
        key = var_key(variable)
        slot = self._slots.get(key, {}).get(slot_name)
        if (slot is None and slot_variable_position.is_simple_variable()
                and (not creator_lib.get_creator_stack() or self._distribution_strategy)):
            initializer = slot_variable_position.initial_value_callable()
            if slot_variable_shape is None:
                slot_variable_shape = slot_variable_position.value_shape()
            slot = self.add_slot(var=variable, initializer=initializer, slot_name=slot_name,
                                 shape=slot_variable_shape)
        if slot is not None:
            return slot
        self._deferred_slot_restorations.setdefault(slot_name, {}).setdefault(key, []).append(
            slot_variable_position)
        return None

    def _create_slots(self, var_list: list) -> None:
        pass

    def _create_all_weights(self, var_list: list) -> None:
        """Create iterations, hyperparameters and slots (existing ones are kept)."""
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def variables(self) -> list:
        """The optimizer's variables in creation order: `iterations`, then slots."""
        return self._weights

    @property
    def weights(self) -> list:
        """The optimizer's variables in creation order (as `variables()`)."""
        return self._weights

    def get_weights(self) -> list:
        """The weights' values as numpy arrays, in `weights` order."""
        return [w.numpy() for w in self._weights]

    def set_weights(self, weights: list) -> None:
        """Assign `weights` (numpy arrays, in `weights` order); validated before any assign."""
        params = self._weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} with a  weight list of "
                f"length {len(weights)}, but the optimizer was expecting {len(params)} weights. "
                f"Provided weights: {str(weights)[:50]}...")
        for p, w in zip(params, weights):
            pv_shape = p._current_shape()
            w_shape = tuple(np.shape(w))
            if pv_shape != w_shape:
                raise ValueError(f"Optimizer weight shape {pv_shape} not compatible with provided "
                                 f"weight shape {w_shape}.")
        for p, w in zip(params, weights):
            p.assign(np.asarray(w))


def _to_numpy_scalar(t: torch.Tensor) -> Any:
    arr = np.array(t.detach().cpu().numpy())
    return arr[()] if arr.ndim == 0 else arr


def cast(value: Any, dtype: Any) -> torch.Tensor:
    """`tf.cast(value, dtype)`: Python floats become float32 first, as TF converts them.

    A Python float gives a cached constant (see `multi_tensor.scalar`): read it, never write it.
    """
    target = dtypes.to_torch(dtype)
    if isinstance(value, float):
        return multi_tensor.scalar(value, target, device_lib.current_torch_device(), via=torch.float32)
    return convert_to_tensor(value).to(target)


def initializer_fn(initializer: Any, shape: Any, dtype: dtypes.DType) -> Any:
    """A zero-argument initial-value function for `tf.Variable` from Keras' forms."""
    shape = tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(shape)
    torch_dtype = dtype.as_torch
    if isinstance(initializer, str):
        fills = {"zeros": 0, "ones": 1}
        if initializer not in fills:
            raise ValueError(f"Unknown initializer {initializer!r}: use 'zeros', 'ones', a callable "
                             "(shape, dtype) -> tensor, or an initial value.")
        fill = fills[initializer]
        return lambda: torch.full(shape, fill, dtype=torch_dtype,
                                  device=device_lib.current_torch_device())
    if callable(initializer) and not isinstance(initializer, (torch.Tensor, Variable)):
        return lambda: initializer(shape=shape, dtype=dtype)
    return initializer
