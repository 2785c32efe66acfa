"""Random numbers under `tf.distribute` (laws; TF 2.21's patterns are in test_strategy_gaps_golden):
a `tf.random.Generator` made in `strategy.scope()` gives each replica its own deterministic
stream and replays it after a restore; op-level seeds give every replica the same values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tests.distribute.logical_devices import logical_cpus

pytestmark = pytest.mark.usefixtures("three_cpus")


@pytest.fixture
def three_cpus():
    with logical_cpus(3):
        yield
        tf.random.set_seed(None)


def mirrored(n):
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])


def local(s, value):
    return [np.asarray(x) for x in s.experimental_local_results(value)]


def draws_of(seed, n, runs=2):
    s = mirrored(n)
    with s.scope():
        g = tf.random.Generator.from_seed(seed)
    return [local(s, s.run(lambda: g.normal([3]))) for _ in range(runs)], g


@settings(max_examples=10)
@given(seed=st.integers(0, 2 ** 40), n=st.integers(2, 3))
def test_each_replica_its_own_deterministic_stream(seed, n):
    runs, g = draws_of(seed, n)
    flat = [d for run in runs for d in run]
    assert len({d.tobytes() for d in flat}) == len(flat)  # replicas and runs all differ
    again, _ = draws_of(seed, n)
    assert all(np.array_equal(a, b) for ra, rb in zip(runs, again) for a, b in zip(ra, rb))
    comps = [np.asarray(v) for v in g.state.values]
    assert all(np.array_equal(comps[0], c) for c in comps)  # replicas that draw alike


@settings(max_examples=6)
@given(seed=st.integers(0, 2 ** 31), restore_n=st.integers(1, 3))
def test_restore_replays_each_replica_under_any_replica_count(seed, restore_n, tmp_path_factory):
    s = mirrored(2)
    with s.scope():
        g = tf.random.Generator.from_seed(seed)
    s.run(lambda: g.uniform([2]))
    path = tf.train.Checkpoint(g=g).write(str(tmp_path_factory.mktemp("g") / "ckpt"))
    expected = local(s, s.run(lambda: g.uniform([2])))
    s2 = mirrored(restore_n)
    with s2.scope():
        g2 = tf.random.Generator.from_seed(seed + 1)
    tf.train.Checkpoint(g=g2).restore(path)
    got = local(s2, s2.run(lambda: g2.uniform([2])))
    for a, b in zip(got, expected):  # the replica ids present in both
        np.testing.assert_array_equal(a, b)


def test_cross_replica_draw_is_the_plain_stream_and_advances_every_component():
    s = mirrored(2)
    with s.scope():
        g = tf.random.Generator.from_seed(5)
    plain = tf.random.Generator.from_seed(5)
    np.testing.assert_array_equal(np.asarray(g.normal([4])), np.asarray(plain.normal([4])))
    comps = [np.asarray(v) for v in g.state.values]
    np.testing.assert_array_equal(comps[0], comps[1])
    np.testing.assert_array_equal(comps[0], np.asarray(plain.state))


def test_a_failed_draw_in_a_replica_changes_no_state():
    s = mirrored(2)
    with s.scope():
        g = tf.random.Generator.from_seed(5)
    before = [np.asarray(v) for v in g.state.values]
    with pytest.raises(Exception):
        s.run(lambda: g.uniform([2], minval=3, maxval=1, dtype=tf.int32))
    assert all(np.array_equal(b, np.asarray(v)) for b, v in zip(before, g.state.values))
    other = mirrored(1)
    with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
        other.run(lambda: g.normal([1]))
    assert all(np.array_equal(b, np.asarray(v)) for b, v in zip(before, g.state.values))


def test_central_storage_and_one_device_generators_draw_in_replicas():
    cs = tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
    with cs.scope():
        g = tf.random.Generator.from_seed(2)
    a, b = local(cs, cs.run(lambda: g.normal([3])))
    assert not np.array_equal(a, b)
    od = tf.distribute.OneDeviceStrategy("/cpu:0")
    with od.scope():
        g1 = tf.random.Generator.from_seed(2)
    s = mirrored(2)
    with s.scope():
        g2 = tf.random.Generator.from_seed(2)
    # replica 0's stream is the same whichever strategy runs it (TF: key = hash(key, 0))
    np.testing.assert_array_equal(np.asarray(od.run(lambda: g1.normal([3]))),
                                  local(s, s.run(lambda: g2.normal([3])))[0])


OPS = {
    "normal": lambda seed: tf.random.normal([3], seed=seed),
    "uniform": lambda seed: tf.random.uniform([3], seed=seed),
    "truncated_normal": lambda seed: tf.random.truncated_normal([3], seed=seed),
    "uniform_int": lambda seed: tf.random.uniform([3], maxval=50, dtype=tf.int64, seed=seed),
    "shuffle": lambda seed: tf.random.shuffle(tf.range(10), seed=seed),
    "dropout": lambda seed: tf.nn.dropout(tf.ones([10]), 0.5, seed=seed),
}


@settings(max_examples=12)
@given(op=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2 ** 31 - 2),
       global_seed=st.one_of(st.none(), st.integers(0, 2 ** 31 - 2)), n=st.integers(2, 3))
def test_op_seeds_give_every_replica_the_same_values(op, seed, global_seed, n):
    tf.random.set_seed(global_seed)
    s = mirrored(n)
    first = local(s, s.run(lambda: OPS[op](seed)))
    second = local(s, s.run(lambda: OPS[op](seed)))
    assert all(np.array_equal(first[0], d) for d in first)
    assert all(np.array_equal(second[0], d) for d in second)
    tf.random.set_seed(global_seed)  # a device with no calls yet starts at the beginning
    with tf.device(f"/cpu:{n - 1}"):
        np.testing.assert_array_equal(np.asarray(OPS[op](seed)), first[0])


def test_unseeded_ops_differ_between_replicas():
    for global_seed in (None, 3):
        tf.random.set_seed(global_seed)
        s = mirrored(2)
        a, b = local(s, s.run(lambda: tf.random.normal([6])))
        assert not np.array_equal(a, b)


def test_a_generator_made_inside_run_under_the_scope_replays_per_replica():
    """TF's random-numbers guide: `Generator.from_seed(1)` made inside `strategy.run` (itself
    called in `strategy.scope()`) is one variable the replicas share, each drawing from its
    own component: every run gives the same numbers, different per replica."""
    s = mirrored(2)
    with s.scope():
        def f():
            g = tf.random.Generator.from_seed(1)
            return tf.stack([g.normal([]), g.normal([])])
        first, second = local(s, s.run(f)), local(s, s.run(f))
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert not np.array_equal(first[0], first[1])


def test_the_scope_entered_again_wraps_no_variable_twice():
    """As TF: `strategy.scope()` inside itself (and `run` inside the scope) pushes its variable
    creator once, so a variable's components are plain variables."""
    s = mirrored(2)
    with s.scope():
        with s.scope():
            nested = tf.Variable(1.0)
        made = []
        s.run(lambda: made.append(tf.Variable(2.0)) or tf.constant(0))
    for v in (nested, made[0]):
        assert type(v).__name__ == "MirroredVariable"
        assert [type(c).__name__ for c in v._values] == ["ResourceVariable", "ResourceVariable"]
        assert [c.device[-5:] for c in v._values] == ["CPU:0", "CPU:1"]
