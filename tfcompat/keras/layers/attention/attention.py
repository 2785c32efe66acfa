"""`tf.keras.layers.Attention`: Luong-style attention, scores `query . key` ("dot") or
`sum(tanh(query + key))` ("concat"), optionally scaled by a learned scalar."""

from __future__ import annotations

from typing import Any

import torch

from ....ops import math_ops, reduction_ops, unary_ops
from ...saving.serialization import keras_export
from .base_dense_attention import BaseDenseAttention

__all__ = ["Attention"]


@keras_export("keras.layers.Attention")
class Attention(BaseDenseAttention):
    """Dot-product attention (tf_keras 2.x `Attention`).

    `score_mode="dot"`: `scores = matmul(query, key^T)`, times the scalar `scale` when
    `use_scale`; `"concat"`: `scores = concat_score_weight * sum(tanh(scale * (q + k)), -1)`
    over `q` `[batch, Tq, 1, dim]` and `k` `[batch, 1, Tv, dim]`. Both weights start at 1.
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        if self.score_mode not in ["dot", "concat"]:
            raise ValueError(f"Received: score_mode={score_mode}. Acceptable values are: "
                             '["dot", "concat"]')

    def build(self, input_shape: Any) -> None:
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones",
                                         dtype=self.dtype, trainable=True)
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones", dtype=self.dtype,
                trainable=True)
        super().build(input_shape)

    def _calculate_scores(self, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            if self.scale is not None:
                scores = scores * self.scale
            return scores
        q = query.unsqueeze(-2)  # [batch, Tq, 1, dim]
        k = key.unsqueeze(-3)    # [batch, 1, Tv, dim]
        summed = q + k
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * reduction_ops.reduce_sum(
            unary_ops.tanh(summed), axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode})
        return config
