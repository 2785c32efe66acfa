"""`tf.custom_gradient` and `tf.recompute_grad` over torch autograd.

`@tf.custom_gradient` (TF's eager path): `f(*args)` returns `(result,
grad_fn)`; the result's gradient is whatever `grad_fn(*grad_ys)` returns
for the positional tensor arguments. If `f` read trainable variables (that
are not arguments), `grad_fn` must accept `variables=` and return
`(input_grads, variable_grads)`, TF's contract and errors.

Torch mapping: `f` runs as ordinary code (its variable reads are noted by
an inner `GradientTape`), then its flat results are routed through one
`torch.autograd.Function` whose inputs are the tensor arguments and a read
of each variable, and whose backward calls `grad_fn`. The reads tie the
variables' gradients to whatever tapes are recording, so
`tape.gradient(y, var)` and plain `torch.autograd` both see `grad_fn`'s
numbers; a backward with `create_graph` (a nested tape) runs `grad_fn`
differentiably. A gradient that broadcasts to its input's shape is expanded
to it (TF hands it on as returned); one that does not is an
`InvalidArgumentError` here, where TF passes it on unchecked.

`tf.recompute_grad(f)` reruns `f` under a tape in the backward pass (TF's
scheme), so its activations are not kept between forward and backward.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional

import torch

from ..framework import nest
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from .tape import GradientTape

__all__ = ["custom_gradient", "recompute_grad"]


def _accepts_variables(fn: Callable[..., Any]) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return True
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _as_grad(g: Any, shape: torch.Size, dtype: torch.dtype) -> Optional[torch.Tensor]:
    """`grad_fn`'s gradient for one input as autograd wants it (that input's dtype and shape:
    a Python number or a broadcastable tensor is expanded, IndexedSlices made dense)."""
    if g is None:
        return None
    t = g if isinstance(g, torch.Tensor) else convert_to_tensor(g)
    if t.dtype != dtype:
        t = t.to(dtype)
    if t.shape != shape:
        try:
            t = t.expand(shape)
        except RuntimeError:
            # TF hands such a gradient on unchecked; autograd needs the input's shape
            raise InvalidArgumentError(
                None, None, f"@tf.custom_gradient grad_fn returned a gradient of shape "
                            f"{list(t.shape)} for an input (or variable) of shape {list(shape)}: "
                            "return one that has the input's shape (or broadcasts to it)."
            ) from None
    return t


class _CustomGradientFunction(torch.autograd.Function):
    """Outputs: `call.results`; backward: `call.grad_fn` (see the module docstring)."""

    @staticmethod
    def forward(ctx: Any, call: "_Call", *inputs: torch.Tensor) -> Any:  # type: ignore[override]
        ctx.call = call
        ctx.shapes = [(t.shape, t.dtype) for t in inputs]
        return tuple(r.detach().clone() for r in call.results)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: torch.Tensor) -> Any:  # type: ignore[override]
        call: _Call = ctx.call
        grads = call.gradients(list(grad_outputs))
        out = [None]
        for g, (shape, dtype) in zip(grads, ctx.shapes):
            # integer inputs take no gradient in torch (TF drops theirs too)
            differentiable = dtype.is_floating_point or dtype.is_complex
            out.append(_as_grad(g, shape, dtype) if differentiable else None)
        return tuple(out)


class _Call:
    """One call of a custom-gradient function: its results, arguments, variables, grad_fn."""

    def __init__(self, results: list, result_structure: Any, grad_fn: Callable[..., Any],
                 arg_count: int, variables: list) -> None:
        self.results = results
        self.result_structure = result_structure
        self.grad_fn = grad_fn
        self.arg_count = arg_count
        self.variables = variables

    def gradients(self, result_grads: list) -> list:
        if self.variables:
            input_grads, variable_grads = self.grad_fn(*result_grads, variables=self.variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(self.variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient "
                                 "grad_fn.")
        else:
            input_grads = self.grad_fn(*result_grads)
            variable_grads = []
        flat = nest.flatten(input_grads)
        if len(flat) != self.arg_count:
            raise ValueError(f"custom_gradient function expected to return {self.arg_count} "
                             f"gradients, but returned {len(flat)} instead.")
        return flat + variable_grads


def custom_gradient(f: Optional[Callable[..., Any]] = None) -> Any:
    """`tf.custom_gradient`: decorate `f(*args) -> (result, grad_fn)` (see module docstring)."""
    if f is None:
        return lambda fn: custom_gradient(fn)

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        with GradientTape(persistent=True) as watcher:
            result, grad_fn = f(*args, **kwargs)
        flat_args = nest.flatten(args)
        flat_kwargs = nest.flatten(kwargs)
        inputs_all = flat_args + flat_kwargs
        variables = [v for v in watcher.watched_variables()
                     if all(v is not i for i in inputs_all)]
        del watcher
        if variables and not _accepts_variables(grad_fn):
            raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument "
                            f"'variables', since function uses variables: {variables}")
        flat_result = [convert_to_tensor(r) for r in nest.flatten(result)]
        inputs = [convert_to_tensor(a) for a in flat_args] + \
            [v.read_value() for v in variables]
        if not any(t.requires_grad for t in inputs if isinstance(t, torch.Tensor)) or \
                not torch.is_grad_enabled():
            return nest.pack_sequence_as(result, [r.detach() for r in flat_result])
        call = _Call(flat_result, result, grad_fn, len(flat_args), variables)
        outs = _CustomGradientFunction.apply(call, *inputs)
        return nest.pack_sequence_as(result, list(outs))

    return decorated


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """`tf.recompute_grad`: `f`, with its activations recomputed in the backward pass.

    A custom gradient that reruns `f` under a tape (TF's own scheme), so
    variables read in `f` get their gradients too.
    """

    @functools.wraps(f)
    def inner(*args: Any, **kwargs: Any) -> Any:
        tensors = [convert_to_tensor(a) for a in args]

        @custom_gradient
        def run(*xs: Any) -> Any:
            result = f(*xs, **kwargs)

            def grad_fn(*result_grads: Any, variables: Any = None) -> Any:
                variables = list(variables or [])
                with torch.enable_grad():
                    leaves = [x.detach().requires_grad_(x.is_floating_point() or x.is_complex())
                              for x in xs]
                    with GradientTape() as tape:
                        for x in leaves:
                            if x.requires_grad:
                                tape.watch(x)
                        again = f(*leaves, **kwargs)
                    grads = tape.gradient(nest.flatten(again), leaves + variables,
                                          output_gradients=list(result_grads))
                return grads[:len(leaves)], grads[len(leaves):]
            return result, grad_fn

        return run(*tensors)

    return inner
