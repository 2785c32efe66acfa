"""Adamax (Adam with the infinity norm), as tf_keras' legacy Adamax.

    m = m + (g - m) * (1 - beta_1)
    v = max(beta_2 * v, |g|)          (dense: Eigen's cwiseMax, a NaN |g| keeps beta_2 * v;
                                       sparse: tf.maximum, NaN propagates)
    var = var - lr / (1 - beta_1 ** t) * (m / (v + epsilon))

Sparse updates touch only the gradient's rows (`m`, `v` and `var`).

`adamax` is the functional core (plain tensor lists, no optimizer object):
torch has no fused Adamax kernel, so it is TF's operations with `_foreach_*`
ops, each rounded to the dtype.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import errors
from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2

__all__ = ["Adamax", "adamax"]


def adamax(params: list, grads: list, m: list, v: list, *, lr_t: torch.Tensor, beta_1_power: torch.Tensor,
           one_minus_beta_1_t: torch.Tensor, beta_2_t: torch.Tensor, epsilon: torch.Tensor,
           **unused: Any) -> None:
    """One tf_keras Adamax step over tensors of one device and dtype, in place.

    The coefficients are 0-d tensors of the dtype (TF's `apply_state`
    entries); other entries are ignored.
    """
    diff = torch._foreach_sub(grads, m)
    torch._foreach_mul_(diff, one_minus_beta_1_t)
    torch._foreach_add_(m, diff)                          # m += (g - m) * (1 - beta_1)
    torch._foreach_mul_(v, beta_2_t)
    multi_tensor.cwise_max_(v, torch._foreach_abs(grads))  # (beta_2 * v).cwiseMax(|g|)
    denom = multi_tensor.add_scalar(v, epsilon)
    step = torch._foreach_div(m, denom)                   # m / (v + epsilon)
    torch._foreach_mul_(step, lr_t / (1 - beta_1_power))  # lr / (1 - beta_1 ** t) * ...
    torch._foreach_sub_(params, step)


class Adamax(OptimizerV2):
    """The Adamax optimizer (`tf.keras.optimizers.Adamax`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting epsilon to an integer variable's dtype (TypeError), and in a
    # kernel for a bool variable.
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": errors.InvalidArgumentError}

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Optional[float] = 1e-7, name: str = "Adamax", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or 1e-7

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        local_step = self._local_step(var_dtype)
        beta_1_t = self._get_hyper("beta_1", var_dtype)
        beta_1_power = torch.pow(beta_1_t, local_step)
        lr_t = c["lr_t"]
        c.update(epsilon=self._epsilon(var_dtype), beta_1_t=beta_1_t, beta_1_power=beta_1_power,
                 beta_2_t=self._get_hyper("beta_2", var_dtype), one_minus_beta_1_t=1 - beta_1_t,
                 neg_scaled_lr=-lr_t / (1 - beta_1_power))

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = m.value()
        m_t = m.assign(m_t + (grad - m_t) * c["one_minus_beta_1_t"]).value()
        v_t = v.assign(multi_tensor.cwise_max(c["beta_2_t"] * v.value(), torch.abs(grad))).value()
        return var.assign_sub(c["lr_t"] / (1 - c["beta_1_power"]) * (m_t / (v_t + c["epsilon"])))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_rows = m.sparse_read(indices) * c["beta_1_t"] + grad * c["one_minus_beta_1_t"]
        m.scatter_update(IndexedSlices(m_rows, indices))
        v_rows = torch.maximum(v.sparse_read(indices) * c["beta_2_t"], torch.abs(grad))
        v.scatter_update(IndexedSlices(v_rows, indices))
        return var.scatter_add(IndexedSlices(c["neg_scaled_lr"] * (m_rows / (v_rows + c["epsilon"])),
                                             indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        adamax(group.params(), grads, group.slot("m"), group.slot("v"), **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("beta_1", "beta_2"), epsilon=self.epsilon)
        return config
