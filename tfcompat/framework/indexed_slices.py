"""`tf.IndexedSlices`: a sparse slice of a dense tensor, TF's sparse gradient."""

from __future__ import annotations

from typing import Any, Optional

import torch

from . import dtypes
from .tensor_conversion import (convert_to_tensor, convert_to_tensor_on,
                                register_tensor_conversion_function)
from .tensor_shape import TensorShape

__all__ = ["IndexedSlices"]

_CPU = torch.device("cpu")


class IndexedSlices:
    """Rows `values[i]` at `indices[i]` of a tensor of shape `dense_shape`.

    The dense tensor it stands for is `scatter_add(zeros(dense_shape), indices,
    values)`: duplicate indices add up. `tf.convert_to_tensor` densifies. It is
    what `GradientTape` returns for gradients through `tf.gather` and
    `Variable.sparse_read`, so optimizers can take their sparse path.

    `dense_shape` is an int tensor in host memory, as TF keeps shape tensors
    (one given on an accelerator is copied to the host once, here): the
    shape is read as Python ints without a device sync.
    """

    __slots__ = ("_raw_values", "_values", "_indices", "_dense_shape", "_dims")

    # tf.is_tensor is True for a composite tensor; ops still convert it as a value.
    _tfcompat_composite_tensor = True

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        # The values as given: a scatter into a variable converts them with the
        # variable's dtype (NumPy values cast, Python floats never become ints).
        self._raw_values = values
        self._values = values if isinstance(values, torch.Tensor) else None
        self._indices = convert_to_tensor(indices)
        if dense_shape is None:
            self._dense_shape = None
            self._dims: Optional[tuple] = None
        else:
            shape = convert_to_tensor_on(_CPU, dense_shape)
            if shape.device.type != "cpu":
                shape = shape.cpu()
            self._dense_shape = shape
            self._dims = None  # read on first use (a host read, no sync)

    @property
    def values(self) -> torch.Tensor:
        if self._values is None:
            self._values = convert_to_tensor(self._raw_values)
        return self._values

    @property
    def indices(self) -> torch.Tensor:
        return self._indices

    @property
    def dense_shape(self) -> Optional[torch.Tensor]:
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_torch(self.values.dtype)

    @property
    def device(self) -> torch.device:
        return self.values.device

    @property
    def shape(self) -> TensorShape:
        if self._dense_shape is None:
            return TensorShape([None] + list(self.values.shape[1:]))
        return TensorShape(self._dense_dims())

    def _dense_dims(self) -> tuple:
        """`dense_shape` as Python ints (from host memory: no device sync)."""
        if self._dims is None:
            self._dims = tuple(int(d) for d in self._dense_shape.reshape(-1).tolist())
        return self._dims

    def __neg__(self) -> "IndexedSlices":
        return IndexedSlices(-self.values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self._indices!r}, values={self.values!r}"
                + (f", dense_shape={self._dense_shape!r})" if self._dense_shape is not None else ")"))

    def to_dense(self) -> torch.Tensor:
        """The dense tensor, duplicate indices summed (what `convert_to_tensor` gives)."""
        if self._dense_shape is None:
            raise ValueError(
                "Tensor conversion requested for IndexedSlices without dense_shape: "
                f"{self!r}. Give IndexedSlices a dense_shape to densify it.")
        shape = self._dense_dims()
        out = torch.zeros(shape, dtype=self.values.dtype, device=self.values.device)
        values = self.values.reshape((-1,) + shape[1:])
        indices = self._indices.reshape(-1).to(device=out.device, dtype=torch.long)
        return out.index_add_(0, indices, values)


def _densify(value: IndexedSlices, dtype: Any = None, name: Any = None, as_ref: bool = False) -> Any:
    if dtype is not None and value.values.dtype != dtypes.to_torch(dtype):
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` "
                         f"{dtypes.as_dtype(dtype).name} for IndexedSlices ({value!r}) with dtype "
                         f"{value.dtype.name}. Cast the values first (tf.cast).")
    return value.to_dense()


register_tensor_conversion_function(IndexedSlices, _densify)
