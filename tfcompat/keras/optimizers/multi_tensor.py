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
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

__all__ = ["DenseGroup", "HostScalars", "Coefficients", "fused_available", "deduplicate"]


class Coefficients(dict):
    """One (device, dtype)'s `apply_state` entry, with entries computed on first use.

    `_prepare_local` may `defer(fn)` work that only some update paths read
    (the bias-corrected learning rate of Adam's per-variable rule, say): the
    fused kernels never ask for it, so a fused step launches no kernels to
    compute it. `fn()` returns a dict of entries; it runs when any missing
    entry is read, through `[]`, `get` or `in`.
    """

    __slots__ = ("_deferred",)

    def __init__(self) -> None:
        super().__init__()
        self._deferred: list = []

    def defer(self, fn: Callable[[], dict]) -> None:
        self._deferred.append(fn)

    def _resolve(self) -> None:
        while self._deferred:
            self.update(self._deferred.pop(0)())

    def __missing__(self, key: Any) -> Any:
        if not self._deferred:
            raise KeyError(key)
        self._resolve()
        return self[key]

    def get(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            return default
        return self[key]

    def __contains__(self, key: Any) -> bool:
        if dict.__contains__(self, key):
            return True
        self._resolve()
        return dict.__contains__(self, key)


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
                 "_slot_lookup", "_slot_resources")

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


def round_to(value: float, dtype: torch.dtype) -> float:
    """`value` as a float32 hyperparameter read in `dtype` (TF's variable + cast)."""
    return float(torch.tensor(value, dtype=torch.float32).to(dtype).to(torch.float64))


def one_minus(value: float, dtype: torch.dtype) -> float:
    """`1 - value` computed in `dtype` (as TF computes `1 - beta_t`), as a Python float."""
    one = torch.ones((), dtype=dtype)
    return float((one - torch.tensor(value, dtype=dtype)).to(torch.float64))
