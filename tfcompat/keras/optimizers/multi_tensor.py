"""The machinery behind the optimizers' multi-tensor fast path.

A dense step over hundreds of variables must cost a handful of kernel
launches, not a Python loop, and must not wait on the device. This module
provides what the algorithm files and the optimizer share:

* `DenseGroup`: the variables of one step that share a device and dtype,
  as the storage cells of the variables and of their slots (the storage
  protocol, `framework/variable_protocol.py`). A step reads each cell's live
  tensor into the flat lists torch's `_foreach_*` and `_fused_*` kernels
  take and writes them in place while holding the cells' lock (one lock per
  device: one acquisition per group). A group refers to its variables by
  position only, so a cached group never keeps a variable alive.
* `choose_kernel`: which implementation of an algorithm's functional core
  runs for a group's layout (fused or foreach; see its docstring).
  Every foreach implementation is TF's sequence of operations, each
  rounded to the dtype; the fused kernels (float32/float64 Adam and
  Adagrad) fold some operations into fused multiply-adds, within an ulp.
* `HostMirrors`: Python-number copies of small device values (tensor or
  variable hyperparameters such as Adam's `beta_1`), which torch's fused
  kernels take as host floats. Reading a device tensor every step would
  stall an asynchronous stream; a mirror is re-read only when its source
  changed, as the source's storage token (`Resource.token()`) says. Every
  write through tfcompat changes the token, and so does handing the live
  tensor to outside code (`Variable.handle`, which a collective or a numpy
  view may write behind torch's back).
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
from torch.utils._python_dispatch import _disable_current_modes

from ...framework import variable_protocol as protocol
from ...variables.resource import same_token
from ...variables.scatter import runs

__all__ = ["DenseGroup", "HostMirrors", "choose_kernel", "fused_available", "HALF_DTYPES",
           "make_dense_groups", "add_scalar", "add_scalar_", "pow_scalar", "cwise_max", "cwise_max_",
           "deduplicate", "deduplicate_padded", "PAD_INDEX", "scalar", "host_value", "round_to", "one_minus"]

#: Dtypes whose arithmetic torch's fused kernels carry out in float32: TF rounds every
#: operation to the dtype itself, so these always take the foreach implementations.
HALF_DTYPES = (torch.float16, torch.bfloat16)

# Below this many elements per tensor (TensorIterator's grain size, so the foreach ops run
# each tensor on one thread), a CPU fused kernel's per-tensor `parallel_for` (grain size 0:
# every tensor is split across all threads) dominates its cost.
_CPU_FUSED_MIN_NUMEL = 32768
# From how many threads the foreach form of each algorithm beats its fused kernel on such
# tensors (see `choose_kernel`).
_CPU_FOREACH_FROM_THREADS = {"adagrad": 8, "adam": 13}


def fused_available(kind: str, device: torch.device, dtype: torch.dtype) -> bool:
    """Whether torch has a fused kernel `kind` ("adam", "adagrad") usable for this placement.

    (SGD has none that rounds as TF: see `sgd.sgd`.)
    """
    if dtype not in (torch.float32, torch.float64):
        return False  # (half precision: see HALF_DTYPES)
    if kind == "adagrad":
        return device.type == "cpu" and hasattr(torch, "_fused_adagrad_")
    if kind == "adam":
        return device.type in ("cpu", "cuda") and hasattr(torch, "_fused_adam_")
    return False


def choose_kernel(kind: str, tensors: list) -> str:
    """The implementation of algorithm `kind` for one (device, dtype) group: "fused" or "foreach".

    * half precision (float16, bfloat16) is always "foreach": torch's fused
      kernels compute it in float32 and round once, TF rounds every
      operation (the foreach implementations follow TF's operation order);
    * where torch has no fused kernel for the algorithm and placement,
      "foreach";
    * on CUDA, "fused" (one launch per chunk of tensors against one per op);
    * on CPU, "fused" (one pass over memory against several), except for
      small tensors (under 32768 elements on average) on many threads. A
      fused kernel fans every tensor out to all of torch's threads, the
      foreach ops keep each small tensor on one. Measured per tensor of 100
      floats (torch 2.13, 2000 tensors, interleaved runs): fused Adagrad,
      Adam 0.4, 0.6 us on one thread and 1.2, 1.5 us on two (about +0.9 us a
      thread; fused SGD likewise, 1.1 and 2.0 us), foreach 6.0, 11 us (SGD
      3.5) on either. The crossovers, extrapolated linearly in the thread
      count, are at 8 and 13 threads (SGD's would be 4: torch's foreach SGD
      was measured 2.3-3.6x faster than its fused kernel on a many-core
      host); from there the foreach form runs.
    """
    first = tensors[0]
    if not fused_available(kind, first.device, first.dtype):
        return "foreach"
    if first.device.type == "cpu" and torch.get_num_threads() >= _CPU_FOREACH_FROM_THREADS[kind]:
        total = sum(t.numel() for t in tensors)
        if total < _CPU_FUSED_MIN_NUMEL * len(tensors):
            return "foreach"
    return "fused"


class DenseGroup:
    """The variables of one (device, dtype) group of dense multi-tensor updates.

    Built once per variable list and reused every step. `indices` are the
    variables' positions in that list; `cells` their storage cells and
    `slot_cells[name]` their slots' (in the same order). `params()` and
    `slot(name)` return the live tensors, to be written in place while
    holding `lock`. `constrained` are the positions (in the list) of the
    variables with a constraint, applied after the update.
    """

    __slots__ = ("key", "indices", "cells", "slot_cells", "device", "dtype", "lock", "constrained",
                 "_kernels")

    def __init__(self, key: tuple, indices: list, cells: list, slot_cells: dict,
                 constrained: list) -> None:
        self.key = key
        self.indices = indices
        self.cells = cells
        self.slot_cells = slot_cells
        first = cells[0].value
        self.device = first.device
        self.dtype = first.dtype
        self.lock = cells[0].lock  # every cell on a device shares it
        self.constrained = constrained
        self._kernels: dict = {}

    def params(self) -> list:
        """The variables' live storage tensors, for in-place kernels (hold `lock`)."""
        return [c.value for c in self.cells]

    def slot(self, name: str) -> list:
        """The live storage tensors of slot `name` of every variable (hold `lock`)."""
        try:
            cells = self.slot_cells[name]
        except KeyError:
            raise KeyError(f"{name!r}: the variables of this group have no such slot (their slots "
                           f"are {sorted(self.slot_cells)}).") from None
        return [c.value for c in cells]

    def kernel(self, kind: str) -> str:
        """`choose_kernel(kind, ...)` for this group (its layout changes only with a reshape)."""
        choice = self._kernels.get(kind)
        if choice is None:
            choice = self._kernels[kind] = choose_kernel(kind, self.params())
        return choice

    def __len__(self) -> int:
        return len(self.cells)


def make_dense_groups(variables: list, slots_of: Callable[[Any], dict]) -> list:
    """`(key, DenseGroup or None, indices)` per (device, dtype) of `variables`, in first-seen order.

    The group is None where a variable or one of its slots has no storage
    cell (a creator returned another kind of variable): those variables take
    the per-variable path. `slots_of(var)` gives `{slot name: slot variable}`.
    """
    by_key: dict = {}
    for i, var in enumerate(variables):
        by_key.setdefault((var.device, var.dtype), []).append(i)
    groups = []
    for key, idx in by_key.items():
        members = [variables[i] for i in idx]
        cells = [protocol.storage(v) for v in members]
        slot_maps = [slots_of(v) for v in members]
        names = set(slot_maps[0]).intersection(*slot_maps[1:]) if slot_maps else set()
        slot_cells = {name: [protocol.storage(m[name]) for m in slot_maps] for name in names}
        usable = (all(c is not None for c in cells)
                  and all(c is not None for cs in slot_cells.values() for c in cs)
                  and all(set(m) == names for m in slot_maps))
        group = None
        if usable:
            constrained = [i for i, v in zip(idx, members) if v.constraint is not None]
            group = DenseGroup(key, idx, cells, slot_cells, constrained)
        groups.append((key, group, idx))
    return groups


def _token(source: Any) -> tuple:
    """The storage token of a cell, or a tensor's identity and version counter."""
    if isinstance(source, torch.Tensor):
        return (source, source._version, 0)
    return source.token()


class HostMirrors:
    """Python-number mirrors of 0-d device values, re-read only when their source changed.

    A source is a storage cell (`Resource`: its `token()` changes with every
    write through tfcompat and every hand-out of the live tensor) or a plain
    tensor (its identity and torch's version counter: a write that bypasses
    the counter, e.g. through a numpy view, cannot be seen).
    """

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict = {}

    def read(self, key: Any, source: Any, convert: Callable[[torch.Tensor], Any]) -> Any:
        """`convert(value)` of `source`'s current value, converted once per token."""
        token = _token(source)
        entry = self._cache.get(key)
        if entry is not None and same_token(entry[0], token):
            return entry[1]
        value = convert(token[0])  # the only host read: after a write
        self._cache[key] = (token, value)
        return value

    def valid(self, key: Any, source: Any) -> Any:
        """The mirror of `key` if `source` has not changed since it was taken, else None."""
        entry = self._cache.get(key)
        if entry is not None and same_token(entry[0], _token(source)):
            return entry[1]
        return None

    def set(self, key: Any, source: Any, value: Any) -> None:
        """Record `value` as the mirror of `source` as it is now (a write whose result the
        writer knows, e.g. an increment of a mirrored counter: no host read)."""
        self._cache[key] = (_token(source), value)


# `torch._foreach_add(tensors, t)` with a 0-d tensor `t` binds to the `Scalar` overload, whose
# argument parsing reads `t` on the host (`item()`); the `Tensor` overload (and `mul`/`div`'s,
# which Python does pick) keep it on the device. `pow` has no such overload: a list of the same
# 0-d tensor broadcasts.

def add_scalar_(tensors: list, value: Any) -> None:
    """`t += value` for each tensor, `value` a Python number or a 0-d tensor (no host read)."""
    if isinstance(value, torch.Tensor):
        torch.ops.aten._foreach_add_.Tensor(tensors, value)
    else:
        torch._foreach_add_(tensors, value)


def add_scalar(tensors: list, value: Any) -> list:
    """`[t + value for t in tensors]`, `value` a Python number or a 0-d tensor (no host read)."""
    if isinstance(value, torch.Tensor):
        return torch.ops.aten._foreach_add.Tensor(tensors, value)
    return torch._foreach_add(tensors, value)


def pow_scalar(tensors: list, exponent: Any) -> list:
    """`[t ** exponent for t in tensors]`, `exponent` a Python number or a 0-d tensor (no host read)."""
    if isinstance(exponent, torch.Tensor):
        return torch._foreach_pow(tensors, [exponent] * len(tensors))
    return torch._foreach_pow(tensors, exponent)


def cwise_max(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Eigen's `a.cwiseMax(b)` (TF's training kernels): `b` where `a < b`, else `a`.

    Unlike `torch.maximum` (and `tf.maximum`), a NaN in `b` keeps `a`; a NaN in
    `a` stays.
    """
    return torch.where(a < b, b, a)


def cwise_max_(targets: list, others: list) -> None:
    """`t = cwise_max(t, o)` in place for each pair.

    torch has no multi-tensor form of this NaN rule (`_foreach_maximum_`
    propagates NaN): two ops per tensor (2000 tensors of 100 floats: 5 ms,
    against 0.8 ms for `_foreach_maximum_`).
    """
    for t, o in zip(targets, others):
        torch.where(t < o, o, t, out=t)


def _passes(inverse: torch.Tensor, counts: torch.Tensor) -> list:
    """Positions of the rows in passes that hold each index (`inverse`) at most once, in order.

    Pass `r` holds every index's `r`-th occurrence, so applying the passes one
    after another adds duplicates one at a time in order of appearance, while
    each pass is one scatter with distinct targets. (Finding duplicates reads
    their count on the host, as TF's `tf.unique` does.)
    """
    n = inverse.numel()
    if counts.numel() == n:
        return [torch.arange(n, device=inverse.device)]
    order = torch.argsort(inverse, stable=True)
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.empty_like(inverse)
    rank[order] = torch.arange(n, device=inverse.device) - starts[inverse[order]]
    return [torch.nonzero(rank == r).reshape(-1) for r in range(int(counts.max()))]


def deduplicate(values: torch.Tensor, indices: torch.Tensor) -> tuple:
    """Sum the rows of `values` that share an index (TF's `_deduplicate_indexed_slices`).

    Returns `(summed_values, unique_indices)`, the indices unique (what
    `_resource_apply_sparse` is promised). As TF's `unsorted_segment_sum`,
    each sum starts from zero (so a lone `-0.0` row becomes `+0.0`) and
    the rows of one index are added one at a time, in order of appearance,
    each sum rounded to the dtype (torch's `index_add_` may accumulate
    half-precision rows in float32): see `_passes`.

    `torch.unique` sizes its output by the count of distinct indices, read
    on the host: free on CPU, one host sync per call on an accelerator
    (where the built-in optimizers use `deduplicate_padded` instead; a
    custom `_resource_apply_sparse` still gets exactly unique indices).
    """
    flat = indices.reshape(-1)
    unique, inverse, counts = torch.unique(flat, return_inverse=True, return_counts=True)
    if unique.numel() == flat.numel():
        return values + 0, flat  # (0 + x: TF's sum from zero, which turns -0.0 into +0.0)
    tail = tuple(values.shape[1:])
    rows = values.reshape((flat.numel(),) + tail)
    summed = torch.zeros((unique.numel(),) + tail, dtype=values.dtype, device=values.device)
    if _sequential_index_add(summed):
        summed.index_add_(0, inverse, rows)  # adds source rows one after another, in order
    else:
        for chosen in _passes(inverse, counts):
            summed.index_add_(0, inverse[chosen], rows[chosen])
    return summed, unique.to(indices.dtype)


def _sequential_index_add(target: torch.Tensor) -> bool:
    """Whether torch's `index_add_` into `target` adds the source rows one after another in
    order, each rounded in the dtype (TF's `unsorted_segment_sum` order): its CPU kernel does,
    except for rows of float16/bfloat16, which it accumulates in float32 (checked on torch
    2.13; `tests/keras/optimizers/test_sparse_accelerator.py` pins it)."""
    return target.device.type == "cpu" and (
        target.dtype not in (torch.float16, torch.bfloat16) or target.dim() == 1)


#: The index of a pad of `deduplicate_padded`: out of range for every variable.
PAD_INDEX = -1


def deduplicate_padded(values: torch.Tensor, indices: torch.Tensor) -> tuple:
    """`deduplicate` in static shapes, with no host read: `(summed, indices, real)`.

    For `n` positions with `u` distinct indices, every result has `n`
    entries: the first `u` hold the distinct indices (increasing) with
    their sums, the other `n - u` are pads, with index `PAD_INDEX` (-1) and
    rows of zeros; `real` is the device mask of the first `u` entries.

    A pad is an out-of-range row, which the accelerator semantics of the
    variables' gathers and scatters already handle as TF's GPU kernels do: a
    gather reads zeros, a scatter skips it. So a sparse rule written with
    the variable API (gather rows, compute, `scatter_update` /
    `scatter_add`) gets TF's result for the distinct indices, and leaves
    everything else alone, with no mask of its own. (It is called only
    where the variables follow the accelerator policy: a variable that
    validates its indices would reject the pads.)

    Each sum starts from zero and adds its rows in one `index_add_`
    (position order: on CPU, one at a time in order of appearance, as
    `deduplicate`; on a GPU in the unspecified order of its atomics, as
    TF's GPU `unsorted_segment_sum`; half precision may accumulate in
    float32, so a sum of three or more rows can differ from TF's CPU
    rounding by an ulp).
    """
    flat = indices.reshape(-1)
    n = flat.numel()
    tail = tuple(values.shape[1:])
    rows = values.reshape((n,) + tail)
    r = runs(flat)
    summed = torch.zeros((n,) + tail, dtype=values.dtype, device=values.device)
    summed.index_add_(0, r.slot, rows)
    padded = torch.where(r.real, r.index, PAD_INDEX)
    return summed, padded.to(indices.dtype), r.real


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
    if torch._C._len_torch_dispatch_stack():  # (a tracer's mode is on: cache a real tensor,
        with _disable_current_modes():       # which the trace takes as a constant)
            return _scalar(value, _zero_sign(value), dtype, device, via)
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


class HostPow:
    """`base ** exponent` for the host path, computed by torch's `pow` on 0-d CPU tensors (the
    function the device path runs), so both paths get the same bits whatever libm NumPy's
    scalar power binds. The tensors are built once; a call fills the exponent in place and
    reads the result through a NumPy view of its (host) memory: no tensor is built from a
    number and nothing is read from a device. One per optimizer (not shared across threads).
    """

    def __init__(self) -> None:
        self._bases: dict = {}
        self._scratch: dict = {}

    def __reduce__(self) -> tuple:  # a copy builds its own tensors (the view must alias them)
        return (HostPow, ())

    def __call__(self, base: float, exponent: float, dtype: torch.dtype) -> float:
        key = (base, dtype)
        base_t = self._bases.get(key)
        if base_t is None:
            base_t = self._bases[key] = torch.full((), base, dtype=dtype)
        scratch = self._scratch.get(dtype)
        if scratch is None:
            out = torch.empty((), dtype=dtype)
            scratch = self._scratch[dtype] = (torch.empty((), dtype=dtype), out, out.numpy())
        exp_t, out, view = scratch
        exp_t.fill_(exponent)
        torch.pow(base_t, exp_t, out=out)
        return float(view[()])


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
