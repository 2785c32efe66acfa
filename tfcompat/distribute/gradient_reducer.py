"""DDP-style bucketed gradient all-reduce for MultiWorkerMirroredStrategy.

The model is DDP's reducer (`torch/nn/parallel/distributed.py`,
`torch/csrc/distributed/c10d/reducer.cpp`): gradients are copied into
size-capped flat buckets as backward produces them, and each full bucket
starts its all-reduce while backward carries on through earlier layers.
TF's MultiWorkerMirroredStrategy reduces gradients after the tape is done
(packed by `bytes_per_pack`); the result is the same sum, sooner.

The difference from DDP: tfcompat computes gradients with
`torch.autograd.grad(loss, reads)` over the tape's read tensors, not into
`param.grad`, so the reducer hooks the read tensors (`Tensor.register_hook`,
which fires in backward order under `autograd.grad`; post-accumulate-grad
hooks would not fire at all) and returns the reduced gradients instead of
writing them anywhere. See `BucketedGradientReducer`.
"""

from __future__ import annotations

import functools
import threading
from typing import List, Optional, Sequence, Tuple, Union

import torch

from ..framework import errors
from .collectives import (DEFAULT_BUCKET_BYTES, DEFAULT_FIRST_BUCKET_BYTES, CollectiveOps,
                          _describe, _Flight, _layout_of, default_collectives)
from .reduce_util import ReduceOp

__all__ = ["BucketedGradientReducer", "GradientReduction"]



class BucketedGradientReducer:
    """DDP's bucketed, overlapped gradient all-reduce, for `torch.autograd.grad`.

    Built once per list of "reads" (the tensors whose gradients the step
    computes, in forward order; only their dtypes, devices and shapes are
    kept), which it packs into buckets in backward order (`plan_buckets`,
    reversed, caps `(first_bucket_bytes, bucket_bytes)`: DDP's 1 MiB then
    25 MiB). Construction is a collective: it checks that every worker has
    the same layout.

    Each step, either

    * `step = reducer.watch(reads)`, then `torch.autograd.grad(loss, reads)`,
      then `step.wait()`: tensor hooks copy each gradient into its bucket as
      backward produces it, and a full bucket starts its all-reduce at once
      (in bucket order, which every worker shares), while backward carries on
      through earlier layers; or
    * `reducer.reduce(grads)` (or `reduce_async`) after backward: the same
      buckets, launched in the same order.

    `wait()` returns the reduced gradients in the reads' order, as views into
    the flat buckets (fresh every step, so earlier results stay valid).
    Unused reads (no gradient reached them on this worker: `None` from
    `autograd.grad(allow_unused=True)`) contribute zeros, like DDP with
    `find_unused_parameters=True`, so workers that disagree cannot deadlock;
    `GradientReduction.locally_unused` lists them (TF's `tape.gradient`
    gives `None` there, and TF requires all workers to agree). A read whose
    hook fires several times (gradients accumulated over several backward
    passes before `wait()`) gets the sum: each backward pass is one round of
    bucket all-reduces, and `wait()` adds the rounds (every worker must run
    the same number of backward passes, as with DDP). Buckets are not
    rebuilt from the observed gradient order (DDP does that after its first
    step); reads in forward order give backward order already.
    """

    def __init__(self, reads: Sequence[torch.Tensor], op: Union[ReduceOp, str] = ReduceOp.SUM,
                 collectives: Optional[CollectiveOps] = None,
                 first_bucket_bytes: int = DEFAULT_FIRST_BUCKET_BYTES,
                 bucket_bytes: int = DEFAULT_BUCKET_BYTES) -> None:
        self.collectives = collectives if collectives is not None else default_collectives()
        self.op = ReduceOp.from_value(op)
        self.layout = _layout_of(reads)
        self.buckets = self.collectives._plan("gradients", self.layout,
                                              (first_bucket_bytes, bucket_bytes), reverse=True)
        self._shapes = tuple(shape for _, _, shape in self.layout)
        self._dtypes = tuple(dtype for dtype, _, _ in self.layout)
        # per-read lookups for the hooks: bucket, [start, end) in its buffer, shape
        n = len(self.layout)
        self._where: List[Tuple[int, int, int, torch.Size]] = [None] * n  # type: ignore[list-item]
        for b in self.buckets:
            for slot, start, numel, shape in zip(b.slots, b.offsets, b.numels, b.shapes):
                self._where[slot] = (b.index, start, start + numel, shape)
        self._counts = tuple(len(b.slots) for b in self.buckets)

    def __len__(self) -> int:
        return len(self.layout)

    def _check(self, tensors: Sequence[Optional[torch.Tensor]], what: str) -> None:
        if len(tensors) != len(self.layout):
            raise errors.InvalidArgumentError(None, None, (
                f"{what}: the reducer was built for {len(self.layout)} tensors, got "
                f"{len(tensors)}; build one reducer per list of variables."))
        if tuple(t.shape if t is not None else s for t, s in zip(tensors, self._shapes)) \
                != self._shapes or any(t is not None and t.dtype != d
                                       for t, d in zip(tensors, self._dtypes)):
            i = next(i for i, t in enumerate(tensors) if t is not None and (
                t.shape != self._shapes[i] or t.dtype != self._dtypes[i]))
            raise errors.InvalidArgumentError(None, None, (
                f"{what}: tensor #{i} is {_describe([_layout_of([tensors[i]])[0]])[0]}, but the "
                f"reducer was built for {_describe([self.layout[i]])[0]}."))

    def watch(self, reads: Sequence[torch.Tensor]) -> "GradientReduction":
        """Hook this step's `reads` (the same layout); compute their gradients next."""
        reads = list(reads)
        self._check(reads, "watch")
        step = GradientReduction(self)
        step._handles = [t.register_hook(functools.partial(step._arrive, slot))
                         for slot, t in enumerate(reads) if t.requires_grad]
        return step

    def reduce_async(self, grads: Sequence[Optional[torch.Tensor]]) -> "GradientReduction":
        """Reduce gradients computed without hooks: all buckets launched now, in order."""
        grads = list(grads)
        self._check(grads, "reduce")
        step = GradientReduction(self)
        rnd = _Round(self, allocate=False)
        with torch.no_grad():
            for b in self.buckets:
                parts = [grads[s] for s in b.slots]
                if any(g is None for g in parts):
                    rnd.missing.append(b.index)
                    parts = [torch.zeros(n, dtype=b.dtype, device=b.device) if g is None else g
                             for g, n in zip(parts, b.numels)]
                    for s in b.slots:
                        rnd.arrived[s] = grads[s] is not None
                rnd.flats.append(torch.cat([g.reshape(-1) for g in parts]))
                rnd.pending[b.index] = 0
        rnd.launch_ready()
        step._rounds.append(rnd)
        return step

    def reduce(self, grads: Sequence[Optional[torch.Tensor]]) -> List[torch.Tensor]:
        """`reduce_async(grads).wait()`."""
        return self.reduce_async(grads).wait()


class _Round:
    """One backward pass's buckets: buffers, what has arrived, what is in flight."""

    __slots__ = ("reducer", "flats", "pending", "arrived", "next", "flights", "missing")

    def __init__(self, reducer: BucketedGradientReducer, allocate: bool = True) -> None:
        self.reducer = reducer
        # empty, not zeros: every slot is written by its gradient or zeroed at launch
        self.flats = [torch.empty(b.numel, dtype=b.dtype, device=b.device)
                      for b in reducer.buckets] if allocate else []
        self.pending = list(reducer._counts)
        self.arrived = bytearray(len(reducer.layout))
        self.next = 0
        self.flights: List[_Flight] = []
        self.missing: List[int] = []  # buckets launched before all their reads arrived

    def launch_ready(self) -> None:
        """Launch buckets in their fixed order, as far as they are full."""
        buckets, pending = self.reducer.buckets, self.pending
        while self.next < len(buckets) and pending[self.next] == 0:
            self._launch(self.next)

    def launch_all(self) -> None:
        """End of backward: launch the rest, zeros standing in for gradients that never came."""
        for index in range(self.next, len(self.reducer.buckets)):
            if self.pending[index]:
                b = self.reducer.buckets[index]
                flat = self.flats[index]
                for slot, start, numel in zip(b.slots, b.offsets, b.numels):
                    if not self.arrived[slot]:
                        flat[start:start + numel].zero_()
                self.pending[index] = 0
                self.missing.append(index)
            self._launch(index)

    def _launch(self, index: int) -> None:
        self.flights.append(self.reducer.collectives._launch_sum(
            self.flats[index], self.reducer.buckets[index], "gradient all_reduce"))
        self.next = index + 1


class GradientReduction:
    """One step of a `BucketedGradientReducer`: `wait()` returns the reduced gradients."""

    def __init__(self, reducer: BucketedGradientReducer) -> None:
        self._reducer = reducer
        self._lock = threading.Lock()  # hooks may fire on autograd's device threads
        self._handles: list = []
        self._open: Optional[_Round] = None
        self._rounds: List[_Round] = []
        self._result: Optional[List[torch.Tensor]] = None
        self.locally_unused: Tuple[int, ...] = ()

    def _arrive(self, slot: int, grad: torch.Tensor) -> None:
        # The per-tensor hook: copy into the bucket, launch the bucket when full.
        with self._lock:
            rnd = self._open
            if rnd is None:
                rnd = self._open = _Round(self._reducer)
                # run once this backward pass ends (DDP finalizes the same way)
                torch.autograd.Variable._execution_engine.queue_callback(self._close_round)
            index, start, end, shape = self._reducer._where[slot]
            view = rnd.flats[index][start:end].view(shape)
            with torch.no_grad():
                if rnd.arrived[slot]:
                    if index < rnd.next:  # DDP: "mark a variable ready only once"
                        raise RuntimeError(
                            f"The gradient of read #{slot} arrived twice in one backward pass, "
                            "after its bucket was sent (reentrant backward?): the reducer cannot "
                            "add it in. Compute it in a separate backward pass.")
                    view.add_(grad)
                    return
                view.copy_(grad)
            rnd.arrived[slot] = 1
            rnd.pending[index] -= 1
            if rnd.pending[index] == 0 and index == rnd.next:
                rnd.launch_ready()

    def _close_round(self) -> None:
        with self._lock:
            rnd, self._open = self._open, None
            if rnd is not None:
                rnd.launch_all()
                self._rounds.append(rnd)

    @property
    def launched(self) -> int:
        """How many bucket all-reduces this step has started (all rounds)."""
        rounds = self._rounds + ([self._open] if self._open is not None else [])
        return sum(len(r.flights) for r in rounds)

    def is_completed(self) -> bool:
        """Whether every bucket of every round has finished (never blocks)."""
        return self._result is not None or (
            self._open is None and bool(self._rounds) and all(
                f.is_completed() for r in self._rounds for f in r.flights)
            and all(r.next == len(self._reducer.buckets) for r in self._rounds))

    def wait(self) -> List[torch.Tensor]:
        """The reduced gradients, in the reads' order (`None` never: see `locally_unused`).

        Removes the hooks. Launches whatever backward did not (every bucket
        with zeros if no gradient arrived at all, so every worker issues the
        same collectives), then waits for each bucket in order.
        """
        if self._result is not None:
            return self._result
        if torch._C._current_graph_task_id() != -1:
            raise RuntimeError("GradientReduction.wait() was called during backward: call it "
                               "after torch.autograd.grad returns.")
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._close_round()  # backward ended without running its callback (it raised)
        with self._lock:
            if not self._rounds:
                rnd = _Round(self._reducer)
                rnd.launch_all()
                self._rounds.append(rnd)
            rounds, self._rounds = self._rounds, []
        reducer = self._reducer
        flats = [f.wait() for f in rounds[0].flights]
        for extra in rounds[1:]:
            for flat, flight in zip(flats, extra.flights):
                flat.add_(flight.wait())
        self._result = reducer.collectives._finish_reduce(reducer.buckets, reducer.op,
                                                          len(reducer.layout), flats)
        missing = set(rounds[0].missing).intersection(*(r.missing for r in rounds[1:]))
        self.locally_unused = tuple(sorted(
            slot for index in missing for slot in reducer.buckets[index].slots
            if not any(r.arrived[slot] for r in rounds)))
        return self._result
