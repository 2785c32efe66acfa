"""`tf.variable_creator_scope`: the seam every `tf.Variable(...)` call goes through.

Expected behaviour recorded from TensorFlow 2.21 (eager).
"""

import threading

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.variables import ResourceVariable
from tfcompat.variables.creator import creator_stack, get_creator_stack

TF2_KEYS = ("initial_value", "trainable", "validate_shape", "caching_device", "name",
            "variable_def", "dtype", "import_scope", "constraint", "synchronization",
            "aggregation", "shape", "experimental_enable_variable_lifting")


def recording(log, tag=None):
    def creator(next_creator, **kwargs):
        log.append((tag, dict(kwargs)))
        return next_creator(**kwargs)
    return creator


def test_a_creator_receives_all_tf2_keys():
    log = []
    with tf.variable_creator_scope(recording(log)):
        v = tf.Variable(1.0)
    assert isinstance(v, ResourceVariable)
    (_, kwargs), = log
    assert sorted(kwargs) == sorted(TF2_KEYS)


def test_default_values_a_creator_sees():
    log = []
    with tf.variable_creator_scope(recording(log)):
        tf.Variable(1.0)
    kwargs = log[0][1]
    assert kwargs == {
        "initial_value": 1.0, "trainable": None, "validate_shape": True,
        "caching_device": None, "name": None, "variable_def": None, "dtype": None,
        "import_scope": None, "constraint": None,
        "synchronization": tf.VariableSynchronization.AUTO,
        "aggregation": tf.VariableAggregation.NONE, "shape": None,
        "experimental_enable_variable_lifting": None,
    }


def test_positional_arguments_reach_the_creator_by_name():
    log = []
    with tf.variable_creator_scope(recording(log)):
        tf.Variable(1.0, False, True, None, "nm")
    kwargs = log[0][1]
    assert (kwargs["trainable"], kwargs["validate_shape"], kwargs["name"]) == (False, True, "nm")


def test_innermost_creator_runs_first_and_rewrites_flow_outward():
    order = []

    def appender(tag):
        def creator(next_creator, **kwargs):
            order.append(tag)
            kwargs["name"] = (kwargs["name"] or "") + tag
            return next_creator(**kwargs)
        return creator

    with tf.variable_creator_scope(appender("a")):
        with tf.variable_creator_scope(appender("b")):
            v = tf.Variable(1.0)
        w = tf.Variable(1.0)
    assert order == ["b", "a", "a"]
    assert v.name == "ba:0" and w.name == "a:0"


def test_a_creator_may_return_anything_and_skip_the_rest():
    inner_calls = []
    with tf.variable_creator_scope(recording(inner_calls)):
        with tf.variable_creator_scope(lambda next_creator, **kwargs: 42):
            assert tf.Variable(1.0) == 42
    assert inner_calls == []


def test_a_creator_may_build_its_own_variable_or_call_next_twice():
    def twice(next_creator, **kwargs):
        return (next_creator(**kwargs), next_creator(**kwargs))

    with tf.variable_creator_scope(twice):
        a, b = tf.Variable([1.0])
    a.assign([5.0])
    assert float(b[0]) == 1.0

    def own(next_creator, **kwargs):
        kwargs["dtype"] = tf.float64
        return ResourceVariable(**kwargs)

    with tf.variable_creator_scope(own):
        assert tf.Variable(1.0).dtype == tf.float64


def test_kwargs_rewritten_by_a_creator_reach_the_variable():
    def creator(next_creator, **kwargs):
        kwargs.update(trainable=False, dtype=tf.float64, name="renamed",
                      initial_value=np.array([3.0]))
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        v = tf.Variable([1.0, 2.0], name="orig")
    assert (v.trainable, v.dtype, v.name) == (False, tf.float64, "renamed:0")
    np.testing.assert_array_equal(v.numpy(), [3.0])


def test_an_exception_leaves_the_stack_as_it_was():
    before = get_creator_stack()

    def boom(next_creator, **kwargs):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        with tf.variable_creator_scope(boom):
            tf.Variable(1.0)
    assert get_creator_stack() == before
    assert isinstance(tf.Variable(2.0), ResourceVariable)

    with pytest.raises(ZeroDivisionError):
        with tf.variable_creator_scope(lambda n, **k: 42):
            1 / 0
    assert get_creator_stack() == before


def test_scopes_unwind_in_order():
    log = []
    a, b = recording(log, "a"), recording(log, "b")
    with tf.variable_creator_scope(a):
        with tf.variable_creator_scope(b):
            assert get_creator_stack()[-2:] == (a, b)
        assert get_creator_stack()[-1] is a
        tf.Variable(1.0)
    assert [tag for tag, _ in log] == ["a"]


def test_a_scope_in_one_thread_does_not_reach_another():
    results = {}

    def worker():
        results["worker"] = tf.Variable(1.0)

    with tf.variable_creator_scope(lambda next_creator, **kwargs: "from-main"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        results["main"] = tf.Variable(1.0)
    assert isinstance(results["worker"], ResourceVariable)
    assert results["main"] == "from-main"


def test_a_scope_entered_in_a_worker_does_not_leak_to_main():
    entered, release = threading.Event(), threading.Event()

    def worker():
        with tf.variable_creator_scope(lambda next_creator, **kwargs: "from-worker"):
            entered.set()
            release.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert entered.wait(10)
        assert isinstance(tf.Variable(1.0), ResourceVariable)
    finally:
        release.set()
        t.join()


def test_a_replica_thread_can_adopt_the_callers_stack():
    # what a strategy that runs replicas in threads does
    log = []
    with tf.variable_creator_scope(recording(log, "main")):
        stack = get_creator_stack()
    out = []

    def replica():
        with creator_stack(stack):
            out.append(tf.Variable(1.0))
        out.append(tf.Variable(2.0))

    t = threading.Thread(target=replica)
    t.start()
    t.join()
    assert [tag for tag, _ in log] == ["main"]
    assert all(isinstance(v, ResourceVariable) for v in out)


def test_instantiating_resource_variable_bypasses_the_creators():
    log = []
    with tf.variable_creator_scope(recording(log)):
        v = ResourceVariable(1.0)
        with tf.variable_creator_scope(lambda next_creator, **kwargs: 42):
            w = ResourceVariable(2.0)
    assert log == [] and float(v) == 1.0 and float(w) == 2.0


@given(suffixes=st.lists(st.text("abcxyz", min_size=1, max_size=3), max_size=6),
       base=st.sampled_from([None, "v", "w"]))
def test_composed_creators_apply_rewrites_innermost_first(suffixes, base):
    def appending(suffix):
        def creator(next_creator, **kwargs):
            kwargs["name"] = (kwargs["name"] or "Variable") + "_" + suffix
            return next_creator(**kwargs)
        return creator

    scopes = [tf.variable_creator_scope(appending(s)) for s in suffixes]
    for scope in scopes:  # outermost first
        scope.__enter__()
    try:
        v = tf.Variable(1.0, name=base)
    finally:
        for scope in reversed(scopes):
            scope.__exit__(None, None, None)
    expected = base or "Variable"
    for s in reversed(suffixes):  # the innermost scope rewrites first
        expected += "_" + s
    assert v.name == expected + ":0"
