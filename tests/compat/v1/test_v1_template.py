"""tf.compat.v1.make_template: create once, reuse after; TF 2's EagerTemplate facts
(`v1_varscope_golden.json`), checkpoints, and a failed call changing nothing."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import tfcompat as tf
import v1_varscope_scenarios as scenarios
from test_v1_variable_scope import normalized

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "v1_varscope_golden.json")) as _f:
    GOLDEN = json.load(_f)


@pytest.fixture(autouse=True)
def fresh_graph():
    tf1.reset_default_graph()
    yield
    tf1.reset_default_graph()


@pytest.mark.parametrize("name", ["template_names", "template_new_variable_later",
                                  "template_in_shim"])
def test_template_scenario_matches_tensorflow(name, tmp_path):
    got = scenarios.run(scenarios.EAGER[name], tf, tf1, tf.keras, str(tmp_path))
    assert normalized(got) == normalized(GOLDEN["eager"][name])


def linear(x):
    w = tf1.get_variable("w", [3, 2])
    b = tf1.get_variable("b", [2], initializer=tf.keras.initializers.Zeros())
    return tf.matmul(x, w) + b


def test_second_call_reuses_and_kwargs_are_bound():
    def scaled(x, scale):
        return scale * tf1.get_variable("v", initializer=tf.constant([1.0, 2.0]))

    t = tf1.make_template("scaled", scaled, scale=3.0)
    np.testing.assert_array_equal(t(None).numpy(), [3.0, 6.0])
    assert t(None) is not None and len(t.variables) == 1
    assert t.trainable_variables == t.variables and t.non_trainable_variables == []


def test_failed_later_call_drops_its_variables():
    calls = [0]

    def grows(x):
        calls[0] += 1
        return x * tf1.get_variable(f"v{calls[0]}", [1])

    t = tf1.make_template("g", grows)
    t(1.0)
    with pytest.raises(ValueError, match="Trainable variable created when calling a template"):
        t(1.0)
    assert [v.name for v in t.variables] == ["g/v1:0"]
    assert [v.name for v in tf1.trainable_variables()] == ["g/v1:0"]


def test_failed_first_call_can_be_retried():
    fail = [True]

    def flaky(x):
        v = tf1.get_variable("v", [1])
        if fail[0]:
            raise RuntimeError("first call fails")
        return x * v

    t = tf1.make_template("flaky", flaky)
    with pytest.raises(RuntimeError, match="originally defined at"):
        t(1.0)
    fail[0] = False
    t(1.0)
    assert [v.name for v in t.variables] == ["flaky/v:0"]


def test_template_trains_with_gradient_tape():
    t = tf1.make_template("lin", linear)
    x = tf.ones([4, 3])
    t(x)
    opt = tf.keras.optimizers.SGD(0.1)
    before = [v.numpy().copy() for v in t.trainable_variables]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(t(x) ** 2)
    grads = tape.gradient(loss, t.trainable_variables)
    opt.apply_gradients(zip(grads, t.trainable_variables))
    assert all(not np.array_equal(b, v.numpy()) for b, v in zip(before, t.trainable_variables))


def test_checkpoint_round_trip_and_restore_on_create(tmp_path):
    t = tf1.make_template("lin", linear)
    x = tf.ones([1, 3])
    out = t(x).numpy()
    path = tf.train.Checkpoint(t=t).save(str(tmp_path / "t"))
    assert sorted(k for k, _ in tf.train.list_variables(path)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "t/b/.ATTRIBUTES/VARIABLE_VALUE", "t/w/.ATTRIBUTES/VARIABLE_VALUE"]
    fresh = tf1.make_template("lin", linear)  # (scope lin_1: restored by object path)
    tf.train.Checkpoint(t=fresh).restore(path)
    np.testing.assert_allclose(fresh(x).numpy(), out, rtol=1e-6)
    w = fresh.variables[1]
    w.assign(tf.zeros([3, 2]))
    tf.train.Checkpoint(t=fresh).restore(path)
    np.testing.assert_allclose(fresh(x).numpy(), out, rtol=1e-6)


def test_create_scope_now_and_unique_name():
    t = tf1.make_template("now", linear, create_scope_now_=True)
    assert t.variable_scope_name == "now/" and t.variables == []
    with tf1.variable_scope("elsewhere"):
        t(tf.ones([1, 3]))
    assert [v.name for v in t.variables] == ["now/b:0", "now/w:0"]
    u = tf1.make_template("ignored", linear, unique_name_="exact")
    u(tf.ones([1, 3]))
    assert u.variable_scope.name == "exact"
    with pytest.raises(ValueError, match="name cannot be None"):
        tf1.make_template(None, linear)


def test_custom_getter_applies_inside_template():
    seen = []

    def getter(getter, name, *args, **kwargs):
        seen.append(name)
        return getter(name, *args, **kwargs)

    t = tf1.make_template("cg", linear, custom_getter_=getter)
    t(tf.ones([1, 3]))
    t(tf.ones([1, 3]))
    assert seen[:2] == ["cg/w", "cg/b"]
