"""`tf.keras.layers.MultiHeadAttention`: multi-head scaled dot-product attention in tf_keras's
einsum layout.

The query, key and value are projected by `EinsumDense` layers named `query`, `key`, `value`
(kernels `[dim, num_heads, key_dim]` / `[dim, num_heads, value_dim]`, biases
`[num_heads, head_dim]`), giving `[batch, <non-attention dims>, <attention dims>, heads,
head_dim]`. As tf_keras, the projected query is multiplied by `1 / sqrt(key_dim)` (rounded to
the compute dtype) before the dot product `einsum(key, query)`; the scores
`[batch, <non-attention dims>, heads, <query attention dims>, <key attention dims>]` go
through a `Softmax` sublayer over the key attention axes, masked where `attention_mask`
(broadcast from the heads axis on) is False, then a `Dropout` sublayer; `einsum(scores,
value)` combines the values and the `attention_output` `EinsumDense` (kernel
`[num_heads, value_dim, *output_shape]`) projects back. The layers and weights are made on
the first call (`_build_from_signature`), so weights read
`multi_head_attention/query/kernel:0`, ... in tf_keras's order.

The math is einsum over torch (`tfcompat.ops`). A fused path,
`torch.nn.functional.scaled_dot_product_attention`, serves the common case where it gives
tf_keras's numbers: rank-3 inputs with one attention axis, float32/float64, no attention
scores returned, no dropout in effect, the stock softmax and attention methods, and no mask
but the causal one (`is_causal`, top-left aligned as tf_keras's band). It differs from the
einsum path only in where the `1/sqrt(key_dim)` rounding falls, within the goldens' error
model (and tested against the einsum path). Explicit and Keras masks take the einsum path:
a fully masked row is tf_keras's `-1e9` rounding (uniform weights, and their gradient),
which a fused kernel does not reproduce.
"""

from __future__ import annotations

import collections.abc
import logging
import math
import string
from typing import Any, Optional, Sequence, Tuple

import torch

from ....framework.name_scope import name_scope as name_scope_cls
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import matrix_ops
from ... import backend, constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...engine.keras_tensor import KerasTensor
from ...saving.serialization import keras_export
from ..activation.softmax import Softmax
from ..core.einsum_dense import EinsumDense
from ..regularization.dropout import Dropout
from .base_dense_attention import lower_triangular_mask

__all__ = ["MultiHeadAttention"]

_FUSED_DTYPES = (torch.float32, torch.float64)
_LETTERS = string.ascii_lowercase
_logger = logging.getLogger("tfcompat")


def _normalize_axes(axes: Sequence[int], rank: int) -> set:
    """The axes as non-negative indices, with NumPy's error for one out of range (tf_keras
    computes the batch dims with `np.delete`)."""
    out = set()
    for axis in axes:
        if not -rank <= axis < rank:
            raise IndexError(f"index {axis} is out of bounds for axis 0 with size {rank}")
        out.add(axis % rank)
    return out


def build_attention_equation(rank: int, attn_axes: Tuple[int, ...]) -> Tuple[str, str, int]:
    """`(dot product equation, combine equation, scores rank)` for projected tensors of
    `rank` dims, `[batch dims..., attention dims..., heads, channels]` as tf_keras lays them.

    The key's attention axes get fresh letters; the scores are
    `[batch dims (heads included), query attention dims, key attention dims]`.
    """
    target = _LETTERS[:rank]
    excluded = _normalize_axes(tuple(attn_axes) + (rank - 1,), rank)
    batch_dims = [i for i in range(rank) if i not in excluded]
    source = ""
    fresh = rank
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _LETTERS[fresh]
            fresh += 1
    product = ("".join(target[i] for i in batch_dims) + "".join(target[i] for i in attn_axes)
               + "".join(source[i] for i in attn_axes))
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def build_projection_equation(free_dims: int, bound_dims: int,
                              output_dims: int) -> Tuple[str, str, int]:
    """`(equation, bias axes, output rank)` of an `EinsumDense` that keeps `free_dims`,
    contracts `bound_dims` and appends `output_dims`."""
    free = _LETTERS[:free_dims]
    bound = _LETTERS[free_dims:free_dims + bound_dims]
    out = _LETTERS[free_dims + bound_dims:free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def _output_shape(output_rank: int, known_last_dims: Sequence[Any]) -> list:
    return [None] * (output_rank - len(known_last_dims)) + list(known_last_dims)


def _shape_of(x: Any) -> TensorShape:
    return TensorShape(x.shape) if hasattr(x, "shape") else TensorShape(x)


@keras_export("keras.layers.MultiHeadAttention")
class MultiHeadAttention(Layer):
    """Multi-head attention (tf_keras 2.x `MultiHeadAttention`).

    Call as `layer(query, value, key=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)`. The Keras masks
    of `query`, `value` and `key` (`_keras_mask`) join `attention_mask` and the causal mask
    (`_compute_attention_mask`); `attention_axes` (None: every axis but the batch, heads and
    features) may name several axes for multi-axis attention.
    """

    def __init__(self, num_heads: int, key_dim: int, value_dim: Optional[int] = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape: Any = None,
                 attention_axes: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 softmax_robust_masking: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._output_shape = output_shape
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        # as tf_keras: on this layer's outputs and on every projection's
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        self._softmax_robust_masking = softmax_robust_masking
        if attention_axes is not None and not isinstance(attention_axes, collections.abc.Sized):
            self._attention_axes = (attention_axes,)
        else:
            self._attention_axes = attention_axes
        self._built_from_signature = False
        self._query_shape: Optional[TensorShape] = None
        self._key_shape: Optional[TensorShape] = None
        self._value_shape: Optional[TensorShape] = None

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        config = super().get_config()
        config.update({
            "num_heads": self._num_heads,
            "key_dim": self._key_dim,
            "value_dim": self._value_dim,
            "dropout": self._dropout,
            "use_bias": self._use_bias,
            "output_shape": self._output_shape,
            "attention_axes": self._attention_axes,
            "kernel_initializer": initializers.serialize(self._kernel_initializer),
            "bias_initializer": initializers.serialize(self._bias_initializer),
            "kernel_regularizer": regularizers.serialize(self._kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self._bias_regularizer),
            "activity_regularizer": regularizers.serialize(self._activity_regularizer),
            "kernel_constraint": constraints.serialize(self._kernel_constraint),
            "bias_constraint": constraints.serialize(self._bias_constraint),
            "query_shape": self._query_shape,
            "key_shape": self._key_shape,
            "value_shape": self._value_shape,
            "softmax_robust_masking": self._softmax_robust_masking,
        })
        return config

    @classmethod
    def from_config(cls, config: dict) -> "MultiHeadAttention":
        config = dict(config)
        query_shape = config.pop("query_shape", None)
        key_shape = config.pop("key_shape", None)
        value_shape = config.pop("value_shape", None)
        layer = cls(**config)
        if None in (query_shape, key_shape, value_shape):
            _logger.warning("One of dimensions of the input shape is missing. It should have "
                            "been memorized when the layer was serialized. %s is created "
                            "without weights.", str(cls))
        else:
            layer._build_from_signature(query_shape, value_shape, key_shape)
        return layer

    # ------------------------------------------------------------------ building
    def _build_from_signature(self, query: Any, value: Any, key: Any = None) -> None:
        """Make the projection, softmax and dropout sublayers for inputs like `query`,
        `value` and `key` (tensors or shapes); their weights follow on the first call."""
        self._built_from_signature = True
        self._query_shape = _shape_of(query)
        self._value_shape = _shape_of(value)
        self._key_shape = self._value_shape if key is None else _shape_of(key)
        free_dims = self._query_shape.rank - 1
        equation, bias_axes, output_rank = build_projection_equation(free_dims, 1, 2)
        self._query_dense = EinsumDense(
            equation, output_shape=_output_shape(output_rank - 1,
                                                 [self._num_heads, self._key_dim]),
            bias_axes=bias_axes if self._use_bias else None, name="query",
            **self._get_common_kwargs_for_sublayer())
        equation, bias_axes, output_rank = build_projection_equation(
            self._key_shape.rank - 1, 1, 2)
        self._key_dense = EinsumDense(
            equation, output_shape=_output_shape(output_rank - 1,
                                                 [self._num_heads, self._key_dim]),
            bias_axes=bias_axes if self._use_bias else None, name="key",
            **self._get_common_kwargs_for_sublayer())
        equation, bias_axes, output_rank = build_projection_equation(
            self._value_shape.rank - 1, 1, 2)
        self._value_dense = EinsumDense(
            equation, output_shape=_output_shape(output_rank - 1,
                                                 [self._num_heads, self._value_dim]),
            bias_axes=bias_axes if self._use_bias else None, name="value",
            **self._get_common_kwargs_for_sublayer())
        self._build_attention(output_rank)
        self._output_dense = self._make_output_dense(
            free_dims, self._get_common_kwargs_for_sublayer(), "attention_output")

    def _get_common_kwargs_for_sublayer(self) -> dict:
        # fresh initializer instances per sublayer, as tf_keras (a shared seeded instance
        # would give every kernel the same values)
        return dict(
            kernel_regularizer=self._kernel_regularizer,
            bias_regularizer=self._bias_regularizer,
            activity_regularizer=self._activity_regularizer,
            kernel_constraint=self._kernel_constraint,
            bias_constraint=self._bias_constraint,
            dtype=self._dtype_policy,
            kernel_initializer=type(self._kernel_initializer).from_config(
                self._kernel_initializer.get_config()),
            bias_initializer=type(self._bias_initializer).from_config(
                self._bias_initializer.get_config()),
        )

    def _make_output_dense(self, free_dims: int, common_kwargs: dict,
                           name: Optional[str] = None) -> EinsumDense:
        """The output projection from `[..., heads, value_dim]` to `output_shape` (default:
        the query's last dimension)."""
        if self._output_shape:
            if not isinstance(self._output_shape, collections.abc.Sized):
                output_shape = [self._output_shape]
            else:
                output_shape = list(self._output_shape)
        else:
            output_shape = [self._query_shape[-1]]
        equation, bias_axes, output_rank = build_projection_equation(
            free_dims, 2, len(output_shape))
        return EinsumDense(equation, output_shape=_output_shape(output_rank - 1, output_shape),
                           bias_axes=bias_axes if self._use_bias else None, name=name,
                           **common_kwargs)

    def _build_attention(self, rank: int) -> None:
        """The einsum equations, the softmax over the key attention axes and the dropout,
        for projected tensors of `rank` dims."""
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = \
            build_attention_equation(rank, attn_axes=self._attention_axes)
        norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        self._softmax = Softmax(axis=norm_axes, robust_masking=self._softmax_robust_masking,
                                dtype=self._dtype_policy)
        self._dropout_layer = Dropout(rate=self._dropout, dtype=self._dtype_policy)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._built_from_signature:
            # On KerasTensors, build from their shapes (unknown dims kept unknown, as
            # tf_keras's config records them) before `call` runs on stand-in tensors.
            named = dict(zip(("query", "value", "key"), args))
            named.update({k: kwargs[k] for k in ("query", "value", "key") if k in kwargs})
            query, value = named.get("query"), named.get("value")
            if any(isinstance(x, KerasTensor) for x in (query, value, named.get("key"))) \
                    and query is not None and value is not None:
                with backend.keras_graph_scope(), name_scope_cls(self.name):
                    self._build_from_signature(query, value, named.get("key"))
        return super().__call__(*args, **kwargs)

    # ------------------------------------------------------------------ computation
    def _masked_softmax(self, attention_scores: torch.Tensor,
                        attention_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        if attention_mask is not None:
            # the mask broadcasts from the heads axis on:
            # [<batch dims>, heads, <query attention dims>, <key attention dims>]
            axis = -len(self._attention_axes) * 2 - 1
            for _ in range(attention_scores.dim() - attention_mask.dim()):
                attention_mask = attention_mask.unsqueeze(axis)
        return self._softmax(attention_scores, attention_mask)

    def _compute_attention(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                           attention_mask: Optional[torch.Tensor] = None,
                           training: Any = None) -> Tuple[torch.Tensor, torch.Tensor]:
        """`(attention output [B, T, N, H], scores [B, N, T, S])` of projected inputs
        (override point, as in tf_keras)."""
        # the factor is rounded to the query's dtype first, as TF converts a Python float
        scale = torch.full((), 1.0 / math.sqrt(float(self._key_dim)), dtype=query.dtype,
                           device=query.device)
        query = query * scale
        attention_scores = matrix_ops.einsum(self._dot_product_equation, key, query)
        attention_scores = self._masked_softmax(attention_scores, attention_mask)
        # (drops whole tokens to attend to, as the Transformer paper)
        dropped = self._dropout_layer(attention_scores, training=training)
        attention_output = matrix_ops.einsum(self._combine_equation, dropped, value)
        return attention_output, attention_scores

    def call(self, query: Any, value: Any, key: Any = None, attention_mask: Any = None,
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        value = value if isinstance(value, torch.Tensor) else convert_to_tensor(value)
        if key is not None and not isinstance(key, torch.Tensor):
            key = convert_to_tensor(key)
        if not self._built_from_signature:
            self._build_from_signature(query=query, value=value, key=key)
        if key is None:
            key = value
        masked = attention_mask is not None or any(
            getattr(x, "_keras_mask", None) is not None for x in (query, value, key))
        attention_mask = self._compute_attention_mask(
            query, value, key=key, attention_mask=attention_mask,
            use_causal_mask=use_causal_mask)
        query = self._query_dense(query)    # [B, T, N, H]
        key = self._key_dense(key)          # [B, S, N, H]
        value = self._value_dense(value)    # [B, S, N, H]
        if self._can_fuse(query, return_attention_scores, training, masked):
            attention_output = self._fused_attention(query, key, value, use_causal_mask)
            attention_scores = None
        else:
            attention_output, attention_scores = self._compute_attention(
                query, key, value, attention_mask, training)
        attention_output = self._output_dense(attention_output)
        if return_attention_scores:
            return attention_output, attention_scores
        return attention_output

    #: switch for the fused `scaled_dot_product_attention` path (see the module doc)
    _fused_attention_enabled = True

    def _can_fuse(self, query: torch.Tensor, return_attention_scores: bool, training: Any,
                  masked: bool) -> bool:
        cls = type(self)
        if training is None:  # as the Dropout sublayer resolves it
            training = backend.learning_phase()
        return (cls._fused_attention_enabled and not masked and not return_attention_scores
                and query.dim() == 4 and self._attention_axes == (1,)
                and query.dtype in _FUSED_DTYPES
                and (self._dropout == 0 or not training)
                and not self._softmax_robust_masking and type(self._softmax) is Softmax
                and cls._compute_attention is MultiHeadAttention._compute_attention
                and cls._masked_softmax is MultiHeadAttention._masked_softmax
                and cls._compute_causal_mask is MultiHeadAttention._compute_causal_mask)

    def _fused_attention(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                         causal: bool) -> torch.Tensor:
        """`_compute_attention`'s output through torch's fused kernel, `[B, T, N, H]`."""
        out = torch.nn.functional.scaled_dot_product_attention(
            query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2),
            is_causal=causal, scale=1.0 / math.sqrt(float(self._key_dim)))
        return out.transpose(1, 2)

    def _compute_attention_mask(self, query: Any, value: Any, key: Any = None,
                                attention_mask: Any = None,
                                use_causal_mask: bool = False) -> Optional[torch.Tensor]:
        """`attention_mask` AND the inputs' Keras masks (query `[B, T, 1]`, value and key
        `[B, 1, S]`) AND the causal mask `[1, T, S]`, as a boolean tensor (or None)."""
        auto_mask = None
        query_mask = getattr(query, "_keras_mask", None)
        value_mask = getattr(value, "_keras_mask", None)
        key_mask = getattr(key, "_keras_mask", None)
        if query_mask is not None:
            auto_mask = convert_to_tensor(query_mask).to(torch.bool)[:, :, None]
        for mask in (value_mask, key_mask):
            if mask is not None:
                mask = convert_to_tensor(mask).to(torch.bool)[:, None, :]
                auto_mask = mask if auto_mask is None else auto_mask & mask
        if use_causal_mask:
            mask = self._compute_causal_mask(query, value)
            auto_mask = mask if auto_mask is None else auto_mask & mask
        if auto_mask is not None:
            if attention_mask is None:
                attention_mask = auto_mask
            else:
                attention_mask = convert_to_tensor(attention_mask).to(torch.bool) & auto_mask
        elif attention_mask is not None:
            attention_mask = convert_to_tensor(attention_mask)
        return attention_mask

    def _compute_causal_mask(self, query: Any, value: Any = None) -> torch.Tensor:
        """`[1, T, S]` lower-triangular boolean mask (T, S: dim 1 of query and value)."""
        q_len = query.shape[1]
        v_len = q_len if value is None else value.shape[1]
        device = query.device if isinstance(query, torch.Tensor) else None
        return lower_triangular_mask(q_len, v_len, 3, device)

    def compute_output_shape(self, query_shape: Any, value_shape: Any,
                             key_shape: Any = None) -> TensorShape:
        if key_shape is None:
            key_shape = value_shape
        query_shape = TensorShape(query_shape)
        value_shape = TensorShape(value_shape)
        key_shape = TensorShape(key_shape)
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(
                "The last dimension of `query_shape` and `value_shape` must be equal, but are "
                f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={{query_shape}}, "
                "value_shape={value_shape}")
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError("All dimensions of `value` and `key`, except the last one, must "
                             f"be equal. Received {value_shape} and {key_shape}")
        if self._output_shape:
            return query_shape[:-1].concatenate(self._output_shape)
        return query_shape
