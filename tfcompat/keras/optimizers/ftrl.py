"""FTRL-proximal, as tf_keras' legacy Ftrl (TF's `ApplyFtrl`/`ApplyFtrlV2` kernels).

With `p = learning_rate_power`, `l2' = l2 + beta / (2 * lr)` and, when
`l2_shrinkage > 0`, `g_s = g + 2 * l2_shrinkage * var` (else `g_s = g`):

    new_accum = accum + g * g                  (the plain gradient, not g_s)
    sigma = (new_accum ** -p - accum ** -p) / lr
    linear = linear + g_s - sigma * var
    quadratic = new_accum ** -p / lr + 2 * l2'
    var = (sign(linear) * l1 - linear) / quadratic   if |linear| > l1 else 0     (dense)
    var = (clip(linear, -l1, l1) - linear) / quadratic                         (sparse)
    accum = new_accum

(`x ** -p` is computed as `sqrt(x)` for the default p = -0.5, as TF does.) The
two forms of the last step agree except where TF's dense kernel selects 0
(a NaN `linear`, or a `quadratic` of 0 or NaN): TF's sparse kernel has the
clip, its dense one the select.

`ftrl` is the functional core (plain tensor lists, no optimizer object):
torch has no fused FTRL kernel, so it is TF's operations with `_foreach_*`
ops, each rounded to the dtype.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import device as device_lib
from ...framework.indexed_slices import IndexedSlices
from ...ops import exact_math
from . import multi_tensor
from .optimizer_v2 import OptimizerV2
from .weights import cast as _cast

__all__ = ["Ftrl", "ftrl"]


def _sqrt(x: torch.Tensor) -> torch.Tensor:
    """A correctly rounded square root (half precision: of the float32 value, as Eigen's):
    FTRL's `sqrt(acc + g * g) - sqrt(acc)` cancels and magnifies any error of it
    (`ops/exact_math.py`)."""
    return exact_math.sqrt(x)


def ftrl(params: list, grads: list, accumulators: list, linears: list, *, lr_t: torch.Tensor,
         learning_rate_power: torch.Tensor, l1_regularization_strength: torch.Tensor,
         l2_regularization_strength: torch.Tensor, beta: torch.Tensor,
         l2_shrinkage: Optional[torch.Tensor], sqrt_power: bool, **unused: Any) -> None:
    """One tf_keras FTRL step (TF's dense kernel) over tensors of one device and dtype, in place.

    The tensor coefficients are 0-d tensors of the dtype (TF's `apply_state`
    entries); `l2_shrinkage` is the shrinkage strength (None when it is 0),
    `sqrt_power` whether `learning_rate_power` is -0.5 (TF's kernels then use
    `sqrt`).
    """
    l1 = l1_regularization_strength
    lr = lr_t
    l2 = l2_regularization_strength + beta / (2.0 * lr)
    neg_p = -learning_rate_power

    def accum_pow(xs: list) -> list:
        return [_sqrt(x) for x in xs] if sqrt_power else multi_tensor.pow_scalar(xs, neg_p)

    if l2_shrinkage is not None:
        g_s = torch._foreach_mul(params, 2 * l2_shrinkage)
        torch._foreach_add_(g_s, grads)                 # g + 2 * l2_shrinkage * var
    else:
        g_s = grads
    old_pow = accum_pow(accumulators)
    torch._foreach_add_(accumulators, torch._foreach_mul(grads, grads))   # new_accum = accum + g * g
    new_pow = accum_pow(accumulators)
    sigma = torch._foreach_sub(new_pow, old_pow)
    torch._foreach_div_(sigma, lr)
    torch._foreach_mul_(sigma, params)
    inc = torch._foreach_sub(g_s, sigma)
    torch._foreach_add_(linears, inc)                   # linear + (g_s - sigma * var)
    torch._foreach_div_(new_pow, lr)
    multi_tensor.add_scalar_(new_pow, 2 * l2)                # quadratic
    x = torch._foreach_sign(linears)
    torch._foreach_mul_(x, l1)
    torch._foreach_sub_(x, linears)                     # l1 * sign(linear) - linear
    torch._foreach_div_(x, new_pow)
    magnitudes = torch._foreach_abs(linears)
    zero = torch.zeros((), dtype=params[0].dtype, device=params[0].device)
    for param, pre_shrink, magnitude in zip(params, x, magnitudes):  # TF's select
        param.copy_(torch.where(magnitude > l1, pre_shrink, zero))


class Ftrl(OptimizerV2):
    """The FTRL-proximal optimizer (`tf.keras.optimizers.Ftrl`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting the initial accumulator to an integer variable's dtype (TypeError).
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": TypeError}

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0, name: str = "Ftrl",
                 l2_shrinkage_regularization_strength: float = 0.0, beta: Any = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        for arg, value, rule in (
                ("initial_accumulator_value", initial_accumulator_value, "positive or zero"),
                ("learning_rate_power", learning_rate_power, "negative or zero"),
                ("l1_regularization_strength", l1_regularization_strength, "positive or zero"),
                ("l2_regularization_strength", l2_regularization_strength, "positive or zero"),
                ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                 "positive or zero")):
            bad = value > 0.0 if rule == "negative or zero" else value < 0.0
            if bad:
                raise ValueError(f"`{arg}` needs to be {rule}. Received: {arg}={value}.")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            value = self._initial_accumulator_value
            self.add_slot(var, "accumulator",
                          lambda shape, dtype, value=value: torch.full(
                              shape, value, dtype=dtype.as_torch,
                              device=device_lib.current_torch_device()))
            self.add_slot(var, "linear")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        c.update(learning_rate_power=self._get_hyper("learning_rate_power", var_dtype),
                 l1_regularization_strength=self._get_hyper("l1_regularization_strength", var_dtype),
                 l2_regularization_strength=self._get_hyper("l2_regularization_strength", var_dtype),
                 beta=self._get_hyper("beta", var_dtype),
                 l2_shrinkage_regularization_strength=_cast(
                     self._l2_shrinkage_regularization_strength, var_dtype))

    def _sqrt_power(self, dtype: torch.dtype) -> bool:
        """Whether `learning_rate_power` is -0.5, where TF's kernels use `sqrt`."""
        return self._host_hyper("learning_rate_power", dtype) == -0.5

    @staticmethod
    def _accum_pow(x: torch.Tensor, power: torch.Tensor, sqrt_power: bool) -> torch.Tensor:
        return _sqrt(x) if sqrt_power else torch.pow(x, -power)

    def _rule(self, c: dict, var: torch.Tensor, accum: torch.Tensor, linear: torch.Tensor,
              grad: torch.Tensor, sparse: bool = False, scalar_path: bool = False) -> tuple:
        lr, p = c["lr_t"], c["learning_rate_power"]
        l1 = c["l1_regularization_strength"]
        l2 = c["l2_regularization_strength"] + c["beta"] / (2.0 * lr)
        if self._l2_shrinkage_regularization_strength > 0.0:
            g_s = grad + 2 * c["l2_shrinkage_regularization_strength"] * var
        else:
            g_s = grad
        new_accum = accum + grad * grad
        sqrt_power = self._sqrt_power(var.dtype)
        sigma = (self._accum_pow(new_accum, p, sqrt_power) - self._accum_pow(accum, p, sqrt_power)) / lr
        if scalar_path:  # TF's sparse kernel on a rank-1 variable groups the sum differently
            linear = (linear + g_s) - sigma * var
        else:
            linear = linear + (g_s - sigma * var)
        quadratic = self._accum_pow(new_accum, p, sqrt_power) / lr + 2 * l2
        if sparse:  # TF's sparse kernel: std::max(std::min(linear, l1), -l1) (NaN stays NaN)
            clipped = torch.maximum(torch.minimum(linear, l1), -l1)
            return (clipped - linear) / quadratic, new_accum, linear
        new_var = torch.where(torch.abs(linear) > l1,
                              (l1 * torch.sign(linear) - linear) / quadratic,
                              torch.zeros((), dtype=var.dtype, device=var.device))
        return new_var, new_accum, linear

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        accum, linear = self.get_slot(var, "accumulator"), self.get_slot(var, "linear")
        new_var, new_accum, new_linear = self._rule(c, var.value(), accum.value(), linear.value(), grad)
        accum.assign(new_accum)
        linear.assign(new_linear)
        return var.assign(new_var)

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        accum, linear = self.get_slot(var, "accumulator"), self.get_slot(var, "linear")
        new_rows, acc_rows, lin_rows = self._rule(
            c, var.sparse_read(indices), accum.sparse_read(indices), linear.sparse_read(indices), grad,
            sparse=True, scalar_path=var.shape.rank == 1)
        accum.scatter_update(IndexedSlices(acc_rows, indices))
        linear.scatter_update(IndexedSlices(lin_rows, indices))
        return var.scatter_update(IndexedSlices(new_rows, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_coefficients(self, var_device: str, var_dtype: Any, step: Any) -> dict:
        dtype = var_dtype.as_torch
        c = step.apply_state((var_device, var_dtype))[(var_device, var_dtype)]
        shrinkage = (c["l2_shrinkage_regularization_strength"]
                     if self._l2_shrinkage_regularization_strength > 0.0 else None)
        return dict(c, l2_shrinkage=shrinkage, sqrt_power=self._sqrt_power(dtype))

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        ftrl(group.params(), grads, group.slot("accumulator"), group.slot("linear"), **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            self._hyper_config("learning_rate_power", "l1_regularization_strength",
                               "l2_regularization_strength", "beta"),
            initial_accumulator_value=self._initial_accumulator_value,
            l2_shrinkage_regularization_strength=self._l2_shrinkage_regularization_strength)
        return config
