"""Reads under a tape: one gradient anchor per variable storage, each read differentiated at
its own autograd node.

A read under a tape is a copy-on-write clone of the variable's anchor (a `requires_grad`
alias of its live tensor, kept across tapes and steps); a tape differentiates at the nodes of
the reads it recorded, never at the anchor. These tests pin what that must keep: the anchor
follows every write (it aliases the storage, and a write that gives new storage gives a new
anchor), reads of other tapes or of none share the anchor without leaking into a tape's
gradient, a read written in place still gives the variable's gradient, and nothing a user
holds changes behind their back.
"""

import gc

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.framework import device as device_lib


def np_of(x):
    return tf.convert_to_tensor(x).detach().numpy()


# -- every write is seen by the next read under a tape ---------------------------------------

def _assign(v):
    v.assign([5.0, 6.0, 7.0])


def _assign_add(v):
    v.assign_add([1.0, 1.0, 1.0])


def _assign_sub(v):
    v.assign_sub([1.0, 1.0, 1.0])


def _scatter_update(v):
    v.scatter_update(tf.IndexedSlices(tf.constant([9.0]), tf.constant([1])))


def _scatter_add(v):
    v.scatter_add(tf.IndexedSlices(tf.constant([9.0]), tf.constant([1])))


def _scatter_nd_update(v):
    v.scatter_nd_update([[2]], [4.0])


def _slice_assign(v):
    v[0:2].assign([8.0, 8.0])


def _sgd_step(v):
    tf.keras.optimizers.SGD(0.5, momentum=0.9).apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])


def _adam_step(v):
    tf.keras.optimizers.Adam(0.5).apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])


def _handle_write(v):
    v.handle.mul_(3.0)


def _restore(v, tmp_path):
    saved = tf.Variable([4.0, -4.0, 0.5])
    path = tf.train.Checkpoint(v=saved).write(str(tmp_path / "ckpt"))
    tf.train.Checkpoint(v=v).read(path).assert_consumed()


WRITES = {f.__name__.lstrip("_"): f for f in (
    _assign, _assign_add, _assign_sub, _scatter_update, _scatter_add, _scatter_nd_update,
    _slice_assign, _sgd_step, _adam_step, _handle_write, _restore)}


def _write(name, v, tmp_path):
    if name == "restore":
        _restore(v, tmp_path)
    else:
        WRITES[name](v)


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("inside", [False, True], ids=["between_tapes", "inside_the_tape"])
def test_a_read_under_a_tape_sees_every_write(write, inside, tmp_path):
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as first:
        before = v.read_value()
        y = tf.reduce_sum(v * 2.0)
    assert np_of(first.gradient(y, v)).tolist() == [2.0, 2.0, 2.0]
    kept = before.detach().numpy().copy()
    if inside:
        with tf.GradientTape() as tape:
            a = tf.reduce_sum(v * 3.0)
            _write(write, v, tmp_path)
            expected = v.numpy()
            after = v.read_value()
            b = tf.reduce_sum(after * after)
        grad = tape.gradient(a + b, v)
        np.testing.assert_array_equal(np_of(grad), 3.0 + 2.0 * expected)
    else:
        _write(write, v, tmp_path)
        expected = v.numpy()
        with tf.GradientTape() as tape:
            after = v.read_value()
            b = tf.reduce_sum(after * after)
        np.testing.assert_array_equal(np_of(tape.gradient(b, v)), 2.0 * expected)
    assert not np.array_equal(expected, kept)  # (the write changed the value)
    np.testing.assert_array_equal(after.detach().numpy(), expected)
    np.testing.assert_array_equal(before.detach().numpy(), kept)  # earlier reads never change


def test_an_assign_of_a_new_shape_gives_the_next_reads_a_new_anchor():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    with tf.GradientTape() as tape:
        old = v.read_value()
        y = tf.reduce_sum(old * 2.0)
    tape.gradient(y, v)
    v.assign([1.0, 2.0, 3.0, 4.0])  # new storage
    with tf.GradientTape() as tape:
        r = v.read_value()
        y = tf.reduce_sum(r * r)
    np.testing.assert_array_equal(np_of(tape.gradient(y, v)), [2.0, 4.0, 6.0, 8.0])
    np.testing.assert_array_equal(old.detach().numpy(), [1.0, 2.0])


def test_a_distributed_update_is_seen_by_the_next_reads_of_each_component():
    device_lib._reset_runtime()
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            v = tf.Variable([1.0, 2.0])
            opt = tf.keras.optimizers.SGD(0.5)

        def step():
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(v * v)
            grad = tape.gradient(y, v)
            opt.apply_gradients([(grad, v)])
            return grad

        grads = [strategy.experimental_local_results(strategy.run(step)) for _ in range(2)]
        # 2 replicas, each gradient 2v, summed: v <- v - 0.5 * 4v = -v
        np.testing.assert_array_equal(np_of(grads[0][0]), [2.0, 4.0])
        np.testing.assert_array_equal(np_of(grads[1][1]), [-2.0, -4.0])
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    finally:
        device_lib._reset_runtime()


# -- a tape's gradient is its own reads' ---------------------------------------------------

def test_reads_of_an_earlier_tape_whose_graph_is_alive_do_not_leak_into_a_later_tape():
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as old:
        a = v * 3.0   # shares v's anchor with the reads below, and stays differentiable
    with tf.GradientTape() as tape:
        b = v * 5.0
    assert float(tape.gradient(a + b, v)) == 5.0
    assert float(old.gradient(a + b, v)) == 3.0


def test_reads_while_paused_and_before_the_tape_do_not_count():
    v = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        before = v * 7.0
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                paused = v * 11.0
            y = v * v
        total = before + paused + y
    assert float(tape.gradient(total, v)) == 4.0
    assert float(outer.gradient(total, v)) == 7.0 + 11.0 + 4.0


def test_a_read_written_in_place_differentiates_as_the_read():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        x = v.read_value()
        x *= 2.0          # in place: the read's value is now 2v
        x += 1.0          # and 2v + 1
        y = tf.reduce_sum(x * x)
    np.testing.assert_array_equal(np_of(tape.gradient(y, v)), [12.0, 20.0, 28.0])  # 8v + 4


def test_a_read_detached_in_place_keeps_what_was_computed_from_it():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        x = v.read_value()
        y = tf.reduce_sum(x * 3.0)
        x.detach_()
        z = tf.reduce_sum(x * 100.0)  # not differentiable any more
    np.testing.assert_array_equal(np_of(tape.gradient(y + z, v)), [3.0, 3.0])


def test_a_read_that_is_also_a_source_gets_the_same_gradient():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        r = v.read_value()
        y = tf.reduce_sum(r * r)
    gv, gr = tape.gradient(y, [v, r])
    np.testing.assert_array_equal(np_of(gv), [2.0, 4.0])
    np.testing.assert_array_equal(np_of(gr), [2.0, 4.0])


def test_a_read_that_is_the_target_has_gradient_one():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        r = v.read_value()
    np.testing.assert_array_equal(np_of(tape.gradient(r, v)), [1.0, 1.0])


@settings(max_examples=30, deadline=None)
@given(reads=st.integers(1, 4), outer_reads=st.integers(0, 3), persistent=st.booleans(),
       scale=st.floats(-4, 4, allow_nan=False).filter(lambda s: s != 0))
def test_nested_tapes_sum_exactly_their_own_reads(reads, outer_reads, persistent, scale):
    v = tf.Variable(1.5)
    with tf.GradientTape(persistent=persistent) as outer:
        y_outer = sum(v * scale for _ in range(outer_reads)) if outer_reads else tf.constant(0.0)
        with tf.GradientTape(persistent=persistent) as inner:
            y_inner = sum(v * v for _ in range(reads))
        total = y_outer + y_inner
    np.testing.assert_allclose(float(inner.gradient(total, v)), reads * 3.0, rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(total, v)), outer_reads * scale + reads * 3.0,
                               rtol=1e-6)


def test_second_derivatives_through_reads():
    w = tf.Variable(2.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = w * w * w
        g1 = t1.gradient(y, w)
    assert float(g1.detach()) == 12.0
    assert float(t2.gradient(g1, w)) == 12.0


def test_jacobian_of_reads():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = v * v
    np.testing.assert_array_equal(np_of(tape.jacobian(y, v)), [[2.0, 0.0], [0.0, 4.0]])


# -- nothing holds the variable's memory ------------------------------------------------------

@pytest.mark.parametrize("persistent", [False, True])
def test_tapes_do_not_keep_reads_alive(persistent):
    # A tape keeps the reads' autograd nodes, not the reads: a write inside the block, or
    # after it while a persistent tape lives, is in place (no copy of the variable).
    v = tf.Variable(np.ones(8, np.float32))
    with tf.GradientTape(persistent=persistent) as tape:
        y = tf.reduce_sum(v * 2.0)
        gc.collect()
        ptr = v.handle.data_ptr()
        v.assign_add(np.ones(8, np.float32))
        assert v.handle.data_ptr() == ptr
    g = tape.gradient(y, v)
    v.assign_sub(g)
    assert v.handle.data_ptr() == ptr
    np.testing.assert_array_equal(v.numpy(), np.zeros(8, np.float32))


def test_the_anchor_is_never_handed_out():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        a = v.read_value()
        b = v.value()
        c = tf.identity(v)
    tape.gradient(a + b + c, v)
    for r in (a, b, c):
        assert not r.is_leaf  # a clone of the anchor, never the anchor (a leaf) itself
    a.detach().add_(100.0)  # torch's copy-on-write: a write to a read copies the read
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(b.detach().numpy(), [1.0, 2.0])
