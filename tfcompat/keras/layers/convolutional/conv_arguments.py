"""Argument normalisation and window arithmetic shared by the convolution and pooling layers.

These are tf_keras's `conv_utils` rules (the error texts are tf_keras's): an int or an
iterable of `n` ints becomes an `n`-tuple; padding is `valid`, `same` or (Conv1D) `causal`;
an output length follows TF's window formulas (`same`: ceil(L / s); `valid`:
ceil((L - dilated kernel + 1) / s)).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

__all__ = ["normalize_tuple", "normalize_padding", "conv_output_length"]


def normalize_tuple(value: Any, n: int, name: str, allow_zero: bool = False) -> Tuple[int, ...]:
    """`value` (an int or `n` ints) as an `n`-tuple of ints; ValueError as tf_keras's."""
    message = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for item in values:
            try:
                int(item)
            except (ValueError, TypeError):
                raise ValueError(message + f"including element {item} of type "
                                 f"{type(item)}") from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(message + f" including {bad} that does not satisfy the requirement "
                         f"`{requirement}`.")
    return values


def normalize_padding(value: Any) -> Any:
    """`valid`, `same` or `causal` (lower-cased); lists pass as they are."""
    if isinstance(value, (list, tuple)):
        return value
    padding = value.lower()
    if padding not in {"valid", "same", "causal"}:
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", "same" '
                         f'(or "causal", only for `Conv1D). Received: {padding}')
    return padding


def conv_output_length(length: Optional[int], kernel: int, padding: str, stride: int,
                       dilation: int = 1) -> Optional[int]:
    """The output length of a window op along one axis (None stays None)."""
    if length is None:
        return None
    dilated = (kernel - 1) * dilation + 1
    if padding in ("same", "causal"):
        out = length
    elif padding == "valid":
        out = length - dilated + 1
    else:  # "full"
        out = length + dilated - 1
    return (out + stride - 1) // stride
