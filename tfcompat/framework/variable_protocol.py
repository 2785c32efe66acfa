"""What the rest of tfcompat may know about variables, without importing them.

Ops, conversion, the tape and the optimizers all meet variables; importing
`tfcompat.variables` from each of them would tie every package to every
other. This module is the seam, and it imports nothing of tfcompat:

* `is_variable(x)`: whether `x` is a `tf.Variable` (any implementation);
* `storage(var)`: the variable's storage cell (`variables/resource.py`),
  or None for a variable that keeps its value some other way (a wrapper, a
  distributed container, whose `_update_components()` are what an update
  changes);
* the read recorder: `GradientTape` registers itself here, and a
  variable's read calls `recorder.dense(var, cell)` / `recorder.sparse(...)`
  while `recording` is non-zero, so `variables` never imports `autodiff`;
  `recorder.paused()` is `tf.init_scope()` (variable creation runs in it,
  as in TF);
* the gradient observer: a strategy that reduces gradients across
  processes sets one for the threads running its replicas
  (`observing_gradients`); `tape.gradient` then calls
  `observer.before(sources, leaves)` before its backward pass (`leaves[i]`:
  the one tensor whose gradient is source i's, or None) and
  `token.finish(gradients)` after it, so the strategy can hook the reads and
  start its all-reduces while backward still runs;
* pushed recorders: `pushed_recorder(make)` gives the calling thread, for a block, a
  recorder of its own (`make(inner)`, where `inner` is what it replaces in that thread);
  while any thread has one, the process-wide recorder dispatches each read to its thread's
  innermost, so threads never see each other's (a compiled function's trace, `tf.function`'s
  first call);
* the storage index: `live_storages()` lists every storage cell alive (the variables package
  registers it), so code that must prove a call wrote or created no variable (a compiled
  `tf.function`) can compare the cells' `token()`s before and after.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Optional

__all__ = ["is_variable", "storage", "update_components", "set_recorder", "gradient_observer",
           "observing_gradients", "live_storages", "pushed_recorder"]


def is_variable(x: Any) -> bool:
    """Whether `x` is a `tf.Variable` (a `ResourceVariable`, a distributed variable, a subclass)."""
    return getattr(x, "_tfcompat_variable", False)


def storage(var: Any) -> Optional[Any]:
    """`var`'s own storage cell (a `Resource`), or None if it has none."""
    get = getattr(var, "_storage", None)
    return get() if get is not None else None


def update_components(var: Any) -> tuple:
    """The variables an update of `var` must change: `var` itself, or its components."""
    get = getattr(var, "_update_components", None)
    return tuple(get()) if get is not None else (var,)


class _NoRecorder:
    """The recorder before `autodiff` is imported: reads are never recorded."""

    @staticmethod
    def dense(var: Any, cell: Any) -> Any:
        return cell.snapshot()

    @staticmethod
    def sparse(var: Any, indices: Any, rows: Any) -> Any:
        return rows

    @staticmethod
    def paused() -> Any:
        return contextlib.nullcontext()


# Number of tapes recording in any thread. Reads test this one int before
# calling the recorder, so reads outside tapes cost nothing extra.
recording = 0
recorder: Any = _NoRecorder
_count_lock = threading.Lock()


def set_recorder(new: Any) -> None:
    """Install the tape's read recorder (`autodiff.tape` does, on import)."""
    global recorder
    recorder = new


def add_recording(delta: int) -> None:
    """Count tapes entering (+1) and leaving (-1) recording, in any thread."""
    global recording
    with _count_lock:
        recording += delta


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.stack: list = []


_threads = _PerThread()


class _Dispatcher:
    """The process-wide recorder while any thread has pushed one: a read goes to its
    thread's innermost pushed recorder, else to the recorder it replaced (`base`)."""

    __slots__ = ("base",)

    def __init__(self, base: Any) -> None:
        self.base = base

    def dense(self, var: Any, cell: Any) -> Any:
        stack = _threads.stack
        return (stack[-1] if stack else self.base).dense(var, cell)

    def sparse(self, var: Any, indices: Any, rows: Any) -> Any:
        stack = _threads.stack
        return (stack[-1] if stack else self.base).sparse(var, indices, rows)

    def __getattr__(self, name: str) -> Any:  # paused(), ...
        stack = _threads.stack
        return getattr(stack[-1] if stack else self.base, name)


_dispatch_lock = threading.Lock()
_dispatcher: Optional[_Dispatcher] = None
_pushes = 0


@contextlib.contextmanager
def pushed_recorder(make: Any) -> Any:
    """For the block, this thread's reads (all of them: `recording` is raised) go to
    `make(inner)`, `inner` being the recorder they went to before in this thread."""
    global _dispatcher, _pushes
    with _dispatch_lock:
        if _dispatcher is None:
            _dispatcher = _Dispatcher(recorder)
            set_recorder(_dispatcher)
        _pushes += 1
        dispatcher = _dispatcher
    stack = _threads.stack
    pushed = make(stack[-1] if stack else dispatcher.base)
    stack.append(pushed)
    add_recording(1)
    try:
        yield pushed
    finally:
        add_recording(-1)
        stack.pop()
        with _dispatch_lock:
            _pushes -= 1
            if _pushes == 0:
                if recorder is dispatcher:  # (else someone wrapped it since: it stays, inert)
                    set_recorder(dispatcher.base)
                _dispatcher = None


_storage_index: Any = None


def set_storage_index(index: Any) -> None:
    """Register the callable that lists the live storage cells (`variables/resource.py`)."""
    global _storage_index
    _storage_index = index


def live_storages() -> list:
    """Every storage cell alive now (empty before `variables` is imported)."""
    return [] if _storage_index is None else list(_storage_index())


class _Observers(threading.local):
    def __init__(self) -> None:
        self.observer: Any = None


_observers = _Observers()


def gradient_observer() -> Any:
    """The gradient observer of this thread (see the module docstring), or None."""
    return _observers.observer


@contextlib.contextmanager
def observing_gradients(observer: Any) -> Any:
    """Make `observer` this thread's gradient observer for the block."""
    saved = _observers.observer
    _observers.observer = observer
    try:
        yield
    finally:
        _observers.observer = saved
