"""`tf.TensorArray`, eager TF's implementation: a Python list of tensors with TF's checks.

In eager TF a TensorArray is mutable: `write`, `unstack`, `scatter` and
`split` change it and return the same object (so both `ta = ta.write(...)`
and a bare `ta.write(...)` work). Kept from TF:

* `size` is required; writing past it is `OutOfRangeError` unless
  `dynamic_size=True` (then the array grows, unwritten slots read as zeros);
* a written value must have the array's dtype (Python values are converted
  to it; another tensor dtype is `InvalidArgumentError`) and a shape
  compatible with `element_shape`, which the first write fixes when
  `infer_shape=True` (`ValueError`);
* `clear_after_read=True` (the default) empties a slot on read, so a second
  read of it is `InvalidArgumentError`; reading a never-written slot gives
  zeros of `element_shape` (`ValueError` while that shape is unknown);
* `stack` / `gather` fill unwritten slots with zeros; `concat` joins along
  the first axis.

Values are kept as written, so gradients flow through `stack`, `read`,
`gather` and `concat` with torch autograd.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ..framework import device as device_lib
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops

__all__ = ["TensorArray"]


def _index(i: Any) -> int:
    return int(i.item()) if isinstance(i, torch.Tensor) else int(i)


def _indices(indices: Any) -> list:
    if isinstance(indices, torch.Tensor):
        return [int(i) for i in indices.reshape(-1).tolist()]
    return [int(i) for i in indices]


class TensorArray:
    """`tf.TensorArray`: a mutable list of same-dtype tensors with TF's eager checks.

    `TensorArray(dtype, size, dynamic_size=None, clear_after_read=None, ...,
    infer_shape=True, element_shape=None)`; see the module docstring.
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Optional[bool] = None,
                 clear_after_read: Optional[bool] = None, tensor_array_name: Optional[str] = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: Optional[str] = None) -> None:
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is "
                             "enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is "
                             "enabled.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._values: list = [None] * _index(size)
        self._read_before: set = set()

    # -- properties ---------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def flow(self) -> torch.Tensor:
        return torch.zeros((), dtype=torch.int32)

    @property
    def handle(self) -> None:
        return None

    def identity(self) -> "TensorArray":
        """The same array (eager TF's identity is the array itself)."""
        return self

    def size(self, name: Optional[str] = None) -> torch.Tensor:
        """The current number of slots, an int32 scalar."""
        return torch.tensor(len(self._values), dtype=torch.int32,
                            device=device_lib.current_torch_device())

    def close(self, name: Optional[str] = None) -> None:
        """Drop every slot (eager TF returns None)."""
        del self._values[:]

    # -- reads ---------------------------------------------------------------------------
    def _zero(self, i: int) -> torch.Tensor:
        value = self._values[i]
        if value is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape "
                                 f"{self._element_shape} to a Tensor.")
            value = self._values[i] = torch.zeros(tuple(self._element_shape.as_list()),
                                                  dtype=self._dtype.as_torch,
                                                  device=device_lib.current_torch_device())
        return value

    def read(self, index: Any, name: Optional[str] = None) -> torch.Tensor:
        """The value at `index` (zeros if never written; cleared afterwards by default)."""
        i = _index(index)
        if i < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {i}) is "
                                              "not allowed.")
        if i >= len(self._values):
            raise OutOfRangeError(None, None, f"Tried to read from index {i} but array size "
                                              f"is: {len(self._values)} ")
        value = self._values[i]
        if value is None:
            if i in self._read_before:
                raise InvalidArgumentError(
                    None, None, f"Could not read index {i} twice because it was cleared after a "
                                "previous read (perhaps try setting clear_after_read = false?)")
            value = self._zero(i)
        if self._clear_after_read:
            self._values[i] = None
            self._read_before.add(i)
        return value

    def stack(self, name: Optional[str] = None) -> torch.Tensor:
        """All slots stacked on a new first axis (unwritten ones as zeros)."""
        for i in range(len(self._values)):
            self._zero(i)
        if not self._values:
            shape = self._element_shape.as_list() if self._element_shape.is_fully_defined() \
                else []
            return torch.zeros([0] + shape, dtype=self._dtype.as_torch,
                               device=device_lib.current_torch_device())
        return array_ops.stack(self._values)

    def gather(self, indices: Any, name: Optional[str] = None) -> torch.Tensor:
        """The slots at `indices`, stacked."""
        return array_ops.stack([self._zero(i) for i in _indices(indices)])

    def concat(self, name: Optional[str] = None) -> torch.Tensor:
        """All slots joined along their first axis."""
        values = [self._zero(i) for i in range(len(self._values))]
        for i, v in enumerate(values):
            if v.dim() == 0:
                raise InvalidArgumentError(None, None, f"Concat saw a scalar shape at index {i} "
                                                       "but requires at least vectors.")
        return array_ops.concat(values, 0)

    # -- writes --------------------------------------------------------------------------
    def _checked(self, index: Any, value: Any, shape: TensorShape) -> tuple:
        """`(index, tensor, element shape after the write)`, or TF's error; nothing changes."""
        i = _index(index)
        if i < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {i}) is not "
                                              "allowed.")
        if i >= len(self._values) and not self._dynamic_size:
            raise OutOfRangeError(None, None, f"Tried to write to index {i} but array is not "
                                              f"resizeable and size is: {len(self._values)} ")
        if not isinstance(value, torch.Tensor):
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype is not self._dtype.as_torch:
            raise InvalidArgumentError(
                None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to write "
                            f"dtype {dtypes.from_torch(value.dtype).name} ")
        value_shape = TensorShape(tuple(value.shape))
        if not shape.is_compatible_with(value_shape):
            raise ValueError(f"Incompatible shape for value ({value_shape}), expected ({shape})")
        return i, value, shape.merge_with(value_shape) if self._infer_shape else shape

    def _store(self, writes: list, shape: TensorShape) -> None:
        """Apply checked writes: grow a dynamic array as needed, then set the slots."""
        top = max((i for i, _ in writes), default=-1)
        if top >= len(self._values):
            self._values.extend([None] * (top - len(self._values) + 1))
        for i, value in writes:
            self._values[i] = value
        self._element_shape = shape

    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Set slot `index` to `value`; returns this array (a failed write changes nothing)."""
        i, value, shape = self._checked(index, value, self._element_shape)
        self._store([(i, value)], shape)
        return self

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Replace the slots by `value`'s rows (at most `size` of them unless dynamic)."""
        rows = array_ops.unstack(value)
        if len(rows) > len(self._values) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(rows)} tensors into a TensorArray of static "
                             f"size {len(self._values)} ")
        self._values = list(rows)
        return self

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """Write `value`'s rows to the slots `indices`."""
        writes, shape = [], self._element_shape
        for i, row in zip(_indices(indices), array_ops.unstack(value)):
            i, row, shape = self._checked(i, row, shape)
            writes.append((i, row))
        self._store(writes, shape)  # all rows checked first: a failed scatter changes nothing
        return self

    def split(self, value: Any, lengths: Any, name: Optional[str] = None) -> "TensorArray":
        """Replace the slots by consecutive pieces of `value` of the given `lengths`."""
        v = convert_to_tensor(value, dtype_hint=self._dtype)
        if v.dtype is not self._dtype.as_torch:
            raise TypeError(f"TensorArray dtype is {self._dtype!r} but value has dtype "
                            f"{dtypes.from_torch(v.dtype)!r}")
        n = convert_to_tensor(lengths)
        if n.dim() != 1:
            raise InvalidArgumentError(None, None, "Expected lengths to be a vector, received "
                                                   f"shape: {list(n.shape)} ")
        if v.dim() == 0:
            raise InvalidArgumentError(None, None, "Expected value to be at least a vector, but "
                                                   f"received shape: {list(v.shape)} ")
        sizes = [int(x) for x in n.tolist()]
        if sum(sizes) != v.shape[0]:
            raise InvalidArgumentError(
                None, None, f"Expected sum of lengths to be equal to values.shape[0], but sum of "
                            f"lengths is {sum(sizes)} and value's shape is: {list(v.shape)} ")
        if not self._dynamic_size and len(sizes) != len(self._values):
            raise InvalidArgumentError(
                None, None, f"TensorArray's size is not equal to the size of lengths "
                            f"({len(self._values)} vs. {len(sizes)}), and the TensorArray is not "
                            "marked as dynamically resizeable.")
        self._values = list(torch.split(v, sizes, dim=0))
        return self

    def grad(self, source: Any, flow: Any = None, name: Optional[str] = None) -> None:
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient "
            "implementation does not use/need this function to compute gradients of operations "
            "that use TensorArrays.")
