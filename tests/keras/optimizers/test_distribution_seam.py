"""How the optimizer talks to `tf.distribute` (the strategy seam).

A small test-only strategy records the calls the optimizer makes: inside
`strategy.run`, `apply_gradients` must sum the gradients across replicas
(`merge_call` + `extended.batch_reduce_to(SUM, ...)`, in cross-replica
context) before updating, and update through `extended.update` (reference
path) or `extended.batch_update` (multi-tensor path). In cross-replica
context (`strategy.scope()` without `run`) it raises TF's RuntimeError and
changes nothing. Under the default strategy no reduction happens.

The recording strategy simulates `replicas` replicas that all computed the
same gradient: its SUM reduction multiplies by `replicas`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.distribute import distribute_lib
from tfcompat.distribute.reduce_util import ReduceOp

from optimizer_info import OPTIMIZER_INFOS, build, count_multi_tensor_calls, to_numpy, tolerance

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]
PATHS = (True, False)
PATH_IDS = ("multi_tensor", "reference")

CROSS_REPLICA_MESSAGE = (
    "`apply_gradients() cannot be called in cross-replica context. Use `tf.distribute.Strategy.run` to enter "
    "replica context. For more information, please see the docstring of `tf.distribute.get_replica_context`.")


def _scale(value, factor):
    if isinstance(value, tf.IndexedSlices):
        return tf.IndexedSlices(value.values * factor, value.indices, value.dense_shape)
    return value * factor


class RecordingExtended(tf.distribute.StrategyExtended):
    def __init__(self, container, replicas):
        super().__init__(container)
        self.replicas = replicas
        self.log = []

    def _batch_reduce_to(self, reduce_op, pairs):
        self.log.append(("batch_reduce_to", reduce_op, len(pairs),
                         tf.distribute.in_cross_replica_context()))
        assert reduce_op is ReduceOp.SUM
        return [_scale(value, self.replicas) for value, _ in pairs]

    def _update(self, var, fn, args, kwargs, group):
        self.log.append(("update", var.name, tf.distribute.in_cross_replica_context()))
        return super()._update(var, fn, args, kwargs, group)

    def _batch_update(self, pairs, fn):
        self.log.append(("batch_update", tuple(v.name for v, _ in pairs), tf.distribute.in_cross_replica_context()))
        return fn(pairs)


class RecordingStrategy(tf.distribute.Strategy):
    def __init__(self, replicas=2):
        super().__init__(RecordingExtended(self, replicas))

    @property
    def num_replicas_in_sync(self):
        return self._extended.replicas

    @property
    def log(self):
        return self._extended.log


def _vars(dtype=np.float32):
    return [tf.Variable(np.array([1.0, -2.0, 3.0], dtype), name="a"),
            tf.Variable(np.array([[0.5, 0.25], [-1.0, 2.0]], dtype), name="b")]


def _grads(dtype=np.float32):
    return [torch.tensor(np.array([0.5, -0.25, 1.0], dtype)), torch.tensor(np.array([[1.0, 2.0], [0.5, -0.5]], dtype))]



@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_apply_in_replica_context_sums_then_updates(info, multi):
    strategy = RecordingStrategy(replicas=2)
    with strategy.scope():
        opt = build(info, info.typical_kwargs(), multi_tensor=multi)
        variables = _vars()
    assert opt._distribution_strategy is strategy
    for step in range(2):
        strategy.log.clear()
        strategy.run(lambda: opt.apply_gradients(zip(_grads(), variables)))
        kinds = [entry[0] for entry in strategy.log]
        assert kinds[0] == "batch_reduce_to", strategy.log
        assert strategy.log[0][1:] == (ReduceOp.SUM, 2, True)  # both gradients, in cross-replica context
        assert "batch_reduce_to" not in kinds[1:]
        if multi:
            assert strategy.log[1:] == [("batch_update", ("a:0", "b:0"), True)], strategy.log
        else:
            assert strategy.log[1:] == [("update", "a:0", True), ("update", "b:0", True)], strategy.log
    assert int(opt.iterations.numpy()) == 2
    # the same as a plain run with the summed gradients
    plain = build(info, info.typical_kwargs(), multi_tensor=multi)
    plain_vars = _vars()
    for _ in range(2):
        plain.apply_gradients(zip([g * 2 for g in _grads()], plain_vars))
    for x, y in zip(variables, plain_vars):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), *tolerance("float32"))


def test_sparse_gradients_are_reduced_and_updated_per_variable():
    strategy = RecordingStrategy(replicas=3)
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(0.1)
        var = tf.Variable(np.zeros((3, 2), np.float32), name="emb")
        dense = tf.Variable(np.zeros(2, np.float32), name="d")
    grad = tf.IndexedSlices(torch.ones(2, 2), torch.tensor([0, 2], dtype=torch.int32))
    strategy.run(lambda: opt.apply_gradients([(grad, var), (torch.ones(2), dense)]))
    assert strategy.log[0] == ("batch_reduce_to", ReduceOp.SUM, 2, True)
    assert ("update", "emb:0", True) in strategy.log
    np.testing.assert_allclose(to_numpy(var), [[-0.3, -0.3], [0.0, 0.0], [-0.3, -0.3]], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(dense), [-0.3, -0.3], rtol=1e-6)


def test_reduction_goes_through_merge_call(monkeypatch):
    calls = []
    original = distribute_lib.ReplicaContext.merge_call

    def merge_call(self, merge_fn, args=(), kwargs=None):
        calls.append(tf.distribute.in_cross_replica_context())
        return original(self, merge_fn, args, kwargs)

    monkeypatch.setattr(distribute_lib.ReplicaContext, "merge_call", merge_call)
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = tf.keras.optimizers.Adam(0.1)
        clipped = tf.keras.optimizers.Adam(0.1, clipnorm=1.0)
        variables = _vars()
    strategy.run(lambda: opt.apply_gradients(zip(_grads(), variables)))
    # Entered from replica context; nothing runs between the sum and the update, so one merge
    # call sums (batch_reduce_to, first) and then applies.
    assert calls == [False]
    assert strategy.log[0][0] == "batch_reduce_to"
    del calls[:], strategy.log[:]
    strategy.run(lambda: clipped.apply_gradients(zip(_grads(), variables)))
    # Clipping runs in replica context on the sums (as TF): reduce, then clip, then apply.
    assert calls == [False, False]
    assert strategy.log[0][0] == "batch_reduce_to"


def test_none_gradients_are_not_reduced():
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(1.0)
        a, b = _vars()
    strategy.run(lambda: opt.apply_gradients([(None, a), (torch.ones(2, 2), b)]))
    assert strategy.log[0] == ("batch_reduce_to", ReduceOp.SUM, 1, True)
    np.testing.assert_array_equal(to_numpy(a), [1.0, -2.0, 3.0])
    np.testing.assert_allclose(to_numpy(b), [[-1.5, -1.75], [-3.0, 0.0]])


def test_clipping_applies_to_the_summed_gradient():
    """TF transforms (clips) after aggregating: the summed gradient is what gets clipped."""
    strategy = RecordingStrategy(replicas=2)
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(1.0, clipnorm=1.0)
        var = tf.Variable([0.0, 0.0])
    strategy.run(lambda: opt.apply_gradients([(torch.tensor([0.3, 0.4]), var)]))  # norm 0.5, summed 1.0
    np.testing.assert_allclose(to_numpy(var), [-0.6, -0.8], rtol=1e-6)
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(1.0, clipnorm=0.5)
        var = tf.Variable([0.0, 0.0])
    strategy.run(lambda: opt.apply_gradients([(torch.tensor([0.3, 0.4]), var)]))
    np.testing.assert_allclose(to_numpy(var), [-0.3, -0.4], rtol=1e-6)


def test_experimental_aggregate_gradients_false_skips_the_reduction():
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(1.0)
        var = tf.Variable([0.0, 0.0], name="v")
    strategy.run(lambda: opt.apply_gradients([(torch.tensor([1.0, 2.0]), var)],
                                             experimental_aggregate_gradients=False))
    assert [e[0] for e in strategy.log] == ["batch_update"]
    np.testing.assert_allclose(to_numpy(var), [-1.0, -2.0])


def test_custom_gradient_aggregator_replaces_the_reduction():
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(1.0, gradient_aggregator=lambda gv: [(g * 10, v) for g, v in gv])
        var = tf.Variable([0.0], name="v")
    strategy.run(lambda: opt.apply_gradients([(torch.tensor([1.0]), var)]))
    assert [e[0] for e in strategy.log] == ["batch_update"]
    np.testing.assert_allclose(to_numpy(var), [-10.0])


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_cross_replica_context_raises_and_changes_nothing(info, multi):
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = build(info, info.typical_kwargs(), multi_tensor=multi)
        variables = _vars()
    strategy.run(lambda: opt.apply_gradients(zip(_grads(), variables)))
    before = [to_numpy(v).copy() for v in variables] + [np.array(w, copy=True) for w in opt.get_weights()]
    names = [w.name for w in opt.weights]
    strategy.log.clear()
    with strategy.scope():
        assert tf.distribute.in_cross_replica_context()
        with pytest.raises(RuntimeError) as err:
            opt.apply_gradients(zip(_grads(), variables))
    assert str(err.value) == CROSS_REPLICA_MESSAGE
    assert [e for e in strategy.log if e[0] != "batch_reduce_to"] == []
    after = [to_numpy(v) for v in variables] + opt.get_weights()
    assert [w.name for w in opt.weights] == names
    for x, y in zip(after, before):
        np.testing.assert_array_equal(x, y)
    assert int(opt.iterations.numpy()) == 1


def test_cross_replica_context_before_any_step():
    strategy = RecordingStrategy()
    with strategy.scope():
        opt = tf.keras.optimizers.Adam()
        variables = _vars()
        with pytest.raises(RuntimeError) as err:
            opt.apply_gradients(zip(_grads(), variables))
    assert str(err.value) == CROSS_REPLICA_MESSAGE
    np.testing.assert_array_equal(to_numpy(variables[0]), [1.0, -2.0, 3.0])
    assert strategy.log == []


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_default_strategy_runs_the_plain_path(monkeypatch, multi):
    reduced = []
    original = tf.distribute.StrategyExtended._batch_reduce_to

    def spy(self, reduce_op, pairs):
        reduced.append(len(pairs))
        return original(self, reduce_op, pairs)

    monkeypatch.setattr(tf.distribute.StrategyExtended, "_batch_reduce_to", spy)
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    default = tf.distribute.get_strategy()
    assert default.num_replicas_in_sync == 1
    opt = build("Adam", {"learning_rate": 0.1}, multi_tensor=multi)
    assert opt._distribution_strategy is None
    variables = _vars()
    with default.scope():  # the default strategy's scope stays in replica context
        opt.apply_gradients(zip(_grads(), variables))
    opt.apply_gradients(zip(_grads(), variables))
    assert reduced == []
    other = build("Adam", {"learning_rate": 0.1}, multi_tensor=not multi)
    other_vars = _vars()
    for _ in range(2):
        other.apply_gradients(zip(_grads(), other_vars))
    for x, y in zip(variables, other_vars):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), *tolerance("float32"))


def test_optimizer_variables_are_created_in_the_optimizers_strategy():
    """Weights created outside the scope still go through the strategy the optimizer was made under."""
    entered = []

    class Tracking(RecordingStrategy):
        def scope(self):
            entered.append(True)
            return super().scope()

    strategy = Tracking()
    with strategy.scope():
        opt = tf.keras.optimizers.SGD(0.1, momentum=0.5)
    entered.clear()
    _ = opt.iterations  # created lazily, outside the scope
    assert entered, "iterations was not created under the optimizer's strategy"
    assert opt._distribution_strategy is strategy


# ---------------------------------------------------------------------------
# a strategy may repack what passes through the seam
# ---------------------------------------------------------------------------


def _repacked(value):
    """A structurally equal copy with every list and tuple rebuilt (the leaves are kept)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_repacked(v) for v in value) if not isinstance(value, list) else [
            _repacked(v) for v in value]
    return value


class RepackingReplicaContext(distribute_lib.ReplicaContext):
    """A replica context whose merge_call hands the merge function rebuilt arguments, as a
    strategy that regroups per-replica values does."""

    def merge_call(self, merge_fn, args=(), kwargs=None):
        return super().merge_call(merge_fn, args=_repacked(tuple(args)),
                                  kwargs={k: _repacked(v) for k, v in (kwargs or {}).items()})


class RepackingExtended(tf.distribute.StrategyExtended):
    def __init__(self, container):
        super().__init__(container)
        self.batches = []

    def _call_for_each_replica(self, fn, args, kwargs):
        strategy = self._container_strategy
        with distribute_lib._enter(distribute_lib._Context(strategy, RepackingReplicaContext(strategy, 0))):
            return fn(*args, **kwargs)

    def _batch_update(self, pairs, fn):
        rebuilt = [(v, g) for v, g in list(pairs)]  # new list, new tuples
        self.batches.append(len(rebuilt))
        return fn(rebuilt)


class RepackingStrategy(tf.distribute.Strategy):
    def __init__(self):
        super().__init__(RepackingExtended(self))


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_a_strategy_that_repacks_the_pairs_keeps_the_fast_path(info, monkeypatch):
    """The merge function and the batch update find everything they cached from the variables
    themselves: a strategy that rebuilds every list and tuple on the way still gets one
    multi-tensor update per (device, dtype) group, planned once, with identical results."""
    calls = count_multi_tensor_calls(info, monkeypatch)
    strategy = RepackingStrategy()
    with strategy.scope():
        opt = build(info, info.typical_kwargs())
        variables = _vars()
    planned = []
    original_add = type(opt._plans).add

    def counting_add(cache, var_list):
        planned.append(len(var_list))
        return original_add(cache, var_list)

    monkeypatch.setattr(type(opt._plans), "add", counting_add)
    for _ in range(3):
        strategy.run(lambda: opt.apply_gradients(zip(_grads(), variables)))
    assert calls == [2, 2, 2]  # the fast path, every step
    assert strategy.extended.batches == [2, 2, 2]
    assert planned == [2]  # one plan for the list, found again however the pairs were packed
    plain = build(info, info.typical_kwargs())
    plain_vars = _vars()
    for _ in range(3):
        plain.apply_gradients(zip(_grads(), plain_vars))
    for x, y in zip(variables, plain_vars):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(y))
        for name in opt.get_slot_names():
            np.testing.assert_array_equal(to_numpy(opt.get_slot(x, name)), to_numpy(plain.get_slot(y, name)))
