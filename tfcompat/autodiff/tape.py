"""`tf.GradientTape` over torch autograd.

The mapping: TF's tape records operations on watched tensors; torch records
operations on tensors with `requires_grad`. A variable's storage never
requires grad. Instead, each tape that watches a variable owns an *anchor*:
a tiny leaf tensor with the variable's shape (zero strides, one element of
memory) standing for "the variable, as seen by this tape". A read under the
tape returns the variable's value through `_ReadVariable`, an autograd
function whose backward hands the incoming gradient to the anchor. So:

* `tape.gradient(y, v)` is the gradient w.r.t. the anchor, which autograd
  sums over every read the tape saw, exactly as TF sums the gradients
  flowing into each `ReadVariableOp`: a read between two assigns
  contributes its own gradient; a read before the tape started does not;
* the graph never holds the variable's storage (only saved tensors do, and
  backward frees those), so after `tape.gradient` an optimizer updates the
  variable in place even while the loss tensor is still alive;
* second derivatives work: the read's Jacobian is the identity.

Reads through `sparse_read`/`tf.gather` get an anchor per read, shaped like
the gathered rows, and their gradient comes back as `tf.IndexedSlices`.

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

from ..framework import nest
from ..framework.indexed_slices import IndexedSlices
from ..variables.variable import _is_variable

__all__ = ["GradientTape", "UnconnectedGradients", "record_read", "record_sparse_read",
           "stop_gradient"]

_log = logging.getLogger("tfcompat")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


class _ThreadTapes(threading.local):
    def __init__(self) -> None:
        self.recording: list = []    # tapes whose context is active, innermost last
        self.stopped = 0             # depth of stop_recording blocks
        # Tapes that may still differentiate what they recorded: entered and not yet used up.
        self.open: "weakref.WeakSet[GradientTape]" = weakref.WeakSet()


_tls = _ThreadTapes()
_lock = threading.Lock()
# Number of tape contexts active in any thread: a read checks this one int
# before touching thread-local state, so reads outside tapes stay cheap.
active_count = 0


def _recorders(var: Any) -> list:
    if _tls.stopped or not _tls.recording or not torch.is_grad_enabled():
        return []
    return [tape for tape in _tls.recording if tape._wants(var)]


class _ReadVariable(torch.autograd.Function):
    """Identity on the value; its gradient goes to the anchors of the recording tapes."""

    @staticmethod
    def forward(ctx: Any, value: torch.Tensor, *anchors: torch.Tensor) -> torch.Tensor:
        ctx.anchors = len(anchors)
        return value.view_as(value)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        return (None,) + (grad,) * ctx.anchors


def _anchor(like: torch.Tensor) -> torch.Tensor:
    """A leaf of `like`'s shape and dtype that costs one element of memory."""
    return torch.empty_strided(tuple(like.shape), (0,) * like.dim(), dtype=like.dtype,
                               device=like.device).requires_grad_(True)


def _differentiable(t: torch.Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def record_read(var: Any, value: torch.Tensor) -> torch.Tensor:
    """Hand a variable's read to the tapes watching it; returns the tensor to use."""
    tapes = _recorders(var)
    if not tapes or not _differentiable(value):
        return value
    return _ReadVariable.apply(value, *[tape._dense_anchor(var, value) for tape in tapes])


def record_sparse_read(var: Any, indices: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """Like `record_read` for gathered rows; their gradient becomes `IndexedSlices`."""
    tapes = _recorders(var)
    if not tapes or not _differentiable(rows):
        return rows
    return _ReadVariable.apply(rows, *[tape._sparse_anchor(var, indices, rows) for tape in tapes])


def stop_gradient(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002 - TF name
    """`tf.stop_gradient`: the same values, cut from the autograd graph (`detach`)."""
    from ..framework.tensor_conversion import convert_to_tensor
    if isinstance(input, IndexedSlices):
        return IndexedSlices(input.values.detach(), input.indices, input.dense_shape)
    return convert_to_tensor(input).detach()


class _Reads:
    """What one tape recorded for one variable: its anchors."""

    __slots__ = ("var", "dense", "sparse")

    def __init__(self, var: Any) -> None:
        self.var = var
        self.dense: list = []    # anchors (one per shape the variable was read with)
        self.sparse: list = []   # (indices, anchor of the gathered rows)


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
        self._reads: dict = {}          # id(var) -> _Reads
        self._watched_vars: dict = {}   # id(var) -> var, explicitly watched
        self._seen: dict = {}           # id(var) -> var, every watched or read variable
        self._used = False
        self._recording = False
        # Tapes whose recording overlapped this one's: they may share its autograd graph.
        self._overlapping: "weakref.WeakSet[GradientTape]" = weakref.WeakSet()

    # -- context ----------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        global active_count
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._recording = True
        for other in _tls.recording:
            other._overlapping.add(self)
            self._overlapping.add(other)
        _tls.recording.append(self)
        _tls.open.add(self)
        with _lock:
            active_count += 1
        return self

    def __exit__(self, *exc: object) -> None:
        global active_count
        self._recording = False
        if any(t is self for t in _tls.recording):
            _tls.recording.remove(self)
        with _lock:
            active_count -= 1

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Neither this tape nor any other in this thread records inside the block.

        Torch mapping: the block runs under `torch.no_grad()`.
        """
        if not self._recording:
            raise ValueError("Tape is not recording.")
        _tls.stopped += 1
        try:
            with torch.no_grad():
                yield
        finally:
            _tls.stopped -= 1

    def reset(self) -> None:
        """Forget everything recorded, as if exiting and re-entering a new tape."""
        self._reads.clear()
        self._watched_vars.clear()
        self._seen.clear()
        self._used = False

    # -- watching -----------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Watch variables and float tensors (any nest of them).

        A watched tensor gets `requires_grad=True` (a torch tensor cannot be
        differentiated otherwise); integer tensors are skipped with TF's
        warning.
        """
        for t in nest.flatten(tensor):
            if _is_variable(t):
                for component in getattr(t, "_watch_targets", lambda: (t,))():
                    self._watched_vars[id(component)] = component
                    self._seen[id(component)] = component
            elif isinstance(t, torch.Tensor):
                if not (t.is_floating_point() or t.is_complex()):
                    _log.warning("The dtype of the watched tensor must be floating (e.g. "
                                 "tf.float32), got %s", t.dtype)
                    continue
                if not t.requires_grad:
                    t.requires_grad_(True)
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 "tf.Tensor or tf.Variable or ExtensionType.")

    def watched_variables(self) -> tuple:
        """The variables this tape watched, in creation order (as TF sorts them)."""
        return tuple(sorted(self._seen.values(), key=lambda v: getattr(v, "_creation_order", 0)))

    def _wants(self, var: Any) -> bool:
        return id(var) in self._watched_vars or (self._watch_accessed and var.trainable)

    def _entry(self, var: Any) -> _Reads:
        entry = self._reads.get(id(var))
        if entry is None:
            entry = self._reads[id(var)] = _Reads(var)
            self._seen[id(var)] = var
        return entry

    def _dense_anchor(self, var: Any, value: torch.Tensor) -> torch.Tensor:
        entry = self._entry(var)
        for anchor in entry.dense:
            if anchor.shape == value.shape:
                return anchor
        anchor = _anchor(value)
        entry.dense.append(anchor)
        return anchor

    def _sparse_anchor(self, var: Any, indices: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        anchor = _anchor(rows)
        self._entry(var).sparse.append((indices, anchor))
        return anchor

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
        create_graph = bool(_tls.recording) and not _tls.stopped and torch.is_grad_enabled()
        shared = any(t in _tls.open for t in self._overlapping)
        retain_graph = self._persistent or create_graph or shared
        return retain_graph, create_graph

    def _release(self) -> None:
        """A non-persistent tape is used up by one gradient (or jacobian) computation."""
        if not self._persistent:
            self._used = True
            _tls.open.discard(self)
            self._reads = {}

    def _targets(self, target: Any) -> list:
        out = []
        for t in nest.flatten(target):
            if _is_variable(t):
                # The target variable is read here, as a read of this tape: d(v)/d(v) = 1.
                var, t = t, t.value().detach()
                if _differentiable(t):
                    t = _ReadVariable.apply(t, self._dense_anchor(var, t))
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
                _tls.recording.remove(self)
                self._recording = False
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
        index: dict = {}

        def add_input(t: torch.Tensor) -> int:
            k = index.get(id(t))
            if k is None:
                k = index[id(t)] = len(inputs)
                inputs.append(t)
            return k

        plans = []
        for s in sources:
            if _is_variable(s):
                entries = [self._reads.get(id(c)) for c in _components(s)]
                entries = [e for e in entries if e is not None]
                if not entries or not (s.dtype.is_floating or s.dtype.is_complex):
                    plans.append(None)
                    continue
                plans.append(("var", s, [add_input(a) for e in entries for a in e.dense],
                              [(idx, add_input(a)) for e in entries for idx, a in e.sparse]))
            elif s.requires_grad:
                plans.append(("tensor", s, add_input(s)))
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
        raw = torch.autograd.grad(outs, inputs, grad_outs, retain_graph=retain_graph,
                                  create_graph=create_graph, allow_unused=True,
                                  is_grads_batched=batched)
        return [_assemble(plan, raw, batched) for plan in plans]

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


def _assemble(plan: Any, raw: tuple, batched: bool = False) -> Any:
    """One source's gradient from the raw gradients of its inputs (the anchors of its reads).

    Only sparse reads give `IndexedSlices`; with dense reads too (or
    `batched`) the slices are added into a dense gradient, from the shape
    already known (no device sync).
    """
    if plan is None:
        return None
    if plan[0] == "tensor":
        return raw[plan[2]]
    _, var, dense_ids, sparse_ids = plan
    dense = [raw[k] for k in dense_ids if raw[k] is not None]
    sparse = [(idx, raw[k]) for idx, k in sparse_ids if raw[k] is not None]
    if not dense and not sparse:
        return None
    if sparse:
        shape = tuple(var.shape.as_list()) if var.shape.is_fully_defined() else tuple(var.handle.shape)
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
        return tuple(s.handle.shape)
    return tuple(s.shape)


def _torch_dtype(s: Any) -> torch.dtype:
    return s.dtype.as_torch if _is_variable(s) else s.dtype


def _device(s: Any) -> torch.device:
    return s.handle.device if _is_variable(s) else s.device


def _zeros(shape: tuple, s: Any) -> torch.Tensor:
    return torch.zeros(shape, dtype=_torch_dtype(s), device=_device(s))


def _zeros_for(s: Any) -> torch.Tensor:
    return _zeros(_shape_of(s), s)
