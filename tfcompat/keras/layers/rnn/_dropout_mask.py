"""tf_keras's `DropoutRNNCellMixin`: one dropout mask per layer call, reused at every step.

A cell with `dropout` / `recurrent_dropout` asks for its masks at each step; the first ask
of a call draws them (`tf.nn.dropout` of ones: 0 or `1 / (1 - rate)`) and later steps reuse
them; `RNN.call` clears them when a call starts. Outside training the masks are ones (as
tf_keras's `in_train_phase`). The random stream is torch's, not TF's.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ....ops import nn_ops
from ... import backend

__all__ = ["DropoutRNNCellMixin", "dropout_masks"]


def dropout_masks(ones_like: torch.Tensor, rate: float, training: Any, count: int,
                  seed: Optional[int] = None) -> Any:
    """`count` masks shaped like `ones_like` (one tensor when `count == 1`)."""
    if training is None:
        training = backend.learning_phase()
    ones = torch.ones_like(ones_like)
    if isinstance(training, torch.Tensor):
        training = bool(training)
    masks = [nn_ops.dropout(ones, rate, seed=seed) if training else ones
             for _ in range(count)]
    return masks if count > 1 else masks[0]


class DropoutRNNCellMixin:
    """Mask caching for cells with `dropout` and `recurrent_dropout` attributes."""

    def _dropout_state(self) -> dict:
        state = self.__dict__.get("_dropout_mask_state")
        if state is None:
            state = {}
            object.__setattr__(self, "_dropout_mask_state", state)
        return state

    def reset_dropout_mask(self) -> None:
        """Forget the input mask (the next step draws a new one)."""
        self._dropout_state().pop("input", None)

    def reset_recurrent_dropout_mask(self) -> None:
        """Forget the recurrent mask."""
        self._dropout_state().pop("recurrent", None)

    def get_dropout_mask_for_cell(self, inputs: Any, training: Any, count: int = 1) -> Any:
        """The input masks of this call (None when `dropout == 0`)."""
        if self.dropout == 0:
            return None
        state = self._dropout_state()
        if "input" not in state:
            state["input"] = dropout_masks(inputs, self.dropout, training, count,
                                           getattr(self, "seed", None))
        return state["input"]

    def get_recurrent_dropout_mask_for_cell(self, inputs: Any, training: Any,
                                            count: int = 1) -> Any:
        """The recurrent-state masks of this call (None when `recurrent_dropout == 0`)."""
        if self.recurrent_dropout == 0:
            return None
        state = self._dropout_state()
        if "recurrent" not in state:
            state["recurrent"] = dropout_masks(inputs, self.recurrent_dropout, training,
                                               count, getattr(self, "seed", None))
        return state["recurrent"]
