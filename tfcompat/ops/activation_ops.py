"""`tf.nn` activations beyond `relu`: `relu6`, `leaky_relu`, `elu`, `selu`, `gelu`, `silu`.

Each is TF's formula, rounded as TF rounds it, with TF's gradient:

* `relu6` is `min(max(x, 0), 6)` with gradient 0 at both bounds (TF's
  `Relu6Grad` passes the gradient only for `0 < x < 6`), which is torch's
  `hardtanh` backward;
* `leaky_relu` is `x if x > 0 else alpha * x` (so `alpha > 1` keeps `x` for
  positive inputs); `alpha` is a float32 attribute in TF, cast to the input's
  dtype, and its gradient at 0 is `alpha`. Integer inputs are cast to
  float32 first, as TF's wrapper does;
* `elu` and `selu` use `exp(x) - 1` as TF's kernels do, not `expm1` (the two
  differ by many ulps just below 0);
* `gelu` is TF's composite: `0.5 * x * erfc(-x / sqrt(2))`, or with
  `approximate=True` `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`;
* `silu`/`swish` is `x * sigmoid(beta * x)`; its gradient is TF's custom
  one, which is also torch's `silu` backward when `beta == 1`.

TF computes these in the input's dtype (half precision included), so
torch's element-wise kernels, which round each operation to the dtype, match.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch
import torch.nn.functional as F

from ..framework.tensor_conversion import convert_to_tensor, is_tensor_like
from . import _dispatch as D

__all__ = ["relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish"]

# Relu6's kernel list (TF's order: it names unsigned types tfcompat lacks).
_RELU6_NAMES = ["float", "double", "int32", "uint8", "int16", "int8", "int64", "bfloat16", "uint16",
                "half", "uint32", "uint64"]
_FLOAT_NAMES = ["half", "bfloat16", "float", "double"]
_SIGMOID_NAMES = ["bfloat16", "half", "float", "double", "complex64", "complex128"]

# TF's Selu constants (selu's fixed point), cast to the input's dtype in the kernel.
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123
# gelu's wrapper casts these two from float32 constants (so float64 sees float32's rounding);
# its sqrt(2/pi) is a Python float converted straight to the input's dtype.
_GELU_COEFF = float(np.float32(0.044715))
_SQRT_HALF = float(np.float32(0.7071067811865476))


def _scalar(value: float, like: torch.Tensor) -> torch.Tensor:
    # A constant rounded to the tensor's dtype and made on its device (a fill, no copy).
    return torch.full((), value, dtype=like.dtype, device=like.device)


def relu6(features: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.relu6`: `min(max(features, 0), 6)`; gradient 0 at 0 and at 6 (torch `relu6`)."""
    x = convert_to_tensor(features)
    D.check_dtype("Relu6", x.dtype, D.REAL, names=_RELU6_NAMES)
    return F.relu6(x)


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.leaky_relu`: `features if features > 0 else alpha * features` (torch `leaky_relu`).

    Integer inputs are cast to float32; `alpha` must be a Python (or numpy)
    float, as TF's attribute (a tensor is a `TypeError`), rounded to float32
    then to the input's dtype.
    """
    x = convert_to_tensor(features)
    if x.dtype in D.INTS:
        x = x.to(torch.float32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    if is_tensor_like(alpha) or isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    D.check_dtype("LeakyRelu", x.dtype, D.FLOATS, names=_FLOAT_NAMES)
    a = float(np.float32(alpha))  # TF's attr is a float32
    if x.dtype in (torch.float32, torch.float64):
        return F.leaky_relu(x, a)
    # torch multiplies half inputs by a float32 slope; TF by the slope rounded to half.
    return torch.where(x > 0, x, x * _scalar(a, x))


class _ExpLinear(torch.autograd.Function):
    """TF's Elu/Selu kernels: `a * (exp(x) - 1)` for `x < 0`, else `b * x`, with TF's gradients
    written from the output: `dy * (y + a)` for `y < 0`, else `dy * b` (EluGrad, SeluGrad)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: float, b: float) -> torch.Tensor:
        y = _exp_linear(x, a, b)
        ctx.save_for_backward(y)
        ctx.a, ctx.b = a, b
        return y

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple:
        (y,) = ctx.saved_tensors
        neg = dy * (y + _scalar(ctx.a, y)) if ctx.a != 1 else dy * (y + 1)
        pos = dy if ctx.b == 1 else dy * _scalar(ctx.b, y)
        return torch.where(y < 0, neg, pos), None, None


def _exp_linear(x: torch.Tensor, a: float, b: float) -> torch.Tensor:
    em1 = torch.exp(x) - 1  # TF's kernels use exp(x) - 1, not expm1
    neg = em1 if a == 1 else _scalar(a, x) * em1
    return torch.where(x < 0, neg, x if b == 1 else _scalar(b, x) * x)


def _elu_like(x: torch.Tensor, a: float, b: float) -> torch.Tensor:
    if x.requires_grad and torch.is_grad_enabled():
        return _ExpLinear.apply(x, a, b)
    return _exp_linear(x, a, b)


def elu(features: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.elu`: `exp(features) - 1` where `features < 0`, else `features`.

    The gradient is TF's `EluGrad`, `dy * (y + 1)` where `y < 0` (so it is 0,
    not a denormal, where `y` rounds to -1).
    """
    x = convert_to_tensor(features)
    D.check_dtype("Elu", x.dtype, D.FLOATS, names=_FLOAT_NAMES)
    return _elu_like(x, 1.0, 1.0)


def selu(features: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.selu`: `scale * alpha * (exp(x) - 1)` for `x < 0`, else `scale * x`.

    `scale = 1.0507009873554805`, `scale * alpha = 1.7580993408473768`, both
    rounded to the input's dtype (TF's constants); the gradient is TF's
    `SeluGrad`, `dy * (y + scale * alpha)` where `y < 0`, else `dy * scale`.
    """
    x = convert_to_tensor(features)
    D.check_dtype("Selu", x.dtype, D.FLOATS, names=_FLOAT_NAMES)
    return _elu_like(x, _SELU_SCALE_ALPHA, _SELU_SCALE)


def gelu(features: Any, approximate: bool = False, name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.gelu`: `0.5 * x * erfc(-x / sqrt(2))`; with `approximate`, TF's tanh form.

    The tanh form is `0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x**3)))`.
    A non-floating input is a `ValueError`, as in TF.
    """
    x = convert_to_tensor(features)
    if x.dtype not in D.FLOATS:
        raise ValueError("`features.dtype` must be a floating point tensor."
                         f"Received:features.dtype={D.tf_type_name(x.dtype)}")
    half_x = _scalar(0.5, x) * x
    if approximate:
        inner = _scalar(0.7978845608028654, x) * (x + _scalar(_GELU_COEFF, x) * torch.pow(x, 3))
        return half_x * (1 + torch.tanh(inner))
    return half_x * torch.erfc(-x * _scalar(_SQRT_HALF, x))


def silu(features: Any, beta: Any = 1.0) -> torch.Tensor:
    """`tf.nn.silu` (= `tf.nn.swish`): `features * sigmoid(beta * features)`.

    `beta` (a number or tensor) is cast to the features' dtype and gets a
    gradient. With `beta == 1` this is torch's `silu`, whose backward is TF's
    custom gradient `sigmoid(x) * (1 + x * (1 - sigmoid(x)))`.
    """
    x = convert_to_tensor(features)
    D.check_dtype("Sigmoid", x.dtype, D.FLOATS | D.COMPLEX, names=_SIGMOID_NAMES)
    if isinstance(beta, (int, float)) and not isinstance(beta, bool) and beta == 1:
        if x.dtype in D.FLOATS:
            return F.silu(x)
        return x * torch.sigmoid(x)
    b = convert_to_tensor(beta)
    if b.device != x.device or b.dtype != x.dtype:
        b = b.to(device=x.device, dtype=x.dtype)
    return x * torch.sigmoid(b * x)


swish = silu
