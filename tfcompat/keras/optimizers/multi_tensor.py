"""The machinery behind the optimizers' multi-tensor fast path.

A dense step over hundreds of variables must cost a handful of kernel
launches, not a Python loop, and must not wait on the device. This module
provides the pieces the algorithm files use:

* `DenseGroup`: the variables of one step that share a device and dtype,
  with their gradients and slot tensors gathered into the flat lists that
  torch's `_foreach_*` and `_fused_*` kernels take. The lists are built
  from each variable's storage, made exclusive first (see
  `variables/resource.py`): the kernels write in place, so a snapshot
  someone still holds must be copied away first.
* `HostScalars`: host-side (Python float) copies of small device values
  such as the iteration count and hyperparameters. Fused kernels take
  `beta1`, `eps`, ... as host floats; reading a device tensor every step
  would stall an asynchronous CUDA stream. A mirror is refreshed only when
  the source tensor was replaced or written by someone else (torch's
  per-tensor version counter says so), which the optimizer's own steps
  never do.
* `scalar`, `host_value`, `round_to`, `one_minus`: constants the steps use
  (epsilon in the variables' dtype, `1 - beta` as a host float), computed
  once per (value, dtype[, device]) instead of once per step: building a
  device tensor from a Python number is a blocking host-to-device copy, and
  the host floats cost CPU tensor arithmetic plus a conversion each.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional

import torch

__all__ = ["DenseGroup", "HostScalars", "Coefficients", "fused_available", "deduplicate", "scalar",
           "host_value", "round_to", "one_minus"]


class Coefficients(dict):
    """One (device, dtype)'s `apply_state` entry, with entries computed on first use.

    `_prepare_local` may `defer(fn)` work that only some update paths read
    (the bias-corrected learning rate of Adam's per-variable rule, say): the
    fused kernels never ask for it, so a fused step launches no kernels to
    compute it. `fn()` returns a dict of entries; deferred functions run in
    order, as far as needed, when a missing entry is read through `[]`,
    `get` or `in`.
    """

    __slots__ = ("_deferred",)

    def __init__(self) -> None:
        super().__init__()
        self._deferred: list = []

    def defer(self, fn: Callable[[], dict]) -> None:
        self._deferred.append(fn)

    def _resolve(self, key: Any) -> bool:
        """Run deferred functions until `key` is present; whether it is."""
        while self._deferred and not dict.__contains__(self, key):
            self.update(self._deferred.pop(0)())
        return dict.__contains__(self, key)

    def __missing__(self, key: Any) -> Any:
        if not self._resolve(key):
            raise KeyError(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            return default
        return self[key]

    def __contains__(self, key: Any) -> bool:
        return dict.__contains__(self, key) or self._resolve(key)


def fused_available(kind: str, device: torch.device, dtype: torch.dtype) -> bool:
    """Whether torch has a fused kernel `kind` ("adam", "adagrad", "sgd") for this placement."""
    if dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return False
    if kind == "adagrad":
        return device.type == "cpu" and hasattr(torch, "_fused_adagrad_")
    name = {"adam": "_fused_adam_", "sgd": "_fused_sgd_"}[kind]
    return device.type in ("cpu", "cuda") and hasattr(torch, name)


class DenseGroup:
    """The variables of one (device, dtype) group of dense multi-tensor updates.

    Built once per variable list and reused every step: it caches the
    variables' storage cells and their slots' cells, so a step only reads
    the current tensors (made exclusive) into flat lists.
    """

    __slots__ = ("variables", "grads", "device", "dtype", "constrained", "_resources",
                 "_slot_lookup", "_slot_resources", "_fused")

    def __init__(self, variables: list, slot_lookup: Callable[[Any, str], Any]) -> None:
        self.variables = variables
        self.grads: Optional[list] = None  # set for the duration of a step
        self._resources = [v._resource for v in variables]
        first = self._resources[0].value
        self.device = first.device
        self.dtype = first.dtype
        self.constrained = [v for v in variables if v.constraint is not None]
        self._slot_lookup = slot_lookup
        self._slot_resources: dict = {}
        self._fused: dict = {}

    def has_fused(self, kind: str) -> bool:
        """`fused_available(kind, ...)` for this group's device and dtype (they never change)."""
        fused = self._fused.get(kind)
        if fused is None:
            fused = self._fused[kind] = fused_available(kind, self.device, self.dtype)
        return fused

    def params(self) -> list:
        """The variables' storage tensors, exclusive, for in-place kernels."""
        return [r.value if not r.aliased else r.exclusive() for r in self._resources]

    def slot(self, name: str) -> list:
        """Storage tensors of slot `name` of every variable, exclusive."""
        resources = self._slot_resources.get(name)
        if resources is None:
            resources = [self._slot_lookup(v, name)._resource for v in self.variables]
            self._slot_resources[name] = resources
        return [r.value if not r.aliased else r.exclusive() for r in resources]

    def __len__(self) -> int:
        return len(self.variables)


class HostScalars:
    """Python-float mirrors of 0-d device tensors, refreshed only when they change."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict = {}

    def read(self, key: Any, tensor: torch.Tensor, convert: Callable[[torch.Tensor], Any]) -> Any:
        """`convert(tensor)`, computed once per (tensor object, version)."""
        entry = self._cache.get(key)
        if entry is not None and entry[0] is tensor and entry[1] == tensor._version:
            return entry[2]
        value = convert(tensor)  # the only host read: after an outside write
        self._cache[key] = (tensor, tensor._version, value)
        return value

    def record(self, key: Any, tensor: torch.Tensor, value: Any) -> None:
        """Tell the mirror the value the optimizer itself just wrote."""
        self._cache[key] = (tensor, tensor._version, value)


def deduplicate(values: torch.Tensor, indices: torch.Tensor) -> tuple:
    """Sum the rows of `values` that share an index (TF's `_deduplicate_indexed_slices`).

    Returns `(summed_values, unique_indices)`. Rows are summed in order of
    appearance, as `unsorted_segment_sum` does.
    """
    flat = indices.reshape(-1)
    unique, inverse = torch.unique(flat, return_inverse=True)
    if unique.numel() == flat.numel():
        return values, flat
    tail = tuple(values.shape[1:])
    summed = torch.zeros((unique.numel(),) + tail, dtype=values.dtype, device=values.device)
    summed.index_add_(0, inverse, values.reshape((flat.numel(),) + tail))
    return summed, unique.to(indices.dtype)


def _zero_sign(value: Any) -> float:
    """Part of the cache keys below: 0.0 == -0.0 (and hash alike), but they round differently."""
    return math.copysign(1.0, value)


def scalar(value: Any, dtype: torch.dtype, device: torch.device,
           via: Optional[torch.dtype] = None) -> torch.Tensor:
    """A 0-d tensor holding `torch.tensor(value, dtype=via).to(dtype)` on `device`, built once.

    The same tensor is returned for the same arguments, so callers must only
    read it. It is filled on the device (no host-to-device copy): a float64
    fill holds the Python float exactly, and the casts round as
    `torch.tensor(value, dtype=...)` does. (A value that is not a Python
    number, such as a tensor epsilon, is converted each call, uncached.)
    """
    if not isinstance(value, (int, float)):
        t = torch.as_tensor(value, device=device)
        return (t.to(via) if via is not None else t).to(dtype)
    return _scalar(value, _zero_sign(value), dtype, device, via)


@functools.lru_cache(maxsize=256)
def _scalar(value: Any, sign: float, dtype: torch.dtype, device: torch.device,
            via: Optional[torch.dtype]) -> torch.Tensor:
    t = torch.full((), value, dtype=torch.float64, device=device)
    if via is not None:
        t = t.to(via)
    return t.to(dtype)


def host_value(value: float, dtype: torch.dtype) -> float:
    """`value` rounded to `dtype` (as `torch.tensor(value, dtype=dtype)`), as a Python float."""
    if not isinstance(value, (int, float)):
        return float(torch.as_tensor(value).to(dtype).to(torch.float64))
    return _host_value(value, _zero_sign(value), dtype)


@functools.lru_cache(maxsize=256)
def _host_value(value: float, sign: float, dtype: torch.dtype) -> float:
    return float(torch.tensor(value, dtype=dtype).to(torch.float64))


def round_to(value: float, dtype: torch.dtype) -> float:
    """`value` as a float32 hyperparameter read in `dtype` (TF's variable + cast)."""
    return _round_to(value, _zero_sign(value), dtype)


@functools.lru_cache(maxsize=256)
def _round_to(value: float, sign: float, dtype: torch.dtype) -> float:
    return float(torch.tensor(value, dtype=torch.float32).to(dtype).to(torch.float64))


@functools.lru_cache(maxsize=256)
def one_minus(value: float, dtype: torch.dtype) -> float:
    """`1 - value` computed in `dtype` (as TF computes `1 - beta_t`), as a Python float."""
    # (1 - 0.0 and 1 - -0.0 are both 1.0: no sign in the key.)
    one = torch.ones((), dtype=dtype)
    return float((one - torch.tensor(value, dtype=dtype)).to(torch.float64))
