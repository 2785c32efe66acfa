"""What an `apply_gradients` step over one variable list needs: its plan and its checked gradients.

A training loop calls `apply_gradients` with the same variables every
step, so everything that depends only on the variable list is worked out
once, in a `StepPlan`: each variable's storage cell, dtype and device (none
of which ever change), whether a variable is listed twice, the
(device, dtype) keys of the coefficients, and, once the multi-tensor path
has run, its (device, dtype) groups. A step then costs one pass over the
gradients (`checked_gradients`), comparing each with the plan's facts.

The gradients are validated twice: as given (so a cross-replica reduction
never sees a bad one) and as the aggregator, clipping, `gradient_transformers`
and subclass hooks leave them (so the update rules never see a bad one).
`rechecked_gradients` skips the second check for every pair those left as
they were, which in the common case is all of them.
"""

from __future__ import annotations

import itertools
import logging
import operator
from typing import Any, Callable, Iterable, Optional

import torch

from ...framework import dtypes, errors
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor_conversion import convert_to_tensor

__all__ = ["StepPlan", "CheckedGradients", "split_grads", "check_gradient", "checked_gradients",
           "rechecked_gradients"]

_log = logging.getLogger("tfcompat")


def split_grads(grads_and_vars: Iterable) -> tuple:
    """`(gradients, variables)` of the pairs, without `(None, var)` pairs.

    The dropped pairs get TF's warning; all `None` is a `ValueError`.
    """
    grads_and_vars = tuple(grads_and_vars)
    grads = [g for g, _ in grads_and_vars]
    variables = [v for _, v in grads_and_vars]
    if not any(map(operator.is_, grads, itertools.repeat(None))):
        return grads, variables
    filtered = tuple((g, v) for g, v in grads_and_vars if g is not None)
    if not filtered:
        names = ([v.name for _, v in grads_and_vars],)
        raise ValueError(f"No gradients provided for any variable: {names}. Provided "
                         f"`grads_and_vars` is {grads_and_vars}.")
    _log.warning("Gradients do not exist for variables %s when minimizing the loss. If "
                 "you're using `model.compile()`, did you forget to provide a `loss` argument?",
                 [v.name for g, v in grads_and_vars if g is None])
    return [g for g, _ in filtered], [v for _, v in filtered]


class StepPlan:
    """The cached facts of a step over one variable list.

    Only what cannot change for a variable is kept: its storage cell, dtype
    and device. Its shape is read from the cell each step (a variable of
    partially known shape may be assigned a new one).
    """

    __slots__ = ("variables", "apply_keys", "checks", "has_duplicates", "dense_groups")

    def __init__(self, var_list: list) -> None:
        self.variables = tuple(var_list)  # strong refs: ids in the optimizer's cache key stay unique
        self.apply_keys = tuple({(v.device, v.dtype): None for v in var_list})
        checks = []
        for var in var_list:
            resource = getattr(var, "_resource", None)
            checks.append((None, None, None) if resource is None else
                          (resource, resource.value.dtype, resource.value.get_device()))
        self.checks = tuple(checks)  # (Resource, torch dtype, device index), or Nones
        self.has_duplicates = len(set(map(id, var_list))) != len(var_list)
        self.dense_groups: Optional[list] = None  # the optimizer's, once a multi-tensor step ran


class CheckedGradients(tuple):
    """`(gradient, variable)` pairs validated against a plan: what `_distributed_apply` receives.

    A tuple, so nothing can change the pairs after the check. `grads` holds
    the gradients in the plan's order; `all_dense` says every gradient is a
    contiguous tensor for a resource variable. A copy rebuilt from its
    items (`type(x)(items)`, as `nest` does) has no plan.
    """

    plan: Optional[StepPlan] = None
    grads: Optional[list] = None
    all_dense = False

    @classmethod
    def of(cls, plan: StepPlan, grads: list, all_dense: bool) -> "CheckedGradients":
        self = cls(zip(grads, plan.variables))
        self.plan = plan
        self.grads = grads
        self.all_dense = all_dense
        return self


def checked_gradients(plan: StepPlan, grads: Iterable, known: Optional[list] = None) -> CheckedGradients:
    """Every gradient as a tensor or IndexedSlices matching its variable, or an error.

    The common case (a contiguous tensor of the variable's dtype, shape and
    device) is checked inline against the plan: this runs for every
    variable of every step. Entries of `known` (gradients validated
    before, by position) are not checked again.
    """
    out: list = []
    append = out.append
    tensor = torch.Tensor
    all_dense = True
    for grad, (resource, dtype, device) in zip(grads, plan.checks):
        # (dtype is None for a variable without a Resource: never the fast path)
        if (type(grad) is tensor and grad.dtype is dtype and grad.get_device() == device
                and grad.shape == resource.value.shape and grad.is_contiguous()):
            append(grad)
            continue
        if known is None or grad is not known[len(out)]:
            grad = check_gradient(grad, plan.variables[len(out)])
            if type(grad) is tensor and not grad.is_contiguous():
                grad = grad.contiguous()  # the multi-tensor kernels want dense storage
        all_dense = all_dense and resource is not None and type(grad) is tensor
        append(grad)
    return CheckedGradients.of(plan, out, all_dense)


def rechecked_gradients(checked: CheckedGradients, grads_and_vars: Any,
                        plan_for: Callable[[list], StepPlan]) -> CheckedGradients:
    """The transformed `(gradient, variable)` pairs, validated again where they changed.

    `checked` itself when every pair is the one it held. A transformation
    that changed the variables gets the plan of its list (`plan_for`).
    """
    if not isinstance(grads_and_vars, (list, tuple)):
        grads_and_vars = list(grads_and_vars)
    if len(grads_and_vars) == len(checked) and all(map(operator.is_, grads_and_vars, checked)):
        return checked
    grads = [g for g, _ in grads_and_vars]
    variables = [v for _, v in grads_and_vars]
    plan, known = checked.plan, checked.grads
    if len(variables) != len(plan.variables) or not all(map(operator.is_, variables, plan.variables)):
        plan, known = plan_for(variables), None
    return checked_gradients(plan, grads, known)


def check_gradient(grad: Any, var: Any) -> Any:
    """The gradient as a tensor or IndexedSlices matching `var`, or an error (in TF's classes)."""
    shape = tuple(var.handle.shape) if hasattr(var, "handle") else tuple(var.shape.as_list())
    want = var.dtype.as_torch
    if isinstance(grad, IndexedSlices):
        if var.constraint is not None:
            raise RuntimeError(f"Cannot use a constraint function on a sparse variable. "
                               f"Received: grad={grad}, var.constraint={var.constraint}.")
        values, indices = grad.values, grad.indices
        if values.dtype is not want:
            raise errors.InvalidArgumentError(
                None, None, f"The sparse gradient of {var.name} has dtype "
                f"{dtypes.from_torch(values.dtype).name}, the variable {var.dtype.name}: cast "
                "the gradient with tf.cast.")
        if tuple(values.shape[1:]) != shape[1:] or values.shape[0] != indices.numel():
            raise errors.InvalidArgumentError(
                None, None, f"Sparse gradient values of shape {list(values.shape)} with "
                f"{indices.numel()} indices do not fit variable {var.name} of shape {list(shape)}.")
        from ...variables.scatter import check_gather_indices
        check_gather_indices(indices, shape[0])
        return grad
    g = grad if isinstance(grad, torch.Tensor) else convert_to_tensor(grad, dtype=var.dtype)
    if g.dtype is not want:
        raise errors.InvalidArgumentError(
            None, None, f"The gradient of {var.name} has dtype {dtypes.from_torch(g.dtype).name}, "
            f"the variable {var.dtype.name}: cast the gradient with tf.cast.")
    if tuple(g.shape) != shape:
        raise errors.InvalidArgumentError(
            None, None, f"var and grad do not have the same shape{list(shape)} {list(g.shape)} "
            f"(variable {var.name}).")
    if hasattr(var, "handle") and g.device != var.handle.device:
        g = g.to(var.handle.device)
    return g
