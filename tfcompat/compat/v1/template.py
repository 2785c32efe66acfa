"""`tf.compat.v1.make_template`: wrap a function so its `get_variable`s are shared per call.

The first call of a `Template` runs `func_` inside a fresh variable scope (named
`name_`, uniquified: `t`, `t_1`, ...) and creates its variables; later calls re-enter
the same scope with `AUTO_REUSE` and get the same variables back. As TF 2's
`EagerTemplate`:

* a later call that creates a *trainable* variable raises TF's `ValueError`
  ("Trainable variable created when calling a template after the first time, perhaps
  you used tf.Variable when you meant tf.get_variable: ..."); here the variables that
  call created are also dropped again (a failed call changes nothing);
* `variables`, `trainable_variables`, `non_trainable_variables` list the variables under
  the template's scope, sorted by name; empty before the first call;
* the template is a `Trackable`: variables created in its scope are its checkpoint
  dependencies named relative to the scope (`w`, `inner/v`), so
  `tf.train.Checkpoint(t=template)` saves `t/w` and a restore before the first call
  gives the variables the checkpoint's values when they are created.

The variables live in the store active at the first call (the default store, whose
collections list them, or a `track_tf1_style_variables` store). Unlike TF 2 eager,
`unique_name_` is accepted (TF 1's graph `Template` semantics: that exact scope name).
"""

from __future__ import annotations

import functools
import traceback
from typing import Any, Callable, Optional

# (absolute: `from . import x` would first ask the v1 package's name resolver)
import tfcompat.compat.v1.variable_scopes as vs

from ...train.trackable import Trackable
from ...variables.creator import variable_creator_scope

__all__ = ["make_template", "Template"]


def make_template(name_: str, func_: Callable, create_scope_now_: bool = False,
                  unique_name_: Optional[str] = None, custom_getter_: Optional[Callable] = None,
                  **kwargs: Any) -> "Template":
    """TF 1's `tf.make_template(name_, func_, ...)`: a `Template` calling `func_` (with
    `kwargs` bound) that creates its variables once (see the module docstring).
    `create_scope_now_` fixes the scope name at construction instead of the first call;
    `custom_getter_` is the scope's custom getter."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


def _skip_common_stack_elements(stacktrace: list, base_case: list) -> list:
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template(Trackable):
    """A function whose variables are created on the first call and shared afterwards."""

    def __init__(self, name: str, func: Callable, create_scope_now: bool = False,
                 unique_name: Optional[str] = None, custom_getter: Optional[Callable] = None,
                 create_graph_function: bool = False) -> None:
        if name is None:
            raise ValueError("name cannot be None.")
        if create_graph_function:
            import tfcompat as tf
            func = tf.function(func)
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope: Optional[vs.VariableScope] = None
        if create_scope_now:
            with vs._pure_variable_scope(unique_name or vs._get_unique_variable_scope(name),
                                         custom_getter=custom_getter) as scope:
                self._variable_scope = scope
        self._variables_created = False
        self._first_call = True
        self._store: Optional[vs._VariableStore] = None  # the store of the first call
        self._scope_context: Optional[vs.variable_scope] = None

    # -- calling -----------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._variable_scope is not None:
            if self._scope_context is None:
                self._scope_context = vs.variable_scope(self._variable_scope, reuse=vs.AUTO_REUSE)
            with self._scope_context:
                with self._store_context():
                    return self._call_func(args, kwargs)
        with vs.variable_scope(self._unique_name, self._name,
                               custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            with self._store_context():
                return self._call_func(args, kwargs)

    def _store_context(self) -> Any:
        if self._store is None:
            self._store = vs._get_default_variable_store()
        return vs.with_variable_store(self._store)

    def _call_func(self, args: tuple, kwargs: dict) -> Any:
        before = self._scope_variables()
        try:
            if self._variables_created:
                result = self._func(*args, **kwargs)
                new = [v for v in self._scope_variables() if not any(v is b for b in before)]
                if any(v.trainable for v in new):
                    self._store._forget(new)
                    created = [v for v in new if v.trainable]
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{created}")
                return result
            self._first_call = False
            try:
                with variable_creator_scope(self._capture_creator):
                    result = self._func(*args, **kwargs)
            except BaseException:
                self._first_call = True
                new = [v for v in self._scope_variables() if not any(v is b for b in before)]
                self._store._forget(new)
                for v in new:
                    self._untrack_variable(v)
                raise
            self._variables_created = True
            return result
        except Exception as exc:
            trace = "".join(_skip_common_stack_elements(self._stacktrace, traceback.format_stack()))
            arg0 = exc.args[0] if exc.args else ""
            exc.args = (f"{arg0}\n\noriginally defined at:\n{trace}",) + tuple(exc.args[1:])
            raise

    def _prefix(self) -> str:
        return self._variable_scope.name + "/"

    def _capture_creator(self, next_creator: Callable, **kwargs: Any) -> Any:
        """Track each variable created in the scope as a dependency named relative to it
        (TF's `capture_dependencies`), applying a pending checkpoint restore on creation."""
        name = kwargs.get("name")
        prefix = self._prefix()
        if not (isinstance(name, str) and name.startswith(prefix)):
            return next_creator(**kwargs)
        local = name[len(prefix):]

        def getter(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   **rest: Any) -> Any:
            inner = dict(kwargs)
            inner["initial_value"] = initializer
            if shape is None:
                inner["shape"] = None
            return next_creator(**inner)
        return self._add_variable_with_custom_getter(
            name=local, shape=kwargs.get("shape"), dtype=kwargs.get("dtype"),
            initializer=kwargs.get("initial_value"), getter=getter, overwrite=True)

    def _untrack_variable(self, variable: Any) -> None:
        for ref in list(self._unconditional_checkpoint_dependencies):
            if ref.ref is variable:
                self._untrack(ref.name)

    def _scope_variables(self) -> list:
        if self._store is None or self._variable_scope is None:
            return []
        prefix = self._prefix()
        return sorted((v for v in self._store._vars.values() if v.name.startswith(prefix)),
                      key=lambda v: v.name)

    # -- properties --------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name given to `make_template` (not uniquified)."""
        return self._name

    @property
    def func(self) -> Callable:
        return self._func

    @property
    def variable_scope(self) -> Optional[vs.VariableScope]:
        """The template's `VariableScope` (None before the first call, unless
        `create_scope_now_`)."""
        return self._variable_scope

    @property
    def variable_scope_name(self) -> Optional[str]:
        """The scope name with a trailing slash (`t_1/`)."""
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    @property
    def variables(self) -> list:
        """Every variable in the template's scope, sorted by name."""
        return self._scope_variables() if self._variables_created else []

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        return [v for v in self.variables if not v.trainable]

    @property
    def global_variables(self) -> list:
        return self.variables

    @property
    def local_variables(self) -> list:
        return []

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables

    @property
    def var_scope(self) -> Optional[vs.VariableScope]:
        """Deprecated alias of `variable_scope`."""
        return self._variable_scope


#: Routed by `tfcompat.compat.v1.PORTING` (the top level).
V1_NAMES: dict = {"": {"make_template": make_template}}
