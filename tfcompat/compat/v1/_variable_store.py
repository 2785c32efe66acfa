"""The variable store behind `tf.compat.v1.get_variable` (TF's `_VariableStore`).

A store maps full variable names (`d/w`) to variables and applies TF 1's graph-mode reuse
rules (see `variable_scopes.py`): a name that exists is returned when reuse allows it
(`reuse=True` or `AUTO_REUSE`; shape and dtype must agree) and is an error otherwise; a
missing one is created through `tf.Variable(...)`, so the creator stack (strategies,
`variable_creator_scope`, mixed precision) builds it. Custom getters wrap the lookup.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any, Callable, Optional

# (absolute: `from . import x` would first ask the v1 package's name resolver)
import tfcompat.compat.v1.collections as collections_lib

from ...framework import dtypes
from ...framework.name_scope import name_scope
from ...framework.tensor_shape import as_shape
from ...variables.enums import VariableAggregation, VariableSynchronization
from .collections import GraphKeys

__all__ = ["_VariableStore"]


def _needs_no_arguments(fn: Callable) -> bool:
    """Whether `fn()` is a valid call (every positional parameter has a default)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _takes(fn: Callable, arg: str) -> bool:
    """Whether `fn` names parameter `arg` explicitly (TF asks `getargspec(fn).args`)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params and params[arg].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _accepts(fn: Callable, arg: str) -> bool:
    """Whether `fn(arg=...)` is accepted (named, or `**kwargs`)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return _takes(fn, arg) or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _v1_initializer(name: str) -> Optional[Callable]:
    """TF 1's `tf.compat.v1.<name>` initializer class from `init_ops.py`, if built."""
    try:
        module = importlib.import_module("tfcompat.compat.v1.init_ops")
        return module.V1_NAMES[""][name]
    except (ImportError, AttributeError, KeyError):
        return None


def _default_initializer(name: str, dtype: dtypes.DType) -> Callable:
    """TF's default: glorot_uniform for floats, zeros for integers, bools and strings (TF 1's
    v1 initializers; the Keras ones while `init_ops.py` is not there)."""
    if dtype.is_floating:
        v1 = _v1_initializer("glorot_uniform_initializer")
        if v1 is not None:
            return v1()
        from ...keras.initializers import GlorotUniform
        return GlorotUniform()
    string = getattr(dtypes, "string", None)
    if dtype.is_integer or getattr(dtype, "is_unsigned", False) or dtype.is_bool or dtype == string:
        v1 = _v1_initializer("zeros_initializer")
        if v1 is not None:
            return v1()
        from ...keras.initializers import Zeros
        return Zeros()
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


class _VariableStore:
    """Full variable names -> variables (TF's `_VariableStore`), graph-mode reuse rules.

    `get_variable` runs the custom getter (if any) around `_true_getter`, which finds or
    creates the variable. Subclasses change two hooks: `_record_new` (collections) and
    `_add_regularizer` (where the loss goes), and `_reuse_mode` (the shim forces
    `AUTO_REUSE`).
    """

    def __init__(self) -> None:
        self._vars: dict = {}

    # -- hooks -----------------------------------------------------------------------
    def _reuse_mode(self, reuse: Any) -> Any:
        return reuse

    def _record_new(self, variable: Any, collections: Any) -> None:
        """Add a new variable to the emulated graph's collections, as TF 1's constructor:
        `collections` (default `[GLOBAL_VARIABLES]`) plus `TRAINABLE_VARIABLES`."""
        names = [GraphKeys.GLOBAL_VARIABLES] if collections is None else list(collections)
        if variable.trainable and GraphKeys.TRAINABLE_VARIABLES not in names:
            names.append(GraphKeys.TRAINABLE_VARIABLES)
        collections_lib.add_to_collections(names, variable)

    def _add_regularizer(self, variable: Any, name: str, regularizer: Callable) -> None:
        def loss() -> Any:
            with name_scope(""), name_scope(name + "/Regularizer/"):
                return regularizer(variable)
        if loss() is not None:  # (TF evaluates it once to decide)
            collections_lib.add_to_collection(
                GraphKeys.REGULARIZATION_LOSSES,
                collections_lib.LazyEvalTensor(loss, f"{name}/Regularizer/value:0"))

    # -- lookup ------------------------------------------------------------------------
    def get_variable(self, name: str, shape: Any = None, dtype: Any = dtypes.float32,
                     initializer: Any = None, regularizer: Optional[Callable] = None,
                     reuse: Any = None, trainable: Optional[bool] = None, collections: Any = None,
                     caching_device: Any = None, partitioner: Optional[Callable] = None,
                     validate_shape: bool = True, use_resource: Optional[bool] = None,
                     custom_getter: Optional[Callable] = None, constraint: Optional[Callable] = None,
                     synchronization: Any = VariableSynchronization.AUTO,
                     aggregation: Any = VariableAggregation.NONE) -> Any:
        """Get or create `name` (a full name); see `tf.compat.v1.get_variable`."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        reuse = self._reuse_mode(reuse)
        dtype = getattr(dtype, "base_dtype", dtype)

        def _true_getter(name: str, shape: Any = None, dtype: Any = dtypes.float32,
                         initializer: Any = None, regularizer: Optional[Callable] = None,
                         reuse: Any = None, trainable: Optional[bool] = None,
                         collections: Any = None, caching_device: Any = None,
                         partitioner: Optional[Callable] = None, validate_shape: bool = True,
                         use_resource: Optional[bool] = None, constraint: Optional[Callable] = None,
                         synchronization: Any = VariableSynchronization.AUTO,
                         aggregation: Any = VariableAggregation.NONE) -> Any:
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                raise NotImplementedError(
                    f"tfcompat does not build partitioned variables (get_variable({name!r}, "
                    "partitioner=...)): drop the partitioner (one tensor per variable; shard "
                    "with a tf.distribute strategy instead).")
            return self._get_single_variable(
                name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device,
                validate_shape=validate_shape, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)

        from ...variables.resource_variable import validate_synchronization_aggregation_trainable
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        if custom_getter is None:
            return _true_getter(
                name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                reuse=reuse, trainable=trainable, collections=collections,
                caching_device=caching_device, partitioner=partitioner,
                validate_shape=validate_shape, use_resource=use_resource, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)
        kwargs = dict(getter=_true_getter, name=name, shape=shape, dtype=dtype,
                      initializer=initializer, regularizer=regularizer, reuse=reuse,
                      trainable=trainable, collections=collections,
                      caching_device=caching_device, partitioner=partitioner,
                      validate_shape=validate_shape, use_resource=use_resource,
                      synchronization=synchronization, aggregation=aggregation)
        if _accepts(custom_getter, "constraint"):
            kwargs["constraint"] = constraint
        return custom_getter(**kwargs)

    def _get_single_variable(self, name: str, shape: Any = None, dtype: Any = dtypes.float32,
                             initializer: Any = None, regularizer: Optional[Callable] = None,
                             partition_info: Any = None, reuse: Any = None,
                             trainable: Optional[bool] = None, collections: Any = None,
                             caching_device: Any = None, validate_shape: bool = True,
                             constraint: Optional[Callable] = None,
                             synchronization: Any = VariableSynchronization.AUTO,
                             aggregation: Any = VariableAggregation.NONE) -> Any:
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = as_shape(shape)

        if name in self._vars:
            if reuse is False:
                raise ValueError(f"Variable {name} already exists, disallowed. Did you mean to set "
                                 "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            found = self._vars[name]
            if shape is not None and not shape.is_compatible_with(found.shape):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} "
                                 f"and found shape {found.shape}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                 f"{dtype.name} and found dtype {found.dtype.name}.")
            return found

        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")

        if initializer is None:
            if shape is None:
                raise ValueError(f"Variable {name} did not get an initializer, so its `shape` "
                                 "argument must be specified.")
            initializer = _default_initializer(name, dtype)
        if initializing_from_value:
            init_val: Any = initializer
            variable_dtype = None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                extra = {"partition_info": partition_info} if _takes(initializer, "partition_info") else {}
                init_val = functools.partial(initializer, shape.as_list(), dtype=dtype, **extra)
                variable_dtype = dtype.base_dtype
            elif _needs_no_arguments(initializer):
                init_val = initializer
                variable_dtype = None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable with "
                                 "no arguments and the shape should not be provided or an instance "
                                 "of `tf.keras.initializers.*' and `shape` should be fully defined.")

        from ...variables.variable import Variable
        with name_scope(""):  # the name is the full scope path, whatever name scope is open
            variable = Variable(
                initial_value=init_val, name=name, trainable=trainable,
                caching_device=caching_device, dtype=variable_dtype,
                validate_shape=validate_shape, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation, shape=shape)
        self._vars[name] = variable
        self._record_new(variable, collections)
        if regularizer:
            self._add_regularizer(variable, name, regularizer)
        return variable

    def _forget(self, variables: list) -> None:
        """Drop `variables` (a template's failed later call: a failed call changes nothing)."""
        ids = {id(v) for v in variables}
        for key in [k for k, v in self._vars.items() if id(v) in ids]:
            del self._vars[key]
        for v in variables:
            collections_lib._remove_from_collections(v)
