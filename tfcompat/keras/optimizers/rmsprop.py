"""RMSprop, as tf_keras' legacy RMSprop.

Without momentum (TF's Python ops; epsilon outside the sqrt):

    rms = rho * rms + (1 - rho) * g * g
    mg = rho * mg + (1 - rho) * g;  denom = rms - mg * mg      (centered; else denom = rms)
    var = var - lr * g / (sqrt(denom) + epsilon)

With momentum (TF's fused kernels; epsilon *inside* the sqrt):

    rms = rms + (g * g - rms) * (1 - rho)
    mg = mg + (g - mg) * (1 - rho);  denom = rms - mg * mg + epsilon   (centered)
    denom = rms + epsilon                                             (otherwise)
    mom = mom * momentum + lr * g / sqrt(denom)
    var = var - mom

The sparse paths follow TF: without momentum `rms`/`mg` decay on every
row; with momentum only the touched rows change.

`rmsprop` is the functional core (plain tensor lists, no optimizer object):
torch has no fused RMSprop kernel, so it is TF's operations with `_foreach_*`
ops, each rounded to the dtype.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import errors
from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2
from ...ops import exact_math

__all__ = ["RMSprop", "RMSProp", "rmsprop"]


def rmsprop(params: list, grads: list, rms: list, mg: Optional[list], momentum_buffers: Optional[list], *,
            lr_t: torch.Tensor, rho: torch.Tensor, one_minus_rho: torch.Tensor, momentum: torch.Tensor,
            epsilon: torch.Tensor, **unused: Any) -> None:
    """One tf_keras RMSprop step over tensors of one device and dtype, in place.

    `mg` is the centered slot (None if not centered), `momentum_buffers` the
    momentum slot (None without momentum: TF's Python-op rule, epsilon outside
    the square root; with it, TF's kernel, epsilon inside). The coefficients
    are 0-d tensors of the dtype (TF's `apply_state` entries); other entries
    are ignored.
    """
    squares = torch._foreach_mul(grads, grads)
    if momentum_buffers is not None:
        torch._foreach_sub_(squares, rms)
        torch._foreach_mul_(squares, one_minus_rho)
        torch._foreach_add_(rms, squares)                  # rms += (g * g - rms) * (1 - rho)
        if mg is not None:
            diff = torch._foreach_sub(grads, mg)
            torch._foreach_mul_(diff, one_minus_rho)
            torch._foreach_add_(mg, diff)                  # mg += (g - mg) * (1 - rho)
            denom = torch._foreach_mul(mg, mg)
            torch._foreach_sub_(denom, rms)
            torch._foreach_neg_(denom)                     # rms - mg * mg (exactly)
            multi_tensor.add_scalar_(denom, epsilon)
        else:
            denom = multi_tensor.add_scalar(rms, epsilon)
        exact_math.foreach_sqrt_(denom)
        step = torch._foreach_mul(grads, lr_t)
        torch._foreach_div_(step, denom)                   # g * lr / sqrt(denom)
        torch._foreach_mul_(momentum_buffers, momentum)
        torch._foreach_add_(momentum_buffers, step)
        torch._foreach_sub_(params, momentum_buffers)
        return
    torch._foreach_mul_(rms, rho)
    torch._foreach_mul_(squares, one_minus_rho)
    torch._foreach_add_(rms, squares)                      # rho * rms + (1 - rho) * g * g
    if mg is not None:
        torch._foreach_mul_(mg, rho)
        torch._foreach_add_(mg, torch._foreach_mul(grads, one_minus_rho))
        denom = torch._foreach_mul(mg, mg)
        torch._foreach_sub_(denom, rms)
        torch._foreach_neg_(denom)                         # rms - mg * mg
        exact_math.foreach_sqrt_(denom)
    else:
        denom = exact_math.foreach_sqrt(rms)
    multi_tensor.add_scalar_(denom, epsilon)
    step = torch._foreach_mul(grads, lr_t)
    torch._foreach_div_(step, denom)
    torch._foreach_sub_(params, step)


class RMSprop(OptimizerV2):
    """The RMSprop optimizer (`tf.keras.optimizers.RMSprop`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting epsilon to an integer variable's dtype (TypeError), and in a
    # kernel for a bool variable.
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": errors.InvalidArgumentError}

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Optional[float] = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = (isinstance(momentum, torch.Tensor) or callable(momentum)
                          or momentum > 0)
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} "
                             f"(of type {type(momentum)}).")
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or 1e-7
        self.centered = centered

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        rho = self._get_hyper("rho", var_dtype)
        lr_t = c["lr_t"]
        c.update(epsilon=self._epsilon(var_dtype), rho=rho, momentum=self._get_hyper("momentum", var_dtype),
                 one_minus_rho=1.0 - rho, neg_lr_t=-lr_t)

    def set_weights(self, weights: list) -> None:
        if len(self.weights) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr, rho, omr, eps = c["lr_t"], c["rho"], c["one_minus_rho"], c["epsilon"]
        rms = self.get_slot(var, "rms")
        if self._momentum:
            ms = rms.value()
            ms = rms.assign(ms + (grad * grad - ms) * omr).value()
            if self.centered:
                mg = self.get_slot(var, "mg")
                mg_t = mg.value()
                mg_t = mg.assign(mg_t + (grad - mg_t) * omr).value()
                denom = (ms - mg_t * mg_t) + eps
            else:
                denom = ms + eps
            mom = self.get_slot(var, "momentum")
            mom_t = mom.assign(mom.value() * c["momentum"] + lr * grad / exact_math.sqrt(denom)).value()
            return var.assign_sub(mom_t)
        rms_t = rms.assign(rho * rms.value() + omr * (grad * grad)).value()
        denom = rms_t
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = mg.assign(rho * mg.value() + omr * grad).value()
            denom = rms_t - mg_t * mg_t
        return var.assign(var.value() - lr * grad / (exact_math.sqrt(denom) + eps))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr, rho, omr, eps = c["lr_t"], c["rho"], c["one_minus_rho"], c["epsilon"]
        rms = self.get_slot(var, "rms")
        if self._momentum:
            ms_rows = rms.sparse_read(indices) * rho + grad * grad * omr
            rms.scatter_update(IndexedSlices(ms_rows, indices))
            if self.centered:
                mg = self.get_slot(var, "mg")
                mg_rows = mg.sparse_read(indices) * rho + grad * omr
                mg.scatter_update(IndexedSlices(mg_rows, indices))
                denom = (ms_rows + eps) - mg_rows * mg_rows
            else:
                denom = ms_rows + eps
            mom = self.get_slot(var, "momentum")
            mom_rows = mom.sparse_read(indices) * c["momentum"] + torch.rsqrt(denom) * lr * grad
            mom.scatter_update(IndexedSlices(mom_rows, indices))
            return var.scatter_sub(IndexedSlices(mom_rows, indices))
        rms.assign(rms.value() * rho)
        self._resource_scatter_add(rms, indices, grad * grad * omr)
        denom = rms.sparse_read(indices)  # (TF's tf.gather: zeros for a row out of range on a GPU)
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg.assign(mg.value() * rho)
            self._resource_scatter_add(mg, indices, grad * omr)
            mg_rows = mg.sparse_read(indices)
            denom = denom - mg_rows * mg_rows
        return var.scatter_add(IndexedSlices(c["neg_lr_t"] * grad / (exact_math.sqrt(denom) + eps), indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        rmsprop(group.params(), grads, group.slot("rms"), group.slot("mg") if self.centered else None,
                group.slot("momentum") if self._momentum else None, **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("rho", "momentum"), epsilon=self.epsilon, centered=self.centered)
        return config


RMSProp = RMSprop
