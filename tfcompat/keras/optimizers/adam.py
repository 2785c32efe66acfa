"""Adam (and AMSGrad), as tf_keras' legacy Adam (TF's `ResourceApplyAdam` kernels).

With `t = iterations + 1`, `b1p = beta_1 ** t`, `b2p = beta_2 ** t`:

    alpha = lr * sqrt(1 - b2p) / (1 - b1p)
    m = m + (g - m) * (1 - beta_1)
    v = v + (g * g - v) * (1 - beta_2)
    vhat = max(vhat, v)                (amsgrad, Eigen's cwiseMax: a NaN v keeps vhat; then v := vhat)
    var = var - (m * alpha) / (sqrt(v) + epsilon)

Epsilon is added *after* the bias correction is folded into the step size,
unlike `torch.optim.Adam` (`sqrt(v / (1 - b2p)) + eps`).

`adam` is the functional core (plain tensor lists, no optimizer object).
Its fused implementation runs torch's fused Adam kernel with `lr = alpha` and
a step count of +inf: torch's bias corrections `1 - beta ** step` are then
exactly 1, so the kernel computes Keras' `var - alpha * m / (sqrt(v) + epsilon)`
with Keras' own epsilon. `alpha` is a device tensor computed by TF's scalar
ops; on the CPU (float32/float64, constant learning rate) the same operations
run on NumPy scalars instead (`OptimizerV2._host_step`: the same bits, fewer
Python-level ops; the powers come from torch's scalar `pow` in both). No step count is ever read from an accelerator.

The sparse update is not lazy: it decays all of `m` and `v` and updates
every row of the variable, as tf_keras does.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch

from . import multi_tensor
from .optimizer_v2 import OptimizerV2
from ...ops import exact_math

__all__ = ["Adam", "adam"]


def adam(params: list, grads: list, m: list, v: list, vhat: Optional[list], *, alpha: Any,
         beta_1: float, beta_2: float, epsilon: float, amsgrad: bool = False,
         implementation: str = "foreach") -> None:
    """One tf_keras Adam step over tensors of one device and dtype, in place.

    `m`, `v` (and `vhat` with `amsgrad`) are the slots; `alpha` is
    `lr * sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)`, a 0-d tensor of the
    dtype (or, float32/float64, a Python float holding a value of the dtype);
    `beta_1`, `beta_2`, `epsilon` are Python floats already rounded to
    the dtype. `implementation` is "foreach" (TF's operations in TF's order,
    each rounded to the dtype: exact for half precision) or "fused" (torch's
    `_fused_adam_`, float32/float64, one pass; its lerp and fused
    multiply-adds may round `m` and `v` one ulp off TF's). The fused kernel
    needs `0 <= beta_1, beta_2 < 1`; other values take the foreach path.
    """
    if implementation == "fused" and 0.0 <= beta_1 < 1.0 and 0.0 <= beta_2 < 1.0:
        never = multi_tensor.scalar(math.inf, torch.float32, params[0].device)  # read only
        torch._fused_adam_(params, grads, m, v, vhat if amsgrad else [], [never] * len(params), lr=alpha,
                           beta1=beta_1, beta2=beta_2, weight_decay=0.0, eps=epsilon, amsgrad=amsgrad,
                           maximize=False)
        return
    dtype = params[0].dtype
    diff = torch._foreach_sub(grads, m)                           # g - m
    torch._foreach_mul_(diff, multi_tensor.one_minus(beta_1, dtype))
    torch._foreach_add_(m, diff)                                  # m += (g - m) * (1 - beta_1)
    squares = torch._foreach_mul(grads, grads)
    torch._foreach_sub_(squares, v)                               # g * g - v
    torch._foreach_mul_(squares, multi_tensor.one_minus(beta_2, dtype))
    torch._foreach_add_(v, squares)                               # v += (g * g - v) * (1 - beta_2)
    denom_src = v
    if amsgrad:
        multi_tensor.cwise_max_(vhat, v)                          # vhat.cwiseMax(v)
        denom_src = vhat
    denom = exact_math.foreach_sqrt(denom_src)
    torch._foreach_add_(denom, epsilon)                           # sqrt(v) + epsilon
    update = torch._foreach_mul(m, alpha)                         # m * alpha
    torch._foreach_div_(update, denom)
    torch._foreach_sub_(params, update)


class Adam(OptimizerV2):
    """The Adam optimizer (`tf.keras.optimizers.Adam`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Optional[float] = 1e-7, amsgrad: bool = False, name: str = "Adam",
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or 1e-7
        self.amsgrad = amsgrad

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _powers(self, var_dtype: Any) -> tuple:
        """`(beta_1_t, beta_2_t, beta_1 ** t, beta_2 ** t)` in `var_dtype` (device tensors)."""
        local_step = self._local_step(var_dtype)
        beta_1_t = self._get_hyper("beta_1", var_dtype)
        beta_2_t = self._get_hyper("beta_2", var_dtype)
        return beta_1_t, beta_2_t, torch.pow(beta_1_t, local_step), torch.pow(beta_2_t, local_step)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        beta_1_t, beta_2_t, beta_1_power, beta_2_power = self._powers(var_dtype)
        c.update(lr=c["lr_t"] * (exact_math.sqrt(1 - beta_2_power) / (1 - beta_1_power)),
                 epsilon=self._epsilon(var_dtype),
                 beta_1_t=beta_1_t, beta_1_power=beta_1_power, one_minus_beta_1_t=1 - beta_1_t,
                 beta_2_t=beta_2_t, beta_2_power=beta_2_power, one_minus_beta_2_t=1 - beta_2_t)

    def set_weights(self, weights: list) -> None:
        # Accept weights saved from an amsgrad Adam (3 slots per variable).
        num_vars = int((len(self.weights) - 1) / 2)
        if len(weights) == 3 * num_vars + 1:
            weights = weights[:len(self.weights)]
        super().set_weights(weights)

    # -- reference path ----------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        alpha = c["lr_t"] * exact_math.sqrt(1 - c["beta_2_power"]) / (1 - c["beta_1_power"])
        m_t = m.value()
        m.assign(m_t + (grad - m_t) * c["one_minus_beta_1_t"])
        v_t = v.value()
        v.assign(v_t + (grad * grad - v_t) * c["one_minus_beta_2_t"])
        denom_src = v
        if self.amsgrad:
            vhat = self.get_slot(var, "vhat")
            vhat.assign(multi_tensor.cwise_max(vhat.value(), v.value()))  # the kernel's cwiseMax
            denom_src = vhat
        return var.assign_sub(m.value() * alpha / (exact_math.sqrt(denom_src.value()) + c["epsilon"]))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m = self.get_slot(var, "m")
        m.assign(m.value() * c["beta_1_t"])
        m_t = self._resource_scatter_add(m, indices, grad * c["one_minus_beta_1_t"])
        v = self.get_slot(var, "v")
        v.assign(v.value() * c["beta_2_t"])
        v_t = self._resource_scatter_add(v, indices, grad * grad * c["one_minus_beta_2_t"])
        if self.amsgrad:
            v_hat = self.get_slot(var, "vhat")
            v_hat.assign(torch.maximum(v_hat.value(), v_t))
            v_t = v_hat.value()
        return var.assign_sub(c["lr"] * m_t / (exact_math.sqrt(v_t) + c["epsilon"]))

    # -- multi-tensor path -----------------------------------------------------------
    def _multi_tensor_coefficients(self, var_device: str, var_dtype: Any, step: Any) -> dict:
        dtype = var_dtype.as_torch
        beta_1, beta_2 = self._host_hyper("beta_1", dtype), self._host_hyper("beta_2", dtype)
        epsilon = multi_tensor.host_value(self.epsilon, dtype)
        host = self._host_step(dtype)
        if host is not None:  # (the same operations as below, in NumPy scalars of the dtype)
            t, lr = host
            one = t.dtype.type(1)
            # `beta ** t` through torch's scalar `pow`, the device path's function: NumPy's
            # scalar power may bind another libm entry (seen 1 ulp apart on another CPU);
            # sqrt, subtraction and division are correctly rounded in both.
            power = self.__dict__.get("_host_pow")
            if power is None:  # (built on first use, outside attribute tracking)
                power = self.__dict__["_host_pow"] = multi_tensor.HostPow()
            b1p, b2p = (t.dtype.type(power(b, float(t), dtype)) for b in (beta_1, beta_2))
            with np.errstate(all="ignore"):
                alpha = lr * np.sqrt(one - b2p) / (one - b1p)
            return dict(alpha=float(alpha), beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)
        _, _, beta_1_power, beta_2_power = self._powers(var_dtype)
        # The dense kernel's step size, grouped as TF's kernel groups it (`1 - x` against a
        # cached one: the same rounding as the Python operators, without their wrappers).
        one = multi_tensor.scalar(1, dtype, beta_1_power.device)
        alpha = torch.div(torch.mul(self._decayed_lr(var_dtype),
                                    exact_math.sqrt(torch.sub(one, beta_2_power))),
                          torch.sub(one, beta_1_power))
        return dict(alpha=alpha, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        adam(group.params(), grads, group.slot("m"), group.slot("v"),
             group.slot("vhat") if self.amsgrad else None, amsgrad=self.amsgrad,
             implementation=group.kernel("adam"), **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("beta_1", "beta_2"), epsilon=self.epsilon, amsgrad=self.amsgrad)
        return config
