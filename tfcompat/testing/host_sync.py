"""Host synchronizations, found by watching torch's operators (no GPU needed).

A training step on an accelerator should only queue work: the host must never
wait for the device. TF's eager runtime keeps that promise for a step's ops,
and so should tfcompat. On CUDA, torch's sync debug mode reports the CUDA
calls that wait; on a machine without a GPU there is no device to wait for,
so this module watches what a step asks torch to do instead:

* a `TorchDispatchMode` sees every ATen operator below autograd (forward and
  backward, Python or C++ callers alike) and flags the operators that make
  the host wait for a device result (`SYNC_OPS`, boolean-mask indexing, and
  copies between the host and a device);
* a `TorchFunctionMode` sees the Python methods that read a tensor's data
  without any operator on CPU (`tolist()`, `numpy()`, `__array__`,
  printing), which on a device would copy the data back first.

What is reported, and why the host waits:

* `aten::_local_scalar_dense`: a value read on the host: `.item()`,
  `int(t)`, `float(t)`, `bool(t)`, `if t:`, a 0-d tensor as an index, slice
  bound or `Scalar` argument (torch's argument parser calls `item()` in C++
  when a 0-d tensor is passed where a number is expected, e.g.
  `torch._foreach_add_(xs, t0)`);
* operators whose output shape depends on the data (`nonzero` and so
  `torch.where(c)`/`argwhere`, `masked_select`, boolean-mask indexing and
  assignment, `unique*`, `repeat_interleave` without `output_size`,
  `bincount`, sparse `_coalesce`): the host must learn the size;
* operators that return a Python value computed from device data
  (`equal`, `allclose`) or check device results on the host
  (`_linalg_check_errors`);
* copies: device to host unless `non_blocking`, host to device when
  blocking, and tensors built from host data on a device
  (`torch.tensor(x, device="cuda")`);
* Python reads with no operator on CPU: `tolist`, `numpy`, `__array__`,
  printing (`SYNC_OPS`, `PYTHON_READS` hold the reasons).

Which tensors count: with `count_cpu=True`, CPU tensors stand in for device
tensors (the CPU test suite's setting); with `count_cpu=False`, only tensors
on an accelerator do (reads of host-memory tensors, such as TF's shape
tensors, are free there). `meta` tensors hold no data and never count, and
tensors that live in host memory on every machine (built from host data
without a device argument, or named in `host_memory`) are free to read.
`accelerator_policy()` makes tfcompat skip, for CPU tensors, the data checks
TF runs only on CPU, so a CPU run reads what a GPU run reads.

The modes only observe: each operator runs exactly as it would without them,
with the same arguments, and its result is returned unchanged. A run on CPU
cannot see device-specific code paths (those branch on `device.type`); the
GPU tests run `no_host_sync()` with torch's CUDA sync debug mode for that.
"""

from __future__ import annotations

import contextlib
import os
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["HostSync", "HostSyncLog", "HostSyncError", "SYNC_OPS", "PYTHON_READS", "host_syncs",
           "no_host_sync", "accelerator_policy"]

_READ = ("reads a tensor's value on the host (`.item()`, `int(t)`, `float(t)`, `bool(t)`, "
         "`if t:`, a 0-d tensor as an index or slice bound, or passed where torch takes a number: "
         "its argument parser calls `item()`)")
_DATA_SHAPE = "its output shape depends on the data, so the host waits for a count computed on the device"

#: ATen operators (overload packets) whose kernels make the host wait for the
#: device, with the reason. CompositeImplicit operators decompose above the
#: dispatch mode, so `torch.where(c)`/`argwhere` show up as `nonzero`,
#: `t.item()`/`is_nonzero` as `_local_scalar_dense`.
SYNC_OPS: Mapping[str, str] = {
    "_local_scalar_dense": _READ,
    "nonzero": _DATA_SHAPE + " (`torch.nonzero`, one-argument `torch.where`, `argwhere`)",
    "masked_select": _DATA_SHAPE,
    "_unique": _DATA_SHAPE + " (`torch.unique`)",
    "_unique2": _DATA_SHAPE + " (`torch.unique`)",
    "unique_dim": _DATA_SHAPE + " (`torch.unique(dim=...)`)",
    "unique_consecutive": _DATA_SHAPE,
    "unique_dim_consecutive": _DATA_SHAPE,
    "_coalesce": _DATA_SHAPE + " (merging duplicate sparse indices)",
    "bincount": "the number of bins is the input's maximum, read on the host",
    "equal": "returns a Python bool computed from device data (`torch.equal`)",
    "allclose": "returns a Python bool computed from device data (`torch.allclose`)",
    "_linalg_check_errors": "reads the factorization's error codes on the host (`torch.linalg.*` "
                            "without `_ex`)",
}

_REPEAT_INTERLEAVE = ("the output length is the sum of the repeats, read on the host "
                      "(pass `output_size=` to avoid it)")
_NEW_HOST_TENSOR = ("builds a tensor from host data for a given device (`torch.tensor(x, device=d)`, "
                    "`from_numpy`): on an accelerator, a blocking host-to-device copy")
_BOOL_INDEX = ("indexing with a boolean mask: the positions of the True elements (`nonzero`) are "
               "computed on the device and their count read on the host")

#: Python-level `torch.Tensor` methods that read data on the host without an
#: ATen operator on CPU (on a device they copy to the host first).
PYTHON_READS: Mapping[str, str] = {
    "tolist": "copies the tensor's data to the host (`tolist()`)",
    "numpy": "exposes the tensor's data to numpy on the host (`numpy()`)",
    "__array__": "exposes the tensor's data to numpy on the host (`np.asarray(t)`)",
    "__repr__": "prints the tensor's data",
    "__str__": "prints the tensor's data",
    "__format__": "formats the tensor's data",
}

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
#: Frames of the machinery between the caller and the check, left out of reports
#: (torch wraps mode handlers in dynamo's `disable`).
_MACHINERY = frozenset(os.path.normpath(p) for p in (
    __file__, torch.utils._python_dispatch.__file__, torch.overrides.__file__, contextlib.__file__,
    os.path.join(_TORCH_DIR, "_dynamo", "eval_frame.py"), os.path.join(_TORCH_DIR, "_compile.py")))


@dataclass(frozen=True)
class HostSync:
    """One operation that would make the host wait for the device.

    `op` is the ATen operator (`aten::_local_scalar_dense`) or the Python
    method (`Tensor.tolist`), `reason` why it waits, `device` the device
    whose data is waited for, and `stack` the Python frames that led to it,
    innermost last.
    """

    op: str
    reason: str
    device: str
    stack: Tuple[traceback.FrameSummary, ...]

    @property
    def location(self) -> str:
        """`file:line in function` of the innermost frame outside torch (where the sync was asked for)."""
        frames = [f for f in self.stack if not _in_torch(f)]
        frame = (frames or list(self.stack) or [None])[-1]
        if frame is None:
            return "<no Python frame>"
        return f"{_short(frame.filename)}:{frame.lineno} in {frame.name}"

    def __str__(self) -> str:
        lines = [f"{self.op} on {self.device}: {self.reason}", f"  at {self.location}"]
        for frame in reversed(self.stack):
            code = f": {frame.line.strip()}" if frame.line else ""
            lines.append(f"    {_short(frame.filename)}:{frame.lineno} in {frame.name}{code}")
        return "\n".join(lines)


class HostSyncError(AssertionError):
    """Raised by `no_host_sync` for an operation that would make the host wait for the device."""


class HostSyncLog(Sequence[HostSync]):
    """The host syncs recorded by `host_syncs()`, in order (a read-only sequence)."""

    def __init__(self) -> None:
        self._syncs: List[HostSync] = []
        self._lock = threading.Lock()

    def _add(self, sync: HostSync) -> None:
        with self._lock:
            self._syncs.append(sync)

    def __getitem__(self, i: Any) -> Any:
        return self._syncs[i]

    def __len__(self) -> int:
        return len(self._syncs)

    def clear(self) -> None:
        """Forget what was recorded so far (e.g. after a warm-up step)."""
        with self._lock:
            self._syncs.clear()

    @property
    def ops(self) -> List[str]:
        """The operators of the recorded syncs, in order."""
        return [s.op for s in self._syncs]

    def report(self, limit: int = 5) -> str:
        """A human-readable list of the first `limit` syncs (empty string when there are none)."""
        if not self._syncs:
            return ""
        head = f"{len(self._syncs)} host sync(s):"
        body = "\n".join(str(s) for s in self._syncs[:limit])
        more = f"\n... and {len(self._syncs) - limit} more" if len(self._syncs) > limit else ""
        return f"{head}\n{body}{more}"

    def __repr__(self) -> str:
        return f"HostSyncLog({[f'{s.op} at {s.location}' for s in self._syncs]})"


def _short(filename: str) -> str:
    """A path shortened to its package-relative part (`tfcompat/...`, `torch/...`, `tests/...`)."""
    parts = os.path.normpath(filename).split(os.sep)
    for anchor in ("tfcompat", "torch", "tests", "benchmarks"):
        if anchor in parts:
            return "/".join(parts[len(parts) - 1 - parts[::-1].index(anchor):])
    return os.path.basename(filename)


def _in_torch(frame: traceback.FrameSummary) -> bool:
    return os.path.abspath(frame.filename).startswith(_TORCH_DIR)


def _stack(depth: int) -> Tuple[traceback.FrameSummary, ...]:
    """The caller's frames: `depth` frames up to the innermost one outside torch, then at most
    four of torch's own below it (the API called, and the innermost)."""
    frames = [f for f in traceback.extract_stack() if os.path.normpath(f.filename) not in _MACHINERY]
    outside = [i for i, f in enumerate(frames) if not _in_torch(f)]
    if not outside:
        return tuple(frames[-depth:])
    k = outside[-1]
    inside = frames[k + 1:]
    if len(inside) > 4:
        inside = inside[:2] + inside[-2:]
    return tuple(frames[max(0, k + 1 - depth):k + 1] + inside)


# -- which devices count -----------------------------------------------------------------------

def _kind(device: torch.device) -> str:
    """"host", "device" or "none" (no data: `meta`). Tests of the copy rules replace this."""
    if device.type == "cpu":
        return "host"
    if device.type == "meta":
        return "none"
    return "device"


#: Builders of tensors from host data (`lift_fresh` below the dispatch mode).
_HOST_DATA_BUILDERS = frozenset({torch.tensor, torch.as_tensor, torch.asarray})


def _device_of(x: Any) -> Optional[torch.device]:
    return x.device if isinstance(x, torch.Tensor) else None


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


class _Watch:
    """What one `host_syncs()` block records: shared by its dispatch and function modes."""

    def __init__(self, log: HostSyncLog, count_cpu: bool, raise_at_sync: bool, depth: int,
                 new_host_tensors: bool, host_memory: Iterable[torch.Tensor]) -> None:
        self.log = log
        self.count_cpu = count_cpu
        self.new_host_tensors = new_host_tensors
        self.raise_at_sync = raise_at_sync
        self.depth = depth
        # Storages kept alive while the block runs, so their addresses cannot be reused.
        self.host_memory = {_storage(t): t.untyped_storage() for t in host_memory}
        self.local = threading.local()  # `.inside`: a reported Python read is running

    def counts(self, x: Any) -> bool:
        """Whether reading the data of `x` (a tensor or a device) on the host is a sync."""
        if isinstance(x, torch.Tensor):
            if x.device.type == "cpu" and self.host_memory and _storage(x) in self.host_memory:
                return False
            x = x.device
        if not isinstance(x, torch.device):
            return False
        kind = _kind(x)
        return kind == "device" or (kind == "host" and self.count_cpu)

    @staticmethod
    def builds_in_host_memory(args: tuple, kwargs: dict) -> bool:
        """Whether `torch.tensor(data, ...)` keeps `data` in host memory on every machine: no
        device argument and torch's default device is the CPU (tfcompat's shape tensors)."""
        data = args[0] if args else kwargs.get("data", kwargs.get("obj"))
        return (kwargs.get("device") is None and data is not None and not isinstance(data, torch.Tensor)
                and torch.get_default_device().type == "cpu")

    def remember_host_memory(self, result: Any) -> None:
        if isinstance(result, torch.Tensor) and result.device.type == "cpu":
            self.host_memory[_storage(result)] = result.untyped_storage()

    def report(self, op: str, reason: str, device: torch.device) -> None:
        sync = HostSync(op, reason, str(device), _stack(self.depth))
        self.log._add(sync)
        if self.raise_at_sync:
            raise HostSyncError(f"host sync inside no_host_sync():\n{sync}")

    # -- ATen operators -------------------------------------------------------------------------

    def op_sync(self, func: Any, args: tuple, kwargs: dict) -> Optional[Tuple[str, torch.device]]:
        """(reason, device) when the operator makes the host wait, else None."""
        name = func._overloadpacket.__name__
        if name in ("_to_copy", "copy_", "_copy_from", "_copy_from_and_resize"):
            return self._copy_sync(name, args, kwargs)
        first = _device_of(args[0]) if args else None
        if name == "lift_fresh":  # `torch.tensor(data)`, `as_tensor`, `from_numpy`: `args[0]` is the result
            kind = _kind(first) if first is not None else "none"
            if kind == "device":
                return f"builds a tensor from host data on {first}: a blocking host-to-device copy", first
            if kind == "host" and self.count_cpu and self.new_host_tensors:
                return _NEW_HOST_TENSOR, first
            return None
        reason = SYNC_OPS.get(name)
        if reason is not None:
            return (reason, first) if self.counts(args[0]) else None
        if name == "repeat_interleave" and func is torch.ops.aten.repeat_interleave.Tensor:
            if kwargs.get("output_size") is None and self.counts(args[0]):
                return _REPEAT_INTERLEAVE, first
            return None
        if name in ("index", "index_put", "index_put_", "_index_put_impl_", "_unsafe_index_put"):
            indices = args[1] if len(args) > 1 else kwargs.get("indices", ())
            for index in indices or ():
                if isinstance(index, torch.Tensor) and index.dtype in (torch.bool, torch.uint8):
                    return (_BOOL_INDEX, index.device) if self.counts(index) else None
        return None

    def _copy_sync(self, name: str, args: tuple, kwargs: dict) -> Optional[Tuple[str, torch.device]]:
        if name == "_to_copy":
            src = args[0]
            dst_device = kwargs.get("device") or src.device
        elif name == "copy_":
            dst, src = args[0], args[1]
            dst_device = dst.device
        else:  # _copy_from(src, dst), _copy_from_and_resize(src, dst)
            src, dst = args[0], args[1]
            dst_device = dst.device
        if not isinstance(src, torch.Tensor):
            return None
        dst_device = torch.device(dst_device)
        src_kind, dst_kind = _kind(src.device), _kind(dst_device)
        non_blocking = bool(kwargs.get("non_blocking", args[2] if name == "copy_" and len(args) > 2
                                       else False))
        if src_kind == "device" and dst_kind == "host":
            if non_blocking:  # (queued; reading the result later needs a sync of its own)
                return None
            return (f"copies device data to the host ({src.device} -> {dst_device}): the host waits "
                    "for the device to finish", src.device)
        if src_kind == "host" and dst_kind == "device" and not non_blocking:
            return (f"a blocking host-to-device copy ({src.device} -> {dst_device}) waits for the "
                    "device's stream", dst_device)
        return None

    # -- Python-level reads ---------------------------------------------------------------------

    def python_read(self, func: Any, args: tuple) -> Optional[Tuple[str, torch.device]]:
        name = getattr(func, "__name__", None)
        reason = PYTHON_READS.get(name) if name else None
        if reason is None or not args or not isinstance(args[0], torch.Tensor):
            return None
        if getattr(func, "__qualname__", "").split(".")[0] not in ("Tensor", "TensorBase"):
            return None
        return (reason, args[0].device) if self.counts(args[0]) else None


class _DispatchWatch(TorchDispatchMode):
    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self.watch = watch

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        if not getattr(self.watch.local, "inside", False):
            found = self.watch.op_sync(func, args, kwargs)
            if found is not None:
                self.watch.report(f"aten::{func._overloadpacket.__name__}", found[0], found[1])
        return func(*args, **kwargs)


class _FunctionWatch(TorchFunctionMode):
    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self.watch = watch

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        found = None if getattr(self.watch.local, "inside", False) else self.watch.python_read(func, args)
        if found is None:
            if func in _HOST_DATA_BUILDERS and self.watch.builds_in_host_memory(args, kwargs):
                # Built where it stays: no copy to report; its reads are free from now on.
                result = self._quietly(func, args, kwargs)
                self.watch.remember_host_memory(result)
                return result
            return func(*args, **kwargs)
        self.watch.report(f"Tensor.{func.__name__}", found[0], found[1])
        # The read's own operators (a device-to-host copy, `.item()` per element when
        # printing) are this one sync: not reported again.
        return self._quietly(func, args, kwargs)

    def _quietly(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """`func(*args, **kwargs)` with the operators it runs not reported."""
        local = self.watch.local
        outer = getattr(local, "inside", False)
        local.inside = True
        try:
            return func(*args, **kwargs)
        finally:
            local.inside = outer


@contextlib.contextmanager
def _watching(log: HostSyncLog, count_cpu: bool, raise_at_sync: bool, depth: int,
              new_host_tensors: bool, host_memory: Iterable[torch.Tensor]) -> Iterator[None]:
    watch = _Watch(log, count_cpu, raise_at_sync, depth, new_host_tensors, host_memory)
    with _FunctionWatch(watch), _DispatchWatch(watch):
        yield


@contextlib.contextmanager
def host_syncs(count_cpu: bool = True, new_host_tensors: bool = False,
               host_memory: Iterable[torch.Tensor] = (), depth: int = 8) -> Iterator[HostSyncLog]:
    """Record every operation in the block that would make the host wait for the device.

    Yields a `HostSyncLog` (a sequence of `HostSync`: operator, reason,
    device and the Python stack, `depth` frames deep) that fills as the
    block runs; nothing is raised and nothing the block computes changes.

    `count_cpu=True` (the default) counts CPU tensors as device tensors, so
    a CPU-only test sees what a GPU step would wait for; pass `False` to
    count only accelerator tensors.

    Building a tensor from host data with a device argument
    (`torch.tensor(x, device=d)`, `from_numpy`) is a blocking copy on an
    accelerator and always reported there; on CPU it is reported with
    `new_host_tensors=True` (for code that should build nothing from host
    data, such as a steady-state optimizer step: a CPU run cannot tell
    whether `d` would be an accelerator). Built without a device argument
    (`torch.tensor(shape)`, with torch's default device the CPU), it stays
    in host memory on every machine: not reported, and reading it later is
    free. `host_memory` names more such CPU tensors, made before the block
    (TF's shape tensors, `IndexedSlices.dense_shape`): reads of them or
    their views are not reported.

    Only the calling thread is watched (and autograd's backward, which
    inherits it).
    """
    log = HostSyncLog()
    with _watching(log, count_cpu, raise_at_sync=False, depth=depth, new_host_tensors=new_host_tensors,
                   host_memory=host_memory):
        yield log


def _cuda_in_use() -> bool:
    return torch.cuda.is_available()


@contextlib.contextmanager
def no_host_sync(strict: bool = True, count_cpu: Optional[bool] = None, new_host_tensors: bool = False,
                 host_memory: Iterable[torch.Tensor] = (), depth: int = 8) -> Iterator[HostSyncLog]:
    """Inside the block, an operation that makes the host wait for the device fails the block.

    Two checks run together:

    * with CUDA, torch's sync debug mode ("error"): every CUDA call that
      waits for the device raises `RuntimeError` (work queued before the
      block is finished first, so only the block's own syncs count);
    * everywhere, the operator watch of `host_syncs()`, which also works
      without a GPU: `count_cpu` says whether CPU tensors stand in for
      device tensors (default: only when CUDA is not available; on a CUDA
      machine host-memory tensors are free to read); `new_host_tensors` and
      `host_memory` as in `host_syncs()`.

    `strict=True` raises `HostSyncError` at the first sync, inside the
    operation that syncs (the traceback shows the line); `strict=False`
    lets the block finish and raises one `HostSyncError` listing every sync
    at its end. Either way the block's recorded syncs are yielded, and a
    sync whose error the code under test swallowed still fails the block.
    """
    cuda = _cuda_in_use()
    if count_cpu is None:
        count_cpu = not cuda
    log = HostSyncLog()
    previous = None
    if cuda:
        torch.cuda.synchronize()
        previous = torch.cuda.get_sync_debug_mode()
        torch.cuda.set_sync_debug_mode("error")
    try:
        with _watching(log, count_cpu, raise_at_sync=strict, depth=depth,
                       new_host_tensors=new_host_tensors, host_memory=host_memory):
            yield log
    finally:
        if cuda:
            torch.cuda.set_sync_debug_mode(previous)
    if log:
        raise HostSyncError(f"host syncs inside no_host_sync():\n{log.report()}")


@contextlib.contextmanager
def accelerator_policy() -> Iterator[None]:
    """Inside the block, tfcompat treats CPU tensors as it treats accelerator tensors.

    TF's CPU kernels validate data (gather/scatter indices, integer division
    by zero, negative integer powers) and tfcompat reads that data on the
    host where reading is free (`tfcompat.ops._indices.checks_on_host`);
    TF's GPU kernels validate nothing, and tfcompat reads nothing there
    (out-of-range scatter rows are skipped, gathers read zeros, duplicates
    are reduced in one unordered pass: see docs/differences.md).
    Under this policy a CPU run makes only the host reads a GPU run makes,
    so `host_syncs()` on CPU reports what would wait on a GPU. Variables
    created inside the block follow it (a variable takes the policy when it
    is created). The switch (`tfcompat.ops._indices.host_as_accelerator`)
    is process-wide: every thread and every module that asks
    `checks_on_host` sees it while the block is open; blocks nest.
    """
    from ..ops import _indices

    with _indices.host_as_accelerator():
        yield
