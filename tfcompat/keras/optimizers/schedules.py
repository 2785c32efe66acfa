"""`tf.keras.optimizers.schedules`: learning rates as functions of the step.

Each schedule computes in the dtype of its `initial_learning_rate` as a
tensor (float32 for a Python float), as tf_keras does, with constants cast
the way `tf.cast` casts a Python float (through float32). The step may be a
Python number, a tensor or a variable (the optimizer passes its
`iterations`); the result is a 0-d tensor on the step's device, so an
optimizer can feed it to its kernels without a host round trip.

Formulas (`s` = step):

* ExponentialDecay: `lr0 * rate ** (s / decay_steps)` (floored exponent if staircase)
* PiecewiseConstantDecay: `values[i]` for `boundaries[i-1] < s <= boundaries[i]`
* PolynomialDecay: `(lr0 - end) * (1 - s / decay_steps) ** power + end`,
  with `s` clipped to `decay_steps`, or `decay_steps` stretched to the
  next multiple covering `s` when `cycle`
* InverseTimeDecay: `lr0 / (1 + rate * s / decay_steps)` (floored if staircase)
* CosineDecay: `lr0 * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)`,
  optionally after a linear warmup to `warmup_target`
* CosineDecayRestarts: SGDR, cosine cycles whose length grows by `t_mul`
  and whose height shrinks by `m_mul`
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch

from ...framework import dtypes
from ...framework.tensor_conversion import convert_to_tensor
from . import multi_tensor
from ...framework.variable_protocol import is_variable

__all__ = [
    "LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay", "PolynomialDecay",
    "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts", "serialize", "deserialize",
]


# Python-number arguments become cached device constants (`multi_tensor.scalar`), not a
# host-to-device copy per call: a schedule runs every optimizer step. The constants are
# only read; every schedule returns a freshly computed tensor.

def _int32(value: Any) -> bool:
    return type(value) is int and -2**31 <= value < 2**31


def _float32(value: Any) -> bool:
    # (convert_to_tensor has its own rules for values float32 cannot hold: not cached)
    return type(value) is float and abs(value) <= 3.0e38


def _converted(value: Any, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """`convert_to_tensor(value).to(device=device, dtype=dtype)`."""
    if _float32(value):
        return multi_tensor.scalar(value, dtype, device, via=torch.float32)
    if _int32(value):
        return multi_tensor.scalar(value, dtype, device, via=torch.int32)
    return convert_to_tensor(value).to(device=device, dtype=dtype)


def _initial(value: Any, device: torch.device) -> torch.Tensor:
    """`convert_to_tensor(value)` on `device` (float32 for a Python float, int32 for an int)."""
    if _float32(value):
        return multi_tensor.scalar(value, torch.float32, device)
    if _int32(value):
        return multi_tensor.scalar(value, torch.int32, device)
    if isinstance(value, (np.float16, np.float32, np.float64)):  # (a float holds each exactly)
        return multi_tensor.scalar(float(value), dtypes.as_dtype(value.dtype).as_torch, device)
    t = convert_to_tensor(value)
    return t.to(device) if t.device != device else t


def _cast(value: Any, like: torch.Tensor) -> torch.Tensor:
    """`tf.cast(value, dtype)`: a Python float becomes float32 first, as in TF."""
    if isinstance(value, torch.Tensor) or is_variable(value):
        return convert_to_tensor(value).to(device=like.device, dtype=like.dtype)
    if like.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        if isinstance(value, float):
            return multi_tensor.scalar(value, like.dtype, like.device, via=torch.float32)
        if type(value) in (int, bool) and abs(value) < 2**24:
            return multi_tensor.scalar(value, like.dtype, like.device)  # exact, then one rounding
    if like.dtype is torch.bfloat16:  # (numpy's bfloat16, from ml_dtypes, does not convert to torch)
        return torch.tensor(np.asarray(value), device=like.device).to(torch.bfloat16)
    return torch.tensor(np.asarray(value).astype(dtypes.from_torch(like.dtype).as_numpy_dtype),
                        device=like.device)


def _scalar_math(fn: Any, *args: torch.Tensor) -> torch.Tensor:
    """`fn(*args)` (pow, log, cos of the schedule's 0-d tensors), rounded as TF rounds it.

    TF evaluates a scalar's transcendental functions with the C library
    (`powf`, `cosf`, `logf`: correctly rounded in practice); torch's are not
    for float32. The float64 result rounded to float32 (then to the dtype, as
    `Eigen::half` rounds its float32 result) is.
    """
    dtype = args[0].dtype
    if dtype is torch.float64:
        return fn(*args)
    return fn(*(a.double() for a in args)).float().to(dtype)


def _step(step: Any, like: torch.Tensor) -> torch.Tensor:
    if isinstance(step, torch.Tensor) or is_variable(step):
        return convert_to_tensor(step).to(device=like.device, dtype=like.dtype)
    return torch.tensor(step, dtype=like.dtype, device=like.device)


def _device_of(step: Any) -> torch.device:
    if isinstance(step, torch.Tensor):
        return step.device
    if is_variable(step):
        return step._torch_device()  # (not `handle`: handing out the live tensor invalidates mirrors)
    from ...framework import device as device_lib
    return device_lib.current_torch_device()


class LearningRateSchedule:
    """Base class: `schedule(step)` returns the learning rate at `step`.

    Subclasses implement `__call__(step)` and `get_config()`; `from_config`
    calls the constructor with the config.
    """

    def __call__(self, step: Any) -> torch.Tensor:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override "
                                  "`__call__(self, step)`.")

    def get_config(self) -> dict:
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must override "
                                  "`get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """What ExponentialDecay and InverseTimeDecay share: their arguments and `step / decay_steps`."""

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, decay_rate: Any,
                 staircase: bool = False, name: Optional[str] = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """`(lr0, p)`: the initial rate as a tensor, and `step / decay_steps` (floored if staircase)."""
        lr0 = _initial(self.initial_learning_rate, _device_of(step))
        p = _step(step, lr0) / _cast(self.decay_steps, lr0)
        return lr0, (torch.floor(p) if self.staircase else p)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_RateDecay):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)`."""

    def __call__(self, step: Any) -> torch.Tensor:
        lr0, p = self._progress(step)
        return lr0 * _scalar_math(torch.pow, _cast(self.decay_rate, lr0), p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to `boundaries[0]`, `values[1]` up to `boundaries[1]`, ..."""

    def __init__(self, boundaries: Any, values: Any, name: Optional[str] = None) -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. Received: "
                f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                f"{len(values)}.")
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step: Any) -> torch.Tensor:
        device = _device_of(step)
        x = convert_to_tensor(step)
        x = x.to(device)
        values = torch.stack([_initial(v, device) for v in self.values])
        bounds = torch.stack([_converted(b, x.dtype, device) for b in self.boundaries])
        # Index of the first boundary >= step: values[i] applies for b[i-1] < step <= b[i].
        # (A gather on the device: indexing with a 0-d tensor would read it on the host.)
        index = torch.searchsorted(bounds, x.reshape(1), right=False)
        return torch.index_select(values, 0, index).reshape(())

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from `initial_learning_rate` to `end_learning_rate`."""

    def __init__(self, initial_learning_rate: Any, decay_steps: Any,
                 end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                 name: Optional[str] = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step: Any) -> torch.Tensor:
        lr0 = _initial(self.initial_learning_rate, _device_of(step))
        end = _cast(self.end_learning_rate, lr0)
        power = _cast(self.power, lr0)
        s = _step(step, lr0)
        decay_steps = _cast(self.decay_steps, lr0)
        if self.cycle:
            multiplier = torch.where(s == 0, torch.ones_like(s), torch.ceil(s / decay_steps))
            decay_steps = decay_steps * multiplier
        else:
            s = torch.minimum(s, decay_steps)
        p = s / decay_steps
        return (lr0 - end) * _scalar_math(torch.pow, 1 - p, power) + end

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class InverseTimeDecay(_RateDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`."""

    def __call__(self, step: Any) -> torch.Tensor:
        lr0, p = self._progress(step)
        return lr0 / (_cast(1, lr0) + _cast(self.decay_rate, lr0) * p)


class CosineDecay(LearningRateSchedule):
    """Cosine decay to `alpha * lr`, optionally after a linear warmup."""

    def __init__(self, initial_learning_rate: Any, decay_steps: Any, alpha: float = 0.0,
                 name: Optional[str] = None, warmup_target: Any = None,
                 warmup_steps: Any = 0) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target

    def _decay(self, s: torch.Tensor, decay_steps: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        fraction = s / decay_steps
        pi = multi_tensor.scalar(math.pi, s.dtype, s.device)
        cosine = 0.5 * (1.0 + _scalar_math(torch.cos, pi * fraction))
        return start * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step: Any) -> torch.Tensor:
        lr0 = _initial(self.initial_learning_rate, _device_of(step))
        decay_steps = _cast(self.decay_steps, lr0)
        s = _step(step, lr0)
        if self.warmup_target is None:
            return self._decay(torch.minimum(s, decay_steps), decay_steps, lr0)
        target = _cast(self.warmup_target, lr0)
        warmup = _cast(self.warmup_steps, lr0)
        s = torch.minimum(s, decay_steps + warmup)
        warm = (target - lr0) * (s / warmup) + lr0
        return torch.where(s < warmup, warm, self._decay(s - warmup, decay_steps, target))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter)."""

    def __init__(self, initial_learning_rate: Any, first_decay_steps: Any, t_mul: float = 2.0,
                 m_mul: float = 1.0, alpha: float = 0.0, name: Optional[str] = None) -> None:
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    @staticmethod
    def _restart(fraction: torch.Tensor, t_mul: torch.Tensor, geometric: bool) -> tuple:
        """`(i_restart, fraction within the cycle)`: cycles of growing (geometric) or equal length."""
        if geometric:
            i_restart = torch.floor(_scalar_math(torch.log, 1.0 - fraction * (1.0 - t_mul))
                                    / _scalar_math(torch.log, t_mul))
            growth = _scalar_math(torch.pow, t_mul, i_restart)
            sum_r = (1.0 - growth) / (1.0 - t_mul)
            return i_restart, (fraction - sum_r) / growth
        i_restart = torch.floor(fraction)
        return i_restart, fraction - i_restart

    def __call__(self, step: Any) -> torch.Tensor:
        lr0 = _initial(self.initial_learning_rate, _device_of(step))
        alpha = _cast(self.alpha, lr0)
        t_mul = _cast(self._t_mul, lr0)
        m_mul = _cast(self._m_mul, lr0)
        fraction = _step(step, lr0) / _cast(self.first_decay_steps, lr0)
        if isinstance(self._t_mul, (int, float)):  # TF's `tf.cond(t_mul == 1, ...)`, on the host
            i_restart, fraction = self._restart(fraction, t_mul, geometric=self._t_mul != 1.0)
        else:  # a tensor t_mul: both branches on the device (no host read), as TF's cond selects
            arithmetic = self._restart(fraction, t_mul, geometric=False)
            geometric = self._restart(fraction, t_mul, geometric=True)
            same = t_mul == 1.0
            i_restart = torch.where(same, arithmetic[0], geometric[0])
            fraction = torch.where(same, arithmetic[1], geometric[1])
        m_fac = _scalar_math(torch.pow, m_mul, i_restart)
        pi = multi_tensor.scalar(math.pi, lr0.dtype, lr0.device)
        cosine = 0.5 * m_fac * (1.0 + _scalar_math(torch.cos, pi * fraction))
        return lr0 * ((1 - alpha) * cosine + alpha)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


_BUILTIN = {cls.__name__: cls for cls in (
    ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay, InverseTimeDecay, CosineDecay,
    CosineDecayRestarts)}


def serialize(learning_rate_schedule: LearningRateSchedule, use_legacy_format: bool = False) -> dict:
    """`{"module", "class_name", "config", "registered_name"}`, as tf_keras writes it."""
    config = learning_rate_schedule.get_config()
    name = type(learning_rate_schedule).__name__
    if use_legacy_format:
        return {"class_name": name, "config": config}
    builtin = _BUILTIN.get(name) is type(learning_rate_schedule)
    return {"module": "keras.optimizers.schedules" if builtin else type(learning_rate_schedule).__module__,
            "class_name": name, "config": config,
            "registered_name": None if builtin else name}


def deserialize(config: dict, custom_objects: Optional[dict] = None,
                use_legacy_format: bool = False) -> LearningRateSchedule:
    """Rebuild a schedule from `serialize` output (new or legacy format).

    Only built-in schedules and classes passed in `custom_objects` are
    constructed: nothing named in the config is imported or executed.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret serialized learning rate schedule: {config!r}")
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BUILTIN.get(name)
    if cls is None:
        raise ValueError(f"Unknown decay: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in "
                         "the scope, or pass it in `custom_objects`.")
    return cls.from_config(dict(config.get("config", {})))
