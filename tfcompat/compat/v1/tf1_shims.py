"""`tf.compat.v1.keras.utils`: TF's migration shim, `track_tf1_style_variables`.

Decorating a method of a `tf.Module`, Keras layer or model with
`@tf.compat.v1.keras.utils.track_tf1_style_variables` lets TF 1 code run inside it
unchanged (tf_keras's `variable_scope_shim`):

* the method runs with a variable store of the object's own (`self._tf1_style_var_store`,
  a `tf.Module`), so `get_variable` inside `variable_scope`s creates each variable on the
  first call and returns the same one on every later call (reuse is always
  `AUTO_REUSE` there: no "already exists" error);
* the store is an attribute of the object, so `module.variables`,
  `layer.trainable_weights`, optimizers and `tf.train.Checkpoint` see the variables (the
  checkpoint keys are TF's: `_tf1_style_var_store/_vars/dense.Skernel/...`); variable
  names are the scope paths (`dense/kernel:0`), as in TF;
* a `regularizer` given to `get_variable` becomes a loss of the layer (`layer.losses`,
  recomputed from the current value each time it is read); on a plain `tf.Module` the
  regularizers are kept in the store only, as TF;
* `get_or_create_layer(name, create_layer_method)` builds a Keras layer once per
  store and scope path and returns it afterwards.

Variables made here are not added to the TF 1 collections (`tf1.trainable_variables()`),
as in TF 2.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

# (absolute: `from . import x` would first ask the v1 package's name resolver)
import tfcompat.compat.v1.variable_scopes as vs

from ...train.module import Module

__all__ = ["track_tf1_style_variables", "get_or_create_layer", "VariableScopeLayer",
           "DeterministicRandomTestTool"]


class _EagerVariableStore(Module, vs._VariableStore):
    """The per-object store of the shim: a `tf.Module` tracking its variables
    (`_vars`), the regularizers' losses (`_regularizers`) and the layers made by
    `get_or_create_layer` (`_layers`)."""

    def __init__(self) -> None:
        Module.__init__(self)
        self._vars = {}
        self._regularizers = {}
        self._layers = {}

    def scope(self) -> Any:
        """A context in which `get_variable` uses this store."""
        return vs.with_variable_store(self)

    def _reuse_mode(self, reuse: Any) -> Any:
        return reuse if reuse else vs.AUTO_REUSE  # (True stays True: missing is an error)

    def _record_new(self, variable: Any, collections: Any) -> None:
        pass  # (TF 2 keeps no collections for the shim's variables)

    def _add_regularizer(self, variable: Any, name: str, regularizer: Callable) -> None:
        self._regularizers[variable.name] = functools.partial(regularizer, variable)

    def get_or_create_layer(self, name: str, create_layer_method: Callable[[], Any]) -> Any:
        """The layer stored as `name`, made by `create_layer_method()` the first time."""
        if name not in self._layers:
            layer = create_layer_method()
            self._layers[name] = layer
            if _is_keras_layer(layer):
                import tfcompat as tf
                self._regularizers[name] = lambda: tf.math.reduce_sum(layer.losses)
        return self._layers[name]


def _is_keras_layer(obj: Any) -> bool:
    from ...keras.engine.base_layer import Layer
    return isinstance(obj, Layer)


def track_tf1_style_variables(method: Callable) -> Callable:
    """Run `method` (of a `tf.Module`, Keras layer or model) with the object's own TF 1
    variable store; see the module docstring."""

    @functools.wraps(method)
    def _method_wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        var_store = getattr(self, "_tf1_style_var_store", None)
        if not var_store:
            if not isinstance(self, Module):
                raise ValueError(
                    "`@tf.compat.v1.keras.utils.track_tf1_layers_and_variables` must be applied "
                    "to a method of a subclassed `tf.Module`, `tf.keras.layers.Layer`, or "
                    "`tf.keras.Model` and which takes `self` as the first argument. But, the "
                    "first argument passed to the decorated method was {}, which does not "
                    "extend Module, Layer, or Model.".format(self))
            var_store = _EagerVariableStore()
            self._tf1_style_var_store = var_store
        existing = set(var_store._regularizers.keys())
        with var_store.scope():
            out = method(self, *args, **kwargs)
        if _is_keras_layer(self):
            for key, regularizer in var_store._regularizers.items():
                if key not in existing:
                    self.add_loss(regularizer)
        return out

    return _method_wrapper


def get_or_create_layer(name: str, create_layer_method: Callable[[], Any]) -> Any:
    """TF's `tf.compat.v1.keras.utils.get_or_create_layer`: inside a
    `track_tf1_style_variables` method, the layer `<scope>/<name>` of this object, made
    by `create_layer_method()` on the first call only."""
    store = vs._get_default_variable_store()
    if not isinstance(store, _EagerVariableStore):
        raise ValueError(
            "Tried to call get_or_create_layer in eager mode from a method notdecorated with "
            "@tf.compat.v1.keras.utils.track_tf1_style_variables.")
    scope_name = vs.get_variable_scope().name
    return store.get_or_create_layer(f"{scope_name}/{name}", create_layer_method)


class DeterministicRandomTestTool:
    """tf_keras's `DeterministicRandomTestTool`: `scope()` makes the stateful random ops
    (`tf.random.*`, v1 initializers, dropout) draw from fixed seeds, so two versions of a
    model (before and after a migration step) can be compared number for number.

    `mode="constant"`: every op uses the operation seed `operation_seed` (and the global
    seed is reset to it before each op, so each op repeats the same draw);
    `mode="num_random_ops"`: the n-th random op in the scope uses operation seed n (a
    `ValueError` when a seed would be reused after `operation_seed` was set by hand).
    Keras initializers draw their own seeds (as tf_keras's do) and are not affected.
    """

    def __init__(self, seed: int = 42, mode: str = "constant") -> None:
        if mode not in {"constant", "num_random_ops"}:
            raise ValueError("Mode arg must be 'constant' or 'num_random_ops'. " + f"Got: {mode}")
        from ...ops import random_ops
        self.seed_implementation = random_ops  # (the module whose `get_seed` ops consult)
        self._mode = mode
        self._seed = seed
        self.operation_seed = 0
        self._observed_seeds: set = set()

    @property
    def operation_seed(self) -> int:
        return self._operation_seed

    @operation_seed.setter
    def operation_seed(self, value: int) -> None:
        self._operation_seed = value

    def scope(self) -> Any:
        """A context (a `mock.patch` of `get_seed`) in which random ops are deterministic."""
        from unittest import mock
        import tfcompat as tf
        tf.random.set_seed(self._seed)

        def _get_seed(_: Any) -> tuple:
            op_seed = self._operation_seed
            if self._mode == "constant":
                tf.random.set_seed(op_seed)
            else:
                if op_seed in self._observed_seeds:
                    raise ValueError(
                        "This `DeterministicRandomTestTool` object is trying to re-use the "
                        f"already-used operation seed {op_seed}. It cannot guarantee random "
                        "numbers will match between eager and sessions when an operation seed "
                        "is reused. You most likely set `operation_seed` explicitly but used a "
                        "value that caused the naturally-incrementing operation seed sequences "
                        "to overlap with an already-used seed.")
                self._observed_seeds.add(op_seed)
                self._operation_seed += 1
            return (self._seed, op_seed)

        return mock.patch.object(self.seed_implementation, "get_seed", wraps=_get_seed)


def _variable_scope_layer() -> type:
    from ...keras.engine.base_layer import Layer

    class VariableScopeLayer(Layer):
        """A Keras layer whose `forward_pass` runs TF 1 code (`call` is shimmed)."""

        def forward_pass(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        @track_tf1_style_variables
        def call(self, *args: Any, **kwargs: Any) -> Any:
            return self.forward_pass(*args, **kwargs)

    return VariableScopeLayer


def __getattr__(name: str) -> Any:
    if name == "VariableScopeLayer":  # (built on first use: Keras is imported lazily)
        cls = globals()["VariableScopeLayer"] = _variable_scope_layer()
        return cls
    raise AttributeError(name)


#: Routed by `tfcompat.compat.v1.PORTING` ("keras.utils").
V1_NAMES: dict = {"keras.utils": {"track_tf1_style_variables": track_tf1_style_variables,
                                  "get_or_create_layer": get_or_create_layer,
                                  "DeterministicRandomTestTool": DeterministicRandomTestTool}}
