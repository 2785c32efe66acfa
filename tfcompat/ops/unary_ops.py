"""Element-wise unary math (`tf.math.square`, `sqrt`, `exp`, ...) with TF's dtype lists.

Each op converts its input as TF does (a Python `2` is int32, so
`tf.sqrt(2)` fails as in TF: use `2.0`) and accepts exactly the dtypes TF's
kernel registers; the rest is the torch function of the same meaning.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

import torch

from ..framework import errors
from ..framework.dtypes import tf_type_name
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from . import exact_math

__all__ = ["square", "sqrt", "rsqrt", "exp", "log", "sign", "sigmoid", "tanh"]

_FLOATS_COMPLEX = D.FLOATS | D.COMPLEX


# TF's DataType enum names, as its NotFoundError prints them.
_DT_NAMES = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE"}


def no_kernel(op: str, dtype: torch.dtype, tf_name: str) -> errors.NotFoundError:
    """TF's error for an op whose attr list has `dtype` but which has no CPU kernel for it."""
    name = tf_type_name(dtype)
    dt = _DT_NAMES.get(name, "DT_" + name.upper())
    return errors.NotFoundError(
        None, None,
        f"Could not find device for node: {{{{node {op}}}}} = {op}[T={dt}] "
        f"(tf.math.{tf_name} has no CPU kernel for {name}: cast to a supported dtype first)")


def make_unary(op: str, fn: Callable, allowed: frozenset, tf_name: str, doc: str,
               not_found: frozenset = frozenset()) -> Callable:
    """The TF op `tf_name` (kernel `op`): `fn` of its input, for the dtypes in `allowed`.

    Dtypes in `not_found` are in TF's attr list but have no kernel
    (`NotFoundError`); any other dtype is an `InvalidArgumentError`.
    """
    def unary(x: Any, name: Optional[str] = None) -> torch.Tensor:
        xt = convert_to_tensor(x)
        if xt.dtype not in allowed:
            if xt.dtype in not_found:
                raise no_kernel(op, xt.dtype, tf_name)
            D.check_dtype(op, xt.dtype, allowed)
        return fn(xt)
    # (the op belongs to the module that made it, as namedtuple's classes do)
    unary.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    unary.__name__ = unary.__qualname__ = tf_name
    unary.__doc__ = doc
    return unary


square = make_unary("Square", torch.square, D.NUMERIC, "square",
                    "`tf.math.square`: `x * x`, for every numeric dtype (ints wrap as in TF).")
sqrt = make_unary("Sqrt", exact_math.sqrt, _FLOATS_COMPLEX, "sqrt",
                  "`tf.math.sqrt`: floating and complex only; `sqrt(-1.) = nan`.")
rsqrt = make_unary("Rsqrt", torch.rsqrt, _FLOATS_COMPLEX, "rsqrt",
                   "`tf.math.rsqrt`: `1 / sqrt(x)`; `rsqrt(0.) = inf`.")
exp = make_unary("Exp", torch.exp, _FLOATS_COMPLEX, "exp",
                 "`tf.math.exp`: floating and complex only.")
log = make_unary("Log", torch.log, _FLOATS_COMPLEX, "log",
                 "`tf.math.log`: natural logarithm; `log(0.) = -inf`, negative gives nan.")


def _sign(x: torch.Tensor) -> torch.Tensor:
    # torch.sgn is x/|x| for complex inputs, as TF's Sign; but torch maps NaN to 0
    # where TF keeps NaN.
    out = torch.sgn(x)
    return torch.where(torch.isnan(x), x, out) if x.is_floating_point() else out


sign = make_unary("Sign", _sign, D.SIGNED, "sign",
                  "`tf.math.sign`: -1, 0 or 1 (nan for nan; `x/|x|` for complex). No unsigned "
                  "types.")
sigmoid = make_unary("Sigmoid", torch.sigmoid, _FLOATS_COMPLEX, "sigmoid",
                     "`tf.math.sigmoid` (also `tf.nn.sigmoid`, `tf.sigmoid`): `1 / (1 + exp(-x))`.")
tanh = make_unary("Tanh", torch.tanh, _FLOATS_COMPLEX, "tanh",
                  "`tf.math.tanh` (also `tf.nn.tanh`, `tf.tanh`).")
