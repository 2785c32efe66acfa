"""`tf.keras.layers.Bidirectional` (tf_keras 2.21): run a sequence layer forwards and
backwards over the same inputs and merge the two outputs.

As tf_keras: the wrapper rebuilds two layers from `layer.get_config()` — `forward_<name>`
as configured and `backward_<name>` with `go_backwards` flipped (or takes the given
`backward_layer`, renamed `backward_<its name>`); the layer passed in is only a template
(never built, not tracked: the checkpoint dependencies are `forward_layer` and
`backward_layer`). Weights are the forward layer's, then the backward layer's, named
`bidirectional/forward_lstm/lstm_cell/kernel:0`. With `return_sequences` the backward
outputs are reversed in time before the merge (`concat` on the last axis, `sum`, `ave`,
`mul`, or None for the list `[forward, backward]`); with `return_state` the forward states
then the backward states follow the output. An `initial_state` list is split in halves:
the first half for the forward layer, the second for the backward layer.

tf_keras reads the `weights=` argument into an attribute that nothing uses, so those
weights are never assigned; tfcompat accepts the argument and ignores it the same way.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Optional

import torch

from ....framework import nest
from ....framework.name_scope import name_scope as name_scope_cls
from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import Layer
from ...engine.keras_tensor import KerasTensor
from ...saving import serialization
from ...saving.serialization import keras_export
from .time_distributed import Wrapper, _call_takes, deserialize_layer

__all__ = ["Bidirectional"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


def _is_keras_tensor(x: Any) -> bool:
    return isinstance(x, KerasTensor)


@keras_export("keras.layers.Bidirectional")
class Bidirectional(Wrapper):
    """A bidirectional wrapper for RNN layers (tf_keras's `Bidirectional`; see the module
    doc)."""

    def __init__(self, layer: Layer, merge_mode: Optional[str] = "concat", weights: Any = None,
                 backward_layer: Optional[Layer] = None, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` "
                f"instance. Received: {layer}")
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(
                "`backward_layer` need to be a `tf.keras.layers.Layer` instance. "
                f"Received: {backward_layer}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}')
        # The template layer is held but not tracked (tf_keras turns tracking off here).
        _set(self, "_self_setattr_tracking", False)
        super().__init__(layer, **kwargs)

        self.forward_layer = self._recreate_layer_from_config(layer)
        if backward_layer is None:
            self.backward_layer = self._recreate_layer_from_config(layer, go_backwards=True)
        else:
            self.backward_layer = backward_layer
            # tf_keras keeps the config the backward layer had when it was given
            _set(self, "_backward_layer_config",
                 serialization.serialize_keras_object(backward_layer))
        for sub in (self.forward_layer, self.backward_layer):
            _set(sub, "_name", ("forward_" if sub is self.forward_layer else "backward_")
                 + sub.name)
        self._verify_layer_config()

        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences

        self.merge_mode = merge_mode
        if weights:
            # tf_keras stores these where nothing reads them (so they are never assigned)
            half = len(weights) // 2
            _set(self.forward_layer, "initial_weights", weights[:half])
            _set(self.backward_layer, "initial_weights", weights[half:])
        self.stateful = layer.stateful
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        _set(self, "_trainable", kwargs.get("trainable", layer.trainable))
        _set(self, "_num_constants", 0)
        self.input_spec = layer.input_spec

    def _verify_layer_config(self) -> None:
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value."
                f"forward_layer.go_backwards = {forward.go_backwards},"
                f"backward_layer.go_backwards = {backward.go_backwards}")
        for attribute in ("stateful", "return_sequences", "return_state"):
            forward_value = getattr(forward, attribute)
            backward_value = getattr(backward, attribute)
            if forward_value != backward_value:
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value for "
                    f'attribute "{attribute}", got "{forward_value}" for forward layer and '
                    f'"{backward_value}" for backward layer')

    @staticmethod
    def _recreate_layer_from_config(layer: Layer, go_backwards: bool = False) -> Layer:
        config = layer.get_config()
        if go_backwards:
            config["go_backwards"] = not config["go_backwards"]
        try:
            params = inspect.signature(type(layer).from_config).parameters
        except (TypeError, ValueError):
            params = {}
        if "custom_objects" in params:
            custom_objects = {}
            cell = getattr(layer, "cell", None)
            if cell is not None:
                custom_objects[type(cell).__name__] = type(cell)
                for c in getattr(cell, "cells", []):
                    custom_objects[type(c).__name__] = type(c)
            return type(layer).from_config(config, custom_objects=custom_objects)
        return type(layer).from_config(config)

    # ------------------------------------------------------------------ shapes and masks
    def compute_output_shape(self, input_shape: Any) -> Any:
        output_shape = self.forward_layer.compute_output_shape(input_shape)
        if self.return_state:
            state_shape = [TensorShape(s) for s in list(output_shape)[1:]]
            output_shape = TensorShape(output_shape[0])
        else:
            output_shape = TensorShape(output_shape)
        if self.merge_mode == "concat":
            dims = output_shape.as_list()
            dims[-1] = None if dims[-1] is None else dims[-1] * 2
            output_shape = TensorShape(dims)
        elif self.merge_mode is None:
            output_shape = [output_shape, copy.copy(output_shape)]
        if self.return_state:
            if self.merge_mode is None:
                return output_shape + state_shape + copy.copy(state_shape)
            return [output_shape] + state_shape + copy.copy(state_shape)
        return output_shape

    def _num_states(self) -> int:
        states = getattr(self.forward_layer, "states", None)
        if states is not None:
            return len(nest.flatten(states)) if isinstance(states, (list, tuple)) else 1
        cell = getattr(self.forward_layer, "cell", None)
        return len(nest.flatten(getattr(cell, "state_size", 1)))

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        if self.return_sequences:
            output_mask = [mask, mask] if not self.merge_mode else mask
        else:
            output_mask = [None, None] if not self.merge_mode else None
        if self.return_state:
            state_mask = [None] * self._num_states()
            if isinstance(output_mask, list):
                return output_mask + state_mask * 2
            return [output_mask] + state_mask * 2
        return output_mask

    # ------------------------------------------------------------------ calling
    def __call__(self, inputs: Any, initial_state: Any = None, constants: Any = None,
                 **kwargs: Any) -> Any:
        # tf_keras's `standardize_args`: `[x, state, ...]` means `x` with initial states
        if isinstance(inputs, list):
            if len(inputs) > 1:
                if self._num_constants:
                    constants = inputs[-self._num_constants:]
                    initial_state = inputs[1:-self._num_constants] or None
                else:
                    initial_state = inputs[1:]
            inputs = inputs[0]
        if initial_state is not None and not isinstance(initial_state, list):
            initial_state = list(initial_state) if isinstance(initial_state, tuple) else [
                initial_state]
        if constants is not None and not isinstance(constants, list):
            constants = list(constants) if isinstance(constants, tuple) else [constants]
        if initial_state is None and constants is None:
            return super().__call__(inputs, **kwargs)

        additional = []
        if initial_state is not None:
            if len(initial_state) % 2 > 0:
                raise ValueError(
                    "When passing `initial_state` to a Bidirectional RNN, the state should be "
                    "a list containing the states of the underlying RNNs. "
                    f"Received: {initial_state}")
            kwargs["initial_state"] = initial_state
            additional += initial_state
        if constants is not None:
            kwargs["constants"] = constants
            additional += constants
            _set(self, "_num_constants", len(constants))
            for sub in (self.forward_layer, self.backward_layer):
                _set(sub, "_num_constants", len(constants))
        flat = nest.flatten(additional)
        is_keras = _is_keras_tensor(flat[0])
        if any(_is_keras_tensor(t) != is_keras for t in flat):
            raise ValueError(
                "The initial state of a Bidirectional layer cannot be specified with a mix of "
                'TF-Keras tensors and non-Keras tensors (a "Keras tensor" is a tensor that was '
                "returned by a TF-Keras layer, or by `Input`)")
        if is_keras:
            # tf_keras: symbolic states and constants join the inputs (the node records
            # `[x, *states, *constants]` with `initial_state=None, constants=None`)
            kwargs["initial_state"] = None
            kwargs["constants"] = None
            previous_spec = self._input_spec
            _set(self, "_input_spec", None)
            try:
                return super().__call__([inputs] + additional, **kwargs)
            finally:
                _set(self, "_input_spec", previous_spec)
        return super().__call__(inputs, **kwargs)

    def call(self, inputs: Any, training: Any = None, mask: Any = None,
             initial_state: Any = None, constants: Any = None) -> Any:
        kwargs = {}
        if _call_takes(self.layer, "training"):
            kwargs["training"] = training
        if _call_takes(self.layer, "mask"):
            kwargs["mask"] = mask
        if _call_takes(self.layer, "constants"):
            kwargs["constants"] = constants

        if _call_takes(self.layer, "initial_state"):
            forward_state, backward_state = None, None
            if isinstance(inputs, list) and len(inputs) > 1:
                # `[x, *forward states, *backward states, *constants]` from a symbolic call
                count = self._num_constants or 0
                pivot = (len(inputs) - count) // 2 + 1
                body = inputs[:len(inputs) - count]
                constants = inputs[len(inputs) - count:] if count else None
                forward_state = body[1:pivot]
                backward_state = body[pivot:]
                inputs = inputs[0]
                if constants is not None:
                    kwargs["constants"] = constants
            elif initial_state is not None:
                half = len(initial_state) // 2
                forward_state = initial_state[:half]
                backward_state = initial_state[half:]
            y = self.forward_layer(inputs, initial_state=forward_state, **kwargs)
            y_rev = self.backward_layer(inputs, initial_state=backward_state, **kwargs)
        else:
            y = self.forward_layer(inputs, **kwargs)
            y_rev = self.backward_layer(inputs, **kwargs)

        states: list = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y = y[0]
            y_rev = y_rev[0]
        if self.return_sequences:
            time_dim = 0 if getattr(self.forward_layer, "time_major", False) else 1
            y_rev = torch.flip(y_rev, dims=[time_dim])
        if self.merge_mode == "concat":
            output = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            if self.merge_mode is None:
                return output + states
            return [output] + states
        return output

    def reset_states(self, states: Any = None) -> None:
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if states is None:
            self.forward_layer.reset_states()
            self.backward_layer.reset_states()
            return
        if not isinstance(states, (list, tuple)):
            raise ValueError("Unrecognized value for `states`. Expected `states` to be list or "
                             f"tuple. Received: {states}")
        half = len(states) // 2
        self.forward_layer.reset_states(states[:half])
        self.backward_layer.reset_states(states[half:])

    def build(self, input_shape: Any) -> None:
        for sub in (self.forward_layer, self.backward_layer):
            with name_scope_cls(sub.name):
                sub.build(input_shape)
                if not sub.built:
                    Layer.build(sub, input_shape)
        Layer.build(self, input_shape)

    @property
    def constraints(self) -> dict:
        constraints: dict = {}
        if hasattr(self.forward_layer, "constraints"):
            constraints.update(self.forward_layer.constraints)
            constraints.update(self.backward_layer.constraints)
        return constraints

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        config = super().get_config()
        config["layer"] = serialization.serialize_keras_object(self.layer)
        config["merge_mode"] = self.merge_mode
        if self._num_constants:
            config["num_constants"] = self._num_constants
        if "_backward_layer_config" in self.__dict__:
            config["backward_layer"] = self._backward_layer_config
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Bidirectional":
        config = copy.deepcopy(config)
        num_constants = config.pop("num_constants", 0)
        config["layer"] = deserialize_layer(config["layer"], custom_objects=custom_objects)
        backward_config = config.pop("backward_layer", None)
        if backward_config is not None:
            config["backward_layer"] = deserialize_layer(backward_config,
                                                         custom_objects=custom_objects)
        layer = cls(**config)
        _set(layer, "_num_constants", num_constants)
        return layer
