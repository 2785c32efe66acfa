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


def _normalize(x: Any, mean: Any, var: Any, offset: Any, scale: Any, epsilon: float) -> Any:
    # TF's fused kernel's order: (x - mean) * (scale * rsqrt(var + eps)) + offset
    import torch
    return (x - mean) * (scale * torch.rsqrt(var + epsilon)) + offset


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC", is_training: bool = True,
                     name: Optional[str] = None, exponential_avg_factor: float = 1.0) -> Any:
    """TF 1's `tf.nn.fused_batch_norm` over a 4-D `x` (NHWC or NCHW): `(y, mean, variance)`.

    Training: normalizes with the batch's mean and population variance over N, H, W and
    returns the mean and the Bessel-corrected variance (TF's kernel), blended into `mean` /
    `variance` by `exponential_avg_factor` when it is below 1. Inference: normalizes with
    the given `mean`/`variance` and returns them. Half-precision inputs are computed in
    float32 and rounded, as TF's kernel does; the statistics stay float32.
    """
    import tfcompat as tf
    x = tf.convert_to_tensor(x)
    if x.dim() != 4:
        raise ValueError(f"x must be a 4-D tensor, got shape {list(x.shape)}.")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"data_format must be NHWC or NCHW, got {data_format}.")
    if data_format == "NCHW":  # TF's CPU kernel computes NCHW as NHWC (same sums, same order)
        y, m, v = fused_batch_norm(x.permute(0, 2, 3, 1).contiguous(), scale, offset, mean, variance, epsilon,
                                   "NHWC", is_training, name, exponential_avg_factor)
        return y.permute(0, 3, 1, 2), m, v
    xf = x.float() if x.dtype in (tf.float16.as_torch, tf.bfloat16.as_torch) else x
    axes = [0, 1, 2]
    shape = [1, 1, 1, -1]
    scale = tf.reshape(tf.convert_to_tensor(scale, dtype_hint=tf.as_dtype(xf.dtype)), shape)
    offset = tf.reshape(tf.convert_to_tensor(offset, dtype_hint=tf.as_dtype(xf.dtype)), shape)
    if is_training:
        batch_mean, batch_var = _nn().moments(xf, axes)
        count = xf.numel() // xf.shape[3]
        y = _normalize(xf, tf.reshape(batch_mean, shape), tf.reshape(batch_var, shape), offset,
                       scale, epsilon)
        out_var = batch_var * (count / max(count - 1, 1))
        out_mean = batch_mean
        if exponential_avg_factor != 1.0 and mean is not None and variance is not None:
            f = exponential_avg_factor
            out_mean = (1 - f) * tf.convert_to_tensor(mean) + f * batch_mean
            out_var = (1 - f) * tf.convert_to_tensor(variance) + f * out_var
    else:
        if mean is None or variance is None:
            raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when "
                             "is_training is False.")
        out_mean, out_var = tf.convert_to_tensor(mean), tf.convert_to_tensor(variance)
        y = _normalize(xf, tf.reshape(out_mean, shape), tf.reshape(out_var, shape), offset,
                       scale, epsilon)
    return y.to(x.dtype), out_mean, out_var


OVERRIDES = {
    "fused_batch_norm": fused_batch_norm,
    "embedding_lookup": embedding_lookup, "conv2d": conv2d, "max_pool": _pool("max_pool"),
    "avg_pool": _pool("avg_pool"), "dropout": dropout, "moments": moments,
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "softmax_cross_entropy_with_logits_v2": softmax_cross_entropy_with_logits_v2,
    "softmax_cross_entropy_with_logits": softmax_cross_entropy_with_logits,
    "sigmoid_cross_entropy_with_logits": _labels_logits("sigmoid_cross_entropy_with_logits"),
    "sparse_softmax_cross_entropy_with_logits":
        _labels_logits("sparse_softmax_cross_entropy_with_logits"),
}
