"""`tf.Module`: a named container of variables and submodules (TF's `module.py`).

As TF 2:

* `name` defaults to the class name in snake case; an explicit name must be
  a Python identifier (`ValueError` otherwise). The module captures the name
  scope it was created in: `name_scope` is `tf.name_scope("outer/name/")`,
  entered by methods decorated with `@tf.Module.with_name_scope` (so their
  variables are named `outer/name/...:0`). `__init__` itself is not scoped.
* `variables`, `trainable_variables`, `non_trainable_variables` and
  `submodules` walk the module's attributes sorted by name, depth first
  through lists, tuples, namedtuples and dicts (dicts by sorted key), then
  the submodules found, recursively; every object appears once (by
  identity). `_flatten` is the general walk.
* A module is an `AutoTrackable`: its attributes are the object graph a
  `tf.train.Checkpoint` saves.
"""

from __future__ import annotations

import collections.abc
import functools
import re
from typing import Any, Callable, Iterator, Optional

from ..framework import variable_protocol as protocol
from ..framework.name_scope import name_scope as name_scope_cls
from .trackable import AutoTrackable

__all__ = ["Module", "valid_identifier", "camel_to_snake"]

_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")
_CAMEL_TO_SNAKE_R = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")


def valid_identifier(name: str) -> bool:
    return bool(_VALID_IDENTIFIER.match(name))


def camel_to_snake(value: str) -> str:
    return _CAMEL_TO_SNAKE_R.sub(r"_\1", value).lower()


class Module(AutoTrackable):
    """Base neural network module class (`tf.Module`).

    Subclass it, create variables (and submodules) in `__init__` or lazily
    in a method, and decorate methods with `@tf.Module.with_name_scope` to
    name what they create under the module's scope.
    """

    _TF_MODULE_IGNORED_PROPERTIES = frozenset((
        "_self_unconditional_checkpoint_dependencies",
        "_self_unconditional_dependency_names",
    ))

    def __init__(self, name: Optional[str] = None) -> None:
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not valid_identifier(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope_cls(name) as scope_name:
            self._name_scope = name_scope_cls(scope_name)

    @property
    def name(self) -> str:
        """The name given to (or derived for) this module."""
        return self._name

    @property
    def name_scope(self) -> name_scope_cls:
        """A `tf.name_scope` for this module (absolute: `outer/name/`)."""
        return self._name_scope

    @property
    def variables(self) -> tuple:
        """Variables of this module (by attribute name) and then of its submodules."""
        return tuple(self._flatten(predicate=_is_variable, expand_composites=True))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable ones of `variables`, in the same order."""
        return tuple(self._flatten(predicate=_is_trainable_variable, expand_composites=True))

    @property
    def non_trainable_variables(self) -> tuple:
        """The non-trainable ones of `variables`, in the same order."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable, expand_composites=True))

    @property
    def submodules(self) -> tuple:
        """Every module reachable from this one's attributes (itself excluded)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive: bool = True, predicate: Optional[Callable[[Any], bool]] = None,
                 attribute_traversal_key: Optional[Callable[[str], Any]] = None,
                 with_path: bool = False, expand_composites: bool = False) -> Iterator[Any]:
        """Leaves of the attributes (sorted by name), then of submodules if `recursive`.

        Leaves matching `predicate` are yielded, each once unless `with_path`
        (then `(path, leaf)` for every path). `attribute_traversal_key` is
        the sort key of attribute names. tfcompat has no composite tensors,
        so `expand_composites` changes nothing.
        """
        if predicate is None:
            predicate = lambda _: True  # noqa: E731
        return _flatten_module(
            self, recursive=recursive, predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES, with_path=with_path)

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator: run `method` inside the module's `name_scope`."""
        @functools.wraps(method)
        def method_with_name_scope(self: "Module", *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"


def _is_variable(obj: Any) -> bool:
    return protocol.is_variable(obj)


def _is_trainable_variable(obj: Any) -> bool:
    return protocol.is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj: Any) -> bool:
    return protocol.is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj: Any) -> bool:
    return isinstance(obj, Module)


def _flatten_with_paths(structure: Any, path: tuple = ()) -> Iterator[tuple]:
    """`(path, leaf)` depth first, as TF's `nest.flatten_with_tuple_paths`."""
    if isinstance(structure, collections.abc.Mapping):
        try:
            keys = sorted(structure)
        except TypeError:
            keys = list(structure)
        for key in keys:
            yield from _flatten_with_paths(structure[key], path + (key,))
    elif isinstance(structure, (list, tuple)) and not protocol.is_variable(structure):
        fields = getattr(structure, "_fields", None) if isinstance(structure, tuple) else None
        names = fields if fields is not None else range(len(structure))
        for name, item in zip(names, structure):
            yield from _flatten_with_paths(item, path + (name,))
    else:
        yield path, structure


def _flatten_values(structure: Any) -> list:
    return [leaf for _, leaf in _flatten_with_paths(structure)]


def _flatten_module(module: Module, recursive: bool, predicate: Callable[[Any], bool],
                    attribute_traversal_key: Optional[Callable], attributes_to_ignore: frozenset,
                    with_path: bool, module_path: tuple = (), seen: Optional[set] = None,
                    recursion_stack: Optional[list] = None) -> Iterator[Any]:
    module_id = id(module)
    if seen is None:
        seen = {module_id}
    if recursion_stack is None:
        recursion_stack = []
    if module_id in recursion_stack:  # a cycle: yield this module's own leaves only
        recursive = False
    module_dict = vars(module)
    submodules = []
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        prop = module_dict[key]
        try:
            leaves = list(_flatten_with_paths(prop))
        except Exception as cause:
            raise ValueError(f"Error processing property {key!r} of {prop!r}") from cause
        for leaf_path, leaf in leaves:
            leaf_path = (key,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(module_id)
    for submodule_path, submodule in submodules:
        yield from _flatten_module(
            submodule, recursive=recursive, predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=submodule._TF_MODULE_IGNORED_PROPERTIES, with_path=with_path,
            module_path=submodule_path, seen=seen, recursion_stack=recursion_stack)
    recursion_stack.pop()
