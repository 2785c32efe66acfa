"""Cross-worker collectives for MultiWorkerMirroredStrategy, over `torch.distributed`.

TF's MultiWorkerMirroredStrategy runs one process per worker and joins them
with collective ops (`CollectiveReduceV2`, `CollectiveGatherV2`,
`CollectiveBcastSend/Recv`). Here the same roles are played by a torch
process group; the strategy talks only to this module:

    settings = cluster_resolver.process_group_settings(resolver)   # who am I
    ops = init_process_group(settings)                             # -> CollectiveOps
    summed = ops.all_reduce(tensors, "SUM")                        # or "MEAN"
    reducer = BucketedGradientReducer(reads, "SUM", ops)           # once per layout
    step = reducer.watch(reads); torch.autograd.grad(loss, reads); grads = step.wait()

What the strategy can rely on:

* results are new tensors (views into fresh flat buffers): the caller's
  tensors are never written, and results never alias them;
* collectives run on the tensors' device: gloo for CPU tensors, NCCL for
  CUDA tensors (the default backend is `"cpu:gloo,cuda:nccl"` when CUDA and
  NCCL exist, else `"gloo"`). One device per process: a strategy with
  several local devices reduces across them first, then here;
* tensors are packed into size-capped flat buckets per (dtype, device), one
  torch collective per bucket (TF packs the same way: `bytes_per_pack`);
* every collective is bounded by a timeout (`TFCOMPAT_COLLECTIVE_TIMEOUT`,
  seconds, default 60; or `init_process_group(timeout=...)`): a dead peer
  raises `tf.errors.UnavailableError`, a silent one
  `tf.errors.DeadlineExceededError`, each naming the operation and what to
  check. After either, the group is unusable (as in TF): restart the job
  from a checkpoint. NCCL reports failures asynchronously; there, torch's
  watchdog (`TORCH_NCCL_ASYNC_ERROR_HANDLING`) may end the process instead;
* inputs whose shapes or dtypes differ across workers raise TF's
  `InvalidArgumentError` on every worker, naming both sides. The check is a
  tiny exchange made the first time a layout is seen (cached per layout),
  so steady-state steps make no extra collectives and no host reads.
  `TFCOMPAT_COLLECTIVE_CHECKS=always` checks every call (debugging),
  `=off` never. The check relies on every worker issuing the same sequence
  of collectives, which TF requires as well;
* no host synchronization in `all_reduce`, `broadcast` or the gradient
  reducer after the first call per layout; `all_gather` exchanges shapes on
  every call (TF's contract lets the gathered dimension differ per worker
  and per step), which reads a small CPU tensor on the host.

Numerics: SUM is each backend's elementwise sum in the tensor's dtype (gloo
and NCCL add in their own ring or tree order, as TF's ring reducer adds in
its own: floating-point sums across more than two workers may differ from
TF in the last bits; integers wrap as in TF). MEAN is TF's: the sum, then a
division by the number of workers (`v / group_size`), in the dtype for
floating and complex tensors, and TF's true division for integers (int8,
int16, uint8, uint16 -> float32; int32, int64, uint32, uint64 -> float64).
int16, uint16 and uint32 travel widened (no backend sums them); bool
cannot be summed (`InvalidArgumentError`, as TF has no bool reduction).
"""

from __future__ import annotations

import collections
import datetime
import functools
import hashlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch
import torch.distributed as dist

from ..framework import errors
from .cluster_resolver import ProcessGroupSettings, process_group_settings
from .reduce_util import ReduceOp

__all__ = [
    "TIMEOUT_ENV", "CHECKS_ENV", "DEFAULT_TIMEOUT_S", "DEFAULT_BUCKET_BYTES",
    "DEFAULT_FIRST_BUCKET_BYTES", "collective_timeout", "default_backend", "init_process_group",
    "shutdown_process_group", "default_collectives", "Bucket", "plan_buckets", "CollectiveOps",
    "PendingCollective",
]

TIMEOUT_ENV = "TFCOMPAT_COLLECTIVE_TIMEOUT"
CHECKS_ENV = "TFCOMPAT_COLLECTIVE_CHECKS"
DEFAULT_TIMEOUT_S = 60.0
#: DDP's defaults: a small first bucket so communication starts early in
#: backward, then 25 MiB buckets (few, large messages).
DEFAULT_FIRST_BUCKET_BYTES = 1 << 20
DEFAULT_BUCKET_BYTES = 25 << 20

_MAX_PLANS = 1024  # layouts remembered per CollectiveOps (LRU, identical on every worker)


# -- timeouts and errors -----------------------------------------------------------

def collective_timeout(timeout: Union[None, float, datetime.timedelta] = None) -> datetime.timedelta:
    """The bound on every wait for other workers: `timeout`, else `$TFCOMPAT_COLLECTIVE_TIMEOUT`
    (seconds), else 60 s. TF's collectives wait forever unless
    `CommunicationOptions(timeout_seconds=...)` is set; a bound is the safer default here."""
    if timeout is None:
        text = os.environ.get(TIMEOUT_ENV)
        if not text:
            return datetime.timedelta(seconds=DEFAULT_TIMEOUT_S)
        try:
            timeout = float(text)
        except ValueError:
            raise ValueError(f"{TIMEOUT_ENV}={text!r} must be a number of seconds") from None
    if isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    else:
        seconds = float(timeout)
    if not seconds > 0:
        raise ValueError(f"The collective timeout must be positive; got {seconds} s")
    return datetime.timedelta(seconds=seconds)


class _Group:
    """What this process knows about its group (set by `init_process_group`)."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    settings: Optional[ProcessGroupSettings] = None
    ops: Optional["CollectiveOps"] = None


def _where() -> str:
    if dist.is_available() and dist.is_initialized():
        return f"rank {dist.get_rank()} of {dist.get_world_size()}"
    return "this worker"


def _translate(err: BaseException, what: str, advice: Optional[str] = None,
               timeout_s: Optional[float] = None) -> Optional[errors.OpError]:
    """TF's error for a failed torch collective, or None when `err` is not a transport failure.

    A timeout becomes `DeadlineExceededError`; a closed, reset or refused
    connection (or any other torch `DistError`) `UnavailableError`. `advice`
    replaces the default hint on what to check."""
    text = str(err)
    low = text.lower()
    timeout_s = _Group.timeout_s if timeout_s is None else timeout_s
    if "timed out" in low or "timeout" in low or "deadline" in low:
        return errors.DeadlineExceededError(None, None, (
            f"{what} on {_where()} got no answer from the other workers within {timeout_s:g} s "
            f"({TIMEOUT_ENV}). " + (advice or (
                f"A worker may be stuck or dead, slower than the timeout (raise {TIMEOUT_ENV}), "
                "or running a different sequence of collectives: check every worker's log."))
            + f" From torch: {text}"))
    network = ("connection", "closed", "reset by peer", "broken pipe", "peer", "socket", "refused")
    if isinstance(err, dist.DistError) or any(word in low for word in network):
        return errors.UnavailableError(None, None, (
            f"{what} on {_where()} failed: " + (advice or (
                "another worker has probably died or lost its network connection; check its log. "
                "The process group cannot be used after this error: restart the job (or the "
                "failed workers) from the last checkpoint.")) + f" From torch: {text}"))
    return None


def _call(what: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:  # torch's DistError subclasses RuntimeError
        translated = _translate(e, what)
        if translated is None:
            raise
        raise translated from e


# -- the process group -------------------------------------------------------------

def default_backend() -> str:
    """`"cpu:gloo,cuda:nccl"` when CUDA and NCCL exist (each tensor's device picks its
    backend), else `"gloo"`."""
    if torch.cuda.is_available() and dist.is_nccl_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


def init_process_group(settings: Union[ProcessGroupSettings, Mapping[str, Any], None] = None,
                       backend: Optional[str] = None,
                       timeout: Union[None, float, datetime.timedelta] = None) -> "CollectiveOps":
    """Join the torch process group this task belongs to; returns its `CollectiveOps`.

    TF configures collectives once per process (`configure_collective_ops`);
    so does this: a second call with the same rank and world size returns the
    same `CollectiveOps`, a different one raises TF's `ValueError`.

    `settings` defaults to `process_group_settings()` (TF_CONFIG, torchrun, or
    a local process). `backend` overrides `default_backend()`. `timeout`
    bounds the rendezvous and every later collective (see
    `collective_timeout`). A one-process group uses an in-memory store (no
    network). A worker that cannot reach the chief raises
    `DeadlineExceededError` after about twice the timeout (torch's store
    client retries its connection once); a refused or broken connection
    raises `UnavailableError`.
    """
    if settings is None:
        settings = process_group_settings()
    elif not isinstance(settings, ProcessGroupSettings):
        settings = ProcessGroupSettings(**dict(settings))
    td = collective_timeout(timeout)
    if dist.is_initialized():
        current = (dist.get_rank(), dist.get_world_size())
        wanted = (settings.rank, settings.world_size)
        if current != wanted or (backend is not None and backend != dist.get_backend()):
            raise ValueError(
                f"Collective ops are already configured: this process is rank {current[0]} of "
                f"{current[1]} on backend {dist.get_backend()!r}, not rank {wanted[0]} of "
                f"{wanted[1]}{'' if backend is None else f' on {backend!r}'}. Configure them once, "
                "at program start (or call shutdown_process_group() first).")
        return default_collectives()
    _Group.timeout_s = td.total_seconds()
    kwargs: Dict[str, Any] = dict(backend=backend or default_backend(), rank=settings.rank,
                                  world_size=settings.world_size, timeout=td)
    if settings.init_method is None:
        if settings.world_size != 1:
            raise ValueError(f"A group of {settings.world_size} processes needs an init_method "
                             "(the rendezvous address); use process_group_settings().")
        kwargs["store"] = dist.HashStore()
    else:
        kwargs["init_method"] = settings.init_method
    where = ("the rendezvous" if settings.init_method is None
             else f"the rendezvous at {settings.init_method}")
    try:
        dist.init_process_group(**kwargs)
    except (RuntimeError, ValueError) as e:
        translated = _translate(
            e, f"init_process_group (joining {where} as rank {settings.rank} of "
               f"{settings.world_size})",
            "Check that all workers were started with the same cluster description, that the "
            "chief (rank 0) is running, and that its address is reachable from this host and its "
            "port is not used by another program.", td.total_seconds())
        if translated is None:
            raise
        raise translated from e
    _Group.settings = settings
    _Group.ops = CollectiveOps()
    return _Group.ops


def shutdown_process_group() -> None:
    """Leave the process group (torch's `destroy_process_group`); a no-op when not in one."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
    _Group.settings = None
    _Group.ops = None


def default_collectives() -> "CollectiveOps":
    """The `CollectiveOps` of the default group, which must already exist."""
    if _Group.ops is None or not (dist.is_available() and dist.is_initialized()):
        _Group.ops = None
        if not (dist.is_available() and dist.is_initialized()):
            raise errors.FailedPreconditionError(None, None, (
                "No process group: call tfcompat.distribute.collectives.init_process_group() "
                "(MultiWorkerMirroredStrategy does) before using cross-worker collectives."))
        _Group.ops = CollectiveOps()  # a group torch.distributed made directly
    return _Group.ops


# -- buckets -----------------------------------------------------------------------

Layout = Sequence[Tuple[torch.dtype, torch.device, torch.Size]]


@dataclass(frozen=True)
class Bucket:
    """One flat buffer: the tensors at `slots` (positions in the caller's list, in
    packing order) laid end to end at `offsets`, all of one dtype and device."""

    index: int
    slots: Tuple[int, ...]
    shapes: Tuple[torch.Size, ...]
    numels: Tuple[int, ...]
    offsets: Tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    numel: int

    @property
    def nbytes(self) -> int:
        return self.numel * _itemsize(self.dtype)


def _itemsize(dtype: torch.dtype) -> int:
    return dtype.itemsize


def plan_buckets(layout: Layout, caps: Sequence[int], reverse: bool = False) -> Tuple[Bucket, ...]:
    """Pack tensors (described by `(dtype, device, shape)`) into size-capped buckets.

    DDP's rule (`compute_bucket_assignment_by_size`): walk the tensors (last
    to first with `reverse`, i.e. in backward order); each (dtype, device)
    has one open bucket; a tensor joins its open bucket, which closes once
    it holds at least the current cap. The k-th bucket of a (dtype, device)
    is capped at `caps[k]` (the last cap repeats), so `caps=(1 MiB, 25 MiB)`
    makes a small first bucket. A tensor above the cap gets a bucket of its
    own. Buckets are numbered by their first tensor in walking order: the
    order in which they fill, and the order every worker launches them.
    """
    if not caps or any(c <= 0 for c in caps):
        raise ValueError(f"Bucket caps must be positive byte counts; got {tuple(caps)}")
    order = range(len(layout) - 1, -1, -1) if reverse else range(len(layout))
    open_buckets: Dict[Tuple[torch.dtype, torch.device], List[int]] = {}
    sizes: Dict[Tuple[torch.dtype, torch.device], int] = {}
    closed_count: Dict[Tuple[torch.dtype, torch.device], int] = collections.Counter()
    groups: List[Tuple[int, Tuple[torch.dtype, torch.device], List[int]]] = []
    for walk, slot in enumerate(order):
        dtype, device, shape = layout[slot]
        key = (dtype, device)
        members = open_buckets.get(key)
        if members is None:
            members = open_buckets[key] = []
            sizes[key] = 0
            groups.append((walk, key, members))
        members.append(slot)
        sizes[key] += _numel(shape) * _itemsize(dtype)
        if sizes[key] >= caps[min(closed_count[key], len(caps) - 1)]:
            closed_count[key] += 1
            del open_buckets[key]
    buckets = []
    for index, (_, (dtype, device), slots) in enumerate(sorted(groups, key=lambda g: g[0])):
        shapes = tuple(torch.Size(layout[s][2]) for s in slots)
        numels = tuple(_numel(s) for s in shapes)
        offsets, total = [], 0
        for n in numels:
            offsets.append(total)
            total += n
        buckets.append(Bucket(index, tuple(slots), shapes, numels, tuple(offsets), dtype, device,
                              total))
    return tuple(buckets)


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _layout_of(tensors: Sequence[torch.Tensor]) -> Tuple[Tuple[torch.dtype, torch.device, torch.Size], ...]:
    return tuple((t.dtype, t.device, t.shape) for t in tensors)


def _describe(layout: Layout) -> List[str]:
    return [f"{str(dtype).replace('torch.', '')}{list(shape)} on {device.type}"
            for dtype, device, shape in layout]


def _digest(obj: Any) -> int:
    # Python's hash() is salted per process; the workers need one value.
    return int.from_bytes(hashlib.blake2b(repr(obj).encode(), digest_size=8).digest(), "little",
                          signed=True)


# Reductions: dtypes no backend sums travel widened (the wrap-around is the same
# modulo 2^bits); TF's true division gives MEAN's dtype for integers.
_WIDEN = {torch.int16: torch.int32, torch.uint16: torch.int32, torch.uint32: torch.int64}
_BITCAST = {torch.uint64: torch.int64}
_INT_MEAN = {torch.int8: torch.float32, torch.int16: torch.float32, torch.uint8: torch.float32,
             torch.uint16: torch.float32, torch.int32: torch.float64, torch.int64: torch.float64,
             torch.uint32: torch.float64, torch.uint64: torch.float64}


class _Flight:
    """One launched bucket collective: the torch work and its buffer. `widened` is the
    wider copy that travelled instead of `flat`, if any."""

    __slots__ = ("work", "flat", "widened", "what")

    def __init__(self, work: Any, flat: torch.Tensor, what: str,
                 widened: Optional[torch.Tensor] = None) -> None:
        self.work, self.flat, self.what, self.widened = work, flat, what, widened

    def wait(self) -> torch.Tensor:
        if self.work is not None:
            _call(self.what, self.work.wait)
            self.work = None
            if self.widened is not None:
                self.flat.copy_(self.widened)  # narrow back, wrapping as the dtype does
                self.widened = None
        return self.flat

    def is_completed(self) -> bool:
        return self.work is None or self.work.is_completed()


class PendingCollective:
    """A launched collective (`CollectiveOps.all_reduce_async`): `wait()` returns its
    results, computing them once; `is_completed()` asks without blocking."""

    def __init__(self, flights: List[_Flight], finish: Callable[[List[torch.Tensor]], list]) -> None:
        self._flights = flights
        self._finish = finish
        self._result: Optional[list] = None

    def wait(self) -> list:
        if self._result is None:
            flats = [f.wait() for f in self._flights]
            self._result = self._finish(flats)
            self._flights = []
        return self._result

    def is_completed(self) -> bool:
        return self._result is not None or all(f.is_completed() for f in self._flights)


# -- the collectives ---------------------------------------------------------------

class CollectiveOps:
    """TF's cross-worker collectives on one torch process group.

    `all_reduce`, `broadcast` and `all_gather` follow TF's
    `CollectiveReplicaLauncher` (`batch_all_reduce`, `all_gather`); every
    worker must call them in the same order with matching inputs, as in TF.
    Not differentiable: they run under `torch.no_grad()` (a strategy that
    needs gradients through them wraps them in an autograd Function).

    `group` is a torch process group (default: the world); `bucket_bytes`
    caps `all_reduce` and `broadcast` buckets.
    """

    def __init__(self, group: Optional[Any] = None, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 checks: Optional[str] = None) -> None:
        if not (dist.is_available() and dist.is_initialized()):
            raise errors.FailedPreconditionError(None, None, "No process group: call "
                                                 "init_process_group() first.")
        self.group = group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        # "gloo", "nccl", or a per-device list such as "cpu:gloo,cuda:nccl"
        self.backend = str(dist.get_backend(group))
        self._cpu_gloo = self.backend == "gloo" or "cpu:gloo" in self.backend
        # Metadata travels on the CPU when gloo is there: no device sync to read it.
        self._meta_device = torch.device("cpu") if self._cpu_gloo else torch.device(
            "cuda", torch.cuda.current_device())
        self.bucket_bytes = int(bucket_bytes)
        checks = (checks or os.environ.get(CHECKS_ENV) or "first").lower()
        if checks not in ("first", "always", "off"):
            raise ValueError(f"{CHECKS_ENV} must be 'first', 'always' or 'off'; got {checks!r}")
        self.checks = checks
        self._plans: "collections.OrderedDict[Any, Tuple[Bucket, ...]]" = collections.OrderedDict()

    # layouts -------------------------------------------------------------------

    def _plan(self, kind: str, layout: Layout, caps: Sequence[int],
              reverse: bool = False) -> Tuple[Bucket, ...]:
        """The buckets for `layout`, checked across workers the first time it is seen."""
        key = (kind, layout, tuple(caps), reverse)
        plan = self._plans.get(key)
        if plan is None:
            plan = plan_buckets(layout, caps, reverse)
            if self.checks != "off":
                self.verify_layout(kind, layout)
            self._plans[key] = plan
            if len(self._plans) > _MAX_PLANS:
                self._plans.popitem(last=False)
        else:
            self._plans.move_to_end(key)
            if self.checks == "always":
                self.verify_layout(kind, layout)
        return plan

    def verify_layout(self, kind: str, layout: Layout) -> None:
        """Raise `InvalidArgumentError` on every worker unless all passed the same
        `(dtype, shape)` list to collective `kind`. A collective itself: every
        worker must call it. One 16-byte all-gather when the layouts agree; a
        second exchange, of the descriptions, only to word the error."""
        if self.world_size == 1:
            return
        description = (kind, _describe(layout))
        # built in host memory, then moved: a no-op when metadata travels on the CPU
        mine = torch.tensor([_digest(description), len(layout)], dtype=torch.int64).to(
            self._meta_device)
        rows = self._gather_rows(mine, kind)
        if all(row == rows[0] for row in rows):
            return
        everyone: List[Any] = [None] * self.world_size
        _call(f"{kind} layout check", dist.all_gather_object, everyone, description, self.group)
        raise errors.InvalidArgumentError(None, None, _mismatch_message(everyone, self.rank))

    def _gather_rows(self, mine: torch.Tensor, what: str) -> List[List[int]]:
        out = torch.empty((self.world_size, mine.numel()), dtype=mine.dtype, device=mine.device)
        _call(f"{what} metadata exchange", dist.all_gather, list(out.unbind(0)), mine, self.group)
        return out.tolist()

    # all_reduce ----------------------------------------------------------------

    def all_reduce(self, tensors: Sequence[torch.Tensor],
                   op: Union[ReduceOp, str] = ReduceOp.SUM) -> List[torch.Tensor]:
        """The elementwise SUM or MEAN of each tensor over all workers (TF's
        `batch_all_reduce`), as new tensors in the input order."""
        return self.all_reduce_async(tensors, op).wait()

    def all_reduce_async(self, tensors: Sequence[torch.Tensor],
                         op: Union[ReduceOp, str] = ReduceOp.SUM) -> PendingCollective:
        """`all_reduce`, launched: returns at once, `wait()` gives the results."""
        op = ReduceOp.from_value(op)
        tensors = list(tensors)
        plan = self._plan("all_reduce", _layout_of(tensors), (self.bucket_bytes,))
        for bucket in plan:  # refuse before anything is sent, on every worker alike
            _check_summable(bucket.dtype, "all_reduce")
        flights = []
        with torch.no_grad():
            for bucket in plan:
                flat = torch.cat([tensors[s].reshape(-1) for s in bucket.slots])
                flights.append(self._launch_sum(flat, bucket, "all_reduce"))
        return PendingCollective(flights, functools.partial(self._finish_reduce, plan, op,
                                                            len(tensors)))

    def _launch_sum(self, flat: torch.Tensor, bucket: Bucket, what: str) -> _Flight:
        """Start summing `flat` (the bucket's buffer, summed in place) across workers."""
        label = (f"{what} bucket {bucket.index} ({bucket.nbytes} bytes of "
                 f"{str(bucket.dtype).replace('torch.', '')} on {bucket.device})")
        _check_summable(flat.dtype, what)
        if self.world_size == 1:
            return _Flight(None, flat, label)
        widened = flat.to(_WIDEN[flat.dtype]) if flat.dtype in _WIDEN else None
        wire = widened if widened is not None else (
            flat.view(_BITCAST[flat.dtype]) if flat.dtype in _BITCAST else flat)
        work = _call(label, dist.all_reduce, wire, dist.ReduceOp.SUM, self.group, True)
        return _Flight(work, flat, label, widened)

    def _finish_reduce(self, plan: Tuple[Bucket, ...], op: ReduceOp, n: int,
                       flats: List[torch.Tensor]) -> List[torch.Tensor]:
        out: List[Any] = [None] * n
        with torch.no_grad():
            for bucket, flat in zip(plan, flats):
                flat = self._mean(flat) if op is ReduceOp.MEAN else flat
                for slot, piece, shape in zip(bucket.slots, flat.split(bucket.numels),
                                              bucket.shapes):
                    out[slot] = piece.view(shape)
        return out

    def _mean(self, flat: torch.Tensor) -> torch.Tensor:
        """TF's MEAN: the sum divided by the group size (true division for integers)."""
        if self.world_size == 1 and flat.is_floating_point():
            return flat
        if flat.dtype in _INT_MEAN:
            return flat.to(_INT_MEAN[flat.dtype]).div_(self.world_size)
        return flat.div_(self.world_size)

    # broadcast -----------------------------------------------------------------

    def broadcast(self, tensors: Sequence[torch.Tensor], src: int = 0) -> List[torch.Tensor]:
        """Rank `src`'s tensors on every worker (TF's collective broadcast, which
        MultiWorkerMirroredStrategy uses to start all workers from the chief's
        initial values). Other workers' inputs give only shapes and dtypes.
        Bit-exact for every dtype (the bytes travel)."""
        tensors = list(tensors)
        if not 0 <= src < self.world_size:
            raise ValueError(f"broadcast src={src} is not a rank of this group of {self.world_size}")
        plan = self._plan("broadcast", _layout_of(tensors), (self.bucket_bytes,))
        global_src = src if self.group is None else dist.get_global_rank(self.group, src)
        flights = []
        with torch.no_grad():
            for bucket in plan:
                if self.rank == src:
                    flat = torch.cat([tensors[s].reshape(-1) for s in bucket.slots])
                else:
                    flat = torch.empty(bucket.numel, dtype=bucket.dtype, device=bucket.device)
                label = f"broadcast bucket {bucket.index} ({bucket.nbytes} bytes) from rank {src}"
                work = None
                if self.world_size > 1 and bucket.numel:
                    work = _call(label, dist.broadcast, flat.view(torch.uint8), global_src,
                                 self.group, True)
                flights.append(_Flight(work, flat, label))
        return PendingCollective(flights, functools.partial(self._finish_reduce, plan,
                                                            ReduceOp.SUM, len(tensors))).wait()

    # all_gather ----------------------------------------------------------------

    def all_gather(self, tensor: torch.Tensor, axis: int = 0) -> torch.Tensor:
        """Every worker's `tensor`, concatenated along `axis` in rank order (TF's
        `ReplicaContext.all_gather` across workers).

        As in TF, the shapes may differ in dimension `axis` (TF pads to the
        largest and strips the padding; so does this) but must agree
        elsewhere, with the same dtype; a scalar cannot be gathered. `axis`
        may be negative. Each call exchanges the shapes first.
        """
        if tensor.dim() == 0:
            raise errors.InvalidArgumentError(None, None, (
                "all_gather needs a tensor of rank >= 1, got a scalar: gather "
                "tf.expand_dims(value, 0) instead."))
        if not -tensor.dim() <= axis < tensor.dim():
            raise errors.InvalidArgumentError(None, None, (
                f"all_gather axis {axis} is out of range for a tensor of rank {tensor.dim()}"))
        axis %= tensor.dim()
        with torch.no_grad():
            moved = tensor.detach().movedim(axis, 0)
            rest = tuple(moved.shape[1:])
            dtype_name = str(tensor.dtype).replace("torch.", "")
            signature = (dtype_name, tensor.device.type, tensor.dim(), axis, rest)
            if self.world_size == 1:
                return tensor.detach().clone()
            mine = torch.tensor([_digest(signature), moved.shape[0]], dtype=torch.int64).to(
                self._meta_device)
            rows = self._gather_rows(mine, "all_gather")
            if any(row[0] != rows[0][0] for row in rows):
                everyone: List[Any] = [None] * self.world_size
                shape = list(tensor.shape)
                _call("all_gather shape check", dist.all_gather_object, everyone,
                      ("all_gather", [f"{dtype_name}{shape} on {tensor.device.type}, axis {axis}"]),
                      self.group)
                raise errors.InvalidArgumentError(None, None, _mismatch_message(
                    everyone, self.rank, note=(
                        " all_gather inputs must have the same dtype and rank, and the same "
                        "size in every dimension but `axis`.")))
            sizes = [row[1] for row in rows]
            longest = max(sizes)
            if moved.shape[0] == longest:
                padded = moved.contiguous()
            else:  # TF pads too: every worker sends `longest` rows
                padded = moved.new_zeros((longest,) + rest)
                padded[: moved.shape[0]] = moved
            out = torch.empty((self.world_size * longest,) + rest, dtype=tensor.dtype,
                              device=tensor.device)
            if out.numel():
                chunks = list(out.view(torch.uint8).view(self.world_size, -1).unbind(0))
                _call(f"all_gather of {dtype_name}{list(tensor.shape)}", dist.all_gather, chunks,
                      padded.view(torch.uint8).reshape(-1), self.group)
            if any(s != longest for s in sizes):
                per_rank = out.view((self.world_size, longest) + rest)
                out = torch.cat([per_rank[r, :s] for r, s in enumerate(sizes)])
            return out.movedim(0, axis)

    # barrier -------------------------------------------------------------------

    def barrier(self) -> None:
        """Wait until every worker arrives (TF's `multi_worker_util.wait_for_other_workers`).

        A gloo group uses torch's monitored barrier, whose error names the
        workers that did not arrive. torch implements that for pure gloo
        groups only, so a mixed group ("cpu:gloo,cuda:nccl") sums a one-element
        CPU tensor instead (every worker must contribute: a barrier), and an
        NCCL-only group uses `torch.distributed.barrier`."""
        if self.world_size == 1:
            return
        if self.backend == "gloo":
            _call("barrier", dist.monitored_barrier, self.group,
                  datetime.timedelta(seconds=_Group.timeout_s), True)
        elif self._cpu_gloo:
            _call("barrier", dist.all_reduce, torch.zeros(1), dist.ReduceOp.SUM, self.group)
        else:
            _call("barrier", dist.barrier, self.group)


def _check_summable(dtype: torch.dtype, what: str) -> None:
    if dtype is torch.bool:
        raise errors.InvalidArgumentError(None, None, (
            f"{what}: bool tensors cannot be summed across workers (TF has no bool "
            "reduction); cast them with tf.cast to an integer dtype first."))


def _mismatch_message(everyone: List[Any], me: int, note: str = "") -> str:
    """Name the first worker whose inputs differ from rank 0's, and how."""
    kind0, desc0 = everyone[0]
    for rank, (kind, desc) in enumerate(everyone[1:], start=1):
        if (kind, desc) == (kind0, desc0):
            continue
        if kind != kind0:
            detail = f"rank 0 called {kind0}, rank {rank} called {kind}"
        elif len(desc) != len(desc0):
            detail = f"rank 0 passed {len(desc0)} tensors, rank {rank} passed {len(desc)}"
        else:
            i = next(i for i, (a, b) in enumerate(zip(desc0, desc)) if a != b)
            detail = f"input #{i}: rank 0 has {desc0[i]}, rank {rank} has {desc[i]}"
        return (f"{kind0} inputs differ across workers ({detail}; this is rank {me}). Every worker "
                "must pass the same number of tensors, with the same shapes and dtypes, to each "
                "collective, in the same order." + note)
    return f"{kind0} inputs differ across workers (this is rank {me})." + note


def __getattr__(name: str) -> Any:
    # The gradient reducer lives in its own module (a concept of its own); it is
    # reachable from here too, where the transport's users look for it.
    if name in ("BucketedGradientReducer", "GradientReduction"):
        from . import gradient_reducer
        return getattr(gradient_reducer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
