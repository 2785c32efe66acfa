"""`tf.data.Options` and its option groups: typed, mergeable records of settings.

As TF: every option starts unset (its getter gives the default, mostly
`None`), setting a name the group does not have is an `AttributeError`,
setting a value of the wrong type is a `TypeError`, and
`merge`/`Dataset.with_options` combine records with the later setting
winning, group by group. The `Options` a dataset's `options()` returns is
frozen: mutating it is a `ValueError` (use `with_options`).

tfcompat's pipelines are plain Python, so almost every option is recorded
and not acted on; `experimental_distribute.auto_shard_policy` is read by
`strategy.experimental_distribute_dataset` (see `docs/data.md`).
"""

from __future__ import annotations

import enum
from typing import Any, Callable, Dict, Optional, Tuple

__all__ = ["Options", "DistributeOptions", "OptimizationOptions", "ThreadingOptions",
           "AutotuneOptions", "AutoShardPolicy", "AutotuneAlgorithm", "ExternalStatePolicy",
           "merge_options"]


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded across workers (`tf.data.experimental.AutoShardPolicy`).

    tfcompat datasets read no files, so AUTO means DATA: every worker reads
    every element and keeps its own part. OFF: every worker keeps the whole
    input. FILE has no files to shard (an error when distributed).
    """

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    """Accepted for `AutotuneOptions.autotune_algorithm`; nothing is tuned."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    """Accepted for `Options.experimental_external_state_policy`."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsRecord:
    """A group of typed options; subclasses list `_FIELDS = {name: (type, default_factory)}`."""

    _FIELDS: Dict[str, Tuple[Any, Callable[[], Any]]] = {}

    def __init__(self) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_mutable", True)

    def __getattr__(self, name: str) -> Any:
        fields = type(self)._FIELDS
        if name.startswith("_") or name not in fields:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        values = object.__getattribute__(self, "_values")
        if name not in values:
            default = fields[name][1]()
            if isinstance(default, _OptionsRecord):  # a nested group is created on first read
                default._set_mutable(object.__getattribute__(self, "_mutable"))
                values[name] = default
            return default
        return values[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise ValueError("Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` "
                             "has no effect. Use `tf.data.Dataset.with_options(options)` to set or "
                             "update dataset options.")
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = fields[name][0]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f'Property "{name}" must be of type {kind}, got: {value} '
                            f"(type: {type(value)})")
        self._values[name] = value

    def _set_mutable(self, mutable: bool) -> None:
        object.__setattr__(self, "_mutable", mutable)
        for value in self._values.values():
            if isinstance(value, _OptionsRecord):
                value._set_mutable(mutable)

    def _set_names(self) -> list:
        return [n for n, v in self._values.items()
                if not (isinstance(v, _OptionsRecord) and not v._set_names())]

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n)
                   for n in set(self._values) | set(other._values))

    def __ne__(self, other: Any) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # mutable records, as TF's

    def __repr__(self) -> str:
        items = ", ".join(f"{n}={getattr(self, n)!r}" for n in sorted(self._set_names()))
        return f"{type(self).__name__}({items})"

    def merge(self, options: "_OptionsRecord") -> "_OptionsRecord":
        """A new record: these options, overridden by those set in `options`."""
        return merge_options(self, options)


def merge_options(*records: _OptionsRecord) -> _OptionsRecord:
    """Merge records of one type: for each option the last record that set it wins
    (nested groups merge recursively)."""
    if not records:
        raise ValueError("At least one options should be provided")
    kind = type(records[0])
    for r in records:
        if not isinstance(r, kind):
            raise TypeError(f"Could not merge incompatible options of type {type(r)} and {kind}.")
    out = kind()
    for r in records:
        for name, value in r._values.items():
            if isinstance(value, _OptionsRecord):
                current = out._values.get(name)
                out._values[name] = (merge_options(value) if current is None
                                     else merge_options(current, value))
            else:
                out._values[name] = value
    return out


def _none() -> None:
    return None


class AutotuneOptions(_OptionsRecord):
    """`tf.data.experimental.AutotuneOptions`: recorded, not acted on."""

    _FIELDS = {"enabled": (bool, _none), "cpu_budget": (int, _none), "ram_budget": (int, _none),
               "autotune_algorithm": (AutotuneAlgorithm, _none),
               "initial_parallelism": (int, _none), "min_parallelism": (int, _none)}


class DistributeOptions(_OptionsRecord):
    """`tf.data.experimental.DistributeOptions`: `auto_shard_policy` (default AUTO) and
    `num_devices`."""

    _FIELDS = {"auto_shard_policy": (AutoShardPolicy, lambda: AutoShardPolicy.AUTO),
               "num_devices": (int, _none)}


class OptimizationOptions(_OptionsRecord):
    """`tf.data.experimental.OptimizationOptions`: graph rewrites TF may apply; recorded only."""

    _FIELDS = {name: (bool, _none) for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "seq_interleave_prefetch", "map_and_batch_fusion",
        "map_and_filter_fusion", "map_fusion", "map_parallelization", "noop_elimination",
        "parallel_batch", "shuffle_and_repeat_fusion")}


class ThreadingOptions(_OptionsRecord):
    """`tf.data.ThreadingOptions`: recorded only (pipelines run on the caller's thread)."""

    _FIELDS = {"max_intra_op_parallelism": (int, _none), "private_threadpool_size": (int, _none)}


class Options(_OptionsRecord):
    """`tf.data.Options`: options attached to a dataset with `Dataset.with_options`.

    `experimental_threading` is TF's older name of `threading`, and
    `experimental_deterministic` of `deterministic`; both spellings read and
    write the same option.
    """

    _FIELDS = {
        "autotune": (AutotuneOptions, AutotuneOptions),
        "deterministic": (bool, _none),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_external_state_policy": (ExternalStatePolicy, _none),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_slack": (bool, _none),
        "experimental_symbolic_checkpoint": (bool, _none),
        "experimental_warm_start": (bool, _none),
        "dataset_name": (str, _none),
        "framework_type": (list, _none),
        "threading": (ThreadingOptions, ThreadingOptions),
    }
    _ALIASES = {"experimental_threading": "threading",
                "experimental_deterministic": "deterministic"}

    def __getattr__(self, name: str) -> Any:
        return super().__getattr__(Options._ALIASES.get(name, name))

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(Options._ALIASES.get(name, name), value)


def frozen(options: Optional[Options]) -> Options:
    """A copy of `options` (a fresh `Options` for None) that refuses mutation."""
    out = merge_options(Options(), options) if options is not None else Options()
    out._set_mutable(False)
    return out
