"""`tf.compat.v1.variable_scope` and `get_variable`: TF 1's variable stores, emulated eagerly.

TF 1 shares variables by name: `get_variable("w")` inside `variable_scope("d")` looks up
`d/w` in a variable store (one per graph) and creates it when missing. This module keeps
TF 1 *graph-mode* semantics (TF 2 eager forbids reuse outside an `EagerVariableStore`):

* the default store holds every variable it creates, so `reuse=True`, `AUTO_REUSE` and
  `scope.reuse_variables()` find them, and creating `d/w` twice raises TF's
  "Variable d/w already exists, disallowed..." `ValueError`;
* a scope's name is uniquified only when opened by `default_name` (`layer`, `layer_1`,
  ...); reuse is inherited by sub-scopes; each `variable_scope` also opens a
  `tf.name_scope` (TF 2 eager name scopes, which are never uniquified, so
  `original_name_scope` of a re-entered `"foo"` is `"foo/"` where TF 1 graphs say
  `"foo_1/"`);
* variables are made by `tf.Variable(...)` (the RFC "Variables in TF 2.0": stores sit on
  the creator stack), named by the full scope path (`d/w:0`, whatever name scope is
  active), so `variable_creator_scope`s, strategies and mixed precision see them;
* they join `GLOBAL_VARIABLES` (or the `collections` given) and `TRAINABLE_VARIABLES`
  (see `collections.py`); a regularizer's loss joins `REGULARIZATION_LOSSES`;
* custom getters `getter(getter, name, *args, **kwargs)` nest: a scope's getter wraps
  the enclosing scope's.

The default store lives in the emulated default graph (`reset_default_graph()` drops
it); `with_variable_store` swaps in another one (the `track_tf1_style_variables` shim's,
a template's). Variable scopes are per thread, as TF's. Partitioned variables are not
supported (`NotImplementedError`).

(The module is `variable_scopes`, not `variable_scope`: a submodule is bound on its package
under its own name, which would hide `tf.compat.v1.variable_scope`, the context manager.)
"""

from __future__ import annotations

import enum
import functools
import threading
from typing import Any, Callable, Iterator, Optional

# (absolute: `from . import x` would first ask the v1 package's name resolver)
import tfcompat.compat.v1.collections as collections_lib

from ...framework import dtypes
from ...framework import thread_context
from ...framework.name_scope import current_name_scope, name_scope
from ...variables.enums import VariableAggregation, VariableSynchronization
from ._variable_store import _VariableStore, _default_initializer  # noqa: F401  (re-exported)
from .collections import GraphKeys

__all__ = ["AUTO_REUSE", "VariableScope", "variable_scope", "variable_op_scope",
           "get_variable", "get_local_variable", "get_variable_scope", "no_regularizer",
           "EagerVariableStore", "with_variable_store"]


class _ReuseMode(enum.Enum):
    """The third reuse mode beside True and False: create when missing, else reuse."""
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


def no_regularizer(_: Any) -> None:
    """TF 1's `tf.no_regularizer`: turns a scope's regularizer off for one variable."""
    return None


# ----------------------------------------------------------------------------- scopes
class VariableScope:
    """The defaults `get_variable` reads (TF 1's `tf.VariableScope`): `name` is the
    prefix; `reuse` is False, True or `AUTO_REUSE`; `initializer`, `regularizer`,
    `dtype` (float32), `custom_getter`, `constraint`, `partitioner`, `caching_device`,
    `use_resource` are handed to `get_variable` when it is not given them."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None,
                 regularizer: Optional[Callable] = None, caching_device: Any = None,
                 partitioner: Optional[Callable] = None, custom_getter: Optional[Callable] = None,
                 name_scope: str = "", dtype: Any = dtypes.float32,
                 use_resource: Optional[bool] = None, constraint: Optional[Callable] = None) -> None:
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self) -> None:
        """Reuse variables in this scope from now on (`reuse=True`)."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: Optional[bool]) -> None:
        self._use_resource = use_resource

    def set_regularizer(self, regularizer: Optional[Callable]) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Optional[Callable]) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Optional[Callable]) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: Any) -> list:
        """Collection `name` filtered to this scope (`scope.name + "/"`)."""
        return collections_lib.get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self) -> list:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store: _VariableStore, name: str, shape: Any = None,
                     dtype: Any = None, initializer: Any = None,
                     regularizer: Optional[Callable] = None, reuse: Any = None,
                     trainable: Optional[bool] = None, collections: Any = None,
                     caching_device: Any = None, partitioner: Optional[Callable] = None,
                     validate_shape: bool = True, use_resource: Optional[bool] = None,
                     custom_getter: Optional[Callable] = None, constraint: Optional[Callable] = None,
                     synchronization: Any = VariableSynchronization.AUTO,
                     aggregation: Any = VariableAggregation.NONE) -> Any:
        """`var_store.get_variable(self.name + "/" + name, ...)` with this scope's defaults."""
        regularizer = self._regularizer if regularizer is None else regularizer
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        reuse = self._reuse if reuse is None else reuse
        use_resource = self._use_resource if use_resource is None else use_resource
        full_name = self.name + "/" + name if self.name else name
        with name_scope(""):  # names follow variable scopes only (TF resets the name scope)
            if dtype is not None and initializer is not None and not callable(initializer):
                from ...framework.tensor_conversion import convert_to_tensor
                init_dtype = dtypes.from_torch(convert_to_tensor(initializer).dtype)
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError(f"Initializer type '{init_dtype}' and explicit dtype "
                                     f"'{dtypes.as_dtype(dtype)}' don't match.")
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device, partitioner=partitioner,
                validate_shape=validate_shape, use_resource=use_resource,
                custom_getter=custom_getter, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)


class _VariableScopeStore(threading.local):
    """This thread's current scope and how often each scope name was opened."""

    def __init__(self) -> None:
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count: dict = {}

    def open_variable_scope(self, scope_name: str) -> None:
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name: Optional[str]) -> None:
        """Reset the counts below `scope_name` (all of them for None): leaving a scope
        lets its `default_name` children start at `layer` again next time."""
        prefix = None if scope_name is None else scope_name + "/"
        for key in self.variable_scopes_count:
            if prefix is None or key.startswith(prefix):
                self.variable_scopes_count[key] = 0

    def variable_scope_count(self, scope_name: str) -> int:
        return self.variable_scopes_count.get(scope_name, 0)


_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


def get_variable_scope_store() -> _VariableScopeStore:
    """The emulated graph's (thread-local) scope store, created on first use."""
    ref = collections_lib.get_collection_ref(_VARSCOPESTORE_KEY)
    if not ref:
        ref.append(_VariableScopeStore())
    return ref[0]


def get_variable_scope() -> VariableScope:
    """TF 1's `tf.get_variable_scope()`: this thread's current `VariableScope`."""
    return get_variable_scope_store().current_scope


def capture_variable_scope() -> Callable[[], Any]:
    """For code that runs work in another thread on this thread's behalf (a strategy's
    replica threads, as TF's `_MirroredReplicaThread` does): returns a function that gives,
    in the other thread, a context re-entering this thread's current variable scope (no
    name scope: the caller carries that over itself)."""
    scope = get_variable_scope()

    def enter() -> Any:
        return _pure_variable_scope(scope)
    return enter


thread_context.register(capture_variable_scope)  # (a strategy's replica threads enter it)


def _get_default_variable_store() -> _VariableStore:
    """The store `get_variable` uses: the innermost `with_variable_store`'s, else the
    emulated graph's own (created on first use)."""
    ref = collections_lib.get_collection_ref(_VARSTORE_KEY)
    if not ref:
        ref.append(_VariableStore())
    return ref[-1]


def with_variable_store(store: _VariableStore) -> Any:
    """A context in which `get_variable` uses `store` (as TF, the store is the graph's,
    not the thread's: replica threads of a strategy see it too). The collection is a
    stack and exit removes this entry only, so overlapping uses from several replica
    threads of the same shimmed layer do not undo each other."""
    import contextlib

    @contextlib.contextmanager
    def scope() -> Iterator[None]:
        _get_default_variable_store()  # (the graph's own store stays at the bottom)
        ref = collections_lib.get_collection_ref(_VARSTORE_KEY)
        ref.append(store)
        try:
            yield
        finally:
            for i in range(len(ref) - 1, 0, -1):
                if ref[i] is store:
                    del ref[i]
                    break
    return scope()


class EagerVariableStore:
    """TF's `tf.compat.v1.EagerVariableStore`-like wrapper: a store of its own, entered by
    `as_default()`, listing `variables()` sorted by name."""

    def __init__(self, store: Optional[_VariableStore] = None) -> None:
        self._store = _VariableStore() if store is None else store

    def as_default(self) -> Any:
        return with_variable_store(self._store)

    def variables(self) -> list:
        return sorted(self._store._vars.values(), key=lambda v: v.name)

    def trainable_variables(self) -> list:
        return [v for v in self.variables() if v.trainable]

    def non_trainable_variables(self) -> list:
        return [v for v in self.variables() if not v.trainable]


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Optional[Callable] = None, trainable: Optional[bool] = None,
                 collections: Any = None, caching_device: Any = None,
                 partitioner: Optional[Callable] = None, validate_shape: bool = True,
                 use_resource: Optional[bool] = None, custom_getter: Optional[Callable] = None,
                 constraint: Optional[Callable] = None,
                 synchronization: Any = VariableSynchronization.AUTO,
                 aggregation: Any = VariableAggregation.NONE) -> Any:
    """TF 1's `tf.get_variable`: the variable `<scope>/<name>`, created when the scope's
    reuse allows it (see the module docstring). `initializer` is a callable
    `(shape, dtype[, partition_info])`, an initializer class or instance, or a value
    (tensor, numpy, list: then `shape` must be omitted). The default is glorot_uniform
    for floats and zeros for integers and bools."""
    return get_variable_scope().get_variable(
        _get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
        use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation)


def get_local_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                       regularizer: Optional[Callable] = None, trainable: bool = False,
                       collections: Any = None, caching_device: Any = None,
                       partitioner: Optional[Callable] = None, validate_shape: bool = True,
                       use_resource: Optional[bool] = None, custom_getter: Optional[Callable] = None,
                       constraint: Optional[Callable] = None,
                       synchronization: Any = VariableSynchronization.AUTO,
                       aggregation: Any = VariableAggregation.NONE) -> Any:
    """TF 1's `tf.get_local_variable`: `get_variable` into `LOCAL_VARIABLES`, never
    trainable (the `trainable` argument is ignored, as TF)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=False, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        synchronization=synchronization, aggregation=aggregation, custom_getter=custom_getter,
        constraint=constraint)


def _maybe_wrap_custom_getter(custom_getter: Callable, old_getter: Optional[Callable]) -> Callable:
    """Nest getters: the inner scope's getter receives the outer's (bound to the true
    getter) as its `getter`."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter: Callable, *args: Any, **kwargs: Any) -> Any:
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped_custom_getter


def _get_unique_variable_scope(prefix: str) -> str:
    """`prefix`, or `prefix_N` with the smallest N not yet opened in the current scope."""
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


class _pure_variable_scope:  # noqa: N801 - TF's name
    """The variable-scope half of `variable_scope` (no name scope): builds and installs
    the new `VariableScope`, restoring the old one and the name counts on exit."""

    def __init__(self, name_or_scope: Any, reuse: Any = None, initializer: Any = None,
                 regularizer: Optional[Callable] = None, caching_device: Any = None,
                 partitioner: Optional[Callable] = None, custom_getter: Optional[Callable] = None,
                 old_name_scope: Optional[str] = None, dtype: Any = dtypes.float32,
                 use_resource: Optional[bool] = None, constraint: Optional[Callable] = None) -> None:
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._var_scope_store = get_variable_scope_store()
        self._last_variable_scope_object: Optional[VariableScope] = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            scope = VariableScope(
                name_or_scope.reuse if not reuse else reuse, name=self._new_name,
                initializer=name_or_scope.initializer, regularizer=name_or_scope.regularizer,
                caching_device=name_or_scope.caching_device,
                partitioner=name_or_scope.partitioner, dtype=name_or_scope.dtype,
                custom_getter=name_or_scope.custom_getter,
                name_scope=name_or_scope.original_name_scope,
                use_resource=name_or_scope.use_resource, constraint=constraint)
            self._apply_overrides(scope, name_or_scope.custom_getter)
            self._cached_variable_scope_object = scope

    def _apply_overrides(self, scope: VariableScope, old_getter: Optional[Callable]) -> None:
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter, old_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)

    def __enter__(self) -> VariableScope:
        store = self._var_scope_store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_subscopes = dict(store.variable_scopes_count)
            scope = self._cached_variable_scope_object
        else:
            old = self._old
            self._new_name = old.name + "/" + self._name_or_scope if old.name else self._name_or_scope
            self._reuse = self._reuse or old.reuse  # reuse is inherited by sub-scopes
            scope = VariableScope(
                self._reuse, name=self._new_name, initializer=old.initializer,
                regularizer=old.regularizer, caching_device=old.caching_device,
                partitioner=old.partitioner, dtype=old.dtype, use_resource=old.use_resource,
                custom_getter=old.custom_getter,
                name_scope=self._name_or_scope if self._old_name_scope is None else self._old_name_scope,
                constraint=self._constraint)
            self._apply_overrides(scope, old.custom_getter)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last_variable_scope_object = scope
        return scope

    def __exit__(self, *exc: Any) -> None:
        store = self._var_scope_store
        if store.current_scope is not self._last_variable_scope_object:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old


class variable_scope:  # noqa: N801 - TF's public spelling
    """TF 1's `tf.variable_scope(name_or_scope, default_name=None, ...)`: a context that
    prefixes `get_variable` names, sets their defaults and reuse, and opens the
    matching `tf.name_scope` (see the module docstring). `name_or_scope` is a string or
    a `VariableScope` (re-entered as is); with None, `default_name` is uniquified.
    `reuse` is True, `AUTO_REUSE`, or None/False (inherit)."""

    def __init__(self, name_or_scope: Any, default_name: Optional[str] = None, values: Any = None,
                 initializer: Any = None, regularizer: Optional[Callable] = None,
                 caching_device: Any = None, partitioner: Optional[Callable] = None,
                 custom_getter: Optional[Callable] = None, reuse: Any = None, dtype: Any = None,
                 use_resource: Optional[bool] = None, constraint: Optional[Callable] = None,
                 auxiliary_name_scope: bool = True) -> None:
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None  # (False means "inherit": it never turns an outer reuse off)
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                            f"{auxiliary_name_scope}")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._kwargs = dict(initializer=initializer, regularizer=regularizer,
                            caching_device=caching_device, partitioner=partitioner,
                            custom_getter=custom_getter, dtype=dtype, use_resource=use_resource,
                            constraint=constraint)
        self._reuse = reuse
        self._auxiliary_name_scope = auxiliary_name_scope
        self._cached_pure_variable_scope: Optional[_pure_variable_scope] = None
        self._current_name_scope: Optional[name_scope] = None

    def __enter__(self) -> VariableScope:
        if self._cached_pure_variable_scope is not None:  # re-entering this object
            if self._current_name_scope is not None:
                self._current_name_scope.__enter__()
            return self._cached_pure_variable_scope.__enter__()
        return self._enter_scope_uncached()

    def _enter(self, scope_name: Optional[str], pure_name: Any, old_name_scope: Any,
               **extra: Any) -> VariableScope:
        """Enter the name scope (`scope_name`, unless None) then the pure variable scope;
        on failure leave the name scope again, so a failed `with` changes nothing."""
        current = None if self._auxiliary_name_scope else name_scope(
            current_name_scope() or "")
        if scope_name is not None or current is not None:
            current = current or name_scope(scope_name)
            entered = current.__enter__()
            self._current_name_scope = current
            if old_name_scope is _ENTERED:
                old_name_scope = entered
        else:
            old_name_scope = None
        pure = _pure_variable_scope(pure_name, old_name_scope=old_name_scope,
                                    **{**self._kwargs, **extra})
        try:
            result = pure.__enter__()
        except BaseException:
            if self._current_name_scope is not None:
                self._current_name_scope.__exit__(None, None, None)
                self._current_name_scope = None
            raise
        self._cached_pure_variable_scope = pure
        return result

    def _enter_scope_uncached(self) -> VariableScope:
        scope = self._name_or_scope
        if scope is not None:
            if not isinstance(scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            relative = scope if isinstance(scope, str) else scope.name.split("/")[-1]
            old = _ENTERED if isinstance(scope, str) else scope.original_name_scope
            return self._enter(relative or None, scope, old, reuse=self._reuse)
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        current = None if self._auxiliary_name_scope else name_scope(current_name_scope() or "")
        if current is not None:
            entered = current.__enter__()
        else:
            current = name_scope(self._default_name)
            entered = current.__enter__()
        self._current_name_scope = current
        try:
            unique = _get_unique_variable_scope(self._default_name)
            pure = _pure_variable_scope(unique, old_name_scope=entered, **self._kwargs)
            result = pure.__enter__()
        except BaseException:
            current.__exit__(None, None, None)
            self._current_name_scope = None
            raise
        self._cached_pure_variable_scope = pure
        return result

    def __exit__(self, *exc: Any) -> None:
        try:
            self._cached_pure_variable_scope.__exit__(*exc)
        finally:
            if self._current_name_scope is not None:
                self._current_name_scope.__exit__(*exc)


_ENTERED = object()  # "use the name scope just entered" (a string name_or_scope)


def variable_op_scope(values: Any, name_or_scope: Any, default_name: Optional[str] = None,
                      **kwargs: Any) -> variable_scope:
    """TF 1's deprecated `tf.variable_op_scope(values, name_or_scope, default_name)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)


def _v1_names() -> dict:
    from ...variables.creator import variable_creator_scope
    return {
        "AUTO_REUSE": AUTO_REUSE, "VariableScope": VariableScope,
        "variable_scope": variable_scope, "variable_op_scope": variable_op_scope,
        "get_variable": get_variable, "get_local_variable": get_local_variable,
        "get_variable_scope": get_variable_scope, "no_regularizer": no_regularizer,
        "variable_creator_scope": variable_creator_scope,
    }


#: Routed by `tfcompat.compat.v1.PORTING` (the top level).
V1_NAMES: dict = {"": _v1_names()}
