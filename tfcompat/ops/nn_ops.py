"""`tf.nn`: activations, softmax, cross-entropy losses, `l2_loss`, `bias_add`, `dropout`.

The losses are transcriptions of TF's formulas, down to their gradients:

* `softmax_cross_entropy_with_logits` has TF's gradient `softmax - labels`
  for the logits even when a row of labels does not sum to 1 (the exact
  gradient of the loss would be `sum(labels) * softmax - labels`);
* `sigmoid_cross_entropy_with_logits` is TF's stable
  `max(x, 0) - x * z + log1p(exp(-|x|))`, built with the same `where`s so
  its gradient at `x = 0` matches too;
* `sparse_softmax_cross_entropy_with_logits` rejects out-of-range labels on
  CPU (TF's CPU kernel) and gives NaN for them on an accelerator (TF's GPU
  kernel), so no host sync is needed there.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import torch

from ..framework import dtypes
from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor, convert_to_tensor_on
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from . import random_ops
from ._indices import all_in_range, checks_on_host, first_bad, in_range, index_tensor
from ._shape_args import int_values, single_axis
from .unary_ops import make_unary

__all__ = ["relu", "softmax", "log_softmax", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
           "l2_loss", "bias_add", "dropout"]

_SOFTMAX_TYPES = D.FLOATS

relu = make_unary("Relu", torch.relu, D.REAL, "relu",
                  "`tf.nn.relu`: `max(features, 0)`; NaN stays NaN, the gradient at 0 is 0 "
                  "(as TF).")


def _softmax_axis(x: torch.Tensor, axis: Any) -> int:
    a = -1 if axis is None else single_axis(axis, "Softmax")
    rank = x.dim()
    if rank == 0:
        raise invalid("softmax needs a tensor of rank >= 1 (got a scalar): the softmax of one value "
                      "is 1", "Softmax")
    if not -rank <= a < rank:
        raise invalid(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
                      f"dimensions in the input. Received: dim={a}", "Softmax")
    return a


def softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.softmax`: `exp(logits) / reduce_sum(exp(logits), axis)`, axis -1 by default."""
    x = convert_to_tensor(logits)
    D.check_dtype("Softmax", x.dtype, _SOFTMAX_TYPES)
    return torch.softmax(x, dim=_softmax_axis(x, axis))


def log_softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.log_softmax`: `logits - log(reduce_sum(exp(logits), axis))`, axis -1 by default."""
    x = convert_to_tensor(logits)
    D.check_dtype("LogSoftmax", x.dtype, _SOFTMAX_TYPES)
    return torch.log_softmax(x, dim=_softmax_axis(x, axis))


def _precise(x: torch.Tensor) -> torch.Tensor:
    # TF computes the half-precision losses in float32 and casts the result back.
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1,
                                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.softmax_cross_entropy_with_logits` (v2): `-sum(labels * log_softmax(logits), axis)`.

    `labels` is cast to the logits' dtype and broadcast against them; both
    get gradients. The logits' gradient is TF's `softmax - labels`.
    """
    x = convert_to_tensor(logits)
    D.check_dtype("SoftmaxCrossEntropyWithLogits", x.dtype, _SOFTMAX_TYPES)
    z = convert_to_tensor_on(x.device, labels)
    if x.dim() == 0:
        raise invalid("logits must have rank >= 1", "SoftmaxCrossEntropyWithLogits")
    a = single_axis(axis, "SoftmaxCrossEntropyWithLogits")
    if not -x.dim() <= a < x.dim():
        raise invalid(f"axis {a} is out of range for logits of rank {x.dim()}",
                      "SoftmaxCrossEntropyWithLogits")
    px = _precise(x)
    pz = z.to(dtype=px.dtype, device=px.device)
    ls = torch.log_softmax(px, dim=a)
    try:
        loss = -(pz * ls).sum(dim=a)  # its logits gradient is sum(labels) * softmax - labels
    except RuntimeError:
        raise invalid(f"logits and labels must be broadcastable: logits_size={list(x.shape)} "
                      f"labels_size={list(z.shape)}", "SoftmaxCrossEntropyWithLogits") from None
    if px.requires_grad and torch.is_grad_enabled() and px.shape[a] > 0:
        # TF's gradient is softmax - labels: take (sum(labels) - 1) * softmax back out with a
        # term whose value is exactly 0 (lse - lse.detach()) but whose gradient is softmax.
        lse = (px - ls).narrow(a, 0, 1).squeeze(a)
        excess = (pz.sum(dim=a) - 1).detach()
        loss = loss - excess * (lse - lse.detach())
    return loss.to(x.dtype)


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any,
                                             name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.sparse_softmax_cross_entropy_with_logits`: `logsumexp(logits) - logits[label]`.

    `labels` (int32/int64) has the logits' shape without the last axis.
    """
    x = convert_to_tensor(logits)
    y = index_tensor(labels, "SparseSoftmaxCrossEntropyWithLogits", attr="Tlabels",
                     allowed=D.INT32_64, device=x.device)
    D.check_dtype("SparseSoftmaxCrossEntropyWithLogits", x.dtype, _SOFTMAX_TYPES)
    if x.dim() == 0 or tuple(y.shape) != tuple(x.shape[:-1]):
        raise ValueError("`labels.shape` must equal `logits.shape` except for the last dimension. "
                         f"Received: labels.shape={TensorShape(tuple(y.shape))} and "
                         f"logits.shape={TensorShape(tuple(x.shape))}")
    if y.device != x.device:
        y = y.to(x.device)
    n = x.shape[-1]
    px = _precise(x)
    valid = None
    if checks_on_host(y):
        pos = -1 if all_in_range(y, n) else first_bad(~in_range(y, n))
        if pos >= 0:
            flat = y.reshape(-1)
            shown = " ".join(str(v) for v in flat[:10].tolist())
            raise invalid(f"Received a label value of {int(flat[pos])} which is outside the valid "
                          f"range of [0, {n}).  Label values: {shown}",
                          "SparseSoftmaxCrossEntropyWithLogits")
        safe = y if y.dtype is torch.int64 else y.to(torch.int64)
    else:
        valid = in_range(y, n)
        safe = y.clamp(0, max(n - 1, 0)).to(torch.int64)
    if px.dim() == 2:  # (one node each way: the same values as the gather below)
        loss = torch.nn.functional.nll_loss(torch.log_softmax(px, dim=-1), safe,
                                            reduction="none")
    else:
        loss = -torch.log_softmax(px, dim=-1).gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    if valid is not None:
        loss = torch.where(valid, loss, torch.full((), float("nan"), dtype=loss.dtype,
                                                   device=loss.device))
    return loss.to(x.dtype)


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                      name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.sigmoid_cross_entropy_with_logits`: `max(x, 0) - x * z + log(1 + exp(-|x|))`.

    Same shape and dtype for labels `z` and logits `x` (no promotion: a
    Python int label list is int32 and fails, as in TF).
    """
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided. Received: "
                         f"labels={labels} and logits={logits}")
    x = convert_to_tensor(logits)
    z = convert_to_tensor_on(x.device, labels)
    if tuple(x.shape) != tuple(z.shape):
        raise ValueError("`logits` and `labels` must have the same shape, received "
                         f"({TensorShape(tuple(x.shape))} vs {TensorShape(tuple(z.shape))}).")
    D.check_dtype("Exp", x.dtype, D.FLOATS | D.COMPLEX)
    if z.dtype is not x.dtype:
        raise D.mismatch("Mul", 1, x.dtype, z.dtype)
    if z.device != x.device:
        z = z.to(x.device)
    zeros = torch.zeros((), dtype=x.dtype, device=x.device)
    cond = x >= zeros
    relu_logits = torch.where(cond, x, zeros)
    neg_abs_logits = torch.where(cond, -x, x)
    return (relu_logits - x * z) + torch.log1p(torch.exp(neg_abs_logits))


def l2_loss(t: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.l2_loss`: `sum(t ** 2) / 2`, a scalar of `t`'s (floating) dtype."""
    x = convert_to_tensor(t)
    D.check_dtype("L2Loss", x.dtype, D.FLOATS)
    return torch.sum(x * x) / 2


def bias_add(value: Any, bias: Any, data_format: Optional[str] = None,
             name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.bias_add`: add the 1-D `bias` along the channel axis.

    The channel axis is the last one (`data_format` None or `N...C`) or axis
    1 (`NC...`). `value` must be at least 2-D.
    """
    channels_first = False
    if data_format is not None:
        if data_format.startswith("NC"):
            channels_first = True
        elif not (data_format.startswith("N") and data_format.endswith("C")):
            raise ValueError("`data_format` must be of the form `N...C` or `NC...`. Received: "
                             f"data_format={data_format}")
    x, b = D.matched("BiasAdd", value, bias)
    D.check_dtype("BiasAdd", x.dtype, D.NUMERIC)
    if x.dim() < 2:
        raise invalid(f"Input tensor must be at least 2D: {list(x.shape)}", "BiasAdd")
    if b.dim() != 1:
        raise invalid(f"Biases must be 1D: {list(b.shape)}", "BiasAdd")
    channel = 1 if channels_first else x.dim() - 1
    if b.shape[0] != x.shape[channel]:
        where = "channel" if channels_first else "last"
        raise invalid(f"Must provide as many biases as the {where} dimension of the input tensor: "
                      f"{list(b.shape)} vs. {list(x.shape)}", "BiasAdd")
    if channels_first:
        b = b.reshape((-1,) + (1,) * (x.dim() - 2))
    return D.run(torch.add, x, b)


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: Optional[int] = None,
            name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.dropout`: zero each element with probability `rate`, scale the rest by `1/(1-rate)`.

    The keep mask is `uniform(noise_shape) >= rate`, drawn like
    `tf.random.uniform(noise_shape, seed=seed)` (so `tf.random.set_seed`
    makes it reproducible). `noise_shape` (None entries mean "as x") must
    broadcast to `x`'s shape; size-1 entries share one decision.
    """
    is_number = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
    if is_number and not 0 <= rate < 1:
        raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                         f"Received: rate={rate}")
    xt = convert_to_tensor(x)
    if not xt.is_floating_point():
        raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. "
                         f"Received: x_dtype={dtypes.from_torch(xt.dtype)!s}")
    if is_number and rate == 0:
        return xt
    if is_number:
        # The scale rounded to x's dtype first, as TF converts it (a Python float would
        # stay double inside torch's kernel); a fill, not a host-to-device copy.
        scaled = xt * torch.full((), 1 / (1 - rate), dtype=xt.dtype, device=xt.device)
        threshold: Any = rate
    else:
        r = convert_to_tensor(rate)
        if r.dim() != 0:
            raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
        r = r.to(dtype=xt.dtype, device=xt.device)
        scaled = xt / (1 - r)
        threshold = r
    shape = _noise_shape(xt, noise_shape)
    noise = random_ops.uniform_on(xt.device, shape, dtypes.from_torch(xt.dtype), seed)
    keep = noise >= threshold
    return D.run(torch.where, keep, scaled, torch.zeros((), dtype=xt.dtype, device=xt.device))


def _noise_shape(x: torch.Tensor, noise_shape: Any) -> tuple:
    if noise_shape is None:
        return tuple(x.shape)
    if isinstance(noise_shape, TensorShape):
        dims = noise_shape.as_list() if noise_shape.rank is not None else list(x.shape)
    elif isinstance(noise_shape, (list, tuple)):
        dims = list(noise_shape)
    else:
        dims = int_values(noise_shape, "RandomUniform", attr="T")
    if len(dims) == x.dim():
        dims = [x.shape[i] if d is None else d for i, d in enumerate(dims)]
    if any(d is None for d in dims):
        raise ValueError(f"noise_shape {noise_shape} has unknown dimensions that cannot be taken "
                         f"from x of shape {tuple(x.shape)}.")
    out = tuple(int(d) for d in dims)
    if not D.broadcastable(out, x.shape):
        raise invalid(f"condition {list(out)}, then {list(x.shape)}, and else [] must be "
                      "broadcastable", "SelectV2")
    return out
