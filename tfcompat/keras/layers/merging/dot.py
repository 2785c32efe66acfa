"""`tf.keras.layers.Dot(axes, normalize)` and `dot(inputs, axes, normalize)`.

The per-sample dot product of two tensors along `axes` (one axis each, never the batch
axis): tf_keras's `backend.batch_dot`. Its steps are kept so shapes and the reduction are
tf_keras's: a rank-2 `x` gains an axis at 1 and a rank-2 `y` at 2; the reduced axis of `x`
moves last and that of `y` to position 1; both are squashed to rank 3 and multiplied with a
batched matmul; the result is reshaped back and the added axis squeezed. A product of two
rank-2 inputs is `[batch, 1]`. `normalize=True` L2-normalizes each input along its axis
first (`tf.linalg.l2_normalize`, epsilon 1e-12), giving the cosine similarity.
"""

from __future__ import annotations

from typing import Any, List, Sequence

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, math_ops, normalization_ops
from ...saving.serialization import keras_export
from .base_merge import _Merge, shape_tuples

__all__ = ["Dot", "dot"]


def _batch_dot(x: Any, y: Any, axes: Sequence[int]) -> Any:
    """tf_keras's `backend.batch_dot(x, y, axes)` for a pair of non-negative axes."""
    x_shape, y_shape = tuple(x.shape), tuple(y.shape)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError("Cannot do batch_dot on inputs with rank < 2. Received inputs with "
                         f"shapes {x_shape} and {y_shape}.")
    if x_shape[0] != y_shape[0]:
        raise ValueError("Cannot do batch_dot on inputs with different batch sizes. Received "
                         f"inputs with shapes {x_shape} and {y_shape}.")
    a0, a1 = (a + n if a < 0 else a for a, n in zip(axes, (x_ndim, y_ndim)))
    if 0 in (a0, a1):
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, "
                         "add a dummy batch dimension to your inputs using K.expand_dims(x, 0)")
    if x_shape[a0] != y_shape[a1]:
        raise ValueError(f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} "
                         f"with axes={[a0, a1]}. x.shape[{a0}] != y.shape[{a1}] "
                         f"({x_shape[a0]} != {y_shape[a1]}).")
    orig_x_ndim, orig_y_ndim = x_ndim, y_ndim
    if x_ndim == 2:
        x = array_ops.expand_dims(x, 1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = array_ops.expand_dims(y, 2)
        y_ndim += 1
    if a0 != x_ndim - 1:
        x = array_ops.transpose(x, [i for i in range(x_ndim) if i != a0] + [a0])
    if a1 != 1:
        y = array_ops.transpose(y, [0, a1] + [i for i in range(1, y_ndim) if i != a1])
    x_mid = list(x.shape[1:-1])
    y_trail = list(y.shape[2:])
    if x_ndim > 3:
        x = array_ops.reshape(x, [x.shape[0], -1, x.shape[-1]])
    if y_ndim > 3:
        y = array_ops.reshape(y, [y.shape[0], y.shape[1], -1])
    result = math_ops.matmul(x, y)
    if x_ndim > 3 or y_ndim > 3:
        shape = list(result.shape)
        if x_ndim > 3:
            shape = shape[:1] + x_mid + shape[-1:]
        if y_ndim > 3:
            shape = shape[:-1] + y_trail
        result = array_ops.reshape(result, shape)
    if orig_x_ndim == 2:
        result = array_ops.squeeze(result, 1)
    elif orig_y_ndim == 2:
        result = array_ops.squeeze(result, -1)
    return result


def _check_axes(axes: Any) -> None:
    if isinstance(axes, int):
        return
    if not isinstance(axes, (list, tuple)):
        raise TypeError("Invalid type for argument `axes`: it should be a list or an int. "
                        f"Received: axes={axes}")
    if len(axes) != 2:
        raise ValueError("Invalid format for argument `axes`: it should contain two elements. "
                         f"Received: axes={axes}")
    if not isinstance(axes[0], int) or not isinstance(axes[1], int):
        raise ValueError("Invalid format for argument `axes`: list elements should be "
                         f"integers. Received: axes={axes}")


@keras_export("keras.layers.Dot")
class Dot(_Merge):
    """The dot product of two batched tensors along `axes` (tf_keras `Dot`)."""

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_axes(axes)
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True
        self._reshape_required = False

    def _shape_axes(self, rank1: int, rank2: int) -> List[int]:
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % rank1, self.axes % rank2]
            return [self.axes] * 2
        return list(self.axes)

    def build(self, input_shape: Any) -> None:
        input_shape = shape_tuples(input_shape)
        if not isinstance(input_shape, list) or not isinstance(input_shape[0], tuple) or \
                len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")
        shape1, shape2 = input_shape
        if shape1 is None or shape2 is None:
            return
        axes = self._shape_axes(len(shape1), len(shape2))
        if shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError(
                f"Incompatible input shapes: axis values {shape1[axes[0]]} (at axis {axes[0]}) "
                f"!= {shape2[axes[1]]} (at axis {axes[1]}). "
                f"Full input shapes: {shape1}, {shape2}")

    def _merge_function(self, inputs: List[Any]) -> Any:
        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        x1, x2 = inputs
        if isinstance(self.axes, int):
            axes = self._shape_axes(x1.dim(), x2.dim())
        else:
            axes = [a % x.dim() if a < 0 else a for a, x in zip(self.axes, inputs)]
        if self.normalize:
            x1 = normalization_ops.l2_normalize(x1, axis=axes[0])
            x2 = normalization_ops.l2_normalize(x2, axis=axes[1])
        return _batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        input_shape = shape_tuples(input_shape)
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")
        shape1, shape2 = list(input_shape[0]), list(input_shape[1])
        axes = self._shape_axes(len(shape1), len(shape2))
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        shape2.pop(0)
        output_shape = shape1 + shape2
        if len(output_shape) == 1:
            output_shape += [1]
        return TensorShape(output_shape)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None

    def get_config(self) -> dict:
        config = {"axes": self.axes, "normalize": self.normalize}
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))


@keras_export("keras.layers.dot")
def dot(inputs: Any, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """`tf.keras.layers.dot`: `Dot(axes=axes, normalize=normalize, **kwargs)(inputs)`."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
