"""`tf.compat.v1.nn` functions whose TF 1 signature differs from TF 2's `tf.nn`.

TF 1 spells `filters` as `filter`, pool windows as `value`/`ksize`, dropout by
`keep_prob`, softmax axes as `dim`, and defaults `embedding_lookup` to the "mod"
partition strategy. Each adapter maps those spellings onto the TF 2 op (resolved at call
time). `softmax_cross_entropy_with_logits` (v1) stops the gradient into the labels, as TF 1.
"""

from __future__ import annotations

from typing import Any, Optional

from ._v1_ops import _UNSET, _pick


def _nn() -> Any:
    import tfcompat.nn
    return tfcompat.nn


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod", name: Optional[str] = None,
                     validate_indices: bool = True, max_norm: Any = None) -> Any:
    """TF 1's `tf.nn.embedding_lookup`: partitioned `params` default to the "mod" strategy."""
    from ...ops.embedding_ops import embedding_lookup_v1
    return embedding_lookup_v1(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)


def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
           name: Optional[str] = None, filters: Any = None) -> Any:
    """TF 1's `tf.nn.conv2d` (`filter`, or TF 2's `filters`)."""
    filters = _pick(filters if filters is not None else _UNSET, filter, "filters", "filter")
    return _nn().conv2d(input, filters, strides, padding, data_format=data_format,
                        dilations=list(dilations))


def _pool(kind: str):
    def pool(value: Any = None, ksize: Any = None, strides: Any = None, padding: Any = None,
             data_format: str = "NHWC", name: Optional[str] = None, input: Any = None) -> Any:  # noqa: A002
        value = _pick(input if input is not None else _UNSET, value, "input", "value")
        return getattr(_nn(), kind)(value, ksize, strides, padding, data_format=data_format)
    pool.__name__ = pool.__qualname__ = kind
    pool.__doc__ = f"TF 1's `tf.nn.{kind}` (`value` for TF 2's `input`)."
    return pool


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: Any = None,
            name: Optional[str] = None, rate: Any = None) -> Any:
    """TF 1's `tf.nn.dropout`: `keep_prob` (the probability to keep), or TF 2's `rate`."""
    if keep_prob is not None and rate is not None:
        raise ValueError("You cannot specify both 'rate' and 'keep_prob'.")
    if keep_prob is not None:
        rate = 1 - keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return _nn().dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)


def moments(x: Any, axes: Any, shift: Any = None, name: Optional[str] = None, keep_dims: Any = None,
            keepdims: Any = None) -> Any:
    """TF 1's `tf.nn.moments` (`keep_dims`)."""
    keep = _pick(keepdims if keepdims is not None else _UNSET, keep_dims, "keepdims", "keep_dims")
    return _nn().moments(x, axes, shift=shift, keepdims=bool(keep))


def _softmax(kind: str):
    def softmax(logits: Any, axis: Any = None, name: Optional[str] = None, dim: Any = None) -> Any:
        axis = _pick(axis if axis is not None else _UNSET, dim, "axis", "dim")
        return getattr(_nn(), kind)(logits, axis=-1 if axis is None else axis)
    softmax.__name__ = softmax.__qualname__ = kind
    softmax.__doc__ = f"TF 1's `tf.nn.{kind}` (`dim` for `axis`)."
    return softmax


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: Any = None,
                                         name: Optional[str] = None, dim: Any = None) -> Any:
    """TF 1's `softmax_cross_entropy_with_logits_v2`: TF 2's op (`dim` for `axis`)."""
    axis = _pick(axis if axis is not None else _UNSET, dim, "axis", "dim")
    return _nn().softmax_cross_entropy_with_logits(labels, logits, axis=-1 if axis is None else axis)


def softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None, dim: int = -1,
                                      name: Optional[str] = None, axis: Any = None) -> Any:
    """TF 1's deprecated `softmax_cross_entropy_with_logits`: as `_v2`, with no gradient
    into `labels`."""
    import tfcompat
    axis = dim if axis is None else axis
    return _nn().softmax_cross_entropy_with_logits(tfcompat.stop_gradient(labels), logits, axis=axis)


def _labels_logits(kind: str):
    def loss(labels: Any = None, logits: Any = None, name: Optional[str] = None) -> Any:
        if labels is None or logits is None:
            raise ValueError(f"Both labels and logits must be provided for {kind}.")
        return getattr(_nn(), kind)(labels, logits)
    loss.__name__ = loss.__qualname__ = kind
    loss.__doc__ = f"TF 1's `tf.nn.{kind}` (labels and logits by keyword)."
    return loss


OVERRIDES = {
    "embedding_lookup": embedding_lookup, "conv2d": conv2d, "max_pool": _pool("max_pool"),
    "avg_pool": _pool("avg_pool"), "dropout": dropout, "moments": moments,
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "softmax_cross_entropy_with_logits_v2": softmax_cross_entropy_with_logits_v2,
    "softmax_cross_entropy_with_logits": softmax_cross_entropy_with_logits,
    "sigmoid_cross_entropy_with_logits": _labels_logits("sigmoid_cross_entropy_with_logits"),
    "sparse_softmax_cross_entropy_with_logits":
        _labels_logits("sparse_softmax_cross_entropy_with_logits"),
}
