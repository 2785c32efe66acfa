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
    "experimental_set_strategy", "ValueContext",
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

    def __init__(self, strategy: "Strategy", replica_id_in_sync_group: Any = 0,
                 local_replica_id: Optional[int] = None) -> None:
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group
        # The index of this replica's components in distributed values (the global id minus
        # the replicas of earlier workers, under a multi-worker strategy).
        self._local_replica_id = replica_id_in_sync_group if local_replica_id is None \
            else local_replica_id
        self._is_default = strategy is _default_state.get("strategy")

    @property
    def strategy(self) -> "Strategy":
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Any:
        """This replica's id among all replicas in sync: as TF, an int32 scalar tensor made
        when asked (on the replica's device), and the Python int 0 in the default replica
        context. The tensor indexes lists and compares with ints (`ids[r]`, `r == 0`);
        tfcompat's own code reads the int (`_replica_id`)."""
        if self._is_default:
            return self._replica_id
        from ..framework import dtypes
        from ..framework.tensor_conversion import convert_to_tensor
        return convert_to_tensor(self._replica_id, dtype=dtypes.int32)

    @property
    def devices(self) -> Any:
        """The devices this replica computes on, as TF lists them: a tuple of the current
        device (the default replica context), a list of the replica's device list under the
        mirrored strategies (`[["/job:.../device:CPU:1"]]`)."""
        return self._strategy.extended._replica_devices(self._local_replica_id)

    def merge_call(self, merge_fn: Callable[..., Any], args: tuple = (),
                   kwargs: Optional[dict] = None) -> Any:
        """Run `merge_fn(strategy, *args, **kwargs)` once, in cross-replica context.

        Every replica pauses at its call; `merge_fn` then sees each argument
        as a `PerReplica` value of the replicas' arguments (or the one object
        they all passed), and each replica gets its part of the result
        (`select_replica`). Replicas must make the same merge calls in the
        same order.
        """
        return self._merge(merge_fn, tuple(args), dict(kwargs or {}))

    def _merge(self, merge_fn: Callable[..., Any], args: tuple, kwargs: dict,
               any_thread: bool = False) -> Any:
        if self._is_default or self._strategy.extended._local_replicas() == 1:
            with _enter(_Context(self._strategy, None)):
                return merge_fn(self._strategy, *args, **kwargs)
        if any_thread:
            # An autograd backward runs accelerator work on the engine's device threads, not
            # the replica's thread (blocked in tape.gradient meanwhile): the merge goes
            # through this replica's handover all the same.
            from .mirrored_run import merge_call
            return merge_call(self, merge_fn, args, kwargs, any_thread=True)
        return self._strategy.extended._merge_call(self, merge_fn, args, kwargs)

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """Reduce `value` (a nest of tensors, `IndexedSlices` included) across replicas; every
        replica gets the result. One batched reduction for the whole nest."""
        reduce_op = ReduceOp.from_value(reduce_op)
        flat = nest.flatten(value)
        if not flat:
            return value
        if not self._is_default and _requires_grad(flat):
            return nest.pack_sequence_as(value, _differentiable_all_reduce(self, reduce_op, flat))
        return nest.pack_sequence_as(value, self._all_reduce_flat(reduce_op, flat))

    def _all_reduce_flat(self, reduce_op: ReduceOp, flat: list, from_any_thread: bool = False) -> list:
        """One merge call reducing every leaf of `flat`; this replica's results."""
        def merge(strategy: "Strategy", *per_replica: Any) -> list:
            return list(strategy.extended.batch_reduce_to(
                reduce_op, [(t, None) for t in per_replica]))

        reduced = self._merge(merge, tuple(flat), {}, any_thread=from_any_thread)
        from .values import select_replica
        return select_replica(self._local_replica_id, list(reduced))

    def all_gather(self, value: Any, axis: int, options: Any = None) -> Any:
        """Concatenate every replica's `value` (a nest of tensors) along `axis`; every replica
        gets the whole result, in replica order."""
        flat = nest.flatten(value)
        if not flat:
            return value

        def merge(strategy: "Strategy", *per_replica: Any) -> list:
            return [strategy.extended._replicate(strategy.extended._gather_to(t, axis))
                    for t in per_replica]

        gathered = self.merge_call(merge, args=tuple(flat))
        from .values import select_replica
        return nest.pack_sequence_as(value, select_replica(self._local_replica_id, gathered))


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

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any, options: Any = None) -> Any:
        """Combine a per-replica `value` onto `destinations` (a variable, a distributed value,
        a device name; None: where `value` lives). Cross-replica context only."""
        _require_cross_replica()
        return self._reduce_to(ReduceOp.from_value(reduce_op), value, destinations)

    def batch_reduce_to(self, reduce_op: Any, value_destination_pairs: Any, options: Any = None) -> list:
        """Reduce many `(value, destination)` pairs at once (gradients: one call per step)."""
        _require_cross_replica()
        return self._batch_reduce_to(ReduceOp.from_value(reduce_op), list(value_destination_pairs))

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        """`tensor` on every device of `destinations` (a `Mirrored` value for several)."""
        return self._broadcast_to(tensor, destinations)

    def update(self, var: Any, fn: Callable[..., Any], args: tuple = (), kwargs: Optional[dict] = None,
               group: bool = True) -> Any:
        """Run `fn(var_component, *args)` for each of `var`'s components (one, by default).

        Each call sees its replica's part of `args`/`kwargs`; with `group`
        the results come back regrouped (`Mirrored` of their values), else
        as a tuple per result. In cross-replica context (or outside every
        scope: the strategy's scope is entered, as TF). In replica context,
        as TF 2.21, the replicas' calls merge (`merge_call`) into one update
        of every component with their arguments, and each replica gets its
        part of the result.
        """
        args, kwargs = tuple(args), dict(kwargs or {})
        ctx = _current().replica_context
        if ctx is not None and not ctx._is_default:
            def merge_fn(_: "Strategy", *merged_args: Any, **merged_kwargs: Any) -> Any:
                return self.update(var, fn, merged_args, merged_kwargs, group=group)
            return ctx.merge_call(merge_fn, args=args, kwargs=kwargs)
        strategy = self._container_strategy
        if strategy is _default_strategy() or _current().strategy is strategy:
            return self._update(var, fn, args, kwargs, group)
        with strategy.scope():
            return self._update(var, fn, args, kwargs, group)

    def read_var(self, var: Any) -> Any:
        """The seed's `read_var`: `var`'s value as cross-replica code sees it."""
        return var.read_value()

    def value_container(self, value: Any) -> Any:
        """The distributed variable `value` is a component of, or `value` itself."""
        from .values import value_container
        return value_container(value)

    def experimental_run_steps_on_iterator(self, fn: Callable[..., Any], iterator: Any,
                                           iterations: int = 1, initial_loop_values: Any = None) -> Any:
        """The seed's multi-step loop: `fn(ctx, inputs)` runs `iterations` times on the
        replicas, each time on the iterator's next element; returns the `MultiStepContext`."""
        from .multi_step import run_steps_on_iterator
        return run_steps_on_iterator(self._container_strategy, fn, iterator, iterations,
                                     initial_loop_values)

    # -- what a strategy with several replicas provides ------------------------
    def _input_layout(self, with_flags: bool = False) -> dict:
        """How input is split here: replicas in sync, local devices, this worker's place."""
        from ..framework import device as device_lib
        layout = dict(num_replicas_in_sync=self._container_strategy.num_replicas_in_sync,
                      local_devices=tuple(device_lib.torch_device_for(d)
                                          for d in self._local_devices()),
                      num_workers=self._worker_count(), worker_index=self._worker_index())
        if with_flags and self._worker_count() > 1:
            layout["any_worker_has_data"] = self._any_worker_has_data
        return layout

    def _local_devices(self) -> tuple:
        """The devices of this process's replicas, in replica order (`worker_devices`, which
        the default strategy refuses as TF does, while it has its one device)."""
        return self.worker_devices

    def _worker_count(self) -> int:
        return 1

    def _worker_index(self) -> int:
        return 0

    def _any_worker_has_data(self, mine: bool) -> bool:
        return mine

    def _local_replicas(self) -> int:
        """Replicas in this process (threads of one `run`)."""
        return 1

    def _global_replica_id(self, local_id: int) -> int:
        return local_id

    def _merge_call(self, replica_ctx: "ReplicaContext", fn: Callable[..., Any], args: tuple,
                    kwargs: dict) -> Any:
        from .mirrored_run import merge_call
        return merge_call(replica_ctx, fn, args, kwargs)

    def _gather_to(self, value: Any, axis: int) -> Any:
        from ..framework.tensor_conversion import convert_to_tensor
        from .values import DistributedValues
        if not isinstance(value, DistributedValues):
            return value
        import torch
        return torch.cat([convert_to_tensor(p) for p in value.values], dim=axis)

    def _local_results(self, value: Any) -> tuple:
        """The components of a distributed value held by this process, else `(value,)`."""
        from .values import DistributedValues
        if isinstance(value, DistributedValues):
            return tuple(value.values)
        return (value,)

    def _replica_devices(self, local_replica_id: int) -> Any:
        """What `ReplicaContext.devices` says for a replica (TF's base: the current device)."""
        from ..framework import device as device_lib
        return (device_lib.current_device(),)

    def _broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        return tensor

    def _replicate(self, value: Any) -> Any:
        """`value` once per local replica (each its own copy-on-write tensor)."""
        return value

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
        """Run `fn(*args)` once per device of `colocate_with` (variables that are not slots:
        the seed's `_finish` updates of optimizer-wide state)."""
        _require_cross_replica()
        return self._update_non_slot(colocate_with, fn, tuple(args), dict(kwargs or {}), group)

    def _update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: tuple,
                         kwargs: dict, group: bool) -> Any:
        result = fn(*args, **kwargs)
        return result if group else (result,)

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
        if self._local_replicas() > 1:
            from .mirrored_run import call_for_each_replica
            return call_for_each_replica(strategy, fn, args, kwargs)
        from .values import select_replica
        with _enter(_Context(strategy, ReplicaContext(strategy, self._global_replica_id(0), 0))):
            return fn(*select_replica(0, args), **select_replica(0, kwargs))

    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        """`strategy.reduce` without an axis: one tensor (or nest) on the current device."""
        from ..framework import device as device_lib
        reduced = self.reduce_to(reduce_op, value, destinations=device_lib.current_device())
        return self._local_results(reduced)[0]


_CROSS_REPLICA_ONLY = ("Method requires being in cross-replica context, use "
                       "get_replica_context().merge_call()")


def _require_cross_replica(message: str = _CROSS_REPLICA_ONLY) -> None:
    """TF's `RuntimeError` (in TF's words) for a cross-replica method called in replica
    context."""
    ctx = _current().replica_context
    if ctx is not None and not ctx._is_default:
        raise RuntimeError(message)


def _requires_grad(flat: list) -> bool:
    import torch
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in flat)


def _differentiable_all_reduce(ctx: ReplicaContext, reduce_op: ReduceOp, flat: list) -> list:
    """`all_reduce` on the tape: as TF, the gradient of an all-reduce is the same all-reduce of
    the replicas' upstream gradients (each replica's backward joins one more merge call)."""
    import torch
    call = _AllReduceCall(ctx, reduce_op, flat, [i for i, t in enumerate(flat)
                                                 if isinstance(t, torch.Tensor)])
    outputs = _all_reduce_function().apply(call, *[flat[i] for i in call.dense])
    leaves = call.leaves
    call.leaves = None
    for i, t in zip(call.dense, outputs):
        leaves[i] = t
    return leaves


class _AllReduceCall:
    """One differentiable all-reduce: what its forward and backward need."""

    __slots__ = ("ctx", "reduce_op", "flat", "dense", "leaves")

    def __init__(self, ctx: ReplicaContext, reduce_op: ReduceOp, flat: list, dense: list) -> None:
        self.ctx, self.reduce_op, self.flat, self.dense = ctx, reduce_op, flat, dense
        self.leaves: Optional[list] = None


_ALL_REDUCE_FUNCTION: list = []


def _all_reduce_function() -> Any:
    """The autograd function (made on first use: this module does not import torch)."""
    if not _ALL_REDUCE_FUNCTION:
        import torch

        class AllReduce(torch.autograd.Function):
            @staticmethod
            def forward(fctx: Any, call: _AllReduceCall, *tensors: Any) -> Any:
                leaves = list(call.flat)
                for i, t in zip(call.dense, tensors):
                    leaves[i] = t
                out = call.ctx._all_reduce_flat(call.reduce_op, leaves)
                call.leaves = list(out)
                fctx.replica_ctx, fctx.reduce_op = call.ctx, call.reduce_op
                # (an input handed back as is, a one-replica identity, must be a new tensor)
                return tuple(out[i].clone() if any(out[i] is t for t in tensors) else out[i]
                             for i in call.dense)

            @staticmethod
            def backward(fctx: Any, *grads: Any) -> Any:
                return (None, *fctx.replica_ctx._all_reduce_flat(fctx.reduce_op, list(grads),
                                                                 from_any_thread=True))

        _ALL_REDUCE_FUNCTION.append(AllReduce)
    return _ALL_REDUCE_FUNCTION[0]


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
        return getattr(self._extended, "_num_replicas_in_sync", 1)

    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        """Enter this strategy's cross-replica context (variable creation goes through it).

        Entering it again inside itself changes nothing (TF counts the re-entry). As TF, with
        a `RuntimeError`: inside another strategy's scope
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
            # Already in this scope (nested, or `run` called inside it): as TF, entered again
            # without pushing the creator twice (that would wrap the components again).
            yield self
            return
        with _enter(_Context(self, None)), self._creator_scope():
            yield self

    def _creator_scope(self) -> Any:
        """The variable creator this strategy pushes in its scope: its extended's
        `_create_variable(next_creator, **kwargs)` if it has one."""
        create = getattr(self._extended, "_create_variable", None)
        if create is None:
            return contextlib.nullcontext()
        from ..variables.creator import variable_creator_scope
        return variable_creator_scope(create)

    def run(self, fn: Callable[..., Any], args: tuple = (), kwargs: Optional[dict] = None,
            options: Any = None) -> Any:
        """Run `fn(*args, **kwargs)` on each replica, in replica context.

        `PerReplica` arguments give each replica its component; the results
        come back as `PerReplica` values (or the one object every replica
        returned), as TF.
        """
        if not callable(fn):
            raise TypeError(f"strategy.run needs a callable, got {fn!r}")
        with self.scope():
            return self._extended._call_for_each_replica(fn, tuple(args), dict(kwargs or {}))

    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """Combine a per-replica value (or a nest of them) across replicas into one tensor.

        As TF: with `axis`, each replica first sums its value along it (in the
        value's dtype: int32 stays int32), and a value that is not per-replica
        is every replica's (SUM: n times its sum); MEAN divides the total by
        the number of elements along `axis` over all replicas (so replicas with
        uneven batches give the true mean), true division (integers: float64).
        """
        _require_cross_replica()
        if isinstance(reduce_op, str):
            reduce_op = ReduceOp(reduce_op.upper())
        reduce_op = ReduceOp.from_value(reduce_op)
        if axis is None:
            return self._extended._reduce(reduce_op, value)
        from ..framework import dtypes
        from ..ops import math_ops, reduction_ops
        axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
        parts = self._per_replica_reads(value)
        for p in parts:
            for a in axes:
                if not -p.dim() <= a < p.dim():
                    raise ValueError(f"Invalid reduction dimension {a} for input with {p.dim()} "
                                     "dimensions.")
        numer = self._extended._reduce(ReduceOp.SUM, self._as_per_replica(
            [reduction_ops.reduce_sum(p, axis=list(axes)) for p in parts]))
        if reduce_op is ReduceOp.SUM:
            return numer
        from ..framework.tensor_conversion import convert_to_tensor
        counts = [convert_to_tensor(_count(p, axes), dtype=dtypes.int64) for p in parts]
        denom = self._extended._reduce(ReduceOp.SUM, self._as_per_replica(counts))
        return math_ops.truediv(numer, math_ops.cast(denom, numer.dtype))

    def _per_replica_reads(self, value: Any) -> list:
        """What each local replica sees of `value` in `run` (a value that is not per-replica:
        the same on every one), as tensors."""
        from ..framework.tensor_conversion import convert_to_tensor
        from .values import DistributedValues
        if isinstance(value, DistributedValues):
            parts = value.values
            if getattr(type(value), "_is_distributed_variable", False):
                parts = [p.read_value() for p in parts]
            return [convert_to_tensor(p) for p in parts]
        return [convert_to_tensor(value)] * self._extended._local_replicas()

    @staticmethod
    def _as_per_replica(parts: list) -> Any:
        from .values import PerReplica
        return parts[0] if len(parts) == 1 else PerReplica(parts)

    def gather(self, value: Any, axis: int) -> Any:
        """Every replica's `value` concatenated along `axis`, in replica order (cross-replica).

        As TF: a value that is not distributed is returned as is, and of a
        nest, replica 0's part of each leaf.
        """
        _require_cross_replica(
            "tf.distribute.Strategy.gather method requires cross-replica context, use "
            "get_replica_context().all_gather() instead")
        from ..framework.indexed_slices import IndexedSlices
        if isinstance(value, IndexedSlices):
            raise NotImplementedError("gather does not support IndexedSlices")
        return self._extended._local_results(self._extended._gather_to(value, axis))[0]

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        """Split each global batch of `dataset` across the replicas (`PerReplica` elements).

        `dataset`: any re-iterable of batches (nests of tensors, numpy arrays,
        numbers), e.g. a `torch.utils.data.DataLoader` with the global batch
        size; see `input_lib.py` for TF's split rules, which it follows.
        """
        from . import input_lib
        return input_lib.distribute_dataset(dataset, options=options, **self._extended._input_layout())

    def distribute_datasets_from_function(self, dataset_fn: Callable[..., Any],
                                          options: Any = None) -> Any:
        """`dataset_fn(tf.distribute.InputContext)` per input pipeline; its per-replica batches
        are dealt to the local replicas in turn."""
        from . import input_lib
        return input_lib.distribute_from_function(dataset_fn, options=options,
                                                  **self._extended._input_layout(with_flags=True))

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_local_results(self, value: Any) -> tuple:
        """The components of a distributed value held by this process; of a nest, as TF's
        mirrored strategies, one nest per local replica; `(value,)` otherwise."""
        return self._extended._local_results(value)

    def experimental_distribute_values_from_function(self, value_fn: Callable[..., Any]) -> Any:
        """`PerReplica` of `value_fn(tf.distribute.experimental.ValueContext)` per local replica."""
        from .values import regroup
        extended = self._extended
        out = []
        for i in range(extended._local_replicas()):
            from ..framework import device as device_lib
            with device_lib.device(extended._local_devices()[i]):
                out.append(value_fn(ValueContext(extended._global_replica_id(i),
                                                 self.num_replicas_in_sync)))
        return regroup(out, always_wrap=True) if len(out) > 1 else out[0]

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        return self._extended.colocate_vars_with(colocate_with_variable)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def _count(t: Any, axes: tuple) -> int:
    n = 1
    for a in axes:
        n *= t.shape[a]
    return n


class ValueContext:
    """What `experimental_distribute_values_from_function` tells `value_fn` about its replica."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1) -> None:
        self._replica_id = replica_id_in_sync_group
        self._num_replicas = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        return self._replica_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas

    def __repr__(self) -> str:
        return (f"tf.distribute.ValueContext(replica id {self._replica_id},  total replicas in "
                f"sync: {self._num_replicas})")


class _DefaultDistributionExtended(StrategyExtended):
    """The default strategy's extended API: as TF's `_DefaultDistributionExtended`, it names no
    devices (`worker_devices` and `parameter_devices` are TF's `RuntimeError`); its one
    replica runs on the current device."""

    @property
    def worker_devices(self) -> tuple:
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy. "
                           "The default strategy runs on the current device: read it with "
                           "tf.distribute.get_replica_context().devices, or create a strategy "
                           "(tf.distribute.OneDeviceStrategy(device)) that names its devices.")

    @property
    def parameter_devices(self) -> tuple:
        raise RuntimeError("parameter_devices() method unsupported by default "
                           "tf.distribute.Strategy. The default strategy keeps variables on the "
                           "current device (tf.device), as without a strategy.")

    def _local_devices(self) -> tuple:
        from ..framework import device as device_lib
        return (device_lib.current_device(),)


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect when none is: one replica, the default device."""

    _extended_class = _DefaultDistributionExtended

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
