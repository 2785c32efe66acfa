"""Run a function once per replica, in one thread per replica (TF's `mirrored_run.py`).

As TF's MirroredStrategy, `call_for_each_replica` starts one thread per
local replica and runs them **one at a time**: each runs until it returns
or reaches a `merge_call`, then hands control back. When every replica
waits at a merge call, the merge function runs once, in the calling
thread, in cross-replica context, on the replicas' arguments regrouped
into `PerReplica` values; each replica then resumes with its part of the
result. So Python-side state (optimizer caches, slot dictionaries) is never
touched by two replicas at once, and device work stays asynchronous.

Each replica thread starts from the caller's thread-local state where TF
carries it over: the variable creator stack and name scope; it runs under
its replica's device and in its replica context. Tapes are per thread: a
`GradientTape` records what its own replica computes.

Variables created inside `strategy.run` are created once: replica 0
creates each (through the strategy's creator: a distributed variable with
one component per replica), and the other replicas get the variable
replica 0 created at the same position in their sequence of creations
(TF's shared variable creator).

A replica that raises makes `call_for_each_replica` raise that exception
in the caller; the other replicas are released (their pending merge calls
raise an internal abort), so no thread is left blocked.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Optional

import torch

from ..framework import device as device_lib
from ..framework import name_scope as name_scope_lib
from ..framework import thread_context
from ..variables import creator as creator_lib
from . import distribute_lib
from . import values as values_lib

__all__ = ["call_for_each_replica"]


class _Aborted(BaseException):
    """Raised in a replica waiting at a merge call when another replica failed."""


class _SharedVariables:
    """The variables replica 0 created, in order, for the other replicas to reuse."""

    def __init__(self) -> None:
        self.created: list = []


def _shared_creator(store: _SharedVariables, replica_id: int) -> Callable[..., Any]:
    counter = [0]

    def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        index = counter[0]
        counter[0] += 1
        if replica_id == 0:
            v = next_creator(**kwargs)
            store.created.append(v)
            return v
        if index >= len(store.created):
            raise RuntimeError(
                f"Replica {replica_id} created more variables than replica 0 inside "
                "strategy.run: every replica must create the same variables, in the same order.")
        return store.created[index]
    return creator


class _ReplicaThread(threading.Thread):
    """One replica's thread: it lives as long as its strategy and runs one job per `run`."""

    def __init__(self, replica_id: int) -> None:
        super().__init__(name=f"replica_{replica_id}", daemon=True)
        self.replica_id = replica_id
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.stopping = False
        self._job(None, None, (), {})

    def _job(self, run: Optional["_Run"], fn: Optional[Callable[..., Any]], args: tuple,
             kwargs: dict) -> None:
        self.run_state = run
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.done = False
        self.result: Any = None
        self.exc: Optional[BaseException] = None
        self.merge_fn: Optional[Callable[..., Any]] = None
        self.merge_args: tuple = ()
        self.merge_kwargs: dict = {}
        self.merge_result: Any = None
        self.merge_name_scope = ""

    def run(self) -> None:
        while True:
            self.should_run.wait()
            self.should_run.clear()
            if self.stopping:
                return
            self._run_job()
            self.has_paused.set()

    def _run_job(self) -> None:
        state = self.run_state
        try:
            if state.aborted:
                return
            # OpenMP's thread count is per thread: a new thread would get the library default
            # (every core), and two replicas would oversubscribe the CPU. Take the caller's.
            if torch.get_num_threads() != state.num_threads:
                torch.set_num_threads(state.num_threads)
            strategy = state.strategy
            extended = strategy.extended
            replica_ctx = distribute_lib.ReplicaContext(
                strategy, extended._global_replica_id(self.replica_id), self.replica_id)
            with creator_lib.creator_stack(state.creators), \
                    name_scope_lib.name_scope(state.name_scope or ""), \
                    device_lib.device(extended.worker_devices[self.replica_id]), \
                    distribute_lib._enter(distribute_lib._Context(strategy, replica_ctx)), \
                    creator_lib.variable_creator_scope(
                        _shared_creator(state.shared, self.replica_id)), \
                    state.contexts():
                replica_ctx._thread = self
                self.result = self.fn(*self.args, **self.kwargs)
        except _Aborted:
            pass
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            self.exc = e
        finally:
            self.done = True
            self.fn = self.args = self.kwargs = None  # nothing of this run stays referenced


class _Run:
    def __init__(self, strategy: Any) -> None:
        self.strategy = strategy
        self.aborted = False
        self.creators = creator_lib.get_creator_stack()
        # "outer/" is absolute (it ends in a slash) and "" is the top level: either way the
        # replica threads start in the caller's scope.
        self.name_scope = name_scope_lib.current_name_scope()
        self.contexts = thread_context.capture()  # (e.g. a TF 1 variable scope)
        self.shared = _SharedVariables()
        self.num_threads = torch.get_num_threads()


class _Pool:
    """A strategy's replica threads, reused by every `run` (one `run` at a time)."""

    def __init__(self, n: int) -> None:
        self.lock = threading.Lock()
        self.threads = [_ReplicaThread(i) for i in range(n)]
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        for t in self.threads:
            t.stopping = True
            t.should_run.set()


def _pool_of(extended: Any, n: int) -> _Pool:
    pool = extended.__dict__.get("_replica_pool")
    if pool is None or len(pool.threads) != n:
        pool = _Pool(n)
        extended._replica_pool = pool
        weakref.finalize(extended, pool.stop)  # the threads end with their strategy
    return pool


def call_for_each_replica(strategy: Any, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """Run `fn(*args, **kwargs)` on every local replica; regroup the results (`PerReplica`)."""
    n = strategy.extended._local_replicas()
    pool = _pool_of(strategy.extended, n)
    if not pool.lock.acquire(blocking=False):
        # A run inside a run of the same strategy (from a merge function, or another thread):
        # threads of its own.
        pool = _Pool(n)
        pool.lock.acquire()
        try:
            return _call(pool, strategy, fn, args, kwargs)
        finally:
            pool.stop()
    try:
        return _call(pool, strategy, fn, args, kwargs)
    finally:
        pool.lock.release()


def _call(pool: _Pool, strategy: Any, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    run = _Run(strategy)
    threads = pool.threads
    for i, t in enumerate(threads):
        t._job(run, fn, values_lib.select_replica(i, args), values_lib.select_replica(i, kwargs))
    try:
        while True:
            for t in threads:
                t.should_run.set()
                t.has_paused.wait()
                t.has_paused.clear()
                if t.exc is not None:
                    raise t.exc
            if all(t.done for t in threads):
                break
            if any(t.done for t in threads):
                raise RuntimeError(
                    "Some replicas made a different number of replica_context().merge_call() "
                    "calls: every replica must make the same merge calls, in the same order.")
            _merge(strategy, threads)
    except BaseException:
        run.aborted = True
        for t in threads:  # release every replica still waiting (at its start or a merge call)
            if not t.done:
                t.should_run.set()
                t.has_paused.wait(timeout=60)
                t.has_paused.clear()
        for t in threads:
            t._job(None, None, (), {})
        raise
    results = [t.result for t in threads]
    for t in threads:
        t._job(None, None, (), {})
    return values_lib.regroup(results)


def _merge(strategy: Any, threads: list) -> None:
    first = threads[0]
    args = values_lib.regroup([t.merge_args for t in threads])
    kwargs = values_lib.regroup([t.merge_kwargs for t in threads])
    with distribute_lib._enter(distribute_lib._Context(strategy, None)), \
            name_scope_lib.name_scope(first.merge_name_scope or ""):
        result = first.merge_fn(strategy, *args, **kwargs)
    for i, t in enumerate(threads):
        t.merge_result = values_lib.select_replica(i, result)


def merge_call(replica_ctx: Any, merge_fn: Callable[..., Any], args: tuple, kwargs: dict,
               any_thread: bool = False) -> Any:
    """A replica's side of `merge_call`: hand over, wait for the merge, return its part.

    `any_thread`: called on the replica's behalf from another thread while the replica's own
    thread waits for it (autograd's device threads in a backward pass the replica started).
    """
    thread = getattr(replica_ctx, "_thread", None)
    if thread is None or (thread is not threading.current_thread() and not any_thread):
        raise RuntimeError("merge_call of a replica context was called outside that replica's "
                           "thread: call it from the function passed to strategy.run.")
    thread.merge_fn, thread.merge_args, thread.merge_kwargs = merge_fn, args, kwargs
    thread.merge_name_scope = name_scope_lib.current_name_scope()
    thread.has_paused.set()
    thread.should_run.wait()
    thread.should_run.clear()
    if thread.run_state.aborted:
        raise _Aborted()
    return thread.merge_result

