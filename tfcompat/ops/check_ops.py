"""`tf.debugging`: assertions and numeric checks, with TF 2.21's eager behaviour and messages.

In eager TF an assertion evaluates its condition at once: it returns None
when it holds and raises when it does not (`InvalidArgumentError` for a
data-dependent failure, `ValueError` for a failed static rank or shape
check, `TypeError` for a dtype check). Reading the condition is one host
sync, as in TF (the error must be raised before the call returns).

Messages are built the way TF's eager paths build them: the binary
comparisons list the first `summarize` (default 3) offending indices and
values with numpy's printing; `Assert` and `assert_near` use TF's
`Summarized data:` form.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, invalid_argument
from ..framework.numpy_interop import to_numpy
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import _dispatch as D
from . import math_ops

__all__ = [
    "Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
    "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
    "assert_rank_at_least", "assert_rank_in", "assert_shapes", "assert_type", "assert_integer",
    "assert_scalar", "assert_all_finite", "check_numerics", "is_numeric_tensor",
    "assert_proper_iterable", "assert_same_float_dtype",
]

_NUMERIC = D.NUMERIC | {torch.uint16, torch.uint32, torch.uint64}


def _prefix(message: Optional[str]) -> str:
    return f"{message}.  " if message else ""


def _shape_and_dtype(t: torch.Tensor) -> str:
    return f"shape={TensorShape(tuple(t.shape))} dtype={dtypes.from_torch(t.dtype).name}"


def _numpy(t: torch.Tensor) -> Any:
    return to_numpy(t)


def _pretty(item: Any, summarize: float) -> str:
    """One data item of an eager assertion's message (TF's `_pretty_print`)."""
    if isinstance(item, torch.Tensor):
        arr = _numpy(item)
        if np.isscalar(arr) or np.ndim(arr) == 0:
            return str(arr)
        flat = np.asarray(arr).reshape(-1)
        shown = [str(x) for x in flat[:int(min(summarize, flat.size))]]
        if len(shown) < flat.size:
            shown.append("...")
        return str(shown)
    return str(item)


def _summary(summarize: Optional[int]) -> float:
    if summarize is None:
        return 3
    return 1e9 if summarize < 0 else summarize


def _binary(op: Callable[..., torch.Tensor], sym: str, x: Any, y: Any, data: Any,
            summarize: Optional[int], message: Optional[str]) -> None:
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    test = op(x, y)
    if bool(test.all()):
        return None
    n = _summary(summarize)
    if data is None:
        data = [f"Condition x {sym} y did not hold."]
        if n > 0:
            if x.shape == y.shape and x.dim() > 0:
                bad = ~_numpy(test)
                indices = np.argwhere(bad)
                num = int(min(n, indices.shape[0]))
                xv, yv = _numpy(x)[bad].reshape(-1), _numpy(y)[bad].reshape(-1)
                data += [f"Indices of first {num} different values:", indices[:num],
                         "Corresponding x values:", xv[:num],
                         "Corresponding y values:", yv[:num]]
            xf, yf = np.asarray(_numpy(x)).reshape(-1), np.asarray(_numpy(y)).reshape(-1)
            xs, ys = int(min(xf.size, n)), int(min(yf.size, n))
            data += [f"First {xs} elements of x:", xf[:xs], f"First {ys} elements of y:", yf[:ys]]
    if message is not None:
        data = [message] + list(data)
    raise InvalidArgumentError(None, None, "\n".join(_pretty(d, n) for d in data))


def assert_equal(x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                 name: Optional[str] = None) -> None:
    """`tf.debugging.assert_equal`: `InvalidArgumentError` unless `x == y` element-wise.

    Shapes must broadcast and dtypes match (`tf.equal`'s errors).
    """
    return _binary(math_ops.equal, "==", x, y, None, summarize, message)


def assert_none_equal(x: Any, y: Any, summarize: Optional[int] = None,
                      message: Optional[str] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_none_equal`: `InvalidArgumentError` unless `x != y` everywhere."""
    return _binary(math_ops.not_equal, "!=", x, y, None, summarize, message)


def assert_less(x: Any, y: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                name: Optional[str] = None) -> None:
    """`tf.debugging.assert_less`: `InvalidArgumentError` unless `x < y` element-wise."""
    return _binary(math_ops.less, "<", x, y, None, summarize, message)


def assert_less_equal(x: Any, y: Any, message: Optional[str] = None,
                      summarize: Optional[int] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_less_equal`: `InvalidArgumentError` unless `x <= y` element-wise."""
    return _binary(math_ops.less_equal, "<=", x, y, None, summarize, message)


def assert_greater(x: Any, y: Any, message: Optional[str] = None,
                   summarize: Optional[int] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_greater`: `InvalidArgumentError` unless `x > y` element-wise."""
    return _binary(math_ops.greater, ">", x, y, None, summarize, message)


def assert_greater_equal(x: Any, y: Any, message: Optional[str] = None,
                         summarize: Optional[int] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_greater_equal`: `InvalidArgumentError` unless `x >= y` element-wise."""
    return _binary(math_ops.greater_equal, ">=", x, y, None, summarize, message)


def _unary(op: Callable[..., torch.Tensor], sym: str, x: Any, summarize: Optional[int],
           message: Optional[str], joined: bool = False) -> None:
    x = convert_to_tensor(x)
    head = f"Condition x {sym} 0 did not hold element-wise:"
    tail = f"x ({_shape_and_dtype(x)}) = "
    # TF's assert_non_positive lacks a comma between the two strings: one line there.
    data = [_prefix(message), head + tail, x] if joined else [_prefix(message), head, tail, x]
    zero = torch.zeros((), dtype=x.dtype, device=x.device)
    return _binary(op, sym, x, zero, data, summarize, None)


def assert_positive(x: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                    name: Optional[str] = None) -> None:
    """`tf.debugging.assert_positive`: `InvalidArgumentError` unless `x > 0` element-wise."""
    return _unary(math_ops.greater, ">", x, summarize, message)


def assert_negative(x: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                    name: Optional[str] = None) -> None:
    """`tf.debugging.assert_negative`: `InvalidArgumentError` unless `x < 0` element-wise."""
    return _unary(math_ops.less, "<", x, summarize, message)


def assert_non_negative(x: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                        name: Optional[str] = None) -> None:
    """`tf.debugging.assert_non_negative`: `InvalidArgumentError` unless `x >= 0` element-wise."""
    return _unary(math_ops.greater_equal, ">=", x, summarize, message)


def assert_non_positive(x: Any, message: Optional[str] = None, summarize: Optional[int] = None,
                        name: Optional[str] = None) -> None:
    """`tf.debugging.assert_non_positive`: `InvalidArgumentError` unless `x <= 0` element-wise."""
    return _unary(math_ops.less_equal, "<=", x, summarize, message, joined=True)


def _condition_str(condition: Any) -> str:
    if isinstance(condition, torch.Tensor):
        value = _numpy(condition)
        return (f"tf.Tensor({str(value)}, shape={TensorShape(tuple(condition.shape))}, "
                f"dtype={dtypes.from_torch(condition.dtype).name})")
    return str(condition)


def _summarize_item(item: Any, summarize: Optional[int]) -> str:
    """One data item as TF's eager `Assert` prints it (`Tensor::SummarizeValue`'s form)."""
    if isinstance(item, str):
        return str(item.encode())
    t = convert_to_tensor(item)
    n = t.numel() if summarize is not None and summarize < 0 else (
        3 if summarize is None else summarize)
    if t.dim():
        flat = np.asarray(_numpy(t)).reshape(-1)
        shown = [str(v) for v in flat[:n]]
        if len(shown) < flat.size:
            shown.append("...")
    else:
        shown = [str(_numpy(t))] if n != 0 else []
    return ", ".join(shown)


def Assert(condition: Any, data: Sequence[Any], summarize: Optional[int] = None,
           name: Optional[str] = None) -> None:
    """`tf.debugging.Assert`: `InvalidArgumentError` with `data` summarized unless `condition`."""
    value = bool(convert_to_tensor(condition)) if isinstance(condition, torch.Tensor) \
        else bool(condition)
    if not value:
        shown = "\n".join(_summarize_item(d, summarize) for d in data)
        raise InvalidArgumentError(None, None, f"Expected '{_condition_str(condition)}' to be "
                                               f"true. Summarized data: {shown}")
    return None


def _tensor_str(t: torch.Tensor) -> str:
    return (f"tf.Tensor({str(_numpy(t))}, shape={TensorShape(tuple(t.shape))}, "
            f"dtype={dtypes.from_torch(t.dtype).name})")


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None,
                message: Optional[str] = None, summarize: Optional[int] = None,
                name: Optional[str] = None) -> None:
    """`tf.debugging.assert_near`: `InvalidArgumentError` unless `|x - y| < atol + rtol * |y|`.

    The tolerances default to `10 * eps` of `x`'s (real) dtype; an integer
    `x` has no eps (numpy's `ValueError`, as in TF).
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=dtypes.from_torch(x.dtype))
    real = x.real.dtype if x.is_complex() else x.dtype
    np_real = dtypes.from_torch(real).as_numpy_dtype
    eps = np.finfo(np_real).eps
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=dtypes.from_torch(real))
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=dtypes.from_torch(real))
    tol = atol + rtol * torch.abs(y)
    ok = torch.all(torch.abs(x - y) < tol)
    if bool(ok):
        return None
    data = [_prefix(message),
            f"x and y not equal to tolerance rtol = {_tensor_str(rtol)}, atol = {_tensor_str(atol)}",
            f"x ({_shape_and_dtype(x)}) = ", x, f"y ({_shape_and_dtype(y)}) = ", y]
    return Assert(ok, data, summarize=summarize)


def _rank_arg(rank: Any) -> int:
    r = convert_to_tensor(rank)
    assert_type(r, dtypes.int32)
    if r.dim() != 0:
        raise ValueError("Rank must be a scalar.")
    return int(r)


def assert_rank(x: Any, rank: Any, message: Optional[str] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_rank`: `ValueError` unless `x` has rank `rank` (an int32 scalar)."""
    x = convert_to_tensor(x)
    want = _rank_arg(rank)
    if x.dim() != want:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {want}.  Received rank "
                         f"{x.dim()}, shape {TensorShape(tuple(x.shape))}")
    return None


def assert_rank_at_least(x: Any, rank: Any, message: Optional[str] = None,
                         name: Optional[str] = None) -> None:
    """`tf.debugging.assert_rank_at_least`: `ValueError` unless `x`'s rank is >= `rank`."""
    x = convert_to_tensor(x)
    want = _rank_arg(rank)
    if x.dim() < want:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {want}.  Received "
                         f"rank {x.dim()}, shape {TensorShape(tuple(x.shape))}")
    return None


def assert_rank_in(x: Any, ranks: Sequence[Any], message: Optional[str] = None,
                   name: Optional[str] = None) -> None:
    """`tf.debugging.assert_rank_in`: `ValueError` unless `x`'s rank is one of `ranks`."""
    x = convert_to_tensor(x)
    wanted = tuple(_rank_arg(r) for r in ranks)
    if x.dim() not in wanted:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {wanted}.  Received rank "
                         f"{x.dim()}, shape {TensorShape(tuple(x.shape))}")
    return None


def _known(size: Any) -> bool:
    if size is None:
        return False
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return True


def assert_shapes(shapes: Any, data: Any = None, summarize: Optional[int] = None,
                  message: Optional[str] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_shapes`: `ValueError` unless the tensors' shapes fit the specs.

    `shapes` is a list of `(tensor, spec)` pairs (or a dict). A spec entry is
    an int (that size), a symbol (the same size wherever it appears), None
    or `'.'` (any size); a leading `...` or `'*'` allows any number of outer
    dimensions. As in TF, a scalar spec `()` means `(1,)` and a spec of one
    dimension also accepts a scalar.
    """
    prefix = _prefix(message)
    items = shapes.items() if isinstance(shapes, collections.abc.Mapping) else shapes
    checks = []
    for x, spec in items:
        if spec is None:
            continue
        x = convert_to_tensor(x)
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {_shape_and_dtype(x)}.  Specified shape must be an "
                             "iterable.  An iterable has the attribute `__iter__` or "
                             f"`__getitem__`.  Received specified shape: {spec}")
        spec = tuple(spec)
        leading = False
        for i, symbol in enumerate(spec):
            if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                if i != 0:
                    raise ValueError(f"{prefix}Tensor {_shape_and_dtype(x)} specified shape index "
                                     f"{i}.  Symbol `...` or `*` for a variable number of "
                                     "unspecified dimensions is only allowed as the first entry")
                leading = True
        symbols = (spec[1:] if leading else spec) or (1,)
        sizes = tuple(x.shape) if x.dim() else (1,)
        checks.append((x, leading, sizes, symbols))
    for x, leading, _, symbols in checks:
        rank = len(symbols)
        if leading:
            if rank > 1:
                assert_rank_at_least(x, rank, message=message)
        elif rank in (0, 1):
            assert_rank_in(x, [0, 1], message=message)
        else:
            assert_rank(x, rank, message=message)
    seen: dict = {}
    for x, leading, sizes, symbols in checks:
        for i, symbol in enumerate(symbols):
            if symbol is None or (isinstance(symbol, str) and symbol == "."):
                continue
            dim = i - len(symbols) if leading else i
            if _known(symbol) or symbol in seen:
                if _known(symbol):
                    want, how = int(symbol), "Specified explicitly"
                else:
                    want, by, at = seen[symbol]
                    how = f"Specified by tensor {_shape_and_dtype(by)} dimension {at}"
                actual = sizes[dim]
                if actual != want:
                    raise ValueError(f"{prefix}{how}.  Tensor {_shape_and_dtype(x)} dimension "
                                     f"{dim} must have size {want}.  Received size {actual}, "
                                     f"shape {TensorShape(tuple(x.shape))}")
            else:
                seen[symbol] = (sizes[dim], x, dim)
    return None


def assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None,
                name: Optional[str] = None) -> None:
    """`tf.debugging.assert_type`: `TypeError` unless `tensor`'s dtype is `tf_type`."""
    want = dtypes.as_dtype(tf_type)
    t = convert_to_tensor(tensor)
    got = dtypes.from_torch(t.dtype)
    if got != want:
        raise TypeError(f"{_prefix(message)}tensor must be of type {want!r}; got {got!r}")
    return None


def assert_integer(x: Any, message: Optional[str] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_integer`: `TypeError` unless `x` has an integer dtype."""
    t = convert_to_tensor(x)
    dt = dtypes.from_torch(t.dtype)
    if not dt.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of '
                        f"dtype {dt}")
    return None


def assert_scalar(tensor: Any, message: Optional[str] = None, name: Optional[str] = None) -> None:
    """`tf.debugging.assert_scalar`: `ValueError` unless `tensor` is 0-D."""
    t = convert_to_tensor(tensor)
    if t.dim() != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: "
                         f"{TensorShape(tuple(t.shape))}.")
    return None


def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> torch.Tensor:
    """`tf.debugging.check_numerics`: `tensor` itself, or `InvalidArgumentError` on NaN/Inf.

    Floating dtypes only (TF's kernel list: bfloat16, half, float, double).
    """
    t = convert_to_tensor(tensor)
    D.check_dtype("CheckNumerics", t.dtype, D.FLOATS,
                  names=["bfloat16", "half", "float", "double"])
    # one fused reduction to the host: (any inf, any nan)
    flags = torch.stack([torch.isinf(t).any(), torch.isnan(t).any()]).tolist()
    if flags[0] or flags[1]:
        what = "Inf and NaN" if flags[0] and flags[1] else ("Inf" if flags[0] else "NaN")
        raise invalid_argument(f"{message} : Tensor had {what} values", "CheckNumerics")
    return torch.ops.aten.alias(t)


def assert_all_finite(x: Any, message: str, name: Optional[str] = None) -> torch.Tensor:
    """`tf.debugging.assert_all_finite`: `check_numerics(x, message)`; returns `x`."""
    return check_numerics(x, message)


def is_numeric_tensor(tensor: Any) -> bool:
    """`tf.debugging.is_numeric_tensor`: whether `tensor` is a numeric tensor (not a variable).

    bool is not numeric.
    """
    return isinstance(tensor, torch.Tensor) and tensor.dtype in _NUMERIC


def assert_proper_iterable(values: Any) -> None:
    """`tf.debugging.assert_proper_iterable`: `TypeError` unless `values` is a proper iterable.

    Tensors, ndarrays, strings and bytes are not proper iterables.
    """
    unwanted = (torch.Tensor, np.ndarray, str, bytes)
    if isinstance(values, unwanted) or getattr(values, "_tfcompat_variable", False):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')
    return None


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> dtypes.DType:
    """`tf.debugging.assert_same_float_dtype`: the one floating dtype of `tensors` and `dtype`.

    float32 when there is none; `ValueError` for a mismatch or a non-float dtype.
    """
    want = None if dtype is None else dtypes.as_dtype(dtype)
    first = None
    for t in tensors or []:
        got = dtypes.from_torch(convert_to_tensor(t).dtype) if not hasattr(t, "dtype") else \
            dtypes.as_dtype(t.dtype)
        if want is None:
            want, first = got, t
        elif got != want:
            shown = f" as {_tensor_str(convert_to_tensor(first))}" if first is not None else ""
            raise ValueError(f"{_tensor_str(convert_to_tensor(t))}, type={got}, must be of the "
                             f"same type ({want}){shown}.")
    if want is None:
        return dtypes.float32
    if not want.is_floating:
        raise ValueError(f"Expected floating point type, got {want}.")
    return want
