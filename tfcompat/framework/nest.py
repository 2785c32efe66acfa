"""`tf.nest`'s core: flatten and rebuild nested lists, tuples, namedtuples and dicts.

As TF: dicts flatten in sorted-key order, `None` and anything that is not a
list, tuple or mapping is a leaf, and `pack_sequence_as` rebuilds the same
container types.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Iterator

__all__ = ["flatten", "pack_sequence_as", "map_structure", "is_nested", "assert_same_structure"]


_NESTED = (list, tuple, collections.abc.Mapping)
# type -> whether its instances are nested: `isinstance` against the Mapping ABC is slow, and
# flattening the variable list of every training step asks it once per variable.
_nested_types: dict = {}


def is_nested(structure: Any) -> bool:
    """Whether `structure` is a list, tuple (namedtuples included) or mapping."""
    kind = type(structure)
    nested = _nested_types.get(kind)
    if nested is None:
        nested = isinstance(structure, _NESTED)
        if len(_nested_types) < 4096:  # (a Mapping.register() later is not seen for a cached type)
            _nested_types[kind] = nested
    return nested


def _sorted_keys(mapping: collections.abc.Mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def _children(structure: Any) -> list:
    if isinstance(structure, collections.abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def _flatten_into(structure: Any, out: list) -> None:
    """Append the leaves of the nested `structure` (children tested here: no call per leaf)."""
    append = out.append
    for child in _children(structure):
        if is_nested(child):
            _flatten_into(child, out)
        else:
            append(child)


def _flat_sequence(structure: Any) -> bool:
    """Whether `structure` is a plain list or tuple of leaves (the common call: a variable
    list, a batch's tensors), flattened and rebuilt without recursion."""
    kind = type(structure)
    return (kind is list or kind is tuple) and not any(map(is_nested, structure))


def flatten(structure: Any) -> list:
    """The leaves of `structure`, depth first (a leaf flattens to `[leaf]`)."""
    if not is_nested(structure):
        return [structure]
    if _flat_sequence(structure):
        return list(structure)
    out: list = []
    _flatten_into(structure, out)
    return out


def _rebuild(structure: Any, leaves: Iterator[Any]) -> Any:
    if not is_nested(structure):
        return next(leaves)
    if isinstance(structure, collections.abc.Mapping):
        keys = _sorted_keys(structure)
        values = {k: _rebuild(structure[k], leaves) for k in keys}
        return type(structure)((k, values[k]) for k in structure) if not isinstance(
            structure, collections.defaultdict) else _copy_defaultdict(structure, values)
    children = [_rebuild(child, leaves) for child in structure]
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*children)
    return type(structure)(children)


def _copy_defaultdict(structure: collections.defaultdict, values: dict) -> collections.defaultdict:
    out = collections.defaultdict(structure.default_factory)
    for k in structure:
        out[k] = values[k]
    return out


def pack_sequence_as(structure: Any, flat_sequence: list) -> Any:
    """Rebuild `structure` with the leaves of `flat_sequence`, in `flatten` order."""
    flat_sequence = list(flat_sequence)
    if _flat_sequence(structure):
        if len(structure) != len(flat_sequence):
            raise ValueError(
                f"Could not pack sequence. Structure had {len(structure)} atoms, but "
                f"flat_sequence had {len(flat_sequence)} items.")
        return flat_sequence if type(structure) is list else tuple(flat_sequence)
    expected = len(flatten(structure))
    if expected != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had "
            f"{len(flat_sequence)} items.")
    return _rebuild(structure, iter(flat_sequence))


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True) -> None:
    """`tf.nest.assert_same_structure`: ValueError (TypeError for container types) if not."""
    def check(a: Any, b: Any) -> None:
        if is_nested(a) != is_nested(b):
            raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst "
                             f"structure: {nest1!r}\n\nSecond structure: {nest2!r}")
        if not is_nested(a):
            return
        if check_types and type(a) is not type(b) and not (
                isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping)):
            raise TypeError(f"The two structures don't have the same nested structure: "
                            f"{type(a).__name__} vs. {type(b).__name__} ({a!r} vs. {b!r}).")
        if isinstance(a, collections.abc.Mapping) and set(a) != set(b):
            raise ValueError(f"The two structures don't have the same nested structure: the "
                             f"dictionaries have keys {sorted(a)} and {sorted(b)}.")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(f"The two structures don't have the same nested structure: "
                             f"{len(ca)} vs. {len(cb)} elements ({a!r} vs. {b!r}).")
        for x, y in zip(ca, cb):
            check(x, y)

    check(nest1, nest2)


def map_structure(func: Callable[..., Any], *structures: Any, check_types: bool = True) -> Any:
    """Apply `func` leaf-wise across structures of the same shape."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=check_types)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])
