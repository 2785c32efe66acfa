"""What SimpleRNN, LSTM and GRU share: their cells' constructor arguments and configs.

The layers hold no weights of their own; each argument lives on the cell and the layer
reads it through a property (tf_keras's `LSTM.units` is `LSTM.cell.units`). Configs list
the arguments in tf_keras's order, serialized as tf_keras does.
"""

from __future__ import annotations

from typing import Any, Iterable

from ... import activations, constraints, initializers, regularizers

__all__ = ["forward_to_cell", "cell_arguments_config", "validate_units", "set_cell_arguments"]

_SERIALIZERS = {
    "activation": activations.serialize, "recurrent_activation": activations.serialize,
    "kernel_initializer": initializers.serialize,
    "recurrent_initializer": initializers.serialize,
    "bias_initializer": initializers.serialize,
    "kernel_regularizer": regularizers.serialize,
    "recurrent_regularizer": regularizers.serialize,
    "bias_regularizer": regularizers.serialize,
    "activity_regularizer": regularizers.serialize,
    "kernel_constraint": constraints.serialize,
    "recurrent_constraint": constraints.serialize,
    "bias_constraint": constraints.serialize,
}


def validate_units(units: Any) -> None:
    if units <= 0:
        raise ValueError("Received an invalid value for argument `units`, expected a positive "
                         f"integer, got {units}.")


def set_cell_arguments(cell: Any, activation: Any, use_bias: bool, kernel_initializer: Any,
                       recurrent_initializer: Any, bias_initializer: Any,
                       kernel_regularizer: Any, recurrent_regularizer: Any,
                       bias_regularizer: Any, kernel_constraint: Any,
                       recurrent_constraint: Any, bias_constraint: Any, dropout: float,
                       recurrent_dropout: float) -> None:
    """The arguments every cell takes, resolved as tf_keras (`activations.get`, ...;
    dropout rates clipped to [0, 1])."""
    cell.activation = activations.get(activation)
    cell.use_bias = use_bias
    cell.kernel_initializer = initializers.get(kernel_initializer)
    cell.recurrent_initializer = initializers.get(recurrent_initializer)
    cell.bias_initializer = initializers.get(bias_initializer)
    cell.kernel_regularizer = regularizers.get(kernel_regularizer)
    cell.recurrent_regularizer = regularizers.get(recurrent_regularizer)
    cell.bias_regularizer = regularizers.get(bias_regularizer)
    cell.kernel_constraint = constraints.get(kernel_constraint)
    cell.recurrent_constraint = constraints.get(recurrent_constraint)
    cell.bias_constraint = constraints.get(bias_constraint)
    cell.dropout = min(1.0, max(0.0, dropout))
    cell.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))


def cell_arguments_config(obj: Any, names: Iterable[str]) -> dict:
    """`{name: serialized value}` for `names`, in that order."""
    out = {}
    for name in names:
        value = getattr(obj, name)
        serializer = _SERIALIZERS.get(name)
        out[name] = serializer(value) if serializer is not None else value
    return out


def forward_to_cell(cls: type, names: Iterable[str]) -> type:
    """Give `cls` read-only properties that return `self.cell.<name>`."""
    for name in names:
        setattr(cls, name, property(lambda self, _n=name: getattr(self.cell, _n)))
    return cls
