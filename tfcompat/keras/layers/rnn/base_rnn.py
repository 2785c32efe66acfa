"""`tf.keras.layers.RNN` (the recurrent layer around any cell) and `AbstractRNNCell`.

tf_keras 2.x semantics: a cell is any object with `call(inputs, states) -> (output,
new_states)` and a `state_size` (an int, a `TensorShape`, or a list of them, one per state),
optionally `output_size` and `get_initial_state(inputs, batch_size, dtype)`; a list of cells
is a `StackedRNNCells`. The layer walks the time axis with `_loop.rnn` (tf_keras's
`backend.rnn`: masked steps keep the previous states; their outputs are the previous output,
or zeros with `zero_output_for_mask`), takes `initial_state=` / `constants=` (or a list
`[inputs, *states]`), and with `stateful=True` keeps the last states in non-trainable
variables between calls (`reset_states()` zeroes them). The cell's weights are built under
the cell's name: `rnn/simple_rnn_cell/kernel:0`.
"""

from __future__ import annotations

import collections.abc
import inspect
from typing import Any, List, Optional

import numpy as np
import torch

from ....framework import dtypes
from ....framework import nest
from ....framework.name_scope import name_scope
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import creation_ops, math_ops
from ... import backend
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...engine.keras_tensor import KerasTensor
from ...saving.serialization import keras_export, serialize_keras_object
from . import _loop
from ._dropout_mask import DropoutRNNCellMixin
from .stacked_cells import StackedRNNCells, deserialize_cell

__all__ = ["RNN", "AbstractRNNCell"]

_UNROLL_UNDEFINED_TIME = (
    "Cannot unroll a RNN if the time dimension is undefined. \n- If using a Sequential model, "
    "specify the time dimension by passing an `input_shape` or `batch_input_shape` argument "
    "to your first layer. If your first layer is an Embedding, you can also use the "
    "`input_length` argument.\n- If using the functional API, specify the time dimension by "
    "passing a `shape` or `batch_shape` argument to your Input layer.")
_STATEFUL_NEEDS_BATCH = (
    "If a RNN is stateful, it needs to know its batch size. Specify the batch size of your "
    "input tensors: \n- If using a Sequential model, specify the batch size by passing a "
    "`batch_input_shape` argument to your first layer.\n- If using the functional API, "
    "specify the batch size by passing a `batch_shape` argument to your Input layer.")


def is_multiple_state(state_size: Any) -> bool:
    """Whether `state_size` lists several states (tf_keras's `rnn_utils`)."""
    return hasattr(state_size, "__len__") and not isinstance(state_size, TensorShape)


def has_arg(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def generate_zero_filled_state(batch_size: Any, state_size: Any, dtype: Any) -> Any:
    """Zeros `[batch_size, *size]` for each size in `state_size` (nested as it is)."""
    if batch_size is None or dtype is None:
        raise ValueError(
            "batch_size and dtype cannot be None while constructing initial state. "
            f"Received: batch_size={batch_size}, dtype={dtype}")
    batch_size = int(batch_size)

    def create_zeros(size: Any) -> torch.Tensor:
        return creation_ops.zeros([batch_size] + TensorShape(size).as_list(), dtype=dtype)
    if nest.is_nested(state_size):
        return nest.map_structure(create_zeros, state_size)
    return create_zeros(state_size)


def generate_zero_filled_state_for_cell(cell: Any, inputs: Any, batch_size: Any,
                                        dtype: Any) -> Any:
    if inputs is not None:
        batch_size = inputs.shape[0]
        dtype = inputs.dtype
    return generate_zero_filled_state(batch_size, cell.state_size, dtype)


def standardize_args(inputs: Any, initial_state: Any, constants: Any, num_constants: int):
    """Split a list input `[inputs, *initial_state, *constants]` (tf_keras's)."""
    if isinstance(inputs, list):
        if initial_state is not None or constants is not None:
            raise ValueError("`initial_state` and `constants` cannot be passed both in a list "
                             "input and as arguments.")
        if num_constants:
            constants = inputs[-num_constants:]
            inputs = inputs[:-num_constants]
        if len(inputs) > 1:
            initial_state = inputs[1:]
            inputs = inputs[:1]
        inputs = tuple(inputs) if len(inputs) > 1 else inputs[0]

    def to_list_or_none(x: Any) -> Optional[list]:
        if x is None or isinstance(x, list):
            return x
        if isinstance(x, tuple):
            return list(x)
        return [x]
    return inputs, to_list_or_none(initial_state), to_list_or_none(constants)


@keras_export("keras.layers.AbstractRNNCell")
class AbstractRNNCell(Layer):
    """The base of RNN cells: implement `call`, `state_size` and `output_size`."""

    def call(self, inputs: Any, states: Any) -> Any:
        """One step: `(output, new_states)` for `inputs` `[batch, ...]` and `states`."""
        raise NotImplementedError

    @property
    def state_size(self) -> Any:
        raise NotImplementedError

    @property
    def output_size(self) -> Any:
        raise NotImplementedError

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        return generate_zero_filled_state_for_cell(self, inputs, batch_size, dtype)


@keras_export("keras.layers.RNN")
class RNN(Layer):
    """A recurrent layer over a cell (tf_keras 2.x `RNN`)."""

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 time_major: bool = False, **kwargs: Any) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if "call" not in dir(cell):
            raise ValueError("Argument `cell` should have a `call` method. "
                             f"The RNN was passed: cell={cell}")
        if "state_size" not in dir(cell):
            raise ValueError("The RNN cell should have a `state_size` attribute (tuple of "
                             "integers, one integer per RNN state). "
                             f"Received: cell={cell}")
        zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
            kwargs["input_shape"] = (kwargs.pop("input_length", None),
                                     kwargs.pop("input_dim", None))
        super().__init__(**kwargs)
        self.zero_output_for_mask = zero_output_for_mask
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        self.supports_masking = True
        self.input_spec = None
        object.__setattr__(self, "state_spec", None)
        object.__setattr__(self, "_states", None)
        object.__setattr__(self, "constants_spec", None)
        object.__setattr__(self, "_num_constants", 0)
        if stateful:
            from ....distribute import distribute_lib
            if distribute_lib.has_strategy():
                raise ValueError("Stateful RNNs (created with `stateful=True`) are not yet "
                                 "supported with tf.distribute.Strategy.")

    # ------------------------------------------------------------------ states
    @property
    def states(self) -> Any:
        if self._states is None:
            state = nest.map_structure(lambda _: None, self.cell.state_size)
            return state if nest.is_nested(self.cell.state_size) else [state]
        return self._states

    @states.setter
    def states(self, states: Any) -> None:
        object.__setattr__(self, "_states", states)

    def _state_sizes(self) -> list:
        size = self.cell.state_size
        return list(size) if is_multiple_state(size) else [size]

    # ------------------------------------------------------------------ shapes and masks
    def compute_output_shape(self, input_shape: Any) -> Any:
        if isinstance(input_shape, list) and input_shape and not isinstance(
                input_shape[0], (int, type(None))):
            input_shape = input_shape[0]
        try:
            input_shape = TensorShape(input_shape)
        except (ValueError, TypeError):
            input_shape = nest.flatten(input_shape)[0]
        dims = input_shape.as_list()
        batch, time_step = dims[0], dims[1]
        if self.time_major:
            batch, time_step = time_step, batch
        state_size = self._state_sizes()

        def output_shape_for(size: Any) -> TensorShape:
            output_dim = TensorShape(size).as_list()
            if self.return_sequences:
                lead = [time_step, batch] if self.time_major else [batch, time_step]
                return TensorShape(lead + output_dim)
            return TensorShape([batch] + output_dim)

        if getattr(self.cell, "output_size", None) is not None:
            output_shape = nest.flatten(nest.map_structure(
                output_shape_for, self.cell.output_size,
            )) if nest.is_nested(self.cell.output_size) else [
                output_shape_for(self.cell.output_size)]
            output_shape = output_shape[0] if len(output_shape) == 1 else output_shape
        else:
            output_shape = output_shape_for(state_size[0])
        if self.return_state:
            state_shapes = [TensorShape([batch] + TensorShape(s).as_list())
                            for s in nest.flatten(state_size)]
            out = output_shape if isinstance(output_shape, list) else [output_shape]
            return out + state_shapes
        return output_shape

    def compute_mask(self, inputs: Any, mask: Any) -> Any:
        mask = nest.flatten(mask)[0] if mask is not None else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None for _ in nest.flatten(self.states)]
        return output_mask

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any) -> None:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]

        def get_input_spec(shape: Any) -> InputSpec:
            spec_shape = TensorShape(shape).as_list()
            batch_index, time_index = (1, 0) if self.time_major else (0, 1)
            if not self.stateful:
                spec_shape[batch_index] = None
            spec_shape[time_index] = None
            return InputSpec(shape=tuple(spec_shape))

        def get_step_input_shape(shape: Any) -> TensorShape:
            dims = TensorShape(shape).as_list()
            return TensorShape(dims[1:] if self.time_major else [dims[0]] + dims[2:])

        if isinstance(input_shape, TensorShape) or not nest.is_nested(input_shape) or all(
                d is None or isinstance(d, int) for d in input_shape):  # one shape as a tuple
            input_shape = TensorShape(input_shape)
            spec = get_input_spec(input_shape)
            step_input_shape = get_step_input_shape(input_shape)
        else:
            spec = nest.map_structure(get_input_spec, input_shape)
            step_input_shape = nest.map_structure(get_step_input_shape, input_shape)
        specs = list(self.input_spec) if isinstance(self.input_spec, list) else None
        if specs:
            specs[0] = spec
            self.input_spec = specs
        else:
            self.input_spec = nest.flatten(spec) if nest.is_nested(spec) else [spec]
        if isinstance(self.cell, Layer) and not self.cell.built:
            with name_scope(self.cell.name):
                self.cell.build(step_input_shape)
                object.__setattr__(self.cell, "built", True)
        if self.state_spec is None:
            object.__setattr__(self, "state_spec", [
                InputSpec(shape=(None,) + tuple(TensorShape(size).as_list()))
                for size in nest.flatten(self._state_sizes())])
        if self.stateful:
            self.reset_states()
        super().build(input_shape)

    def _validate_initial_state(self, initial_state: list) -> None:
        """tf_keras's check of an `initial_state` against `cell.state_size`."""
        sizes = self._state_sizes()
        flat_sizes = nest.flatten(sizes)
        flat_states = nest.flatten(initial_state)
        error = ValueError(
            "An `initial_state` was passed that is not compatible with `cell.state_size`. "
            f"Received `state_spec`={[InputSpec(shape=tuple(s.shape)) for s in flat_states]}; "
            f"however `cell.state_size` is {sizes}")
        if len(flat_sizes) != len(flat_states):
            raise error
        for state, size in zip(flat_states, flat_sizes):
            dims = list(state.shape)[1:]
            want = TensorShape(size)
            if not TensorShape(dims).is_compatible_with(want):
                raise error

    # ------------------------------------------------------------------ calls
    def __call__(self, inputs: Any, initial_state: Any = None, constants: Any = None,
                 **kwargs: Any) -> Any:
        inputs, initial_state, constants = standardize_args(
            inputs, initial_state, constants, self._num_constants)
        flat_extra = nest.flatten([initial_state or [], constants or []])
        if flat_extra:
            symbolic = isinstance(flat_extra[0], KerasTensor)
            if any(isinstance(t, KerasTensor) != symbolic for t in flat_extra):
                raise ValueError(
                    "The initial state or constants of an RNN layer cannot be specified via a "
                    "mix of TF-Keras tensors and non-Keras tensors (a \"Keras tensor\" is a "
                    "tensor that was returned by a TF-Keras layer  or by `Input` during "
                    f"Functional model construction). Received: initial_state={initial_state}, "
                    f"constants={constants}")
        if initial_state is not None and not self.built:
            self._validate_initial_state(initial_state)
        if constants is not None:
            object.__setattr__(self, "_num_constants", len(constants))
        if flat_extra and isinstance(flat_extra[0], KerasTensor):
            # tf_keras: symbolic states and constants join the inputs (`[inputs, *states,
            # *constants]`, which `call` splits again), so the graph and its config record
            # them as inputs of the node
            extra = list(initial_state or []) + list(constants or [])
            previous_spec = self._input_spec
            temporary = None
            if self.built and previous_spec is not None:
                temporary = list(nest.flatten(previous_spec)) + [None] * len(extra)
            object.__setattr__(self, "_input_spec", temporary)
            try:
                return self._call_checked([inputs] + extra, kwargs)
            finally:
                if self._input_spec is temporary:  # (else `build` just set the inputs' spec)
                    object.__setattr__(self, "_input_spec", previous_spec)
        if initial_state is not None:
            kwargs["initial_state"] = initial_state
        if constants is not None:
            kwargs["constants"] = constants
        return self._call_checked(inputs, kwargs)

    def _call_checked(self, inputs: Any, kwargs: dict) -> Any:
        symbolic_call = any(isinstance(t, KerasTensor) for t in nest.flatten(inputs))
        if symbolic_call and self.unroll:
            first = nest.flatten(inputs)[0]
            dims = first.shape.as_list() if first.shape.rank is not None else [None, None]
            if dims[0 if self.time_major else 1] is None:
                raise ValueError(_UNROLL_UNDEFINED_TIME)
        if symbolic_call and self.stateful:
            # the stand-in calls that infer the outputs must not advance the states
            saved = [None if v is None else v.read_value().clone()
                     for v in nest.flatten(self.states)]
            try:
                return super().__call__(inputs, **kwargs)
            finally:
                for variable, value in zip(nest.flatten(self.states), saved):
                    if variable is not None:
                        variable.assign(value if value is not None
                                        else torch.zeros_like(variable.read_value()))
        return super().__call__(inputs, **kwargs)

    def get_initial_state(self, inputs: Any) -> list:
        get_initial_state_fn = getattr(self.cell, "get_initial_state", None)
        if nest.is_nested(inputs):
            inputs = nest.flatten(inputs)[0]
        batch_size = inputs.shape[1] if self.time_major else inputs.shape[0]
        dtype = dtypes.as_dtype(inputs.dtype)
        if get_initial_state_fn:
            init_state = get_initial_state_fn(inputs=None, batch_size=batch_size, dtype=dtype)
        else:
            init_state = generate_zero_filled_state(batch_size, self.cell.state_size, dtype)
        if not nest.is_nested(init_state):
            init_state = [init_state]
        return list(init_state)

    def _process_inputs(self, inputs: Any, initial_state: Any, constants: Any):
        if isinstance(inputs, collections.abc.Sequence) and not isinstance(inputs, tuple):
            if not self._num_constants:
                initial_state = inputs[1:]
            else:
                initial_state = inputs[1:-self._num_constants]
                constants = inputs[-self._num_constants:]
            if len(initial_state) == 0:
                initial_state = None
            inputs = inputs[0]
        if self.stateful:
            state_values = [convert_to_tensor(v) for v in nest.flatten(self.states)]
            if initial_state is not None and not any(
                    bool(torch.count_nonzero(s)) for s in state_values):
                pass  # the variables are all zeros: the given initial state wins
            else:
                initial_state = nest.pack_sequence_as(self.states, state_values)
            dtype = self.compute_dtype or self.cell.compute_dtype
            initial_state = nest.map_structure(lambda v: math_ops.cast(v, dtype),
                                               initial_state)
        elif initial_state is None:
            initial_state = self.get_initial_state(inputs)
        if len(initial_state) != len(self.states):
            raise ValueError(
                f"Layer has {len(self.states)} states but was passed {len(initial_state)} "
                f"initial states. Received: initial_state={initial_state}")
        return inputs, initial_state, constants

    def _maybe_reset_cell_dropout_mask(self, cell: Any) -> None:
        if isinstance(cell, DropoutRNNCellMixin):
            cell.reset_dropout_mask()
            cell.reset_recurrent_dropout_mask()

    def _reset_dropout_masks(self) -> None:
        self._maybe_reset_cell_dropout_mask(self.cell)
        if isinstance(self.cell, StackedRNNCells):
            for cell in self.cell.cells:
                self._maybe_reset_cell_dropout_mask(cell)

    def _timesteps(self, inputs: Any) -> int:
        first = nest.flatten(inputs)[0]
        return first.shape[0] if self.time_major else first.shape[1]

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             initial_state: Any = None, constants: Any = None) -> Any:
        inputs, initial_state, constants = self._process_inputs(inputs, initial_state,
                                                                constants)
        self._reset_dropout_masks()
        if mask is not None:
            mask = nest.flatten(mask)[0]
        kwargs = {}
        if has_arg(self.cell.call, "training"):
            kwargs["training"] = training
        cell_call = self.cell.__call__ if callable(self.cell) else self.cell.call
        if constants:
            if not has_arg(self.cell.call, "constants"):
                raise ValueError(f"RNN cell {self.cell} does not support constants. "
                                 f"Received: constants={constants}")
            num_constants = self._num_constants

            def step(step_inputs: Any, states: Any) -> Any:
                step_constants = list(states[-num_constants:])
                states = list(states[:-num_constants])
                output, new_states = cell_call(step_inputs, states, constants=step_constants,
                                               **kwargs)
                if not nest.is_nested(new_states):
                    new_states = [new_states]
                return output, new_states
        else:
            def step(step_inputs: Any, states: Any) -> Any:
                output, new_states = cell_call(step_inputs, list(states), **kwargs)
                if not nest.is_nested(new_states):
                    new_states = [new_states]
                return output, new_states
        last_output, outputs, states = _loop.rnn(
            step, inputs, initial_state, go_backwards=self.go_backwards, mask=mask,
            constants=constants, time_major=self.time_major,
            zero_output_for_mask=self.zero_output_for_mask,
            return_all_outputs=self.return_sequences)
        return self._finish(last_output, outputs, states)

    def _finish(self, last_output: Any, outputs: Any, states: Any) -> Any:
        """Store the states (stateful) and arrange the return value as tf_keras."""
        if self.stateful:
            for variable, state in zip(nest.flatten(self.states), nest.flatten(states)):
                variable.assign(math_ops.cast(state.detach(), variable.dtype))
        output = outputs if self.return_sequences else last_output
        if self.return_state:
            states = list(states) if isinstance(states, (list, tuple)) else [states]
            return (list(output) if isinstance(output, list) else [output]) + states
        return output

    # ------------------------------------------------------------------ stateful
    def reset_states(self, states: Any = None) -> None:
        """Zero the state variables, or set them to `states` (NumPy arrays or tensors)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        spec_shape = None
        if self.input_spec is not None:
            spec_shape = nest.flatten(self.input_spec[0])[0].shape
        if spec_shape is None:
            batch_size = None
        else:
            batch_size = spec_shape[1] if self.time_major else spec_shape[0]
        if not batch_size:
            raise ValueError(_STATEFUL_NEEDS_BATCH)
        dtype = self.variable_dtype or backend.floatx()
        if nest.flatten(self.states)[0] is None:
            if getattr(self.cell, "get_initial_state", None):
                values = nest.flatten(self.cell.get_initial_state(
                    inputs=None, batch_size=batch_size, dtype=dtypes.as_dtype(dtype)))
            else:
                values = nest.flatten(generate_zero_filled_state(
                    batch_size, self.cell.state_size, dtypes.as_dtype(dtype)))
            from ....variables import variable as variable_lib
            variables = [variable_lib.Variable(v, trainable=False, name="Variable")
                         for v in values]
            packed = nest.pack_sequence_as(self.cell.state_size, variables) \
                if nest.is_nested(self.cell.state_size) else variables[0]
            self.states = packed if nest.is_nested(packed) else [packed]
        elif states is None:
            for variable, size in zip(nest.flatten(self.states),
                                      nest.flatten(self.cell.state_size)):
                variable.assign(np.zeros([batch_size] + TensorShape(size).as_list(),
                                         dtype=dtypes.as_dtype(variable.dtype).as_numpy_dtype))
        else:
            flat_states = nest.flatten(self.states)
            flat_values = nest.flatten(states)
            if len(flat_values) != len(flat_states):
                raise ValueError(
                    f"Layer {self.name} expects {len(flat_states)} states, but it received "
                    f"{len(flat_values)} state values. States received: {states}")
            pairs = []
            for i, (value, state) in enumerate(zip(flat_values, flat_states)):
                if tuple(value.shape) != tuple(state.shape):
                    raise ValueError(
                        f"State {i} is incompatible with layer {self.name}: expected "
                        f"shape={(batch_size, state)} but found shape={value.shape}")
                pairs.append((state, value))
            for state, value in pairs:
                state.assign(value)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        config = {
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "time_major": self.time_major,
        }
        if self._num_constants:
            config["num_constants"] = self._num_constants
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = self.zero_output_for_mask
        config["cell"] = serialize_keras_object(self.cell)
        base_config = super().get_config()
        return dict(list(base_config.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "RNN":
        config = dict(config)
        cell = deserialize_cell(config.pop("cell"), custom_objects)
        num_constants = config.pop("num_constants", 0)
        layer = cls(cell, **config)
        object.__setattr__(layer, "_num_constants", num_constants)
        return layer
