"""What LSTM and GRU share as layers: the fused fast path with the step-loop fallback,
the optional runtime output, and their flat configs (the cell's arguments at the top
level, `implementation=0` read as 1)."""

from __future__ import annotations

from typing import Any, Callable, Tuple

from ....framework.tensor_conversion import convert_to_tensor
from ....ops import creation_ops
from . import _fused, _loop
from ._cell_args import cell_arguments_config
from ._dropout_mask import DropoutRNNCellMixin
from .base_rnn import RNN

__all__ = ["FusedRNN"]


class FusedRNN(DropoutRNNCellMixin, RNN):
    """Subclasses set `_mode` ("lstm" / "gru"), `_gates` (dropout masks per input),
    `_params` (the cell's variables to torch's weight list), `_layer_args` (the config's
    keys) and `_runtime_attr` (where `return_runtime` is kept), and set
    `_could_use_gpu_kernel` in `__init__`."""

    _mode = ""
    _gates = 0
    _params: Callable[..., list]
    _layer_args: Tuple[str, ...] = ()
    _runtime_attr = "return_runtime"

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             initial_state: Any = None) -> Any:
        inputs, initial_state, _ = self._process_inputs(inputs, initial_state, None)
        if isinstance(mask, list):
            mask = mask[0]
        result = None
        if self._could_use_gpu_kernel:
            result = self._fused_call(inputs, initial_state, mask, training)
        if result is None:
            self._reset_dropout_masks()
            cell = self.cell

            def step(step_inputs: Any, states: Any) -> Any:
                return cell(step_inputs, list(states), training=training)
            result = _loop.rnn(step, inputs, initial_state, go_backwards=self.go_backwards,
                               mask=mask, time_major=self.time_major,
                               zero_output_for_mask=self.zero_output_for_mask,
                               return_all_outputs=self.return_sequences)
        last_output, outputs, states = result
        output = self._finish(last_output, outputs, states)
        if getattr(self, self._runtime_attr) and not self.return_state:
            return output, creation_ops.zeros([], dtype="float32")
        return output

    def _fused_call(self, inputs: Any, initial_state: list, mask: Any, training: Any) -> Any:
        self.reset_dropout_mask()
        # tf_keras's fast path masks the whole sequence at once (a mask per step)
        dropout_mask = self.get_dropout_mask_for_cell(inputs, training, count=self._gates)
        x = inputs * dropout_mask[0] if dropout_mask is not None else inputs
        cell = self.cell
        params = type(self)._params(convert_to_tensor(cell.kernel),
                                    convert_to_tensor(cell.recurrent_kernel),
                                    convert_to_tensor(cell.bias))
        states = [convert_to_tensor(s) for s in initial_state]
        result = _fused.fused_rnn(self._mode, x, states, params, mask, self.time_major,
                                  self.go_backwards, self.zero_output_for_mask)
        self.reset_dropout_mask()
        if result is not None and not self.return_sequences:
            last, _, states = result
            result = (last, last.unsqueeze(0 if self.time_major else 1), states)
        return result

    def get_config(self) -> dict:
        config = cell_arguments_config(self, self._layer_args)
        base_config = super().get_config()
        del base_config["cell"]
        return dict(list(base_config.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> Any:
        config = dict(config)
        if config.get("implementation") == 0:
            config["implementation"] = 1
        return cls(**config)
