"""`PreprocessingLayer`: a layer whose state is computed before training by `adapt(data)`.

`adapt` resets the state (when built), feeds the data batch by batch to `update_state`
(building the layer from the first batch's shape), then calls `finalize_state`, as
tf_keras's `PreprocessingLayer.adapt`. Data may be a NumPy array, a tensor, a Python list
(batches of `batch_size`, 32 by default, in order) or a `tf.data.Dataset` (its elements are
the batches).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

import numpy as np
import torch

from ....data.dataset_ops import Dataset
from ....framework.tensor_conversion import convert_to_tensor
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["PreprocessingLayer"]


def _batches(data: Any, batch_size: Optional[int], steps: Optional[int]) -> Iterator[Any]:
    if isinstance(data, Dataset):
        if batch_size is not None:
            raise ValueError("The `batch_size` argument must not be specified for the given "
                             "input type. Received input: "
                             f"{data}, batch_size: {batch_size}")
        for i, element in enumerate(data):
            if steps is not None and i >= steps:
                return
            if isinstance(element, (tuple, list)):
                element = element[0]  # (x, y) pairs: the layer adapts on x
            yield element
        return
    if isinstance(data, torch.Tensor):
        tensor = data
    else:
        array = np.asarray(data)
        tensor = convert_to_tensor(array)
    size = 32 if batch_size is None else int(batch_size)
    total = tensor.shape[0] if tensor.dim() > 0 else 1
    if tensor.dim() == 0:
        yield tensor
        return
    count = 0
    for start in range(0, total, size):
        if steps is not None and count >= steps:
            return
        count += 1
        yield tensor[start:start + size]


@keras_export("keras.layers.experimental.preprocessing.PreprocessingLayer")
class PreprocessingLayer(Layer):
    """Base class of the adaptable layers (tf_keras `PreprocessingLayer`)."""

    _must_restore_from_config = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._is_compiled = False
        self._is_adapted = False

    @property
    def is_adapted(self) -> bool:
        return self._is_adapted

    def update_state(self, data: Any) -> None:
        raise NotImplementedError

    def reset_state(self) -> None:
        raise NotImplementedError

    def finalize_state(self) -> None:
        pass

    def compile(self, run_eagerly: Any = None, steps_per_execution: Any = None) -> None:
        self._is_compiled = True

    def adapt(self, data: Any, batch_size: Optional[int] = None,
              steps: Optional[int] = None) -> None:
        """Compute the layer's state from `data` (see the module docstring)."""
        if not self._is_compiled:
            self.compile()
        if self.built:
            self.reset_state()
            self._is_adapted = False
        for batch in _batches(data, batch_size, steps):
            self._adapt_maybe_build(batch)
            self.update_state(batch)
        self.finalize_state()
        self._is_adapted = True

    def _adapt_maybe_build(self, data: Any) -> None:
        if not self.built:
            shape = getattr(data, "shape", None)
            if shape is not None and getattr(self, "_batch_input_shape", None) is None:
                self._batch_input_shape = tuple([None] * len(shape))
            from ....framework.tensor_shape import TensorShape
            input_shape = None if shape is None else TensorShape(list(shape))
            self.build(input_shape)
            Layer.build(self, input_shape)
