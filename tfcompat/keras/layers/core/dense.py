"""`tf.keras.layers.Dense`: `activation(inputs @ kernel + bias)` on the last axis.

tf_keras's layout and numerics: kernel `[input_dim, units]`, bias `[units]` (so tf_keras
checkpoints and `.h5` files load as they are), TF's `MatMul` then `BiasAdd` (two roundings,
not a fused `addmm`), `tensordot` over the last axis for inputs of rank > 2.
"""

from __future__ import annotations

from typing import Any

import torch

from ....framework import dtypes
from ....framework import tensor_conversion
from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, matrix_ops, nn_ops
from ....ops._blas import matmul_2d
from ... import activations, backend, constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export

__all__ = ["Dense"]


@keras_export("keras.layers.Dense")
class Dense(Layer):
    """A densely connected layer (tf_keras 2.x `Dense`)."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units) if not isinstance(units, int) else units
        if self.units < 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        dtype = dtypes.as_dtype(self.dtype or backend.floatx())
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError("A Dense layer can only be built with a floating-point dtype. "
                            f"Received: dtype={dtype!r}")
        input_shape = TensorShape(input_shape)
        last_dim = input_shape.as_list()[-1] if input_shape.rank else None
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel", shape=[last_dim, self.units], initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.units], initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                dtype=self.dtype, trainable=True)
        else:
            self.bias = None
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        compute = self._compute_dtype_object
        if compute is not None and inputs.dtype != dtypes.to_torch(compute):
            inputs = math_ops.cast(inputs, compute)
        outputs = self._plain_affine(inputs)
        if outputs is None:
            rank = inputs.dim()
            if rank == 2:
                outputs = math_ops.matmul(inputs, self.kernel)
            else:
                outputs = matrix_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            if self.use_bias:
                outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def _plain_affine(self, inputs: Any) -> Any:
        """`inputs @ kernel + bias` straight on torch for the common call -- a matrix of the
        kernel's floating dtype and device, plain variables -- else None (the ops below,
        with their conversions and TF's errors). The same two ops TF runs (MatMul, then
        BiasAdd), so the same values and gradients."""
        kernel, bias = self.kernel, self.bias
        plain = tensor_conversion.plain_read_types()
        if (type(inputs) is not torch.Tensor or inputs.dim() != 2 or type(kernel) not in plain
                or (bias is not None and type(bias) not in plain)):
            return None
        k = kernel.value()
        if (k.dtype is not inputs.dtype or not k.is_floating_point() or k.dim() != 2
                or k.shape[0] != inputs.shape[1] or k.device != inputs.device):
            return None
        if bias is None:
            return matmul_2d(inputs, k)
        b = bias.value()
        if b.dtype is not k.dtype or b.shape != k.shape[1:] or b.device != k.device:
            return None
        return torch.add(matmul_2d(inputs, k), b)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        input_shape = TensorShape(input_shape)
        if input_shape.rank is None or input_shape.as_list()[-1] is None:
            raise ValueError("The last dimension of the input shape of a Dense layer should be "
                             f"defined. Found None. Received: input_shape={input_shape}")
        return TensorShape(input_shape.as_list()[:-1] + [self.units])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        })
        return config
