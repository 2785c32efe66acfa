"""Which tape sees what: `watch`, `stop_recording` and `tf.init_scope`, as TF 2.21.

TF's values for nested tapes are also golden cases (tests/conformance/programs.py:
`stop_recording_*`, `init_scope_*`, `watch_*`); these tests pin the torch side:
what `watch` does to the user's tensor, threads, and the edge cases around it.
"""

import threading

import numpy as np
import pytest
import torch

import tfcompat as tf


def test_watch_gives_the_tensor_back_when_the_tape_ends():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        assert x.requires_grad
        y = x * x
    assert not x.requires_grad  # the user's tensor is as it was
    assert float(tape.gradient(y, x)) == 4.0
    assert not x.requires_grad
    z = x * 3.0
    assert not z.requires_grad  # later computations build no graph


def test_watching_in_nested_tapes_counts_holders():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = x * x
        assert x.requires_grad  # the outer tape still holds it
    assert not x.requires_grad
    assert float(outer.gradient(y, x)) == 6.0
    assert float(inner.gradient(y, x)) == 6.0


def test_a_tensor_that_already_required_grad_is_left_alone():
    x = torch.tensor(2.0, requires_grad=True)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert x.requires_grad
    assert float(tape.gradient(y, x)) == 4.0


def test_watching_does_not_leak_to_another_threads_tape():
    x = tf.constant(2.0)
    watched = threading.Event()
    done = threading.Event()
    result = {}

    def other():
        watched.wait(5)
        with tf.GradientTape() as tape:
            y = x * x
        result["grad"] = tape.gradient(y, x)
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with tf.GradientTape() as tape:
        tape.watch(x)
        watched.set()
        done.wait(5)
        y = x * x
    t.join(5)
    assert result["grad"] is None
    assert float(tape.gradient(y, x)) == 4.0


def test_stop_recording_pauses_only_its_tape():
    # The case: TF 4.0 for the outer tape (tfcompat used to give None).
    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            with inner.stop_recording():
                y = x * x
        assert inner.gradient(y, x) is None
    assert float(outer.gradient(y, x)) == 4.0


def test_stop_recording_of_the_only_tape_builds_no_graph():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
    assert not y.requires_grad
    assert tape.gradient(y, x) is None


def test_stop_recording_needs_a_recording_tape():
    tape = tf.GradientTape()
    with pytest.raises(ValueError, match="not recording"):
        with tape.stop_recording():
            pass


def test_init_scope_pauses_every_tape_and_builds_no_graph():
    v = tf.Variable(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            with tf.init_scope():
                y = v * v
                assert not torch.is_grad_enabled()
            z = v * 2.0
    assert not y.requires_grad
    assert inner.gradient(z, v) is not None
    assert outer.gradient(y, v) is None


def test_variable_creation_runs_off_the_tape():
    # As TF: the initializer runs in init_scope, so reads inside it are not recorded,
    # and the new variable's value is not connected to what it was computed from.
    v = tf.Variable(2.0)
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        w = tf.Variable(lambda: v * 5.0, name="w")
        u = tf.Variable(x * 4.0, name="u")
    assert [var.name for var in tape.watched_variables()] == []
    assert not w.value().requires_grad and not u.value().requires_grad
    assert float(w.numpy()) == 10.0 and float(u.numpy()) == 12.0


def test_init_scope_is_the_tf_name():
    from tfcompat.autodiff import init_scope
    assert tf.init_scope is init_scope
    with tf.init_scope():
        pass


def test_gradient_inside_a_tape_after_stop_recording_ends():
    v = tf.Variable(np.array([1.0, 2.0], np.float32))
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            a = v * 10.0
        b = v * v
        g = tape.gradient(a + b, v)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])


def test_watching_an_integer_tensor_warns_in_tfs_words(caplog):
    x = tf.constant(10)
    with caplog.at_level("WARNING", logger="tfcompat"):
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
    # TF 2.21 logs exactly this (with its "WARNING:tensorflow:" prefix)
    assert "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32" in caplog.text
    assert g.gradient(y, x) is None
    assert not x.requires_grad
