"""`tf.keras.layers.AdditiveAttention`: Bahdanau-style attention, scores
`sum(scale * tanh(query + key), -1)` with a learned per-feature `scale`."""

from __future__ import annotations

from typing import Any

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import reduction_ops, unary_ops
from ...saving.serialization import keras_export
from .base_dense_attention import BaseDenseAttention

__all__ = ["AdditiveAttention"]


@keras_export("keras.layers.AdditiveAttention")
class AdditiveAttention(BaseDenseAttention):
    """Additive attention (tf_keras 2.x `AdditiveAttention`); `scale` has the value's last
    dimension and starts glorot-uniform."""

    def __init__(self, use_scale: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape: Any) -> None:
        dim = TensorShape(input_shape[1])[-1]
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=[dim],
                                         initializer="glorot_uniform", dtype=self.dtype,
                                         trainable=True)
        super().build(input_shape)

    def _calculate_scores(self, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
        q = query.unsqueeze(-2)  # [batch, Tq, 1, dim]
        k = key.unsqueeze(-3)    # [batch, 1, Tv, dim]
        terms = unary_ops.tanh(q + k)
        if self.use_scale:
            terms = self.scale * terms
        return reduction_ops.reduce_sum(terms, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        config["use_scale"] = self.use_scale
        return config
