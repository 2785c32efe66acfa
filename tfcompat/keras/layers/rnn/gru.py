"""`tf.keras.layers.GRUCell` and `GRU` (tf_keras 2.x, the v2 layer; Cho et al. 2014).

Layout as tf_keras: kernel `[input_dim, 3 * units]`, recurrent_kernel `[units, 3 * units]`,
gates z, r, h. `reset_after=True` (the default, cuDNN's form) applies the reset gate after
the recurrent product and has two biases, `bias[0]` for the inputs and `bias[1]` for the
recurrent product (bias shape `(2, 3 * units)`); `reset_after=False` applies it before and
has one bias `(3 * units,)`. `h = z * h_{t-1} + (1 - z) * hh`.

`GRU` takes the fused torch kernel (`_fused`) for tanh / sigmoid, `reset_after=True`, a
bias, no recurrent dropout, not unrolled, and a right-padded mask if any.
"""

from __future__ import annotations

from typing import Any

from ....framework import nest
from ....ops import array_ops, math_ops, nn_ops
from ... import activations, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from . import _fused
from ._cell_args import (cell_arguments_config, forward_to_cell, set_cell_arguments,
                         validate_units)
from ._dropout_mask import DropoutRNNCellMixin
from ._fused_layer import FusedRNN
from .base_rnn import generate_zero_filled_state_for_cell
from .lstm import fused_activations

__all__ = ["GRUCell", "GRU"]

_CELL_ARGS = ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "kernel_regularizer",
              "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
              "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout",
              "implementation", "reset_after")
_LAYER_ARGS = _CELL_ARGS[:10] + ("activity_regularizer",) + _CELL_ARGS[10:]


@keras_export("keras.layers.GRUCell")
class GRUCell(DropoutRNNCellMixin, Layer):
    """The cell of a GRU layer (tf_keras 2.x `GRUCell`)."""

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 reset_after: bool = True, **kwargs: Any) -> None:
        validate_units(units)
        kwargs.pop("enable_caching_device", None)
        self.seed = kwargs.pop("seed", None)
        implementation = kwargs.pop("implementation", 2)
        super().__init__(**kwargs)
        self.units = units
        set_cell_arguments(self, activation, use_bias, kernel_initializer,
                           recurrent_initializer, bias_initializer, kernel_regularizer,
                           recurrent_regularizer, bias_regularizer, kernel_constraint,
                           recurrent_constraint, bias_constraint, dropout, recurrent_dropout)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = 1 if self.recurrent_dropout != 0 and implementation != 1 \
            else implementation
        self.reset_after = reset_after
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(input_dim, self.units * 3), name="kernel",
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units * 3), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            bias_shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
            self.bias = self.add_weight(
                shape=bias_shape, name="bias", initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        h_tm1 = states[0] if nest.is_nested(states) else states
        dp_mask = self.get_dropout_mask_for_cell(inputs, training, count=3)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(h_tm1, training, count=3)
        u = self.units
        input_bias = recurrent_bias = None
        if self.use_bias:
            if not self.reset_after:
                input_bias = self.bias
            else:
                input_bias, recurrent_bias = array_ops.unstack(self.bias)
        kernel, rk = self.kernel, self.recurrent_kernel
        if self.implementation == 1:
            if 0.0 < self.dropout < 1.0:
                x_in = [inputs * m for m in dp_mask]
            else:
                x_in = [inputs] * 3
            x_z = math_ops.matmul(x_in[0], kernel[:, :u])
            x_r = math_ops.matmul(x_in[1], kernel[:, u:2 * u])
            x_h = math_ops.matmul(x_in[2], kernel[:, 2 * u:])
            if self.use_bias:
                x_z = nn_ops.bias_add(x_z, input_bias[:u])
                x_r = nn_ops.bias_add(x_r, input_bias[u:2 * u])
                x_h = nn_ops.bias_add(x_h, input_bias[2 * u:])
            if 0.0 < self.recurrent_dropout < 1.0:
                h_z, h_r, h_h = (h_tm1 * m for m in rec_dp_mask)
            else:
                h_z = h_r = h_h = h_tm1
            recurrent_z = math_ops.matmul(h_z, rk[:, :u])
            recurrent_r = math_ops.matmul(h_r, rk[:, u:2 * u])
            if self.reset_after and self.use_bias:
                recurrent_z = nn_ops.bias_add(recurrent_z, recurrent_bias[:u])
                recurrent_r = nn_ops.bias_add(recurrent_r, recurrent_bias[u:2 * u])
            z = self.recurrent_activation(x_z + recurrent_z)
            r = self.recurrent_activation(x_r + recurrent_r)
            if self.reset_after:
                recurrent_h = math_ops.matmul(h_h, rk[:, 2 * u:])
                if self.use_bias:
                    recurrent_h = nn_ops.bias_add(recurrent_h, recurrent_bias[2 * u:])
                recurrent_h = r * recurrent_h
            else:
                recurrent_h = math_ops.matmul(r * h_h, rk[:, 2 * u:])
            hh = self.activation(x_h + recurrent_h)
        else:
            if 0.0 < self.dropout < 1.0:
                inputs = inputs * dp_mask[0]
            matrix_x = math_ops.matmul(inputs, kernel)
            if self.use_bias:
                matrix_x = nn_ops.bias_add(matrix_x, input_bias)
            x_z, x_r, x_h = array_ops.split(matrix_x, 3, axis=-1)
            if self.reset_after:
                matrix_inner = math_ops.matmul(h_tm1, rk)
                if self.use_bias:
                    matrix_inner = nn_ops.bias_add(matrix_inner, recurrent_bias)
            else:
                matrix_inner = math_ops.matmul(h_tm1, rk[:, :2 * u])
            recurrent_z = matrix_inner[:, :u]
            recurrent_r = matrix_inner[:, u:2 * u]
            z = self.recurrent_activation(x_z + recurrent_z)
            r = self.recurrent_activation(x_r + recurrent_r)
            if self.reset_after:
                recurrent_h = r * matrix_inner[:, 2 * u:]
            else:
                recurrent_h = math_ops.matmul(r * h_tm1, rk[:, 2 * u:])
            hh = self.activation(x_h + recurrent_h)
        h = z * h_tm1 + (1 - z) * hh
        new_state = [h] if nest.is_nested(states) else h
        return h, new_state

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        return generate_zero_filled_state_for_cell(self, inputs, batch_size, dtype)

    def get_config(self) -> dict:
        config = cell_arguments_config(self, _CELL_ARGS)
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@keras_export("keras.layers.GRU")
class GRU(FusedRNN):
    """Gated recurrent unit (tf_keras 2.x `GRU`)."""

    _mode = "gru"
    _gates = 3
    _params = staticmethod(_fused.gru_params)
    _layer_args = _LAYER_ARGS
    _runtime_attr = "_return_runtime"

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, unroll: bool = False, time_major: bool = False,
                 reset_after: bool = True, **kwargs: Any) -> None:
        return_runtime = kwargs.pop("return_runtime", False)
        implementation = kwargs.pop("implementation", 2)
        kwargs.pop("enable_caching_device", None)
        cell = GRUCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint, bias_constraint=bias_constraint,
            dropout=dropout, recurrent_dropout=recurrent_dropout,
            implementation=implementation, reset_after=reset_after,
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True),
            name="gru_cell")
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         time_major=time_major, **kwargs)
        self._return_runtime = return_runtime
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.input_spec = [InputSpec(ndim=3)]
        self._could_use_gpu_kernel = (fused_activations(self.activation,
                                                        self.recurrent_activation)
                                      and recurrent_dropout == 0 and not unroll and use_bias
                                      and reset_after)


forward_to_cell(GRU, _CELL_ARGS)
