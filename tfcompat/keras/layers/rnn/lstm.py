"""`tf.keras.layers.LSTMCell` and `LSTM` (tf_keras 2.x, the v2 layer).

Layout as tf_keras: kernel `[input_dim, 4 * units]`, recurrent_kernel `[units, 4 * units]`,
bias `[4 * units]`, gates in the order i, f, c, o (`unit_forget_bias` initializes the f
block to ones); states `[h, c]`. `implementation=2` (the default) computes
`x @ kernel + h @ recurrent_kernel`, then the bias, then splits the gates;
`implementation=1` does one small product per gate (tf_keras's order of operations, both).

`LSTM` takes the fused torch kernel (`_fused`) when its configuration is the one tf_keras
sends to cuDNN (tanh, sigmoid, no recurrent dropout, not unrolled, a bias) and the mask, if
any, is right-padded; otherwise it runs the cell step by step (`_loop`).
"""

from __future__ import annotations

from typing import Any

from ....ops import array_ops, math_ops, nn_ops, unary_ops
from ... import activations, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from . import _fused
from ._cell_args import (cell_arguments_config, forward_to_cell, set_cell_arguments,
                         validate_units)
from ._dropout_mask import DropoutRNNCellMixin
from ._fused_layer import FusedRNN
from .base_rnn import generate_zero_filled_state_for_cell

__all__ = ["LSTMCell", "LSTM"]

_CELL_ARGS = ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout", "implementation")
_LAYER_ARGS = _CELL_ARGS[:11] + ("activity_regularizer",) + _CELL_ARGS[11:]

_TANH = (activations.tanh, unary_ops.tanh)
_SIGMOID = (activations.sigmoid, unary_ops.sigmoid)


def fused_activations(activation: Any, recurrent_activation: Any) -> bool:
    """Whether the activations are the fused kernels' (tanh and sigmoid)."""
    return (any(activation is f for f in _TANH)
            and any(recurrent_activation is f for f in _SIGMOID))


@keras_export("keras.layers.LSTMCell")
class LSTMCell(DropoutRNNCellMixin, Layer):
    """The cell of an LSTM layer (tf_keras 2.x `LSTMCell`)."""

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, **kwargs: Any) -> None:
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
        self.unit_forget_bias = unit_forget_bias
        # tf_keras: recurrent dropout needs the per-gate products
        self.implementation = 1 if self.recurrent_dropout != 0 and implementation != 1 \
            else implementation
        object.__setattr__(self, "state_size", [self.units, self.units])
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(input_dim, self.units * 4), name="kernel",
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units * 4), name="recurrent_kernel",
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            if self.unit_forget_bias:
                units, base = self.units, self.bias_initializer

                def bias_initializer(_: Any, *args: Any, **kwargs: Any) -> Any:
                    return array_ops.concat([
                        base((units,), *args, **kwargs),
                        initializers.get("ones")((units,), *args, **kwargs),
                        base((units * 2,), *args, **kwargs)], 0)
            else:
                bias_initializer = self.bias_initializer
            self.bias = self.add_weight(
                shape=(self.units * 4,), name="bias", initializer=bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        else:
            self.bias = None

    def _carry_and_output(self, x: tuple, h_tm1: tuple, c_tm1: Any) -> tuple:
        """implementation=1: the recurrent product per gate, then the gates."""
        x_i, x_f, x_c, x_o = x
        h_i, h_f, h_c, h_o = h_tm1
        u = self.units
        rk = self.recurrent_kernel
        i = self.recurrent_activation(x_i + math_ops.matmul(h_i, rk[:, :u]))
        f = self.recurrent_activation(x_f + math_ops.matmul(h_f, rk[:, u:2 * u]))
        c = f * c_tm1 + i * self.activation(x_c + math_ops.matmul(h_c, rk[:, 2 * u:3 * u]))
        o = self.recurrent_activation(x_o + math_ops.matmul(h_o, rk[:, 3 * u:]))
        return c, o

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        h_tm1, c_tm1 = states[0], states[1]
        dp_mask = self.get_dropout_mask_for_cell(inputs, training, count=4)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(h_tm1, training, count=4)
        if self.implementation == 1:
            if 0 < self.dropout < 1.0:
                xs = [inputs * m for m in dp_mask]
            else:
                xs = [inputs] * 4
            kernels = array_ops.split(self.kernel, num_or_size_splits=4, axis=1)
            x = [math_ops.matmul(xi, k) for xi, k in zip(xs, kernels)]
            if self.use_bias:
                biases = array_ops.split(self.bias, num_or_size_splits=4, axis=0)
                x = [nn_ops.bias_add(xi, b) for xi, b in zip(x, biases)]
            if 0 < self.recurrent_dropout < 1.0:
                hs = tuple(h_tm1 * m for m in rec_dp_mask)
            else:
                hs = (h_tm1,) * 4
            c, o = self._carry_and_output(tuple(x), hs, c_tm1)
        else:
            if 0.0 < self.dropout < 1.0:
                inputs = inputs * dp_mask[0]
            z = math_ops.matmul(inputs, self.kernel)
            z = z + math_ops.matmul(h_tm1, self.recurrent_kernel)
            if self.use_bias:
                z = nn_ops.bias_add(z, self.bias)
            z0, z1, z2, z3 = array_ops.split(z, num_or_size_splits=4, axis=1)
            i = self.recurrent_activation(z0)
            f = self.recurrent_activation(z1)
            c = f * c_tm1 + i * self.activation(z2)
            o = self.recurrent_activation(z3)
        h = o * self.activation(c)
        return h, [h, c]

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> list:
        return list(generate_zero_filled_state_for_cell(self, inputs, batch_size, dtype))

    def get_config(self) -> dict:
        config = cell_arguments_config(self, _CELL_ARGS)
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))


@keras_export("keras.layers.LSTM")
class LSTM(FusedRNN):
    """Long short-term memory (tf_keras 2.x `LSTM`, Hochreiter 1997)."""

    _mode = "lstm"
    _gates = 4
    _params = staticmethod(_fused.lstm_params)
    _layer_args = _LAYER_ARGS
    _runtime_attr = "return_runtime"

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "sigmoid", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, time_major: bool = False,
                 unroll: bool = False, **kwargs: Any) -> None:
        return_runtime = kwargs.pop("return_runtime", False)
        implementation = kwargs.pop("implementation", 2)
        if implementation == 0:
            implementation = 1
        kwargs.pop("enable_caching_device", None)
        cell = LSTMCell(
            units, activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, unit_forget_bias=unit_forget_bias,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, implementation=implementation,
            dtype=kwargs.get("dtype"), trainable=kwargs.get("trainable", True),
            name="lstm_cell")
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, time_major=time_major,
                         unroll=unroll, **kwargs)
        self.return_runtime = return_runtime
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.input_spec = [InputSpec(ndim=3)]
        object.__setattr__(self, "state_spec",
                           [InputSpec(shape=(None, dim)) for dim in (units, units)])
        self._could_use_gpu_kernel = (fused_activations(self.activation,
                                                        self.recurrent_activation)
                                      and recurrent_dropout == 0 and not unroll and use_bias)


forward_to_cell(LSTM, _CELL_ARGS)
