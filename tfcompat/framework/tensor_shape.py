"""`tf.TensorShape`: a possibly partial shape (unknown rank, or unknown dims).

A torch tensor always has a fully known `torch.Size`; TensorShape exists for
what torch has no word for: variables created with a partial `shape=` (whose
later assigns may change shape), and shape arithmetic in ported code.
"""

from __future__ import annotations

import operator
from typing import Any, Iterator, Optional

__all__ = ["TensorShape", "Dimension", "as_shape", "dimension_value"]


class Dimension:
    """One dimension of a `TensorShape` (`tf.compat.v1.Dimension`): an int or None."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = _as_dim_value(value)

    @property
    def value(self) -> Optional[int]:
        return self._value

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self._value

    __index__ = __int__

    def __eq__(self, other: Any) -> Any:
        try:
            other = dimension_value(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other is None:
            return None
        return self._value == other

    def __ne__(self, other: Any) -> Any:
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def is_compatible_with(self, other: Any) -> bool:
        other = dimension_value(other)
        return self._value is None or other is None or self._value == other


def _as_dim_value(value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, Dimension):
        return value.value
    if isinstance(value, float) or not hasattr(value, "__index__"):
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ method, "
            f"got value '{value!r}' with type '{type(value)}'")
    value = operator.index(value)
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


def dimension_value(dimension: Any) -> Optional[int]:
    """The int (or None) a dimension holds, whatever form it takes."""
    if isinstance(dimension, Dimension):
        return dimension.value
    return _as_dim_value(dimension)


class TensorShape:
    """A shape whose rank and dims may be unknown (`None`), as `tf.TensorShape`.

    `str()` prints like TF (`(2, 3)`, `(None,)`, `<unknown>`), comparisons
    accept lists and tuples, and indexing gives ints (or `None`) and slices
    give shapes.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if dims is None:
            self._dims: Optional[tuple] = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError(
                f"Failed to convert '{dims!r}' to a shape: a shape is a single dimension "
                "(e.g. 10) or an iterable of dimensions (e.g. [1, 10, None]).")
        else:
            if hasattr(dims, "tolist"):  # a tensor or numpy array of dims
                dims = dims.tolist()
            items = [dims] if _is_scalar_dim(dims) else list(dims)
            self._dims = tuple(_as_dim_value(d) for d in items)

    # -- structure -------------------------------------------------------
    @property
    def rank(self) -> Optional[int]:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> Optional[list]:
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple:
        """The dims as a tuple (tfcompat extension; `torch.Size(shape.as_tuple())`)."""
        return tuple(self.as_list())

    def num_elements(self) -> Optional[int]:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # -- compatibility ---------------------------------------------------
    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def is_subtype_of(self, other: Any) -> bool:
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def concatenate(self, other: Any) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self if self._dims is not None else TensorShape([None] * rank)

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other: Any) -> None:
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    # -- python protocol -------------------------------------------------
    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Optional[int]]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            if not isinstance(key, slice):
                return None
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            start = 0 if key.start is None else key.start
            if key.stop is None or start < 0 or key.stop < 0:
                return TensorShape(None)
            return TensorShape([None] * (key.stop - start))
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __add__(self, other: Any) -> "TensorShape":
        return self.concatenate(other)

    def __radd__(self, other: Any) -> "TensorShape":
        return as_shape(other).concatenate(self)

    def __eq__(self, other: Any) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __reduce__(self):
        return (TensorShape, (None if self._dims is None else list(self._dims),))

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)!r})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def _is_scalar_dim(value: Any) -> bool:
    return not hasattr(value, "__iter__")


def as_shape(shape: Any) -> TensorShape:
    """`shape` as a `TensorShape` (lists, tuples, `torch.Size`, tensors, None)."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank: Optional[int] = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)
