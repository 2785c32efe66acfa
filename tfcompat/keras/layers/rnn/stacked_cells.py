"""`tf.keras.layers.StackedRNNCells`: several cells run as one, each feeding the next.

tf_keras 2.x semantics: `state_size` is the tuple of the cells' state sizes (the states
arrive flat and are regrouped per cell), the output is the last cell's; each cell is built
on the previous one's output size, under its own name.
"""

from __future__ import annotations

import inspect
from typing import Any

from ....framework import nest
from ....framework.name_scope import name_scope
from ....framework.tensor_shape import TensorShape
from ...engine.base_layer import Layer
from ...saving.serialization import (deserialize_keras_object, keras_export,
                                     serialize_keras_object)

__all__ = ["StackedRNNCells"]


def _has_arg(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _is_multiple_state(state_size: Any) -> bool:
    return hasattr(state_size, "__len__") and not isinstance(state_size, TensorShape)


def deserialize_cell(config: Any, custom_objects: Any = None) -> Any:
    """A cell (any layer) from its serialized config."""
    from ... import layers as layers_module
    module_objects = {name: getattr(layers_module, name) for name in dir(layers_module)}
    return deserialize_keras_object(config, module_objects=module_objects,
                                    custom_objects=custom_objects,
                                    printable_module_name="layer")


def _zero_state_for_cell(cell: Any, inputs: Any, batch_size: Any, dtype: Any) -> Any:
    from .base_rnn import generate_zero_filled_state_for_cell
    return generate_zero_filled_state_for_cell(cell, inputs, batch_size, dtype)


@keras_export("keras.layers.StackedRNNCells")
class StackedRNNCells(Layer):
    """A stack of RNN cells behaving as one cell (tf_keras 2.x `StackedRNNCells`)."""

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError("All cells must have a `call` method. "
                                 f"Received cell without a `call` method: {cell}")
            if "state_size" not in dir(cell):
                raise ValueError("All cells must have a `state_size` attribute. "
                                 f"Received cell without a `state_size`: {cell}")
        reverse_state_order = kwargs.pop("reverse_state_order", False)
        super().__init__(**kwargs)
        self.cells = cells
        self.reverse_state_order = reverse_state_order

    def _ordered_cells(self) -> list:
        return list(self.cells)[::-1] if self.reverse_state_order else list(self.cells)

    @property
    def state_size(self) -> tuple:
        return tuple(c.state_size for c in self._ordered_cells())

    @property
    def output_size(self) -> Any:
        last = self.cells[-1]
        if getattr(last, "output_size", None) is not None:
            return last.output_size
        if _is_multiple_state(last.state_size):
            return last.state_size[0]
        return last.state_size

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> tuple:
        states = []
        for cell in self._ordered_cells():
            fn = getattr(cell, "get_initial_state", None)
            if fn:
                states.append(fn(inputs=inputs, batch_size=batch_size, dtype=dtype))
            else:
                states.append(_zero_state_for_cell(cell, inputs, batch_size, dtype))
        return tuple(states)

    def call(self, inputs: Any, states: Any, constants: Any = None, training: Any = None,
             **kwargs: Any) -> Any:
        state_size = self.state_size[::-1] if self.reverse_state_order else self.state_size
        nested_states = nest.pack_sequence_as(state_size, nest.flatten(states))
        new_nested_states = []
        for cell, cell_states in zip(self.cells, nested_states):
            cell_states = cell_states if nest.is_nested(cell_states) else [cell_states]
            if _has_arg(cell.call, "training"):
                kwargs["training"] = training
            else:
                kwargs.pop("training", None)
            cell_call = cell.__call__ if callable(cell) else cell.call
            if _has_arg(cell.call, "constants"):
                inputs, cell_states = cell_call(inputs, cell_states, constants=constants,
                                                **kwargs)
            else:
                inputs, cell_states = cell_call(inputs, cell_states, **kwargs)
            new_nested_states.append(cell_states)
        return inputs, nest.pack_sequence_as(state_size, nest.flatten(new_nested_states))

    def build(self, input_shape: Any) -> None:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        super().build(input_shape)
        input_shape = TensorShape(input_shape) if not nest.is_nested(input_shape) or \
            isinstance(input_shape, TensorShape) else input_shape
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with name_scope(cell.name):
                    cell.build(input_shape)
                    object.__setattr__(cell, "built", True)
            if getattr(cell, "output_size", None) is not None:
                output_dim = cell.output_size
            elif _is_multiple_state(cell.state_size):
                output_dim = cell.state_size[0]
            else:
                output_dim = cell.state_size
            batch_size = nest.flatten(input_shape)[0] if not isinstance(
                input_shape, TensorShape) else input_shape.as_list()[0]
            if nest.is_nested(output_dim):
                input_shape = tuple(TensorShape([batch_size] + TensorShape(d).as_list())
                                    for d in output_dim)
            else:
                input_shape = TensorShape([batch_size] + TensorShape(output_dim).as_list())

    def get_config(self) -> dict:
        config = {"cells": [serialize_keras_object(cell) for cell in self.cells]}
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "StackedRNNCells":
        config = dict(config)
        cells = [deserialize_cell(c, custom_objects) for c in config.pop("cells")]
        return cls(cells, **config)
