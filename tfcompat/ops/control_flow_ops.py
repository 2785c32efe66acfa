"""TF's control flow in eager mode: `cond`, `case`, `switch_case`, `while_loop` and friends.

tfcompat is eager, so these follow TF 2.21's *eager* code paths: a
predicate or branch index is read on the host (`bool(pred)`, one host sync:
which Python function runs depends on the data) and only the chosen
function is called; `while_loop` is a Python loop. TF's eager checks are
kept exactly, including its quirks:

* `while_loop` compares each iteration's loop variables with the input
  structure (`tf.nest.assert_same_structure`, container types included),
  so a body must return a list or tuple like `loop_vars`; shapes and
  `shape_invariants` are not checked in eager TF and are not checked here;
* `maximum_iterations` wraps the loop as TF does (a counter is prepended
  and `cond` is still called on the last round);
* `case` and `switch_case` take tensors only for the predicate / index
  (a Python bool or int is TF's `TypeError`).

`group`, `no_op` and `control_dependencies` order nothing in eager TF
(operations already run in program order) and are accepted no-ops here.
"""

from __future__ import annotations

import collections.abc
import contextlib
from typing import Any, Callable, Iterator, Optional, Sequence

import torch

from ..framework import dtypes, nest
from ..framework import variable_protocol as protocol
from ..framework.errors import invalid_argument
from ..framework.tensor_conversion import convert_to_tensor

__all__ = ["cond", "case", "switch_case", "while_loop", "identity_n", "no_op", "group",
           "control_dependencies"]


def _truth(pred: Any) -> bool:
    """`pred`'s truth as TF's eager cond reads it (numpy's rules: one element, any dtype)."""
    if type(pred) in (bool, int, float):  # a Python predicate: no tensor is made for it
        return bool(pred)
    if not isinstance(pred, torch.Tensor):
        pred = convert_to_tensor(pred)
    n = pred.numel()
    if n == 1:
        return bool(pred.reshape(()).item())
    if n == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                         "check that an array is not empty.")
    raise ValueError("The truth value of an array with more than one element is ambiguous. Use "
                     "a.any() or a.all()")


def cond(pred: Any, true_fn: Optional[Callable[[], Any]] = None,
         false_fn: Optional[Callable[[], Any]] = None, name: Optional[str] = None) -> Any:
    """`tf.cond`: `true_fn()` if `pred` is true else `false_fn()`; only that branch runs.

    `pred` is converted to a tensor and read on the host (numpy truth rules,
    so a one-element tensor of any dtype works and a longer one is
    `ValueError`). The branch's result is returned as is (TF 2's `strict`
    behaviour: a one-element list stays a list).
    """
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    return true_fn() if _truth(pred) else false_fn()


def _pairs(pred_fn_pairs: Any) -> list:
    if isinstance(pred_fn_pairs, collections.abc.Mapping):
        items = list(pred_fn_pairs.items())
    else:
        items = list(pred_fn_pairs)
    for pair in items:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
    return items


def case(pred_fn_pairs: Any, default: Optional[Callable[[], Any]] = None,
         exclusive: bool = False, strict: bool = False, name: str = "case") -> Any:
    """`tf.case`: the function of the first true predicate, else `default()`.

    Predicates must be boolean scalar tensors. Without `default`, the last
    pair's function is the default, but TF's eager path still asserts that
    some predicate held (`InvalidArgumentError` "None of conditions
    evaluated as True"). `exclusive=True` is accepted; TF's eager path does
    not enforce it either. A result that is a one-element list is unpacked
    unless `strict=True`.
    """
    pairs = _pairs(pred_fn_pairs)
    for p, fn in pairs:
        if not isinstance(p, torch.Tensor):
            raise TypeError(f"pred must be a Tensor, got: {p}")
        if p.dtype is not torch.bool or not callable(fn):
            # TF's own message reads `pred.name`, which eager tensors lack: its error is this
            # AttributeError; the class is kept, the message says what is wrong.
            what = "fn must be callable" if p.dtype is torch.bool else \
                f"pred must be a bool tensor, got {dtypes.from_torch(p.dtype).name}"
            raise AttributeError(f"tf.case: {what} (TF 2.21 raises AttributeError here: "
                                 "Tensor.name is undefined when eager execution is enabled.)")
    if not pairs:
        raise ValueError("tf.case needs at least one (pred, fn) pair: not enough values to "
                         "unpack (expected 2, got 0)")
    values = [_truth(p) for p, _ in pairs]
    if default is None:
        # TF: the last pair's function is the default, guarded by an assertion that any held.
        if not any(values):
            shown = ", ".join(str(v) for v in values)
            raise invalid_argument(
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                f"b'Input error: None of conditions evaluated as True:'\n{shown}")
        default = pairs[-1][1]
    elif not callable(default):
        raise TypeError("'false_fn' must be callable.")
    chosen = next((fn for (_, fn), v in zip(pairs, values) if v), default)
    result = chosen()
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def switch_case(branch_index: Any, branch_fns: Any, default: Optional[Callable[[], Any]] = None,
                name: str = "switch_case") -> Any:
    """`tf.switch_case`: `branch_fns[branch_index]()`, else `default()` (or the last branch).

    `branch_fns` is a list of callables, a list of `(index, fn)` pairs or a
    dict whose keys form `range(len(branch_fns))`. `branch_index` must be an
    integer scalar tensor (a Python int is TF's `TypeError`).
    """
    if not isinstance(branch_index, torch.Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if branch_index.is_floating_point() or branch_index.is_complex() or \
            branch_index.dtype is torch.bool:
        raise TypeError(f"'branch_index' must be an integer Tensor, got "
                        f"{dtypes.from_torch(branch_index.dtype)!r}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if isinstance(branch_fns, collections.abc.Mapping):
        items = list(branch_fns.items())
    else:
        items = list(branch_fns)
        if all(callable(fn) for fn in items):
            items = list(enumerate(items))
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {item}.")
    keys = [k for k, _ in items]
    if set(keys) != set(range(len(items))):
        found = ",".join(str(k) for k in sorted(keys))
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(items)}) but found {{{found}}}")
    fns = [fn for _, fn in sorted(items, key=lambda kv: kv[0])]
    for fn in fns:
        if not callable(fn):
            raise TypeError(f"fn for branch must be callable: {fn!r}")
    if default is None:
        default = fns[-1]
    elif not callable(default):
        raise TypeError("'default' must be callable.")
    if branch_index.dim() != 0:
        raise invalid_argument(f"'then' must be at least a vector, but saw shape: [] "
                               f"(branch_index must be a scalar, got shape "
                               f"{list(branch_index.shape)})", "Select")
    index = int(branch_index.item())
    return fns[index]() if 0 <= index < len(fns) else default()


def _as_loop_tensor(x: Any) -> Any:
    if type(x).__name__ == "TensorArray":
        return x
    return convert_to_tensor(x)


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
               shape_invariants: Any = None, parallel_iterations: int = 10,
               back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: Optional[str] = None) -> Any:
    """`tf.while_loop`: repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    TF's eager semantics: `loop_vars` is a non-empty list or tuple (variables
    in it are read once), each `body` result must have `loop_vars`'
    structure (`tf.nest.assert_same_structure`: `ValueError`, `TypeError`
    for a different container type), and the results are converted to
    tensors at the end (TensorArrays stay). `maximum_iterations` (a scalar)
    caps the rounds. `shape_invariants`, `parallel_iterations` (>= 1),
    `back_prop` and `swap_memory` are accepted; eager TF checks no shapes.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    loop_vars = nest.map_structure(
        lambda v: convert_to_tensor(v) if protocol.is_variable(v) else v, loop_vars)
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    counted = maximum_iterations is not None
    if counted:
        limit = convert_to_tensor(maximum_iterations)
        if limit.dim() != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                             f"{tuple(limit.shape)}")
        limit_value = int(limit.item())
        inner_cond, inner_body = cond, body
        loop_vars = (0, loop_vars)

        def cond(i: Any, lv: Any) -> Any:  # TF evaluates both sides of its logical_and
            inner = inner_cond(*lv)
            return (i < limit_value) and _truth(inner)

        def body(i: Any, lv: Any) -> Any:
            return (i + 1, inner_body(*lv))
    structure = list(loop_vars)
    while _truth(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        nest.assert_same_structure(structure, list(loop_vars))
    result = nest.map_structure(_as_loop_tensor, loop_vars)
    return result[1] if counted else result


def identity_n(input: Any, name: Optional[str] = None) -> list:
    """`tf.identity_n`: each input as a tensor (variables read), in a list."""
    if isinstance(input, torch.Tensor):
        if input.dim() == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        input = list(input.unbind(0))
    values = list(input)
    if not values:
        raise invalid_argument("Length for attr 'T' of 0 must be at least minimum 1", "IdentityN")
    return [torch.ops.aten.alias(t) if isinstance(t, torch.Tensor) else convert_to_tensor(t)
            for t in values]


def no_op(name: Optional[str] = None) -> None:
    """`tf.no_op`: does nothing (eager TF returns None)."""
    return None


def group(*inputs: Any, **kwargs: Any) -> None:
    """`tf.group`: eager TF has already run every input, so it returns None."""
    return None


@contextlib.contextmanager
def _null() -> Iterator[None]:
    yield None


def control_dependencies(control_inputs: Optional[Sequence[Any]]) -> Any:
    """`tf.control_dependencies`: a context manager that orders nothing in eager mode.

    `control_inputs` must be None or iterable (TF iterates it: an int is
    `TypeError`); callables in it are called, as TF's eager path does.
    """
    if control_inputs:
        for c in control_inputs:
            if callable(c):
                c()
    return _null()
