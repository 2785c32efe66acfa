"""Element-wise unary math of `tf.math`: trigonometry, logs, rounding, special functions.

Each op converts its input as TF does (a Python `2` is int32, so
`tf.math.sin(2)` fails as in TF: use `2.0`), accepts exactly the dtypes
TF 2.21's CPU kernels register and raises TF's error otherwise:
`InvalidArgumentError` for a dtype outside the op's attr list, and
`NotFoundError` where the op lists the dtype but no CPU kernel exists
(`tf.math.reciprocal` of an int32, `tf.math.rint` of a float16).

Half-precision inputs are computed as TF's Eigen kernels compute them: each
element-wise step in float32, rounded back to the dtype (torch's CPU
kernels do the same per op), so composite formulas (`softplus`) round after
every step, as TF does.

Where TF's numerics or gradients differ from torch's, TF's are kept:

* `softplus` is TF's thresholded formula (`x` above `-log(eps) - 2`,
  `exp(x)` below `log(eps) + 2`, `log1p(exp(x))` between; torch uses a
  fixed threshold of 20) and its gradient is `g * sigmoid(x)`;
* `softsign`'s gradient is TF's `g / (1 + |x|)^2`;
* `round` is half-to-even (as `torch.round`) and returns integer inputs
  unchanged; `floor`, `ceil`, `round` and `rint` have no gradient (TF
  registers `None`), so a tape gives `None` for them.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from .unary_ops import make_unary as _unary, no_kernel  # noqa: F401  (no_kernel: re-exported)

__all__ = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "log1p", "expm1", "reciprocal", "floor", "ceil", "rint", "round", "erf", "erfc", "lgamma",
    "digamma", "is_nan", "is_inf", "is_finite", "softplus", "softsign", "log_sigmoid",
]

_FLOATS_COMPLEX = D.FLOATS | D.COMPLEX
_HALF = frozenset({torch.float16, torch.bfloat16})

def _no_gradient(fn: Callable) -> Callable:
    """`fn` whose result is cut from autograd: TF registers a `None` gradient for the op."""
    def detached(x: torch.Tensor) -> torch.Tensor:
        return fn(x).detach()
    return detached


def _tf_gradient(fn: Callable, derivative: Callable, name: str) -> Callable:
    """`fn` whose gradient is TF's registered `g * derivative(x, y)` (y = `fn(x)`).

    Used where torch's derivative formula differs from TF's at special points.
    """
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = fn(x)
        ctx.save_for_backward(x, y)
        return y

    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        x, y = ctx.saved_tensors
        return grad * derivative(x, y)

    function = type(name, (torch.autograd.Function,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward),
        "__doc__": f"`{fn.__name__}` with TF's gradient."})

    def wrapped(x: torch.Tensor) -> torch.Tensor:
        if x.requires_grad and torch.is_grad_enabled():
            return function.apply(x)
        return fn(x)
    return wrapped


def _nan_like(x: torch.Tensor) -> torch.Tensor:
    return torch.full((), float("nan"), dtype=x.dtype, device=x.device)


# -- trigonometric and hyperbolic -----------------------------------------------------

sin = _unary("Sin", torch.sin, _FLOATS_COMPLEX, "sin",
             "`tf.math.sin` (also `tf.sin`): element-wise sine (`torch.sin`); floating, complex.")
cos = _unary("Cos", torch.cos, _FLOATS_COMPLEX, "cos",
             "`tf.math.cos` (also `tf.cos`): element-wise cosine (`torch.cos`).")
tan = _unary("Tan", torch.tan, _FLOATS_COMPLEX, "tan",
             "`tf.math.tan` (also `tf.tan`): element-wise tangent (`torch.tan`).")
asin = _unary("Asin", torch.asin, _FLOATS_COMPLEX, "asin",
              "`tf.math.asin` (also `tf.asin`): inverse sine; nan outside [-1, 1] (`torch.asin`).")
acos = _unary("Acos", torch.acos, _FLOATS_COMPLEX, "acos",
              "`tf.math.acos` (also `tf.acos`): inverse cosine; nan outside [-1, 1] "
              "(`torch.acos`).")
atan = _unary("Atan", torch.atan, _FLOATS_COMPLEX, "atan",
              "`tf.math.atan` (also `tf.atan`): inverse tangent (`torch.atan`).")
sinh = _unary("Sinh", torch.sinh, _FLOATS_COMPLEX, "sinh",
              "`tf.math.sinh` (also `tf.sinh`): hyperbolic sine (`torch.sinh`).")
cosh = _unary("Cosh", torch.cosh, _FLOATS_COMPLEX, "cosh",
              "`tf.math.cosh` (also `tf.cosh`): hyperbolic cosine (`torch.cosh`).")
asinh = _unary("Asinh", torch.asinh, _FLOATS_COMPLEX, "asinh",
               "`tf.math.asinh` (also `tf.asinh`): inverse hyperbolic sine (`torch.asinh`).")
# TF's AcoshGrad is g / sinh(acosh(x)): NaN below 1 (torch's g / sqrt(x^2 - 1) is not).
_acosh = _tf_gradient(torch.acosh, lambda x, y: torch.reciprocal(torch.sinh(y)), "_Acosh")
acosh = _unary("Acosh", _acosh, _FLOATS_COMPLEX, "acosh",
               "`tf.math.acosh` (also `tf.acosh`): inverse hyperbolic cosine; nan below 1 "
               "(`torch.acosh`).")
atanh = _unary("Atanh", torch.atanh, _FLOATS_COMPLEX, "atanh",
               "`tf.math.atanh` (also `tf.atanh`): inverse hyperbolic tangent; +-inf at +-1 "
               "(`torch.atanh`).")

# -- logarithms, exponentials, reciprocal ---------------------------------------------

log1p = _unary("Log1p", torch.log1p, _FLOATS_COMPLEX, "log1p",
               "`tf.math.log1p`: `log(1 + x)`, accurate near 0 (`torch.log1p`).")


class _Expm1(torch.autograd.Function):
    """`torch.expm1` with TF's gradient `g * exp(x)` (torch's `g * (y + 1)` loses digits near 0)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return torch.expm1(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * torch.exp(x)


def _expm1(x: torch.Tensor) -> torch.Tensor:
    if x.requires_grad and torch.is_grad_enabled():
        return _Expm1.apply(x)
    return torch.expm1(x)


expm1 = _unary("Expm1", _expm1, _FLOATS_COMPLEX, "expm1",
               "`tf.math.expm1`: `exp(x) - 1`, accurate near 0 (`torch.expm1`); gradient "
               "`g * exp(x)`, as TF.")
def _reciprocal(x: torch.Tensor) -> torch.Tensor:
    out = torch.reciprocal(x)
    if x.is_complex():
        # TF's complex 1 / 0 is nan + nan j (torch: inf + nan j).
        out = torch.where(x == 0, torch.full((), complex(float("nan"), float("nan")),
                                             dtype=x.dtype, device=x.device), out)
    return out


reciprocal = _unary(
    "Reciprocal", _reciprocal, _FLOATS_COMPLEX, "reciprocal",
    "`tf.math.reciprocal`: `1 / x` (`torch.reciprocal`); floating and complex.\n\n"
    "Signed integers are `NotFoundError` (TF lists them but has no CPU kernel), uint8 and "
    "bool `InvalidArgumentError`.", not_found=D.SIGNED_INTS)

# -- rounding -----------------------------------------------------------------------------

floor = _unary("Floor", _no_gradient(torch.floor), D.FLOATS, "floor",
               "`tf.math.floor` (also `tf.floor`): round toward -inf (`torch.floor`); floating "
               "only. No gradient (TF's is None).")
ceil = _unary("Ceil", _no_gradient(torch.ceil), D.FLOATS, "ceil",
              "`tf.math.ceil`: round toward +inf (`torch.ceil`); floating only. No gradient.")
rint = _unary("Rint", _no_gradient(torch.round), frozenset({torch.float32, torch.float64}),
              "rint",
              "`tf.math.rint`: round half to even (`torch.round`); float32/float64 only "
              "(half precision is `NotFoundError`, as TF's CPU kernels). No gradient.",
              not_found=_HALF)

_round_float = _no_gradient(torch.round)


def round(x: Any, name: Optional[str] = None) -> torch.Tensor:  # noqa: A001 - TF name
    """`tf.math.round` (also `tf.round`): round half to even (`torch.round`); ints unchanged.

    Integer inputs are returned as they are (TF's Python wrapper); complex
    is `NotFoundError`, bool `InvalidArgumentError`. No gradient (TF's is None).
    """
    xt = convert_to_tensor(x)
    if xt.dtype in D.INTS:
        return xt
    if xt.dtype not in D.FLOATS:
        if xt.dtype in D.COMPLEX:
            raise no_kernel("Round", xt.dtype, "round")
        D.check_dtype("Round", xt.dtype, D.FLOATS | D.INTS)
    return _round_float(xt)


# -- special functions ----------------------------------------------------------------

def _in_float32(fn: Callable) -> Callable:
    """`fn` computed in float32 for half-precision inputs and rounded once, as Eigen does.

    (torch's bfloat16 `erf` flushes tiny values to 0; its float16 Bessel
    series run in float16.)
    """
    def wrapped(x: torch.Tensor) -> torch.Tensor:
        if x.dtype in _HALF:
            return fn(x.float()).to(x.dtype)
        return fn(x)
    return wrapped


def _erf(x: torch.Tensor) -> torch.Tensor:
    out = torch.erf(x)
    if x.dtype is torch.float64:
        # TF's float64 Erf kernel returns NaN at +-inf (measured, TF 2.21 CPU).
        out = torch.where(torch.isinf(x), torch.full((), float("nan"), dtype=x.dtype,
                                                      device=x.device), out)
    return out


erf = _unary("Erf", _in_float32(_erf), D.FLOATS, "erf",
             "`tf.math.erf`: the error function (`torch.erf`); floating only.\n\n"
             "As TF's float64 kernel, `erf(+-inf)` is NaN in float64.")
erfc = _unary("Erfc", _in_float32(torch.erfc), D.FLOATS, "erfc",
              "`tf.math.erfc`: `1 - erf(x)`, accurate in the tails (`torch.erfc`).")
_GAMMA = frozenset({torch.float16, torch.float32, torch.float64})


def _digamma_value(x: torch.Tensor) -> torch.Tensor:
    # TF's kernel gives NaN at +-0 (a pole), where torch gives -+inf.
    return torch.where(x == 0, _nan_like(x), torch.digamma(x))


def _trigamma(x: torch.Tensor) -> torch.Tensor:
    """TF's `polygamma(1, x)`: `zeta(2, x)` (inf at 0 and the negative integers, 0 at +inf)."""
    # TF's Polygamma has no half kernel, so TF's digamma gradient fails in float16.
    D.check_dtype("Polygamma", x.dtype, frozenset({torch.float32, torch.float64}))
    z = torch.special.zeta(torch.full_like(x, 2.0), x)
    return torch.where(torch.isposinf(x), torch.zeros((), dtype=x.dtype, device=x.device), z)


_lgamma = _tf_gradient(torch.lgamma, lambda x, y: _digamma_value(x), "_Lgamma")
_digamma = _tf_gradient(_digamma_value, lambda x, y: _trigamma(x), "_Digamma")

lgamma = _unary("Lgamma", _lgamma, _GAMMA, "lgamma",
                "`tf.math.lgamma`: `log(|Gamma(x)|)` (`torch.lgamma`); gradient `digamma(x)`.\n\n"
                "bfloat16 is `NotFoundError` (no CPU kernel in TF).", not_found={torch.bfloat16})
digamma = _unary("Digamma", _digamma, _GAMMA, "digamma",
                 "`tf.math.digamma`: the derivative of `lgamma` (`torch.digamma`); gradient "
                 "`polygamma(1, x)`.\n\nNaN at 0 (a pole), as TF; bfloat16 is `NotFoundError`.",
                 not_found={torch.bfloat16})


# -- classification ---------------------------------------------------------------------

is_nan = _unary("IsNan", torch.isnan, D.FLOATS, "is_nan",
                "`tf.math.is_nan`: bool, true where `x` is NaN (`torch.isnan`); floating only.")
is_inf = _unary("IsInf", torch.isinf, D.FLOATS, "is_inf",
                "`tf.math.is_inf`: bool, true where `x` is +-inf (`torch.isinf`); floating only.")
is_finite = _unary("IsFinite", torch.isfinite, D.FLOATS, "is_finite",
                   "`tf.math.is_finite`: bool, true where `x` is neither inf nor NaN "
                   "(`torch.isfinite`); floating only.")


# -- softplus family --------------------------------------------------------------------

def _threshold(dtype: torch.dtype) -> float:
    """TF's softplus threshold `log(eps) + 2`, computed in `dtype` as its kernel does."""
    eps = torch.tensor(torch.finfo(dtype).eps, dtype=dtype)
    return float(torch.log(eps) + torch.tensor(2.0, dtype=dtype))


_THRESHOLDS = {dt: _threshold(dt) for dt in D.FLOATS}
# Measured against TF 2.21's CPU kernel: float16 switches at log(2^-13) + 2 = -7.008 (as if
# its epsilon were 2^-13, not 2^-10), bfloat16 at log(2^-7) + 2 = -2.85, float32 at -13.94;
# every step is rounded to the dtype (`cases_math_unary.softplus_f16_pin` pins the float16
# switch to one grid step of 1/128).
_half_eps = torch.tensor(2.0 ** -13, dtype=torch.float16)
_THRESHOLDS[torch.float16] = float(torch.log(_half_eps) + torch.tensor(2.0, dtype=torch.float16))


# The thresholds as 0-d CPU tensors (torch takes them as scalars on any device, and compares
# faster than with a Python float): (log(eps) + 2, -(log(eps) + 2)) per dtype.
_THRESHOLD_TENSORS = {dt: (torch.tensor(t, dtype=dt), torch.tensor(-t, dtype=dt))
                      for dt, t in _THRESHOLDS.items()}


def _softplus_value(x: torch.Tensor) -> torch.Tensor:
    low, high = _THRESHOLD_TENSORS[x.dtype]
    e = torch.exp(x)
    # Above -threshold softplus(x) == x to the dtype's precision (and exp may overflow);
    # below threshold it is exp(x) (log1p(tiny) == tiny).
    return torch.where(torch.gt(x, high), x, torch.where(torch.lt(x, low), e, torch.log1p(e)))


class _Softplus(torch.autograd.Function):
    """TF's Softplus with its SoftplusGrad, `g * sigmoid(x)` (the sigmoid rounded once, as
    TF's half-precision gradients show)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return _softplus_value(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * torch.sigmoid(x)


def _softplus(x: torch.Tensor) -> torch.Tensor:
    if x.requires_grad and torch.is_grad_enabled():
        return _Softplus.apply(x)
    return _softplus_value(x)


def softplus(features: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.softplus` (also `tf.nn.softplus`): `log(1 + exp(x))` with TF's thresholds.

    `x` where `x > -(log(eps) + 2)`, `exp(x)` where `x < log(eps) + 2`, else
    `log1p(exp(x))` (torch's `softplus` switches at a fixed 20); gradient
    `g * sigmoid(x)`, as TF's SoftplusGrad. Floating only.
    """
    x = convert_to_tensor(features)
    D.check_dtype("Softplus", x.dtype, D.FLOATS)
    return _softplus(x)


class _Softsign(torch.autograd.Function):
    """TF's Softsign `x / (|x| + 1)` with its SoftsignGrad `g / (|x| + 1)^2`."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x / (torch.abs(x) + 1)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad / torch.square(torch.abs(x) + 1)


def softsign(features: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.softsign` (also `tf.nn.softsign`): `x / (1 + |x|)`.

    Gradient `g / (1 + |x|)^2` (TF's SoftsignGrad). Floating only.
    """
    x = convert_to_tensor(features)
    D.check_dtype("Softsign", x.dtype, D.FLOATS)
    if x.requires_grad and torch.is_grad_enabled():
        return _Softsign.apply(x)
    return x / (torch.abs(x) + 1)


def log_sigmoid(x: Any, name: Optional[str] = None) -> torch.Tensor:
    """`tf.math.log_sigmoid`: `log(1 / (1 + exp(-x)))` computed as TF's `-softplus(-x)`.

    So its values and gradient are TF's softplus's (thresholds included);
    floating only.
    """
    xt = convert_to_tensor(x)
    D.check_dtype("Softplus", xt.dtype, D.FLOATS)
    return torch.neg(_softplus(torch.neg(xt)))
