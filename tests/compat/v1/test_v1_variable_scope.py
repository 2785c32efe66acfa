"""tf.compat.v1.variable_scope / get_variable against real TF 1 graph-mode facts
(`v1_varscope_golden.json`, written by `gen_v1_varscope.py`), plus the laws TF documents:
reuse, AUTO_REUSE, uniquification, custom getters, the creator stack."""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf
import v1_varscope_scenarios as scenarios

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "v1_varscope_golden.json")) as _f:
    GOLDEN = json.load(_f)


def normalized(result: dict) -> dict:
    """Drop what differs run to run (object addresses, random values)."""
    if "message" in result:
        message = re.sub(r" at 0x[0-9a-f]+", " at 0x", result["message"])
        return {**result, "message": message.split(", numpy=")[0]}
    return result


@pytest.fixture(autouse=True)
def fresh_graph():
    tf1.reset_default_graph()
    yield
    tf1.reset_default_graph()


@pytest.mark.parametrize("name", sorted(scenarios.GRAPH))
def test_graph_scenario_matches_tensorflow(name, tmp_path):
    got = scenarios.run(scenarios.GRAPH[name], tf, tf1, tf.keras, str(tmp_path))
    assert normalized(got) == normalized(GOLDEN["graph"][name])


def test_variable_is_plain_tf_variable_with_full_name():
    with tf1.variable_scope("d"):
        w = tf1.get_variable("w", [2, 3])
    assert isinstance(w, tf.Variable)
    assert w.name == "d/w:0" and w.shape == (2, 3) and w.dtype == tf.float32


def test_failed_get_variable_changes_nothing():
    with tf1.variable_scope("d"):
        tf1.get_variable("w", [2])
        with pytest.raises(ValueError):
            tf1.get_variable("w", [2])
        with pytest.raises(ValueError):
            tf1.get_variable("x", [2], initializer=tf.constant([1.0, 2.0]))
    assert [v.name for v in tf1.global_variables()] == ["d/w:0"]


def test_scope_restored_after_error():
    with pytest.raises(RuntimeError):
        with tf1.variable_scope("a"):
            raise RuntimeError("boom")
    from tfcompat.framework.name_scope import current_name_scope
    assert tf1.get_variable_scope().name == "" and current_name_scope() == ""


def test_name_scope_opened_and_original_name_scope():
    from tfcompat.framework.name_scope import current_name_scope
    with tf1.variable_scope("a") as a:
        assert current_name_scope() == "a/"
        assert a.original_name_scope == "a/"
        with tf1.variable_scope("b", auxiliary_name_scope=False) as b:
            assert current_name_scope() == "a/"
            assert b.name == "a/b"
    assert current_name_scope() == ""


def test_initializers_callable_class_instance_value():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((list(shape), dtype))
        return tf.ones(shape, dtype)

    a = tf1.get_variable("a", [2], initializer=init)
    b = tf1.get_variable("b", [2], initializer=tf.keras.initializers.Ones)
    c = tf1.get_variable("c", [2], initializer=tf.keras.initializers.Constant(3.0))
    d = tf1.get_variable("d", initializer=np.array([1, 2], np.int64))
    e = tf1.get_variable("e", initializer=lambda: tf.zeros([3]))
    assert seen == [([2], tf.float32)]
    np.testing.assert_array_equal(a.numpy(), [1, 1])
    np.testing.assert_array_equal(b.numpy(), [1, 1])
    np.testing.assert_array_equal(c.numpy(), [3, 3])
    assert d.dtype == tf.int64 and d.shape == (2,)
    assert e.shape == (3,)


def test_default_initializer_glorot_uniform_bounds_and_zeros():
    w = tf1.get_variable("w", [50, 30])
    limit = math.sqrt(6.0 / (50 + 30))
    values = w.numpy()
    assert np.all(np.abs(values) <= limit) and values.std() > limit / 4
    np.testing.assert_array_equal(tf1.get_variable("i", [3], dtype=tf.int32).numpy(), [0, 0, 0])
    np.testing.assert_array_equal(tf1.get_variable("b", [2], dtype=tf.bool).numpy(), [False, False])


def test_scope_defaults_flow_to_get_variable():
    with tf1.variable_scope("s", initializer=tf.keras.initializers.Constant(2.0), dtype=tf.float64):
        v = tf1.get_variable("v", [2])
        with tf1.variable_scope("t"):
            u = tf1.get_variable("u", [1])
    assert v.dtype == tf.float64 and u.dtype == tf.float64
    np.testing.assert_array_equal(u.numpy(), [2.0])


def test_regularizer_losses_follow_variable_value():
    with tf1.variable_scope("d", regularizer=lambda v: tf.reduce_sum(v)):
        w = tf1.get_variable("w", initializer=tf.constant([1.0, 2.0, 3.0]))
        tf1.get_variable("n", [1], regularizer=tf1.no_regularizer)
    assert len(tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)) == 1
    assert float(tf1.losses.get_regularization_loss()) == 6.0
    w.assign([0.0, 0.0, 1.0])
    assert float(tf1.losses.get_regularization_loss()) == 1.0
    with tf.GradientTape() as tape:
        loss = tf1.losses.get_regularization_loss(scope="d")
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), [1, 1, 1])
    assert float(tf1.losses.get_regularization_loss(scope="other")) == 0.0
    assert float(tf.add_n(tf1.get_collection_ref(tf1.GraphKeys.REGULARIZATION_LOSSES))) == 1.0


def test_creator_stack_sees_get_variable():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        with tf1.variable_scope("c"):
            tf1.get_variable("w", [1])
    assert seen == ["c/w"]


def test_mirrored_strategy_makes_mirrored_variable():
    from tfcompat.framework import device as device_lib
    device_lib._reset_runtime()
    tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    try:
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            with tf1.variable_scope("m"):
                w = tf1.get_variable("w", [2], initializer=tf.keras.initializers.Ones())
        assert type(w).__name__ == "MirroredVariable"
        assert w.name == "m/w:0"
        assert len(w.values) == 2
        with tf1.variable_scope("m", reuse=True):
            assert tf1.get_variable("w") is w
        assert tf1.trainable_variables() == [w]
        # strategy.run's replica threads start in the caller's variable scope (as TF's
        # replica threads do): a name created inside them keeps the scope's prefix
        with tf1.variable_scope("outer", reuse=tf1.AUTO_REUSE):
            names = strategy.experimental_local_results(
                strategy.run(lambda: tf.constant(len(tf1.get_variable_scope().name))))
            assert [int(n) for n in names] == [len("outer")] * 2
            with strategy.scope():
                v = strategy.run(lambda: tf1.get_variable("v", [2]))
            components = strategy.experimental_local_results(v)  # (TF's component names)
            assert [c.name for c in components] == ["outer/v:0", "outer/v/replica_1:0"]
    finally:
        device_lib._reset_runtime()
        tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))


def test_custom_getter_sees_every_argument_and_may_replace():
    def getter(getter, name, *args, **kwargs):
        assert kwargs["shape"] == [2] and "constraint" in kwargs
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    v = tf1.get_variable("v", [2], custom_getter=getter)
    assert not v.trainable
    assert tf1.trainable_variables() == []


def test_partitioner_raises_not_implemented():
    with pytest.raises(NotImplementedError):
        tf1.get_variable("p", [4, 2], partitioner=lambda shape, dtype: [2, 1])
    assert tf1.global_variables() == []


def test_reset_default_graph_clears_store_and_counts():
    with tf1.variable_scope(None, default_name="layer"):
        tf1.get_variable("w", [1])
    tf1.reset_default_graph()
    assert tf1.global_variables() == []
    with tf1.variable_scope(None, default_name="layer") as s:
        assert s.name == "layer"
        tf1.get_variable("w", [1])  # (no "already exists": a new store)


def test_saver_round_trip_by_name(tmp_path):
    with tf1.variable_scope("net"):
        w = tf1.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        b = tf1.get_variable("b", [1], dtype=tf.int32)
    saver = tf1.train.Saver(tf1.global_variables())
    path = saver.save(None, str(tmp_path / "model"))
    assert sorted(n for n, _ in tf.train.list_variables(path)) == ["net/b", "net/w"]
    w.assign([5.0, 6.0])
    b.assign([7])
    saver.restore(None, path)
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(b.numpy(), [0])


def test_assign_functions_and_initializers():
    v = tf1.get_variable("v", initializer=tf.constant([1.0]))
    tf1.assign(v, [3.0])
    tf1.assign_add(v, [2.0])
    tf1.assign_sub(v, [1.0])
    assert float(v.numpy()[0]) == 4.0
    with pytest.raises(TypeError):
        tf1.assign(tf.constant([1.0]), [2.0])
    init = tf1.global_variables_initializer()
    assert init.run() is None and init.type == "NoOp"
    tf1.variables_initializer([v]).run()
    tf1.local_variables_initializer()


names = st.lists(st.sampled_from(["a", "b", "layer"]), min_size=1, max_size=4)


@given(names)
def test_law_scope_name_is_path_and_auto_reuse_is_idempotent(path):
    tf1.reset_default_graph()

    def build():
        scopes = [tf1.variable_scope(p, reuse=tf1.AUTO_REUSE) for p in path]
        for s in scopes:
            s.__enter__()
        try:
            return tf1.get_variable("w", [1]), tf1.get_variable_scope().name
        finally:
            for s in reversed(scopes):
                s.__exit__(None, None, None)

    first, name = build()
    again, _ = build()
    assert name == "/".join(path)
    assert first is again and first.name == name + "/w:0"
    assert tf1.get_variable_scope().name == ""


@given(st.integers(1, 5))
def test_law_default_names_count_up(n):
    tf1.reset_default_graph()
    got = []
    for _ in range(n):
        with tf1.variable_scope(None, default_name="blk") as s:
            got.append(s.name)
    assert got == ["blk"] + [f"blk_{i}" for i in range(1, n)]


def test_variable_scopes_are_per_thread_and_store_is_shared():
    import threading
    seen = {}

    def worker():
        seen["scope"] = tf1.get_variable_scope().name
        with tf1.variable_scope("t", reuse=True):
            seen["same"] = tf1.get_variable("w")

    with tf1.variable_scope("t"):
        w = tf1.get_variable("w", [1])
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen["scope"] == "" and seen["same"] is w


@given(st.integers(1, 4))
def test_law_custom_getters_nest_innermost_first(depth):
    tf1.reset_default_graph()
    order = []

    def make(i):
        def getter(getter, name, *args, **kwargs):
            order.append(i)
            return getter(name, *args, **kwargs)
        return getter

    scopes = [tf1.variable_scope(f"s{i}", custom_getter=make(i)) for i in range(depth)]
    for s in scopes:
        s.__enter__()
    try:
        v = tf1.get_variable("w", [1])
    finally:
        for s in reversed(scopes):
            s.__exit__(None, None, None)
    assert order == list(reversed(range(depth)))
    assert v.name == "/".join(f"s{i}" for i in range(depth)) + "/w:0"


def test_v1_names_resolve_to_the_porting_kit():
    cm = tf1.variable_scope("x")
    assert isinstance(cm, tf1.variable_scope) and not isinstance(3, tf1.variable_scope)
    from tfcompat.compat.v1 import variable_scopes
    assert tf1.get_variable is variable_scopes.get_variable
    assert tf1.variable_scope is variable_scopes.variable_scope
    assert tf1.AUTO_REUSE is variable_scopes.AUTO_REUSE
    assert tf1.no_regularizer(object()) is None
    with tf1.variable_op_scope([], "op", default_name="x") as s:
        assert s.name == "op"


def test_capture_variable_scope_carries_the_scope_into_a_thread():
    import threading
    from tfcompat.compat.v1.variable_scopes import capture_variable_scope
    seen = {}

    with tf1.variable_scope("outer", reuse=tf1.AUTO_REUSE):
        enter = capture_variable_scope()

        def worker():
            with enter():
                seen["name"] = tf1.get_variable("w", [1]).name
            seen["after"] = tf1.get_variable_scope().name

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == {"name": "outer/w:0", "after": ""}
