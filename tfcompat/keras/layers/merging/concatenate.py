"""`tf.keras.layers.Concatenate(axis)` and `concatenate(inputs, axis)`.

tf_keras's rules: the inputs' shapes must agree on every axis but `axis` (unknown sizes
agree with anything); the output size along `axis` is the sum (unknown if any is). Masks:
a missing mask counts as all-true over the whole input, a mask of lower rank than its input
gets a trailing axis, the masks are concatenated along `axis` and AND-reduced over the last
axis.
"""

from __future__ import annotations

from typing import Any, List

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, creation_ops, reduction_ops
from ... import backend
from ...saving.serialization import keras_export
from .base_merge import _Merge, check_mask_list, shape_tuples

__all__ = ["Concatenate", "concatenate"]


@keras_export("keras.layers.Concatenate")
class Concatenate(_Merge):
    """Joins a list of tensors along `axis` (default the last; tf_keras `Concatenate`)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._reshape_required = False

    def build(self, input_shape: Any) -> None:
        input_shape = shape_tuples(input_shape)
        if not isinstance(input_shape, list) or len(input_shape) < 1 or not isinstance(
                input_shape[0], tuple):
            raise ValueError("A `Concatenate` layer should be called on a list of at least "
                             f"1 input. Received: input_shape={input_shape}")
        if all(shape is None for shape in input_shape):
            return
        reduced = set()
        for shape in input_shape:
            dims = list(shape)
            del dims[self.axis]
            reduced.add(tuple(dims))
        if len(reduced) == 1:
            return
        message = ("A `Concatenate` layer requires inputs with matching shapes except for the "
                   f"concatenation axis. Received: input_shape={input_shape}")
        ranks = {len(shape) for shape in reduced}
        if len(ranks) != 1:
            raise ValueError(message)
        (rank,) = ranks
        for axis in range(rank):
            if len({shape[axis] for shape in reduced if shape[axis] is not None}) > 1:
                raise ValueError(message)

    def _merge_function(self, inputs: List[Any]) -> Any:
        return array_ops.concat(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        input_shape = shape_tuples(input_shape)
        if not isinstance(input_shape, (tuple, list)) or not isinstance(input_shape[0],
                                                                        (tuple, list)):
            raise ValueError("A `Concatenate` layer should be called on a list of inputs. "
                             f"Received: input_shape={input_shape}")
        output_shape = list(input_shape[0])
        for shape in input_shape[1:]:
            if output_shape[self.axis] is None or shape[self.axis] is None:
                output_shape[self.axis] = None
                break
            output_shape[self.axis] += shape[self.axis]
        return TensorShape(output_shape)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return None
        check_mask_list(inputs, mask, received="Received mask=")
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(creation_ops.ones_like(x, dtype="bool"))
            elif backend.ndim(m) < backend.ndim(x):
                masks.append(array_ops.expand_dims(m, axis=-1))
            else:
                masks.append(m)
        return reduction_ops.reduce_all(array_ops.concat(masks, axis=self.axis), axis=-1)

    def get_config(self) -> dict:
        config = {"axis": self.axis}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.concatenate")
def concatenate(inputs: Any, axis: int = -1, **kwargs: Any) -> Any:
    """`tf.keras.layers.concatenate`: `Concatenate(axis=axis, **kwargs)(inputs)`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
