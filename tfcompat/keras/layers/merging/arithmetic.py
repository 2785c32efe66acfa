"""The elementwise merge layers: `Add`, `Subtract`, `Multiply`, `Average`, `Maximum`,
`Minimum`, and their functional forms (`add([x, y])` builds the layer and calls it).

The ops are TF's (`AddV2`, `Sub`, `Mul`, `Maximum`, `Minimum`, true division) applied left
to right as tf_keras does: `((x0 + x1) + x2) ...`, and an average divides that sum by the
number of inputs, so the roundings are tf_keras's. A tie in `Maximum`/`Minimum` sends the
gradient to the earlier input, as TF's kernels do.
"""

from __future__ import annotations

from typing import Any, List

from ....ops import math_ops
from ...saving.serialization import keras_export
from .base_merge import _Merge, shape_tuples

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
           "add", "subtract", "multiply", "average", "maximum", "minimum"]


def _fold(op: Any, inputs: List[Any]) -> Any:
    output = inputs[0]
    for x in inputs[1:]:
        output = op(output, x)
    return output


@keras_export("keras.layers.Add")
class Add(_Merge):
    """Sums a list of tensors of one (broadcastable) shape (tf_keras `Add`)."""

    def _merge_function(self, inputs: List[Any]) -> Any:
        return _fold(math_ops.add, inputs)


@keras_export("keras.layers.Subtract")
class Subtract(_Merge):
    """`inputs[0] - inputs[1]` for a list of exactly two tensors (tf_keras `Subtract`)."""

    def build(self, input_shape: Any) -> None:
        shapes = shape_tuples(input_shape)
        reshape = self._check_shapes(shapes)
        if len(shapes) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: input_shape={shapes}")
        self._reshape_required = reshape

    def _merge_function(self, inputs: List[Any]) -> Any:
        if len(inputs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs. "
                             f"Received: inputs={inputs}")
        return math_ops.subtract(inputs[0], inputs[1])


@keras_export("keras.layers.Multiply")
class Multiply(_Merge):
    """The elementwise product of a list of tensors (tf_keras `Multiply`)."""

    def _merge_function(self, inputs: List[Any]) -> Any:
        return _fold(math_ops.multiply, inputs)


@keras_export("keras.layers.Average")
class Average(_Merge):
    """The elementwise mean of a list of tensors: their left-to-right sum divided by their
    count (tf_keras `Average`; integer inputs give TF's true-division float)."""

    def _merge_function(self, inputs: List[Any]) -> Any:
        return math_ops.truediv(_fold(math_ops.add, inputs), len(inputs))


@keras_export("keras.layers.Maximum")
class Maximum(_Merge):
    """The elementwise maximum of a list of tensors (tf_keras `Maximum`)."""

    def _merge_function(self, inputs: List[Any]) -> Any:
        return _fold(math_ops.maximum, inputs)


@keras_export("keras.layers.Minimum")
class Minimum(_Merge):
    """The elementwise minimum of a list of tensors (tf_keras `Minimum`)."""

    def _merge_function(self, inputs: List[Any]) -> Any:
        return _fold(math_ops.minimum, inputs)


@keras_export("keras.layers.add")
def add(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.add`: `Add(**kwargs)(inputs)`."""
    return Add(**kwargs)(inputs)


@keras_export("keras.layers.subtract")
def subtract(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.subtract`: `Subtract(**kwargs)(inputs)` (exactly two inputs)."""
    return Subtract(**kwargs)(inputs)


@keras_export("keras.layers.multiply")
def multiply(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.multiply`: `Multiply(**kwargs)(inputs)`."""
    return Multiply(**kwargs)(inputs)


@keras_export("keras.layers.average")
def average(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.average`: `Average(**kwargs)(inputs)`."""
    return Average(**kwargs)(inputs)


@keras_export("keras.layers.maximum")
def maximum(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.maximum`: `Maximum(**kwargs)(inputs)`."""
    return Maximum(**kwargs)(inputs)


@keras_export("keras.layers.minimum")
def minimum(inputs: Any, **kwargs: Any) -> Any:
    """`tf.keras.layers.minimum`: `Minimum(**kwargs)(inputs)`."""
    return Minimum(**kwargs)(inputs)
