"""FTRL-proximal, as tf_keras' legacy Ftrl (TF's `ApplyFtrl`/`ApplyFtrlV2` kernels).

With `p = learning_rate_power`, `l2' = l2 + beta / (2 * lr)` and, when
`l2_shrinkage > 0`, `g_s = g + 2 * l2_shrinkage * var` (else `g_s = g`):

    new_accum = accum + g * g                  (the plain gradient, not g_s)
    sigma = (new_accum ** -p - accum ** -p) / lr
    linear = linear + g_s - sigma * var
    quadratic = new_accum ** -p / lr + 2 * l2'
    var = (sign(linear) * l1 - linear) / quadratic   if |linear| > l1 else 0
    accum = new_accum

(`x ** -p` is computed as `sqrt(x)` for the default p = -0.5, as TF does.)
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import device as device_lib
from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2, _cast

__all__ = ["Ftrl"]


def _sqrt(x: torch.Tensor) -> torch.Tensor:
    """A correctly rounded square root.

    torch's CPU float32 `sqrt` is off by one ulp for about a fifth of inputs;
    FTRL's `sqrt(acc + g * g) - sqrt(acc)` cancels and magnifies that. The
    square root of the float64 value, rounded back, is exact.
    """
    if x.dtype in (torch.float16, torch.bfloat16, torch.float32):
        return torch.sqrt(x.double()).to(x.dtype)
    return torch.sqrt(x)


class Ftrl(OptimizerV2):
    """The FTRL-proximal optimizer (`tf.keras.optimizers.Ftrl`)."""

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
              grad: torch.Tensor, scalar_path: bool = False) -> tuple:
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
            scalar_path=var.shape.rank == 1)
        accum.scatter_update(IndexedSlices(acc_rows, indices))
        linear.scatter_update(IndexedSlices(lin_rows, indices))
        return var.scatter_update(IndexedSlices(new_rows, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, coefficients: dict) -> None:
        c = coefficients
        params, grads = group.params(), group.grads
        accums, linears = group.slot("accumulator"), group.slot("linear")
        lr = c["lr_t"]
        l1 = self._host_hyper("l1_regularization_strength", group.dtype)
        l2 = c["l2_regularization_strength"] + c["beta"] / (2.0 * lr)
        sqrt_power = self._sqrt_power(group.dtype)
        neg_p = -c["learning_rate_power"]

        def accum_pow(xs: list) -> list:
            return [_sqrt(x) for x in xs] if sqrt_power else torch._foreach_pow(xs, neg_p)

        if self._l2_shrinkage_regularization_strength > 0.0:
            g_s = torch._foreach_mul(params, 2 * c["l2_shrinkage_regularization_strength"])
            torch._foreach_add_(g_s, grads)
        else:
            g_s = grads
        old_pow = accum_pow(accums)
        torch._foreach_addcmul_(accums, grads, grads)
        new_pow = accum_pow(accums)
        sigma = torch._foreach_sub(new_pow, old_pow)
        torch._foreach_div_(sigma, lr)
        torch._foreach_mul_(sigma, params)
        inc = torch._foreach_sub(g_s, sigma)
        torch._foreach_add_(linears, inc)
        torch._foreach_div_(new_pow, lr)
        torch._foreach_add_(new_pow, 2 * l2)  # quadratic
        # (clip(linear, -l1, l1) - linear) / quadratic is (sign(linear) * l1 - linear) /
        # quadratic where |linear| > l1 and exactly 0 elsewhere: TF's rule, branch-free.
        new_params = torch._foreach_clamp_min(linears, -l1)
        torch._foreach_clamp_max_(new_params, l1)
        torch._foreach_sub_(new_params, linears)
        torch._foreach_div_(new_params, new_pow)
        torch._foreach_copy_(params, new_params)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            self._hyper_config("learning_rate_power", "l1_regularization_strength",
                               "l2_regularization_strength", "beta"),
            initial_accumulator_value=self._initial_accumulator_value,
            l2_shrinkage_regularization_strength=self._l2_shrinkage_regularization_strength)
        return config
