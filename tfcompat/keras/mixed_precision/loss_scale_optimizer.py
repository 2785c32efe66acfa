"""`tf.keras.mixed_precision.LossScaleOptimizer`: loss scaling over an `OptimizerV2`.

As tf_keras 2.21's `LossScaleOptimizer` (the OptimizerV2 wrapper):

* `get_scaled_loss(loss)` is `loss * cast(loss_scale, loss.dtype)`;
  `get_unscaled_gradients(grads)` multiplies each gradient by
  `cast(1 / loss_scale, g.dtype)` (`minimize` does both);
* `apply_gradients` sums the gradients across replicas first (so every replica
  sees the same non-finite values), then, with dynamic scaling, updates the
  scale: a step whose gradients are all finite counts one good step, and the
  `dynamic_growth_steps`-th doubles the scale (if the double is finite) and
  resets the count; a non-finite step halves the scale (not below 1), resets
  the count and skips the inner update. A skipped step still advances
  `iterations` (TF's `do_not_apply_fn`), and touches neither the variables nor
  the slots; it creates no slots or hyperparameter variables either;
* hyperparameters, `learning_rate`/`lr`, `iterations`, weights, slots and
  clipping attributes are the inner optimizer's; for a checkpoint the
  wrapper *is* the inner optimizer (its trackable children and slots), plus
  `loss_scale/current_loss_scale` and `loss_scale/good_steps` (and the empty
  `base_optimizer` node tf_keras keeps for TF 2.2 checkpoints).

The scale update runs on the device; deciding whether to run the inner update
reads one boolean on the host per step (as `torch.cuda.amp.GradScaler` does for
optimizers without a fused `found_inf` argument): masking the update on the device
would need a copy of every variable and slot each step to give TF's exact values.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

import torch

from ...distribute import distribute_lib
from ...framework import dtypes
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor_conversion import convert_to_tensor
from ...train.trackable import Trackable
from ...variables import Variable, VariableAggregation, VariableSynchronization
from ..optimizers import optimizer_v2, step_plan
from ..saving.serialization import keras_export

__all__ = ["LossScaleOptimizer", "BaseLossScaleOptimizer"]

_log = logging.getLogger("tensorflow")

_DEFAULT_INITIAL_SCALE = 2**15
_DEFAULT_GROWTH_STEPS = 2000

_EXAMPLE = """
    with tf.GradientTape() as tape:
      loss = loss_fn()
      scaled_loss = opt.get_scaled_loss(loss)
    scaled_grads = tape.gradient(scaled_loss, vars)
    grads = opt.get_unscaled_gradients(scaled_grads)
    opt.apply_gradients([(grads, var)])"""
_GUIDE = "https://www.tensorflow.org/api_docs/python/tf/tf_keras/mixed_precision/LossScaleOptimizer"


def _warn_about_scaling(loss_scaled: bool, grads_unscaled: bool) -> None:
    """tf_keras's warning when `apply_gradients` runs without the scaling calls."""
    if loss_scaled and grads_unscaled:
        return
    if not loss_scaled and not grads_unscaled:
        what = ("You forgot to call LossScaleOptimizer.get_scaled_loss() and "
                "LossScaleOptimizer.get_unscaled_gradients() before calling "
                "LossScaleOptimizer.apply_gradients(). This will likely result in worse model "
                "quality, so please call them in the correct places! ")
    elif not loss_scaled:
        what = ("You forgot to call LossScaleOptimizer.get_scaled_loss() before calling "
                "LossScaleOptimizer.apply_gradients() (you did call get_unscaled_gradients() "
                "however). This will likely result in worse model quality, so please call "
                "get_scaled_loss() in the correct place! ")
    else:
        what = ("You forgot to call LossScaleOptimizer.get_unscaled_gradients() before calling "
                "LossScaleOptimizer.apply_gradients() (you did call get_scaled_loss() however). "
                "This will likely result in worse model quality, so please call "
                "get_unscaled_gradients() in the correct place! ")
    _log.warning(f"{what}For example:{_EXAMPLE}\nFor more information, see {_GUIDE}")


def _all_finite(grads: list) -> torch.Tensor:
    """A 0-d bool tensor (on the first gradient's device): every gradient value is finite.

    Each gradient's min and max (one `aminmax` pass, no temporaries of its size: NaN
    propagates into both, an infinity shows in one) are finite exactly when all its values
    are; `isfinite(g).all()` is the same answer at many times the cost.
    """
    ends = []
    for g in grads:
        if g is None:
            continue
        values = g.values if isinstance(g, IndexedSlices) else g
        values = convert_to_tensor(values)
        if values.numel() == 0:  # (a static shape: nothing is read)
            continue
        low, high = torch.aminmax(values)
        ends += (low, high)
    if not ends:
        return torch.ones((), dtype=torch.bool)
    device = ends[0].device
    if any(e.device != device for e in ends):
        ends = [e.to(device) for e in ends]
    if len({e.dtype for e in ends}) > 1:
        ends = [e.to(torch.float64) for e in ends]
    return torch.isfinite(torch.stack(ends)).all()


def _host_cast(value: float, dtype: torch.dtype) -> float:
    """`value` rounded to float32, then to `dtype`, as a Python float."""
    return float(torch.tensor(value, dtype=torch.float32).to(dtype).to(torch.float64))


def _cast_scale(scale: Any, t: torch.Tensor) -> Any:
    if isinstance(scale, float):
        return _host_cast(scale, t.dtype)
    return scale.to(device=t.device, dtype=t.dtype)


def _multiply_gradient(gradient: Any, scale: Any) -> Any:
    """A (possibly sparse) gradient times `scale` (a float32 tensor, or a host float already in
    float32) cast to the gradient's dtype (TF's `_multiply_gradient`)."""
    if isinstance(gradient, IndexedSlices):
        values = convert_to_tensor(gradient.values)
        return IndexedSlices(values * _cast_scale(scale, values), gradient.indices,
                             dense_shape=gradient.dense_shape)
    gradient = convert_to_tensor(gradient)
    return gradient * _cast_scale(scale, gradient)


class _DynamicLossScaleState(Trackable):
    """The dynamic loss scale's state: `current_loss_scale` (float32), `good_steps` (int64).

    Both are non-trainable variables with aggregation NONE (TF's), tracked by
    those names (a checkpoint's `loss_scale/<name>` restores into them on creation).
    """

    def __init__(self, initial_loss_scale: Any, growth_steps: Any, multiplier: float) -> None:
        self._initial_loss_scale = float(initial_loss_scale)
        self._growth_steps = int(growth_steps)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight("current_loss_scale", self._initial_loss_scale,
                                                    dtypes.float32)
        # The count of consecutive finite steps since the scale last changed or a step was
        # skipped ("good_steps" for older checkpoints, as TF).
        self._counter = self._add_weight("good_steps", 0, dtypes.int64)

    def _add_weight(self, name: str, initial_value: Any, dtype: Any) -> Variable:
        def getter(name: str, shape: Any, dtype: Any, initializer: Any, **kwargs: Any) -> Variable:
            return Variable(initial_value=initializer, name=name, dtype=dtype, trainable=False,
                            synchronization=VariableSynchronization.AUTO,
                            aggregation=VariableAggregation.NONE)
        return self._add_variable_with_custom_getter(name, shape=(), dtype=dtype,
                                                     initializer=initial_value, getter=getter)

    initial_loss_scale = property(lambda self: self._initial_loss_scale)
    growth_steps = property(lambda self: self._growth_steps)
    multiplier = property(lambda self: self._multiplier)
    current_loss_scale = property(lambda self: self._current_loss_scale,
                                  doc="The current loss scale (a float32 variable).")
    counter = property(lambda self: self._counter,
                       doc="The count of good steps since the scale last changed (int64).")

    def __call__(self) -> torch.Tensor:
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads: list) -> torch.Tensor:
        """Update the scale and counter from all-reduced `grads`; returns `is_finite` (0-d bool,
        on the device: nothing here reads a value on the host).

        TF's branches, as selects: finite and `counter + 1 >= growth_steps`: the scale times
        the multiplier where that is finite, counter 0; finite otherwise: counter + 1;
        not finite: `max(scale / multiplier, 1)`, counter 0.
        """
        scale_var, counter_var = self._current_loss_scale, self._counter
        scale = convert_to_tensor(scale_var)
        counter = convert_to_tensor(counter_var)
        is_finite = _all_finite(grads).to(scale.device)
        # (Python scalars, not tensors built on the host: nothing is copied to the device)
        next_count = counter + 1
        grow = torch.logical_and(is_finite, next_count >= self._growth_steps)
        grown = scale * self._multiplier
        shrunk = torch.clamp_min(scale / self._multiplier, 1.0)
        new_scale = torch.where(is_finite, torch.where(torch.logical_and(grow, torch.isfinite(grown)),
                                                       grown, scale), shrunk)
        new_count = torch.where(torch.logical_and(is_finite, torch.logical_not(grow)), next_count,
                                torch.zeros_like(next_count))
        scale_var.assign(new_scale, read_value=False)
        counter_var.assign(new_count, read_value=False)
        return is_finite


def _strategy_supports_loss_scaling() -> bool:
    """As TF: one replica, or variables mirrored per replica (the mirrored strategies)."""
    if not distribute_lib.has_strategy():
        return True
    strategy = distribute_lib.get_strategy()
    from ...distribute import mirrored_strategy, multi_worker_mirrored_strategy, one_device_strategy
    supported = tuple(getattr(module, name) for module, name in (
        (mirrored_strategy, "MirroredStrategy"), (one_device_strategy, "OneDeviceStrategy"),
        (multi_worker_mirrored_strategy, "MultiWorkerMirroredStrategy")) if hasattr(module, name))
    return isinstance(strategy, supported)


def _raise_if_strategy_unsupported() -> None:
    if not _strategy_supports_loss_scaling():
        strategy = distribute_lib.get_strategy()
        raise ValueError("Loss scaling is not supported with the tf.distribute.Strategy: "
                         f"{type(strategy).__name__}. Try using a different Strategy, e.g. a "
                         "MirroredStrategy")


class _FakeOptimizerForRestoration(Trackable):
    """The `base_optimizer` node tf_keras keeps so TF 2.2 checkpoints (which tracked the inner
    optimizer under that name) restore their slots; it has no values of its own."""

    def __init__(self, optimizer: Any) -> None:
        self._optimizer = optimizer

    def get_slot_names(self) -> list:
        return self._optimizer.get_slot_names()

    def _create_or_restore_slot_variable(self, slot_variable_position: Any, slot_name: str,
                                         variable: Any, slot_variable_shape: Any = None) -> Any:
        return self._optimizer._create_or_restore_slot_variable(slot_variable_position, slot_name,
                                                                variable)


class _LossScaleOptimizerMeta(type):
    """`LossScaleOptimizer(x)` checks `x` is an optimizer before anything else, with the message
    tf_keras's dispatching metaclass gives (it picks the V2 or V3 wrapper by `x`'s type)."""

    def __call__(cls, inner_optimizer: Any = None, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(inner_optimizer, optimizer_v2.OptimizerV2):
            raise TypeError(
                '"inner_optimizer" must be an instance of `tf.keras.optimizers.Optimizer` or '
                f"`tf.keras.optimizers.experimental.Optimizer`, but got: {inner_optimizer}.")
        return super().__call__(inner_optimizer, *args, **kwargs)


# Trackable hooks a checkpoint walk calls: all answered by the inner optimizer (TF's
# DelegatingTrackableMixin), so the wrapper saves and restores as the optimizer it wraps.
_DELEGATED_TRACKABLE = ("_maybe_initialize_trackable", "_trackable_children", "_lookup_dependency",
                        "_track_trackable", "_untrack", "_handle_deferred_dependencies",
                        "_serialize_to_tensors", "_restore_from_tensors",
                        "_add_variable_with_custom_getter")


@keras_export("keras.mixed_precision.LossScaleOptimizer")
class LossScaleOptimizer(optimizer_v2.OptimizerV2, metaclass=_LossScaleOptimizerMeta):
    """An optimizer that scales the loss to keep float16 gradients from underflowing.

    `LossScaleOptimizer(inner_optimizer, dynamic=True, initial_scale=None,
    dynamic_growth_steps=None)`: with `dynamic`, the scale starts at
    `initial_scale` (default 2**15) and doubles every `dynamic_growth_steps`
    (default 2000) consecutive finite steps, halving on a non-finite one
    (which is skipped); otherwise `initial_scale` is the fixed scale.
    """

    _HAS_AGGREGATE_GRAD = True

    def __init__(self, inner_optimizer: optimizer_v2.OptimizerV2, dynamic: bool = True,
                 initial_scale: Any = None, dynamic_growth_steps: Any = None) -> None:
        if not isinstance(dynamic, bool):
            # (a string or float here was the removed LossScaleOptimizerV1's `loss_scale`)
            raise TypeError('"dynamic" argument to LossScaleOptimizer.__init__ must be a bool, '
                            f"but got: {dynamic!r}")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError("LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: "
                            f"{inner_optimizer}")
        _raise_if_strategy_unsupported()
        if getattr(inner_optimizer, "_is_wrapped_by_loss_scale_optimizer", False):
            raise ValueError('"inner_optimizer" is already wrapped by a LossScaleOptimizer. An '
                             "optimizer can only be wrapped by a single LossScaleOptimizer")
        if dynamic:
            initial_scale = _DEFAULT_INITIAL_SCALE if initial_scale is None else initial_scale
            if dynamic_growth_steps is None:
                dynamic_growth_steps = _DEFAULT_GROWTH_STEPS
            loss_scale: Any = _DynamicLossScaleState(initial_scale, dynamic_growth_steps,
                                                     multiplier=2)
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            loss_scale = float(initial_scale)
            if dynamic_growth_steps is not None:
                raise ValueError('"dynamic_growth_steps" must be None if "dynamic" is False, but '
                                 f"got: {dynamic_growth_steps}")
        # Everything is validated: only now is the inner optimizer marked (a failed wrap
        # leaves it wrappable).
        object.__setattr__(self, "_optimizer", inner_optimizer)
        inner_optimizer._is_wrapped_by_loss_scale_optimizer = True
        object.__setattr__(self, "_loss_scale", loss_scale)
        if dynamic:
            self._track_trackable(loss_scale, "loss_scale")
        object.__setattr__(self, "_loss_has_been_scaled", False)
        object.__setattr__(self, "_gradients_have_been_unscaled", False)
        self._track_trackable(_FakeOptimizerForRestoration(inner_optimizer), "base_optimizer")

    # -- the loss scale -------------------------------------------------------------------
    @property
    def dynamic(self) -> bool:
        """Whether the loss scale is dynamic."""
        return isinstance(self._loss_scale, _DynamicLossScaleState)

    @property
    def loss_scale(self) -> torch.Tensor:
        """The current loss scale, a float32 0-d tensor."""
        if self.dynamic:
            return convert_to_tensor(self._loss_scale.current_loss_scale)
        return convert_to_tensor(self._loss_scale, dtype=dtypes.float32)

    @property
    def dynamic_counter(self) -> Optional[Variable]:
        """The good-step counter (an int64 variable), or None for a fixed scale."""
        return self._loss_scale.counter if self.dynamic else None

    @property
    def initial_scale(self) -> float:
        return self._loss_scale.initial_loss_scale if self.dynamic else self._loss_scale

    @property
    def dynamic_growth_steps(self) -> Optional[int]:
        return self._loss_scale.growth_steps if self.dynamic else None

    @property
    def inner_optimizer(self) -> optimizer_v2.OptimizerV2:
        return self._optimizer

    def get_scaled_loss(self, loss: Any) -> Any:
        """`loss * cast(loss_scale, loss.dtype)`; a callable gives a callable."""
        object.__setattr__(self, "_loss_has_been_scaled", True)
        if callable(loss):
            def new_loss() -> Any:
                return self._scale(convert_to_tensor(loss()))
            return new_loss
        return self._scale(convert_to_tensor(loss))

    def _scale(self, loss: torch.Tensor) -> torch.Tensor:
        if self.dynamic:
            return loss * self.loss_scale.to(device=loss.device, dtype=loss.dtype)
        # A fixed scale multiplies as a host scalar already rounded to float32, then to the
        # loss's dtype (TF's `cast(loss_scale, loss.dtype)`): no tensor is built per step.
        return loss * _host_cast(self._loss_scale, loss.dtype)

    def get_unscaled_gradients(self, grads: Any) -> list:
        """Each gradient times `cast(1 / loss_scale, g.dtype)` (None stays None)."""
        object.__setattr__(self, "_gradients_have_been_unscaled", True)
        if self.dynamic:
            reciprocal: Any = 1.0 / self.loss_scale
        else:  # (1 / scale in float32, as TF's tensor division)
            reciprocal = _host_cast(1.0 / _host_cast(self._loss_scale, torch.float32), torch.float32)
        return [None if g is None else _multiply_gradient(g, reciprocal) for g in grads]

    # -- gradients and the step ---------------------------------------------------------------
    def _compute_gradients(self, loss: Any, var_list: Any, grad_loss: Any = None,
                           tape: Any = None) -> list:
        from ...autodiff.tape import GradientTape
        tape = GradientTape() if tape is None else tape
        with tape:
            loss = self.get_scaled_loss(loss)
        grads_and_vars = self._optimizer._compute_gradients(loss, var_list, grad_loss, tape=tape)
        grads = [g for g, _ in grads_and_vars]
        weights = [v for _, v in grads_and_vars]
        return list(zip(self.get_unscaled_gradients(grads), weights))

    def _create_all_weights(self, var_list: list) -> None:
        self._optimizer._create_all_weights(var_list)

    def apply_gradients(self, grads_and_vars: Any, name: Optional[str] = None,
                        experimental_aggregate_gradients: bool = True) -> None:
        """Sum the gradients across replicas, update the loss scale, and apply them to the inner
        optimizer unless one is non-finite (then only `iterations` advances). Returns None."""
        if distribute_lib.in_cross_replica_context():
            raise ValueError("apply_gradients() must be called in a replica context.")
        _raise_if_strategy_unsupported()
        _warn_about_scaling(self._loss_has_been_scaled, self._gradients_have_been_unscaled)
        grads, variables = step_plan.split_grads(grads_and_vars)
        grads_and_vars = list(zip(grads, variables))
        if experimental_aggregate_gradients:
            # Summed here, not in the inner apply: a non-finite value on any replica must
            # reach every replica, so that they all skip the step together.
            grads_and_vars = self._optimizer._transform_unaggregated_gradients(grads_and_vars)
            grads_and_vars = self._optimizer._aggregate_gradients(grads_and_vars)
        grads = [g for g, _ in grads_and_vars]
        variables = [v for _, v in grads_and_vars]
        ctx = distribute_lib.get_replica_context()
        if ctx is None or ctx.num_replicas_in_sync == 1 or getattr(ctx, "_is_default", False):
            if self._should_apply(grads):
                self._apply_inner(grads, variables, name)
            else:
                self._optimizer.iterations.assign_add(1, read_value=False)
            return None
        ctx.merge_call(self._apply_cross_replica, args=(grads, variables, name))
        return None

    def _should_apply(self, grads: list) -> bool:
        """Update the scale; whether to run the inner update (the one host read of the step)."""
        if not self.dynamic:
            return True
        return bool(self._loss_scale.update(grads))

    def _apply_inner(self, grads: list, variables: list, name: Optional[str]) -> Any:
        return self._optimizer.apply_gradients(list(zip(grads, variables)), name=name,
                                               experimental_aggregate_gradients=False)

    def _apply_cross_replica(self, distribution: Any, grads: list, variables: list,
                             name: Optional[str]) -> None:
        # The gradients are all-reduced: every replica holds the same values, so the first
        # replica's decide for all (as TF).
        first = [None if g is None else distribution.experimental_local_results(g)[0] for g in grads]
        if self._should_apply(first):
            distribution.extended._call_for_each_replica(self._apply_inner,
                                                         (grads, variables, name), {})
        else:
            self._optimizer.iterations.assign_add(1, read_value=False)

    # -- config ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        from .. import optimizers
        return {"inner_optimizer": optimizers.serialize(self._optimizer), "dynamic": self.dynamic,
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "LossScaleOptimizer":
        from .. import optimizers
        config = dict(config)
        if "loss_scale" in config:
            # A TF <= 2.3 config: `optimizer` and a v1 FixedLossScale / DynamicLossScale.
            config.update(_from_v1_loss_scale(config.pop("loss_scale")))
            config["inner_optimizer"] = config.pop("optimizer")
        inner = config.pop("inner_optimizer")
        if not isinstance(inner, optimizer_v2.OptimizerV2):
            inner = optimizers.deserialize(inner, custom_objects=custom_objects,
                                           use_legacy_optimizer=True)
        return cls(inner, **config)

    # -- delegation to the inner optimizer ------------------------------------------------------
    @property
    def iterations(self) -> Variable:
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, variable: Variable) -> None:
        self._optimizer.iterations = variable

    def get_slot_names(self) -> list:
        return self._optimizer.get_slot_names()

    def variables(self) -> list:
        return self._optimizer.variables()

    @property
    def weights(self) -> list:
        return self._optimizer.weights

    def get_weights(self) -> list:
        return self._optimizer.get_weights()

    def set_weights(self, weights: list) -> None:
        return self._optimizer.set_weights(weights)

    clipnorm = property(lambda self: self._optimizer.clipnorm,
                        lambda self, v: setattr(self._optimizer, "clipnorm", v))
    global_clipnorm = property(lambda self: self._optimizer.global_clipnorm,
                               lambda self, v: setattr(self._optimizer, "global_clipnorm", v))
    clipvalue = property(lambda self: self._optimizer.clipvalue,
                         lambda self, v: setattr(self._optimizer, "clipvalue", v))

    def _aggregate_gradients(self, grads_and_vars: list) -> list:
        return self._optimizer._aggregate_gradients(grads_and_vars)

    def _restore_slot_variable(self, slot_name: str, variable: Any, slot_variable: Any) -> None:
        return self._optimizer._restore_slot_variable(slot_name, variable, slot_variable)

    def _create_or_restore_slot_variable(self, slot_variable_position: Any, slot_name: str,
                                         variable: Any, slot_variable_shape: Any = None) -> Any:
        return self._optimizer._create_or_restore_slot_variable(slot_variable_position, slot_name,
                                                                variable)

    def get_slot(self, var: Any, slot_name: str) -> Variable:
        return self._optimizer.get_slot(var, slot_name)

    def add_slot(self, var: Any, slot_name: str, initializer: Any = "zeros") -> Variable:
        return self._optimizer.add_slot(var, slot_name, initializer)

    @property
    def _deferred_dependencies(self) -> dict:
        return self._optimizer._deferred_dependencies

    @property
    def _checkpoint_dependencies(self) -> list:
        return self._optimizer._checkpoint_dependencies

    @property
    def _unconditional_checkpoint_dependencies(self) -> list:
        return self._optimizer._unconditional_checkpoint_dependencies

    @property
    def _update_uid(self) -> int:
        return self._optimizer._update_uid

    @_update_uid.setter
    def _update_uid(self, value: int) -> None:
        self._optimizer._update_uid = value

    @property
    def learning_rate(self) -> Any:
        return self._optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._optimizer.learning_rate = value

    @property
    def lr(self) -> Any:
        return self._optimizer.learning_rate

    @lr.setter
    def lr(self, value: Any) -> None:
        self._optimizer.lr = value

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: the inner optimizer's hyperparameters.
        if name in ("_optimizer", "_hyper") or "_optimizer" not in self.__dict__:
            raise AttributeError(name)
        key = "learning_rate" if name == "lr" else name
        if key in self._optimizer._hyper:
            return self._optimizer._get_hyper(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        inner = self.__dict__.get("_optimizer")
        if inner is not None and name in inner._hyper and not _has_own_attribute(self, name):
            inner._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    def __dir__(self) -> list:
        result = set(object.__dir__(self)) | set(self._optimizer._hyper)
        if "learning_rate" in self._optimizer._hyper:
            result.add("lr")
        return sorted(result)

    __repr__ = object.__repr__


for _name in _DELEGATED_TRACKABLE:
    setattr(LossScaleOptimizer, _name,
            (lambda n: lambda self, *a, **k: getattr(self._optimizer, n)(*a, **k))(_name))
del _name

#: tf_keras exports the dispatching base class under this name; here there is one wrapper.
BaseLossScaleOptimizer = LossScaleOptimizer


def _has_own_attribute(obj: Any, name: str) -> bool:
    """Whether `name` resolves on `obj` without the hyperparameter fallback (TF's check)."""
    if name == "iterations":
        return True
    try:
        object.__getattribute__(obj, name)
        return True
    except AttributeError:
        return False


def _from_v1_loss_scale(config: Any) -> dict:
    """LossScaleOptimizer arguments from a serialized v1 `FixedLossScale` / `DynamicLossScale`."""
    class_name = config.get("class_name") if isinstance(config, dict) else None
    inner = dict(config.get("config", {})) if class_name else {}
    if class_name == "FixedLossScale":
        return {"dynamic": False, "initial_scale": inner["loss_scale_value"]}
    if class_name == "DynamicLossScale":
        if inner.get("multiplier", 2.0) != 2:
            raise ValueError("Cannot deserialize LossScaleOptimizer with a DynamicLossScale whose "
                             f"multiplier is not 2. Got DynamicLossScale: {config}")
        return {"dynamic": True, "initial_scale": inner.get("initial_loss_scale", 2**15),
                "dynamic_growth_steps": inner.get("increment_period", 2000)}
    raise ValueError("Serialized LossScaleOptimizers with a LossScale that is neither a "
                     "FixedLossScale nor a DynamicLossScale can no longer be deserialized")
