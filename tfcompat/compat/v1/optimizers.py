"""`tf.compat.v1.train`'s optimizers, with TF 1's numerics, slots and names.

Each class is TF 1's (`tensorflow/python/training/*.py`) over the C++ kernels of
`core/kernels/training_ops.cc`, each operation rounded to the variable's dtype in the
kernel's order. Dense gradients (lr, momentum, ... cast to the variable's dtype):

* GradientDescent: `var -= grad * lr`; sparse: `scatter_add(var, -grad * lr)` (no
  de-duplication: duplicate rows add up one after another).
* Momentum (`ApplyMomentum`, not Keras' `ApplyKerasMomentum`: the learning rate is
  applied after the accumulator): `accum = accum * momentum + grad`;
  `var -= accum * lr`, Nesterov `var -= grad * lr + accum * momentum * lr`. Sparse rows:
  the same with Nesterov's second term as `(lr * momentum) * accum`.
* Adam: `beta1_power`/`beta2_power` non-slot variables (start at beta1/beta2, multiplied
  by them after each step); `alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`;
  `m += (g - m) * (1 - beta1)`, `v += (g*g - v) * (1 - beta2)`,
  `var -= m * alpha / (sqrt(v) + epsilon)` (epsilon after the bias correction: TF's
  "epsilon hat"). The sparse path is *not* lazy: `m` and `v` decay on every row, the
  touched rows get `(1 - beta) * g` added, and every row of `var` moves.
* Adagrad (`ApplyAdagrad`, no epsilon): accumulator starts at
  `initial_accumulator_value` (0.1); `accum += g*g`, `var -= g * lr * rsqrt(accum)`.
* RMSProp (always TF's fused kernel, epsilon *inside* the square root): `rms` starts
  at ONES; `rms += (g*g - rms) * (1 - decay)`; centered: `mg += (g - mg) * (1 - decay)`
  and the denominator is `rms - mg*mg + epsilon`; `mom = mom * momentum + g * lr /
  sqrt(rms + epsilon)`, `var -= mom`. Sparse rows use the kernel's other association:
  `rms = rms * decay + g*g * (1 - decay)`, `mom = mom * momentum + rsqrt(...) * lr * g`.
* Adadelta (`ApplyAdadelta`): `accum = accum * rho + g*g * (1 - rho)`;
  `update = sqrt(accum_update + eps) * rsqrt(accum + eps) * g`; `var -= update * lr`;
  `accum_update = accum_update * rho + update**2 * (1 - rho)`.

* ProximalAdagrad and Ftrl: see their classes (TF 1 calls neither one's callable
  learning rate, and ProximalAdagrad's dense path casts nothing: a float64 variable
  with a Python-float learning rate is the kernel's dtype error, as in TF).

Where tf_keras' functional cores compute exactly these operations (Adam's dense
step, RMSprop's momentum kernel, Adadelta, Ftrl's dense kernel) they are used as they
are. Against TF 2.21 (the fixtures) every case is bit-exact except float32 `rsqrt`,
here `1 / sqrt` (TF's packet rsqrt is an approximation whose last bit depends on the
CPU: 1-2 ulps in dense Adagrad/ProximalAdagrad), and Ftrl with a `learning_rate_power`
other than -0.5 (`pow`'s last bit, magnified by `new_accum ** -p - accum ** -p`).
"""

from __future__ import annotations

from typing import Any

import torch

from ...framework import errors
from ...framework.indexed_slices import IndexedSlices
from ...keras.optimizers.adadelta import adadelta as _keras_adadelta
from ...keras.optimizers.adadelta import eigen_rsqrt
from ...keras.optimizers.adam import adam as _keras_adam
from ...keras.optimizers.ftrl import _sqrt as _ftrl_sqrt
from ...keras.optimizers.ftrl import ftrl as _keras_ftrl
from ...keras.optimizers.rmsprop import rmsprop as _keras_rmsprop
from ...ops import exact_math
from .optimizers_base import (Optimizer, cast, create_global_step, get_global_step,
                              get_or_create_global_step, hyper)

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
           "AdagradOptimizer", "RMSPropOptimizer", "AdadeltaOptimizer", "ProximalAdagradOptimizer",
           "FtrlOptimizer", "get_global_step",
           "create_global_step", "get_or_create_global_step"]


def _read(var: Any) -> torch.Tensor:
    """The variable's value as a tensor the caller may write in place."""
    return var.value().clone()


def _rows(var: Any, indices: torch.Tensor) -> torch.Tensor:
    return var.value()[indices]


def _write_rows(var: Any, indices: torch.Tensor, rows: torch.Tensor) -> None:
    var.scatter_update(IndexedSlices(rows, indices))


def _row_length(grad: torch.Tensor) -> int:
    """The elements of one gradient row (what Eigen's sparse kernels vectorize over)."""
    n = 1
    for d in grad.shape[1:]:
        n *= int(d)
    return n


class GradientDescentOptimizer(Optimizer):
    """`tf.compat.v1.train.GradientDescentOptimizer(learning_rate, use_locking=False,
    name="GradientDescent")`: `var -= lr * grad`."""

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self) -> None:
        self._learning_rate_tensor = hyper(self._call_if_callable(self._learning_rate))

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        handle.assign_sub(grad * cast(self._learning_rate_tensor, grad.dtype))

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, handle: Any,
                                                 indices: torch.Tensor) -> None:
        # TF adds `-grad * lr` row by row, duplicates included (no summing first).
        delta = -grad * cast(self._learning_rate_tensor, grad.dtype)
        handle.scatter_add(IndexedSlices(delta, indices))


class MomentumOptimizer(Optimizer):
    """`tf.compat.v1.train.MomentumOptimizer(learning_rate, momentum, use_locking=False,
    name="Momentum", use_nesterov=False)`; slot `momentum`."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = hyper(self._call_if_callable(self._learning_rate))
        self._momentum_tensor = hyper(self._call_if_callable(self._momentum))

    def _coefficients(self, dtype: torch.dtype) -> tuple:
        return cast(self._learning_rate_tensor, dtype), cast(self._momentum_tensor, dtype)

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        lr, momentum = self._coefficients(grad.dtype)
        slot = self.get_slot(handle, "momentum")
        accum = _read(slot) * momentum + grad
        slot.assign(accum)
        if self._use_nesterov:
            handle.assign_sub(grad * lr + accum * momentum * lr)
        else:
            handle.assign_sub(accum * lr)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        lr, momentum = self._coefficients(grad.dtype)
        slot = self.get_slot(handle, "momentum")
        accum = _rows(slot, indices) * momentum + grad
        _write_rows(slot, indices, accum)
        if self._use_nesterov:
            step = lr * grad + (lr * momentum) * accum
        else:
            step = lr * accum
        _write_rows(handle, indices, _rows(handle, indices) - step)


class AdamOptimizer(Optimizer):
    """`tf.compat.v1.train.AdamOptimizer(learning_rate=0.001, beta1=0.9, beta2=0.999,
    epsilon=1e-08, use_locking=False, name="Adam")`; slots `m`, `v`, non-slot
    variables `beta1_power`, `beta2_power`."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self) -> tuple:
        return self._get_non_slot_variable("beta1_power"), self._get_non_slot_variable("beta2_power")

    def _create_slots(self, var_list: list) -> None:
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = hyper(self._call_if_callable(self._lr))
        self._beta1_t = hyper(self._call_if_callable(self._beta1))
        self._beta2_t = hyper(self._call_if_callable(self._beta2))
        self._epsilon_t = hyper(self._call_if_callable(self._epsilon))

    def _coefficients(self, dtype: torch.dtype) -> tuple:
        beta1_power, beta2_power = self._get_beta_accumulators()
        return (cast(beta1_power.value(), dtype), cast(beta2_power.value(), dtype),
                cast(self._lr_t, dtype), cast(self._beta1_t, dtype), cast(self._beta2_t, dtype),
                cast(self._epsilon_t, dtype))

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        b1p, b2p, lr, beta1, beta2, epsilon = self._coefficients(grad.dtype)
        alpha = lr * exact_math.sqrt(1 - b2p) / (1 - b1p)   # the kernel's scalar, in the dtype
        m_slot, v_slot = self.get_slot(handle, "m"), self.get_slot(handle, "v")
        var, m, v = _read(handle), _read(m_slot), _read(v_slot)
        # tf_keras' Adam core is TF's ApplyAdam kernel, operation for operation.
        _keras_adam([var], [grad], [m], [v], None, alpha=alpha, beta_1=float(beta1),
                    beta_2=float(beta2), epsilon=float(epsilon), implementation="foreach")
        m_slot.assign(m)
        v_slot.assign(v)
        handle.assign(var)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        b1p, b2p, lr_t, beta1, beta2, epsilon = self._coefficients(grad.dtype)
        lr = lr_t * exact_math.sqrt(1 - b2p) / (1 - b1p)
        m_slot, v_slot = self.get_slot(handle, "m"), self.get_slot(handle, "v")
        # m = m * beta1 everywhere, then m[indices] += g * (1 - beta1) (TF's two ops).
        m_slot.assign(_read(m_slot) * beta1)
        m_slot.scatter_add(IndexedSlices(grad * (1 - beta1), indices))
        v_slot.assign(_read(v_slot) * beta2)
        v_slot.scatter_add(IndexedSlices((grad * grad) * (1 - beta2), indices))
        handle.assign_sub(lr * m_slot.value() / (exact_math.sqrt(v_slot.value()) + epsilon))

    def _finish(self, update_ops: list, name_scope: str) -> None:
        beta1_power, beta2_power = self._get_beta_accumulators()
        p1, p2 = beta1_power.value(), beta2_power.value()
        beta1_power.assign(p1 * cast(self._beta1_t, p1.dtype))
        beta2_power.assign(p2 * cast(self._beta2_t, p2.dtype))


class AdagradOptimizer(Optimizer):
    """`tf.compat.v1.train.AdagradOptimizer(learning_rate, initial_accumulator_value=0.1,
    use_locking=False, name="Adagrad")`; slot `accumulator`."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, _filled(self._initial_accumulator_value), v.shape, v.dtype, "accumulator",
                self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = hyper(self._call_if_callable(self._learning_rate))

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        lr = cast(self._learning_rate_tensor, grad.dtype)
        slot = self.get_slot(handle, "accumulator")
        accum = _read(slot) + grad * grad
        slot.assign(accum)
        handle.assign_sub(grad * lr * eigen_rsqrt(accum, max(accum.numel(), 1)))

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        lr = cast(self._learning_rate_tensor, grad.dtype)
        slot = self.get_slot(handle, "accumulator")
        accum = _rows(slot, indices) + grad * grad
        _write_rows(slot, indices, accum)
        step = lr * grad * eigen_rsqrt(accum, max(_row_length(grad), 1))
        _write_rows(handle, indices, _rows(handle, indices) - step)


class RMSPropOptimizer(Optimizer):
    """`tf.compat.v1.train.RMSPropOptimizer(learning_rate, decay=0.9, momentum=0.0,
    epsilon=1e-10, use_locking=False, centered=False, name="RMSProp")`; slots `rms`
    (initialized to ones), `mg` (centered), `momentum`."""

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._get_or_make_slot_with_initializer(v, _ones, v.shape, v.dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = hyper(self._call_if_callable(self._learning_rate))
        self._decay_tensor = hyper(self._call_if_callable(self._decay))
        self._momentum_tensor = hyper(self._call_if_callable(self._momentum))
        self._epsilon_tensor = hyper(self._call_if_callable(self._epsilon))

    def _coefficients(self, dtype: torch.dtype) -> tuple:
        return (cast(self._learning_rate_tensor, dtype), cast(self._decay_tensor, dtype),
                cast(self._momentum_tensor, dtype), cast(self._epsilon_tensor, dtype))

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        lr, rho, momentum, epsilon = self._coefficients(grad.dtype)
        rms_slot, mom_slot = self.get_slot(handle, "rms"), self.get_slot(handle, "momentum")
        mg_slot = self.get_slot(handle, "mg") if self._centered else None
        var, rms, mom = _read(handle), _read(rms_slot), _read(mom_slot)
        mg = [_read(mg_slot)] if mg_slot is not None else None
        # tf_keras' RMSprop core with momentum slots is TF's (Centered)ApplyRMSProp kernel.
        _keras_rmsprop([var], [grad], [rms], mg, [mom], lr_t=lr, rho=rho, one_minus_rho=1 - rho,
                       momentum=momentum, epsilon=epsilon)
        rms_slot.assign(rms)
        if mg_slot is not None:
            mg_slot.assign(mg[0])
        mom_slot.assign(mom)
        handle.assign(var)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        lr, rho, momentum, epsilon = self._coefficients(grad.dtype)
        row = max(_row_length(grad), 1)
        rms_slot, mom_slot = self.get_slot(handle, "rms"), self.get_slot(handle, "momentum")
        rms = _rows(rms_slot, indices) * rho + grad * grad * (1 - rho)
        _write_rows(rms_slot, indices, rms)
        if self._centered:
            mg_slot = self.get_slot(handle, "mg")
            mg = _rows(mg_slot, indices) * rho + grad * (1 - rho)
            _write_rows(mg_slot, indices, mg)
            denom = rms + epsilon - mg * mg
        else:
            denom = rms + epsilon
        mom = _rows(mom_slot, indices) * momentum + eigen_rsqrt(denom, row) * lr * grad
        _write_rows(mom_slot, indices, mom)
        _write_rows(handle, indices, _rows(handle, indices) - mom)


class AdadeltaOptimizer(Optimizer):
    """`tf.compat.v1.train.AdadeltaOptimizer(learning_rate=0.001, rho=0.95, epsilon=1e-08,
    use_locking=False, name="Adadelta")`; slots `accum`, `accum_update`."""

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adadelta") -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        self._lr_t = hyper(self._call_if_callable(self._lr))
        self._rho_t = hyper(self._call_if_callable(self._rho))
        self._epsilon_t = hyper(self._call_if_callable(self._epsilon))

    def _coefficients(self, dtype: torch.dtype) -> tuple:
        return cast(self._lr_t, dtype), cast(self._rho_t, dtype), cast(self._epsilon_t, dtype)

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        lr, rho, epsilon = self._coefficients(grad.dtype)
        accum_slot, update_slot = self.get_slot(handle, "accum"), self.get_slot(handle, "accum_update")
        var, accum, accum_update = _read(handle), _read(accum_slot), _read(update_slot)
        # tf_keras' Adadelta core is TF's ApplyAdadelta kernel, operation for operation.
        _keras_adadelta([var], [grad], [accum], [accum_update], lr_t=lr, rho=rho,
                        one_minus_rho=1 - rho, epsilon=epsilon)
        accum_slot.assign(accum)
        update_slot.assign(accum_update)
        handle.assign(var)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        lr, rho, epsilon = self._coefficients(grad.dtype)
        row = max(_row_length(grad), 1)
        accum_slot, update_slot = self.get_slot(handle, "accum"), self.get_slot(handle, "accum_update")
        accum = _rows(accum_slot, indices) * rho + grad * grad * (1 - rho)
        accum_update = _rows(update_slot, indices)
        update = exact_math.sqrt(accum_update + epsilon) * eigen_rsqrt(accum + epsilon, row) * grad
        _write_rows(handle, indices, _rows(handle, indices) - update * lr)
        _write_rows(accum_slot, indices, accum)
        _write_rows(update_slot, indices, accum_update * rho + update * update * (1 - rho))


class ProximalAdagradOptimizer(Optimizer):
    """`tf.compat.v1.train.ProximalAdagradOptimizer(learning_rate,
    initial_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad")`; slot
    `accumulator`. TF's `ApplyProximalAdagrad` (FOBOS with Adagrad's rate):
    `accum += g*g`; `rate = lr * rsqrt(accum)`; `prox = var - g * rate`;
    `var = sign(prox) * max(|prox| - rate * l1, 0) / (1 + l2 * rate)` (l1 > 0) else
    `prox / (1 + l2 * rate)`; sparse rows the same."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: Any = 0.0, l2_regularization_strength: Any = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad") -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, _filled(self._initial_accumulator_value), v.shape, v.dtype, "accumulator",
                self._name)

    def _prepare(self) -> None:
        # (TF 1's ProximalAdagrad does not call a callable learning rate: converting it fails)
        self._learning_rate_tensor = hyper(self._learning_rate)
        self._l1_regularization_strength_tensor = hyper(self._l1_regularization_strength)
        self._l2_regularization_strength_tensor = hyper(self._l2_regularization_strength)

    def _step(self, var: torch.Tensor, accum: torch.Tensor, grad: torch.Tensor, row: int,
              sparse: bool) -> tuple:
        lr, l1, l2 = (self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                      self._l2_regularization_strength_tensor)
        if sparse:
            lr, l1, l2 = (cast(t, grad.dtype) for t in (lr, l1, l2))
        else:
            # TF 1's dense path passes them uncast: the kernel's T is the learning rate's
            # dtype, and l1, l2 or the gradient of another dtype is its dtype error.
            for index, t in ((3, l1), (4, l2), (5, grad)):
                if t.dtype != lr.dtype:
                    raise errors.dtype_mismatch("ResourceApplyProximalAdagrad", index, lr.dtype, t.dtype)
        accum = accum + grad * grad
        rate = lr * eigen_rsqrt(accum, row)
        prox = var - grad * rate
        if float(l1) > 0:
            new = torch.sign(prox) * torch.clamp_min(torch.abs(prox) - rate * l1, 0) / (1 + l2 * rate)
        else:
            new = prox / (1 + l2 * rate)
        return new, accum

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        slot = self.get_slot(handle, "accumulator")
        new, accum = self._step(_read(handle), _read(slot), grad, max(grad.numel(), 1), False)
        slot.assign(accum)
        handle.assign(new)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        slot = self.get_slot(handle, "accumulator")
        new, accum = self._step(_rows(handle, indices), _rows(slot, indices), grad,
                                max(_row_length(grad), 1), True)
        _write_rows(slot, indices, accum)
        _write_rows(handle, indices, new)


class FtrlOptimizer(Optimizer):
    """`tf.compat.v1.train.FtrlOptimizer(learning_rate, learning_rate_power=-0.5,
    initial_accumulator_value=0.1, l1_regularization_strength=0.0,
    l2_regularization_strength=0.0, use_locking=False, name="Ftrl", accum_name=None,
    linear_name=None, l2_shrinkage_regularization_strength=0.0, beta=None)`; slots
    `accum`, `linear`. Dense: TF's `ApplyFtrl` (`ApplyFtrlV2` with shrinkage), as
    tf_keras' Ftrl core computes it; sparse rows: the kernel's clip form,
    `var = (clip(linear, -l1, l1) - linear) / quadratic`.
    """

    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name: Any = None, linear_name: Any = None,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: Any = None) -> None:
        super().__init__(use_locking, name)
        for what, value, sign in (
                ("initial_accumulator_value", initial_accumulator_value, "positive or zero"),
                ("learning_rate_power", learning_rate_power, "negative or zero"),
                ("l1_regularization_strength", l1_regularization_strength, "positive or zero"),
                ("l2_regularization_strength", l2_regularization_strength, "positive or zero"),
                ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                 "positive or zero")):
            bad = value > 0.0 if what == "learning_rate_power" else value < 0.0
            if bad:
                raise ValueError(f"{what} {value:f} needs to be {sign}")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, _filled(self._initial_accumulator_value), v.shape, v.dtype, "accum",
                self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self) -> None:
        # (TF 1's Ftrl does not call a callable learning rate: converting it fails)
        self._learning_rate_tensor = hyper(self._learning_rate)
        self._l1_tensor = hyper(self._l1_regularization_strength)
        # TF folds beta into l2 here: `l2 + beta / (2 * maximum(lr, 1e-36))`, in Python
        # floats for a float learning rate, else in the learning rate tensor's dtype.
        l2, beta = self._l2_regularization_strength, self._beta
        if isinstance(self._learning_rate, (int, float)):
            self._adjusted_l2_tensor = hyper(l2 + beta / (2.0 * max(self._learning_rate, 1e-36)))
        else:
            lr = self._learning_rate_tensor
            self._adjusted_l2_tensor = l2 + beta / (2.0 * torch.clamp_min(lr, 1e-36))
        self._l2_shrinkage_tensor = hyper(self._l2_shrinkage_regularization_strength)
        self._learning_rate_power_tensor = hyper(self._learning_rate_power)

    def _coefficients(self, dtype: torch.dtype) -> dict:
        return {"lr_t": cast(self._learning_rate_tensor, dtype),
                "learning_rate_power": cast(self._learning_rate_power_tensor, dtype),
                "l1_regularization_strength": cast(self._l1_tensor, dtype),
                "l2_regularization_strength": cast(self._adjusted_l2_tensor, dtype),
                "beta": torch.zeros((), dtype=dtype),  # (already in the adjusted l2)
                "l2_shrinkage": (cast(self._l2_shrinkage_tensor, dtype)
                                 if self._l2_shrinkage_regularization_strength > 0 else None),
                "sqrt_power": self._learning_rate_power == -0.5}

    def _resource_apply_dense(self, grad: torch.Tensor, handle: Any) -> None:
        accum_slot, linear_slot = self.get_slot(handle, "accum"), self.get_slot(handle, "linear")
        var, accum, linear = _read(handle), _read(accum_slot), _read(linear_slot)
        _keras_ftrl([var], [grad], [accum], [linear], **self._coefficients(grad.dtype))
        accum_slot.assign(accum)
        linear_slot.assign(linear)
        handle.assign(var)

    def _resource_apply_sparse(self, grad: torch.Tensor, handle: Any, indices: torch.Tensor) -> None:
        c = self._coefficients(grad.dtype)
        lr, l1, l2 = c["lr_t"], c["l1_regularization_strength"], c["l2_regularization_strength"]
        accum_slot, linear_slot = self.get_slot(handle, "accum"), self.get_slot(handle, "linear")
        var, accum, linear = (_rows(handle, indices), _rows(accum_slot, indices),
                              _rows(linear_slot, indices))
        g_s = grad if c["l2_shrinkage"] is None else grad + 2 * c["l2_shrinkage"] * var
        new_accum = accum + grad * grad
        if c["sqrt_power"]:
            new_pow, old_pow = _ftrl_sqrt(new_accum), _ftrl_sqrt(accum)
        else:
            neg_p = -c["learning_rate_power"]
            new_pow, old_pow = torch.pow(new_accum, neg_p), torch.pow(accum, neg_p)
        linear = linear + (g_s - (new_pow - old_pow) / lr * var)
        quadratic = new_pow / lr + 2 * l2
        new_var = (torch.clamp(linear, -l1, l1) - linear) / quadratic
        _write_rows(accum_slot, indices, new_accum)
        _write_rows(linear_slot, indices, linear)
        _write_rows(handle, indices, new_var)


def _filled(value: float) -> Any:
    """TF's `constant_initializer(value, dtype=var.dtype)`: the value in the slot's dtype."""
    def init(shape: Any = None, dtype: Any = None, **_: Any) -> torch.Tensor:
        return torch.full(tuple(shape), value, dtype=dtype.as_torch)
    return init


def _ones(shape: Any = None, dtype: Any = None, **kwargs: Any) -> torch.Tensor:
    return torch.ones(tuple(shape), dtype=dtype.as_torch)


#: The names this module builds in `tf.compat.v1.train` (see the package's `PORTING`).
V1_NAMES: dict = {
    "train": {
        "Optimizer": Optimizer,
        "GradientDescentOptimizer": GradientDescentOptimizer,
        "MomentumOptimizer": MomentumOptimizer,
        "AdamOptimizer": AdamOptimizer,
        "AdagradOptimizer": AdagradOptimizer,
        "RMSPropOptimizer": RMSPropOptimizer,
        "AdadeltaOptimizer": AdadeltaOptimizer,
        "ProximalAdagradOptimizer": ProximalAdagradOptimizer,
        "FtrlOptimizer": FtrlOptimizer,
        "get_global_step": get_global_step,
        "create_global_step": create_global_step,
        "get_or_create_global_step": get_or_create_global_step,
    },
}
