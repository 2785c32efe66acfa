"""Adadelta, as tf_keras' legacy Adadelta (TF's `ApplyAdadelta` kernel).

    accum_grad = accum_grad * rho + g * g * (1 - rho)
    update = sqrt(accum_var + epsilon) * (1 / sqrt(accum_grad + epsilon)) * g
    accum_var = accum_var * rho + update * update * (1 - rho)
    var = var - update * lr
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2

__all__ = ["Adadelta"]


class Adadelta(OptimizerV2):
    """The Adadelta optimizer (`tf.keras.optimizers.Adadelta`)."""

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Optional[float] = 1e-7,
                 name: str = "Adadelta", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or 1e-7

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        rho = self._get_hyper("rho", var_dtype)
        c.update(epsilon=self._epsilon(var_dtype), rho=rho, one_minus_rho=1 - rho)

    def set_weights(self, weights: list) -> None:
        if len(self.weights) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    def _rule(self, c: dict, var_rows: torch.Tensor, accum: torch.Tensor, accum_update: torch.Tensor,
              grad: torch.Tensor) -> tuple:
        rho, omr, eps = c["rho"], c["one_minus_rho"], c["epsilon"]
        accum = accum * rho + grad * grad * omr
        update = torch.sqrt(accum_update + eps) * (1 / torch.sqrt(accum + eps)) * grad
        accum_update = accum_update * rho + update * update * omr
        return var_rows - update * c["lr_t"], accum, accum_update

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        ag, av = self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var")
        new_var, acc, upd = self._rule(c, var.value(), ag.value(), av.value(), grad)
        ag.assign(acc)
        av.assign(upd)
        return var.assign(new_var)

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        ag, av = self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var")
        new_rows, acc, upd = self._rule(c, var.sparse_read(indices), ag.sparse_read(indices),
                                        av.sparse_read(indices), grad)
        ag.scatter_update(IndexedSlices(acc, indices))
        av.scatter_update(IndexedSlices(upd, indices))
        return var.scatter_update(IndexedSlices(new_rows, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, coefficients: dict) -> None:
        params, grads = group.params(), group.grads
        rho, omr, eps = coefficients["rho"], coefficients["one_minus_rho"], coefficients["epsilon"]
        accum, accum_update = group.slot("accum_grad"), group.slot("accum_var")
        torch._foreach_mul_(accum, rho)
        squares = torch._foreach_mul(grads, grads)
        torch._foreach_mul_(squares, omr)
        torch._foreach_add_(accum, squares)
        update = torch._foreach_add(accum_update, eps)
        torch._foreach_sqrt_(update)
        inv = torch._foreach_add(accum, eps)
        torch._foreach_sqrt_(inv)
        torch._foreach_reciprocal_(inv)
        torch._foreach_mul_(update, inv)
        torch._foreach_mul_(update, grads)
        torch._foreach_mul_(accum_update, rho)
        sq_update = torch._foreach_mul(update, update)
        torch._foreach_mul_(sq_update, omr)
        torch._foreach_add_(accum_update, sq_update)
        torch._foreach_mul_(update, coefficients["lr_t"])
        torch._foreach_sub_(params, update)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("rho"), epsilon=self.epsilon)
        return config
