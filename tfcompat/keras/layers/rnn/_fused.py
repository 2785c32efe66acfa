"""The fused fast path of LSTM and GRU: torch's own RNN kernels on the Keras variables.

`torch._VF.lstm` / `torch._VF.gru` are the kernels behind `torch.nn.LSTM` / `nn.GRU` (oneDNN
on CPU, cuDNN on GPU). They compute tf_keras's formulas when the layer's configuration is
the one tf_keras sends to cuDNN (tanh / sigmoid, no recurrent dropout, not unrolled, a bias;
GRU with `reset_after=True`). The weights are handed over as differentiable views and
concatenations of the layer's variables, so gradients reach `kernel`, `recurrent_kernel`
and `bias`:

* LSTM: torch's gate order i, f, g, o is Keras's i, f, c, o, so `w_ih = kernel.T`,
  `w_hh = recurrent_kernel.T`, `b_ih = bias`, `b_hh = 0`;
* GRU: torch's r, z, n against Keras's z, r, h: the column blocks are reordered; Keras's
  `bias[0]` is the input bias (`b_ih`) and `bias[1]` the recurrent one (`b_hh`), which sits
  inside the reset gate's product as in `reset_after=True`.

A mask takes the fast path when it is right-padded with no empty row (packed sequences);
the outputs at padded steps are then filled as tf_keras's loop fills them (the last valid
output, or zeros with `zero_output_for_mask`). Anything else returns None and the caller
runs the generic loop.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import torch
from torch.nn.utils import rnn as rnn_utils

from ._loop import right_padded_lengths

__all__ = ["fused_rnn", "lstm_params", "gru_params"]

_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def lstm_params(kernel: torch.Tensor, recurrent_kernel: torch.Tensor,
                bias: torch.Tensor) -> List[torch.Tensor]:
    return [kernel.t(), recurrent_kernel.t(), bias, torch.zeros_like(bias).detach()]


def _gru_order(m: torch.Tensor, units: int) -> torch.Tensor:
    return torch.cat([m[..., units:2 * units], m[..., :units], m[..., 2 * units:]], dim=-1)


def gru_params(kernel: torch.Tensor, recurrent_kernel: torch.Tensor,
               bias: torch.Tensor) -> List[torch.Tensor]:
    units = recurrent_kernel.shape[0]
    return [_gru_order(kernel, units).t(), _gru_order(recurrent_kernel, units).t(),
            _gru_order(bias[0], units), _gru_order(bias[1], units)]


def _run(mode: str, x: Any, hx: Any, params: list, batch_first: bool,
         batch_sizes: Optional[torch.Tensor] = None) -> Tuple[Any, ...]:
    if mode == "lstm":
        if batch_sizes is None:
            return torch._VF.lstm(x, hx, params, True, 1, 0.0, True, False, batch_first)
        return torch._VF.lstm(x, batch_sizes, hx, params, True, 1, 0.0, True, False)
    if batch_sizes is None:
        return torch._VF.gru(x, hx, params, True, 1, 0.0, True, False, batch_first)
    return torch._VF.gru(x, batch_sizes, hx, params, True, 1, 0.0, True, False)


def fused_rnn(mode: str, inputs: torch.Tensor, initial_state: List[torch.Tensor],
              params: List[torch.Tensor], mask: Optional[torch.Tensor], time_major: bool,
              go_backwards: bool, zero_output_for_mask: bool
              ) -> Optional[Tuple[torch.Tensor, torch.Tensor, List[torch.Tensor]]]:
    """`(last_output, outputs, states)` as tf_keras's loop gives them, or None when this
    input cannot take the fused kernel (the caller then runs the generic loop)."""
    if inputs.dtype not in _DTYPES or any(p.dtype != inputs.dtype for p in params):
        return None
    lengths = None
    if mask is not None:
        if go_backwards:
            return None  # tf_keras reverses the mask too: left-padded, not packable
        lengths = right_padded_lengths(mask, time_major)
        if lengths is None:
            return None
        if bool((lengths == inputs.shape[0 if time_major else 1]).all()):
            lengths = None  # nothing masked
    time_axis = 0 if time_major else 1
    x = torch.flip(inputs, [time_axis]) if go_backwards else inputs
    hx = [s.unsqueeze(0) for s in initial_state]
    hx = tuple(hx) if mode == "lstm" else hx[0]
    if lengths is None:
        out, *states = _run(mode, x, hx, params, not time_major)
    else:
        packed = rnn_utils.pack_padded_sequence(x, lengths.cpu(), batch_first=not time_major,
                                                enforce_sorted=False)
        order, restore = packed.sorted_indices, packed.unsorted_indices
        if mode == "lstm":
            hx = tuple(h.index_select(1, order) for h in hx)
        else:
            hx = hx.index_select(1, order)
        data, *states = _run(mode, packed.data, hx, params, False, packed.batch_sizes)
        states = [s.index_select(1, restore) for s in states]
        out, _ = rnn_utils.pad_packed_sequence(
            rnn_utils.PackedSequence(data, packed.batch_sizes, order, restore),
            batch_first=not time_major, total_length=inputs.shape[time_axis])
        if not zero_output_for_mask:
            out = _repeat_last_valid(out, lengths.to(out.device), time_major)
    states = [s.squeeze(0) for s in states]
    last_output = out[-1] if time_major else out[:, -1]
    return last_output, out, states


def _repeat_last_valid(out: torch.Tensor, lengths: torch.Tensor,
                       time_major: bool) -> torch.Tensor:
    """Each padded step's output replaced by its sequence's last valid output."""
    if time_major:
        out = out.transpose(0, 1)
    steps = torch.arange(out.shape[1], device=out.device)
    index = torch.minimum(steps.unsqueeze(0), (lengths - 1).unsqueeze(1))
    out = out.gather(1, index.unsqueeze(-1).expand(-1, -1, out.shape[-1]))
    return out.transpose(0, 1) if time_major else out
