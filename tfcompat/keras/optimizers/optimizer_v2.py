"""`OptimizerV2`: the Keras (tf_keras legacy) optimizer base class on torch.

The API and behaviour are tf_keras 2.21's `optimizers.legacy.OptimizerV2`
(the seed `optimizer_v2.py`): hyperparameters, slots, `iterations`, decay,
clipping, `minimize`/`apply_gradients`, the distributed apply through
`merge_call`, config and weights.

Two update paths share one set of formulas:

* the **reference path**: `_resource_apply_dense` / `_resource_apply_sparse`
  per variable, readable, written with the variable API. Subclasses that
  override them (custom optimizers) always use it, and so do sparse
  gradients;
* the **multi-tensor path**: a built-in optimizer's
  `_multi_tensor_apply_dense(group, coefficients)` updates all variables
  of one (device, dtype) at once with torch's `_foreach_*`/fused kernels.
  It runs when the class has not overridden `_resource_apply_dense` and the
  variables are `ResourceVariable`s; tests check both paths agree.

Slots are keyed by variable identity (the distributed container's, once
strategies build mirrored variables); every variable the optimizer makes
goes through `tf.Variable`, so creator scopes see it.

What a step over one variable list needs (validated once, cached) and the
per-step gradient checks are in `step_plan`; the multi-tensor machinery
and the cached constants are in `multi_tensor`.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, Callable, Iterable, Optional

import numpy as np
import torch

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...distribute.reduce_util import ReduceOp
from ...framework import device as device_lib
from ...framework import dtypes, nest
from ...framework.indexed_slices import IndexedSlices
from ...framework.name_scope import name_scope
from ...framework.tensor_conversion import convert_to_tensor
from ...variables import Variable, VariableAggregation, VariableSynchronization
from . import multi_tensor, schedules, step_plan
from ...ops.clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value

__all__ = ["OptimizerV2"]

_VALID_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_ALLOWED_KWARGS = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}


def _var_key(var: Any) -> str:
    """The key of `var`'s slots: the distributed container's identity, if any."""
    container = getattr(var, "_distributed_container", None)
    if callable(container):
        var = container() or var
    key = getattr(var, "_unique_id", None)
    return key if key is not None else f"object_{id(var)}"


def _all_reduce_sum_gradients(grads_and_vars: Iterable) -> list:
    """Sum gradients across replicas with one `merge_call` + `batch_reduce_to`."""
    grads_and_vars = list(grads_and_vars)
    if distribute_lib.get_replica_context().num_replicas_in_sync == 1:
        return grads_and_vars  # the sum over one replica
    present = [(g, v) for g, v in grads_and_vars if g is not None]
    reduced: list = []
    if present:
        reduced = list(distribute_lib.get_replica_context().merge_call(
            lambda strategy, pairs: strategy.extended.batch_reduce_to(ReduceOp.SUM, pairs),
            args=(present,)))
    it = iter(reduced)
    return [(None, v) if g is None else (next(it), v) for g, v in grads_and_vars]


class OptimizerV2:
    """Base class of the Keras optimizers (`tf.keras.optimizers.Optimizer`).

    Subclass it as the seed documents: implement `_create_slots`,
    `_resource_apply_dense`, `_resource_apply_sparse` and `get_config`, and
    register hyperparameters with `_set_hyper` in `__init__`.

    tfcompat extension: `use_multi_tensor` (default True) can be set to
    False to force the per-variable reference path.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, name: str, gradient_aggregator: Optional[Callable] = None,
                 gradient_transformers: Optional[list] = None, **kwargs: Any) -> None:
        for k in kwargs:
            if k not in _ALLOWED_KWARGS:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. Allowed "
                                f"kwargs are {_ALLOWED_KWARGS}.")
            if kwargs[k] is not None and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
            if k == "lr":
                warnings.warn("The `lr` argument is deprecated, use `learning_rate` instead.",
                              stacklevel=3)
        self._use_locking = True
        self._name = name or type(self).__name__.lower()
        self._hyper: dict = {}
        self._slots: dict = {}
        self._slot_names: list = []
        self._weights: list = []
        self._iterations: Optional[Variable] = None
        # {slot_name: {var_key: [checkpoint positions]}}: slot values a
        # checkpoint restored before the slot existed (filled by tf.train).
        self._deferred_slot_restorations: dict = {}
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0. Received: decay={decay}.")
        self._initial_decay = decay
        self._hypers_created = False
        self._distribution_strategy = (distribute_lib.get_strategy()
                                       if distribute_lib.has_strategy() else None)
        self.gradient_aggregator = gradient_aggregator or _all_reduce_sum_gradients
        self.gradient_transformers = list(gradient_transformers or [])
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(f"Cannot accept both `clipnorm` and `global_clipnorm`. Received: "
                             f"`clipnorm`={self.clipnorm}, `global_clipnorm`={self.global_clipnorm}.")
        self.clipvalue = kwargs.pop("clipvalue", None)
        self.use_multi_tensor = True
        self._host = multi_tensor.HostScalars()
        self._plans: dict = {}          # var-list key -> step_plan.StepPlan
        self._dense_groups: dict = {}   # dense var-list key -> [(apply key, DenseGroup, indices)]

    # -- clipping -------------------------------------------------------------
    def _check_clip(self, which: str, val: Any) -> Any:
        if val is not None and self.gradient_transformers:
            raise ValueError(f"`{which}` cannot be set when `gradient_transformers` is set. "
                             "Instead, use the `gradient_transformers` to specify clipping and other "
                             f"transformations. Received: val={val}, "
                             f"gradient_transformers={self.gradient_transformers}.")
        return val

    clipnorm = property(lambda self: self._clipnorm,
                        lambda self, v: setattr(self, "_clipnorm", self._check_clip("clipnorm", v)),
                        doc="Clip each gradient to this norm (`tf.clip_by_norm`), or None.")
    global_clipnorm = property(
        lambda self: self._global_clipnorm,
        lambda self, v: setattr(self, "_global_clipnorm", self._check_clip("global_clipnorm", v)),
        doc="Clip all gradients jointly to this global norm, or None.")
    clipvalue = property(lambda self: self._clipvalue,
                         lambda self, v: setattr(self, "_clipvalue", self._check_clip("clipvalue", v)),
                         doc="Clip gradient values to [-clipvalue, clipvalue], or None.")

    # -- gradients ------------------------------------------------------------
    def _transform_loss(self, loss: Any) -> Any:
        return loss

    def _get_gradients(self, tape: GradientTape, loss: Any, var_list: list, grad_loss: Any = None) -> list:
        grads = tape.gradient(loss, var_list, grad_loss)
        return list(zip(grads, var_list))

    def _transform_unaggregated_gradients(self, grads_and_vars: list) -> list:
        return grads_and_vars

    def _aggregate_gradients(self, grads_and_vars: list) -> list:
        return self.gradient_aggregator(grads_and_vars)

    def _transform_gradients(self, grads_and_vars: list) -> list:
        """clipvalue, then clipnorm, then global_clipnorm, then user transformers."""
        if self._clipvalue is not None:
            grads_and_vars = [(clip_by_value(g, -self._clipvalue, self._clipvalue), v)
                              for g, v in grads_and_vars]
        if self._clipnorm is not None:
            grads_and_vars = [(clip_by_norm(g, self._clipnorm), v) for g, v in grads_and_vars]
        if self._global_clipnorm is not None and grads_and_vars:
            grads, variables = zip(*grads_and_vars)
            clipped, _ = clip_by_global_norm(list(grads), self._global_clipnorm)
            grads_and_vars = list(zip(clipped, variables))
        for fn in self.gradient_transformers:
            grads_and_vars = fn(grads_and_vars)
        return grads_and_vars

    def minimize(self, loss: Any, var_list: Any, grad_loss: Any = None, name: Optional[str] = None,
                 tape: Optional[GradientTape] = None) -> Any:
        """Compute gradients of `loss` (a callable, or a tensor recorded on `tape`) and apply them."""
        grads_and_vars = self._compute_gradients(loss, var_list=var_list, grad_loss=grad_loss, tape=tape)
        return self.apply_gradients(grads_and_vars, name=name)

    def _compute_gradients(self, loss: Any, var_list: Any, grad_loss: Any = None,
                           tape: Optional[GradientTape] = None) -> list:
        if not callable(loss) and tape is None:
            raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: "
                             f"loss={loss}, tape={tape}.")
        tape = tape if tape is not None else GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
                if callable(var_list):
                    var_list = var_list()
        with tape:
            loss = self._transform_loss(loss)
        var_list = nest.flatten(var_list)
        with name_scope(self._name + "/gradients"):
            grads_and_vars = self._get_gradients(tape, loss, var_list, grad_loss)
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    # -- apply --------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable, name: Optional[str] = None,
                        experimental_aggregate_gradients: bool = True) -> Optional[Variable]:
        """Apply `(gradient, variable)` pairs; returns `iterations` (incremented once).

        Everything is validated before anything changes: unsupported dtypes
        (`ValueError`), gradients of the wrong shape or dtype
        (`InvalidArgumentError`), out-of-range sparse indices, constraints
        on sparse updates (`RuntimeError`), cross-replica context
        (`RuntimeError`). The gradients are checked as given (before a
        cross-replica reduction sees them) and again as the aggregator,
        clipping, `gradient_transformers` and subclass hooks leave them, so
        the update rules only ever receive valid gradients.

        As in TF, an empty list creates the optimizer's weights and returns
        None without counting a step. The per-(device, dtype) coefficients
        are prepared after the transformations (TF prepares them before; they
        read only hyperparameters and `iterations`), so that a call failing
        anywhere leaves `_prepare_local`'s writes (Nadam's momentum cache)
        undone too.
        """
        grads, var_list = step_plan.split_grads(grads_and_vars)
        if not var_list:
            with name_scope(self._name):
                self._create_all_weights([])
            return None
        if distribute_lib.in_cross_replica_context():
            raise RuntimeError("`apply_gradients() cannot be called in cross-replica context. Use "
                               "`tf.distribute.Strategy.run` to enter replica context. For more "
                               "information, please see the docstring of "
                               "`tf.distribute.get_replica_context`.")
        checked = step_plan.checked_gradients(self._plan_for(var_list), grads)
        grads_and_vars = list(checked)
        if experimental_aggregate_gradients:
            grads_and_vars = self._transform_unaggregated_gradients(grads_and_vars)
            grads_and_vars = self._aggregate_gradients(grads_and_vars)
        grads_and_vars = self._transform_gradients(grads_and_vars)
        checked = step_plan.rechecked_gradients(checked, grads_and_vars, self._plan_for)
        plan = checked.plan
        apply_state = self._prepare(plan.variables, plan.apply_keys)
        return distribute_lib.get_replica_context().merge_call(
            functools.partial(self._distributed_apply, apply_state=apply_state),
            args=(checked,), kwargs={"name": name})

    def _plan_for(self, var_list: Any) -> step_plan.StepPlan:
        """What a step over exactly these variables needs, validated and cached.

        The first step over a variable list checks dtypes and creates the
        optimizer's weights; later steps over the same list reuse the plan.
        """
        key = tuple(map(id, var_list))
        plan = self._plans.get(key)
        if plan is None:
            var_list = list(var_list)
            self._assert_valid_dtypes(var_list)
            with name_scope(self._name):
                self._create_all_weights(var_list)
            plan = step_plan.StepPlan(var_list)
            if len(self._plans) >= 8:  # a few var lists in rotation; don't grow unbounded
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = plan
        return plan

    def _distributed_apply(self, distribution: Any, grads_and_vars: Any, apply_state: dict,
                           name: Optional[str] = None) -> Variable:
        """Apply the (already reduced) gradients to every replica's copy, then count the step."""
        fast = self.use_multi_tensor and self._has_multi_tensor()
        plan = getattr(grads_and_vars, "plan", None)
        if fast and plan is not None and grads_and_vars.all_dense and not plan.has_duplicates:
            # The common step: dense gradients for distinct resource variables, in one batch
            # whose (device, dtype) groups the plan keeps.
            dense = tuple(zip(plan.variables, grads_and_vars.grads))
            distribution.extended.batch_update(dense, functools.partial(
                self._apply_dense_batch, apply_state=apply_state,
                planned=(dense, plan, grads_and_vars.grads)))
            self._increment_iterations()
            return self.iterations
        dense: list = []
        one_by_one: list = []
        for grad, var in grads_and_vars:
            if fast and type(grad) is torch.Tensor and hasattr(var, "_resource"):
                dense.append((var, grad))
            else:
                one_by_one.append((grad, var))
        if len({id(v) for v, _ in dense}) != len(dense):
            # A variable listed twice is updated twice, in order: not a batch.
            one_by_one, dense = [(g, v) for g, v in grads_and_vars], []
        update = functools.partial(self._apply_one, apply_state=apply_state)
        for grad, var in one_by_one:
            distribution.extended.update(var, update, args=(grad,), group=False)
        if dense:
            distribution.extended.batch_update(
                dense, functools.partial(self._apply_dense_batch, apply_state=apply_state))
        self._increment_iterations()
        return self.iterations

    def _apply_one(self, var: Any, grad: Any, apply_state: dict) -> Any:
        """The reference path for one variable (TF's `apply_grad_to_update_var`).

        As tf_keras, `apply_state` is passed only to rules that accept it, so
        subclasses written with the seed's `(grad, handle)` signatures work.
        """
        dense_kwargs, sparse_kwargs = self._rules_accept_apply_state()
        if isinstance(grad, IndexedSlices):
            kwargs = {"apply_state": apply_state} if sparse_kwargs else {}
            return self._resource_apply_sparse_duplicate_indices(
                grad.values, var, grad.indices, **kwargs)
        if dense_kwargs:
            result = self._resource_apply_dense(grad, var, apply_state=apply_state)
        else:
            result = self._resource_apply_dense(grad, var)
        if var.constraint is not None:
            return var.assign(var.constraint(var))
        return result

    def _apply_dense_batch(self, pairs: Any, apply_state: dict, planned: Optional[tuple] = None) -> None:
        """The multi-tensor path: one kernel sequence per (device, dtype) group.

        `planned` is `(pairs, plan, grads)` when the pairs are a whole checked
        step's: a strategy that hands them through unchanged (the default
        one) gets the plan's cached groups. Other pairs (one replica's
        components, a mixed dense/sparse step) are grouped here.
        """
        if planned is not None and pairs is planned[0]:
            plan, grads = planned[1], planned[2]
            if plan.dense_groups is None:
                plan.dense_groups = self._make_dense_groups(plan.variables)
            groups = plan.dense_groups
        else:
            key = tuple(id(v) for v, _ in pairs)
            groups = self._dense_groups.get(key)
            if groups is None:
                groups = self._make_dense_groups([v for v, _ in pairs])
                if len(self._dense_groups) >= 8:
                    self._dense_groups.pop(next(iter(self._dense_groups)))
                self._dense_groups[key] = groups
            grads = [g if g.is_contiguous() else g.contiguous() for _, g in pairs]
        whole = len(groups) == 1  # one group holds every pair, in order
        for k, group, idx in groups:
            if group is None:  # slots a creator built as non-resource variables
                for i in idx:
                    self._apply_one(pairs[i][0], pairs[i][1], apply_state=apply_state)
                continue
            group.grads = grads if whole else [grads[i] for i in idx]
            coefficients = apply_state.get(k) or self._fallback_apply_state(*k)
            with torch.no_grad():
                self._multi_tensor_apply_dense(group, coefficients)
            group.grads = None
            for var in group.constrained:
                var.assign(var.constraint(var))

    def _make_dense_groups(self, variables: list) -> list:
        by_key: dict = {}
        for i, var in enumerate(variables):
            by_key.setdefault((var.device, var.dtype), []).append(i)
        groups = []
        for k, idx in by_key.items():
            members = [variables[i] for i in idx]
            group = (multi_tensor.DenseGroup(members, self.get_slot)
                     if self._slots_are_resources(members) else None)
            groups.append((k, group, idx))
        return groups

    def _slots_are_resources(self, variables: list) -> bool:
        return all(hasattr(slot, "_resource")
                   for v in variables for slot in self._slots.get(_var_key(v), {}).values())

    @classmethod
    def _rules_accept_apply_state(cls) -> tuple:
        """Whether `_resource_apply_dense` and `_resource_apply_sparse` take `apply_state`."""
        cached = cls.__dict__.get("_apply_state_rules")
        if cached is None:
            cached = tuple(_takes_apply_state(getattr(cls, method))
                           for method in ("_resource_apply_dense", "_resource_apply_sparse"))
            setattr(cls, "_apply_state_rules", cached)
        return cached

    @classmethod
    def _has_multi_tensor(cls) -> bool:
        """Whether this class's dense rule is the one its multi-tensor kernel implements."""
        cached = cls.__dict__.get("_multi_tensor_ok")
        if cached is None:
            owner = next((k for k in cls.__mro__ if "_multi_tensor_apply_dense" in k.__dict__), None)
            cached = owner is not None and owner is not OptimizerV2 and all(
                getattr(cls, m) is getattr(owner, m)
                for m in ("_resource_apply_dense", "_prepare_local"))
            setattr(cls, "_multi_tensor_ok", cached)
        return cached

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, coefficients: dict) -> None:
        raise NotImplementedError

    def _increment_iterations(self) -> None:
        it = self.iterations
        resource = getattr(it, "_resource", None)
        if resource is None:
            it.assign_add(1)
            return
        before = self._host_step()
        it.assign_add(self._one(resource.value.device))
        self._host.record("iterations", resource.value, before + 1)

    def _one(self, device: torch.device) -> torch.Tensor:
        key = ("one", device)
        one = self.__dict__.get("_ones", {}).get(key)
        if one is None:
            one = torch.ones((), dtype=torch.int64, device=device)
            self.__dict__.setdefault("_ones", {})[key] = one
        return one

    def _device_step(self, device: torch.device, t: int) -> torch.Tensor:
        """A float32 scalar holding `t` on `device`, for fused kernels' `state_steps`.

        Filled from the host value each step: an asynchronous write, no read.
        """
        steps = self.__dict__.setdefault("_step_tensors", {})
        step = steps.get(device)
        if step is None:
            step = steps[device] = torch.zeros((), dtype=torch.float32, device=device)
        step.fill_(t)
        return step

    def _host_step(self) -> int:
        """`iterations` as a Python int, without a device read in steady state."""
        it = self.iterations
        resource = getattr(it, "_resource", None)
        if resource is None:
            return int(it.numpy())
        return self._host.read("iterations", resource.value, lambda t: int(t))

    def _host_hyper(self, name: str, dtype: torch.dtype) -> float:
        """Hyperparameter `name` read in `dtype`, as a Python float (see `HostScalars`).

        A variable or tensor is converted once per write to it, not per step.
        """
        value = self._hyper[name]
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if isinstance(value, (int, float)):
            return multi_tensor.round_to(value, dtype)
        resource = getattr(value, "_resource", None)
        if resource is not None:
            return self._host.read((name, dtype), resource.value,
                                   lambda t: float(t.to(dtype).to(torch.float64)))
        if isinstance(value, torch.Tensor):
            return self._host.read((name, dtype), value, functools.partial(_tensor_hyper_to_host, dtype=dtype))
        return _tensor_hyper_to_host(convert_to_tensor(value), dtype)

    def _host_lr(self, dtype: torch.dtype) -> Optional[float]:
        """The step's learning rate as a Python float when it is known without a device read.

        That is the case for a learning rate held in a (hyperparameter) variable
        or given as a number, with no decay; schedules and callables give None.
        """
        value = self._hyper.get("learning_rate")
        if self._initial_decay > 0.0 or isinstance(value, schedules.LearningRateSchedule) or (
                callable(value) and not isinstance(value, Variable)) or isinstance(value, torch.Tensor):
            return None
        return self._host_hyper("learning_rate", dtype)

    # -- hyperparameters -------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        """Set hyperparameter `name` (a float, tensor, callable or schedule)."""
        if name not in self._hyper:
            self._hyper[name] = value
            return
        prev = self._hyper[name]
        if (callable(prev) and not isinstance(prev, Variable)) or isinstance(
                prev, (torch.Tensor, int, float, schedules.LearningRateSchedule)) or isinstance(
                value, schedules.LearningRateSchedule):
            self._hyper[name] = value
        else:
            prev.assign(_cast(value, prev.dtype))

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return value
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if dtype is not None:
            return _cast(value, dtype)
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
        initial_value = _initializer(initializer, shape, dtype)
        with self._distribution_strategy_scope():
            return Variable(initial_value=initial_value, name=name, dtype=dtype,
                            trainable=trainable, synchronization=synchronization,
                            aggregation=aggregation)

    def _distribution_strategy_scope(self) -> Any:
        """The strategy this optimizer was created under, if none is in scope now."""
        import contextlib
        if self._distribution_strategy is not None and not distribute_lib.has_strategy():
            return self._distribution_strategy.scope()
        return contextlib.nullcontext()

    def add_slot(self, var: Variable, slot_name: str, initializer: Any = "zeros",
                 shape: Any = None) -> Variable:
        """The slot `slot_name` of `var`, created (on `var`'s device) if needed."""
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        var_key = _var_key(var)
        slot_dict = self._slots.setdefault(var_key, {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = getattr(var, "true_dtype", var.dtype)
            slot_shape = shape if shape is not None else (
                tuple(var.handle.shape) if hasattr(var, "handle") else var.shape)
            initial_value = _initializer(initializer, slot_shape, dtype)
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
        var_key = _var_key(var)
        try:
            slot_dict = self._slots[var_key]
        except KeyError:
            raise KeyError(f"{var_key!r}: the optimizer has no slots for variable {var.name}; slots "
                           "are created by the first apply_gradients that updates it.") from None
        try:
            return slot_dict[slot_name]
        except KeyError:
            raise KeyError(f"{slot_name!r}: no slot of that name for {var.name}; this optimizer's "
                           f"slots are {self._slot_names}.") from None

    def get_slot_names(self) -> list:
        return self._slot_names

    def _restore_slot_variable(self, slot_name: str, variable: Variable, slot_variable: Variable) -> None:
        """Give a new slot the value a checkpoint restored for it before it existed."""
        pending = self._deferred_slot_restorations.get(slot_name, {}).pop(_var_key(variable), [])
        for position in sorted(pending, key=lambda p: getattr(p, "restore_uid", 0), reverse=True):
            position.restore(slot_variable)

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
            pv_shape = tuple(p.handle.shape)
            w_shape = tuple(np.shape(w))
            if pv_shape != w_shape:
                raise ValueError(f"Optimizer weight shape {pv_shape} not compatible with provided "
                                 f"weight shape {w_shape}.")
        for p, w in zip(params, weights):
            p.assign(np.asarray(w))

    def _assert_valid_dtypes(self, tensors: list) -> None:
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = dtypes.as_dtype(t.dtype)
            if dtype not in valid:
                raise ValueError(f"Invalid type {dtype!r} for {getattr(t, 'name', t)}, expected: "
                                 f"{list(valid)}.")

    def _valid_dtypes(self) -> tuple:
        return _VALID_DTYPES

    # -- per-(device, dtype) coefficients ----------------------------------------------
    def _prepare(self, var_list: list, keys: Any = None) -> dict:
        """Per (device, dtype) coefficients for this step (`_prepare_local`)."""
        apply_state: dict = {}
        for key in keys if keys is not None else {(v.device, v.dtype) for v in var_list}:
            apply_state[key] = multi_tensor.Coefficients()
            with device_lib.device(key[0]):
                self._prepare_local(key[0], key[1], apply_state)
        return apply_state

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = self._decayed_lr(var_dtype)

    def _fallback_apply_state(self, var_device: str, var_dtype: Any) -> dict:
        apply_state = {(var_device, var_dtype): multi_tensor.Coefficients()}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _epsilon(self, var_dtype: Any) -> torch.Tensor:
        """`self.epsilon` as a 0-d tensor of `var_dtype` on the current device (built once)."""
        return multi_tensor.scalar(self.epsilon, var_dtype.as_torch, device_lib.current_torch_device())

    def _coefficients(self, var: Variable, apply_state: Optional[dict]) -> dict:
        key = (var.device, var.dtype)
        return (apply_state or {}).get(key) or self._fallback_apply_state(*key)

    def _local_step(self, var_dtype: Any, offset: int = 1) -> torch.Tensor:
        """`tf.cast(iterations + offset, var_dtype)`: the sum in int64, as TF's, with a cached offset."""
        it = convert_to_tensor(self.iterations)
        return _cast(it + multi_tensor.scalar(offset, it.dtype, it.device), var_dtype)

    def _decayed_lr(self, var_dtype: Any) -> torch.Tensor:
        """The learning rate for this step in `var_dtype`: schedule, then inverse-time decay."""
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if isinstance(lr_t, schedules.LearningRateSchedule):
            local_step = _cast(self.iterations, var_dtype)
            lr_t = _cast(lr_t(local_step), var_dtype)
        if self._initial_decay > 0.0:
            local_step = _cast(self.iterations, var_dtype)
            decay_t = _cast(self._initial_decay, var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    # -- the per-variable rules subclasses implement -------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, handle: Variable, apply_state: Optional[dict]) -> Any:
        raise NotImplementedError("`_resource_apply_dense` must be implemented in subclasses.")

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, handle: Variable,
                                                 indices: torch.Tensor, **kwargs: Any) -> Any:
        """Sum duplicate indices, then `_resource_apply_sparse`."""
        summed, unique = multi_tensor.deduplicate(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique, **kwargs)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Variable, indices: torch.Tensor,
                               apply_state: Optional[dict]) -> Any:
        raise NotImplementedError("`_resource_apply_sparse` Must be implemented in subclasses.")

    def _resource_scatter_add(self, x: Variable, i: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        x.scatter_add(IndexedSlices(v, i))
        return x.value()

    def _resource_scatter_update(self, x: Variable, i: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        x.scatter_update(IndexedSlices(v, i))
        return x.value()

    # -- config -------------------------------------------------------------------------
    def get_config(self) -> dict:
        config: dict = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "OptimizerV2":
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects=custom_objects)
        return cls(**config)

    def _hyper_config(self, *hyperparameter_names: str) -> dict:
        """The config entries every built-in optimizer writes after the base's: `learning_rate`,
        `decay`, then each named hyperparameter (serialized) in order."""
        config = {"learning_rate": self._serialize_hyperparameter("learning_rate"),
                  "decay": self._initial_decay}
        config.update((name, self._serialize_hyperparameter(name)) for name in hyperparameter_names)
        return config

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

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} name={self._name!r}>"


def _takes_apply_state(rule: Callable) -> bool:
    parameters = inspect.signature(rule).parameters
    return "apply_state" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _tensor_hyper_to_host(t: torch.Tensor, dtype: torch.dtype) -> float:
    """A tensor hyperparameter read in `dtype` as a Python float (float32 first, as TF's variable)."""
    return float(t.to(torch.float32).to(dtype).to(torch.float64))


def _to_numpy_scalar(t: torch.Tensor) -> Any:
    arr = np.array(t.detach().cpu().numpy())
    return arr[()] if arr.ndim == 0 else arr


def _cast(value: Any, dtype: Any) -> torch.Tensor:
    """`tf.cast(value, dtype)`: Python floats become float32 first, as TF converts them.

    A Python float gives a cached constant (see `multi_tensor.scalar`): read it, never write it.
    """
    target = dtypes.to_torch(dtype)
    if isinstance(value, float):
        return multi_tensor.scalar(value, target, device_lib.current_torch_device(), via=torch.float32)
    return convert_to_tensor(value).to(target)


def _initializer(initializer: Any, shape: Any, dtype: dtypes.DType) -> Any:
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
