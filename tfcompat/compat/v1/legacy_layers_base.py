"""`tf.compat.v1.layers.Layer`: a Keras layer whose weights are TF 1 `get_variable`s.

tf_keras's `legacy_tf_layers/base.py` semantics, on tfcompat's Keras `Layer` (the math of
every TF 1 layer is its Keras layer's; only naming and creation differ):

* each layer owns a `variable_scope`, fixed at its first call (or at construction when the
  function forms pass `_scope=name`): `variable_scope(None, default_name=<snake name>)`, so
  layers are uniquified by the variable scope (`dense`, `dense_1`, `foo/dense`), and a
  layer built with `_reuse` enters `variable_scope(name)` as it is;
* `add_weight` creates through `tf.compat.v1.get_variable` in that scope (reuse: the
  layer's `_reuse`, and always once built), so the weights are `dense/kernel`,
  `foo/dense_1/bias`: the names TF 1 checkpoints hold. Sharing (`reuse=True`,
  `AUTO_REUSE`, `scope.reuse_variables()`), the collections, the scope's initializer,
  custom getters and regularization losses into `REGULARIZATION_LOSSES` are the variable
  store's (`variable_scopes.py`), so the layers behave as TF 1 graph mode does; inside
  `track_tf1_style_variables` the store is the shim's and the layers reuse its variables;
* `layer.name` is Keras's 1-based unique name (`dense_1` for the first `dense` scope), as
  tf_keras's legacy layers name themselves; `layer.scope_name` is the scope's name;
* dtype: inferred from the first input (the `"_infer"` policy), no autocasting.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Optional

from ...framework import dtypes
from ...framework.name_scope import name_scope
from ...keras import backend
from ...keras.engine import base_layer
from ...keras.engine import base_layer_utils
from ...keras.mixed_precision import policy as policy_lib
from ...variables.enums import VariableAggregation, VariableSynchronization

__all__ = ["Layer"]


def _vs() -> Any:
    """The variable-scope module (imported when a layer first needs it). By module path:
    the package attribute `variable_scope` may be the function of that name."""
    return importlib.import_module(f"{__package__}.variable_scopes")


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # bookkeeping, not checkpoint dependencies


class Layer(base_layer.Layer):
    """The base class of `tf.compat.v1.layers` (tf_keras's legacy `Layer`).

    Args (besides Keras's): `trainable`, `name` (a string or a `VariableScope`), `dtype`
    (None: the first input's); the function forms pass `_scope` (capture
    `variable_scope(_scope)` now) and `_reuse` (the reuse mode the weights are created in).
    """

    def __init__(self, trainable: bool = True, name: Any = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        scope = kwargs.pop("_scope", None)
        reuse = kwargs.pop("_reuse", None)
        if dtype is None:
            dtype = policy_lib.Policy("_infer")  # TF 1 layers take their inputs' dtype
        kwargs.setdefault("autocast", False)
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        _set(self, "_reuse", reuse)
        _set(self, "_current_scope", None)
        _set(self, "_call_has_scope_arg",
             "scope" in self._get_call_spec().arg_names)
        if scope:
            with _vs().variable_scope(scope) as captured:
                _set(self, "_scope", captured)
        else:
            _set(self, "_scope", None)

    def _init_set_name(self, name: Any, zero_based: bool = True) -> None:
        vs = _vs()
        base_name = base_layer_utils.to_snake_case(type(self).__name__)
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            name = None
        elif name:
            if not isinstance(name, str):
                raise TypeError(f"Expected `name` argument to be a string, but got: {name}")
            base_name = name
            backend.observe_object_name(name)
        if not name:
            # tf_keras's legacy layers count from 1 (`dense_1`); the scope counts from 0
            name = backend.unique_object_name(
                base_layer_utils.to_snake_case(type(self).__name__), zero_based=False)
        _set(self, "_name", name)
        _set(self, "_base_name", base_name)

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        """TF 1's alias of `__call__`."""
        return self(*args, **kwargs)

    @property
    def scope_name(self) -> str:
        """The full name of the layer's variable scope (known from its first call)."""
        if not self._scope:
            raise ValueError(
                'No name available for layer scope because the layer "' + self._name +
                '" has not been used yet. The scope name  is determined the first time the '
                "layer instance is called. You must therefore call the layer before "
                "querying `scope_name`.")
        return self._scope.name

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is not None:
            return
        vs = _vs()
        if self._reuse:
            with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                _set(self, "_scope", captured)
        else:
            with vs.variable_scope(scope, default_name=self._base_name) as captured:
                _set(self, "_scope", captured)

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: Optional[bool] = None,
                   constraint: Any = None, use_resource: Any = None,
                   synchronization: Any = VariableSynchronization.AUTO,
                   aggregation: Any = VariableAggregation.NONE, partitioner: Any = None,
                   **kwargs: Any) -> Any:
        """Get or create `<layer scope>/<name>` with `get_variable` (TF 1's legacy rule).

        The scope's reuse is the layer's `_reuse` (always True once built); with no
        `initializer` the scope's initializer applies, then Keras's default. The
        regularizer goes to the layer's `losses` and, through `get_variable`, into
        `REGULARIZATION_LOSSES` when the variable is created (not when reused).
        """
        for kwarg in kwargs:
            if kwarg != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", kwarg)
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        if dtype is None:
            dtype = self.dtype or dtypes.float32
        vs = _vs()
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            _set(self, "_current_scope", scope)
            if initializer is None:
                initializer = scope.initializer
            # get_variable names by the variable scope alone: drop the layer's name scope
            with name_scope(""):
                variable = super().add_weight(
                    name, shape, dtype=dtypes.as_dtype(dtype), initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    partitioner=partitioner, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation,
                    getter=functools.partial(_get_variable, regularizer=regularizer),
                    **kwargs)
        if regularizer is not None:
            self._handle_weight_regularization(name, variable, regularizer)
        return variable

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Call in the layer's variable scope (reuse=True once built); `scope=` names the
        scope on the first call; a `call` taking `scope` receives it."""
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with _vs().variable_scope(self._scope, reuse=reuse,
                                  auxiliary_name_scope=False) as current:
            _set(self, "_current_scope", current)
            if self._call_has_scope_arg:
                kwargs["scope"] = current
            return super().__call__(inputs, *args, **kwargs)

    @property
    def _is_legacy_layer(self) -> bool:
        return True


def _get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                  regularizer: Any = None, trainable: Optional[bool] = None,
                  constraint: Any = None, partitioner: Any = None, use_resource: Any = None,
                  synchronization: Any = VariableSynchronization.AUTO,
                  aggregation: Any = VariableAggregation.NONE, caching_device: Any = None,
                  **unused: Any) -> Any:
    """Keras's getter protocol onto `tf.compat.v1.get_variable` (the current scope's)."""
    return _vs().get_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, caching_device=caching_device, partitioner=partitioner,
        use_resource=use_resource, constraint=constraint, synchronization=synchronization,
        aggregation=aggregation)
