"""Pure-numpy reference for the tf_keras 2.21 legacy (OptimizerV2) optimizers.

This module is an independent transcription of the *arithmetic* that
``tf_keras.optimizers.legacy.*`` performs in TensorFlow 2.21 eager mode
(including the fused ``ResourceApply*`` kernels on CPU). It imports numpy only
-- no torch, no TensorFlow -- so the real tfcompat optimizers can be tested
against it, and it is itself checked against golden values recorded from real
TensorFlow (``tests/conformance/fixtures/optimizers.json``, replayed by
``test_numpy_reference.py``).

Everything is computed in the variable's dtype, one rounding per operation,
with TensorFlow's operation order, because that is what TF does.

API
===

``ReferenceOptimizer(name, config)``
    Whole-optimizer model: ``name`` is the class name (``"SGD"``, ``"Adam"``,
    ``"Adagrad"``, ``"RMSprop"``, ``"Adadelta"``, ``"Adamax"``, ``"Nadam"``,
    ``"Ftrl"``); ``config`` is the optimizer's ``get_config()`` dict (missing
    keys take TF's defaults; a serialized ``LearningRateSchedule`` dict is
    accepted for ``learning_rate``). Constructor kwargs work too, except
    Nadam's ``decay`` kwarg, which TF silently replaces by ``schedule_decay``
    (0.004): pass ``get_config()`` output to be safe.
    ``apply_gradients(grads, variables)`` takes a list of gradients (dense
    arrays, :class:`Sparse`, or ``None`` to skip a variable) and a list of
    numpy arrays (updated in place *and* returned); it applies clipping, the
    decayed learning rate, the per-variable update and increments
    ``iterations``, like ``OptimizerV2.apply_gradients``.
    ``slots[var_index][slot_name]`` holds slot arrays (created lazily when a
    variable first gets a gradient, in its dtype), ``momentum_cache`` is
    Nadam's optimizer-level weight, ``set_hyper(name, value)`` mimics
    ``opt.<hyper> = value``.

``step(name, config, var, grad, slots, iteration, indices=None, *,
momentum_cache=None) -> (new_var, new_slots)``
    One update of a single variable (no clipping). ``iteration`` is the value
    of ``opt.iterations`` *before* the update (0 for the first step).
    ``indices`` given => ``grad`` holds the rows ``var[indices]`` of an
    ``IndexedSlices`` gradient (duplicates allowed; they are summed first,
    like TF, except for plain SGD which scatter-adds them one by one). Nadam
    also needs ``momentum_cache`` (its value before this step); the updated
    cache is ``nadam_momentum_cache(...)``.

``initial_slots(name, config, var) -> {slot_name: array}``,
``slot_names(name, config) -> list`` (in TF's ``get_slot_names()`` order) and
``weight_order(name, config, var_names)`` (the order of ``opt.variables()``).

``clip_gradients(config, grads) -> grads`` -- clipvalue, then clipnorm, then
global_clipnorm, as ``OptimizerV2._transform_gradients``.

``decayed_lr(config, iteration, dtype)`` and ``schedule_value(schedule,
step, dtype=None)`` -- the learning rate TF feeds the kernels, and the
``LearningRateSchedule`` formulas (checked against ``schedules.json``).

Conventions shared by all optimizers (from ``OptimizerV2``)
===========================================================

* Hyperparameters set with ``_set_hyper`` (``learning_rate``, ``decay``,
  ``momentum``, ``rho``, ``beta_1``, ``beta_2``, ``learning_rate_power``,
  ``l1_regularization_strength``, ``l2_regularization_strength``, ``beta``)
  live in **float32** variables; a float64 variable therefore sees
  ``float64(float32(x))``. Values TF passes through ``tf.cast(python_float,
  dtype)`` are float32-rounded the same way (the inverse-time ``decay``,
  Ftrl's ``l2_shrinkage_regularization_strength``, Nadam's 0.96).
  ``epsilon`` (``convert_to_tensor``) and ``initial_accumulator_value``
  (``constant_initializer``) go straight from the Python float into the
  variable dtype. A falsy ``epsilon`` (0.0 / None) becomes 1e-7
  (``epsilon or backend_config.epsilon()``).
* ``lr_t = learning_rate`` (a schedule is evaluated at
  ``float(iterations)`` in the schedule's own dtype, float32 for a Python
  ``initial_learning_rate``, then cast), then, if ``decay > 0``,
  ``lr_t = lr_t / (1 + decay * iterations)`` in the variable dtype
  (``iterations`` = count before this step). Nadam ignores both (see below).
* Sparse gradients: ``indices`` are de-duplicated with ``unique`` (order of
  first appearance) and the rows summed (``unsorted_segment_sum``) before the
  optimizer's sparse rule runs -- except plain SGD, which scatter-adds
  ``-grad * lr`` with the duplicates.
* Clipping happens inside ``apply_gradients`` (so also in ``minimize``),
  before the update, on the gradient as given: for an ``IndexedSlices`` it
  acts on ``values`` (duplicates not yet summed).

Per-optimizer math (``g`` gradient, ``lr`` = ``lr_t`` above, ``t`` =
``iterations + 1``, every constant cast to the variable dtype)
=========================================================================

SGD (no slot; slot ``momentum`` when ``momentum > 0``)::

    plain:      var = var - g * lr                 (sparse: var[i] += (-g) * lr,
                                                    one row at a time)
    momentum:   accum = accum * momentum - g * lr
                var = var + accum                                  (nesterov=False)
                var = var + (accum * momentum - g * lr)            (nesterov=True)

Adam (slots ``m``, ``v`` [, ``vhat``]; zeros)::

    b1p = b1 ** t;  b2p = b2 ** t
    dense (fused kernel):
        alpha = lr * sqrt(1 - b2p) / (1 - b1p)
        m = m + (g - m) * (1 - b1);  v = v + (g * g - v) * (1 - b2)
        amsgrad: vhat = max(vhat, v) and use vhat instead of v below
        var = var - (m * alpha) / (sqrt(v) + eps)
    sparse (python ops, updates EVERY row because m, v decay densely):
        lr2 = lr * (sqrt(1 - b2p) / (1 - b1p))
        m = m * b1;  m[i] += g * (1 - b1)
        v = v * b2;  v[i] += (g * g) * (1 - b2)
        amsgrad: vhat = max(vhat, v) (all rows) and use it below
        var = var - lr2 * m / (sqrt(v) + eps)

Adagrad (slot ``accumulator`` = initial_accumulator_value)::

    dense:  accum = accum + g * g;  var = var - g * lr / (sqrt(accum) + eps)
    sparse: rows i only:  accum[i] += g * g;  var[i] -= lr * g / (sqrt(accum[i]) + eps)

RMSprop (slots ``rms`` [, ``momentum``] [, ``mg``], in that order; zeros)::

    momentum == 0 (python ops):
      dense:  rms = rho * rms + (1 - rho) * g * g
              centered: mg = rho * mg + (1 - rho) * g;  denom = rms - mg * mg
              else denom = rms
              var = var - lr * g / (sqrt(denom) + eps)
      sparse (rms / mg decay on EVERY row):
              rms = rms * rho;  rms[i] += (g * g) * (1 - rho)
              centered: mg = mg * rho;  mg[i] += g * (1 - rho);
                        denom = rms[i] - mg[i] ** 2
              var[i] += (-lr) * g / (sqrt(denom) + eps)
    momentum > 0 (fused kernels; epsilon goes INSIDE the sqrt here):
      dense:  ms = ms + (g * g - ms) * (1 - rho)
              centered: mg = mg + (g - mg) * (1 - rho);  denom = (ms - mg * mg) + eps
              else denom = ms + eps
              mom = mom * momentum + lr * g / sqrt(denom);  var = var - mom
      sparse (rows i only; algebraically equal, rounded differently):
              ms[i] = ms[i] * rho + g * g * (1 - rho)
              centered: mg[i] = mg[i] * rho + g * (1 - rho);
                        denom = (ms[i] + eps) - mg[i] * mg[i]
              else denom = ms[i] + eps
              mom[i] = mom[i] * momentum + (1 / sqrt(denom)) * lr * g;  var[i] -= mom[i]

Adadelta (slots ``accum_grad``, ``accum_var``; zeros; sparse = rows only)::

    accum = accum * rho + g * g * (1 - rho)
    update = sqrt(accum_var + eps) * (1 / sqrt(accum + eps)) * g
    accum_var = accum_var * rho + update * update * (1 - rho)
    var = var - update * lr

Adamax (slots ``m``, ``v``; zeros)::

    dense:  m = m + (g - m) * (1 - b1);  v = max(b2 * v, |g|)
            var = var - lr / (1 - b1 ** t) * (m / (v + eps))
    sparse (rows i only): m[i] = m[i] * b1 + g * (1 - b1);  v[i] = max(v[i] * b2, |g|)
            var[i] += (-lr / (1 - b1 ** t)) * (m[i] / (v[i] + eps))

Nadam (optimizer weight ``momentum_cache`` = 1 in the FIRST variable's dtype;
slots ``m``, ``v``; zeros). ``decay`` is forced to ``schedule_decay``
(default 0.004) and is NOT an inverse-time decay; ``lr`` is the raw
``learning_rate`` hyper (schedules are rejected)::

    mu_t  = b1 * (1 - 0.5 * 0.96 ** (decay * t))
    mu_t1 = b1 * (1 - 0.5 * 0.96 ** (decay * (t + 1)))
    m_sched_new = momentum_cache * mu_t   (becomes the new momentum_cache)
    m_sched_next = m_sched_new * mu_t1
    g' = g / (1 - m_sched_new)
    m = b1 * m + (1 - b1) * g            (sparse: m = m * b1; m[i] += g * (1 - b1))
    v = b2 * v + (1 - b2) * g * g        (sparse: v = v * b2; v[i] += g * g * (1 - b2))
    m' = m / (1 - m_sched_next);  v' = v / (1 - b2 ** t)
    m_bar = (1 - mu_t) * g' + mu_t1 * m'
    var = var - lr * m_bar / (sqrt(v') + eps)      (sparse: rows i, (-lr) * m_bar / ...)

Ftrl (slots ``accumulator`` = initial_accumulator_value, ``linear`` = 0,
created per variable: ``accumulator``, ``linear``)::

    l2' = l2 + beta / (2 * lr)                 (python side; lr = decayed lr)
    g_s = g + (2 * l2_shrinkage) * var         (FtrlV2 kernel, only if l2_shrinkage > 0)
    new_acc = acc + g * g                      (plain g, NOT g_s)
    sigma = (new_acc ** -p - acc ** -p) / lr   (p = learning_rate_power; the kernels
                                                use sqrt when p == -0.5)
    linear = linear + (g_s - sigma * var)      (sparse, rank-1 variable: the scalar
                                                kernel path does (linear + g_s) - sigma * var)
    quad = new_acc ** -p / lr + 2 * l2'
    var = (l1 * sign(linear) - linear) / quad  if |linear| > l1 else 0
          (sparse: (clip(linear, -l1, l1) - linear) / quad -- the same values)
    acc = new_acc
    sparse: the same on the de-duplicated rows only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

__all__ = [
    "OPTIMIZERS",
    "HYPER_NAMES",
    "DEFAULTS",
    "Sparse",
    "ReferenceOptimizer",
    "step",
    "initial_slots",
    "slot_names",
    "clip_gradients",
    "decayed_lr",
    "schedule_value",
    "nadam_momentum_cache",
    "full_config",
    "weight_order",
]

OPTIMIZERS = ("SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam", "Ftrl")

#: Constructor defaults of the legacy optimizers (tf_keras 2.21).
DEFAULTS: Dict[str, Dict[str, Any]] = {
    "SGD": dict(learning_rate=0.01, momentum=0.0, nesterov=False),
    "Adam": dict(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False),
    "Adagrad": dict(learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7),
    "RMSprop": dict(learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False),
    "Adadelta": dict(learning_rate=0.001, rho=0.95, epsilon=1e-7),
    "Adamax": dict(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
    "Nadam": dict(learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
    "Ftrl": dict(
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
    ),
}

#: Hyperparameters TF stores in float32 variables (``_set_hyper``), per
#: optimizer (``decay`` is stored too, but the update math reads the Python
#: value through ``tf.cast``, which rounds it to float32 as well).
HYPER_NAMES: Dict[str, tuple] = {
    "SGD": ("learning_rate", "decay", "momentum"),
    "Adam": ("learning_rate", "decay", "beta_1", "beta_2"),
    "Adagrad": ("learning_rate", "decay"),
    "RMSprop": ("learning_rate", "decay", "rho", "momentum"),
    "Adadelta": ("learning_rate", "decay", "rho"),
    "Adamax": ("learning_rate", "decay", "beta_1", "beta_2"),
    "Nadam": ("learning_rate", "decay", "beta_1", "beta_2"),
    "Ftrl": (
        "learning_rate",
        "decay",
        "learning_rate_power",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "beta",
    ),
}


@dataclass
class Sparse:
    """An ``IndexedSlices`` gradient: ``values[k]`` is the gradient of row
    ``indices[k]`` of a variable of shape ``dense_shape``."""

    indices: np.ndarray
    values: np.ndarray
    dense_shape: Optional[Sequence[int]] = None


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def full_config(name: str, config: Dict[str, Any]) -> Dict[str, Any]:
    """``config`` completed with the optimizer's defaults (and ``decay``)."""
    if name not in DEFAULTS:
        raise ValueError(f"unknown optimizer {name!r}")
    out = dict(DEFAULTS[name])
    out["decay"] = 0.004 if name == "Nadam" else 0.0
    out.update(config or {})
    if "schedule_decay" in out:
        # Nadam's constructor turns `schedule_decay` into `decay` (get_config
        # reports the result as `decay`, which is what this module reads).
        out["decay"] = out.pop("schedule_decay")
    if "lr" in out:
        out["learning_rate"] = out.pop("lr")
    if "epsilon" in out and not out["epsilon"]:
        # `self.epsilon = epsilon or backend_config.epsilon()`: 0 / None -> 1e-7
        out["epsilon"] = 1e-7
    return out


def _hyper(value, dtype) -> np.generic:
    """A hyperparameter as TF reads it: a float32 variable cast to ``dtype``."""
    return np.asarray(np.float32(value)).astype(dtype)[()]


def _const(value, dtype) -> np.generic:
    """A Python number converted straight into ``dtype`` (``convert_to_tensor``)."""
    return np.asarray(value).astype(dtype)[()]


def _cast(value, dtype) -> np.generic:
    """``tf.cast(python_float, dtype)``: the number first becomes a float32
    constant, so float64 sees ``float64(float32(x))``."""
    return np.asarray(np.float32(value)).astype(dtype)[()]


def _momentum_enabled(config) -> bool:
    return float(config.get("momentum", 0.0)) > 0.0


def slot_names(name: str, config: Dict[str, Any]) -> List[str]:
    """``opt.get_slot_names()`` after slots were created."""
    config = full_config(name, config)
    if name == "SGD":
        return ["momentum"] if _momentum_enabled(config) else []
    if name == "Adam":
        return ["m", "v", "vhat"] if config["amsgrad"] else ["m", "v"]
    if name == "Adagrad":
        return ["accumulator"]
    if name == "RMSprop":
        out = ["rms"]
        if _momentum_enabled(config):
            out.append("momentum")
        if config["centered"]:
            out.append("mg")
        return out
    if name == "Adadelta":
        return ["accum_grad", "accum_var"]
    if name in ("Adamax", "Nadam"):
        return ["m", "v"]
    if name == "Ftrl":
        return ["accumulator", "linear"]
    raise ValueError(name)


def weight_order(name: str, config: Dict[str, Any], var_names: Sequence[str]) -> List[tuple]:
    """``opt.variables()`` order as ``(kind, slot_name, var_index)`` tuples:
    ``("iter", None, None)`` first, then Nadam's ``("momentum_cache", ...)``,
    then slots. Slots are created slot-name-major (``m`` of every variable,
    then ``v`` ...) except Ftrl, which is variable-major
    (``accumulator, linear`` of var 0, then of var 1)."""
    out = [("iter", None, None)]
    if name == "Nadam":
        out.append(("momentum_cache", None, None))
    names = slot_names(name, config)
    if name == "Ftrl":
        for i in range(len(var_names)):
            for s in names:
                out.append(("slot", s, i))
    else:
        for s in names:
            for i in range(len(var_names)):
                out.append(("slot", s, i))
    return out


def initial_slots(name: str, config: Dict[str, Any], var: np.ndarray) -> Dict[str, np.ndarray]:
    """Fresh slot arrays for ``var`` (same shape and dtype)."""
    config = full_config(name, config)
    dtype = var.dtype
    out = {}
    for s in slot_names(name, config):
        if s == "accumulator":
            out[s] = np.full(var.shape, _const(config["initial_accumulator_value"], dtype), dtype=dtype)
        else:
            out[s] = np.zeros(var.shape, dtype=dtype)
    return out


# ---------------------------------------------------------------------------
# learning-rate schedules (tf_keras.optimizers.schedules)
# ---------------------------------------------------------------------------


def _schedule_parts(schedule):
    if "class_name" in schedule:
        return schedule["class_name"], schedule["config"]
    raise ValueError(f"not a serialized schedule: {schedule!r}")


def schedule_value(schedule: Dict[str, Any], step, dtype=None) -> np.generic:
    """Value of a serialized ``LearningRateSchedule`` at ``step``.

    ``schedule`` is ``tf_keras.optimizers.schedules.serialize(s)`` output
    (``{"class_name": ..., "config": {...}}``). ``dtype`` is the dtype of
    ``initial_learning_rate`` as a tensor: float32 for a Python float (the
    default), float64 for an ``np.float64``. For PiecewiseConstantDecay the
    result has the dtype of ``values`` (Python ints give int32, floats
    float32). Constants pass through ``tf.cast`` (float32 first) or straight
    conversion exactly as each schedule does.
    """
    cls, c = _schedule_parts(schedule)
    if cls == "PiecewiseConstantDecay":
        vals = c["values"]
        if dtype is None:
            is_int = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
            dtype = np.int32 if is_int else np.float32
        for b, v in zip(c["boundaries"], vals):
            if step <= b:
                return np.asarray(v).astype(dtype)[()]
        return np.asarray(vals[-1]).astype(dtype)[()]

    T = np.dtype(np.float32 if dtype is None else dtype)

    def conv(x):  # python number converted straight into T
        return _const(x, T)

    def cast(x):  # tf.cast(python number, T)
        return _cast(x, T) if isinstance(x, float) else conv(x)

    init = conv(c["initial_learning_rate"])
    one = conv(1.0)
    s = np.asarray(step).astype(T)[()]
    if cls == "ExponentialDecay":
        p = s / cast(c["decay_steps"])
        if c.get("staircase"):
            p = np.floor(p)
        return init * np.power(cast(c["decay_rate"]), p)
    if cls == "InverseTimeDecay":
        p = s / cast(c["decay_steps"])
        if c.get("staircase"):
            p = np.floor(p)
        return init / (one + cast(c["decay_rate"]) * p)
    if cls == "PolynomialDecay":
        end = cast(c.get("end_learning_rate", 0.0001))
        power = cast(c.get("power", 1.0))
        ds = cast(c["decay_steps"])
        if c.get("cycle"):
            mult = one if s == 0 else np.ceil(s / conv(c["decay_steps"]))
            ds = ds * mult
        else:
            s = np.minimum(s, ds)
        p = s / ds
        return (init - end) * np.power(one - p, power) + end
    if cls == "CosineDecay":
        alpha = c.get("alpha", 0.0)
        ds = cast(c["decay_steps"])
        pi = conv(math.pi)

        def decay_fn(st, from_lr):
            frac = st / ds
            cosine = conv(0.5) * (one + np.cos(pi * frac))
            decayed = conv(1 - alpha) * cosine + conv(alpha)
            return from_lr * decayed

        if c.get("warmup_target") is None:
            return decay_fn(np.minimum(s, ds), init)
        target = cast(c["warmup_target"])
        ws = cast(c.get("warmup_steps", 0))
        s = np.minimum(s, ds + ws)
        if s < ws:
            return (target - init) * (s / ws) + init
        return decay_fn(s - ws, target)
    if cls == "CosineDecayRestarts":
        first = cast(c["first_decay_steps"])
        alpha = cast(c.get("alpha", 0.0))
        t_mul = cast(c.get("t_mul", 2.0))
        m_mul = cast(c.get("m_mul", 1.0))
        frac = s / first
        if t_mul == one:
            i_restart = np.floor(frac)
            frac = frac - i_restart
        else:
            i_restart = np.floor(np.log(one - frac * (one - t_mul)) / np.log(t_mul))
            sum_r = (one - t_mul**i_restart) / (one - t_mul)
            frac = (frac - sum_r) / t_mul**i_restart
        m_fac = m_mul**i_restart
        cosine = conv(0.5) * m_fac * (one + np.cos(conv(math.pi) * frac))
        decayed = (one - alpha) * cosine + alpha
        return init * decayed
    raise NotImplementedError(f"schedule {cls}")


def decayed_lr(config: Dict[str, Any], iteration: int, dtype) -> np.generic:
    """``OptimizerV2._decayed_lr``: the ``lr_t`` fed to the update rules."""
    dtype = np.dtype(dtype)
    lr = config["learning_rate"]
    if isinstance(lr, dict):
        step_ = np.asarray(iteration).astype(dtype)[()]
        lr_t = np.asarray(schedule_value(lr, step_)).astype(dtype)[()]
    else:
        lr_t = _hyper(lr, dtype)
    decay = float(config.get("decay", 0.0))
    if decay > 0.0:
        it = np.asarray(iteration).astype(dtype)[()]
        lr_t = lr_t / (_const(1.0, dtype) + _cast(decay, dtype) * it)
    return lr_t


# ---------------------------------------------------------------------------
# clipping
# ---------------------------------------------------------------------------


def _values(g):
    return g.values if isinstance(g, Sparse) else g


def _with_values(g, v):
    return Sparse(g.indices, v, g.dense_shape) if isinstance(g, Sparse) else v


def clip_gradients(config: Dict[str, Any], grads: List[Any]) -> List[Any]:
    """clipvalue, then clipnorm (per tensor), then global_clipnorm."""
    grads = list(grads)
    cv = config.get("clipvalue")
    if cv is not None:
        out = []
        for g in grads:
            v = _values(g)
            c = _const(cv, v.dtype)
            out.append(_with_values(g, np.maximum(np.minimum(v, c), -c)))
        grads = out
    cn = config.get("clipnorm")
    if cn is not None:
        out = []
        for g in grads:
            v = _values(g)
            c = _const(max(cn, 0), v.dtype)
            l2sum = np.sum(v * v, dtype=v.dtype)
            l2norm = np.sqrt(l2sum) if l2sum > 0 else l2sum
            out.append(_with_values(g, (v * c) / np.maximum(l2norm, c)))
        grads = out
    gn = config.get("global_clipnorm")
    if gn is not None:
        vals = [_values(g) for g in grads]
        dt = vals[0].dtype
        half = _const(0.5, dt)
        halves = [np.sum(v * v * half, dtype=dt) for v in vals]
        norm = np.sqrt(np.sum(np.asarray(halves, dtype=dt), dtype=dt) * _const(2.0, dt))
        c = _const(gn, dt)
        scale = c * np.minimum(_const(1.0, dt) / norm, _const(1.0, dt) / c) + (norm - norm)
        grads = [_with_values(g, v * scale.astype(v.dtype)) for g, v in zip(grads, vals)]
    return grads


def _dedup(indices, values):
    """``tf.unique`` + ``unsorted_segment_sum``: (summed_values, unique_indices)."""
    indices = np.asarray(indices).reshape(-1)
    uniq, first = [], {}
    pos = np.empty(len(indices), dtype=np.int64)
    for k, i in enumerate(indices.tolist()):
        if i not in first:
            first[i] = len(uniq)
            uniq.append(i)
        pos[k] = first[i]
    summed = np.zeros((len(uniq),) + values.shape[1:], dtype=values.dtype)
    np.add.at(summed, pos, values)
    return summed, np.asarray(uniq, dtype=np.int64)


# ---------------------------------------------------------------------------
# per-optimizer coefficients ("apply_state") and updates
# ---------------------------------------------------------------------------


def _coefficients(name, config, dtype, iteration, momentum_cache=None):
    T = np.dtype(dtype)
    c = {"T": T}
    one = _const(1.0, T)
    c["one"] = one
    if name != "Nadam":
        c["lr_t"] = decayed_lr(config, iteration, T)
    t = np.asarray(iteration + 1).astype(T)[()]
    if name == "SGD":
        c["momentum"] = _hyper(config["momentum"], T)
    elif name in ("Adam", "Adamax"):
        b1 = _hyper(config["beta_1"], T)
        b2 = _hyper(config["beta_2"], T)
        c.update(b1=b1, b2=b2, eps=_const(config["epsilon"], T))
        c["b1p"] = np.power(b1, t)
        c["b2p"] = np.power(b2, t)
        c["one_minus_b1"] = one - b1
        c["one_minus_b2"] = one - b2
        if name == "Adam":
            c["lr_sparse"] = c["lr_t"] * (np.sqrt(one - c["b2p"]) / (one - c["b1p"]))
        else:
            c["neg_scaled_lr"] = -c["lr_t"] / (one - c["b1p"])
    elif name == "Adagrad":
        c["eps"] = _const(config["epsilon"], T)
    elif name == "RMSprop":
        rho = _hyper(config["rho"], T)
        c.update(rho=rho, one_minus_rho=one - rho, eps=_const(config["epsilon"], T))
        c["momentum"] = _hyper(config["momentum"], T)
    elif name == "Adadelta":
        c.update(rho=_hyper(config["rho"], T), eps=_const(config["epsilon"], T))
    elif name == "Nadam":
        lr_t = _hyper(config["learning_rate"], T)
        b1 = _hyper(config["beta_1"], T)
        b2 = _hyper(config["beta_2"], T)
        nxt = np.asarray(iteration + 2).astype(T)[()]
        base = _cast(0.96, T)
        d = _const(config["decay"], T)
        half = _const(0.5, T)
        mu_t = b1 * (one - half * np.power(base, d * t))
        mu_t1 = b1 * (one - half * np.power(base, d * nxt))
        cache = _const(1.0 if momentum_cache is None else momentum_cache, T)
        m_sched_new = cache * mu_t
        m_sched_next = m_sched_new * mu_t1
        c.update(
            lr_t=lr_t,
            b1=b1,
            b2=b2,
            eps=_const(config["epsilon"], T),
            mu_t=mu_t,
            mu_t1=mu_t1,
            m_sched_new=m_sched_new,
            one_minus_b1=one - b1,
            one_minus_b2=one - b2,
            one_minus_mu_t=one - mu_t,
            one_minus_m_sched_new=one - m_sched_new,
            one_minus_m_sched_next=one - m_sched_next,
            v_denom=one - np.power(b2, t),
        )
    elif name == "Ftrl":
        lr_t = c["lr_t"]
        c["p"] = _hyper(config["learning_rate_power"], T)
        c["l1"] = _hyper(config["l1_regularization_strength"], T)
        l2 = _hyper(config["l2_regularization_strength"], T)
        beta = _hyper(config["beta"], T)
        c["l2"] = l2 + beta / (_const(2.0, T) * lr_t)
        c["l2_shrinkage"] = _cast(config["l2_shrinkage_regularization_strength"], T)
        c["use_shrinkage"] = float(config["l2_shrinkage_regularization_strength"]) > 0.0
    else:
        raise ValueError(name)
    return c


def nadam_momentum_cache(config, momentum_cache, iteration, dtype) -> np.generic:
    """Nadam's ``momentum_cache`` after the step at ``iteration``."""
    config = full_config("Nadam", config)
    return _coefficients("Nadam", config, dtype, iteration, momentum_cache)["m_sched_new"]


def _apply_dense(name, config, c, var, g, s):
    one = c["one"]
    if name == "SGD":
        lr = c["lr_t"]
        if "momentum" not in s:
            return var - g * lr
        mom = c["momentum"]
        acc = s["momentum"] * mom - g * lr
        s["momentum"] = acc
        if config["nesterov"]:
            return var + (acc * mom - g * lr)
        return var + acc
    if name == "Adam":
        alpha = c["lr_t"] * np.sqrt(one - c["b2p"]) / (one - c["b1p"])
        m = s["m"] + (g - s["m"]) * c["one_minus_b1"]
        v = s["v"] + (g * g - s["v"]) * c["one_minus_b2"]
        s["m"], s["v"] = m, v
        if config["amsgrad"]:
            v = np.maximum(s["vhat"], v)
            s["vhat"] = v
        return var - (m * alpha) / (np.sqrt(v) + c["eps"])
    if name == "Adagrad":
        acc = s["accumulator"] + g * g
        s["accumulator"] = acc
        return var - g * c["lr_t"] / (np.sqrt(acc) + c["eps"])
    if name == "RMSprop":
        lr, rho, omr, eps = c["lr_t"], c["rho"], c["one_minus_rho"], c["eps"]
        if "momentum" not in s:
            rms = rho * s["rms"] + omr * (g * g)
            s["rms"] = rms
            denom = rms
            if config["centered"]:
                mg = rho * s["mg"] + omr * g
                s["mg"] = mg
                denom = rms - mg * mg
            return var - lr * g / (np.sqrt(denom) + eps)
        ms = s["rms"] + (g * g - s["rms"]) * omr
        s["rms"] = ms
        if config["centered"]:
            mg = s["mg"] + (g - s["mg"]) * omr
            s["mg"] = mg
            denom = (ms - mg * mg) + eps
        else:
            denom = ms + eps
        mom = s["momentum"] * c["momentum"] + lr * g / np.sqrt(denom)
        s["momentum"] = mom
        return var - mom
    if name == "Adadelta":
        rho, eps = c["rho"], c["eps"]
        omr = one - rho
        acc = s["accum_grad"] * rho + g * g * omr
        upd = np.sqrt(s["accum_var"] + eps) * (one / np.sqrt(acc + eps)) * g
        s["accum_grad"] = acc
        s["accum_var"] = s["accum_var"] * rho + upd * upd * omr
        return var - upd * c["lr_t"]
    if name == "Adamax":
        m = s["m"] + (g - s["m"]) * c["one_minus_b1"]
        v = np.maximum(c["b2"] * s["v"], np.abs(g))
        s["m"], s["v"] = m, v
        return var - c["lr_t"] / (one - c["b1p"]) * (m / (v + c["eps"]))
    if name == "Nadam":
        g_prime = g / c["one_minus_m_sched_new"]
        m = c["b1"] * s["m"] + c["one_minus_b1"] * g
        m_prime = m / c["one_minus_m_sched_next"]
        v = c["b2"] * s["v"] + c["one_minus_b2"] * (g * g)
        v_prime = v / c["v_denom"]
        s["m"], s["v"] = m, v
        m_bar = c["one_minus_mu_t"] * g_prime + c["mu_t1"] * m_prime
        return var - c["lr_t"] * m_bar / (np.sqrt(v_prime) + c["eps"])
    if name == "Ftrl":
        return _ftrl_dense(c, var, g, s)
    raise ValueError(name)


def _acc_pow(x, c):
    if c["p"] == _const(-0.5, c["T"]):
        return np.sqrt(x)
    return np.power(x, -c["p"])


def _ftrl_dense(c, var, g, s):
    T = c["T"]
    lr, l1, l2 = c["lr_t"], c["l1"], c["l2"]
    acc, lin = s["accumulator"], s["linear"]
    gs = g + _const(2.0, T) * c["l2_shrinkage"] * var if c["use_shrinkage"] else g
    new_acc = acc + g * g
    lin = lin + (gs - (_acc_pow(new_acc, c) - _acc_pow(acc, c)) / lr * var)
    x = l1 * np.sign(lin) - lin
    y = _acc_pow(new_acc, c) / lr + _const(2.0, T) * l2
    new_var = np.where(np.abs(lin) > l1, x / y, np.zeros((), T)).astype(T)
    s["accumulator"], s["linear"] = new_acc, lin
    return new_var


def _ftrl_sparse_rows(c, var, g, s, idx):
    """The CPU sparse FTRL kernel (rows; rank-1 variables take a scalar path)."""
    T = c["T"]
    lr, l1, l2 = c["lr_t"], c["l1"], c["l2"]
    two = _const(2.0, T)
    acc = s["accumulator"][idx]
    lin = s["linear"][idx]
    v = var[idx]
    gs = g + two * c["l2_shrinkage"] * v if c["use_shrinkage"] else g
    new_acc = acc + g * g
    if var.ndim == 1:
        sigma = (np.power(new_acc, -c["p"]) - np.power(acc, -c["p"])) / lr
        lin = (lin + gs) - sigma * v
        quad = (np.sqrt(new_acc) if c["p"] == _const(-0.5, T) else np.power(new_acc, -c["p"])) / lr + two * l2
    else:
        lin = lin + (gs - (_acc_pow(new_acc, c) - _acc_pow(acc, c)) / lr * v)
        quad = _acc_pow(new_acc, c) / lr + two * l2
    adj = np.maximum(np.minimum(lin, l1), -l1)
    new_v = (adj - lin) / quad
    s["accumulator"][idx] = new_acc
    s["linear"][idx] = lin
    var[idx] = new_v


def _apply_sparse(name, config, c, var, g, idx, s):
    """Sparse rule on de-duplicated ``idx`` (plain SGD gets raw indices)."""
    one = c["one"]
    var = var.copy()
    if name == "SGD":
        lr = c["lr_t"]
        if "momentum" not in s:
            np.add.at(var, idx, (-g) * lr)
            return var
        mom = c["momentum"]
        acc = s["momentum"]
        a = acc[idx] * mom - g * lr
        acc[idx] = a
        if config["nesterov"]:
            var[idx] = var[idx] + (a * mom - g * lr)
        else:
            var[idx] = var[idx] + a
        return var
    if name == "Adam":
        m = s["m"] * c["b1"]
        m[idx] = m[idx] + g * c["one_minus_b1"]
        v = s["v"] * c["b2"]
        v[idx] = v[idx] + (g * g) * c["one_minus_b2"]
        s["m"], s["v"] = m, v
        if config["amsgrad"]:
            v = np.maximum(s["vhat"], v)
            s["vhat"] = v
        return var - c["lr_sparse"] * m / (np.sqrt(v) + c["eps"])
    if name == "Adagrad":
        acc = s["accumulator"]
        a = acc[idx] + g * g
        acc[idx] = a
        var[idx] = var[idx] - c["lr_t"] * g / (np.sqrt(a) + c["eps"])
        return var
    if name == "RMSprop":
        lr, rho, omr, eps = c["lr_t"], c["rho"], c["one_minus_rho"], c["eps"]
        if "momentum" not in s:
            rms = s["rms"] * rho
            rms[idx] = rms[idx] + (g * g) * omr
            s["rms"] = rms
            denom = rms[idx]
            if config["centered"]:
                mg = s["mg"] * rho
                mg[idx] = mg[idx] + g * omr
                s["mg"] = mg
                mgs = mg[idx]
                denom = denom - mgs * mgs
            var[idx] = var[idx] + (-lr) * g / (np.sqrt(denom) + eps)
            return var
        # the sparse kernels use a different (but equivalent) form than the
        # dense ones: ms * rho + g^2 * (1 - rho), and rsqrt(denom) * lr * g
        ms = s["rms"]
        msr = ms[idx] * rho + g * g * omr
        ms[idx] = msr
        if config["centered"]:
            mg = s["mg"]
            mgr = mg[idx] * rho + g * omr
            mg[idx] = mgr
            denom = (msr + eps) - mgr * mgr
        else:
            denom = msr + eps
        mom = s["momentum"]
        mr = mom[idx] * c["momentum"] + (one / np.sqrt(denom)) * lr * g
        mom[idx] = mr
        var[idx] = var[idx] - mr
        return var
    if name == "Adadelta":
        rho, eps = c["rho"], c["eps"]
        omr = one - rho
        ag, av = s["accum_grad"], s["accum_var"]
        a = ag[idx] * rho + g * g * omr
        upd = np.sqrt(av[idx] + eps) * (one / np.sqrt(a + eps)) * g
        ag[idx] = a
        var[idx] = var[idx] - upd * c["lr_t"]
        av[idx] = av[idx] * rho + upd * upd * omr
        return var
    if name == "Adamax":
        m, v = s["m"], s["v"]
        mr = m[idx] * c["b1"] + g * c["one_minus_b1"]
        vr = np.maximum(v[idx] * c["b2"], np.abs(g))
        m[idx] = mr
        v[idx] = vr
        var[idx] = var[idx] + c["neg_scaled_lr"] * (mr / (vr + c["eps"]))
        return var
    if name == "Nadam":
        g_prime = g / c["one_minus_m_sched_new"]
        m = s["m"] * c["b1"]
        m[idx] = m[idx] + g * c["one_minus_b1"]
        m_prime = m[idx] / c["one_minus_m_sched_next"]
        m_bar = c["one_minus_mu_t"] * g_prime + c["mu_t1"] * m_prime
        v = s["v"] * c["b2"]
        v[idx] = v[idx] + (g * g) * c["one_minus_b2"]
        v_prime = v[idx] / c["v_denom"]
        s["m"], s["v"] = m, v
        var[idx] = var[idx] + (-c["lr_t"]) * m_bar / (np.sqrt(v_prime) + c["eps"])
        return var
    if name == "Ftrl":
        _ftrl_sparse_rows(c, var, g, s, idx)
        return var
    raise ValueError(name)


def step(name, config, var, grad, slots, iteration, indices=None, *, momentum_cache=None):
    """One update of one variable; returns ``(new_var, new_slots)``.

    ``var``/``grad``/``slots`` are not modified. ``grad`` has ``var``'s dtype;
    with ``indices`` it holds one row per index (duplicates allowed).
    """
    config = full_config(name, config)
    var = np.asarray(var)
    T = var.dtype
    grad = np.asarray(grad).astype(T, copy=False)
    s = {k: np.array(v, dtype=T, copy=True) for k, v in slots.items()}
    c = _coefficients(name, config, T, iteration, momentum_cache)
    if indices is None:
        new_var = _apply_dense(name, config, c, var, grad, s)
    else:
        indices = np.asarray(indices).reshape(-1).astype(np.int64)
        grad = grad.reshape((len(indices),) + var.shape[1:])
        if name == "SGD" and "momentum" not in s:
            new_var = _apply_sparse(name, config, c, var, grad, indices, s)
        else:
            summed, uniq = _dedup(indices, grad)
            new_var = _apply_sparse(name, config, c, var, summed, uniq, s)
    return np.asarray(new_var, dtype=T), s


class ReferenceOptimizer:
    """Stateful model of one legacy optimizer instance (see module doc)."""

    def __init__(self, name: str, config: Dict[str, Any]):
        if name == "Nadam" and isinstance((config or {}).get("learning_rate"), dict):
            raise ValueError(
                "The Nadam optimizer does not support "
                "tf.keras.optimizers.LearningRateSchedules as the learning rate."
            )
        self.name = name
        self.config = full_config(name, config)
        self.iterations = 0
        self.slots: Dict[int, Dict[str, np.ndarray]] = {}
        self.momentum_cache = None

    def set_hyper(self, key: str, value) -> None:
        if key == "lr":
            key = "learning_rate"
        self.config[key] = value

    def apply_gradients(self, grads: List[Any], variables: List[np.ndarray]) -> List[np.ndarray]:
        """Update ``variables`` in place (and return them).

        ``grads[k]`` is a dense array, a :class:`Sparse` or ``None`` (that
        variable is skipped, as TF does after a warning; all ``None`` raises
        ``ValueError("No gradients provided for any variable ...")``).
        """
        pairs = [(k, g, v) for k, (g, v) in enumerate(zip(grads, variables)) if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        for k, _, v in pairs:  # slots are created lazily, per variable
            if k not in self.slots:
                self.slots[k] = initial_slots(self.name, self.config, v)
        if self.name == "Nadam" and self.momentum_cache is None:
            # created once, in the dtype of the first variable with a gradient
            self.momentum_cache = np.ones((), dtype=pairs[0][2].dtype)[()]
        clipped = clip_gradients(self.config, [g for _, g, _ in pairs])
        cache_in = self.momentum_cache
        for (k, _, v), g in zip(pairs, clipped):
            if isinstance(g, Sparse):
                nv, ns = step(self.name, self.config, v, g.values, self.slots[k], self.iterations,
                              indices=g.indices, momentum_cache=cache_in)
            else:
                nv, ns = step(self.name, self.config, v, g, self.slots[k], self.iterations,
                              momentum_cache=cache_in)
            v[...] = nv
            self.slots[k] = ns
        if self.name == "Nadam" and any(v.dtype == cache_in.dtype for _, _, v in pairs):
            # only a variable of the cache's own dtype writes the cache back
            new = nadam_momentum_cache(self.config, cache_in, self.iterations, cache_in.dtype)
            self.momentum_cache = np.asarray(new, dtype=cache_in.dtype)[()]
        self.iterations += 1
        return variables
