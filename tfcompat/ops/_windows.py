"""How TF's windowed ops (convolutions, pools) read `strides`, `dilations`, `ksize`,
`padding` and `data_format`, and TF's output-size and padding arithmetic.

* A window argument is an int or a list of 1, N or N + 2 ints (N spatial
  dims); a full list holds 1 in the batch and channel positions.
* `padding` is `"SAME"`, `"VALID"` (case-sensitive, as TF's attr) or, where
  the op allows it, an explicit list of N + 2 `[before, after]` pairs.
* `SAME`: output `ceil(in / stride)`; total padding
  `max((out - 1) * stride + (k - 1) * dilation + 1 - in, 0)`, of which
  `total // 2` goes before and the rest after, so an odd total pads one
  more row at the end (torch's `padding="same"` has no such asymmetric mode
  and no strides). `VALID`: output `ceil((in - (k - 1) * dilation) / stride)`.
"""

from __future__ import annotations

import collections.abc
from typing import Any, List, Optional, Sequence, Tuple

from ..framework import errors
from ..framework.errors import invalid_argument as invalid

__all__ = ["sequence", "spatial", "parse_padding", "same_pads", "window_pads", "channels_first"]


def sequence(value: Any, n: int, channels_first_: bool, name: str) -> List[int]:
    """TF's `_get_sequence`: `value` as a list of n + 2 ints (1 for batch and channels)."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int):
        value = [value]
    elif not isinstance(value, collections.abc.Sized):
        value = [value]
    else:
        value = list(value)
    if len(value) == n + 2:
        return [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. "
                         f"Received: {name}={value} of length {len(value)}")
    value = [int(v) for v in value]
    return [1, 1] + value if channels_first_ else [1] + value + [1]


def spatial(full: Sequence[int], channels_first_: bool, op: str, what: str) -> Tuple[int, ...]:
    """The spatial entries of a full window list; batch and channel entries must be 1."""
    n = len(full)
    c = 1 if channels_first_ else n - 1
    if full[0] != 1 or full[c] != 1:
        if what == "strides":
            raise errors.UnimplementedError(None, None, (
                "Current implementation does not yet support strides in the batch and depth "
                f"dimensions. [Op:{op}]"))
        if what == "ksize":
            raise errors.UnimplementedError(None, None, (
                f"Pooling is not yet supported on the batch dimension. [Op:{op}]"))
        raise invalid(f"Current implementation does not yet support {what} in the batch and "
                      "depth dimensions.", op)
    out = tuple(full[2:]) if channels_first_ else tuple(full[1:-1])
    for v in out:
        if v <= 0:
            name = {"strides": "Stride", "dilations": "Dilated rate", "ksize": "Sliding window ksize"}
            raise invalid(f"{name.get(what, what)} must be > 0, but got {v}", op)
    return out


def channels_first(data_format: Optional[str], n: int, op: str,
                   allowed: Sequence[str]) -> bool:
    """Whether `data_format` (None: channels last) puts the channels at axis 1."""
    if data_format is None:
        return False
    if data_format not in allowed:
        shown = ", ".join(f'"{a}"' for a in allowed)
        raise invalid(f"Value for attr 'data_format' of \"{data_format}\" is not in the list of "
                      f"allowed values: {shown}", op)
    return data_format.startswith("NC")


def parse_padding(padding: Any, n: int, channels_first_: bool, op: str,
                  explicit: bool = True) -> Tuple[str, Optional[List[Tuple[int, int]]]]:
    """`("SAME" | "VALID" | "EXPLICIT", spatial (before, after) pairs or None)`."""
    if isinstance(padding, (list, tuple)):
        if not explicit:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        if len(padding) != n + 2:
            raise ValueError(f"When padding is a list, it must be of size {n + 2}. Received: "
                             f"padding={padding} of size {len(padding)}")
        pairs = []
        for p in padding:
            if not isinstance(p, (list, tuple)) or len(p) != 2:
                raise ValueError("When padding is a list, each element of padding must be a list/"
                                 f"tuple of size 2. Received: padding={padding}")
            pairs.append((int(p[0]), int(p[1])))
        c = 1 if channels_first_ else n + 1
        if pairs[0] != (0, 0) or pairs[c] != (0, 0):
            raise invalid("Nonzero explicit padding in the batch or depth dimensions is not "
                          "supported", op)
        for p in pairs:
            if p[0] < 0 or p[1] < 0:
                raise invalid(f"All elements of explicit_paddings must be nonnegative, got "
                              f"{p[0] if p[0] < 0 else p[1]}", op)
        return "EXPLICIT", (pairs[2:] if channels_first_ else pairs[1:-1])
    if padding in ("SAME", "VALID"):
        return padding, None
    allowed = '"SAME", "VALID", "EXPLICIT"' if explicit else '"SAME", "VALID"'
    raise invalid(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                  f"values: {allowed}", op)


def same_pads(size: int, k: int, stride: int, dilation: int = 1) -> Tuple[int, int]:
    """TF's SAME padding of one dimension: `(before, after)`."""
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def window_pads(mode: str, explicit: Optional[List[Tuple[int, int]]], sizes: Sequence[int],
                ks: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
                op: str) -> List[Tuple[int, int]]:
    """The `(before, after)` padding of each spatial dim; a window larger than the padded
    input is TF's `Computed output size would be negative` error."""
    if mode == "SAME":
        pads = [same_pads(n, k, s, d) for n, k, s, d in zip(sizes, ks, strides, dilations)]
    elif mode == "VALID":
        pads = [(0, 0)] * len(sizes)
    else:
        pads = list(explicit)
    for n, k, s, d, (b, a) in zip(sizes, ks, strides, dilations, pads):
        eff = (k - 1) * d + 1
        if n + b + a < eff:
            raise invalid(f"Computed output size would be negative: {(n + b + a - eff) // s + 1} "
                          f"[input_size: {n}, effective_filter_size: {eff}, stride: {s}]", op)
    return pads
