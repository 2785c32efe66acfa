"""`tf.keras.layers.SimpleRNNCell` and `SimpleRNN`: `h_t = activation(x_t @ kernel + bias +
h_{t-1} @ recurrent_kernel)`.

tf_keras 2.x layout and numerics: kernel `[input_dim, units]`, recurrent_kernel
`[units, units]`, bias `[units]`; TF's order of operations (`MatMul`, `BiasAdd`, then the
recurrent `MatMul` added). `dropout` masks the inputs and `recurrent_dropout` the previous
output, one mask per call, in training only.
"""

from __future__ import annotations

from typing import Any

from ....framework import nest
from ....ops import math_ops, nn_ops
from ... import regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ._cell_args import (cell_arguments_config, forward_to_cell, set_cell_arguments,
                         validate_units)
from ._dropout_mask import DropoutRNNCellMixin
from .base_rnn import RNN, generate_zero_filled_state_for_cell

__all__ = ["SimpleRNNCell", "SimpleRNN"]

_CELL_ARGS = ("units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
              "bias_regularizer", "kernel_constraint", "recurrent_constraint",
              "bias_constraint", "dropout", "recurrent_dropout")
_LAYER_ARGS = _CELL_ARGS[:9] + ("activity_regularizer",) + _CELL_ARGS[9:]


@keras_export("keras.layers.SimpleRNNCell")
class SimpleRNNCell(DropoutRNNCellMixin, Layer):
    """The cell of a fully connected RNN (tf_keras 2.x `SimpleRNNCell`)."""

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, **kwargs: Any) -> None:
        validate_units(units)
        kwargs.pop("enable_caching_device", None)
        self.seed = kwargs.pop("seed", None)
        super().__init__(**kwargs)
        self.units = units
        set_cell_arguments(self, activation, use_bias, kernel_initializer,
                           recurrent_initializer, bias_initializer, kernel_regularizer,
                           recurrent_regularizer, bias_regularizer, kernel_constraint,
                           recurrent_constraint, bias_constraint, dropout, recurrent_dropout)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units), name="kernel",
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.units,), name="bias", initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        prev_output = states[0] if nest.is_nested(states) else states
        dp_mask = self.get_dropout_mask_for_cell(inputs, training)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(prev_output, training)
        if dp_mask is not None:
            h = math_ops.matmul(inputs * dp_mask, self.kernel)
        else:
            h = math_ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            h = nn_ops.bias_add(h, self.bias)
        if rec_dp_mask is not None:
            prev_output = prev_output * rec_dp_mask
        output = h + math_ops.matmul(prev_output, self.recurrent_kernel)
        if self.activation is not None:
            output = self.activation(output)
        new_state = [output] if nest.is_nested(states) else output
        return output, new_state

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        return generate_zero_filled_state_for_cell(self, inputs, batch_size, dtype)

    def get_config(self) -> dict:
        config = cell_arguments_config(self, _CELL_ARGS)
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@keras_export("keras.layers.SimpleRNN")
class SimpleRNN(RNN):
    """A fully connected RNN whose output is fed back (tf_keras 2.x `SimpleRNN`)."""

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, unroll: bool = False, **kwargs: Any) -> None:
        kwargs.pop("implementation", None)  # deprecated in tf_keras, ignored
        kwargs.pop("enable_caching_device", None)
        cell = SimpleRNNCell(
            units, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True), name="simple_rnn_cell")
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         **kwargs)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.input_spec = [InputSpec(ndim=3)]

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             initial_state: Any = None) -> Any:
        return super().call(inputs, mask=mask, training=training, initial_state=initial_state)

    def get_config(self) -> dict:
        config = cell_arguments_config(self, _LAYER_ARGS)
        base_config = super().get_config()
        del base_config["cell"]
        return dict(list(base_config.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "SimpleRNN":
        config = dict(config)
        config.pop("implementation", None)
        return cls(**config)


forward_to_cell(SimpleRNN, _CELL_ARGS)
