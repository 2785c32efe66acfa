"""SGD with optional (Nesterov) momentum, as tf_keras' legacy SGD.

    plain:     var = var - g * lr
    momentum:  accum = accum * momentum - g * lr
               var = var + accum                        (nesterov: var + accum * momentum - g * lr)

The learning rate lives inside Keras' accumulator (unlike `torch.optim.SGD`,
which applies it after the buffer), so the `momentum` slot holds TF's
values and a changing learning rate affects the step exactly as in TF.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2

__all__ = ["SGD"]


class SGD(OptimizerV2):
    """Gradient descent with momentum (`tf.keras.optimizers.SGD`)."""

    def __init__(self, learning_rate: Any = 0.01, momentum: Any = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = (isinstance(momentum, torch.Tensor) or callable(momentum)
                          or momentum > 0)
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} "
                             f"(of type {type(momentum)}).")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list: list) -> None:
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = self._get_hyper("momentum", var_dtype)

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr = c["lr_t"]
        if not self._momentum:
            return var.assign_sub(grad * lr)
        accum = self.get_slot(var, "momentum")
        accum_t = accum.value() * c["momentum"] - grad * lr
        accum.assign(accum_t)
        if self.nesterov:
            return var.assign_add(accum_t * c["momentum"] - grad * lr)
        return var.assign_add(accum_t)

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, var: Any,
                                                 indices: torch.Tensor, **kwargs: Any) -> Any:
        if self._momentum:
            return super()._resource_apply_sparse_duplicate_indices(grad, var, indices, **kwargs)
        c = self._coefficients(var, kwargs.get("apply_state"))
        # Plain SGD scatter-adds each row: duplicate indices simply accumulate.
        return var.scatter_add(IndexedSlices(-grad * c["lr_t"], indices))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr, momentum = c["lr_t"], c["momentum"]
        accum = self.get_slot(var, "momentum")
        accum_rows = accum.sparse_read(indices) * momentum - grad * lr
        accum.scatter_update(IndexedSlices(accum_rows, indices))
        step = accum_rows * momentum - grad * lr if self.nesterov else accum_rows
        return var.scatter_add(IndexedSlices(step, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, coefficients: dict) -> None:
        params, grads = group.params(), group.grads
        lr = coefficients["lr_t"]
        fused = group.has_fused("sgd")
        if not self._momentum:
            if fused:  # var -= g * lr, one kernel, no temporaries
                torch._fused_sgd_(params, grads, [], weight_decay=0.0, momentum=0.0, lr=lr,
                                  dampening=0.0, nesterov=False, maximize=False, is_first_step=False)
            else:
                torch._foreach_add_(params, torch._foreach_mul(grads, -lr))
            return
        accums = group.slot("momentum")
        momentum = self._host_hyper("momentum", group.dtype)
        host_lr = self._host_lr(group.dtype)
        # torch's fused SGD: buf = m * buf + (1 - dampening) * g; var -= lr' * buf (nesterov:
        # var -= lr' * (g + m * buf)). Keras keeps lr inside its accumulator:
        # accum = m * accum - lr * g; var += accum. So dampening = 1 + lr and lr' = -1 give
        # Keras' rule on Keras' slot in one pass when lr is known on the host; otherwise
        # (nesterov, schedules, decay) the gradient is pre-scaled by -lr.
        # (torch's fused kernel treats momentum 0 as "no buffers": a momentum set to 0 after
        # the slots exist takes the foreach path.)
        if momentum != 0.0 and fused:
            if host_lr is not None and not self.nesterov:
                torch._fused_sgd_(params, grads, accums, weight_decay=0.0, momentum=momentum,
                                  lr=-1.0, dampening=1.0 + host_lr, nesterov=False, maximize=False,
                                  is_first_step=False)
            else:
                torch._fused_sgd_(params, torch._foreach_mul(grads, -lr), accums, weight_decay=0.0,
                                  momentum=momentum, lr=-1.0, dampening=0.0, nesterov=self.nesterov,
                                  maximize=False, is_first_step=False)
            return
        scaled = torch._foreach_mul(grads, -lr)
        torch._foreach_mul_(accums, momentum)
        torch._foreach_add_(accums, scaled)
        if self.nesterov:
            torch._foreach_add_(params, torch._foreach_mul(accums, momentum))
            torch._foreach_add_(params, scaled)
        else:
            torch._foreach_add_(params, accums)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("momentum"), nesterov=self.nesterov)
        return config
