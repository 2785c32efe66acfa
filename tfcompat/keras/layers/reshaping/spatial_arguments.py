"""The `cropping` / `padding` argument of the 2-D and 3-D cropping and zero-padding layers.

tf_keras accepts an int (the same amount on both sides of every spatial axis), a tuple of
one entry per spatial axis (each an int for both sides, or a `(before, after)` pair), and
nothing else; each amount must be >= 0. The error texts are tf_keras's.
"""

from __future__ import annotations

from typing import Any, Tuple

from ..convolutional.conv_arguments import normalize_tuple

__all__ = ["normalize_pairs"]

_ORDINALS = ("1st", "2nd", "3rd")


def normalize_pairs(value: Any, rank: int, name: str, other: str) -> Tuple[Tuple[int, int], ...]:
    """`value` as `rank` `(before, after)` pairs; `other` is the error text for a value that
    is neither an int nor a sequence."""
    if isinstance(value, int):
        return tuple((value, value) for _ in range(rank))
    if hasattr(value, "__len__"):
        if len(value) != rank:
            count = "two" if rank == 2 else str(rank)
            raise ValueError(f"`{name}` should have {count} elements. Received: {value}.")
        return tuple(normalize_tuple(entry, 2, f"{_ORDINALS[i]} entry of {name}",
                                     allow_zero=True)
                     for i, entry in enumerate(value))
    raise ValueError(other + f" Received: {value}.")


def spatial_axes(data_format: str, rank: int) -> Tuple[int, ...]:
    """The positions of the `rank` spatial axes of a batched input in `data_format`."""
    start = 2 if data_format == "channels_first" else 1
    return tuple(range(start, start + rank))
