"""MirroredStrategy, CentralStorageStrategy and OneDeviceStrategy in one process.

Replicas run on two logical CPUs (`tf.config.set_logical_device_configuration`),
so every multi-replica law is checked without GPUs.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.distribute import values as values_lib
from tfcompat.framework import device as device_lib
from tests.distribute.logical_devices import logical_cpus
from tfcompat.testing import conformance

pytestmark = pytest.mark.usefixtures("two_cpus")


@pytest.fixture
def two_cpus():
    with logical_cpus(2):
        yield


def mirrored():
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def per_replica(*parts):
    return tf.distribute.PerReplica(tuple(torch.as_tensor(p) for p in parts))


# -- variables -------------------------------------------------------------------------

def test_scope_builds_mirrored_variables_initialized_from_component_zero():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable(lambda: torch.randn(3), name="w")
    assert isinstance(v, tf.Variable) and isinstance(v, tf.distribute.MirroredVariable)
    assert [c.name for c in v.values] == ["w:0", "w/replica_1:0"]
    assert [c.device for c in v.values] == [
        "/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:1"]
    np.testing.assert_array_equal(v.values[0].numpy(), v.values[1].numpy())
    assert all(c._distributed_container() is v for c in v.values)
    assert values_lib.value_container(v.values[1]) is v
    assert v.name == "w:0" and v.shape == [3] and v.dtype == tf.float32


def test_components_have_their_own_storage():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    v.values[1].assign([5.0, 6.0])
    assert v.values[0].numpy().tolist() == [1.0, 2.0]


def test_on_read_builds_sync_on_read_variables():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    assert isinstance(v, tf.distribute.SyncOnReadVariable) and isinstance(v, tf.Variable)
    assert not v.trainable


def test_none_synchronization_is_refused():
    with mirrored().scope(), pytest.raises(ValueError, match="`NONE` variable synchronization"):
        tf.Variable(1.0, synchronization=tf.VariableSynchronization.NONE)


def test_variables_created_inside_run_are_created_once():
    strategy = mirrored()
    made = []

    def fn():
        v = tf.Variable(1.0, name="inner")
        made.append(v)
        return v

    with strategy.scope():
        out = strategy.run(fn)
    assert made[0] is made[1] and out is made[0]
    assert isinstance(out, tf.distribute.MirroredVariable)


# -- run and merge_call ------------------------------------------------------------------

def test_run_gives_each_replica_its_component_and_regroups():
    strategy = mirrored()

    def fn(x):
        ctx = tf.distribute.get_replica_context()
        return x * 10 + ctx.replica_id_in_sync_group

    out = strategy.run(fn, args=(per_replica([1.0], [2.0]),))
    assert isinstance(out, tf.distribute.PerReplica)
    assert [t.tolist() for t in strategy.experimental_local_results(out)] == [[10.0], [21.0]]
    same = object()
    assert strategy.run(lambda: same) is same


def test_merge_call_sees_per_replica_arguments_and_returns_each_replica_its_part():
    strategy = mirrored()
    seen = {}

    def merge_fn(strat, value, extra):
        seen["value"], seen["extra"] = value, extra
        assert tf.distribute.in_cross_replica_context()
        return tf.distribute.PerReplica(("a", "b"))

    def fn():
        ctx = tf.distribute.get_replica_context()
        return ctx.merge_call(merge_fn, args=(torch.tensor(float(ctx.replica_id_in_sync_group)), 7))

    out = strategy.run(fn)
    assert out.values == ("a", "b")
    assert isinstance(seen["value"], tf.distribute.PerReplica) and seen["extra"] == 7
    assert [float(t) for t in seen["value"].values] == [0.0, 1.0]


@pytest.mark.parametrize("failing", [0, 1])
def test_a_replica_that_raises_makes_run_raise_and_leaves_no_thread_blocked(failing):
    strategy = mirrored()

    def fn():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group == failing:
            raise KeyError("replica failed")
        ctx.merge_call(lambda s: None)  # the other replica waits here (or has not started)

    strategy.run(lambda: None)  # the strategy's replica threads exist from here on
    before = set(threading.enumerate())
    for _ in range(3):
        with pytest.raises(KeyError, match="replica failed"):
            strategy.run(fn)
    # no thread left behind, none blocked (threads of earlier tests' strategies may end meanwhile)
    assert not set(threading.enumerate()) - before
    pool = strategy.extended._replica_pool
    assert all(t.run_state is None and t.fn is None for t in pool.threads)
    assert strategy.run(lambda: 7) == 7  # and the replicas still run


def test_replica_threads_end_with_their_strategy():
    import gc
    strategy = mirrored()
    strategy.run(lambda: None)
    threads = list(strategy.extended._replica_pool.threads)
    del strategy
    gc.collect()
    for t in threads:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in threads)


def test_replicas_making_different_merge_calls_is_an_error():
    strategy = mirrored()

    def fn():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group == 0:
            ctx.merge_call(lambda s: None)

    with pytest.raises(RuntimeError, match="different number of"):
        strategy.run(fn)


def test_cross_replica_methods_refuse_replica_context():
    strategy = mirrored()

    def fn():
        with pytest.raises(RuntimeError, match="cross-replica context"):
            strategy.reduce("SUM", torch.tensor(1.0), axis=None)
        return True

    assert strategy.run(fn) is True


# -- reductions --------------------------------------------------------------------------

def test_reduce_sum_and_mean_with_uneven_batches_along_an_axis():
    strategy = mirrored()
    value = per_replica([1.0, 2.0, 3.0], [10.0])
    assert float(strategy.reduce("SUM", value, axis=0)) == 16.0
    assert float(strategy.reduce("MEAN", value, axis=0)) == 4.0  # 16 / 4 elements, as TF
    np.testing.assert_array_equal(
        strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica([1.0, 2.0], [3.0, 4.0]), axis=None),
        [4.0, 6.0])


def test_sum_of_one_value_standing_for_every_replica_is_refused():
    strategy = mirrored()
    with pytest.raises(ValueError, match="cannot be reduced"):
        strategy.reduce("SUM", torch.tensor(2.0), axis=None)
    assert float(strategy.reduce("MEAN", torch.tensor(2.0), axis=None)) == 2.0


def test_all_reduce_nests_and_indexed_slices():
    strategy = mirrored()

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        dense = torch.tensor([1.0, 2.0]) * (i + 1)
        sparse = tf.IndexedSlices(torch.tensor([[1.0, 1.0]]) * (i + 1), torch.tensor([i]),
                                  torch.tensor([2, 2]))
        return tf.distribute.get_replica_context().all_reduce("SUM", {"d": dense, "s": sparse})

    out = strategy.run(fn)
    for r in strategy.experimental_local_results(out["d"]):
        assert r.tolist() == [3.0, 6.0]
    s = strategy.experimental_local_results(out["s"])[1]
    assert tf.convert_to_tensor(s).tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_all_reduce_results_are_independent_per_replica():
    strategy = mirrored()

    def fn():
        r = tf.distribute.get_replica_context().all_reduce("SUM", torch.tensor([1.0]))
        if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
            r.add_(100.0)  # a torch in-place write reaches this replica's result only
        return r

    out = strategy.run(fn)
    assert [t.tolist() for t in out.values] == [[102.0], [2.0]]


def test_replica_id_is_an_int32_tensor_that_indexes_and_compares():
    strategy = mirrored()
    names = ["first", "second"]

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        assert isinstance(i, torch.Tensor) and i.dtype == torch.int32 and i.dim() == 0
        return names[i], bool(i == 0), int(i + 1)

    out = strategy.run(fn)
    assert [list(v.values) for v in out] == [["first", "second"], [True, False], [1, 2]]
    assert tf.distribute.get_replica_context().replica_id_in_sync_group == 0  # default: an int


def test_all_reduce_joins_the_tape_only_when_its_inputs_need_gradients():
    strategy = mirrored()

    def fn():
        ctx = tf.distribute.get_replica_context()
        plain = ctx.all_reduce("SUM", torch.tensor([1.0]))
        x = torch.tensor([2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = ctx.all_reduce("SUM", 3.0 * x)
        # the gradient of an all-reduce is the all-reduce of the replicas' upstream gradients
        return plain.grad_fn is None, y, tape.gradient(y, x)

    off_graph, y, grad = strategy.run(fn)
    assert off_graph is True
    assert [t.tolist() for t in y.values] == [[12.0], [12.0]]
    assert [t.tolist() for t in grad.values] == [[6.0], [6.0]]


def test_mismatched_shapes_across_replicas_name_both():
    strategy = mirrored()

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.distribute.get_replica_context().all_reduce("SUM", torch.ones(2 + i))

    with pytest.raises(tf.errors.InvalidArgumentError,  # TF's class (its collective's check)
                       match=r"Shape mismatch.*replica 0 has shape=\[2\].*replica 1 has shape=\[3\]"):
        strategy.run(fn)


def test_all_gather_concatenates_in_replica_order():
    strategy = mirrored()

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.distribute.get_replica_context().all_gather(torch.tensor([float(i)] * (i + 1)), 0)

    out = strategy.run(fn)
    assert out.values[0].tolist() == [0.0, 1.0, 1.0]


def test_values_from_function():
    strategy = mirrored()
    out = strategy.experimental_distribute_values_from_function(
        lambda ctx: torch.tensor(float(ctx.replica_id_in_sync_group * 10)))
    assert [float(t) for t in out.values] == [0.0, 10.0]


# -- assignment rules ----------------------------------------------------------------------

def _assign_in_replicas(aggregation, method="assign_add"):
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable(1.0, aggregation=aggregation)

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        getattr(v, method)(torch.tensor(float(i + 1)))

    strategy.run(fn)
    return [float(c.numpy()) for c in v.values]


@pytest.mark.parametrize("aggregation,expected", [
    (tf.VariableAggregation.SUM, [4.0, 4.0]),            # 1 + (1 + 2)
    (tf.VariableAggregation.MEAN, [2.5, 2.5]),           # 1 + 1.5
    (tf.VariableAggregation.ONLY_FIRST_REPLICA, [2.0, 2.0]),
])
def test_replica_context_updates_aggregate_onto_every_component(aggregation, expected):
    assert _assign_in_replicas(aggregation) == expected


def test_replica_context_update_without_aggregation_is_refused():
    with pytest.raises(ValueError, match="You must specify an aggregation method to update a "
                                         "MirroredVariable in Replica Context"):
        _assign_in_replicas(tf.VariableAggregation.NONE)


def test_cross_replica_assign_updates_every_component_and_returns_their_values():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    out = v.assign([3.0, 4.0])  # as TF: a Mirrored of the components' new values
    assert isinstance(out, tf.distribute.Mirrored)
    assert [t.tolist() for t in out.values] == [[3.0, 4.0], [3.0, 4.0]]
    assert v.assign_sub([1.0, 1.0], read_value=False) is None
    assert [t.tolist() for t in out.values] == [[3.0, 4.0], [3.0, 4.0]]  # values, not the variable
    assert [c.numpy().tolist() for c in v.values] == [[2.0, 3.0], [2.0, 3.0]]
    v[0].assign(9.0)
    assert [c.numpy().tolist() for c in v.values] == [[9.0, 3.0], [9.0, 3.0]]


def _sync_on_read(aggregation):
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=aggregation)

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        v.assign_add(torch.tensor(float(i + 1)))
        return v.read_value()

    local = strategy.run(fn)
    return strategy, v, local


@pytest.mark.parametrize("aggregation,read", [
    (tf.VariableAggregation.SUM, 3.0), (tf.VariableAggregation.MEAN, 1.5),
    (tf.VariableAggregation.ONLY_FIRST_REPLICA, 1.0)])
def test_sync_on_read_updates_locally_and_reduces_when_read_across_replicas(aggregation, read):
    strategy, v, local = _sync_on_read(aggregation)
    assert [float(t) for t in local.values] == [1.0, 2.0]
    assert float(v.read_value()) == read and float(v.numpy()) == read


def test_sync_on_read_cross_replica_assign_keeps_the_total():
    strategy, v, _ = _sync_on_read(tf.VariableAggregation.SUM)
    v.assign(10.0)
    assert [float(c.numpy()) for c in v.values] == [5.0, 5.0] and float(v.numpy()) == 10.0
    with pytest.raises(ValueError, match="does not support `assign_add` in cross-replica"):
        v.assign_add(1.0)
    saveable = v._gather_saveables_for_checkpoint()["VARIABLE_VALUE"]()
    assert float(saveable.tensor()) == 10.0
    saveable.restore(torch.tensor(4.0))
    assert [float(c.numpy()) for c in v.values] == [2.0, 2.0]


def test_mirrored_saveable_restores_every_component():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    saveable = v._gather_saveables_for_checkpoint()["VARIABLE_VALUE"]()
    assert saveable.tensor().tolist() == [1.0, 2.0] and saveable.name == "Variable"
    saveable.restore(torch.tensor([7.0, 8.0]))
    assert [c.numpy().tolist() for c in v.values] == [[7.0, 8.0], [7.0, 8.0]]


# -- tapes and optimizers ------------------------------------------------------------------

def test_gradient_with_respect_to_the_container_is_the_replicas_component():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])

    def fn(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v * x)
        return tape.gradient(y, v)

    out = strategy.run(fn, args=(per_replica([1.0, 1.0], [3.0, 5.0]),))
    assert [g.tolist() for g in out.values] == [[1.0, 1.0], [3.0, 5.0]]


def _mlp(rs):
    return [rs.randn(4, 8).astype(np.float32) * 0.5, np.zeros(8, np.float32),
            rs.randn(8, 3).astype(np.float32) * 0.5, np.zeros(3, np.float32)]


def _loss(params, x, y):
    w1, b1, w2, b2 = params
    h = torch.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def _train(strategy, make_opt, steps=4, replicas=2):
    rs = np.random.RandomState(0)
    init = _mlp(rs)
    x = rs.randn(8, 4).astype(np.float32)
    y = rs.randint(0, 3, size=8)
    with strategy.scope():
        params = [tf.Variable(a) for a in init]
        opt = make_opt()

    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = _loss(params, xb, yb) / 8.0  # scaled by the global batch, as TF's guides do
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    if replicas > 1:
        xs = per_replica(*np.split(x, replicas))
        ys = per_replica(*np.split(y, replicas))
    else:
        xs, ys = torch.tensor(x), torch.tensor(y)
    for _ in range(steps):
        strategy.run(step, args=(xs, ys))
    return params, opt


@pytest.mark.parametrize("make_opt", [
    lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
    lambda: tf.keras.optimizers.Adam(0.01),
    # clipping runs on the replicas' sum, in replica context, between two merge calls
    lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, clipnorm=0.05),
], ids=["sgd_momentum", "adam", "sgd_clipnorm"])
@pytest.mark.parametrize("kind", ["mirrored", "central_storage"])
def test_training_over_two_replicas_equals_training_on_the_global_batch(make_opt, kind):
    strategy = mirrored() if kind == "mirrored" else \
        tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
    params, opt = _train(strategy, make_opt)
    single, single_opt = _train(tf.distribute.OneDeviceStrategy("/cpu:0"), make_opt, replicas=1)
    assert int(opt.iterations.numpy()) == 4
    for p, s in zip(params, single):
        for component in p.values:
            np.testing.assert_allclose(component.numpy(), s.numpy(), rtol=2e-6, atol=2e-7)
    if kind == "mirrored":
        slot = opt.get_slot(params[0], opt.get_slot_names()[0])
        assert isinstance(slot, tf.distribute.MirroredVariable)
        assert opt.get_slot(params[0].values[1], opt.get_slot_names()[0]) is slot.values[1]
        np.testing.assert_array_equal(slot.values[0].numpy(), slot.values[1].numpy())
    else:
        assert isinstance(params[0], tf.distribute.AggregatingVariable)


def test_each_replica_is_stepped_with_one_multi_tensor_call(monkeypatch):
    cls = tf.keras.optimizers.Adam
    calls = []
    fast = cls._multi_tensor_apply_dense

    def spy(self, group, grads, coefficients):
        calls.append(len(group))
        return fast(self, group, grads, coefficients)

    monkeypatch.setattr(cls, "_multi_tensor_apply_dense", spy)
    _train(mirrored(), lambda: cls(0.01), steps=2)
    assert calls == [4, 4, 4, 4]  # two steps x two replicas, all four variables at once


def test_one_device_strategy_builds_plain_variables():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:1")
    with strategy.scope():
        v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable" and v.device.endswith("CPU:1")
    assert strategy.experimental_local_results(torch.tensor(1.0))[0].item() == 1.0
    assert strategy.run(lambda: tf.distribute.get_replica_context().num_replicas_in_sync) == 1


# -- the variable laws, on distributed variables -----------------------------------------------

def _mirrored_factory(value, **kwargs):
    device_lib._reset_runtime()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    with mirrored().scope():
        return tf.Variable(value, **kwargs)


def _distributed_repr_law(make, cls_name):
    v = make(np.array([1.5, -2.0], np.float32))
    parts = ",\n".join(f"  {i}: <tf.Variable '{name}' shape=(2,) dtype=float32, "
                        "numpy=array([ 1.5, -2. ], dtype=float32)>"
                        for i, name in enumerate(["Variable:0", "Variable/replica_1:0"]))
    assert repr(v) == f"{cls_name}:{{\n{parts}\n}}"  # TF 2.21's layout
    assert str(v) == repr(v)


class TestMirroredVariableConformance(conformance.VariableConformance):
    factory = staticmethod(_mirrored_factory)
    pickling = False
    test_pickle_round_trip = None
    returns = "values"  # TF: a Mirrored of the new values (sync-on-read: the reduced read)

    def test_repr_matches_tf(self):
        _distributed_repr_law(_mirrored_factory, "MirroredVariable")


def _sync_on_read_factory(value, **kwargs):
    kwargs.pop("trainable", None)
    v = _mirrored_factory(value, synchronization=tf.VariableSynchronization.ON_READ,
                          aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA, **kwargs)
    return v


class TestSyncOnReadVariableConformance(conformance.VariableConformance):
    """ONLY_FIRST_REPLICA: cross-replica reads are replica 0's value, so the laws' references
    hold; scatter_* is refused for every sync-on-read variable, as in TF."""
    factory = staticmethod(_sync_on_read_factory)
    pickling = False
    gradients = False
    scatter = False
    test_pickle_round_trip = None
    returns = "values"  # TF: a Mirrored of the new values (sync-on-read: the reduced read)

    def test_repr_matches_tf(self):
        _distributed_repr_law(_sync_on_read_factory, "SyncOnReadVariable")


def test_sync_on_read_refuses_scatter_as_tf():
    v = _sync_on_read_factory(np.zeros(3, np.float32))
    with pytest.raises(NotImplementedError, match="synchronization=ON_READ` doesn't support "
                                                  "`scatter_add`"):
        v.scatter_add(tf.IndexedSlices(torch.ones(1), torch.tensor([0])))


# -- the seed's multi-step loop --------------------------------------------------------------

def test_run_steps_on_iterator_reports_the_last_step():
    strategy = mirrored()
    with strategy.scope():
        v = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    batches = iter([per_replica([1.0], [2.0]), per_replica([3.0], [4.0]), per_replica([5.0], [6.0])])

    def step(ctx, x):
        v.assign_add(tf.reduce_sum(x))
        ctx.set_last_step_output("x", tf.reduce_sum(x), reduce_op=tf.distribute.ReduceOp.SUM)
        ctx.set_non_tensor_output("id", tf.distribute.get_replica_context().replica_id_in_sync_group)
        with pytest.raises(ValueError, match="needs a reduce_op"):
            ctx.set_last_step_output("y", x)

    ctx = strategy.extended.experimental_run_steps_on_iterator(step, batches, iterations=3,
                                                               initial_loop_values={"x": None})
    assert float(ctx.last_step_outputs["x"]) == 11.0
    assert ctx.non_tensor_outputs["id"] == (0, 1)
    assert float(v.numpy()) == 21.0
    assert isinstance(ctx, values_lib.MultiStepContext)


def test_requested_gpus_on_a_machine_without_them_keep_their_names():
    """TF's distributed-training guide: `MirroredStrategy(devices=["/gpu:0", "/gpu:1"])`. Where
    soft placement puts both on one device, TF keeps two replicas with the requested names;
    a name given twice stays TF's ValueError."""
    import torch
    if torch.cuda.device_count() >= 2:
        pytest.skip("the machine has the GPUs")
    strategy = tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:1"])
    assert strategy.num_replicas_in_sync == 2
    assert [d[-5:] for d in strategy.extended.worker_devices] == ["GPU:0", "GPU:1"]
    with strategy.scope():
        v = tf.Variable(1.0)
    ids = strategy.run(lambda: v * 0.0 + tf.cast(
        tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32))
    assert float(strategy.reduce("SUM", ids, axis=None)) == 1.0
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:0"])


@pytest.mark.parametrize("ops", ["nccl", "hierarchical", "one_device"])
def test_cross_device_ops_choices_are_accepted_and_reduce_alike(ops):
    """TF's distributed-training guide passes `cross_device_ops=HierarchicalCopyAllReduce()`;
    tfcompat reduces in TF's add_n order whichever is chosen (communication.py)."""
    from tests.distribute.logical_devices import logical_cpus
    choice = {"nccl": tf.distribute.NcclAllReduce(num_packs=2),
              "hierarchical": tf.distribute.HierarchicalCopyAllReduce(),
              "one_device": tf.distribute.ReductionToOneDevice()}[ops]
    assert isinstance(choice, tf.distribute.CrossDeviceOps)
    with logical_cpus(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=choice)
        values = strategy.run(lambda: tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 0.5)
        assert float(strategy.reduce("SUM", values, axis=None)) == 2.0
    with pytest.raises(ValueError):
        tf.distribute.NcclAllReduce(num_packs=-1)


def test_communication_options_as_tf():
    experimental = tf.distribute.experimental
    options = experimental.CommunicationOptions(
        implementation=experimental.CommunicationImplementation.NCCL)
    assert options.implementation is experimental.CollectiveCommunication.NCCL
    assert options.bytes_per_pack == 0 and options.timeout_seconds is None
    merged = experimental.CommunicationOptions(bytes_per_pack=1024).merge(options)
    assert (merged.bytes_per_pack, merged.implementation.name) == (1024, "NCCL")
    with pytest.raises(ValueError):
        experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError):
        experimental.CommunicationOptions(implementation=3)
    # (MultiWorkerMirroredStrategy(communication_options=options) keeps them; it is not built
    # here: its constructor starts this process's default process group)
