"""Adadelta, as tf_keras' legacy Adadelta (TF's `ApplyAdadelta` kernel).

    accum_grad = accum_grad * rho + g * g * (1 - rho)
    update = sqrt(accum_var + epsilon) * (1 / sqrt(accum_grad + epsilon)) * g
    accum_var = accum_var * rho + update * update * (1 - rho)
    var = var - update * lr

`adadelta` is the functional core (plain tensor lists, no optimizer object):
torch has no fused Adadelta kernel, so it is TF's operations with
`_foreach_*` ops, each rounded to the dtype.

TF's kernel takes `rsqrt(accum_grad + epsilon)`, and in half precision Eigen
evaluates it two ways (see `eigen_rsqrt`): the reference and multi-tensor
paths both reproduce that.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2
from ...ops import exact_math

__all__ = ["Adadelta", "adadelta", "eigen_rsqrt"]

# Eigen's packet size for Eigen::half / Eigen::bfloat16 in TF's CPU kernels (AVX: 8 lanes).
_HALF_PACKET = 8


def eigen_rsqrt(x: torch.Tensor, row: int) -> torch.Tensor:
    """`x.rsqrt()` of a TF Eigen expression evaluated over rows of `row` elements of `x`.

    float32/float64: `1 / sqrt(x)` (TF's float32 packet rsqrt is an
    approximation with a CPU-dependent last bit: no exact replay exists).
    Half precision: Eigen evaluates each row (the whole flattened tensor of a
    dense kernel, one gradient row of a sparse one) in packets of 8 lanes,
    computing a packet's rsqrt in float32 and rounding once, and the
    elements past the last whole packet one at a time, as
    `half(1 / half(sqrt(x)))`.
    """
    if x.dtype not in multi_tensor.HALF_DTYPES:
        return 1 / exact_math.sqrt(x)
    whole = (row // _HALF_PACKET) * _HALF_PACKET
    scalar = 1 / exact_math.sqrt(x)
    if whole == 0 or x.numel() == 0:
        return scalar
    rows = x.reshape(-1, row)
    packed = torch.rsqrt(rows[:, :whole].double()).float().to(x.dtype)
    return torch.cat([packed, scalar.reshape(-1, row)[:, whole:]], dim=1).reshape(x.shape)


def adadelta(params: list, grads: list, accum_grad: list, accum_var: list, *, lr_t: torch.Tensor,
             rho: torch.Tensor, one_minus_rho: torch.Tensor, epsilon: torch.Tensor, **unused: Any) -> None:
    """One tf_keras Adadelta step over tensors of one device and dtype, in place.

    The coefficients are 0-d tensors of the dtype (TF's `apply_state`
    entries); other entries are ignored.
    """
    torch._foreach_mul_(accum_grad, rho)
    squares = torch._foreach_mul(grads, grads)
    torch._foreach_mul_(squares, one_minus_rho)
    torch._foreach_add_(accum_grad, squares)              # accum * rho + g * g * (1 - rho)
    update = multi_tensor.add_scalar(accum_var, epsilon)
    exact_math.foreach_sqrt_(update)
    inv = multi_tensor.add_scalar(accum_grad, epsilon)
    if accum_grad[0].dtype in multi_tensor.HALF_DTYPES:
        inv = [eigen_rsqrt(t, t.numel()) for t in inv]
    else:
        exact_math.foreach_sqrt_(inv)
        torch._foreach_reciprocal_(inv)
    torch._foreach_mul_(update, inv)
    torch._foreach_mul_(update, grads)                    # sqrt(accum_var + eps) / sqrt(accum + eps) * g
    torch._foreach_mul_(accum_var, rho)
    sq_update = torch._foreach_mul(update, update)
    torch._foreach_mul_(sq_update, one_minus_rho)
    torch._foreach_add_(accum_var, sq_update)             # accum_var * rho + update ** 2 * (1 - rho)
    torch._foreach_mul_(update, lr_t)
    torch._foreach_sub_(params, update)


class Adadelta(OptimizerV2):
    """The Adadelta optimizer (`tf.keras.optimizers.Adadelta`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting epsilon to an integer variable's dtype (TypeError).
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": TypeError}

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
              grad: torch.Tensor, row: int) -> tuple:
        rho, omr, eps = c["rho"], c["one_minus_rho"], c["epsilon"]
        accum = accum * rho + grad * grad * omr
        update = exact_math.sqrt(accum_update + eps) * eigen_rsqrt(accum + eps, row) * grad
        accum_update = accum_update * rho + update * update * omr
        return var_rows - update * c["lr_t"], accum, accum_update

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        ag, av = self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var")
        new_var, acc, upd = self._rule(c, var.value(), ag.value(), av.value(), grad, max(grad.numel(), 1))
        ag.assign(acc)
        av.assign(upd)
        return var.assign(new_var)

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        ag, av = self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var")
        row = max(math.prod(grad.shape[1:]), 1)  # TF's kernel evaluates one gradient row at a time
        new_rows, acc, upd = self._rule(c, var.sparse_read(indices), ag.sparse_read(indices),
                                        av.sparse_read(indices), grad, row)
        ag.scatter_update(IndexedSlices(acc, indices))
        av.scatter_update(IndexedSlices(upd, indices))
        return var.scatter_update(IndexedSlices(new_rows, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        adadelta(group.params(), grads, group.slot("accum_grad"), group.slot("accum_var"), **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("rho"), epsilon=self.epsilon)
        return config
