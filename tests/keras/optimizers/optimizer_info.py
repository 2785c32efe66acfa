"""The declarative table that drives the Keras (OptimizerV2) optimizer tests.

One `OptimizerInfo` row per built-in optimizer, in the spirit of PyTorch's
`torch/testing/_internal/common_optimizers.py`: the generic suites
(`test_golden.py`, `test_numerics.py`, `test_optimizer_v2.py`,
`test_multi_tensor.py`) never name an optimizer; they iterate over
`OPTIMIZER_INFOS` and read what they need from the row:

* `defaults`: the constructor defaults, i.e. `cls().get_config()` minus
  `name` (tf_keras 2.21 legacy);
* `hypers`: the names registered with `_set_hyper` (attributes that read
  as variables and can be assigned between steps); `config_only` are the
  other `get_config()` keys (plain Python attributes);
* `configs`: named configurations (`OptimizerConfig`), each with the slot
  names TF's `get_slot_names()` reports and, where TF rewrites an argument,
  the `get_config()` values it reports; the names of the configurations
  that `tests/conformance/gen_optimizers.py` recorded are the fixture's
  "variant" names, so the golden replay can cross-check the table;
* `invalid`: constructor arguments TF rejects, with TF's exception class and
  message (from tf_keras 2.21);
* `space`: hypothesis ranges for each constructor argument, all valid, for
  the property tests (`HyperRange` floats, or a tuple of choices);
* `non_float_errors`: the exception tf_keras' `apply_gradients` raises for an
  integer or a bool variable (TF fails in a kernel, `InvalidArgumentError`,
  or converting a constant to the variable's dtype, `TypeError`);
* `slot_layout`: TF's creation order of slots in `opt.weights`
  ("slot-major": `m` of every variable, then `v` ...; "var-major": all
  slots of the first variable, then of the next — Ftrl), and
  `extra_weights`: optimizer-level weights after `iter` (Nadam's
  `momentum_cache`).

Base-class behaviours that apply to every row (clipping, inverse-time decay,
schedules) are the `MODIFIERS` table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from tfcompat.framework import errors as tf_errors
from tfcompat.keras import optimizers as keras_optimizers

__all__ = [
    "OptimizerConfig", "InvalidArg", "HyperRange", "OptimizerInfo", "OPTIMIZER_INFOS", "INFO_BY_NAME",
    "ALL_CONFIGS", "MODIFIERS", "SCHEDULE_KWARGS", "BASE_INVALID", "tolerance", "config_id",
    "resolve_kwargs", "build", "to_tf_grad", "to_numpy", "count_multi_tensor_calls",
]


@dataclass(frozen=True)
class OptimizerConfig:
    """One named configuration of an optimizer.

    `kwargs` are constructor arguments; `slots` what `get_slot_names()`
    returns once slots exist; `config` the `get_config()` entries that differ
    from `defaults | kwargs` (TF rewrites `epsilon=0.0` to 1e-7, Nadam's
    `schedule_decay` to `decay`, ...); `edge` marks a configuration at an
    edge of the valid range (documentation: every configuration runs in
    every table-driven test).
    """

    name: str
    kwargs: Dict[str, Any]
    slots: Tuple[str, ...]
    config: Dict[str, Any] = field(default_factory=dict)
    edge: bool = False


@dataclass(frozen=True)
class InvalidArg:
    """Constructor arguments TF rejects: exception class and message.

    `match` is "exact" (the whole message) or "prefix" (TF appends a repr
    of Python objects, e.g. a set, whose order is not stable).
    """

    id: str
    kwargs: Dict[str, Any]
    exception: type
    message: str
    match: str = "exact"


@dataclass(frozen=True)
class HyperRange:
    """A closed float interval for hypothesis; `log` draws log-uniformly."""

    lo: float
    hi: float
    log: bool = False


@dataclass(frozen=True)
class OptimizerInfo:
    name: str
    cls: type
    defaults: Dict[str, Any]
    hypers: Tuple[str, ...]
    config_only: Tuple[str, ...]
    configs: Tuple[OptimizerConfig, ...]
    invalid: Tuple[InvalidArg, ...]
    space: Dict[str, Any]
    supports_sparse: bool = True
    supports_schedule: bool = True
    supports_decay: bool = True        # `decay` is inverse-time lr decay (not for Nadam)
    slot_layout: str = "slot-major"
    extra_weights: Tuple[str, ...] = ()
    settable: Dict[str, Any] = field(default_factory=dict)  # hyper -> a valid new value
    skip_base_invalid: Tuple[str, ...] = ()  # BASE_INVALID ids this optimizer accepts
    lr_kwarg: bool = True                     # whether the constructor honours `lr=`
    from_config_resets: Tuple[str, ...] = ()  # config keys `from_config` resets to defaults
    # hyperparameter -> values at the edges of its valid range, set between steps
    hyper_edges: Dict[str, Tuple[float, ...]] = field(default_factory=dict)
    # kwargs to use for a half-precision run, where TF itself breaks down with the defaults
    half_overrides: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    # {"int": exception, "bool": exception} for a variable that is not floating point (tf_keras 2.21)
    non_float_errors: Dict[str, type] = field(default_factory=lambda: dict(_KERNEL_ERRORS))

    @property
    def all_invalid(self) -> Tuple[InvalidArg, ...]:
        """This optimizer's invalid arguments plus the base class's it rejects."""
        return self.invalid + tuple(i for i in BASE_INVALID if i.id not in self.skip_base_invalid)

    def config(self, name: str) -> OptimizerConfig:
        for c in self.configs:
            if c.name == name:
                return c
        raise KeyError(f"{self.name} has no configuration {name!r}")

    def typical_kwargs(self) -> Dict[str, Any]:
        """A typical configuration with slots, for tests that need one."""
        for name in ("momentum", "plain", "default"):
            try:
                return dict(self.config(name).kwargs)
            except KeyError:
                continue
        return {}

    def expected_config(self, cfg: OptimizerConfig) -> Dict[str, Any]:
        """`get_config()` right after `cls(**cfg.kwargs)` (before any step)."""
        out = {"name": self.name, **self.defaults}
        out.update({k: v for k, v in cfg.kwargs.items() if k != "schedule_decay"})
        out.update(cfg.config)
        return out

    def weight_names(self, cfg: OptimizerConfig, var_names: Tuple[str, ...],
                     prefix: Optional[str] = None) -> list:
        """The names of `opt.weights` after a step over `var_names`, in TF's order."""
        prefix = prefix or self.name
        names = [f"{prefix}/iter:0"] + [f"{prefix}/{w}:0" for w in self.extra_weights]
        if self.slot_layout == "var-major":
            names += [f"{prefix}/{v}/{s}:0" for v in var_names for s in cfg.slots]
        else:
            names += [f"{prefix}/{v}/{s}:0" for s in cfg.slots for v in var_names]
        return names


_KERNEL_ERRORS = {"int": tf_errors.InvalidArgumentError, "bool": tf_errors.InvalidArgumentError}
_CONVERSION_ERRORS = {"int": TypeError, "bool": TypeError}
_CONVERSION_THEN_KERNEL_ERRORS = {"int": TypeError, "bool": tf_errors.InvalidArgumentError}

_LR = HyperRange(1e-3, 0.3, log=True)
_EPS = HyperRange(1e-7, 1e-3, log=True)
# The bias correction divides by 1 - beta_2 ** t: a one-ulp difference between
# two float32 `pow` implementations (numpy's differs from TF's at 0.9999) is
# amplified by 1 / (1 - beta_2), past float32 tolerances once beta_2 > 0.99.
# The property tests stay where results are well-conditioned; the table's
# configurations and the fixtures cover TF's default 0.999.
_BETA_2 = HyperRange(0.5, 0.99)


def _neg(name: str, value: float, rule: str = "positive or zero") -> InvalidArg:
    return InvalidArg(f"negative_{name}", {name: value}, ValueError,
                      f"`{name}` needs to be {rule}. Received: {name}={value}.")


SGD_INFO = OptimizerInfo(
    name="SGD",
    cls=keras_optimizers.SGD,
    defaults=dict(learning_rate=0.01, decay=0.0, momentum=0.0, nesterov=False),
    hypers=("learning_rate", "decay", "momentum"),
    config_only=("nesterov",),
    configs=(
        OptimizerConfig("default", {}, ()),
        OptimizerConfig("plain", dict(learning_rate=0.1), ()),
        OptimizerConfig("momentum", dict(learning_rate=0.1, momentum=0.9), ("momentum",)),
        OptimizerConfig("nesterov", dict(learning_rate=0.1, momentum=0.9, nesterov=True), ("momentum",)),
        OptimizerConfig("momentum_one", dict(learning_rate=0.1, momentum=1.0), ("momentum",), edge=True),
        OptimizerConfig("nesterov_without_momentum", dict(learning_rate=0.1, nesterov=True), (), edge=True),
    ),
    invalid=(
        InvalidArg("momentum_above_1", dict(momentum=1.5), ValueError,
                   "`momentum` must be between [0, 1]. Received: momentum=1.5 (of type <class 'float'>)."),
        InvalidArg("momentum_negative", dict(momentum=-0.1), ValueError,
                   "`momentum` must be between [0, 1]. Received: momentum=-0.1 (of type <class 'float'>)."),
    ),
    space=dict(learning_rate=_LR, momentum=(0.0, HyperRange(0.05, 0.95)), nesterov=(False, True)),
    settable=dict(learning_rate=0.05, momentum=0.5),
    hyper_edges=dict(momentum=(0.0, 1.0), learning_rate=(0.0,)),
)

ADAM_INFO = OptimizerInfo(
    name="Adam",
    cls=keras_optimizers.Adam,
    defaults=dict(learning_rate=0.001, decay=0.0, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False),
    hypers=("learning_rate", "decay", "beta_1", "beta_2"),
    config_only=("epsilon", "amsgrad"),
    configs=(
        OptimizerConfig("default", {}, ("m", "v")),
        OptimizerConfig("plain", dict(learning_rate=0.01), ("m", "v")),
        OptimizerConfig("amsgrad", dict(learning_rate=0.01, beta_2=0.9, amsgrad=True), ("m", "v", "vhat")),
        OptimizerConfig("epsilon_zero", dict(learning_rate=0.01, epsilon=0.0), ("m", "v"),
                        config=dict(epsilon=1e-7), edge=True),
        OptimizerConfig("beta_1_zero", dict(learning_rate=0.01, beta_1=0.0), ("m", "v"), edge=True),
    ),
    invalid=(),
    space=dict(learning_rate=_LR, beta_1=HyperRange(0.0, 0.95), beta_2=_BETA_2,
               epsilon=_EPS, amsgrad=(False, True)),
    settable=dict(learning_rate=0.05, beta_1=0.5, beta_2=0.99),
    hyper_edges=dict(beta_1=(0.0,), beta_2=(0.0,), learning_rate=(0.0,)),
)

ADAGRAD_INFO = OptimizerInfo(
    name="Adagrad",
    cls=keras_optimizers.Adagrad,
    defaults=dict(learning_rate=0.001, decay=0.0, initial_accumulator_value=0.1, epsilon=1e-7),
    hypers=("learning_rate", "decay"),
    config_only=("initial_accumulator_value", "epsilon"),
    configs=(
        OptimizerConfig("default", dict(learning_rate=0.1), ("accumulator",)),
        OptimizerConfig("initial_accumulator", dict(learning_rate=0.1, initial_accumulator_value=0.5),
                        ("accumulator",)),
        OptimizerConfig("zero_initial_accumulator", dict(learning_rate=0.1, initial_accumulator_value=0.0),
                        ("accumulator",), edge=True),
        OptimizerConfig("epsilon_zero", dict(learning_rate=0.1, epsilon=0.0), ("accumulator",),
                        config=dict(epsilon=1e-7), edge=True),
    ),
    invalid=(
        InvalidArg("negative_initial_accumulator", dict(initial_accumulator_value=-0.1), ValueError,
                   "initial_accumulator_value must be non-negative: -0.1"),
    ),
    space=dict(learning_rate=_LR, initial_accumulator_value=HyperRange(0.01, 1.0), epsilon=_EPS),
    settable=dict(learning_rate=0.05),
    hyper_edges=dict(learning_rate=(0.0,)),
    non_float_errors=_CONVERSION_ERRORS,
)

RMSPROP_INFO = OptimizerInfo(
    name="RMSprop",
    cls=keras_optimizers.RMSprop,
    defaults=dict(learning_rate=0.001, decay=0.0, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False),
    hypers=("learning_rate", "decay", "rho", "momentum"),
    config_only=("epsilon", "centered"),
    configs=(
        OptimizerConfig("default", {}, ("rms",)),
        OptimizerConfig("plain", dict(learning_rate=0.01), ("rms",)),
        OptimizerConfig("momentum", dict(learning_rate=0.01, momentum=0.5), ("rms", "momentum")),
        OptimizerConfig("centered", dict(learning_rate=0.01, centered=True), ("rms", "mg")),
        OptimizerConfig("centered_momentum", dict(learning_rate=0.01, momentum=0.5, centered=True),
                        ("rms", "momentum", "mg")),
        OptimizerConfig("epsilon_zero", dict(learning_rate=0.01, epsilon=0.0), ("rms",),
                        config=dict(epsilon=1e-7), edge=True),
        OptimizerConfig("rho_zero", dict(learning_rate=0.01, rho=0.0), ("rms",), edge=True),
    ),
    invalid=(
        InvalidArg("momentum_above_1", dict(momentum=1.5), ValueError,
                   "`momentum` must be between [0, 1]. Received: momentum=1.5 (of type <class 'float'>)."),
    ),
    # centered RMSprop divides by sqrt(rms - mg**2): keep epsilon away from 0
    space=dict(learning_rate=_LR, rho=HyperRange(0.5, 0.99), momentum=(0.0, HyperRange(0.1, 0.9)),
               epsilon=HyperRange(1e-4, 1e-2, log=True), centered=(False, True)),
    settable=dict(learning_rate=0.05, rho=0.5),
    hyper_edges=dict(momentum=(0.0, 1.0), rho=(0.0,), learning_rate=(0.0,)),
    non_float_errors=_CONVERSION_THEN_KERNEL_ERRORS,
)

ADADELTA_INFO = OptimizerInfo(
    name="Adadelta",
    cls=keras_optimizers.Adadelta,
    defaults=dict(learning_rate=0.001, decay=0.0, rho=0.95, epsilon=1e-7),
    hypers=("learning_rate", "decay", "rho"),
    config_only=("epsilon",),
    configs=(
        OptimizerConfig("default", {}, ("accum_grad", "accum_var")),
        OptimizerConfig("plain", dict(learning_rate=1.0), ("accum_grad", "accum_var")),
        OptimizerConfig("rho_eps", dict(learning_rate=0.5, rho=0.8, epsilon=1e-4), ("accum_grad", "accum_var")),
    ),
    invalid=(),
    space=dict(learning_rate=HyperRange(0.05, 1.0), rho=HyperRange(0.5, 0.99), epsilon=_EPS),
    settable=dict(learning_rate=0.05, rho=0.5),
    hyper_edges=dict(rho=(0.0, 1.0), learning_rate=(0.0,)),
    non_float_errors=_CONVERSION_ERRORS,
)

ADAMAX_INFO = OptimizerInfo(
    name="Adamax",
    cls=keras_optimizers.Adamax,
    defaults=dict(learning_rate=0.001, decay=0.0, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
    hypers=("learning_rate", "decay", "beta_1", "beta_2"),
    config_only=("epsilon",),
    configs=(
        OptimizerConfig("default", {}, ("m", "v")),
        OptimizerConfig("plain", dict(learning_rate=0.01), ("m", "v")),
        OptimizerConfig("betas", dict(learning_rate=0.01, beta_1=0.5, beta_2=0.9, epsilon=1e-3), ("m", "v")),
    ),
    invalid=(),
    space=dict(learning_rate=_LR, beta_1=HyperRange(0.0, 0.95), beta_2=HyperRange(0.5, 0.9999),
               epsilon=_EPS),
    settable=dict(learning_rate=0.05, beta_2=0.5),
    hyper_edges=dict(beta_1=(0.0,), beta_2=(0.0,), learning_rate=(0.0,)),
    non_float_errors=_CONVERSION_THEN_KERNEL_ERRORS,
)

NADAM_INFO = OptimizerInfo(
    name="Nadam",
    cls=keras_optimizers.Nadam,
    # `decay` is Nadam's momentum-schedule decay (constructor: schedule_decay)
    defaults=dict(learning_rate=0.001, decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
    hypers=("learning_rate", "decay", "beta_1", "beta_2"),
    config_only=("epsilon",),
    configs=(
        OptimizerConfig("default", {}, ("m", "v")),
        OptimizerConfig("plain", dict(learning_rate=0.01), ("m", "v")),
        OptimizerConfig("schedule_decay", dict(learning_rate=0.01, schedule_decay=0.1), ("m", "v"),
                        config=dict(decay=0.1)),
    ),
    invalid=(
        InvalidArg("schedule", dict(learning_rate="__schedule__"), ValueError,
                   "The Nadam optimizer does not support tf.keras.optimizers.LearningRateSchedules as the "
                   "learning rate."),
    ),
    space=dict(learning_rate=_LR, beta_1=HyperRange(0.5, 0.95), beta_2=_BETA_2,
               epsilon=_EPS, schedule_decay=HyperRange(0.0, 0.1)),
    supports_schedule=False,
    supports_decay=False,
    extra_weights=("momentum_cache",),
    settable=dict(learning_rate=0.05, beta_2=0.99),
    hyper_edges=dict(beta_1=(0.0,), learning_rate=(0.0,)),
    # Nadam overwrites `decay` with `schedule_decay`: a negative decay is ignored, and
    # `from_config(get_config())` loses a non-default schedule_decay (TF does the same)
    skip_base_invalid=("negative_decay",),
    from_config_resets=("decay",),
    # beta_2 = 0.999 rounds to 1.0 in bfloat16, so 1 - beta_2 ** t = 0 and TF's
    # Nadam produces NaN; 0.99 is representable enough to train.
    half_overrides={"bfloat16": dict(beta_2=0.99)},
    non_float_errors=_CONVERSION_ERRORS,
)

FTRL_INFO = OptimizerInfo(
    name="Ftrl",
    cls=keras_optimizers.Ftrl,
    defaults=dict(learning_rate=0.001, decay=0.0, initial_accumulator_value=0.1, learning_rate_power=-0.5,
                  l1_regularization_strength=0.0, l2_regularization_strength=0.0, beta=0.0,
                  l2_shrinkage_regularization_strength=0.0),
    hypers=("learning_rate", "decay", "learning_rate_power", "l1_regularization_strength",
            "l2_regularization_strength", "beta"),
    config_only=("initial_accumulator_value", "l2_shrinkage_regularization_strength"),
    configs=(
        OptimizerConfig("default", {}, ("accumulator", "linear")),
        OptimizerConfig("plain", dict(learning_rate=0.1), ("accumulator", "linear")),
        OptimizerConfig("l1", dict(learning_rate=0.1, l1_regularization_strength=0.2), ("accumulator", "linear")),
        OptimizerConfig("l2", dict(learning_rate=0.1, l2_regularization_strength=0.3), ("accumulator", "linear")),
        OptimizerConfig("l2_shrinkage", dict(learning_rate=0.1, l2_shrinkage_regularization_strength=0.1),
                        ("accumulator", "linear")),
        OptimizerConfig("beta", dict(learning_rate=0.1, beta=0.5), ("accumulator", "linear")),
        OptimizerConfig("lr_power_0", dict(learning_rate=0.1, learning_rate_power=0.0),
                        ("accumulator", "linear"), edge=True),
        OptimizerConfig("lr_power_-0.25", dict(learning_rate=0.1, learning_rate_power=-0.25),
                        ("accumulator", "linear")),
        OptimizerConfig("initial_accumulator", dict(learning_rate=0.1, initial_accumulator_value=0.5),
                        ("accumulator", "linear")),
        OptimizerConfig("zero_initial_accumulator", dict(learning_rate=0.1, initial_accumulator_value=0.0),
                        ("accumulator", "linear"), edge=True),
        OptimizerConfig("all", dict(learning_rate=0.1, l1_regularization_strength=0.05,
                                    l2_regularization_strength=0.2, l2_shrinkage_regularization_strength=0.1,
                                    beta=0.3, initial_accumulator_value=0.2), ("accumulator", "linear")),
    ),
    invalid=(
        _neg("initial_accumulator_value", -0.1),
        InvalidArg("positive_lr_power", dict(learning_rate_power=0.5), ValueError,
                   "`learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.5."),
        _neg("l1_regularization_strength", -0.1),
        _neg("l2_regularization_strength", -0.1),
        _neg("l2_shrinkage_regularization_strength", -0.1),
    ),
    # A small learning rate makes sigma = (sqrt(new_acc) - sqrt(acc)) / lr large, so `linear`
    # becomes a difference of large terms decided by single ulps of sqrt: the property tests
    # keep lr >= 0.1 (test_ftrl_tiny_gradient_matches_tf pins an ill-conditioned case).
    space=dict(learning_rate=HyperRange(0.1, 1.0, log=True), learning_rate_power=(-0.5, HyperRange(-1.0, 0.0)),
               initial_accumulator_value=HyperRange(0.05, 1.0), l1_regularization_strength=(0.0, HyperRange(0.0, 0.1)),
               l2_regularization_strength=(0.0, HyperRange(0.0, 0.5)),
               l2_shrinkage_regularization_strength=(0.0, HyperRange(0.0, 0.2)),
               beta=(0.0, HyperRange(0.0, 1.0))),
    slot_layout="var-major",
    settable=dict(learning_rate=0.05, l2_regularization_strength=0.1),
    # (learning_rate=0 divides by zero in TF's FTRL too)
    hyper_edges=dict(learning_rate_power=(0.0, -1.0), l1_regularization_strength=(0.0, 1.0),
                     l2_regularization_strength=(0.0,), beta=(0.0,)),
    lr_kwarg=False,  # TF's Ftrl ignores `lr=` (it still validates it)
    non_float_errors=_CONVERSION_ERRORS,
)

OPTIMIZER_INFOS: Tuple[OptimizerInfo, ...] = (
    SGD_INFO, ADAM_INFO, ADAGRAD_INFO, RMSPROP_INFO, ADADELTA_INFO, ADAMAX_INFO, NADAM_INFO, FTRL_INFO)
INFO_BY_NAME: Dict[str, OptimizerInfo] = {info.name: info for info in OPTIMIZER_INFOS}

#: Every (info, configuration) pair, for parametrization.
ALL_CONFIGS = tuple((info, cfg) for info in OPTIMIZER_INFOS for cfg in info.configs)


def config_id(pair) -> str:
    info, cfg = pair
    return f"{info.name}/{cfg.name}"


#: Base-class options every optimizer accepts: name -> extra constructor
#: kwargs ("__schedule__" is replaced by an ExponentialDecay schedule).
MODIFIERS: Dict[str, Dict[str, Any]] = {
    "decay": dict(decay=0.1),
    "clipnorm": dict(clipnorm=0.5),
    "clipvalue": dict(clipvalue=0.3),
    "global_clipnorm": dict(global_clipnorm=0.7),
    "lr_schedule": dict(learning_rate="__schedule__"),
}

#: The schedule `MODIFIERS["lr_schedule"]` stands for (the fixture's).
SCHEDULE_KWARGS = dict(initial_learning_rate=0.1, decay_steps=2, decay_rate=0.5)

#: Constructor kwargs every optimizer rejects, from `OptimizerV2.__init__`.
BASE_INVALID: Tuple[InvalidArg, ...] = (
    InvalidArg("unexpected_kwarg", dict(foo=1.0), TypeError,
               "Unexpected keyword argument passed to optimizer: foo. ", match="prefix"),
    InvalidArg("negative_decay", dict(decay=-1.0), ValueError, "Expected decay >= 0, received: -1.0"),
    InvalidArg("negative_clipnorm", dict(clipnorm=-1.0), ValueError, "Expected clipnorm >= 0, received: -1.0"),
    InvalidArg("negative_clipvalue", dict(clipvalue=-1.0), ValueError, "Expected clipvalue >= 0, received: -1.0"),
    InvalidArg("negative_global_clipnorm", dict(global_clipnorm=-1.0), ValueError,
               "Expected global_clipnorm >= 0, received: -1.0"),
    InvalidArg("negative_lr_alias", dict(lr=-1.0), ValueError, "Expected lr >= 0, received: -1.0"),
    InvalidArg("clipnorm_and_global_clipnorm", dict(clipnorm=1.0, global_clipnorm=1.0), ValueError,
               "Cannot accept both `clipnorm` and `global_clipnorm`. Received: `clipnorm`=1.0, "
               "`global_clipnorm`=1.0."),
)

# (rtol, atol) per dtype for tfcompat vs TF / the numpy reference.
_TOLERANCES = {
    "float64": (1e-12, 1e-14),
    "float32": (1e-5, 1e-6),
    "float16": (1e-3, 1e-3),
}


def tolerance(dtype: str, optimizer: str = "", config: Optional[Dict[str, Any]] = None) -> Tuple[float, float]:
    """(rtol, atol) for comparing a run of `optimizer` in `dtype` with TF's numbers.

    Ftrl with `learning_rate_power` outside (-0.5, 0) raises the accumulator
    to a general power; TF's vectorised pow differs from torch's by an ulp,
    amplified by the `sigma * var` term: 10x looser.
    """
    rtol, atol = _TOLERANCES[str(dtype)]
    if optimizer == "Ftrl" and config is not None:
        p = float(config.get("learning_rate_power", -0.5))
        if p not in (-0.5, 0.0) and str(dtype) != "float16":
            rtol, atol = rtol * 10, atol * 10
    return rtol, atol


# ---------------------------------------------------------------------------
# helpers the suites share: building optimizers, variables and gradients
# ---------------------------------------------------------------------------


def resolve_kwargs(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """Constructor kwargs with schedules built: "__schedule__" and serialized dicts."""
    out = dict(kwargs)
    lr = out.get("learning_rate")
    if lr == "__schedule__":
        out["learning_rate"] = keras_optimizers.schedules.ExponentialDecay(**SCHEDULE_KWARGS)
    elif isinstance(lr, dict):
        out["learning_rate"] = keras_optimizers.schedules.deserialize(lr)
    return out


def build(name_or_info: Any, kwargs: Dict[str, Any], multi_tensor: bool = True) -> Any:
    """`cls(**kwargs)` with the update path chosen (`use_multi_tensor`)."""
    info = INFO_BY_NAME[name_or_info] if isinstance(name_or_info, str) else name_or_info
    opt = info.cls(**resolve_kwargs(kwargs))
    opt.use_multi_tensor = multi_tensor
    return opt


def to_tf_grad(g: Any, dtype: Any) -> Any:
    """A gradient for tfcompat from fixture / reference form.

    A dict `{"indices", "values", "dense_shape"}` or a
    `numpy_reference.Sparse` becomes `tf.IndexedSlices` (int32 indices);
    anything else a dense `torch.Tensor` of `dtype`.
    """
    import numpy as np
    import torch
    import tfcompat as tf

    if isinstance(g, dict) or hasattr(g, "indices"):
        get = g.__getitem__ if isinstance(g, dict) else lambda k: getattr(g, k)
        values = torch.from_numpy(np.array(get("values"), dtype=dtype))
        indices = torch.tensor(np.asarray(get("indices")).reshape(-1), dtype=torch.int32)
        dense_shape = get("dense_shape")
        shape = None if dense_shape is None else torch.tensor(list(dense_shape), dtype=torch.int32)
        return tf.IndexedSlices(values, indices, shape)
    return torch.from_numpy(np.array(g, dtype=dtype))


def to_numpy(x: Any) -> Any:
    """A variable's or tensor's value as a numpy array (bfloat16 widened to float32)."""
    import numpy as np
    import torch

    if hasattr(x, "numpy") and not isinstance(x, torch.Tensor):
        return np.asarray(x.numpy())
    t = x.detach().cpu()
    if t.dtype is torch.bfloat16:
        t = t.float()
    return t.numpy()


def count_multi_tensor_calls(info: "OptimizerInfo", monkeypatch: Any) -> list:
    """Make `info.cls`'s multi-tensor update record each call's group size in the list returned."""
    calls: list = []
    fast = info.cls._multi_tensor_apply_dense

    def spy(self, group, grads, coefficients):
        calls.append(len(group))
        return fast(self, group, grads, coefficients)

    monkeypatch.setattr(info.cls, "_multi_tensor_apply_dense", spy)
    monkeypatch.setattr(info.cls, "_multi_tensor_ok", True, raising=False)  # the spy is not an override
    return calls


def _check_table() -> None:
    """Cheap self-consistency of the table (runs at import)."""
    for info in OPTIMIZER_INFOS:
        names = [c.name for c in info.configs]
        assert len(names) == len(set(names)), info.name
        assert set(info.hypers) | set(info.config_only) == set(info.defaults), info.name
        assert set(info.settable) <= set(info.hypers), info.name
        assert set(info.hyper_edges) <= set(info.hypers), info.name
        for key in info.space:
            assert key in info.defaults or key == "schedule_decay", (info.name, key)
    assert not math.isnan(SCHEDULE_KWARGS["decay_rate"])


_check_table()

