"""Adagrad, as tf_keras' legacy Adagrad (TF's `ApplyAdagradV2` kernel).

    accum = accum + g * g                  (accum starts at initial_accumulator_value)
    var = var - g * lr / (sqrt(accum) + epsilon)

This is also `torch.optim.Adagrad`'s rule with `lr_decay=0`. `adagrad` is the
functional core (plain tensor lists, no optimizer object): torch's fused
Adagrad kernel where it exists (CPU, float32/float64), else TF's operations
with `_foreach_*` ops.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework import device as device_lib
from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2
from ...ops import exact_math

__all__ = ["Adagrad", "adagrad"]


def adagrad(params: list, grads: list, accumulators: list, *, lr: torch.Tensor, epsilon: float,
            implementation: str = "foreach") -> None:
    """One tf_keras Adagrad step over tensors of one device and dtype, in place.

    `lr` is the step's learning rate as a 0-d tensor of the dtype, `epsilon`
    a Python float already rounded to it. `implementation` is "foreach"
    (TF's operations in TF's order, each rounded to the dtype: exact for half
    precision) or "fused" (torch's CPU `_fused_adagrad_`, float32/float64,
    one pass; its fused multiply-add may round the accumulator one ulp off
    TF's). torch's `lr / (1 + (step - 1) * lr_decay)` is `lr` for
    `lr_decay = 0`, whatever the step.
    """
    if implementation == "fused":
        one = multi_tensor.scalar(1.0, torch.float32, params[0].device)  # read only
        torch._fused_adagrad_(params, grads, accumulators, [one] * len(params), lr=lr, lr_decay=0.0,
                              weight_decay=0.0, eps=epsilon, maximize=False)
        return
    torch._foreach_add_(accumulators, torch._foreach_mul(grads, grads))   # accum += g * g
    denom = exact_math.foreach_sqrt(accumulators)
    torch._foreach_add_(denom, epsilon)                                   # sqrt(accum) + epsilon
    update = torch._foreach_mul(grads, lr)                                # g * lr
    torch._foreach_div_(update, denom)
    torch._foreach_sub_(params, update)


class Adagrad(OptimizerV2):
    """The Adagrad optimizer (`tf.keras.optimizers.Adagrad`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting the initial accumulator to an integer variable's dtype (TypeError).
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": TypeError}

    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: Optional[float] = 1e-7, name: str = "Adagrad", **kwargs: Any) -> None:
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value must be non-negative: "
                             f"{initial_accumulator_value}")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or 1e-7

    def _create_slots(self, var_list: list) -> None:
        for var in var_list:
            value = self._initial_accumulator_value
            self.add_slot(var, "accumulator",
                          lambda shape, dtype, value=value: torch.full(
                              shape, value, dtype=dtype.as_torch,
                              device=device_lib.current_torch_device()))

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["epsilon"] = self._epsilon(var_dtype)

    def set_weights(self, weights: list) -> None:
        # Accept weights saved without the iteration count.
        if len(self.weights) == len(weights) + 1:
            weights = [0] + list(weights)
        super().set_weights(weights)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Adagrad":
        config = dict(config)
        config.setdefault("initial_accumulator_value", 0.1)
        return super().from_config(config, custom_objects)

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        acc = self.get_slot(var, "accumulator")
        acc.assign_add(grad * grad)
        return var.assign_sub(grad * c["lr_t"] / (exact_math.sqrt(acc.value()) + c["epsilon"]))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        acc = self.get_slot(var, "accumulator")
        acc_rows = acc.sparse_read(indices) + grad * grad
        acc.scatter_update(IndexedSlices(acc_rows, indices))
        rows = var.sparse_read(indices) - c["lr_t"] * grad / (exact_math.sqrt(acc_rows) + c["epsilon"])
        return var.scatter_update(IndexedSlices(rows, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_coefficients(self, var_device: str, var_dtype: Any, step: Any) -> dict:
        return dict(lr=self._decayed_lr(var_dtype),
                    epsilon=multi_tensor.host_value(self.epsilon, var_dtype.as_torch))

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        adagrad(group.params(), grads, group.slot("accumulator"), implementation=group.kernel("adagrad"),
                **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config(), initial_accumulator_value=self._initial_accumulator_value,
                      epsilon=self.epsilon)
        return config
