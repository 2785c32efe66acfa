"""`tf.keras.layers.Layer`: tf_keras 2.x's layer contract on tfcompat.

A Layer is a `tf.Module` (so checkpoints track it) that:

* creates its weights with `add_weight` — through `tf.Variable`, so the variable creator stack
  (a strategy's scope, `variable_creator_scope`) decides what they are — typically in
  `build(input_shape)`, which `__call__` runs once, on the first call, with a `TensorShape`;
* runs `call(inputs, *args, training=None, mask=None)` inside `tf.name_scope(layer.name)`, so
  weights built there are named `dense/kernel:0` (and `model/dense/kernel:0` under a model);
* casts floating inputs to its compute dtype (its dtype policy's), checks `input_spec` with
  tf_keras's error texts before building or calling, and propagates `training` and masks
  (`_keras_mask` on the tensors, as tf_keras sets it on eager tensors) to nested layers;
* collects `losses` (weight regularizers as callables, activity regularizers and
  `add_loss` tensors per call: cleared when the outermost layer call starts);
* orders `weights` as tf_keras: own trainable weights, then nested layers' in the order they
  were assigned, then the non-trainable ones; `trainable = False` freezes nested layers too.

Calling a layer on `KerasTensor`s (the functional API) builds it from their shapes and
returns KerasTensors, recording the call (`engine/symbolic.py`).
"""

from __future__ import annotations

import collections.abc
import inspect
import threading
import weakref
from typing import Any, Callable, Dict, Iterator, List, Optional

import numpy as np
import torch

from ...framework import dtypes
from ...framework import errors
from ...framework import nest
from ...framework import variable_protocol as protocol
from ...framework.name_scope import name_scope as name_scope_cls
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_shape import TensorShape
from ...ops import binary_math_ops, math_ops
from ...train.module import Module
from ...train.data_structures import sticky_attribute_assignment
from ...variables.enums import VariableAggregation, VariableSynchronization
from .. import backend
from ..mixed_precision import autocast_variable
from ..mixed_precision import policy as policy_lib
from . import base_layer_utils as utils
from .input_spec import InputSpec, assert_input_compatibility
from .keras_tensor import KerasTensor

__all__ = ["Layer"]

_ALLOWED_INIT_KWARGS = frozenset({
    "input_dim", "input_shape", "batch_input_shape", "batch_size", "weights",
    "activity_regularizer", "autocast", "implementation",
})
_ADD_WEIGHT_KWARGS = frozenset({
    "autocast", "collections", "experimental_autocast", "caching_device", "getter", "layout",
    "experimental_enable_variable_lifting",
})
# Inputs of these types are converted to tensors before `call`, as tf_keras does.
_CONVERTED_INPUT_TYPES = (np.ndarray, np.generic, float, int)
_call_specs: Dict[type, utils.CallSpec] = {}
_call_specs_lock = threading.Lock()


def _to_shapes(shape: Any) -> Any:
    """A build config's shape (a list of dims, or nested lists of them) as TensorShape(s)."""
    if isinstance(shape, dict):
        return {k: _to_shapes(v) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and all(
            isinstance(d, (list, tuple, dict)) or d is None for d in shape) and any(
            isinstance(d, (list, tuple, dict)) for d in shape):
        return [_to_shapes(d) for d in shape]
    return TensorShape(shape)


class _LossHolders(threading.local):
    """Per thread, the layers whose last call added losses (`add_loss` in `call`, activity
    regularizers): a top-level call clears nested layers' call losses, and walks the layer
    tree to do so only while some layer of this thread holds any."""

    def __init__(self) -> None:
        self.layers: "weakref.WeakSet[Layer]" = weakref.WeakSet()


_loss_holders = _LossHolders()


class _Held:
    """Whether any layer of the process was ever given a loss (`add_loss`, which regularizers
    and activity regularizers call) or a metric attribute. Until one was, every layer's
    `losses` and `metrics` are empty, and are returned so without walking the layer tree
    (what each training step asks for)."""
    losses = False
    metrics = False


held = _Held()


class _LossList(list):
    """A layer's `_losses` / `_callable_losses`: a list that raises `held.losses` whenever it
    gains an entry, however it is added (tf_keras code appends to these directly too)."""

    _flag = "losses"

    def _gain(self) -> None:
        setattr(held, self._flag, True)

    def append(self, item: Any) -> None:
        self._gain()
        super().append(item)

    def extend(self, items: Any) -> None:
        self._gain()
        super().extend(items)

    def insert(self, index: Any, item: Any) -> None:
        self._gain()
        super().insert(index, item)

    def __setitem__(self, index: Any, item: Any) -> None:
        self._gain()
        super().__setitem__(index, item)

    def __iadd__(self, items: Any) -> "_LossList":
        self._gain()
        return super().__iadd__(items)


class _MetricList(_LossList):
    """A layer's `_metrics`: raises `held.metrics` as `_LossList` raises `held.losses`."""

    _flag = "metrics"


def _set(obj: Any, name: str, value: Any) -> None:
    """Set an internal attribute without checkpoint tracking (tf_keras's
    `no_automatic_dependency_tracking` for its bookkeeping)."""
    object.__setattr__(obj, name, value)


class Layer(Module):
    """The base class of Keras layers (tf_keras 2.x `Layer`)."""

    # tf_keras's `_TF_MODULE_IGNORED_PROPERTIES`: bookkeeping that `tf.Module`'s walk skips
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(Module._TF_MODULE_IGNORED_PROPERTIES | {
        "_obj_reference_counts_dict", "_inbound_nodes_value", "_outbound_nodes_value",
        "_self_tracked_trackables", "_trainable_weights", "_non_trainable_weights",
        "_thread_local", "_callable_losses", "_losses", "_metrics", "_auto_config",
        "_initial_weights", "_build_input_shape",
    })

    def __new__(cls, *args: Any, **kwargs: Any) -> "Layer":
        instance = super().__new__(cls)
        # tf_keras's automatic get_config: the constructor's arguments, when all are simple
        try:
            arg_names = list(inspect.signature(cls.__init__).parameters)[1:]
        except (TypeError, ValueError):
            arg_names = []
        captured = dict(zip(arg_names, args))
        captured.update(kwargs)
        simple = (str, int, float, bool, type(None))
        try:
            auto = all(isinstance(v, simple) for v in nest.flatten(captured))
        except Exception:  # noqa: BLE001 - unflattenable arguments: no automatic config
            auto = False
        _set(instance, "_auto_get_config", auto)
        _set(instance, "_auto_config", dict(captured) if auto else None)
        return instance

    def __init__(self, trainable: bool = True, name: Optional[str] = None, dtype: Any = None,
                 dynamic: bool = False, **kwargs: Any) -> None:
        utils.validate_kwargs(kwargs, _ALLOWED_INIT_KWARGS)
        if not (isinstance(trainable, bool) or (isinstance(trainable, torch.Tensor)
                                                 and trainable.dtype == torch.bool)):
            raise TypeError(f"Expected `trainable` argument to be a boolean, but got: {trainable}")
        _set(self, "_self_setattr_tracking", True)
        self._maybe_initialize_trackable()
        _set(self, "_trainable", bool(trainable))
        _set(self, "_stateful", False)
        _set(self, "built", False)
        _set(self, "_input_spec", None)
        _set(self, "_build_input_shape", None)
        _set(self, "_called", False)
        _set(self, "_supports_masking", type(self).compute_mask is not Layer.compute_mask)
        self._init_set_name(name)
        from .. import regularizers
        _set(self, "_activity_regularizer", regularizers.get(kwargs.pop("activity_regularizer",
                                                                         None)))
        _init_bookkeeping(self)
        _set(self, "_thread_local", threading.local())
        _set(self, "_callable_losses", _LossList())
        _set(self, "_losses", _LossList())
        _set(self, "_metrics_lock", threading.Lock())
        _set(self, "_inbound_nodes_value", [])
        _set(self, "_outbound_nodes_value", [])
        _set(self, "_dynamic", dynamic)
        self._set_dtype_policy(dtype)
        _set(self, "_autocast", kwargs.get("autocast", True))
        _set(self, "_initial_weights", kwargs.get("weights"))
        if "input_dim" in kwargs and "input_shape" not in kwargs:
            kwargs["input_shape"] = (kwargs["input_dim"],)
        if "input_shape" in kwargs or "batch_input_shape" in kwargs:
            if "batch_input_shape" in kwargs:
                batch_input_shape = tuple(kwargs["batch_input_shape"])
            else:
                batch_input_shape = (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
            _set(self, "_batch_input_shape", batch_input_shape)
        with name_scope_cls(self._name) as scope_name:
            _set(self, "_name_scope", name_scope_cls(scope_name))

    # ------------------------------------------------------------------ naming, dtypes
    def _init_set_name(self, name: Optional[str], zero_based: bool = True) -> None:
        if name is None:
            name = backend.unique_object_name(utils.to_snake_case(type(self).__name__),
                                              zero_based=zero_based)
        elif not isinstance(name, str):
            raise TypeError(f"Expected `name` argument to be a string, but got: {name}")
        else:
            backend.observe_object_name(name)
        _set(self, "_name", name)

    @property
    def name(self) -> str:
        return self._name

    def _set_dtype_policy(self, dtype: Any) -> None:
        policy = policy_lib.get_policy(dtype)
        _set(self, "_dtype_policy", policy)
        compute = policy.compute_dtype
        _set(self, "_compute_dtype_object", dtypes.as_dtype(compute) if compute else None)

    @property
    def dtype(self) -> Optional[str]:
        """The dtype of the layer's weights (the policy's variable dtype)."""
        return self._dtype_policy.variable_dtype

    @property
    def compute_dtype(self) -> Optional[str]:
        return self._dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> Optional[str]:
        return self._dtype_policy.variable_dtype

    @property
    def dtype_policy(self) -> policy_lib.Policy:
        return self._dtype_policy

    @property
    def _compute_dtype(self) -> Optional[str]:
        return self._dtype_policy.compute_dtype

    # ------------------------------------------------------------------ properties
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        for layer in self._flatten_layers():
            _set(layer, "_trainable", bool(value))

    @property
    def dynamic(self) -> bool:
        return any(layer._dynamic for layer in self._flatten_layers())

    @property
    def stateful(self) -> bool:
        return any(layer._stateful for layer in self._flatten_layers())

    @stateful.setter
    def stateful(self, value: bool) -> None:
        _set(self, "_stateful", value)

    @property
    def input_spec(self) -> Any:
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value: Any) -> None:
        for v in nest.flatten(value):
            if v is not None and not isinstance(v, InputSpec):
                raise TypeError(
                    "Layer input_spec must be an instance of InputSpec. Got: {}".format(v))
        _set(self, "_input_spec", value)

    @property
    def supports_masking(self) -> bool:
        return self._supports_masking

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        _set(self, "_supports_masking", value)

    @property
    def activity_regularizer(self) -> Any:
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, regularizer: Any) -> None:
        _set(self, "_activity_regularizer", regularizer)

    @property
    def _inbound_nodes(self) -> list:
        return self._inbound_nodes_value

    @property
    def _outbound_nodes(self) -> list:
        return self._outbound_nodes_value

    # ------------------------------------------------------------------ attribute tracking
    def __setattr__(self, name: str, value: Any) -> None:
        if (name == "_self_setattr_tracking"
                or not self.__dict__.get("_self_setattr_tracking", True)
                or hasattr(type(self), name)):
            try:
                object.__setattr__(self, name, value)
            except AttributeError:
                raise AttributeError(
                    f'Can\'t set the attribute "{name}", likely because it conflicts with an '
                    "existing read-only @property of the object. Please choose a different "
                    "name.") from None
            return
        if "_obj_reference_counts_dict" not in self.__dict__:
            _init_bookkeeping(self)  # attributes set before `super().__init__()`
        if self.__dict__.get(name, _MISSING) is value:
            return
        value = sticky_attribute_assignment(self, name, value)
        counts = self._obj_reference_counts_dict
        counts[id(value)] = counts.get(id(value), 0) + 1
        if name in self.__dict__:
            self._release_attribute(name)
        for leaf in _trackable_leaves(value):
            if _is_metric(leaf):
                self._metrics.append(leaf)
        if isinstance(value, Module) or utils.has_weights(value) or _is_container(value):
            if not any(t is value for t in self._self_tracked_trackables):
                self._self_tracked_trackables.append(value)
        self._track_variables(value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._release_attribute(name)
        super().__delattr__(name)

    def _release_attribute(self, name: str) -> None:
        """Forget what attribute `name` held, unless another attribute holds it too."""
        existing = self.__dict__.get(name, _MISSING)
        if existing is _MISSING:
            return
        counts = self._obj_reference_counts_dict
        count = counts.get(id(existing), 0)
        if count > 1:
            counts[id(existing)] = count - 1
            return
        counts.pop(id(existing), None)
        _set(self, "_self_tracked_trackables",
             [t for t in self._self_tracked_trackables if t is not existing])
        if protocol.is_variable(existing):
            _set(self, "_trainable_weights",
                 [w for w in self._trainable_weights if w is not existing])
            _set(self, "_non_trainable_weights",
                 [w for w in self._non_trainable_weights if w is not existing])

    def _track_variables(self, value: Any) -> None:
        for leaf in _trackable_leaves(value):
            if protocol.is_variable(leaf):
                self._track_variable(leaf)

    def _track_variable(self, variable: Any) -> None:
        weights = self._trainable_weights if variable.trainable else self._non_trainable_weights
        if not any(variable is w for w in weights):
            weights.append(variable)

    def _flatten_modules(self, recursive: bool = True, include_self: bool = True,
                         include_metrics: bool = False) -> Iterator[Any]:
        """This layer (if `include_self`) then nested modules, depth first in assignment
        order (lists and dicts held by attributes expanded), each once; metrics held as
        attributes only with `include_metrics` (a `Model`'s weights list them, a layer's
        do not: tf_keras's split)."""
        if include_self:
            yield self
        trackables = self.__dict__.get("_self_tracked_trackables")
        if not trackables:
            return
        seen = set()
        queue = collections.deque(trackables)
        while queue:
            obj = queue.popleft()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, Module) and (include_metrics or not _is_metric(obj)):
                yield obj
                if recursive:
                    sub = obj.__dict__.get("_self_tracked_trackables")
                    if sub:
                        queue.extendleft(reversed(sub))
            elif _is_container(obj):
                queue.extendleft(reversed(_container_values(obj)))

    def _flatten_layers(self, recursive: bool = True, include_self: bool = True
                        ) -> Iterator["Layer"]:
        for module in self._flatten_modules(recursive=recursive, include_self=include_self):
            if isinstance(module, Layer):
                yield module

    def _gather_children_attribute(self, attribute: str, include_metrics: bool = False) -> list:
        trackables = self.__dict__.get("_self_tracked_trackables")
        if not trackables:
            return []
        out: list = []
        seen: set = set()
        for obj in trackables:
            if isinstance(obj, Module):
                if id(obj) not in seen and (include_metrics or not _is_metric(obj)):
                    seen.add(id(obj))
                    out.extend(getattr(obj, attribute))
            elif isinstance(obj, _CONTAINER_TYPES) and not protocol.is_variable(obj):
                break  # (lists and dicts held by attributes: the general walk below)
        else:
            return out  # (direct children in assignment order, each once: the walk's order)
        out = []
        for child in self._flatten_modules(include_self=False, recursive=False,
                                           include_metrics=include_metrics):
            out.extend(getattr(child, attribute))
        return out

    @staticmethod
    def _dedup_weights(weights: list) -> list:
        seen = set()
        out = []
        for w in weights:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    # ------------------------------------------------------------------ weights
    def _update_trackables(self) -> None:
        """Track variables appended to lists and dicts after they were assigned."""
        for obj in self._self_tracked_trackables:
            if _is_container(obj):
                self._track_variables(obj)

    _WEIGHTS_INCLUDE_METRICS = False  # (a `Model` lists its attribute metrics' state)

    @property
    def trainable_weights(self) -> list:
        self._update_trackables()
        if not self.trainable:
            return []
        children = self._gather_children_attribute("trainable_variables",
                                                   self._WEIGHTS_INCLUDE_METRICS)
        return self._dedup_weights(self._trainable_weights + children)

    @property
    def non_trainable_weights(self) -> list:
        self._update_trackables()
        if self.trainable:
            children = self._gather_children_attribute("non_trainable_variables",
                                                       self._WEIGHTS_INCLUDE_METRICS)
            weights = self._non_trainable_weights + children
        else:
            children = self._gather_children_attribute("variables",
                                                       self._WEIGHTS_INCLUDE_METRICS)
            weights = self._trainable_weights + self._non_trainable_weights + children
        return self._dedup_weights(weights)

    @property
    def weights(self) -> list:
        """Trainable weights, then non-trainable ones (tf_keras's order)."""
        return self.trainable_weights + self.non_trainable_weights

    @property
    def variables(self) -> list:  # type: ignore[override]
        return self.weights

    @property
    def trainable_variables(self) -> list:  # type: ignore[override]
        return self.trainable_weights

    @property
    def non_trainable_variables(self) -> list:  # type: ignore[override]
        return self.non_trainable_weights

    def add_weight(self, name: Optional[str] = None, shape: Any = None, dtype: Any = None,
                   initializer: Any = None, regularizer: Any = None,
                   trainable: Optional[bool] = None, constraint: Any = None,
                   use_resource: Any = None,
                   synchronization: Any = VariableSynchronization.AUTO,
                   aggregation: Any = VariableAggregation.NONE, **kwargs: Any) -> Any:
        """Create a weight variable, track it, and register its regularizer (tf_keras's).

        `dtype` defaults to the layer's variable dtype; `initializer` to `glorot_uniform`
        (floats) or `zeros` (ints, bools); `synchronization=ON_READ` makes it non-trainable.
        The variable goes through `tf.Variable`, so the creator stack (a strategy's scope)
        decides its kind.
        """
        from .. import constraints as constraints_lib
        from .. import initializers as initializers_lib
        from .. import regularizers as regularizers_lib
        if shape is None:
            shape = ()
        kwargs.pop("partitioner", None)
        for kwarg in kwargs:
            if kwarg not in _ADD_WEIGHT_KWARGS:
                raise TypeError("Unknown keyword argument:", kwarg)
        autocast = kwargs.pop("autocast", None)
        if autocast is None:
            autocast = kwargs.pop("experimental_autocast", None)
            if autocast is None:
                autocast = True
        kwargs.pop("collections", None)
        kwargs.pop("layout", None)
        kwargs.pop("experimental_enable_variable_lifting", None)
        caching_device = kwargs.pop("caching_device", None)
        if dtype is None:
            dtype = self.dtype or backend.floatx()
        dtype = dtypes.as_dtype(dtype)
        if self._dtype_policy.variable_dtype is None:
            self._set_dtype_policy(policy_lib.Policy(dtype.name))
        initializer = initializers_lib.get(initializer)
        regularizer = regularizers_lib.get(regularizer)
        constraint = constraints_lib.get(constraint)
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        if initializer is None:
            if dtype.is_floating:
                initializer = initializers_lib.get("glorot_uniform")
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
                initializer = initializers_lib.get("zeros")
            elif "getter" not in kwargs:
                raise ValueError(
                    f"An initializer for variable {name} of type {dtype!r} is required for "
                    f"layer {self.name}. Received: {initializer}.")
        getter = kwargs.pop("getter", utils.make_variable)
        if (autocast and self._dtype_policy.compute_dtype != self._dtype_policy.variable_dtype
                and dtype.is_floating):
            inner_getter = getter

            def getter(*args: Any, **getter_kwargs: Any) -> Any:
                variable = inner_getter(*args, **getter_kwargs)
                return autocast_variable.create_autocast_variable(variable)

        variable = self._add_variable_with_custom_getter(
            name=name, shape=shape, getter=getter, overwrite=True, initializer=initializer,
            dtype=dtype, constraint=constraint, trainable=trainable,
            use_resource=use_resource, synchronization=synchronization,
            aggregation=aggregation, caching_device=caching_device)
        if regularizer is not None:
            full_name = variable.name
            name_in_scope = full_name[:full_name.find(":")] if ":" in full_name else full_name
            self._handle_weight_regularization(name_in_scope, variable, regularizer)
        if trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    def _handle_weight_regularization(self, name: str, variable: Any, regularizer: Any) -> None:
        def loss_for_variable() -> Any:
            with name_scope_cls(name + "/Regularizer"):
                return regularizer(variable)
        self.add_loss(loss_for_variable)

    def get_weights(self) -> List[np.ndarray]:
        """The weights' values as NumPy arrays, in `weights` order."""
        return [np.array(w.numpy()) for w in self.weights]

    def set_weights(self, weights: list) -> None:
        """Assign NumPy arrays to `weights`, in order; all are checked before any is set."""
        params = self.weights
        expected = sum(1 for _ in params)
        if expected != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on layer \"{self.name}\" with a weight list "
                f"of length {len(weights)}, but the layer was expecting {expected} weights. "
                f"Provided weights: {str(weights)[:50]}...")
        pairs = []
        for param, weight in zip(params, weights):
            ref_shape = tuple(param.shape)
            value = weight if isinstance(weight, torch.Tensor) else np.asarray(weight)
            if tuple(value.shape) != ref_shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {ref_shape} is not compatible with "
                    f"provided weight shape {tuple(value.shape)}.")
            pairs.append((param, value))
        for param, value in pairs:
            if isinstance(value, torch.Tensor):
                param.assign(math_ops.cast(value, param.dtype))
            else:
                param.assign(np.asarray(value, dtype=dtypes.as_dtype(param.dtype).as_numpy_dtype))

    def count_params(self) -> int:
        """The number of scalars in the layer's weights (it must be built)."""
        if not self.built:
            if getattr(self, "_is_graph_network", False):
                self._maybe_build(self.inputs)
            else:
                raise ValueError(
                    f"You tried to call `count_params` on layer {self.name}, but the layer isn't "
                    f"built. You can build it manually via: `{self.name}.build(batch_input_shape)`.")
        return int(sum(int(np.prod(tuple(w.shape))) for w in self.weights))

    # ------------------------------------------------------------------ losses and metrics
    @property
    def _eager_losses(self) -> list:
        losses = getattr(self._thread_local, "eager_losses", None)
        if losses is None:
            losses = []
            self._thread_local.eager_losses = losses
        return losses

    def _clear_losses(self) -> None:
        holders = _loss_holders.layers
        if not holders:
            return  # (no layer of this thread holds call losses: nothing to walk for)
        if not self._self_tracked_trackables:
            self._thread_local.eager_losses = []
            holders.discard(self)
            return
        for layer in self._flatten_layers():
            layer._thread_local.eager_losses = []
            holders.discard(layer)

    @property
    def losses(self) -> list:
        """This layer's and nested layers' losses: `add_loss` tensors of the last call (or
        added outside a call), then the regularizers' values, computed now."""
        if not held.losses:
            return []
        collected: list = []
        for layer in self._flatten_layers():
            eager = layer._eager_losses
            collected.extend(eager if eager else layer._losses)
            for loss_fn in layer._callable_losses:
                value = loss_fn()
                if value is not None:
                    collected.append(value)
        return collected

    def add_loss(self, losses: Any, **kwargs: Any) -> None:
        """Add loss tensors (per call when inside `call`) or zero-argument callables."""
        kwargs.pop("inputs", None)
        if kwargs:
            raise TypeError(f"Unknown keyword arguments: {kwargs.keys()}")

        def tag_callable(loss: Callable) -> Callable:
            def call_loss() -> Any:
                with autocast_variable.enable_auto_cast_variables(None):
                    value = loss()
                if value is None:
                    return None
                if not isinstance(value, torch.Tensor):
                    value = convert_to_tensor(value, dtype=backend.floatx())
                return value
            return call_loss

        eager_losses = []
        for loss in nest.flatten(losses):
            if callable(loss) and not isinstance(loss, torch.Tensor):
                self._callable_losses.append(tag_callable(loss))
                continue
            if loss is None:
                continue
            if isinstance(loss, KerasTensor):
                self._add_symbolic_loss(loss)
                continue
            if not isinstance(loss, torch.Tensor):
                loss = convert_to_tensor(loss, dtype=backend.floatx())
            eager_losses.append(loss)
        if eager_losses:
            held.losses = True  # (the per-call lists are plain: say so here)
            if utils.call_context().in_call:
                self._eager_losses.extend(eager_losses)
                _loss_holders.layers.add(self)
            else:
                self._losses.extend(eager_losses)

    def _add_symbolic_loss(self, loss: KerasTensor) -> None:
        raise ValueError(
            "Symbolic (KerasTensor) losses can only be added to a functional Model: "
            "`model.add_loss(tensor)` after `Model(inputs, outputs)`.")

    @property
    def metrics(self) -> list:
        if not held.metrics:
            return []
        collected = []
        for layer in self._flatten_layers():
            with layer._metrics_lock:
                collected.extend(layer._metrics)
        return collected

    # ------------------------------------------------------------------ build and call
    def build(self, input_shape: Any) -> None:
        """Create the weights for inputs of `input_shape` (override; the default only marks
        the layer built)."""
        _set(self, "_build_input_shape", input_shape)
        _set(self, "built", True)

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation (override). The default returns `inputs`."""
        return inputs

    def get_build_config(self) -> Optional[dict]:
        """`{"input_shape": ...}`: the shape the layer was built with (TensorShapes as tuples),
        or None before it is built; serialized next to the config as tf_keras does."""
        shape = getattr(self, "_build_input_shape", None)
        if shape is None:
            return None

        def as_tuple(x: Any) -> Any:
            if isinstance(x, TensorShape) and x.rank is not None:
                return tuple(x.as_list())
            return x

        return {"input_shape": nest.map_structure(as_tuple, shape)}

    def build_from_config(self, config: dict) -> None:
        """Create the weights from `get_build_config()`'s dict: `build(input_shape)`."""
        shape = config.get("input_shape")
        if shape is not None:
            self.build(_to_shapes(shape))

    def _get_call_spec(self) -> utils.CallSpec:
        spec = self.__dict__.get("_call_spec_value")
        if spec is None:
            cls = type(self)
            if "call" in self.__dict__:  # a per-instance `call`: its own signature
                spec = utils.CallSpec(self.call)
            else:
                with _call_specs_lock:
                    spec = _call_specs.get(cls)
                    if spec is None:
                        spec = _call_specs[cls] = utils.CallSpec(self.call)
            _set(self, "_call_spec_value", spec)
        return spec

    @property
    def _call_spec(self) -> utils.CallSpec:
        return self._get_call_spec()

    @property
    def _expects_training_arg(self) -> bool:
        return self._get_call_spec().expects_training_arg

    @property
    def _expects_mask_arg(self) -> bool:
        return self._get_call_spec().expects_mask_arg

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "_thread_local" not in self.__dict__:
            raise RuntimeError("You must call `super().__init__()` in the layer constructor.")
        spec = self._get_call_spec()
        inputs, args, kwargs = spec.split_out_first_arg(args, kwargs)
        if not self._called:
            _set(self, "_called", True)
        if _any_keras_tensor(inputs, args, kwargs):
            from .symbolic import functional_construction_call
            return functional_construction_call(self, inputs, args, kwargs)
        if not isinstance(inputs, torch.Tensor):
            inputs = _convert_inputs(inputs)
        context = utils.call_context()

        # masks: an explicit `mask=` wins, else the inputs' `_keras_mask`
        input_masks = None
        if self._supports_masking or spec.expects_mask_arg:
            if spec.arg_was_passed("mask", spec.mask_position, args, kwargs):
                input_masks = spec.get_arg("mask", spec.mask_position, args, kwargs)
            else:
                input_masks = _collect_masks(inputs)
                if input_masks is not None and spec.expects_mask_arg:
                    kwargs["mask"] = input_masks

        # training: explicit, else the enclosing call's, else the learning phase, else default
        training = None
        training_passed = spec.arg_was_passed("training", spec.training_position, args, kwargs)
        if training_passed:
            training = spec.get_arg("training", spec.training_position, args, kwargs)
            if not spec.explicit_training and not spec.accepts_var_kwargs:
                kwargs.pop("training", None)  # `call` takes none: only propagated
        if training is None:
            if context.training is not None:
                training = context.training
            elif backend.global_learning_phase_is_set():
                training = bool(backend.learning_phase())
            elif spec.explicit_training:
                training = spec.default_training_arg
        if spec.explicit_training or (spec.accepts_var_kwargs and training is not None):
            args, kwargs = spec.set_arg("training", spec.training_position, training, args,
                                        kwargs)

        if context.depth == 0:
            self._clear_losses()
        previous_training, previous_layer = context.training, context.layer
        context.depth += 1
        context.training = training
        context.layer = self
        try:
            if self._input_spec is not None:
                assert_input_compatibility(self._input_spec, inputs, self._name)
            with name_scope_cls(self._name):
                if not self.built:
                    self._maybe_build(inputs)
                if self._autocast:
                    inputs = self._maybe_cast_inputs(inputs)
                compute_dtype = self._compute_dtype_object
                try:
                    if compute_dtype is not None and self._dtype_policy.variable_dtype != \
                            self._dtype_policy.compute_dtype:
                        with autocast_variable.enable_auto_cast_variables(compute_dtype):
                            outputs = self.call(inputs, *args, **kwargs)
                    else:
                        outputs = self.call(inputs, *args, **kwargs)
                except Exception as e:  # noqa: BLE001 - re-raised with tf_keras's call context
                    raise_with_call_info(e, self.call,
                                         f"layer '{self._name}' (type {type(self).__name__})",
                                         (inputs,) + tuple(args), kwargs)
                if self._activity_regularizer is not None:
                    self._handle_activity_regularization(inputs, outputs)
                if self._supports_masking:
                    self._set_mask_metadata(inputs, outputs, input_masks)
        finally:
            context.depth -= 1
            context.training = previous_training
            context.layer = previous_layer
        return outputs

    def _maybe_build(self, inputs: Any) -> None:
        if not self.built:
            assert_input_compatibility(self._input_spec, inputs, self._name)
            flat = nest.flatten(inputs)
            if flat and self._dtype_policy.compute_dtype is None:
                try:
                    dtype = dtypes.as_dtype(flat[0].dtype).name
                except (AttributeError, TypeError, ValueError):
                    pass
                else:
                    self._set_dtype_policy(policy_lib.Policy(dtype))
            input_shapes = None
            if any(hasattr(x, "shape") for x in flat):
                input_shapes = nest.map_structure(
                    lambda x: TensorShape(x.shape) if hasattr(x, "shape") else None, inputs)
            build = type(self).build
            if build is not Layer.build and not getattr(build, "_is_default", False):
                _set(self, "_building_from_call", True)
                try:
                    self.build(input_shapes)
                finally:
                    _set(self, "_building_from_call", False)
            Layer.build(self, input_shapes)
        if self._initial_weights is not None:
            weights = self._initial_weights
            _set(self, "_initial_weights", None)
            self.set_weights(weights)

    def _maybe_cast_inputs(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is None or not compute.is_floating:
            return inputs
        target = dtypes.to_torch(compute)
        if isinstance(inputs, torch.Tensor):
            if inputs.dtype != target and inputs.dtype.is_floating_point:
                return math_ops.cast(inputs, compute)
            return inputs

        def cast(x: Any) -> Any:
            if isinstance(x, torch.Tensor) and x.dtype != target and x.dtype.is_floating_point:
                return math_ops.cast(x, compute)
            return x
        return nest.map_structure(cast, inputs)

    def _handle_activity_regularization(self, inputs: Any, outputs: Any) -> None:
        with name_scope_cls("ActivityRegularizer"):
            for output in nest.flatten(outputs):
                loss = convert_to_tensor(self._activity_regularizer(output))
                batch_size = math_ops.cast(output.shape[0], loss.dtype)
                self.add_loss(binary_math_ops.divide_no_nan(loss, batch_size))

    def _set_mask_metadata(self, inputs: Any, outputs: Any, previous_mask: Any) -> None:
        if previous_mask is None and type(self).compute_mask is Layer.compute_mask:
            return  # (the base passes the input mask on: there is none)
        flat_outputs = nest.flatten(outputs)
        if getattr(self, "_compute_output_and_mask_jointly", False) or all(
                getattr(x, "_keras_mask", None) is not None for x in flat_outputs):
            return
        output_masks = self.compute_mask(inputs, previous_mask)
        if output_masks is None:
            return
        for tensor, mask in zip(flat_outputs, nest.flatten(output_masks)):
            try:
                tensor._keras_mask = mask
            except AttributeError:
                pass

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The output mask (default: the input mask when `supports_masking`; an error when a
        mask reaches a layer that does not support one)."""
        if not self._supports_masking:
            if any(m is not None for m in nest.flatten(mask)):
                raise TypeError(
                    f"Layer {self.name} does not support masking, but was passed an "
                    f"input_mask: {mask}")
            return None
        return mask

    def compute_output_shape(self, input_shape: Any) -> Any:
        """The output shape for inputs of `input_shape`, found by running `call` on stand-in
        tensors of that shape (tf_keras traces a scratch graph for the same answer)."""
        from .symbolic import trace_output_signature
        signature = trace_output_signature(self, input_shape)
        return nest.map_structure(lambda kt: kt.shape, signature)

    def compute_output_signature(self, input_signature: Any) -> Any:
        from .symbolic import trace_output_signature_of
        return trace_output_signature_of(self, input_signature)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """`name`, `trainable`, `dtype` (and `batch_input_shape` when given), plus the
        constructor's arguments when they were all simple values (tf_keras's automatic
        config); a layer with other arguments must override this."""
        config: dict = {"name": self.name, "trainable": self.trainable,
                        "dtype": policy_lib.serialize(self._dtype_policy)}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        if type(self).get_config is not Layer.get_config:
            return config
        if self._auto_get_config:
            extra = set(config)
            config.update(self._auto_config)
            signature = inspect.signature(type(self).__init__)
            params = signature.parameters
            accepts_kwargs = any(p.kind == p.VAR_KEYWORD for p in params.values())
            if not accepts_kwargs:
                for key in extra:
                    if key not in params:
                        config.pop(key, None)
            return config
        raise NotImplementedError(
            f"\nLayer {type(self).__name__} was created by passing\nnon-serializable argument "
            "values in `__init__()`,\nand therefore the layer must override `get_config()` in\n"
            "order to be serializable. Please implement `get_config()`.\n\nExample:\n\n"
            "class CustomLayer(keras.layers.Layer):\n    def __init__(self, arg1, arg2, "
            "**kwargs):\n        super().__init__(**kwargs)\n        self.arg1 = arg1\n"
            "        self.arg2 = arg2\n\n    def get_config(self):\n        config = "
            "super().get_config()\n        config.update({\n            \"arg1\": self.arg1,\n"
            "            \"arg2\": self.arg2,\n        })\n        return config")

    @classmethod
    def from_config(cls, config: dict) -> "Layer":
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(
                f"Error when deserializing class '{cls.__name__}' using config={config}.\n\n"
                f"Exception encountered: {e}") from e

    # ------------------------------------------------------------------ functional metadata
    def _get_node_attribute(self, node_index: int, attr: str, attr_name: str) -> Any:
        if not self._inbound_nodes:
            raise RuntimeError(
                f"The layer {self.name} has never been called and thus has no defined "
                f"{attr_name}.")
        if not len(self._inbound_nodes) > node_index:
            raise ValueError(
                f"Asked to get {attr_name} at node {node_index}, but the layer has only "
                f"{len(self._inbound_nodes)} inbound nodes.")
        values = getattr(self._inbound_nodes[node_index], attr)
        if isinstance(values, list) and len(values) == 1:
            return values[0]
        return values

    @property
    def input(self) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(
                f"Layer {self.name} is not connected, no input to return.")
        return self._get_node_attribute(0, "input_tensors", "input")

    @property
    def output(self) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self._get_node_attribute(0, "outputs", "output")

    def get_input_at(self, node_index: int) -> Any:
        return self._get_node_attribute(node_index, "input_tensors", "input")

    def get_output_at(self, node_index: int) -> Any:
        return self._get_node_attribute(node_index, "outputs", "output")

    @property
    def input_shape(self) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(
                f'The layer "{self.name}" has never been called and thus has no defined input '
                "shape. Note that the `input_shape` property is only available for Functional "
                "and Sequential models.")
        shapes = {str(node.input_shapes) for node in self._inbound_nodes}
        if len(shapes) == 1:
            return _shape_tuples(self._inbound_nodes[0].input_shapes)
        raise AttributeError(
            f'The layer "{self.name}" has multiple inbound nodes, with different input shapes. '
            "Hence the notion of \"input shape\" is ill-defined for the layer. Use "
            "`get_input_shape_at(node_index)` instead.")

    @property
    def output_shape(self) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(
                f"The layer \"{self.name}\" has never been called and thus has no defined "
                "output shape.")
        shapes = {str(node.output_shapes) for node in self._inbound_nodes}
        if len(shapes) == 1:
            return _shape_tuples(self._inbound_nodes[0].output_shapes)
        raise AttributeError(
            f'The layer "{self.name}" has multiple inbound nodes, with different output shapes. '
            "Hence the notion of \"output shape\" is ill-defined for the layer. Use "
            "`get_output_shape_at(node_index)` instead.")

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"


_MISSING = object()


def _init_bookkeeping(layer: Layer) -> None:
    """The tracking lists, created once (an attribute may be set before `__init__`)."""
    layer._maybe_initialize_trackable()
    for name, factory in (("_trainable_weights", list), ("_non_trainable_weights", list),
                          ("_metrics", _MetricList), ("_self_tracked_trackables", list),
                          ("_obj_reference_counts_dict", dict)):
        if name not in layer.__dict__:
            _set(layer, name, factory())


def _is_metric(obj: Any) -> bool:
    return getattr(type(obj), "_is_keras_metric", False)


def _is_container(obj: Any) -> bool:
    return isinstance(obj, (list, tuple, dict)) and not protocol.is_variable(obj)


_CONTAINER_TYPES = (list, tuple, dict)


def _container_values(obj: Any) -> list:
    if isinstance(obj, collections.abc.Mapping):
        try:
            keys = sorted(obj)
        except TypeError:
            keys = list(obj)
        return [obj[k] for k in keys]
    return list(obj)


def _trackable_leaves(value: Any) -> Iterator[Any]:
    """The leaves of `value` (lists, tuples and dicts expanded; modules are leaves)."""
    if isinstance(value, Module) or protocol.is_variable(value):
        yield value
    elif _is_container(value):
        for item in _container_values(value):
            yield from _trackable_leaves(item)
    else:
        yield value


def _any_keras_tensor(inputs: Any, args: tuple, kwargs: dict) -> bool:
    if isinstance(inputs, torch.Tensor):
        if not args and not kwargs:
            return False
    elif isinstance(inputs, KerasTensor):
        return True
    for leaf in nest.flatten((inputs, args, kwargs)):
        if isinstance(leaf, KerasTensor):
            return True
    return False


_symbolic_frame = threading.local()  # `.layer`: the layer symbolic.py frames itself


def _format_argument(value: Any) -> str:
    if isinstance(value, (torch.Tensor, KerasTensor)):
        return f"tf.Tensor(shape={TensorShape(tuple(value.shape))}, " \
               f"dtype={dtypes.as_dtype(value.dtype).name})"
    return repr(value)


def raise_with_call_info(error: Exception, fn: Callable, display_name: str, args: tuple,
                         kwargs: dict) -> None:
    """Re-raise `error` (raised by `fn(*args, **kwargs)`, a layer's `call`) as tf_keras does:
    the same class, its message framed by "Exception encountered when calling <display_name>."
    and the call's arguments; only the innermost failing layer adds this, and an error whose
    class cannot be rebuilt from a message, or a call whose arguments do not bind, is re-raised
    as it is."""
    if getattr(error, "_keras_call_info_injected", False) or \
            getattr(fn, "__self__", None) is getattr(_symbolic_frame, "layer", None):
        raise error  # (innermost only; a symbolic call is framed by symbolic.py)
    try:
        signature = inspect.signature(fn)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        raise error from None
    lines = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = nest.map_structure(_format_argument, bound.arguments[parameter.name])
        else:
            value = parameter.default
        lines.append(f"  \u2022 {parameter.name}={value}")
    if not lines:
        raise error
    if isinstance(error, errors.OpError):
        message = error.message
    elif error.args:
        message = error.args[0]
    else:
        message = ""
    message = (f"Exception encountered when calling {display_name}.\n\n{message}\n\n"
               f"Call arguments received by {display_name}:\n" + "\n".join(lines))
    if isinstance(error, errors.OpError):
        new = type(error)(error.node_def, error.op, message, error.error_code)
    else:
        try:
            new = type(error)(message)
        except TypeError:
            new = RuntimeError(message)
    new._keras_call_info_injected = True
    raise new.with_traceback(error.__traceback__) from None


def _convert_inputs(inputs: Any) -> Any:
    """NumPy values, Python numbers and variables as tensors before `call` (a variable is
    read, so the call sees its value and a tape records the read, as TF's ops on it do)."""
    def convert(x: Any) -> Any:
        if isinstance(x, _CONVERTED_INPUT_TYPES) and not isinstance(x, bool):
            return convert_to_tensor(x)
        if protocol.is_variable(x):
            return convert_to_tensor(x)
        return x
    if isinstance(inputs, torch.Tensor):
        return inputs
    return nest.map_structure(convert, inputs)


def _collect_masks(inputs: Any) -> Any:
    if isinstance(inputs, torch.Tensor):
        return getattr(inputs, "_keras_mask", None)
    flat = nest.flatten(inputs)
    masks = [getattr(t, "_keras_mask", None) for t in flat]
    if all(m is None for m in masks):
        return None
    return nest.pack_sequence_as(inputs, masks)


def _shape_tuples(shapes: Any) -> Any:
    def to_tuple(s: Any) -> Any:
        if isinstance(s, TensorShape):
            return tuple(s.as_list()) if s.rank is not None else None
        return s
    if isinstance(shapes, TensorShape):
        return to_tuple(shapes)
    return nest.map_structure(to_tuple, shapes) if not isinstance(shapes, TensorShape) else shapes
