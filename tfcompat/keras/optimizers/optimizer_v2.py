"""`OptimizerV2`: the Keras (tf_keras legacy) optimizer base class on torch.

The API and behaviour are tf_keras 2.21's `optimizers.legacy.OptimizerV2`
(the seed `optimizer_v2.py`): hyperparameters, slots, `iterations`, decay,
clipping, `minimize`/`apply_gradients`, the distributed apply through
`merge_call`, config and weights. State (hyperparameters, slots, weights)
is in `weights.py`; this module is the apply path.

Two update paths share one set of formulas:

* the **reference path**: `_resource_apply_dense` / `_resource_apply_sparse`
  per variable, readable, written with the variable API. Subclasses that
  override them (custom optimizers) always use it, and so do sparse
  gradients and variables without a storage cell;
* the **multi-tensor path**: a built-in optimizer's functional core (a
  plain function in its module, e.g. `adam.adam`, over lists of tensors of
  one device and dtype) updates all variables of one (device, dtype) at
  once with torch's `_foreach_*`/fused kernels, on the variables' storage
  cells (`framework/variable_protocol.py`), holding the device's lock. It
  runs when the class has not overridden `_resource_apply_dense`; tests
  check both paths agree.

Nothing rides through the strategy seam but plain data: the merge function
receives the `(gradient, variable)` pairs, and every cached fact about a
variable list is found again from the variables themselves (`step_plan`),
so a strategy may repack the pairs freely.
"""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from typing import Any, Callable, Iterable, Optional

import numpy as np
import torch

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...distribute import values as distribute_values
from ...distribute.reduce_util import ReduceOp
from ...framework import dtypes, errors, nest
from ...framework import device as device_lib
from ...framework import variable_protocol as protocol
from ...framework.indexed_slices import IndexedSlices
from ...framework.name_scope import name_scope
from ...framework import tensor_conversion
from ...framework.tensor_conversion import convert_to_tensor
from ...ops._indices import checks_on_host
from ...variables import Variable
from . import clipping, multi_tensor, schedules, step_plan
from .weights import OptimizerWeights, cast, var_key

__all__ = ["OptimizerV2"]

_VALID_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_ALLOWED_KWARGS = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}

# Kept importable under their former names (algorithm modules and user code use them).
_cast = cast
_var_key = var_key


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


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_ITERATIONS_MIRROR = "iterations"  # the key of `iterations`' host mirror (see `_host_step`)
_PER_REPLICA_KINDS = frozenset({torch.Tensor, distribute_values.PerReplica, distribute_values.Mirrored})


def _dense_batch(grads: list) -> bool:
    """Whether every gradient is a plain tensor (a C-level loop: this runs every step), or,
    under a strategy with several replicas, one plain tensor per replica."""
    kinds = set(map(type, grads))
    if kinds == {torch.Tensor}:
        return True
    if not kinds <= _PER_REPLICA_KINDS:
        return False
    return all(type(c) is torch.Tensor for g in grads
               for c in (g.values if type(g) in _PER_REPLICA_KINDS - {torch.Tensor} else (g,)))


class OptimizerV2(OptimizerWeights):
    """Base class of the Keras optimizers (`tf.keras.optimizers.Optimizer`).

    Subclass it as the seed documents: implement `_create_slots`,
    `_resource_apply_dense`, `_resource_apply_sparse` and `get_config`, and
    register hyperparameters with `_set_hyper` in `__init__`.

    tfcompat extension: `use_multi_tensor` (default True) can be set to
    False to force the per-variable reference path.
    """

    _HAS_AGGREGATE_GRAD = True
    #: How TF rejects a variable that is not floating point in `apply_gradients`, by kind
    #: ("int", "bool"): the exception its kernels (or its constant conversions) raise.
    _NON_FLOAT_ERRORS: dict = {"int": errors.InvalidArgumentError, "bool": errors.InvalidArgumentError}

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
        self._host = multi_tensor.HostMirrors()
        self._plans = step_plan.PlanCache()

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
        """clipvalue, then clipnorm, then global_clipnorm (multi-tensor, see `clipping`), then
        user transformers."""
        clips = ((self._clipvalue, clipping.clip_by_value_each), (self._clipnorm, clipping.clip_by_norm_each),
                 (self._global_clipnorm, clipping.clip_by_global_norm_all))
        for value, clip in clips:
            if value is not None and grads_and_vars:
                grads = [g for g, _ in grads_and_vars]
                grads_and_vars = list(zip(clip(grads, value), (v for _, v in grads_and_vars)))
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

        Everything is validated before anything changes: variables that are
        not floating point (TF's exception class for the optimizer,
        `InvalidArgumentError` for most), gradients of the wrong shape or
        dtype (`InvalidArgumentError`), out-of-range sparse indices (where
        TF's kernels check them, on CPU; on an accelerator, as TF's GPU
        kernels, the update skips those rows and reads nothing on the host),
        constraints on sparse updates (`RuntimeError`), cross-replica context
        (`RuntimeError`). The gradients are checked as given (before a
        cross-replica reduction sees them) and again as the aggregator,
        clipping, `gradient_transformers` and subclass hooks leave them, so
        the update rules only ever receive valid gradients.

        As in TF, an empty list creates `iterations` (and the
        hyperparameters) and returns None without counting a step. The
        coefficients are prepared after the transformations (TF prepares them
        before; they read only hyperparameters and `iterations`), so that a
        call failing anywhere leaves `_prepare_local`'s writes (Nadam's
        momentum cache) undone too.
        """
        grads, var_list = step_plan.split_grads(grads_and_vars)
        if not var_list:
            with name_scope(self._name):
                self._create_all_weights([])
            return None
        plan = self._plan_for(var_list)  # (as TF, the weights exist before the context check)
        if distribute_lib.in_cross_replica_context():
            raise RuntimeError("`apply_gradients() cannot be called in cross-replica context. Use "
                               "`tf.distribute.Strategy.run` to enter replica context. For more "
                               "information, please see the docstring of "
                               "`tf.distribute.get_replica_context`.")
        checked = step_plan.checked_gradients(plan, var_list, grads)
        grads_and_vars = checked.pairs
        if experimental_aggregate_gradients and self._sums_then_applies_as_is():
            # Nothing runs between the replicas' sum and the update: one merge call does both
            # (TF makes two; the second's regrouping of every gradient is Python per variable).
            return distribute_lib.get_replica_context().merge_call(
                functools.partial(self._sum_and_apply, name=name), args=(checked.pairs,))
        if experimental_aggregate_gradients:
            grads_and_vars = self._transform_unaggregated_gradients(grads_and_vars)
            grads_and_vars = self._aggregate_gradients(grads_and_vars)
        grads_and_vars = self._transform_gradients(grads_and_vars)
        checked = step_plan.rechecked_gradients(checked, grads_and_vars, self._plan_for)
        # An optimizer that overrides TF's `_prepare` gets it called, as in TF; the built-ins'
        # coefficients are computed by the path that reads them (`StepCoefficients`).
        apply_state = self._prepare(checked.variables) if self._overrides_prepare() else None
        return distribute_lib.get_replica_context().merge_call(
            functools.partial(self._distributed_apply, apply_state=apply_state),
            args=(checked.pairs,), kwargs={"name": name})

    def _sums_then_applies_as_is(self) -> bool:
        """Whether, under several replicas, the summed gradients go to the update unchanged:
        the default aggregator, no clipping or transformers, no overridden hooks between."""
        if distribute_lib.get_replica_context().num_replicas_in_sync == 1:
            return False
        cls = type(self)
        return (self.gradient_aggregator is _all_reduce_sum_gradients
                and not self.gradient_transformers
                and self._clipvalue is None and self._clipnorm is None
                and self._global_clipnorm is None
                and cls._transform_unaggregated_gradients is OptimizerV2._transform_unaggregated_gradients
                and cls._aggregate_gradients is OptimizerV2._aggregate_gradients
                and cls._transform_gradients is OptimizerV2._transform_gradients
                and not self._overrides_prepare())

    def _sum_and_apply(self, distribution: Any, grads_and_vars: Any,
                       name: Optional[str] = None) -> Any:
        """The merge function of `_sums_then_applies_as_is`: one batched SUM across replicas
        (`batch_reduce_to`), then `_distributed_apply` on the sums."""
        pairs = list(grads_and_vars)
        present = [(g, v) for g, v in pairs if g is not None]
        extended = distribution.extended
        reduce = getattr(extended, "_batch_reduce_shared", None) or extended.batch_reduce_to
        reduced = iter(reduce(ReduceOp.SUM, present) if present else ())
        summed = [(None, v) if g is None else (next(reduced), v) for g, v in pairs]
        return self._distributed_apply(distribution, summed, apply_state=None, name=name)

    def _plan_for(self, var_list: list) -> step_plan.StepPlan:
        """What a step over exactly these variables needs, validated and cached.

        The first step over a variable list checks dtypes and creates the
        optimizer's weights; later steps over the same list reuse the plan.
        """
        plan = self._plans.get(var_list)
        if plan is None or not plan.validated:
            var_list = list(var_list)
            self._check_trainable_dtypes(var_list)
            with name_scope(self._name):
                self._create_all_weights(var_list)
            plan = plan or self._plans.add(var_list)
            plan.validated = True
        return plan

    def _check_trainable_dtypes(self, var_list: list) -> None:
        """Raise TF's error for a variable this optimizer cannot update (before anything changes)."""
        valid = self._valid_dtypes()
        for var in var_list:
            dtype = dtypes.as_dtype(var.dtype)
            if dtype in valid:
                continue
            kind = "bool" if dtype == dtypes.bool else "int" if dtype.is_integer else "other"
            exc = self._NON_FLOAT_ERRORS.get(kind, errors.InvalidArgumentError)
            message = (f"{type(self).__name__} cannot update {var.name}: its dtype {dtype.name} is not "
                       f"one of {[d.name for d in valid]}. Optimizers train floating-point variables "
                       "only: leave this variable out of `grads_and_vars` (e.g. create it with "
                       "trainable=False), or make it a floating-point variable.")
            if issubclass(exc, errors.OpError):
                raise exc(None, None, message)
            raise exc(message)

    def _distributed_apply(self, distribution: Any, grads_and_vars: Any, apply_state: Optional[dict] = None,
                           name: Optional[str] = None) -> Variable:
        """Apply the (already reduced) gradients to every replica's copy, then count the step.

        `grads_and_vars` are plain `(gradient, variable)` pairs in any
        container; `apply_state` is TF's (a dict, or None to compute each
        entry when a per-variable rule first needs it).
        """
        pairs = grads_and_vars if isinstance(grads_and_vars, list) else list(grads_and_vars)
        step = step_plan.StepCoefficients(self, apply_state)
        fast = self.use_multi_tensor and self._has_multi_tensor()
        # (itemgetter maps, not `zip(*pairs)`: that allocates an iterator per pair, and a step
        # that allocates thousands of objects triggers the garbage collector's full passes)
        grads, variables = list(map(_FIRST, pairs)), list(map(_SECOND, pairs))
        if fast and pairs and _dense_batch(grads):
            plan = self._plans.get(variables) or self._plans.add(variables)
            if plan.batchable:
                # The common step: dense gradients for distinct variables with storage cells,
                # in one batch whose (device, dtype) groups the plan keeps.
                distribution.extended.batch_update(list(zip(variables, grads)),
                                                   functools.partial(self._apply_dense_batch, step=step))
                self._increment_iterations()
                return self._step_result()
        dense: list = []
        one_by_one: list = []
        for grad, var in pairs:
            if fast and type(grad) is torch.Tensor and protocol.storage(var) is not None:
                dense.append((var, grad))
            else:
                one_by_one.append((grad, var))
        if len({id(v) for v, _ in dense}) != len(dense):
            # A variable listed twice is updated twice, in order: not a batch.
            one_by_one, dense = list(pairs), []
        update = functools.partial(self._apply_one, step=step)
        for grad, var in one_by_one:
            distribution.extended.update(var, update, args=(grad,), group=False)
        if dense:
            distribution.extended.batch_update(dense, functools.partial(self._apply_dense_batch, step=step))
        self._increment_iterations()
        return self._step_result()

    def _step_result(self) -> Any:
        """What TF's `_distributed_apply` returns, `iterations.assign_add(1)`: the variable
        (tfcompat's update result), and for a mirrored or sync-on-read `iterations` a `Mirrored`
        of its components' new values (each replica's `apply_gradients` returns its own).
        Read here, once, so that the increment itself returns nothing."""
        it = self.iterations
        if isinstance(it, distribute_values.DistributedValues):
            return distribute_values.Mirrored(tuple(c.read_value() for c in it.values))
        return it

    def _apply_one(self, var: Any, grad: Any, step: step_plan.StepCoefficients) -> Any:
        """The reference path for one variable (TF's `apply_grad_to_update_var`).

        As tf_keras, `apply_state` is passed only to rules that accept it, so
        subclasses written with the seed's `(grad, handle)` signatures work.
        """
        apply_state = step.apply_state((var.device, var.dtype))
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

    def _apply_dense_batch(self, pairs: Any, step: step_plan.StepCoefficients) -> None:
        """The multi-tensor path over `(variable, gradient)` pairs: one core call per (device, dtype).

        The pairs' (device, dtype) groups are planned once per variable list
        and found again by the variables' identities, however the strategy
        packed the pairs.
        """
        if not pairs:
            return
        variables, grads = list(map(_FIRST, pairs)), list(map(_SECOND, pairs))
        if not all(map(torch.Tensor.is_contiguous, grads)):
            grads = [g.contiguous() for g in grads]
        plan = self._plans.get(variables) or self._plans.add(variables)
        if plan.dense_groups is None:
            plan.dense_groups = multi_tensor.make_dense_groups(variables, self._slots_of)
        whole = len(plan.dense_groups) == 1  # one group holds every pair, in order
        for key, group, idx in plan.dense_groups:
            if group is None:  # a creator built a slot that has no storage cell
                for i in idx:
                    self._apply_one(variables[i], grads[i], step=step)
                continue
            coefficients = step.kernel(key)
            group_grads = grads if whole else [grads[i] for i in idx]
            with torch.no_grad(), group.lock:  # one acquisition for the whole group
                self._multi_tensor_apply_dense(group, group_grads, coefficients)
            for i in group.constrained:
                var = variables[i]
                var.assign(var.constraint(var))

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

    @classmethod
    def _overrides_prepare(cls) -> bool:
        """Whether the class overrides TF's `_prepare` (then it runs eagerly, as in TF)."""
        return cls._prepare is not OptimizerV2._prepare

    def _multi_tensor_coefficients(self, var_device: str, var_dtype: Any,
                                   step: step_plan.StepCoefficients) -> Any:
        """What `_multi_tensor_apply_dense` reads for one (device, dtype) this step.

        By default TF's `apply_state` entry; optimizers whose kernels need less
        compute only that.
        """
        return step.apply_state((var_device, var_dtype))[(var_device, var_dtype)]

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: Any) -> None:
        """Update `group` (a `DenseGroup`) with `grads` through the functional core (lock held)."""
        raise NotImplementedError

    def _increment_iterations(self) -> None:
        it = self.iterations
        cell = protocol.storage(it)
        if cell is None:
            it.assign_add(1, read_value=False)
            return
        before = self._host.valid(_ITERATIONS_MIRROR, cell)
        it.assign_add(multi_tensor.scalar(1, torch.int64, cell.value.device), read_value=False)
        if before is not None:
            self._host.set(_ITERATIONS_MIRROR, cell, before + 1)

    # -- host mirrors of hyperparameters ---------------------------------------------
    def _host_hyper(self, name: str, dtype: torch.dtype) -> float:
        """Hyperparameter `name` read in `dtype`, as a Python float (see `HostMirrors`).

        A variable or tensor is converted once per write to it, not per step.
        """
        value = self._hyper[name]
        if callable(value) and not isinstance(value, Variable):
            value = value()
        if isinstance(value, (int, float)):
            return multi_tensor.round_to(value, dtype)
        if isinstance(value, torch.Tensor):
            return self._host.read((name, dtype), value, functools.partial(_tensor_hyper_to_host, dtype=dtype))
        cell = protocol.storage(value)
        if cell is not None:
            return self._host.read((name, dtype), cell, lambda t: float(t.to(dtype).to(torch.float64)))
        return _tensor_hyper_to_host(convert_to_tensor(value), dtype)

    def _assert_valid_dtypes(self, tensors: list) -> None:
        """TF's check of `minimize`'s variables: a `ValueError` for an unsupported dtype."""
        valid = self._valid_dtypes()
        seen = set()
        for t in tensors:
            raw = t.dtype
            if raw in seen:  # (one check per distinct dtype object)
                continue
            dtype = dtypes.as_dtype(raw)
            if dtype in valid:
                seen.add(raw)
            else:
                raise ValueError(f"Invalid type {dtype!r} for {getattr(t, 'name', t)}, expected: "
                                 f"{list(valid)}.")

    def _valid_dtypes(self) -> tuple:
        return _VALID_DTYPES

    # -- per-(device, dtype) coefficients (TF's apply_state) ----------------------------
    def _prepare(self, var_list: list, keys: Any = None) -> dict:
        """Per (device, dtype) coefficients for this step (`_prepare_local`), as a plain dict."""
        apply_state: dict = {}
        for key in keys if keys is not None else {(v.device, v.dtype): None for v in var_list}:
            apply_state[key] = {}
            with device_lib.device(key[0]):
                self._prepare_local(key[0], key[1], apply_state)
        return apply_state

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        if "learning_rate" in self._hyper:
            apply_state[(var_device, var_dtype)]["lr_t"] = self._decayed_lr(var_dtype)

    def _fallback_apply_state(self, var_device: str, var_dtype: Any) -> dict:
        apply_state: dict = {(var_device, var_dtype): {}}
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
        return cast(torch.add(it, multi_tensor.scalar(offset, it.dtype, it.device)), var_dtype)

    def _host_step(self, dtype: torch.dtype) -> Optional[tuple]:
        """`(t, lr)`: `cast(iterations + 1, dtype)` and the learning rate as NumPy scalars of
        `dtype`, when the step's scalar arithmetic may run on the host -- else None.

        That is: float32/float64, on the CPU (the current device and `iterations`' storage;
        not under `host_as_accelerator`, where CPU tensors stand in for a device's),
        a constant learning rate without inverse-time decay. There TF's scalar kernels and
        NumPy's scalar arithmetic are the same IEEE operations of the dtype (the same libm
        `pow`), so the coefficients come out bit for bit as on the device path. `iterations`
        is mirrored on the host (read once after an outside write; each increment advances
        the mirror), so a step reads nothing. On an accelerator the device path stays.
        """
        if dtype is not torch.float32 and dtype is not torch.float64:
            return None
        if self._initial_decay > 0.0 or not checks_on_host(device_lib.current_torch_device()):
            return None
        lr = self._hyper.get("learning_rate")
        if lr is None or isinstance(lr, schedules.LearningRateSchedule):
            return None
        it = self.iterations
        cell = protocol.storage(it)
        if (cell is None or type(it) not in tensor_conversion.plain_read_types()
                or not checks_on_host(cell.value)):
            return None
        np_dtype = np.float32 if dtype is torch.float32 else np.float64
        # (`iterations` mirrored: read after an outside write, else advanced by the increment)
        count = self._host.read(_ITERATIONS_MIRROR, cell, int)
        return np_dtype(count + 1), np_dtype(self._host_hyper("learning_rate", dtype))

    def _decayed_lr(self, var_dtype: Any) -> torch.Tensor:
        """The learning rate for this step in `var_dtype`: schedule, then inverse-time decay."""
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if isinstance(lr_t, schedules.LearningRateSchedule):
            local_step = cast(self.iterations, var_dtype)
            lr_t = cast(lr_t(local_step), var_dtype)
        if self._initial_decay > 0.0:
            local_step = cast(self.iterations, var_dtype)
            decay_t = cast(self._initial_decay, var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    # -- the per-variable rules subclasses implement -------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, handle: Variable, apply_state: Optional[dict]) -> Any:
        raise NotImplementedError("`_resource_apply_dense` must be implemented in subclasses.")

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, handle: Variable,
                                                 indices: torch.Tensor, **kwargs: Any) -> Any:
        """Sum duplicate indices, then `_resource_apply_sparse` (TF's `_deduplicate_indexed_slices`).

        Where TF validates indices (CPU), the indices are made unique with
        `torch.unique`, as TF's `tf.unique`. On an accelerator that would
        read the count of distinct indices on the host every step, so a
        built-in rule (`_SPARSE_RULE_TAKES_PADS`) gets the static-shape
        `deduplicate_padded` instead: the distinct indices with their sums,
        then out-of-range pads its gathers read as zeros and its scatters
        skip. A custom `_resource_apply_sparse` (or `_resource_scatter_add` /
        `_resource_scatter_update`) is promised unique indices by TF's API
        and keeps getting exactly those, at the cost of that one host sync.
        """
        if self._sparse_rule_takes_pads() and not step_plan.validates_on_host(handle):
            summed, padded, _ = multi_tensor.deduplicate_padded(grad, indices)
            return self._resource_apply_sparse(summed, handle, padded, **kwargs)
        summed, unique = multi_tensor.deduplicate(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique, **kwargs)

    #: Set to True in the body of an optimizer class whose `_resource_apply_sparse` (its own or
    #: inherited) is correct for padded indices (`multi_tensor.deduplicate_padded`): it reads
    #: and writes rows only through the variable API (`sparse_read`, `scatter_*`), whose
    #: accelerator semantics skip the pads. The built-in optimizers do.
    _SPARSE_RULE_TAKES_PADS = False

    @classmethod
    def _sparse_rule_takes_pads(cls) -> bool:
        """Whether this class's sparse rule takes padded indices (see `_SPARSE_RULE_TAKES_PADS`).

        Only a declaration in the class that defines `_resource_apply_sparse`
        or in a subclass of it counts (the nearest one), and only while the
        scatter helpers are the base class's: a subclass that overrides the
        rule or a helper without declaring it gets unique indices, as TF
        promises.
        """
        cached = cls.__dict__.get("_sparse_pads_ok")
        if cached is None:
            cached = False
            for k in cls.__mro__:
                if "_SPARSE_RULE_TAKES_PADS" in k.__dict__:
                    cached = bool(k.__dict__["_SPARSE_RULE_TAKES_PADS"])
                    break
                if "_resource_apply_sparse" in k.__dict__:
                    break  # (the rule's owner declared nothing)
            cached = (cached and cls._resource_scatter_add is OptimizerV2._resource_scatter_add
                      and cls._resource_scatter_update is OptimizerV2._resource_scatter_update)
            setattr(cls, "_sparse_pads_ok", cached)
        return cached

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

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} name={self._name!r}>"


def _takes_apply_state(rule: Callable) -> bool:
    parameters = inspect.signature(rule).parameters
    return "apply_state" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _tensor_hyper_to_host(t: torch.Tensor, dtype: torch.dtype) -> float:
    """A tensor hyperparameter read in `dtype` as a Python float (float32 first, as TF's variable)."""
    return float(t.to(torch.float32).to(dtype).to(torch.float64))
