"""Elements and their types: tf.data's nesting rules, `element_spec`, `DatasetSpec`.

tf.data nests differ from `tf.nest` in one way that matters: **a list is a
value, not a structure**. `from_tensor_slices([1, 2, 3])` slices one int32
tensor, and `from_tensor_slices(([1, 2], [3., 4.]))` two; only tuples
(namedtuples included) and dicts nest. A function passed to `map` and
friends that returns a list gets it read as a tuple (TF's rule: a list out
of a function is usually a list of unrelated tensors).

An element, once made by a source, is a nest of tuples/namedtuples/dicts
whose leaves are CPU `torch.Tensor`s (or, for `window`, `Dataset`s), so
`tfcompat.framework.nest` flattens and packs it. Leaves are converted by
`tf.convert_to_tensor`'s rules: Python ints -> int32, floats -> float32,
NumPy dtypes kept. Strings have no torch counterpart: a `TypeError`.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, List, Optional

import torch

from ..framework import dtypes
from ..framework import nest
from ..framework.function import TensorSpec
from ..framework.tensor_conversion import convert_to_tensor_on
from ..framework.tensor_shape import TensorShape, as_shape

__all__ = ["DatasetSpec", "normalize", "normalize_output", "spec_of", "relaxed",
           "is_structure", "flatten", "pack", "call_with_element", "leaf_spec",
           "most_specific_compatible", "check_compatible"]

HOST = torch.device("cpu")


def is_structure(value: Any) -> bool:
    """Whether tf.data nests into `value`: tuples (namedtuples too) and mappings, not lists."""
    return isinstance(value, (tuple, collections.abc.Mapping))


def _is_dataset(value: Any) -> bool:
    return getattr(value, "_is_tfcompat_dataset", False)


def normalize(value: Any, dtype_of: Optional[Callable[[int], Any]] = None) -> Any:
    """`value` as an element: each leaf a tensor by `convert_to_tensor`'s rules, on the host
    (tensors already made are taken as they are: no copy).
    """
    if is_structure(value):
        if isinstance(value, collections.abc.Mapping):
            return type(value)((k, normalize(v)) for k, v in value.items()) if type(
                value) is not dict else {k: normalize(v) for k, v in value.items()}
        children = [normalize(v) for v in value]
        return type(value)(*children) if hasattr(value, "_fields") else type(value)(children)
    if isinstance(value, torch.Tensor) or _is_dataset(value):
        return value
    if value is None:
        raise TypeError("tf.data elements cannot hold None: every component must be a tensor "
                        "(or a value convertible to one).")
    return convert_to_tensor_on(HOST, value)


def normalize_output(value: Any) -> Any:
    """What a user function returned, as an element (a top-level list reads as a tuple)."""
    kind = type(value)
    if kind is torch.Tensor:  # the common results, already elements: no rebuild
        return value
    if kind is list:
        value = tuple(value)
        kind = tuple
    if kind is tuple and all(type(v) is torch.Tensor for v in value):
        return value
    return normalize(value)


def call_with_element(fn: Callable[..., Any], element: Any) -> Any:
    """Call a user function on an element as TF does: a plain tuple is spread over the
    positional arguments; anything else (a dict, a namedtuple, a tensor) is one argument."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)


def flatten(element: Any) -> list:
    """The leaves of an element (dicts in sorted-key order, as TF)."""
    return nest.flatten(element)


def pack(structure: Any, leaves: list) -> Any:
    """Rebuild `structure` with `leaves` (in `flatten` order)."""
    return nest.pack_sequence_as(structure, leaves)


def packer(structure: Any) -> Callable[[Any], Any]:
    """A fast `pack(structure, leaves)` for one structure, for the per-element hot paths:
    plain tuples and dicts of leaves are rebuilt directly (no structure walk per element)."""
    if not is_structure(structure):
        return lambda leaves: leaves[0]
    children = list(structure.values()) if isinstance(structure, dict) else list(structure)
    if any(is_structure(c) for c in children):
        return lambda leaves: nest.pack_sequence_as(structure, list(leaves))
    if type(structure) is tuple:
        return tuple
    if type(structure) is dict:
        keys = sorted(structure) if _sortable(structure) else list(structure)
        order = list(structure)
        if keys == order:
            return lambda leaves: dict(zip(keys, leaves))
        return lambda leaves: {k: v for k, v in sorted(zip(keys, leaves),
                                                       key=lambda kv: order.index(kv[0]))}
    return lambda leaves: nest.pack_sequence_as(structure, list(leaves))


def flattener(structure: Any) -> Callable[[Any], Any]:
    """A fast `flatten` for elements of one structure (the inverse of `packer`)."""
    if not is_structure(structure):
        return lambda element: (element,)
    children = list(structure.values()) if isinstance(structure, dict) else list(structure)
    if any(is_structure(c) for c in children):
        return nest.flatten
    if type(structure) is tuple:
        return lambda element: element
    if type(structure) is dict:
        keys = sorted(structure) if _sortable(structure) else list(structure)
        return lambda element: [element[k] for k in keys]
    return nest.flatten


def _sortable(mapping: Any) -> bool:
    try:
        sorted(mapping)
        return True
    except TypeError:
        return False


class DatasetSpec:
    """`tf.data.DatasetSpec`: the type of a dataset-valued component (a `window`).

    `element_spec` is the nested dataset's element spec; `dataset_shape` is
    `TensorShape([])` for one dataset.
    """

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def shape(self) -> TensorShape:
        return self._dataset_shape

    @property
    def value_type(self) -> type:
        from .dataset_ops import Dataset  # the class these specs describe
        return Dataset

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, DatasetSpec) and self._dataset_shape == other._dataset_shape
                and _specs_equal(self._element_spec, other._element_spec))

    def __hash__(self) -> int:
        return hash((self._dataset_shape, repr(self._element_spec)))

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def _specs_equal(a: Any, b: Any) -> bool:
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        return False
    return all(x == y for x, y in zip(nest.flatten(a), nest.flatten(b)))


def leaf_spec(leaf: Any) -> Any:
    """The spec of one component: a `TensorSpec` of its full shape, or a `DatasetSpec`."""
    if isinstance(leaf, torch.Tensor):
        return TensorSpec(TensorShape(tuple(leaf.shape)), dtypes.as_dtype(leaf.dtype))
    if _is_dataset(leaf):
        return DatasetSpec(leaf.element_spec)
    raise TypeError("A tf.data component must be a tensor or a dataset, got "
                    f"{type(leaf).__name__}.")


def spec_of(element: Any) -> Any:
    """The `element_spec` of one element: its nest with each leaf replaced by its spec."""
    return pack(element, [leaf_spec(leaf) for leaf in flatten(element)])


def most_specific_compatible(a: Any, b: Any) -> Any:
    """The most specific spec both nests of specs satisfy (dims that differ become None);
    a `TypeError` when the structures or dtypes differ."""
    check_compatible(a, b)
    out = []
    for x, y in zip(flatten(a), flatten(b)):
        if isinstance(x, DatasetSpec):
            out.append(DatasetSpec(most_specific_compatible(x.element_spec, y.element_spec)))
        else:
            out.append(TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype))
    return pack(a, out)


def check_compatible(a: Any, b: Any) -> None:
    """`TypeError` (TF's text) unless the nests of specs have one structure and leaf types."""
    try:
        nest.assert_same_structure(a, b)
        same = all(type(x) is type(y) and (isinstance(x, DatasetSpec) or x.dtype == y.dtype)
                   for x, y in zip(flatten(a), flatten(b)))
    except (ValueError, TypeError):
        same = False
    if not same:
        raise TypeError(f"Incompatible dataset elements:\n  {a!r} vs.   {b!r}")


def relaxed(spec: Any, axis_unknown: Callable[[TensorSpec], List[bool]]) -> Any:
    """`spec` with the dims `axis_unknown(leaf)` marks replaced by None."""
    out = []
    for leaf in flatten(spec):
        if isinstance(leaf, TensorSpec) and leaf.shape.rank is not None:
            marks = axis_unknown(leaf)
            dims = [None if m else d for d, m in zip(leaf.shape.as_list(), marks)]
            leaf = TensorSpec(TensorShape(dims), leaf.dtype, leaf.name)
        out.append(leaf)
    return pack(spec, out)


def unknown_axes(spec: Any) -> set:
    """The axes at which some tensor leaf of `spec` has an unknown dim."""
    axes = set()
    for leaf in flatten(spec):
        if isinstance(leaf, TensorSpec) and leaf.shape.rank is not None:
            axes.update(i for i, d in enumerate(leaf.shape.as_list()) if d is None)
    return axes
