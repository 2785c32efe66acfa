"""Attention layers: `MultiHeadAttention` (einsum multi-head attention), `Attention`
(Luong-style dot or concat scores) and `AdditiveAttention` (Bahdanau-style scores)."""

from .additive_attention import AdditiveAttention
from .attention import Attention
from .base_dense_attention import BaseDenseAttention
from .multi_head_attention import MultiHeadAttention

__all__ = ["MultiHeadAttention", "Attention", "AdditiveAttention"]
