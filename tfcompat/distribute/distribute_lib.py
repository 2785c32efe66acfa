"""`tf.distribute` contexts: strategies, replica contexts, cross-replica context.

TF code asks "where am I?" through three functions:

* `get_replica_context()` returns the `ReplicaContext` of the replica this
  thread is running (inside `strategy.run`), the default replica context
  when no strategy is in scope, and `None` in cross-replica context;
* `in_cross_replica_context()` is true inside `strategy.scope()` but outside
  `strategy.run`;
* `get_strategy()` returns the strategy in scope, or the default strategy.

The state is a thread-local stack, because replicas run in threads (one per
device) in mirrored strategies. The default strategy is a single replica
on the default device: `merge_call` calls straight through, reductions are
identities, `update` calls the function on the variable. Real strategies
subclass `Strategy` and `StrategyExtended` and override those hooks; the
optimizer and variables only ever talk to these interfaces.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator, Optional

from ..framework import nest
from .reduce_util import ReduceOp

__all__ = [
    "Strategy", "StrategyExtended", "ReplicaContext", "get_strategy", "has_strategy",
    "get_replica_context", "get_cross_replica_context", "in_cross_replica_context",
    "experimental_set_strategy",
]


class _Context:
    __slots__ = ("strategy", "replica_context")

    def __init__(self, strategy: "Strategy", replica_context: Optional["ReplicaContext"]) -> None:
        self.strategy = strategy
        self.replica_context = replica_context


class _ContextStack(threading.local):
    def __init__(self) -> None:
        self.stack: list = []
        self.global_scope: Optional[contextlib.AbstractContextManager] = None  # experimental_set_strategy


_contexts = _ContextStack()


def _current() -> _Context:
    if _contexts.stack:
        return _contexts.stack[-1]
    return _default_context()


@contextlib.contextmanager
def _enter(context: _Context) -> Iterator[None]:
    _contexts.stack.append(context)
    try:
        yield
    finally:
        # Usually the top; `experimental_set_strategy` may exit its scope from inside another.
        stack = _contexts.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is context:
                del stack[i]
                break


def get_strategy() -> "Strategy":
    """The strategy in scope in this thread, or the default (single-replica) strategy."""
    return _current().strategy


def has_strategy() -> bool:
    """Whether a non-default strategy is in scope."""
    return _current().strategy is not _default_strategy()


def get_replica_context() -> Optional["ReplicaContext"]:
    """The current replica's context; `None` in cross-replica context."""
    return _current().replica_context


def in_cross_replica_context() -> bool:
    return _current().replica_context is None


def get_cross_replica_context() -> Optional["Strategy"]:
    """The strategy when in cross-replica context, else `None`."""
    ctx = _current()
    return ctx.strategy if ctx.replica_context is None else None


def experimental_set_strategy(strategy: Optional["Strategy"]) -> None:
    """Enter `strategy.scope()` for the rest of this thread's program; None leaves it.

    As TF: a strategy set before is left first, and setting one (or None)
    inside a strategy's scope or `run` is a `RuntimeError`. Entering another
    strategy's scope while one is set is the usual "mixing" error.
    """
    previous = _contexts.global_scope
    if previous is not None:
        _contexts.global_scope = None
        previous.__exit__(None, None, None)
    if has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _contexts.global_scope = scope


class ReplicaContext:
    """The view of one replica (`tf.distribute.ReplicaContext`).

    `merge_call(fn)` leaves replica context: `fn(strategy, *args)` runs once
    in cross-replica context and sees every replica's arguments (as
    `PerReplica` values, for strategies with several replicas).
    """

    def __init__(self, strategy: "Strategy", replica_id_in_sync_group: Any = 0) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self) -> "Strategy":
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        return self._replica_id

    @property
    def devices(self) -> tuple:
        return self._strategy.extended.worker_devices[:1]

    def merge_call(self, merge_fn: Callable[..., Any], args: tuple = (),
                   kwargs: Optional[dict] = None) -> Any:
        """Run `merge_fn(strategy, *args, **kwargs)` in cross-replica context."""
        kwargs = kwargs or {}
        with _enter(_Context(self._strategy, None)):
            return merge_fn(self._strategy, *args, **kwargs)

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """Reduce `value` (a nest of tensors) across replicas; every replica gets the result."""
        reduce_op = ReduceOp.from_value(reduce_op)
        flat = nest.flatten(value)
        reduced = self.merge_call(
            lambda strategy: strategy.extended.batch_reduce_to(reduce_op, [(t, None) for t in flat]))
        return nest.pack_sequence_as(value, list(reduced))


class StrategyExtended:
    """The strategy's extended API: where variables live and how values move.

    The default implementation is the single-replica, single-device case;
    distributed strategies override `_reduce_to`, `_batch_reduce_to`,
    `_update` and `worker_devices`.
    """

    def __init__(self, container_strategy: "Strategy") -> None:
        self._container_strategy = container_strategy

    @property
    def worker_devices(self) -> tuple:
        from ..framework import device as device_lib
        return (device_lib.current_device(),)

    @property
    def parameter_devices(self) -> tuple:
        return self.worker_devices

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """Variables created in this block live where `colocate_with_variable` does."""
        return contextlib.nullcontext()

    def value_container(self, value: Any) -> Any:
        return value

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any, options: Any = None) -> Any:
        return self._reduce_to(ReduceOp.from_value(reduce_op), value, destinations)

    def batch_reduce_to(self, reduce_op: Any, value_destination_pairs: Any, options: Any = None) -> list:
        """Reduce many `(value, destination)` pairs at once (gradients: one call per step)."""
        return self._batch_reduce_to(ReduceOp.from_value(reduce_op), list(value_destination_pairs))

    def update(self, var: Any, fn: Callable[..., Any], args: tuple = (), kwargs: Optional[dict] = None,
               group: bool = True) -> Any:
        """Run `fn(var_component, *args)` for each of `var`'s components (one, by default)."""
        return self._update(var, fn, args, kwargs or {}, group)

    def batch_update(self, var_grad_pairs: list, fn: Callable[[list], Any]) -> Any:
        """tfcompat extension: apply `fn` to many `(variable, value)` pairs at once.

        `fn(pairs)` receives the pairs for one device, so an optimizer can
        run one multi-tensor kernel per device instead of one op per
        variable. A strategy with several replicas calls `fn` once per
        replica device with that device's variable components. The pairs
        travel as a tuple: the default implementation hands the caller's
        own tuple to `fn` (which may recognise it).
        """
        return self._batch_update(tuple(var_grad_pairs), fn)

    def update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: tuple = (),
                        kwargs: Optional[dict] = None, group: bool = True) -> Any:
        return fn(*args, **(kwargs or {}))

    # -- the hooks a distributed strategy overrides --------------------------
    def _reduce_to(self, reduce_op: ReduceOp, value: Any, destinations: Any) -> Any:
        return value

    def _batch_reduce_to(self, reduce_op: ReduceOp, pairs: list) -> list:
        return [self._reduce_to(reduce_op, value, dest) for value, dest in pairs]

    def _update(self, var: Any, fn: Callable[..., Any], args: tuple, kwargs: dict, group: bool) -> Any:
        result = fn(var, *args, **kwargs)
        return result if group else [result]

    def _batch_update(self, pairs: list, fn: Callable[[list], Any]) -> Any:
        return fn(pairs)

    def _call_for_each_replica(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        strategy = self._container_strategy
        with _enter(_Context(strategy, ReplicaContext(strategy, 0))):
            return fn(*args, **kwargs)


class Strategy:
    """A distribution strategy (`tf.distribute.Strategy`).

    `scope()` makes variable creation and `get_strategy()` see this strategy
    (cross-replica context); `run(fn)` calls `fn` once per replica in replica
    context; `reduce` combines per-replica values.
    """

    _extended_class = StrategyExtended

    def __init__(self, extended: Optional[StrategyExtended] = None) -> None:
        self._extended = extended if extended is not None else self._extended_class(self)

    @property
    def extended(self) -> StrategyExtended:
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        return 1

    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        """Enter this strategy's cross-replica context (variable creation goes through it).

        As TF, with a `RuntimeError`: inside another strategy's scope
        ("Mixing different tf.distribute.Strategy objects"), and inside this
        strategy's `run` (replica context: use `merge_call`).
        """
        current = _current()
        if current.strategy is not _default_strategy():
            if current.strategy is not self:
                raise RuntimeError("Mixing different tf.distribute.Strategy objects: "
                                   f"{current.strategy} is not {self}")
            if current.replica_context is not None:
                raise RuntimeError("Method requires being in cross-replica context, use "
                                   "get_replica_context().merge_call()")
        with _enter(_Context(self, None)), self._creator_scope():
            yield self

    def _creator_scope(self) -> Any:
        """The variable creator this strategy pushes in its scope (none by default)."""
        return contextlib.nullcontext()

    def run(self, fn: Callable[..., Any], args: tuple = (), kwargs: Optional[dict] = None,
            options: Any = None) -> Any:
        """Run `fn(*args, **kwargs)` on each replica, in replica context."""
        return self._extended._call_for_each_replica(fn, tuple(args), dict(kwargs or {}))

    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """Combine a per-replica value (optionally also along `axis`) into one tensor."""
        from ..framework.tensor_conversion import convert_to_tensor
        reduce_op = ReduceOp.from_value(reduce_op)
        reduced = self._extended.reduce_to(reduce_op, value, destinations=None)
        if axis is None:
            return reduced
        t = convert_to_tensor(reduced)
        return t.sum(dim=axis) if reduce_op is ReduceOp.SUM else t.mean(dim=axis)

    def experimental_local_results(self, value: Any) -> tuple:
        return (value,)

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        return self._extended.colocate_vars_with(colocate_with_variable)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect when none is: one replica, the default device."""

    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        # As TF: the default strategy's scope stays in (default) replica context, and
        # may not be entered inside another strategy's.
        if has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        yield self


_default_state: dict = {}


def _default_strategy() -> Strategy:
    strategy = _default_state.get("strategy")
    if strategy is None:
        strategy = _default_state["strategy"] = _DefaultDistributionStrategy()
    return strategy


def _default_context() -> _Context:
    ctx = _default_state.get("context")
    if ctx is None:
        strategy = _default_strategy()
        ctx = _default_state["context"] = _Context(strategy, ReplicaContext(strategy, 0))
    return ctx
