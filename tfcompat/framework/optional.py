"""`tf.experimental.Optional`'s eager API: a value that may be absent.

What `iterator.get_next_as_optional()` returns, for `tf.data` iterators and distributed
iterators alike.
"""

from __future__ import annotations

from typing import Any

import torch

from . import errors

__all__ = ["OptionalValue"]


class OptionalValue:
    """`has_value()` (a boolean scalar tensor, as TF), `get_value()` (TF's
    `InvalidArgumentError` when empty) and `element_spec`."""

    __slots__ = ("_value", "_has_value", "element_spec")

    def __init__(self, value: Any = None, has_value: bool = False,
                 element_spec: Any = None) -> None:
        self._value = value
        self._has_value = has_value
        self.element_spec = element_spec

    def has_value(self) -> torch.Tensor:
        return torch.tensor(self._has_value)

    def get_value(self) -> Any:
        if not self._has_value:
            raise errors.InvalidArgumentError(
                None, None, "The given optional does not have a value. [Op:OptionalGetValue]")
        return self._value
