"""TF 1's graph collections, emulated eagerly: `tf.compat.v1.get_collection` and friends.

In TF 1 a `Graph` keeps named lists ("collections") of the variables, losses and update
ops a program creates; `tf.trainable_variables()` is the `TRAINABLE_VARIABLES` list and
`tf.losses.get_regularization_loss()` sums `REGULARIZATION_LOSSES`. tfcompat has no graph,
so this module keeps one process-wide set of collections standing for TF 1's default
graph; `reset_default_graph()` replaces it (clearing the collections, the default variable
store and the variable scopes, which TF also keeps in the graph).

What lands here (the porting kit's choice, documented because TF 2 eager differs):

* variables created by `tf.compat.v1.get_variable` / `get_local_variable` in the default
  store (and in `make_template`s): into `GLOBAL_VARIABLES` (or the `collections` given)
  and `TRAINABLE_VARIABLES` when trainable, as TF 1 graph mode does. TF 2 eager keeps no
  collections, but TF 1 programs rely on `tf.trainable_variables()`;
* NOT plain `tf.Variable(...)`s, nor Keras layers' weights, nor variables created inside a
  `track_tf1_style_variables` method (TF 2 does not collect those either): pass those
  lists explicitly (`layer.trainable_weights`, `module.trainable_variables`);
* regularization losses of `get_variable(regularizer=...)`: stored lazily and evaluated
  when read (`get_collection` computes them now), so a loss read inside a
  `GradientTape` differentiates through the variable's current value.

`scope` filters as TF: `re.match(scope, item.name)`; items without a `name` are skipped.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Iterable, Optional

__all__ = ["GraphKeys", "get_collection", "get_collection_ref", "add_to_collection",
           "add_to_collections", "get_all_collection_keys", "clear_collection",
           "reset_default_graph", "trainable_variables", "global_variables", "all_variables",
           "local_variables", "model_variables", "moving_average_variables",
           "global_variables_initializer", "local_variables_initializer",
           "variables_initializer", "initialize_all_variables", "initialize_local_variables",
           "initialize_variables", "assign", "assign_add", "assign_sub",
           "get_regularization_loss", "get_regularization_losses", "add_loss", "get_losses",
           "get_total_loss", "LazyEvalTensor"]


class GraphKeys:
    """The standard collection names (TF 1's `tf.GraphKeys`)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    _SUMMARY_COLLECTION = "_SUMMARY_V2"
    _VARIABLE_COLLECTIONS = [GLOBAL_VARIABLES, LOCAL_VARIABLES, METRIC_VARIABLES, MODEL_VARIABLES,
                             TRAINABLE_VARIABLES, MOVING_AVERAGE_VARIABLES, CONCATENATED_VARIABLES,
                             TRAINABLE_RESOURCE_VARIABLES]
    _STREAMING_MODEL_PORTS = "streaming_model_ports"
    VARIABLES = GLOBAL_VARIABLES  # TF 1's deprecated alias


class _Graph:
    """The collections of the emulated default graph (a fresh one after a reset)."""

    def __init__(self) -> None:
        self.collections: dict = {}
        self.lock = threading.Lock()


_graph = _Graph()


def _default_graph() -> _Graph:
    return _graph


def reset_default_graph() -> None:
    """TF 1's `tf.reset_default_graph()`: forget every collection, the default variable
    store and the variable scopes' name counts (the variables themselves live on while
    referenced)."""
    global _graph
    _graph = _Graph()


def get_collection_ref(key: Any) -> list:
    """The collection's list itself (created empty when missing); mutating it mutates the
    collection, as TF."""
    graph = _default_graph()
    with graph.lock:
        return graph.collections.setdefault(key, [])


def get_collection(key: Any, scope: Optional[str] = None) -> list:
    """A copy of collection `key`, filtered by `re.match(scope, item.name)` when `scope` is
    given. Lazily evaluated items (regularization losses) are computed now."""
    items = list(_default_graph().collections.get(key, ()))
    if scope is not None:
        pattern = re.compile(scope)
        kept = []
        for item in items:
            try:
                if pattern.match(item.name):
                    kept.append(item)
            except (AttributeError, TypeError):
                pass  # (TF skips items without a string name)
        items = kept
    return [item.evaluate() if isinstance(item, LazyEvalTensor) else item for item in items]


def add_to_collection(name: Any, value: Any) -> None:
    """Append `value` to collection `name`."""
    get_collection_ref(name).append(value)


def add_to_collections(names: Any, value: Any) -> None:
    """Append `value` to each collection in `names` once (a string is one name)."""
    names = (names,) if isinstance(names, str) else set(names)
    for name in names:
        add_to_collection(name, value)


def get_all_collection_keys() -> list:
    """The names of the collections that exist."""
    return list(_default_graph().collections)


def clear_collection(name: Any) -> None:
    """Drop collection `name` (TF's `Graph.clear_collection`)."""
    _default_graph().collections.pop(name, None)


def _remove_from_collections(value: Any) -> None:
    """Take `value` out of every collection (a template's failed call undoes its creations)."""
    for items in _default_graph().collections.values():
        items[:] = [item for item in items if item is not value]


class LazyEvalTensor:
    """A collection item computed when read (TF's `_LazyEvalTensor`): a regularization loss
    whose value follows the variable it penalizes. `tf.convert_to_tensor` evaluates it."""

    def __init__(self, thunk: Callable[[], Any], name: str) -> None:
        self._thunk = thunk
        self.name = name

    def evaluate(self) -> Any:
        """The value now (recorded on an active `GradientTape`)."""
        return self._thunk()

    def numpy(self) -> Any:
        value = self.evaluate()
        return value.numpy() if hasattr(value, "numpy") else value

    def __repr__(self) -> str:
        return f"<LazyEvalTensor {self.name!r}>"


def _register_lazy_conversion() -> None:
    from ...framework.tensor_conversion import register_tensor_conversion_function

    def convert(value: LazyEvalTensor, dtype: Any = None, name: Any = None, as_ref: bool = False) -> Any:
        return value.evaluate()
    register_tensor_conversion_function(LazyEvalTensor, convert)


_register_lazy_conversion()


# --------------------------------------------------------------------------- variables
def _variables(key: str, scope: Optional[str]) -> list:
    return get_collection(key, scope)


def global_variables(scope: Optional[str] = None) -> list:
    """`GLOBAL_VARIABLES`: the `get_variable`-created variables (see the module docstring)."""
    return _variables(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> list:
    """TF 1's deprecated `tf.all_variables()` (= `global_variables()`)."""
    return global_variables()


def trainable_variables(scope: Optional[str] = None) -> list:
    """`TRAINABLE_VARIABLES`: trainable `get_variable`-created variables, creation order."""
    return _variables(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: Optional[str] = None) -> list:
    """`LOCAL_VARIABLES` (`get_local_variable`'s)."""
    return _variables(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: Optional[str] = None) -> list:
    """`MODEL_VARIABLES` (variables created with `collections=[..., MODEL_VARIABLES]`)."""
    return _variables(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: Optional[str] = None) -> list:
    """`MOVING_AVERAGE_VARIABLES`."""
    return _variables(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


class _NoOp:
    """Stands for the `NoOp` TF 1 returns from the initializer functions. Eager variables
    are initialized when created, so running it does nothing (`op.run()` and a session
    shim's `sess.run(op)` both accept it). TF 2 eager returns `None` here instead; an
    object keeps `init.run()` and `sess.run(init)` ports working."""

    type = "NoOp"

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        return None

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type=NoOp>"


def variables_initializer(var_list: Iterable[Any], name: str = "init") -> _NoOp:
    """TF 1's `tf.variables_initializer`: a no-op (eager variables are initialized)."""
    list(var_list)  # (TF iterates it; a bad argument fails here as there)
    return _NoOp(name)


def global_variables_initializer() -> _NoOp:
    """TF 1's `tf.global_variables_initializer()`: a no-op (see `variables_initializer`)."""
    return _NoOp("init")


def local_variables_initializer() -> _NoOp:
    """TF 1's `tf.local_variables_initializer()`: a no-op."""
    return _NoOp("init_1")


def initialize_all_variables() -> _NoOp:
    """TF 1's deprecated `tf.initialize_all_variables()` (= `global_variables_initializer`)."""
    return global_variables_initializer()


def initialize_local_variables() -> _NoOp:
    """TF 1's deprecated `tf.initialize_local_variables()`."""
    return local_variables_initializer()


def initialize_variables(var_list: Iterable[Any], name: str = "init") -> _NoOp:
    """TF 1's deprecated `tf.initialize_variables(var_list)`."""
    return variables_initializer(var_list, name)


# --------------------------------------------------------------------------- state ops
def _check_ref(ref: Any, op: str) -> None:
    from ...framework.variable_protocol import is_variable
    if not is_variable(ref):
        raise TypeError(f"{op} requires a tf.Variable as `ref`, got {type(ref).__name__}: "
                        "tensors are immutable (use tf.tensor_scatter_nd_update or build a new "
                        "tensor).")


def assign(ref: Any, value: Any, validate_shape: Optional[bool] = None,
           use_locking: Optional[bool] = None, name: Optional[str] = None) -> Any:
    """TF 1's `tf.assign(ref, value)`: `ref.assign(value)` (a resource variable's rule:
    the shape must match; `validate_shape`/`use_locking` have no effect)."""
    _check_ref(ref, "tf.assign")
    return ref.assign(value, use_locking=use_locking, name=name)


def assign_add(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Any:
    """TF 1's `tf.assign_add(ref, value)`: `ref.assign_add(value)`."""
    _check_ref(ref, "tf.assign_add")
    return ref.assign_add(value, use_locking=use_locking, name=name)


def assign_sub(ref: Any, value: Any, use_locking: Optional[bool] = None,
               name: Optional[str] = None) -> Any:
    """TF 1's `tf.assign_sub(ref, value)`: `ref.assign_sub(value)`."""
    _check_ref(ref, "tf.assign_sub")
    return ref.assign_sub(value, use_locking=use_locking, name=name)


# --------------------------------------------------------------------------- losses
def get_regularization_losses(scope: Optional[str] = None) -> list:
    """TF 1's `tf.losses.get_regularization_losses`: `REGULARIZATION_LOSSES`, computed now."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: Optional[str] = None,
                            name: str = "total_regularization_loss") -> Any:
    """TF 1's `tf.losses.get_regularization_loss`: the sum of the regularization losses,
    or a float32 scalar 0.0 when there are none."""
    import tfcompat as tf
    losses = get_regularization_losses(scope)
    if losses:
        return tf.add_n(losses)
    return tf.constant(0.0)


def add_loss(loss: Any, loss_collection: Any = GraphKeys.LOSSES) -> None:
    """TF 1's `tf.losses.add_loss`: append `loss` to `loss_collection` (None: nowhere)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope: Optional[str] = None, loss_collection: Any = GraphKeys.LOSSES) -> list:
    """TF 1's `tf.losses.get_losses`."""
    return get_collection(loss_collection, scope)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: Optional[str] = None) -> Any:
    """TF 1's `tf.losses.get_total_loss`: `LOSSES` (+ regularization) summed; TF's
    `ValueError` when there is nothing to sum."""
    import tfcompat as tf
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found.")
    return tf.add_n(losses)


_TOP = ("GraphKeys", "get_collection", "get_collection_ref", "add_to_collection",
        "add_to_collections", "reset_default_graph", "trainable_variables", "global_variables",
        "all_variables", "local_variables", "model_variables", "moving_average_variables",
        "global_variables_initializer", "local_variables_initializer", "variables_initializer",
        "initialize_all_variables", "initialize_local_variables", "initialize_variables",
        "assign", "assign_add", "assign_sub")
_LOSSES = ("get_regularization_loss", "get_regularization_losses", "add_loss", "get_losses",
           "get_total_loss")

#: Routed by `tfcompat.compat.v1.PORTING` ("" and "losses").
V1_NAMES: dict = {
    "": {name: globals()[name] for name in _TOP},
    "losses": {name: globals()[name] for name in _LOSSES},
}
