"""`tf.keras.layers.EinsumDense`: `activation(einsum(equation, inputs, kernel) + bias)`.

The kernel's shape is read off the equation as tf_keras does: each kernel letter takes its
size from the input (a letter shared with the input) or from `output_shape` (a letter of the
output); the batch axis and the axes under `...` come from the input. `bias_axes` names the
output letters that carry a bias; the bias spans the output from the first of them on, with
size 1 on the letters between that are not named (so it broadcasts), and, for an equation
`ab...,bc->ac...`, trailing 1s for the elided axes.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, matrix_ops
from ... import activations, constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["EinsumDense"]

# the three equation forms tf_keras accepts, with "..." written as "0"
_FORMS = (
    (re.compile("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)"), False),
    (re.compile("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)"), True),
    (re.compile("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0"), False),
)


def analyze_equation(equation: str, bias_axes: Optional[str], input_shape: TensorShape,
                     output_shape: List[Optional[int]]) -> Tuple[list, Optional[list], list]:
    """`(kernel shape, bias shape or None, full output shape)` as tf_keras's EinsumDense."""
    replaced = equation.replace("...", "0")
    for pattern, left_elided in _FORMS:
        match = pattern.match(replaced)
        if match:
            return _analyze(match.group(1), match.group(2), match.group(3), bias_axes,
                            input_shape.as_list(), list(output_shape), left_elided)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze(input_spec: str, weight_spec: str, output_spec: str, bias_axes: Optional[str],
             input_shape: list, output_shape: list, left_elided: bool) -> tuple:
    elided = len(input_shape) - len(input_spec)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        # tf_keras inserts the elided sizes after the batch, from the first on (in reverse)
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        output_shape.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        input_index = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        output_index = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_index = {d: i for i, d in enumerate(input_spec)}
        output_index = {d: i for i, d in enumerate(output_spec)}
    for dim in input_spec:
        size = input_shape[input_index[dim]]
        if dim in output_index:
            out = output_shape[output_index[dim]]
            if out is not None and out != size:
                raise ValueError("Input shape and output shape do not match at shared "
                                 f"dimension '{dim}'. Input shape is {size}, and output shape "
                                 f"is {out}.")
    for dim in output_spec:
        if dim not in input_spec and dim not in weight_spec:
            # (tf_keras names the output spec as the weight spec in this message)
            raise ValueError(f"Dimension '{dim}' was specified in the output '{output_spec}' "
                             f"but has no corresponding dim in the input spec '{input_spec}' "
                             f"or weight spec '{output_spec}'")
    kernel_shape = []
    for dim in weight_spec:
        if dim in input_index:
            kernel_shape.append(input_shape[input_index[dim]])
        elif dim in output_index:
            kernel_shape.append(output_shape[output_index[dim]])
        else:
            raise ValueError(f"Weight dimension '{dim}' did not have a match in either the input "
                             f"spec '{input_spec}' or the output spec '{output_spec}'. For this "
                             "layer, the weight must be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        offset = elided if left_elided else 0
        sizes = {d: output_shape[i + offset] for i, d in enumerate(output_spec)}
        for dim in bias_axes:
            if dim not in output_spec:
                raise ValueError(f"Bias dimension '{dim}' was requested, but is not part of the "
                                 f"output spec '{output_spec}'")
        first = min(output_spec.find(d) for d in bias_axes)
        bias_shape = [sizes[d] if d in bias_axes else 1 for d in output_spec[first:]]
        if not left_elided:
            bias_shape += [1] * max(elided, 0)
    return kernel_shape, bias_shape, output_shape


@keras_export("keras.layers.EinsumDense", "keras.layers.experimental.EinsumDense")
class EinsumDense(Layer):
    """A dense layer of any einsum `equation` between inputs and kernel (tf_keras 2.x)."""

    def __init__(self, equation: str, output_shape: Any, activation: Any = None,
                 bias_axes: Optional[str] = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.equation = equation
        self.partial_output_shape = ([output_shape] if isinstance(output_shape, int)
                                     else list(output_shape))
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        kernel_shape, bias_shape, self.full_output_shape = analyze_equation(
            self.equation, self.bias_axes, input_shape, self.partial_output_shape)
        self.kernel = self.add_weight(
            "kernel", shape=kernel_shape, initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            dtype=self.dtype, trainable=True)
        if bias_shape is not None:
            self.bias = self.add_weight(
                "bias", shape=bias_shape, initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                dtype=self.dtype, trainable=True)
        else:
            self.bias = None
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is not None and inputs.dtype != dtypes.to_torch(compute):
            inputs = math_ops.cast(inputs, compute)
        outputs = matrix_ops.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        if not self.built:
            return TensorShape(analyze_equation(self.equation, self.bias_axes,
                                                TensorShape(input_shape),
                                                self.partial_output_shape)[2])
        return TensorShape(self.full_output_shape)

    def get_config(self) -> dict:
        config = {
            "output_shape": self.partial_output_shape,
            "equation": self.equation,
            "activation": activations.serialize(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
