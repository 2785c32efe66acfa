"""Nadam (Adam with Nesterov momentum), as tf_keras' legacy Nadam.

With `t = iterations + 1` and `decay` = `schedule_decay` (0.004):

    mu_t  = beta_1 * (1 - 0.5 * 0.96 ** (decay * t))
    mu_t1 = beta_1 * (1 - 0.5 * 0.96 ** (decay * (t + 1)))
    m_schedule_new = momentum_cache * mu_t          (stored back into momentum_cache)
    m_schedule_next = m_schedule_new * mu_t1
    g' = g / (1 - m_schedule_new)
    m = beta_1 * m + (1 - beta_1) * g;   m' = m / (1 - m_schedule_next)
    v = beta_2 * v + (1 - beta_2) * g * g;   v' = v / (1 - beta_2 ** t)
    m_bar = (1 - mu_t) * g' + mu_t1 * m'
    var = var - lr * m_bar / (sqrt(v') + epsilon)

As in tf_keras, `decay` is the momentum schedule's decay, not an inverse-time
learning-rate decay, learning-rate schedules are rejected, and the
optimizer-level weight `momentum_cache` is created in the dtype of the first
variable it sees.

`nadam` is the functional core (plain tensor lists, no optimizer object):
torch has no fused kernel for this rule, so it is tf_keras' Python operations
with `_foreach_*` ops, each rounded to the dtype.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from ...variables import VariableAggregation
from . import multi_tensor, schedules
from .optimizer_v2 import OptimizerV2
from .weights import cast as _cast
from ...ops import exact_math

__all__ = ["Nadam", "nadam"]


def nadam(params: list, grads: list, m: list, v: list, *, lr_t: torch.Tensor, epsilon: torch.Tensor,
          beta_1_t: torch.Tensor, beta_2_t: torch.Tensor, m_t_1: torch.Tensor,
          one_minus_beta_1_t: torch.Tensor, one_minus_beta_2_t: torch.Tensor, one_minus_m_t: torch.Tensor,
          one_minus_m_schedule_new: torch.Tensor, one_minus_m_schedule_next: torch.Tensor,
          v_t_prime_denominator: torch.Tensor, **unused: Any) -> None:
    """One tf_keras Nadam step over tensors of one device and dtype, in place.

    The coefficients are 0-d tensors of the dtype (TF's `apply_state`
    entries, which also advance the momentum cache); other entries are ignored.
    """
    g_prime = torch._foreach_div(grads, one_minus_m_schedule_new)
    torch._foreach_mul_(m, beta_1_t)
    torch._foreach_add_(m, torch._foreach_mul(grads, one_minus_beta_1_t))   # beta_1 * m + (1 - beta_1) * g
    m_prime = torch._foreach_div(m, one_minus_m_schedule_next)
    torch._foreach_mul_(v, beta_2_t)
    squares = torch._foreach_mul(grads, grads)
    torch._foreach_mul_(squares, one_minus_beta_2_t)
    torch._foreach_add_(v, squares)                                         # beta_2 * v + (1 - beta_2) * g * g
    denom = torch._foreach_div(v, v_t_prime_denominator)
    exact_math.foreach_sqrt_(denom)
    multi_tensor.add_scalar_(denom, epsilon)
    torch._foreach_mul_(g_prime, one_minus_m_t)
    torch._foreach_mul_(m_prime, m_t_1)
    torch._foreach_add_(g_prime, m_prime)                                   # m_bar
    torch._foreach_mul_(g_prime, lr_t)
    torch._foreach_div_(g_prime, denom)
    torch._foreach_sub_(params, g_prime)


class Nadam(OptimizerV2):
    """The Nadam optimizer (`tf.keras.optimizers.Nadam`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    # TF fails converting the schedule decay to an integer variable's dtype (TypeError).
    _NON_FLOAT_ERRORS = {"int": TypeError, "bool": TypeError}

    def __init__(self, learning_rate: Any = 0.001, beta_1: Any = 0.9, beta_2: Any = 0.999,
                 epsilon: Optional[float] = 1e-7, name: str = "Nadam", **kwargs: Any) -> None:
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.get("lr", learning_rate)
        if isinstance(learning_rate, schedules.LearningRateSchedule):
            raise ValueError("The Nadam optimizer does not support "
                             "tf.keras.optimizers.LearningRateSchedules as the learning rate.")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or 1e-7
        self._m_cache = None
        self._m_cache_read = None

    def _create_slots(self, var_list: list) -> None:
        var_dtype = var_list[0].dtype
        if self._m_cache is None:
            self._m_cache = self.add_weight(
                "momentum_cache", shape=[], dtype=var_dtype, initializer="ones", trainable=False,
                aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            self._weights.append(self._m_cache)
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare(self, var_list: list, keys: Any = None) -> dict:
        self._m_cache_read = self._m_cache.value().clone()
        return super()._prepare(var_list, keys)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        lr_t = self._get_hyper("learning_rate", var_dtype)
        beta_1_t = self._get_hyper("beta_1", var_dtype)
        beta_2_t = self._get_hyper("beta_2", var_dtype)
        local_step = self._local_step(var_dtype)
        next_step = self._local_step(var_dtype, 2)
        decay_base = _cast(0.96, var_dtype)
        # TF converts the Python float to the step's dtype before multiplying (torch would
        # multiply by it in float32 and round once)
        decay = multi_tensor.scalar(self._initial_decay, var_dtype.as_torch, local_step.device)
        m_t = beta_1_t * (1.0 - 0.5 * torch.pow(decay_base, decay * local_step))
        m_t_1 = beta_1_t * (1.0 - 0.5 * torch.pow(decay_base, decay * next_step))
        m_schedule_new = _cast(self._m_cache_read, var_dtype) * m_t
        if var_dtype == self._m_cache.dtype:
            self._m_cache.assign(m_schedule_new)
        m_schedule_next = m_schedule_new * m_t_1
        apply_state[(var_device, var_dtype)] = dict(
            lr_t=lr_t, neg_lr_t=-lr_t, epsilon=self._epsilon(var_dtype),
            beta_1_t=beta_1_t, beta_2_t=beta_2_t, m_t_1=m_t_1,
            one_minus_beta_1_t=1 - beta_1_t, one_minus_beta_2_t=1 - beta_2_t,
            one_minus_m_t=1.0 - m_t, one_minus_m_schedule_new=1.0 - m_schedule_new,
            one_minus_m_schedule_next=1.0 - m_schedule_next,
            v_t_prime_denominator=1.0 - torch.pow(beta_2_t, local_step))

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = m.assign(c["beta_1_t"] * m.value() + c["one_minus_beta_1_t"] * grad).value()
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = v.assign(c["beta_2_t"] * v.value() + c["one_minus_beta_2_t"] * (grad * grad)).value()
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        return var.assign(var.value() - c["lr_t"] * m_t_bar / (exact_math.sqrt(v_t_prime) + c["epsilon"]))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m.assign(m.value() * c["beta_1_t"])
        self._resource_scatter_add(m, indices, grad * c["one_minus_beta_1_t"])
        m_rows = m.sparse_read(indices)  # (TF's tf.gather: zeros for a row out of range on a GPU)
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * (m_rows / c["one_minus_m_schedule_next"])
        v.assign(v.value() * c["beta_2_t"])
        self._resource_scatter_add(v, indices, grad * grad * c["one_minus_beta_2_t"])
        v_rows = v.sparse_read(indices)
        v_t_prime = v_rows / c["v_t_prime_denominator"]
        return var.scatter_add(IndexedSlices(
            c["neg_lr_t"] * m_t_bar / (exact_math.sqrt(v_t_prime) + c["epsilon"]), indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        nadam(group.params(), grads, group.slot("m"), group.slot("v"), **coefficients)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("beta_1", "beta_2"), epsilon=self.epsilon)
        return config
