"""`tf.GradientTape` over torch autograd.

The mapping: TF's tape records operations on watched tensors; torch records
operations on tensors with `requires_grad`. A variable's storage never
requires grad. Instead, a read under a tape that wants the variable returns
a copy-on-write clone of the variable's *anchor*: a `requires_grad` alias
of its live tensor (`Resource.anchor`: one per storage, kept across tapes
and steps, never handed out). Each tape that wants the variable records the
read's own autograd node (its `_lazy_clone` node). So:

* `tape.gradient(y, v)` is the sum of the gradients flowing into the reads
  of `v` this tape recorded, exactly as TF sums the gradients flowing into
  each `ReadVariableOp`: autograd captures them at those nodes
  (`autograd.grad` with `GradientEdge` inputs), so a read before the tape
  started, while it was paused, or under another tape, contributes nothing
  even though it shares the anchor; a read between two assigns reads the
  assigned value (the anchor aliases the live tensor; an assign that gives
  the variable new storage gives it a new anchor);
* backward stops at the reads: per variable, it runs no more autograd
  nodes than torch does for a `Parameter`, and nothing in it is Python;
  a step allocates one Python object per read that lives until the
  gradient (its node), so Python's garbage collector has little to track;
* the graph never holds a copy-on-write share of the variable's memory:
  the anchor is an alias, not a clone, a tape keeps its reads' nodes, not
  the reads, and the clones a read hands out die with their users. After
  `tape.gradient` (or inside the block), a write updates the variable in
  place even while the loss is alive;
* the read itself is an ordinary non-leaf tensor, so in-place ops on it
  work and change neither the variable nor the gradient of other reads;
  the recorded node is the read's original one, so a read written in place
  (or detached) still gives the gradient of what was computed from it;
* second derivatives work: the read's Jacobian is the identity.

Nested tapes: a read under several recording tapes is recorded by exactly
those tapes; `_Leaves` caches, per set of recording tapes, which of them
want each variable, and is replaced when the set changes (a tape enters,
exits, pauses), so a tape never records reads made before it started or
while it was paused.

Reads through `sparse_read`/`tf.gather` make their gathered rows (new
memory) a leaf of their own, and their gradient comes back as `tf.IndexedSlices`.

Outside any tape, reads return plain tensors that do not require grad:
nothing builds an autograd graph, so long loops of reads cost no memory.

Nested tapes give higher-order gradients: a gradient computed while a tape
is recording is itself differentiable (`create_graph=True`).
"""

from __future__ import annotations

import contextlib
import enum
import logging
import threading
import warnings
import weakref
from typing import Any, Iterator, Optional

import torch

from ..framework import dtypes, nest
from ..framework import variable_protocol as protocol
from ..framework.indexed_slices import IndexedSlices
from ..framework.copy_on_write import snapshot_of
from ..ops.array_ops import stop_gradient

from torch.autograd.graph import GradientEdge as _GradientEdge

__all__ = ["GradientTape", "UnconnectedGradients", "stop_gradient", "init_scope"]

_is_variable = protocol.is_variable
_log = logging.getLogger("tfcompat")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


class _Leaves:
    """What the current set of recording tapes of one thread records.

    `want[id(var)]` are the tapes of the set that record reads of `var`
    (`()` if none does), valid while `source[id(var)]` is still `var`'s
    storage cell. `tapes` are the recording, unpaused tapes, innermost last.
    `keep`: a gradient observer is set (a strategy that overlaps its
    all-reduces with backward), so the tapes keep the reads themselves, for
    its hooks.
    """

    __slots__ = ("want", "source", "tapes", "one", "keep")

    def __init__(self, tapes: list) -> None:
        self.want: dict = {}
        self.source: dict = {}
        self.tapes = tapes
        self.one = (tapes[0],) if len(tapes) == 1 else None  # (no tuple per variable)
        self.keep = protocol.gradient_observer() is not None


class _ThreadTapes(threading.local):
    def __init__(self) -> None:
        self.recording: list = []    # tapes whose context is active, innermost last
        self.paused_all = 0          # depth of init_scope blocks
        # What the current set of recording tapes records, None while no tape of this thread
        # records. Replaced whenever that set changes.
        self.leaves: Optional[_Leaves] = None
        # Tapes that may still differentiate what they recorded: entered and not yet used up.
        self.open: "weakref.WeakSet[GradientTape]" = weakref.WeakSet()
        self.entered = 0             # tapes entered so far (a compiled function checks it)


_tls = _ThreadTapes()
_grad_enabled = torch.is_grad_enabled


def _set_changed() -> None:
    """The set of recording tapes (or what they watch) changed: later reads ask again who records them."""
    tls = _tls
    tapes = [] if tls.paused_all else [t for t in tls.recording if not t._paused]
    tls.leaves = _Leaves(tapes) if tapes else None


def _differentiable(t: torch.Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _wanting(var: Any) -> list:
    """The recording, unpaused tapes of this thread that record reads of `var`."""
    if _tls.paused_all:
        return []
    return [tape for tape in _tls.recording if not tape._paused and tape._wants(var)]


def _wanting_tapes(var: Any, key: int, cell: Any, leaves: _Leaves) -> tuple:
    """The tapes of `leaves` that record reads of `var`, remembered for its next reads.

    (Every training step's first read of every variable comes here: kept to few calls.)
    """
    tapes: tuple = ()
    value = cell.value
    if value.is_floating_point() or value.is_complex():
        for tape in leaves.tapes:
            if key in tape._watched_vars or (tape._watch_accessed and var.trainable):
                tapes += (tape,)
        if len(tapes) == 1 and leaves.one is not None:
            tapes = leaves.one
    leaves.want[key] = tapes
    leaves.source[key] = cell
    return tapes


def _only_leaf(plan: Any, inputs: list) -> Optional[torch.Tensor]:
    """The one input whose gradient is a source's whole gradient, or None."""
    if type(plan) is int:
        return inputs[plan]
    if isinstance(plan, tuple) and plan[0] == "var" and len(plan[2]) == 1 and not plan[3]:
        return inputs[plan[2][0]]
    return None


class _Recorder:
    """The tape's side of the variable read protocol (`framework/variable_protocol.py`)."""

    @staticmethod
    def dense(var: Any, cell: Any) -> torch.Tensor:
        """A read of `var` (storage cell `cell`), differentiable for the tapes that want it.

        The read is a copy-on-write clone of the cell's gradient anchor (a
        `requires_grad` alias of the live tensor, `Resource.anchor`); each
        tape that wants `var` records the read's own autograd node, and
        differentiates there (see `_differentiate`).
        """
        leaves = _tls.leaves
        if leaves is None or not _grad_enabled():
            return cell.snapshot()
        key = id(var)
        if leaves.source.get(key) is cell:
            tapes = leaves.want[key]
        else:
            tapes = _wanting_tapes(var, key, cell, leaves)
        if not tapes:
            return cell.snapshot()
        with cell.lock:
            # The cell's memory is torch's (`Resource` makes sure), so the clone is lazy.
            read = cell.anchor()._lazy_clone()
        node = read.grad_fn
        for tape in tapes:
            tape._record_dense(var, node)
            if leaves.keep:
                tape._reads[id(node)] = read
        return read

    @staticmethod
    def sparse(var: Any, indices: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        """Gathered rows of `var`; their gradient becomes `IndexedSlices` for the tapes that want it."""
        if _tls.leaves is None or not _grad_enabled() or not _differentiable(rows):
            return rows
        tapes = _wanting(var)
        if not tapes:
            return rows
        rows.requires_grad_(True)  # new memory (a gather), so a leaf of its own
        for tape in tapes:
            tape._record_sparse(var, indices, rows)
        return snapshot_of(rows)


    @staticmethod
    def paused() -> Any:
        return init_scope()


protocol.set_recorder(_Recorder)


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """`tf.init_scope`: no tape of this thread records inside the block.

    TF uses it to lift variable creation and initialization out of
    `tf.function` graphs and off gradient tapes; tfcompat's functions run
    eagerly, so what remains is the tape part. Torch mapping: the block
    runs under `torch.no_grad()`.
    """
    _tls.paused_all += 1
    _set_changed()
    try:
        with torch.no_grad():
            yield
    finally:
        _tls.paused_all -= 1
        _set_changed()


# Tensors `watch` turned `requires_grad` on for: id -> [tensor, number of tapes holding it].
# When the last such tape's block ends, the tensor is given back as it was.
_lent: dict = {}
_lent_lock = threading.Lock()


class GradientTape:
    """Record operations for automatic differentiation (`tf.GradientTape`).

    Trainable variables read inside the `with` block are watched
    automatically (unless `watch_accessed_variables=False`); other variables
    and tensors are watched with `watch`. A non-persistent tape computes one
    set of gradients; a persistent one any number, until it is deleted.

    Tapes are thread-local: a tape records only reads made in the thread
    that entered it.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        # What the tape recorded, per variable: the leaves of its dense reads (one per set of
        # recording tapes and storage) and the (indices, leaf) of its gathers.
        # id(var) -> what to differentiate at, per dense read (the read's autograd node; a
        # leaf for a variable that is a target), or a list of them for several reads.
        self._dense: dict = {}
        self._reads: dict = {}          # id(node) -> its read, kept for a gradient observer
        self._sparse: dict = {}         # id(var) -> [(indices, leaf), ...]
        self._watched_vars: dict = {}   # id(var) -> var, explicitly watched
        self._seen: dict = {}           # id(var) -> var, every watched or recorded variable
        self._watched_tensors: dict = {}  # id(tensor) -> tensor, explicitly watched
        self._lent_here: list = []      # tensors this tape's `watch` made require grad
        self._used = False
        self._recording = False
        self._paused = 0                # depth of this tape's stop_recording blocks
        # Tapes whose recording overlapped this one's: they may share its autograd graph.
        self._overlapping: "weakref.WeakSet[GradientTape]" = weakref.WeakSet()

    # -- context ----------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._recording = True
        _tls.entered += 1
        for other in _tls.recording:
            other._overlapping.add(self)
            self._overlapping.add(other)
        _tls.recording.append(self)
        _tls.open.add(self)
        _set_changed()
        protocol.add_recording(1)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()
        self._give_back_tensors()

    def _stop(self) -> None:
        if not self._recording:
            return
        self._recording = False
        if any(t is self for t in _tls.recording):
            _tls.recording.remove(self)
        _set_changed()
        protocol.add_recording(-1)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """This tape records nothing inside the block; other tapes go on recording.

        Torch mapping: when no other tape of this thread is recording, the
        block runs under `torch.no_grad()`. Otherwise autograd must keep
        recording for those tapes, and this tape still differentiates
        through ops applied inside the block to tensors it had recorded
        (see docs/differences.md); it never records reads made there.
        """
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._paused += 1
        _set_changed()
        others = any(t is not self and not t._paused for t in _tls.recording)
        try:
            with contextlib.nullcontext() if others else torch.no_grad():
                yield
        finally:
            self._paused -= 1
            _set_changed()

    def reset(self) -> None:
        """Forget everything recorded, as if exiting and re-entering a new tape."""
        self._dense.clear()
        self._sparse.clear()
        self._reads.clear()
        self._watched_vars.clear()
        self._seen.clear()
        self._watched_tensors.clear()
        self._used = False
        _set_changed()

    # -- watching -----------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Watch variables and float tensors (any nest of them).

        Torch mapping: a watched tensor must require grad for autograd to
        differentiate it, so `watch` turns `requires_grad` on, and turns it
        off again when the last tape watching it ends its block (a tensor
        that already required grad is left as it was). Only tapes that
        watched a tensor give gradients for it. Integer tensors are skipped
        with TF's warning.
        """
        for t in nest.flatten(tensor):
            if _is_variable(t):
                for component in getattr(t, "_watch_targets", lambda: (t,))():
                    self._watched_vars[id(component)] = component
                    self._seen[id(component)] = component
                _set_changed()
            elif isinstance(t, torch.Tensor):
                if not (t.is_floating_point() or t.is_complex()):
                    _log.warning("The dtype of the watched tensor must be floating (e.g. "
                                 "tf.float32), got tf.%s", dtypes.from_torch(t.dtype).name)
                    continue
                self._watched_tensors[id(t)] = t
                self._lend(t)
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 "tf.Tensor or tf.Variable or ExtensionType.")

    def _lend(self, t: torch.Tensor) -> None:
        """Make `t` require grad for the length of this tape's block (see `watch`)."""
        if not self._recording or any(x is t for x in self._lent_here):
            return
        with _lent_lock:
            entry = _lent.get(id(t))
            if entry is not None and entry[0] is t:
                entry[1] += 1
            elif not t.requires_grad:
                t.requires_grad_(True)
                _lent[id(t)] = [t, 1]
            else:
                return
        self._lent_here.append(t)

    def _give_back_tensors(self) -> None:
        with _lent_lock:
            for t in self._lent_here:
                entry = _lent.get(id(t))
                if entry is None or entry[0] is not t:
                    continue
                entry[1] -= 1
                if entry[1] == 0:
                    del _lent[id(t)]
                    if t.is_leaf:
                        t.requires_grad_(False)
        self._lent_here = []

    def watched_variables(self) -> tuple:
        """The variables this tape watched, in creation order (as TF sorts them)."""
        return tuple(sorted(self._seen.values(), key=lambda v: getattr(v, "_creation_order", 0)))

    def _wants(self, var: Any) -> bool:
        return id(var) in self._watched_vars or (self._watch_accessed and var.trainable)

    def _record_dense(self, var: Any, leaf: torch.Tensor) -> None:
        key = id(var)
        held = self._dense.get(key)
        if held is None:
            # (one leaf is kept as itself, not in a list: a training step records one leaf
            # per variable, and every object alive until the gradient is work for Python's GC)
            self._dense[key] = leaf
            self._seen[key] = var
        elif type(held) is list:
            held.append(leaf)
        else:
            self._dense[key] = [held, leaf]

    def _record_sparse(self, var: Any, indices: torch.Tensor, leaf: torch.Tensor) -> None:
        key = id(var)
        self._sparse.setdefault(key, []).append((indices, leaf))
        self._seen[key] = var

    # -- gradients ----------------------------------------------------------
    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians). Pass persistent=True to compute "
                               "several.")

    def _graph_flags(self) -> tuple:
        """`(retain_graph, create_graph)` for a backward pass over what this tape recorded.

        The graph is kept for this tape's later gradients (persistent), for
        a higher-order gradient, or for another tape that recorded at the
        same time and may still need the same graph. Otherwise backward
        frees it, and with it the saved reads that would make the next
        write to a variable copy it.
        """
        create_graph = (not _tls.paused_all and torch.is_grad_enabled()
                        and any(not t._paused for t in _tls.recording))
        shared = bool(self._overlapping) and any(t in _tls.open for t in self._overlapping)
        retain_graph = self._persistent or create_graph or shared
        return retain_graph, create_graph

    def _release(self) -> None:
        """A non-persistent tape is used up by one gradient (or jacobian) computation."""
        if not self._persistent:
            self._used = True
            _tls.open.discard(self)
            self._dense = {}
            self._sparse = {}
            self._reads = {}

    def _targets(self, target: Any) -> list:
        out = []
        for t in nest.flatten(target):
            if _is_variable(t):
                # The target variable is read here, as a read of this tape: d(v)/d(v) = 1.
                var, cell = t, protocol.storage(t)
                value = cell.value if cell is not None else var.value().detach()
                if _differentiable(value):
                    leaf = value.detach().requires_grad_(True)
                    self._record_dense(var, leaf)
                    t = snapshot_of(leaf)
                else:
                    t = snapshot_of(value)
            elif isinstance(t, IndexedSlices):
                t = t.to_dense()
            elif not isinstance(t, torch.Tensor):
                raise AttributeError(f"'{type(t).__name__}' object has no attribute 'dtype': the "
                                     "target of gradient() must be a tensor or variable.")
            out.append(t)
        return out

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """d(sum of `target`)/d`sources`, in the nest structure of `sources`.

        Several targets add up; `output_gradients` weights each target (the
        vector of a vector-Jacobian product). Sources the target does not
        depend on get `None` (or zeros with `UnconnectedGradients.ZERO`);
        integer variables always get `None`.
        """
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        if self._recording:
            if self._persistent:
                _log.warning("Calling GradientTape.gradient on a persistent tape inside its "
                             "context is significantly less efficient than calling it outside "
                             "the context (it records the gradient computation itself).")
            else:  # as TF: a non-persistent tape stops recording once it is used
                self._stop()
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if s is None or not (_is_variable(s) or isinstance(s, torch.Tensor)):
                raise TypeError(f"Cannot differentiate with respect to {s!r}: sources must be "
                                "tensors or variables.")
        targets = self._targets(target)
        if output_gradients is None:
            weights = [None] * len(targets)
        else:
            from ..framework.tensor_conversion import convert_to_tensor
            # Matched to the target's structure: for a single target, a Python list is one
            # value (the weight tensor), not a structure.
            flat = [output_gradients] if not nest.is_nested(target) else nest.flatten(output_gradients)
            weights = [None if w is None else convert_to_tensor(w) for w in flat]
            if len(weights) != len(targets):
                raise ValueError(f"output_gradients must have the structure of target: "
                                 f"{len(targets)} targets, {len(weights)} output gradients.")
        grads = self._differentiate(targets, weights, flat_sources)
        self._release()
        result = []
        for s, g in zip(flat_sources, grads):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                g = _zeros_for(s)
            result.append(g)
        return nest.pack_sequence_as(sources, result)

    def _differentiate(self, targets: list, weights: list, sources: list,
                       flags: Optional[tuple] = None, batched: bool = False) -> list:
        """Gradients of the weighted `targets` for each source (None: not connected).

        `flags` is `(retain_graph, create_graph)`, by default `_graph_flags()`.
        With `batched`, each weight has a leading batch axis (one backward
        pass per row, vectorized by torch) and every gradient has it too,
        sparse ones densified.
        """
        pairs = [(t, w) for t, w in zip(targets, weights) if t.requires_grad]
        inputs: list = []
        observed: list = []  # per input, the tensor a gradient observer may hook, or None
        index: dict = {}
        lent: list = []   # watched tensors whose tape block ended: they require grad again

        def add_input(t: torch.Tensor) -> int:
            k = index.get(id(t))
            if k is None:
                k = index[id(t)] = len(inputs)
                inputs.append(t)
                observed.append(t)
            return k

        # Per source: an int (the position of its one input, the common case), None (not
        # connected), or a plan for `_assemble` (several reads, sparse reads, components).
        plans: list = []
        dense_of, sparse_of = self._dense, self._sparse
        reads = self._reads

        def add_leaf(x: Any) -> int:
            # A dense read is differentiated at its own autograd node (the gradient flowing
            # into the read): the gradient of exactly the reads this tape recorded, whatever
            # else reads the same anchor, and whatever in-place ops did to the read since.
            # Capturing there, the backward pass stops at the read: nothing runs per variable
            # beyond what torch runs for a Parameter. (A target variable's leaf: a tensor.)
            k = index.get(id(x))
            if k is None:
                k = index[id(x)] = len(inputs)
                if isinstance(x, torch.Tensor):
                    inputs.append(x)
                    observed.append(x)
                else:
                    inputs.append(_GradientEdge(x, 0))
                    read = reads.get(id(x))
                    # (a hook on a read written in place would see another node's gradient)
                    observed.append(read if read is not None and read._version == 0 else None)
            return k

        plain = _reads_itself
        for s in sources:
            kind = type(s)
            if plain.get(kind) or (kind not in plain and _own_only_component(kind)):
                key = id(s)
                held = dense_of.get(key)
                if key not in sparse_of:
                    if held is None:
                        plans.append(None)
                    elif type(held) is not list:
                        plans.append(add_leaf(held))
                    else:
                        plans.append(("var", s, [add_leaf(a) for a in held], []))
                    continue
            if _is_variable(s):
                # (Leaves exist only for floating and complex values: no dtype check needed.)
                components = _components(s)
                dense = [a for c in components for a in _as_list(dense_of.get(id(c)))]
                sparse = [(idx, a) for c in components for idx, a in sparse_of.get(id(c), ())]
                if not dense and not sparse:
                    plans.append(None)
                    continue
                plans.append(("var", s, [add_leaf(a) for a in dense],
                              [(idx, add_input(a)) for idx, a in sparse]))
            elif s.grad_fn is not None or (s.is_leaf and self._watched_tensors.get(id(s)) is s):
                # A leaf gets a gradient only from a tape that watched it (TF: None otherwise);
                # a computed tensor is differentiable if its graph reaches a watched input.
                plans.append(add_input(s))
                if not s.requires_grad:
                    lent.append(s)
            else:
                plans.append(None)
        if not pairs or not inputs:
            return [None] * len(sources)
        outs = [t for t, _ in pairs]
        if batched:
            grad_outs = [w.to(t.dtype) for t, w in pairs]
        else:
            grad_outs = [torch.ones_like(t) if w is None else w.to(t.dtype).expand_as(t)
                         for t, w in pairs]
        retain_graph, create_graph = self._graph_flags() if flags is None else flags
        observer = None if batched else protocol.gradient_observer()
        token = None
        if observer is not None:
            token = observer.before(sources, [_only_leaf(plan, observed) for plan in plans])
        with _requiring_grad(lent):
            raw = torch.autograd.grad(outs, inputs, grad_outs, retain_graph=retain_graph,
                                      create_graph=create_graph, allow_unused=True,
                                      is_grads_batched=batched)
        result = [raw[plan] if type(plan) is int else _assemble(plan, raw, batched)
                  for plan in plans]
        if token is not None:
            token.finish(result)
        return result

    def _stacked_gradients(self, out: torch.Tensor, weights: torch.Tensor, sources: list) -> list:
        """Per source, the gradients of `out` weighted by each row of `weights`, stacked.

        `weights` is `[k] + out.shape`; each result is `[k] + source.shape`
        (sparse gradients densified), or None where `out` does not depend on
        the source. One vectorized backward pass (`is_grads_batched`) when
        torch can batch every op's backward; else one pass per row.
        """
        retain_graph, create_graph = self._graph_flags()
        k = weights.shape[0]
        if k == 0 or not out.requires_grad:
            return [None] * len(sources)
        try:
            with warnings.catch_warnings():
                # An op without a batching rule runs in a loop inside torch: still correct.
                warnings.filterwarnings("ignore", message=".*performance drop.*")
                # The graph is kept: should torch fail half-way, the loop below needs it.
                return self._differentiate([out], [weights], sources, (True, create_graph),
                                           batched=True)
        except (RuntimeError, NotImplementedError):
            pass  # an op's backward vmap cannot batch (a data-dependent one, say)
        rows = [self._differentiate([out], [weights[i]], sources,
                                    (retain_graph if i == k - 1 else True, create_graph))
                for i in range(k)]
        result = []
        for j, s in enumerate(sources):
            parts = [r[j] for r in rows]
            if all(p is None for p in parts):
                result.append(None)
                continue
            result.append(torch.stack([
                _zeros_for(s) if p is None else (p.to_dense() if isinstance(p, IndexedSlices) else p)
                for p in parts]))
        return result

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Optional[int] = None, experimental_use_pfor: bool = True) -> Any:
        """d`target`/d`sources` with shape `target.shape + source.shape` per source.

        Torch mapping: one vectorized backward pass seeded with the identity
        (`torch.autograd.grad(..., is_grads_batched=True)`), falling back to
        one pass per element of `target`; sparse gradients are densified.
        """
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        (t,) = self._targets(target)
        flat_sources = nest.flatten(sources)
        flat_t = t.reshape(-1)
        n = flat_t.numel()
        eye = torch.eye(n, dtype=t.dtype, device=t.device)
        grads = self._stacked_gradients(flat_t, eye, flat_sources)
        self._release()
        result = []
        for s, g in zip(flat_sources, grads):
            shape = tuple(t.shape) + _shape_of(s)
            if g is None:
                result.append(_zeros(shape, s) if unconnected is UnconnectedGradients.ZERO else None)
            else:
                result.append(g.reshape(shape))
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Optional[int] = None, experimental_use_pfor: bool = True) -> Any:
        """Per-example Jacobians: `[b] + target.shape[1:] + source.shape[1:]`.

        Assumes, as TF does, that example `i` of `target` depends only on
        example `i` of `source`: row `j` of every example's Jacobian is one
        gradient of the sum over examples of `target[:, j]`.
        """
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        (t,) = self._targets(target)
        b = t.shape[0]
        flat_t = t.reshape(b, -1)
        m = flat_t.shape[1]
        # Weight j selects column j in every example: [m, b, m].
        weights = torch.eye(m, dtype=t.dtype, device=t.device).unsqueeze(1).expand(m, b, m)
        (g,) = self._stacked_gradients(flat_t, weights, [source])
        self._release()
        src_shape = _shape_of(source)
        shape = (b,) + tuple(t.shape[1:]) + src_shape[1:]
        if g is None:
            return _zeros(shape, source) if unconnected is UnconnectedGradients.ZERO else None
        return g.movedim(0, 1).reshape(shape)


@contextlib.contextmanager
def _requiring_grad(tensors: list) -> Iterator[None]:
    """Watched tensors whose tape block ended (`watch` gave them back) require grad again
    for the one autograd call that differentiates them."""
    if not tensors:
        yield
        return
    with _lent_lock:
        for t in tensors:
            t.requires_grad_(True)
    try:
        yield
    finally:
        with _lent_lock:
            for t in tensors:
                if id(t) not in _lent:
                    t.requires_grad_(False)


def _as_list(held: Any) -> list:
    """A tape's record of one variable's leaves (`GradientTape._dense`) as a list."""
    if held is None:
        return []
    return held if type(held) is list else [held]


def _assemble(plan: Any, raw: tuple, batched: bool = False) -> Any:
    """One source's gradient from the raw gradients of its inputs (the anchors of its reads).

    Only sparse reads give `IndexedSlices`; with dense reads too (or
    `batched`) the slices are added into a dense gradient, from the shape
    already known (no device sync).
    """
    if plan is None:
        return None
    _, var, dense_ids, sparse_ids = plan
    dense = [raw[k] for k in dense_ids if raw[k] is not None]
    sparse = [(idx, raw[k]) for idx, k in sparse_ids if raw[k] is not None]
    if not dense and not sparse:
        return None
    if sparse:
        shape = var._current_shape()
        lead = tuple(sparse[0][1].shape[:1]) if batched else ()
        values = torch.cat([g.reshape(lead + (-1,) + shape[1:]) for _, g in sparse], dim=len(lead))
        indices = torch.cat([idx.reshape(-1) for idx, _ in sparse])
        if not dense and not batched:
            # TF keeps shapes in host memory: no copy to the device per gradient.
            return IndexedSlices(values, indices, torch.tensor(shape, dtype=torch.int32))
        zeros = torch.zeros(lead + shape, dtype=values.dtype, device=values.device)
        dense.append(zeros.index_add_(len(lead), indices.to(device=values.device), values))
    total = dense[0]
    for g in dense[1:]:
        total = total + g
    return total


# Variable classes -> whether a read of one is a read of itself only (its `_watch_targets` is
# the base class's `(self,)`, marked `reads_itself`): the common source, looked up by type.
_reads_itself: dict = {}


def _own_only_component(kind: type) -> bool:
    found = _reads_itself.get(kind)
    if found is None:
        found = _reads_itself[kind] = bool(
            protocol.is_variable(kind) and getattr(getattr(kind, "_watch_targets", None),
                                                  "reads_itself", False))
    return found


def _components(var: Any) -> tuple:
    """The variables whose reads stand for `var` (itself, or what a wrapper delegates to).

    A `tf.Variable` subclass that wraps other variables declares them with
    `_watch_targets()`; the tape records the wrapped variables' reads and
    sums them for the wrapper.
    """
    targets = getattr(var, "_watch_targets", None)
    return tuple(targets()) if targets is not None else (var,)


def _shape_of(s: Any) -> tuple:
    if _is_variable(s):
        return s._current_shape()
    return tuple(s.shape)


def _torch_dtype(s: Any) -> torch.dtype:
    return s.dtype.as_torch if _is_variable(s) else s.dtype


def _device(s: Any) -> torch.device:
    return s._torch_device() if _is_variable(s) else s.device


def _zeros(shape: tuple, s: Any) -> torch.Tensor:
    return torch.zeros(shape, dtype=_torch_dtype(s), device=_device(s))


def _zeros_for(s: Any) -> torch.Tensor:
    return _zeros(_shape_of(s), s)
