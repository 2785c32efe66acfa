"""`tf.py_function` and `tf.numpy_function`: Python code as an op, TF's eager semantics.

In eager TF, `py_function` calls `func` on the (eager) input tensors and
converts each result to its `Tout` dtype; a Python exception inside `func`
surfaces as the op error TF maps it to (`ValueError`/`TypeError` become
`InvalidArgumentError`, `StopIteration` becomes `OutOfRangeError`, anything
else `UnknownError`). Since the inputs are tfcompat tensors, torch autograd
flows through `func` as TF's tape does through `EagerPyFunc`.

`numpy_function` in eager TF calls `func` on numpy copies of the inputs
and converts what it returns *without* `Tout` (TF's eager shortcut), and
lets `func`'s exceptions through unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
import torch

from ..framework import dtypes, nest
from ..framework import errors
from ..framework import variable_protocol as protocol
from ..framework.numpy_interop import to_numpy
from ..framework.tensor_conversion import convert_to_tensor

__all__ = ["py_function", "numpy_function"]


def _missing_tout(name: str) -> TypeError:
    return TypeError(f"Missing required argument: 'Tout'\n  If using {name} as a decorator, set "
                     f"`Tout`\n  **by name** above the function:\n  `@{name}(Tout=tout)`")


def _decorator(op: Callable[..., Any], func: Any, inp: Any, Tout: Any, **kw: Any) -> Any:
    """TF's decorator form: `@tf.py_function(Tout=...)` (func and inp absent)."""
    if func is None and inp is None:
        if Tout is None:
            raise _missing_tout(f"tf.{op.__name__}")
        return lambda f: (lambda *args: op(f, list(args), Tout, **kw))
    return None


def _op_error(e: Exception) -> errors.OpError:
    text = f"{type(e).__name__}: {e}"
    if isinstance(e, (ValueError, TypeError)):
        return errors.InvalidArgumentError(None, None, text)
    if isinstance(e, StopIteration):
        return errors.OutOfRangeError(None, None, text)
    return errors.UnknownError(None, None, text)


def py_function(func: Optional[Callable[..., Any]] = None, inp: Any = None, Tout: Any = None,
                name: Optional[str] = None) -> Any:
    """`tf.py_function(func, inp, Tout)`: `func(*inp)` on tensors, results cast to `Tout`.

    `Tout` is a dtype (one tensor comes back) or a list of dtypes (a list
    comes back); it is required (`[]` fails after `func` runs, as in TF 2.21:
    `UnknownError`). Returning a
    variable is TF's `RuntimeError`.
    """
    deco = _decorator(py_function, func, inp, Tout, name=name)
    if deco is not None:
        return deco
    if Tout is None:
        raise _missing_tout("tf.py_function")
    single = not isinstance(Tout, (list, tuple))
    out_types = [Tout] if single else list(Tout)
    args = [convert_to_tensor(x) for x in (inp or [])]
    try:
        out = func(*args)
        if not out_types:
            # TF 2.21's eager op then indexes its empty result list
            raise IndexError("list index out of range (TF 2.21's eager py_function fails on "
                             "Tout=[]: give Tout the dtypes of func's results)")
        if not isinstance(out, (list, tuple)):
            out = [out]
        results = []
        for value, dtype in zip(out, out_types):
            if protocol.is_variable(value):
                raise RuntimeError(
                    "Attempting to return a variable from an eagerly executed py_func. Only "
                    "numeric data structures like Tensors or NumPy arrays should be returned; "
                    "to return the value of a variable, call `.read_value()` on it: "
                    f"{value!r}")
            results.append(convert_to_tensor(value, dtype=dtypes.as_dtype(dtype)))
    except errors.OpError:
        raise
    except Exception as e:  # noqa: BLE001 - TF turns every Python error into an op error
        raise _op_error(e) from e
    return results[0] if single else results


def numpy_function(func: Optional[Callable[..., Any]] = None, inp: Any = None, Tout: Any = None,
                   stateful: bool = True, name: Optional[str] = None) -> Any:
    """`tf.numpy_function(func, inp, Tout)`: `func` on numpy arrays, eager TF's way.

    Inputs are numpy copies; the flattened results are converted to tensors
    by their own dtypes (eager TF does not apply `Tout`); one result comes
    back unwrapped. `func`'s exceptions propagate unchanged.
    """
    deco = _decorator(numpy_function, func, inp, Tout, stateful=stateful, name=name)
    if deco is not None:
        return deco
    if Tout is None:
        raise _missing_tout("tf.numpy_function")
    # numpy's own conversion for Python values (2.5 is float64 there, as in TF's eager path)
    arrays = [np.array(to_numpy(convert_to_tensor(x))) if isinstance(x, torch.Tensor)
              or protocol.is_variable(x) else np.array(x) for x in (inp or [])]
    out = [x if x is None else convert_to_tensor(x) for x in nest.flatten(func(*arrays))]
    return out[0] if len(out) == 1 else out
