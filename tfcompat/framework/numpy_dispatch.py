"""NumPy's protocols on `torch.Tensor`: `__array_ufunc__` and `__array_function__` (torch has neither).

In TF, `tensor - ndarray` and `ndarray - tensor` are TF ops: the NumPy operand
becomes a tensor of the tensor's dtype and the result is on the tape. Plain
torch cannot do that: torch's operator refuses the array, NumPy's reflected
operator takes over, converts the tensor to an array and wraps a *detached*
float64 result back into a tensor (or raises, for a tensor that requires
grad). A regression written the TF guide's way (`tf.square(model(x) - y)`
with NumPy labels `y`) then trains nothing.

NumPy hands every ufunc that has a tensor operand to `Tensor.__array_ufunc__`
once torch defines it, and every NumPy function with a tensor argument to
`Tensor.__array_function__`. This module defines both, additively:

* **Operators**: a ufunc that is one of Python's binary operators (`+ - * /
  // % ** @`, the comparisons, `& | ^`), called with a tensor and a NumPy
  value (an `ndarray` or a NumPy scalar), the way NumPy's reflected operator
  calls it. Torch's own operator runs first, in the orientation the user
  wrote (`Tensor.__rsub__(t, a)` for `a - t`, `Tensor.__gt__(t, a)` for
  `a < t`): where it succeeds on its own (a NumPy scalar is a number to
  torch; `t == a`), its result is kept, unchanged. Where it fails (its
  fallback to NumPy is refused while it runs), TF's operator runs: the NumPy
  value is converted to the tensor's dtype, and the result is a tensor on the
  tape. The TF operators are registered by `tfcompat.variables.operators`
  (`register_operators`), from the table that drives the variables'
  operators, so tensors and variables cannot disagree.
* **Every other ufunc call** (`np.exp(t)`, `np.add.reduce(t)`, `np.add(t,
  1)`, an `out=` array) is NumPy's own default, as without this hook: the
  tensors are converted with `np.asarray`, the ufunc runs, and the result is
  wrapped by torch's `Tensor.__array_wrap__` as NumPy would. Only where plain
  torch would have raised, because a tensor cannot be converted by torch
  (it requires grad, lives on an accelerator, is bfloat16...) and tfcompat's
  `numpy()` gave TF's detached copy instead, the result is NumPy's, as TF's
  (`np.exp(tf_tensor)` is an ndarray): never a detached tensor that looks
  differentiable. A tensor in `out=` is refused as NumPy refuses it.
* **NumPy functions** (`np.mean`, `np.concatenate`, `np.argmax`, ...): NumPy's
  default implementation runs, as without this hook, and its result is kept.
  Where it raises (`np.mean(t, axis=0)` calls `t.mean(axis=0)`, which torch
  refuses), or where it went through TF's detached copy of a tensor and
  wrapped the result back into a tensor, the function runs on the tensors'
  values instead and gives NumPy's result, as it does on a TF tensor.

`install()` adds both hooks to `torch.Tensor` (never where torch defines
one), `uninstall()` removes them, `installed()` lists them; all three are
driven by `tfcompat.framework.tensor_methods` (and its opt-out).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Mapping, NamedTuple

import numpy as np
import torch

__all__ = ["NumpyOperator", "register_operators", "note_detached_conversion",
           "install", "uninstall", "installed"]


class NumpyOperator(NamedTuple):
    """How a binary operator's ufunc runs between a tensor `t` and a NumPy value `a`.

    `forward` / `reflected`: the names of torch's operator for `t <op> a` and
    for `a <op> t` (`"__sub__"`, `"__rsub__"`; `"__gt__"` for `a < t`).
    `tf_forward(t, a)` and `tf_reflected(a, t)`: TF's operator, for where
    torch's fails. `comparison`: NumPy hands a NumPy scalar on the left of a
    comparison over as a 0-d array (`np.float64(1) < t` calls `np.less` with
    `array(1.0)`), where plain Python would have reached torch's `t > 1.0`:
    torch's operator is tried with the scalar again.
    """
    forward: str
    reflected: str
    tf_forward: Callable[[torch.Tensor, Any], Any]
    tf_reflected: Callable[[Any, torch.Tensor], Any]
    comparison: bool = False


_OPERATORS: Dict[np.ufunc, NumpyOperator] = {}

# Per thread: `in_torch` while torch's own operator is tried (a NumPy fallback inside it is
# refused, so only torch's own success counts); `detached` counts tfcompat's numpy() taking
# TF's path (a copy torch would have refused to make).
_state = threading.local()


def register_operators(table: Mapping[np.ufunc, NumpyOperator]) -> None:
    """Registers TF's operators for ufuncs (`np.subtract: NumpyOperator(...)`); replaces earlier rows."""
    _OPERATORS.update(table)


def note_detached_conversion() -> None:
    """Called by tfcompat's `Tensor.numpy()` when it gives TF's copy where torch refused."""
    _state.detached = getattr(_state, "detached", 0) + 1


def _detached_count() -> int:
    return getattr(_state, "detached", 0)


def _is_numpy_value(x: Any) -> bool:
    return type(x) is np.ndarray or isinstance(x, np.generic)


# (operator, tensor type, ndarray rank is 0) triples torch's operator declined for an ndarray:
# torch's argument parser decides by the operands' types (a tensor subclass's
# `__torch_function__` may decide otherwise), so it declines every array alike, and a declined
# call costs a formatted TypeError (tens of µs).
_DECLINED: set = set()


def _run_torch_operator(name: str, t: torch.Tensor, other: Any) -> Any:
    """Torch's own operator `name` on (t, other), NotImplemented where it fails on its own."""
    key = (name, type(t), other.ndim == 0) if type(other) is np.ndarray else None
    if key in _DECLINED:
        return NotImplemented
    _state.in_torch = True
    try:
        out = getattr(torch.Tensor, name)(t, other)
    except Exception:  # noqa: BLE001 - any failure of torch's operator hands over to TF's
        return NotImplemented
    finally:
        _state.in_torch = False
    if out is NotImplemented and key is not None:
        _DECLINED.add(key)
    return out


def _operator(op: NumpyOperator, x: Any, y: Any) -> Any:
    if isinstance(x, torch.Tensor):
        out = _run_torch_operator(op.forward, x, y)
        return op.tf_forward(x, y) if out is NotImplemented else out
    scalar = x[()] if op.comparison and type(x) is np.ndarray and x.ndim == 0 else x
    out = _run_torch_operator(op.reflected, y, scalar)
    return op.tf_reflected(x, y) if out is NotImplemented else out


def _foreign_override(values: Any, hook: str) -> bool:
    """Whether some value's type overrides NumPy's `hook` other than ndarray and torch.Tensor:
    then NumPy's default gives that type its turn, and so does this one."""
    for v in values:
        kind = type(v)
        if isinstance(v, (torch.Tensor, np.ndarray, np.generic)) or kind.__module__ == "builtins":
            continue
        if getattr(kind, hook, None) is not None:
            return True
    return False


def _as_array(x: Any) -> Any:
    return np.asarray(x) if isinstance(x, torch.Tensor) else x


def _wrap(like: torch.Tensor, result: Any) -> Any:
    """What NumPy's default does with a ufunc's result: torch's `__array_wrap__` of the tensor."""
    if isinstance(result, tuple):
        return tuple(_wrap(like, r) for r in result)
    if isinstance(result, np.generic):
        result = np.asarray(result)
    if isinstance(result, np.ndarray):
        return like.__array_wrap__(result)
    return result


def _ufunc_default(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """NumPy's default for a ufunc call with tensor operands (and TF's result where torch refused)."""
    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else (out,)
    if any(isinstance(o, torch.Tensor) for o in outs):
        return NotImplemented  # (NumPy refuses a non-array out=, as without this hook)
    if _foreign_override(inputs + outs, "__array_ufunc__"):
        return NotImplemented
    like = next(x for x in inputs + tuple(kwargs.values()) if isinstance(x, torch.Tensor))
    before = _detached_count()
    arrays = tuple(_as_array(x) for x in inputs)
    if "where" in kwargs:
        kwargs = dict(kwargs, where=_as_array(kwargs["where"]))
    detached = _detached_count() != before
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if out is not None or method in ("at", "outer") or detached:
        return result  # (NumPy's `outer` reshapes its operands to arrays first: no wrap)
    return _wrap(like, result)


def __array_ufunc__(self: torch.Tensor, ufunc: np.ufunc, method: str, *inputs: Any,
                    **kwargs: Any) -> Any:
    if getattr(_state, "in_torch", False):
        return NotImplemented  # torch's own operator is being tried: no NumPy fallback
    if method == "__call__" and len(inputs) == 2 and not kwargs:
        op = _OPERATORS.get(ufunc)
        if op is not None:
            x, y = inputs
            if ((isinstance(x, torch.Tensor) and _is_numpy_value(y))
                    or (_is_numpy_value(x) and isinstance(y, torch.Tensor))):
                return _operator(op, x, y)
    return _ufunc_default(ufunc, method, inputs, kwargs)


def _on_values(x: Any) -> Any:
    """`x` with every tensor inside (lists, tuples, dicts) replaced by its NumPy value."""
    if isinstance(x, torch.Tensor):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        converted = [_on_values(v) for v in x]
        return type(x)(converted) if type(x) in (list, tuple) else converted
    if isinstance(x, dict):
        return {k: _on_values(v) for k, v in x.items()}
    return x


def _holds_tensor(x: Any) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(_holds_tensor(v) for v in x)
    return False


def __array_function__(self: torch.Tensor, func: Callable, types: tuple, args: tuple,
                       kwargs: dict) -> Any:
    if not all(issubclass(t, (torch.Tensor, np.ndarray)) for t in types):
        return NotImplemented  # another array type takes its turn, as with NumPy's default
    implementation = getattr(func, "_implementation", None)
    if implementation is None:
        return func(*_on_values(args), **_on_values(kwargs))
    before = _detached_count()
    try:
        result = implementation(*args, **kwargs)
    except Exception:  # noqa: BLE001 - where NumPy's default fails on a tensor, TF's answer
        return func(*_on_values(args), **_on_values(kwargs))
    if _detached_count() != before and _holds_tensor(result):
        # A tensor made from TF's detached copy: give NumPy's value, as TF does.
        return func(*_on_values(args), **_on_values(kwargs))
    return result


__array_ufunc__.__qualname__ = "Tensor.__array_ufunc__"
__array_function__.__qualname__ = "Tensor.__array_function__"
__array_ufunc__.__doc__ = (
    "NumPy's ufunc hook (added by tfcompat): a binary operator between a tensor and a NumPy "
    "value is torch's where torch's own operator succeeds, else TF's (the NumPy value takes "
    "the tensor's dtype; the result is on the tape). Other ufuncs run as NumPy's default.")
__array_function__.__doc__ = (
    "NumPy's function hook (added by tfcompat): NumPy's default; where it fails on a tensor "
    "(np.mean(t, axis=0)) NumPy's result on the tensor's value, as on a TF tensor.")

_HOOKS = {"__array_ufunc__": __array_ufunc__, "__array_function__": __array_function__}
_added: Dict[str, Callable] = {}


def install() -> Dict[str, Any]:
    """Adds the hooks torch.Tensor lacks (idempotent); returns `installed()`."""
    for name, hook in _HOOKS.items():
        if name not in _added and not hasattr(torch.Tensor, name):
            setattr(torch.Tensor, name, hook)
            _added[name] = hook
    return installed()


def uninstall() -> None:
    """Removes what `install()` added (a hook someone has since replaced stays)."""
    for name, hook in list(_added.items()):
        if torch.Tensor.__dict__.get(name) is hook:
            delattr(torch.Tensor, name)
        del _added[name]


def installed() -> Dict[str, Any]:
    return dict(_added)
