"""The dense attention family's shared computation (tf_keras's `BaseDenseAttention`).

A subclass gives `_calculate_scores(query, key) -> [batch, Tq, Tv]`; this base masks the
scores (the value mask, broadcast over the queries, and the causal mask), takes the softmax
over the values, applies dropout in training, returns `matmul(weights, value)` and zeroes the
rows of masked queries. A masked score gets `-1e9` subtracted (`-65504`, float16's largest
magnitude, in float16), as tf_keras.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

import torch

from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, nn_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["BaseDenseAttention", "lower_triangular_mask"]

_logger = logging.getLogger("tfcompat")


def lower_triangular_mask(rows: int, cols: int, rank: int, device: Any) -> torch.Tensor:
    """`[1, ..., 1, rows, cols]` (of `rank` dims) boolean: True where column <= row."""
    i = torch.arange(rows, device=device).unsqueeze(-1)
    j = torch.arange(cols, device=device)
    return (i >= j).reshape((1,) * (rank - 2) + (rows, cols))


def _merge_masks(x: Optional[torch.Tensor], y: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    if x is None:
        return y
    if y is None:
        return x
    return torch.logical_and(x, y)


def _as_bool(mask: Any) -> torch.Tensor:
    mask = convert_to_tensor(mask)
    return mask if mask.dtype is torch.bool else mask.to(torch.bool)


@keras_export("keras.__internal__.layers.BaseDenseAttention")
class BaseDenseAttention(Layer):
    """Base of `Attention` and `AdditiveAttention` (tf_keras 2.x `BaseDenseAttention`).

    Call with `[query, value]` or `[query, value, key]` (`[batch, Tq, dim]`,
    `[batch, Tv, dim]`, `[batch, Tv, dim]`), `mask=[query_mask, value_mask]`, `training`,
    `return_attention_scores` and `use_causal_mask`.
    """

    def __init__(self, dropout: float = 0.0, **kwargs: Any) -> None:
        if "causal" in kwargs:
            _logger.warning("`causal` argument is deprecated. Please use `use_causal_mask` in "
                            "call() method to specify causal masking.")
        self.causal = kwargs.pop("causal", False)
        super().__init__(**kwargs)
        self.dropout = dropout
        self.supports_masking = True

    def _calculate_scores(self, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _apply_scores(self, scores: torch.Tensor, value: torch.Tensor,
                      scores_mask: Optional[torch.Tensor] = None,
                      training: Any = None) -> tuple:
        """`(matmul(softmax(masked scores), value), softmax(masked scores))`."""
        if scores_mask is not None:
            big = 65504.0 if scores.dtype is torch.float16 else 1.0e9
            padding = torch.logical_not(scores_mask).to(scores.dtype)
            scores = scores - torch.full((), big, dtype=scores.dtype,
                                         device=scores.device) * padding
        if training is None:
            training = backend.learning_phase()
        weights = nn_ops.softmax(scores)
        if self.dropout > 0 and training:
            weights = nn_ops.dropout(weights, self.dropout)
        return math_ops.matmul(weights, value), weights

    def call(self, inputs: Any, mask: Any = None, training: Any = None,
             return_attention_scores: bool = False, use_causal_mask: bool = False) -> Any:
        self._validate_call_args(inputs=inputs, mask=mask)
        q = inputs[0]
        v = inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(query=q, key=k)
        if v_mask is not None:
            v_mask = _as_bool(v_mask).unsqueeze(-2)  # [batch, 1, Tv]
        causal_mask = None
        if self.causal or use_causal_mask:
            causal_mask = lower_triangular_mask(scores.shape[-2], scores.shape[-1],
                                                scores.dim(), scores.device)
        scores_mask = _merge_masks(v_mask, causal_mask)
        result, attention_scores = self._apply_scores(scores=scores, value=v,
                                                      scores_mask=scores_mask,
                                                      training=training)
        if q_mask is not None:
            q_mask = convert_to_tensor(q_mask).unsqueeze(-1)  # [batch, Tq, 1]
            result = result * q_mask.to(result.dtype)
        if return_attention_scores:
            return result, attention_scores
        return result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        self._validate_call_args(inputs=inputs, mask=mask)
        if mask:
            q_mask = mask[0]
            if q_mask is None:
                return None
            return convert_to_tensor(q_mask)
        return None

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        # as tf_keras: the attention scores' shape is not returned
        return TensorShape(input_shape[0])

    def _validate_call_args(self, inputs: Any, mask: Any) -> None:
        class_name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{class_name} layer must be called on a list of inputs, namely "
                             f"[query, value] or [query, value, key]. Received: {inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{class_name} layer accepts inputs list of length 2 or 3, namely "
                             "[query, value] or [query, value, key]. Received length: "
                             f"{len(inputs)}.")
        if mask:
            if not isinstance(mask, list):
                raise ValueError(f"{class_name} layer mask must be a list, namely "
                                 f"[query_mask, value_mask]. Received: {mask}.")
            if len(mask) < 2 or len(mask) > len(inputs):
                raise ValueError(f"{class_name} layer mask must be a list of length 2, namely "
                                 f"[query_mask, value_mask]. Received length: {len(mask)}.")

    def get_config(self) -> dict:
        config = super().get_config()
        config["dropout"] = self.dropout
        return config
