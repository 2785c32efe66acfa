"""The time loop of the recurrent layers: tf_keras's `backend.rnn` over torch tensors.

`rnn(step, inputs, initial_states, ...)` runs `step(input_t, states) -> (output_t,
new_states)` over the time axis, as tf_keras's `backend.rnn` does (its while-loop path):

* inputs are batch-major `[batch, time, ...]` unless `time_major`; `go_backwards` walks the
  time axis from the end, and the outputs stay in the order they were computed;
* with a `mask` (`[batch, time]`, bools), a masked step keeps the previous states, and its
  output is the previous step's output (zeros before the first unmasked step), or zeros
  when `zero_output_for_mask`;
* returns `(last_output, outputs, states)`; `outputs` holds every step's output when
  `return_all_outputs`, else only the last one (one step long).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import torch

from ....framework import nest

__all__ = ["rnn", "right_padded_lengths"]


def _time_major(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(0, 1)


def _broadcast_mask(mask_t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """`mask_t` (`[batch]` or `[batch, ...]`) shaped to broadcast against `like`."""
    while mask_t.dim() > 1 and mask_t.shape[-1] == 1:
        mask_t = mask_t.squeeze(-1)
    extra = like.dim() - mask_t.dim()
    if extra > 0:
        mask_t = mask_t.reshape(tuple(mask_t.shape) + (1,) * extra)
    return mask_t


def rnn(step: Callable, inputs: Any, initial_states: Sequence[Any], go_backwards: bool = False,
        mask: Optional[torch.Tensor] = None, constants: Optional[Sequence[Any]] = None,
        time_major: bool = False, zero_output_for_mask: bool = False,
        return_all_outputs: bool = True) -> Tuple[Any, Any, Any]:
    """tf_keras's `backend.rnn` (see the module docstring)."""
    flat_inputs = nest.flatten(inputs)
    if not time_major:
        flat_inputs = [_time_major(x) for x in flat_inputs]
    constants = list(constants or [])
    if mask is not None:
        if mask.dtype != torch.bool:
            mask = mask.to(torch.bool)
        if not time_major:
            mask = _time_major(mask)
        if go_backwards:
            mask = torch.flip(mask, [0])
    if go_backwards:
        flat_inputs = [torch.flip(x, [0]) for x in flat_inputs]
    timesteps = flat_inputs[0].shape[0]
    states = initial_states
    collected = []
    last_output = None
    prev_flat_output = None
    for t in range(timesteps):
        step_input = nest.pack_sequence_as(inputs, [x[t] for x in flat_inputs])
        output, new_states = step(step_input, tuple(states) + tuple(constants))
        if mask is None:
            states = nest.pack_sequence_as(initial_states, nest.flatten(new_states))
        else:
            mask_t = mask[t]
            flat_output = nest.flatten(output)
            if prev_flat_output is None or zero_output_for_mask:
                fallback = [torch.zeros_like(o) for o in flat_output]
            else:
                fallback = prev_flat_output
            flat_output = [torch.where(_broadcast_mask(mask_t, o), o, p)
                           for o, p in zip(flat_output, fallback)]
            flat_states = nest.flatten(states)
            flat_new = nest.flatten(new_states)
            final = [torch.where(_broadcast_mask(mask_t, n), n, s)
                     for n, s in zip(flat_new, flat_states)]
            states = nest.pack_sequence_as(initial_states, final)
            prev_flat_output = flat_output
            output = nest.pack_sequence_as(output, flat_output)
        last_output = output
        if return_all_outputs:
            collected.append(output)
    if not return_all_outputs:
        collected = [last_output]
    flat_collected = [nest.flatten(o) for o in collected]
    outputs = [torch.stack(list(parts), 0) for parts in zip(*flat_collected)]
    if not time_major:
        outputs = [_time_major(o) for o in outputs]
    outputs = nest.pack_sequence_as(last_output, outputs)
    return last_output, outputs, states


def right_padded_lengths(mask: torch.Tensor, time_major: bool = False
                         ) -> Optional[torch.Tensor]:
    """The per-sequence lengths when `mask` (`[batch, time]`) is right-padded (every row
    ones then zeros) and no row is empty; else None (the fused kernels need that form)."""
    if mask.dim() != 2:
        return None
    if time_major:
        mask = mask.transpose(0, 1)
    mask = mask.to(torch.bool)
    lengths = mask.sum(dim=1)
    positions = torch.arange(mask.shape[1], device=mask.device)
    expected = positions.unsqueeze(0) < lengths.unsqueeze(1)
    if not bool(torch.equal(expected, mask)) or bool((lengths == 0).any()):
        return None
    return lengths
