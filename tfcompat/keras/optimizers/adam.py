"""Adam (and AMSGrad), as tf_keras' legacy Adam.

With `t = iterations + 1`, `b1p = beta_1 ** t`, `b2p = beta_2 ** t`:

    alpha = lr * sqrt(1 - b2p) / (1 - b1p)
    m = m + (g - m) * (1 - beta_1)
    v = v + (g * g - v) * (1 - beta_2)
    vhat = max(vhat, v)                                   (amsgrad; then v := vhat)
    var = var - m * alpha / (sqrt(v) + epsilon)

Epsilon is added *after* the bias correction is folded into the step size,
unlike `torch.optim.Adam` (`sqrt(v / (1 - b2p)) + eps`). The two agree when
torch's epsilon is `epsilon / sqrt(1 - b2p)`, so the multi-tensor path runs
torch's fused Adam kernel with that epsilon (a host float: the step count is
mirrored on the host, see `multi_tensor.HostScalars`).

The sparse update is not lazy: it decays all of `m` and `v` and updates
every row of the variable, as tf_keras does.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Optional

import torch

from ...framework import device as device_lib
from . import multi_tensor
from .optimizer_v2 import OptimizerV2

__all__ = ["Adam"]


class Adam(OptimizerV2):
    """The Adam optimizer (`tf.keras.optimizers.Adam`)."""

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

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        # The per-variable rules read these; the fused kernel needs only lr_t.
        c.defer(functools.partial(self._bias_correction, var_device, var_dtype, c["lr_t"]))

    def _bias_correction(self, var_device: str, var_dtype: Any, lr_t: torch.Tensor) -> dict:
        with device_lib.device(var_device):
            local_step = self._local_step(var_dtype)
            beta_1_t = self._get_hyper("beta_1", var_dtype)
            beta_2_t = self._get_hyper("beta_2", var_dtype)
            beta_1_power = torch.pow(beta_1_t, local_step)
            beta_2_power = torch.pow(beta_2_t, local_step)
            return dict(
                lr=lr_t * (torch.sqrt(1 - beta_2_power) / (1 - beta_1_power)),
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
        alpha = c["lr_t"] * torch.sqrt(1 - c["beta_2_power"]) / (1 - c["beta_1_power"])
        m_t = m.value()
        m.assign(m_t + (grad - m_t) * c["one_minus_beta_1_t"])
        v_t = v.value()
        v.assign(v_t + (grad * grad - v_t) * c["one_minus_beta_2_t"])
        denom_src = v
        if self.amsgrad:
            vhat = self.get_slot(var, "vhat")
            vhat.assign(torch.maximum(vhat.value(), v.value()))
            denom_src = vhat
        return var.assign_sub(m.value() * alpha / (torch.sqrt(denom_src.value()) + c["epsilon"]))

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
        return var.assign_sub(c["lr"] * m_t / (torch.sqrt(v_t) + c["epsilon"]))

    # -- multi-tensor path -----------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, coefficients: dict) -> None:
        dtype = group.dtype
        t = self._host_step() + 1
        beta_1 = self._host_hyper("beta_1", dtype)
        beta_2 = self._host_hyper("beta_2", dtype)
        params, grads = group.params(), group.grads
        m, v = group.slot("m"), group.slot("v")
        vhat = group.slot("vhat") if self.amsgrad else []
        lr = coefficients["lr_t"]
        if group.has_fused("adam") and beta_2 < 1.0:
            eps = multi_tensor.host_value(self.epsilon, dtype) / math.sqrt(1.0 - beta_2 ** t)
            step = self._device_step(group.device, t)
            torch._fused_adam_(params, grads, m, v, vhat, [step] * len(params),
                               lr=lr.to(torch.float32) if lr.dtype is not torch.float64 else lr,
                               beta1=beta_1, beta2=beta_2, weight_decay=0.0, eps=eps,
                               amsgrad=self.amsgrad, maximize=False)
            return
        torch._foreach_lerp_(m, grads, multi_tensor.one_minus(beta_1, dtype))
        torch._foreach_lerp_(v, torch._foreach_mul(grads, grads), multi_tensor.one_minus(beta_2, dtype))
        denom_src = v
        if self.amsgrad:
            torch._foreach_maximum_(vhat, v)
            denom_src = vhat
        alpha = lr * torch.sqrt(1 - coefficients["beta_2_power"]) / (1 - coefficients["beta_1_power"])
        denom = torch._foreach_sqrt(denom_src)
        torch._foreach_add_(denom, coefficients["epsilon"])
        update = torch._foreach_mul(m, alpha)
        torch._foreach_div_(update, denom)
        torch._foreach_sub_(params, update)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("beta_1", "beta_2"), epsilon=self.epsilon, amsgrad=self.amsgrad)
        return config
