"""`tf.function(jit_compile=True)`: a function of tensors and variables compiled by
`torch.compile`.

TF compiles such a function with XLA. tfcompat compiles it when it is one pure tensor
program: per input signature (tensors by shape, dtype and device; Python values by value;
other objects by identity, as TF retraces), the function's first call runs eagerly and
records which variables it reads; its second call traces it into an ATen graph (`make_fx`
with fake tensors) whose inputs are the reads of those variables and the call's tensors,
and `torch.compile` (Inductor; its backward by AOTAutograd) compiles that graph. Later
calls read the variables (snapshots, on the tapes of the caller: the compiled function is
differentiable, so a loss computed by it trains under the caller's `GradientTape`) and run
the compiled code, with no Python of the function.

What is not a pure function of those inputs runs eagerly, with the same results, and the
function says so once (`RuntimeWarning`): a function that writes or creates variables on
a call after the first (an optimizer's update; variables created on the first call are
TF's rule too), runs in a strategy's replica threads, records a `GradientTape` of its own (compute the loss in the compiled
function and the gradient outside it, or use `model.compile(jit_compile=True)` for
`fit`), draws random numbers, reads rows of a variable (`tf.gather` on it), reads a
variable other than through tfcompat's reads, or cannot be traced. Index range checks
are returned by the graph; if one fails the call is replayed eagerly, which raises TF's
`InvalidArgumentError`.

As under TF, Python side effects in the function (prints, appends) happen when it is
traced, not on every call: here on the first two calls of each input signature.

The helpers here (`TracingReads`, `reads_replaced`, `is_random`, `quiet_torch`, `storage_state`,
`changes_since`,
`check_graph`) are shared with Keras' compiled train step (`keras/engine/compiled_step.py`).
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from typing import Any, Callable, Dict, Iterator, Optional

import torch
from torch.utils import _pytree as pytree

from ..framework import function as function_lib
from ..framework import thread_context
from ..framework import variable_protocol as protocol
from ..ops import _indices
from . import tape as tape_lib

__all__ = ["JitFunction", "Unsupported", "TracingReads", "reads_replaced", "is_random",
           "quiet_torch", "check_graph", "storage_state", "changes_since"]


class Unsupported(Exception):
    """The function cannot be one compiled graph (the message says why)."""


# One `make_fx` trace at a time (the recorders are per thread; this only serializes tracing).
_trace_lock = threading.RLock()


class TracingReads:
    """The recorder of a thread that traces: a read of one of the given variables (by id) is
    the graph's input for it; any other read makes the trace unsupported."""

    def __init__(self, inner: Any, inputs: Dict[int, torch.Tensor]) -> None:
        self.inner = inner
        self.inputs = inputs

    def dense(self, var: Any, cell: Any) -> torch.Tensor:
        read = self.inputs.get(id(var))
        if read is None:
            raise Unsupported(f"it reads {getattr(var, 'name', var)!r}, which its first call "
                              "did not read")
        return read

    def sparse(self, var: Any, indices: Any, rows: Any) -> Any:
        raise Unsupported("it reads rows of a variable (a sparse read)")

    def __getattr__(self, name: str) -> Any:  # paused(), ...: the tape's own
        return getattr(self.inner, name)


class _DiscoveringReads:
    """The recorder of a thread's first call: its reads are collected (in order, once each)
    and handed on, so the call is an ordinary eager call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.read: Dict[int, Any] = {}
        self.sparse_read = False

    def dense(self, var: Any, cell: Any) -> torch.Tensor:
        self.read.setdefault(id(var), var)
        return self.inner.dense(var, cell)

    def sparse(self, var: Any, indices: Any, rows: Any) -> Any:
        self.sparse_read = True
        return self.inner.sparse(var, indices, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def reads_replaced(make: Callable[[Any], Any]) -> Any:
    """For the block, this thread's variable reads go to `make(inner)` (see
    `variable_protocol.pushed_recorder`); the context value is that recorder."""
    return protocol.pushed_recorder(make)


def is_random(graph: torch.fx.Graph) -> bool:
    """Whether the traced graph draws random numbers (a node of a nondeterministic-seeded op)."""
    tag = torch.Tag.nondeterministic_seeded
    return any(node.op == "call_function" and tag in getattr(node.target, "tags", ())
               for node in graph.nodes)


def check_graph(graph_module: torch.fx.GraphModule) -> None:
    """Raise `Unsupported` if the traced graph draws random numbers or holds a variable's
    memory as a constant (a read that bypassed the recorder would be frozen at its traced
    value)."""
    if is_random(graph_module.graph):
        raise Unsupported("it draws random numbers (e.g. Dropout: a fresh draw each call is "
                          "not an input of the graph)")
    cells = protocol.live_storages()
    held = {_data_ptr(getattr(cell, "value", None)) for cell in cells} - {0}
    for node in graph_module.graph.nodes:
        if node.op == "get_attr":
            value = getattr(graph_module, node.target, None)
            if isinstance(value, torch.Tensor) and _data_ptr(value) in held:
                raise Unsupported("it reads a variable's memory directly (e.g. through "
                                  "`.numpy()` or `.handle`), which a graph would freeze")


def _data_ptr(t: Any) -> int:
    if not isinstance(t, torch.Tensor) or t.device.type == "meta":
        return 0
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):  # (fake or sparse tensors)
        return 0


@contextlib.contextmanager
def quiet_torch(on: bool) -> Iterator[None]:
    """While tracing and compiling, the warnings torch's compiler stack issues about its own
    internals are not the user's (a user's `warnings.simplefilter("error")` must not turn
    them into a failed compile)."""
    if not on:
        yield
        return
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"torch(\.|$)")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        yield


def storage_state() -> Dict[int, tuple]:
    """id(cell) -> (cell, its token) for every live storage cell."""
    return {id(cell): (cell, cell.token()) for cell in protocol.live_storages()}


def changes_since(before: Dict[int, tuple]) -> Optional[str]:
    """What happened to the variables since `before`: "writes", "creates" or None."""
    after = storage_state()
    for key, (cell, token) in before.items():
        now = after.get(key)
        if now is not None and not (now[1][0] is token[0] and now[1][1:] == token[1:]):
            return "writes"
    if any(key not in before for key in after):
        return "creates"
    return None


class _Static:
    """A non-tensor argument in a signature: Python scalars and strings by value, other
    objects (variables, modules, layers) by identity, as TF retraces."""

    __slots__ = ("value", "by_value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.by_value = value is None or isinstance(value, (bool, int, float, complex, str, bytes))

    def __hash__(self) -> int:
        return hash((type(self.value), self.value)) if self.by_value else id(self.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Static) or self.by_value != other.by_value:
            return False
        if self.by_value:
            return type(self.value) is type(other.value) and self.value == other.value
        return self.value is other.value


def _leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, torch.Tensor):
        return (tuple(leaf.shape), leaf.dtype, leaf.device)
    return _Static(leaf)


class _Entry:
    """One input signature: the variables its first call read, then its compiled graph."""

    __slots__ = ("variables", "fn", "out_spec", "out_leaves", "out_at", "n_checks")

    def __init__(self, variables: list) -> None:
        self.variables = variables
        self.fn: Any = None


class _Replicas(threading.local):
    inside = False


_replicas = _Replicas()


def _capture_replica_thread() -> Callable[[], Any]:
    """(`thread_context`) A strategy's replica threads run compiled functions eagerly."""
    @contextlib.contextmanager
    def enter() -> Iterator[None]:
        saved = _replicas.inside
        _replicas.inside = True
        try:
            yield
        finally:
            _replicas.inside = saved
    return enter


thread_context.register(_capture_replica_thread)


class JitFunction:
    """The callable a `tf.function(jit_compile=True)` runs (see the module docstring)."""

    def __init__(self, python_function: Callable[..., Any], name: str) -> None:
        self._fn = python_function
        self._name = name
        self._entries: Dict[tuple, _Entry] = {}
        self._eager = False
        self._warned_replicas = False
        self._lock = threading.RLock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager:
            return self._fn(*args, **kwargs)
        if _replicas.inside:  # (compiled again outside the replicas)
            if not self._warned_replicas:
                self._warned_replicas = True
                warnings.warn(f"tf.function(jit_compile=True): {self._name!r} runs eagerly in a "
                              "distribution strategy's replicas, with the same results.",
                              RuntimeWarning, stacklevel=4)
            return self._fn(*args, **kwargs)
        leaves, spec = pytree.tree_flatten((args, kwargs))
        try:  # (a variable argument is static: the function reads it like any other)
            key = (spec, tuple(_leaf_key(leaf) for leaf in leaves))
            hash(key)
        except TypeError:  # (an argument pytree cannot hash: its structure is unusual)
            return self._fall_back("its arguments cannot key a trace", args, kwargs)
        entry = self._entries.get(key)
        if entry is None:  # (no lock held while the function runs: concurrent first calls
            return self._discover(key, args, kwargs)  # each record, with the same result)
        if entry.fn is None:
            with self._lock:
                if entry.fn is None:
                    try:
                        with quiet_torch(True):
                            self._trace(entry, spec, leaves)
                    except Unsupported as why:
                        return self._fall_back(str(why), args, kwargs)
                    except Exception as error:  # noqa: BLE001 - eager decides what an error is
                        text = str(error).splitlines()[0] if str(error) else ""
                        return self._fall_back(f"{type(error).__name__}: {text}", args, kwargs)
                    return self._run(entry, leaves, args, kwargs, first=True)
        return self._run(entry, leaves, args, kwargs, first=False)

    # -- the first call: eager, recording what it reads ------------------------------------
    def _discover(self, key: tuple, args: tuple, kwargs: dict) -> Any:
        entered = tape_lib._tls.entered
        before = storage_state()
        with reads_replaced(_DiscoveringReads) as recorder:
            result = self._fn(*args, **kwargs)
        change = changes_since(before)
        if tape_lib._tls.entered != entered:
            self._warn("it records a GradientTape of its own: compute the loss in the "
                       "compiled function and take the gradient outside it, or use "
                       "model.compile(jit_compile=True) for fit")
        elif change == "writes":
            self._warn("it writes variables (an optimizer's update, a layer's moving "
                       "statistics)")
        elif recorder.sparse_read:
            self._warn("it reads rows of a variable (a sparse read)")
        elif change is None:  # (a call that created variables: the next one records again)
            self._entries[key] = _Entry(list(recorder.read.values()))
        return result

    # -- the second call: trace and compile -----------------------------------------------
    def _trace(self, entry: _Entry, spec: Any, leaves: list) -> None:
        variables = entry.variables
        n_vars = len(variables)
        tensor_at = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
        meta: Dict[str, Any] = {}
        fn = self._fn

        def region(*inputs: torch.Tensor) -> tuple:
            reads, tensors = inputs[:n_vars], inputs[n_vars:]
            flat = list(leaves)
            for i, t in zip(tensor_at, tensors):
                flat[i] = t
            args, kwargs = pytree.tree_unflatten(flat, spec)
            inputs = {id(v): r for v, r in zip(variables, reads)}
            entered = tape_lib._tls.entered
            _indices.tracing.checks = []
            try:
                with reads_replaced(lambda inner: TracingReads(inner, inputs)):
                    out = fn(*args, **kwargs)
                checks = _indices.tracing.checks
            finally:
                _indices.tracing.checks = None
            if tape_lib._tls.entered != entered:
                raise Unsupported("it records a GradientTape of its own")
            out_leaves, out_spec = pytree.tree_flatten(out)
            if any(protocol.is_variable(leaf) for leaf in out_leaves):
                raise Unsupported("it returns a variable")
            at = [i for i, leaf in enumerate(out_leaves) if isinstance(leaf, torch.Tensor)]
            meta.update(out_spec=out_spec, out_leaves=out_leaves, out_at=at, n_checks=len(checks))
            return (*[out_leaves[i] for i in at], *checks)

        from torch.fx.experimental.proxy_tensor import make_fx
        examples = [v.value().detach() for v in variables] + [leaves[i] for i in tensor_at]
        examples = [t.detach() for t in examples]
        with _trace_lock:
            before = storage_state()
            graph_module = make_fx(region, tracing_mode="fake", _allow_non_fake_inputs=True)(*examples)
            change = changes_since(before)
        if change is not None:
            raise Unsupported(f"it {change} variables on a later call")
        check_graph(graph_module)
        entry.out_spec, entry.out_at, entry.n_checks = meta["out_spec"], meta["out_at"], meta["n_checks"]
        # (the traced tensor outputs are fakes: only their positions are kept)
        traced = set(meta["out_at"])
        entry.out_leaves = [None if i in traced else leaf for i, leaf in enumerate(meta["out_leaves"])]
        entry.fn = torch.compile(graph_module)

    # -- every later call ------------------------------------------------------------------
    def _run(self, entry: _Entry, leaves: list, args: tuple, kwargs: dict, first: bool) -> Any:
        reads = [v.value() for v in entry.variables]
        tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
        try:
            with quiet_torch(first):
                out = entry.fn(*reads, *tensors)  # (compiled on its first call)
        except Exception as error:  # noqa: BLE001
            if first:
                text = str(error).splitlines()[0] if str(error) else ""
                return self._fall_back(f"{type(error).__name__}: {text}", args, kwargs)
            # e.g. a compiled kernel's own bounds check: nothing has changed (the function is
            # pure), so the eager call replays it and raises TF's error
            return self._fn(*args, **kwargs)
        n_out = len(entry.out_at)
        checks = out[n_out:n_out + entry.n_checks]
        if checks and not bool(torch.stack(list(checks)).all()):
            return self._fn(*args, **kwargs)  # (replayed eagerly: raises TF's error)
        flat = list(entry.out_leaves)
        for i, t in zip(entry.out_at, out[:n_out]):
            flat[i] = t
        return pytree.tree_unflatten(flat, entry.out_spec)

    def _warn(self, why: str) -> None:
        self._eager = True
        self._entries.clear()
        warnings.warn(f"tf.function(jit_compile=True): {self._name!r} runs eagerly, with the "
                      f"same results: it cannot be one compiled graph ({why}).",
                      RuntimeWarning, stacklevel=5)

    def _fall_back(self, why: str, args: tuple, kwargs: dict) -> Any:
        self._warn(why)
        return self._fn(*args, **kwargs)


function_lib.set_jit_compiler(JitFunction)
