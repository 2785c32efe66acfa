"""The base of the merge layers: elementwise ops over a list of tensors (tf_keras `_Merge`).

tf_keras's rules, kept here once for every merge layer:

* `build` takes a list of shapes; the per-sample shapes (batch axis dropped) must broadcast
  pairwise from the right, where a 1 or an unknown size takes the other side
  ("Inputs have incompatible shapes"), and the known batch sizes must agree.
* Inputs of different ranks are lined up by inserting size-1 axes right after the batch
  axis (`expand_dims(x, 1)` until every input has the largest rank), then merged.
* The output mask is the AND of the inputs' masks (None when none has one).
"""

from __future__ import annotations

from typing import Any, List, Optional

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, reduction_ops
from ...engine.base_layer import Layer

__all__ = ["_Merge", "shape_tuples", "merged_shape", "check_mask_list"]


def _one_shape(shape: Any) -> Any:
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list()) if shape.rank is not None else None
    if isinstance(shape, torch.Size):
        return tuple(shape)
    return shape


def shape_tuples(input_shape: Any) -> Any:
    """tf_keras's `shape_type_conversion`: a shape (or a list of them) as tuples of dims.

    A `TensorShape` becomes a tuple (None when its rank is unknown); a list or tuple whose
    items are shapes becomes a list of tuples; a flat tuple of dims is a single shape.
    """
    if isinstance(input_shape, (TensorShape, torch.Size)):
        return _one_shape(input_shape)
    if isinstance(input_shape, (list, tuple)) and input_shape and all(
            s is None or isinstance(s, (TensorShape, torch.Size, list, tuple))
            for s in input_shape):
        return [_one_shape(s) if not isinstance(s, list) else tuple(s) for s in input_shape]
    if isinstance(input_shape, list):
        return tuple(input_shape)
    return input_shape


def merged_shape(shape1: Optional[tuple], shape2: Optional[tuple]) -> Optional[tuple]:
    """The shape an elementwise op gives for per-sample shapes `shape1` and `shape2`.

    Aligned from the right; a 1 takes the other size, an unknown size stays unknown; any
    other mismatch is tf_keras's ValueError. None (unknown rank) on either side gives None.
    """
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        return merged_shape(shape2, shape1)
    if not shape2:
        return tuple(shape1)
    out = list(shape1[:-len(shape2)])
    for i, j in zip(shape1[-len(shape2):], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1:
            out.append(j)
        elif j == 1:
            out.append(i)
        elif i != j:
            raise ValueError("Inputs have incompatible shapes. "
                             f"Received shapes {shape1} and {shape2}")
        else:
            out.append(i)
    return tuple(out)


def _sample_shape(shape: Optional[tuple]) -> Optional[tuple]:
    return None if shape is None else tuple(shape[1:])


class _Merge(Layer):
    """A layer that merges a list of tensors with `_merge_function` (tf_keras `_Merge`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self._reshape_required = False

    def _merge_function(self, inputs: List[Any]) -> Any:
        raise NotImplementedError

    def _check_shapes(self, input_shape: Any) -> bool:
        """tf_keras's checks of a list of shapes; returns whether ranks must be lined up."""
        if not isinstance(input_shape, list) or not input_shape or not isinstance(
                input_shape[0], tuple):
            raise ValueError("A merge layer should be called on a list of inputs. "
                             f"Received: input_shape={input_shape} (not a list of shapes)")
        batch_sizes = {s[0] for s in input_shape if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError("Cannot merge tensors with different batch sizes. "
                             f"Got tensors with shapes {input_shape}")
        output_shape = _sample_shape(input_shape[0])
        for shape in input_shape[1:]:
            output_shape = merged_shape(output_shape, _sample_shape(shape))
        return None in input_shape or len(set(map(len, input_shape))) != 1

    def build(self, input_shape: Any) -> None:
        self._reshape_required = self._check_shapes(shape_tuples(input_shape))

    def call(self, inputs: Any) -> Any:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError("A merge layer should be called on a list of inputs. "
                             f"Received: inputs={inputs} (not a list of tensors)")
        inputs = list(inputs)
        if self._reshape_required:
            # (tensors always know their rank here, so tf_keras's transposing branch for
            # unknown ranks never applies)
            max_ndim = max(x.dim() for x in inputs)
            lined_up = []
            for x in inputs:
                for _ in range(max_ndim - x.dim()):
                    x = array_ops.expand_dims(x, axis=1)
                lined_up.append(x)
            return self._merge_function(lined_up)
        return self._merge_function(inputs)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        input_shape = shape_tuples(input_shape)
        output_shape = _sample_shape(input_shape[0])
        for shape in input_shape[1:]:
            output_shape = merged_shape(output_shape, _sample_shape(shape))
        batch_sizes = {s[0] for s in input_shape if s is not None} - {None}
        batch = list(batch_sizes)[0] if len(batch_sizes) == 1 else None
        if output_shape is None:
            return TensorShape(None)
        return TensorShape((batch,) + tuple(output_shape))

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        check_mask_list(inputs, mask)
        if all(m is None for m in mask):
            return None
        masks = [array_ops.expand_dims(m, axis=0) for m in mask if m is not None]
        return reduction_ops.reduce_all(array_ops.concat(masks, axis=0), axis=0)

    def get_config(self) -> dict:
        return super().get_config()


def check_mask_list(inputs: Any, mask: Any, received: str = "Received: mask=") -> None:
    """tf_keras's checks that a merge layer's `mask` is a list parallel to `inputs`."""
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. {received}{mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError(
            "The lists `inputs` and `mask` should have the same length. "
            f"Received: inputs={inputs} of length {len(inputs)}, and "
            f"mask={mask} of length {len(mask)}")
