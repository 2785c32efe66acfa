"""`tf.GradientTape` with variables and tensors, as TF 2.21 eager.

Expected values were recorded from TensorFlow 2.21.
"""

import gc
import threading

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.testing import strategies as tfst


def np_of(x):
    return tf.convert_to_tensor(x).detach().numpy()


# -- persistence ----------------------------------------------------------------

def test_a_non_persistent_tape_computes_gradients_once():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, v)
    with pytest.raises(RuntimeError):
        tape.jacobian(y, v)


def test_a_persistent_tape_computes_gradients_repeatedly():
    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
        z = v * 3.0
    assert float(tape.gradient(y, v)) == 4.0
    assert float(tape.gradient(y, v)) == 4.0
    assert float(tape.gradient(z, v)) == 3.0
    np.testing.assert_array_equal(np_of(tape.jacobian(y, v)), 4.0)


def test_gradient_inside_a_non_persistent_tape_stops_its_recording():
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = v * 2.0
        g = tape.gradient(y, v)
        z = v * 3.0
    assert float(g) == 2.0
    assert [w.ref() for w in tape.watched_variables()] == [v.ref()]
    del z


def test_a_persistent_tape_can_be_reentered():
    v = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        v * 2.0
    with tape:
        z = v * 5.0
    assert float(tape.gradient(z, v)) == 5.0


def test_reentering_an_active_tape_is_an_error():
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="still recording"):
            tape.__enter__()


# -- watching ---------------------------------------------------------------------

def test_watch_accessed_variables_false():
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    assert tape.watched_variables() == ()
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0


def test_watching_tensors():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(np_of(tape.gradient(y, x)), [2.0, 4.0])
    c = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = c * c
    assert tape.gradient(y, c) is None


def test_watch_takes_nested_structures_and_rejects_python_numbers():
    x, y = tf.constant(1.0), tf.constant(2.0)
    v = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch({"a": [x, (y, v)]})
        z = x * y * v
    gx, gy, gv = tape.gradient(z, [x, y, v])
    assert (float(gx), float(gy), float(gv)) == (6.0, 3.0, 2.0)
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch(3.0)


def test_integer_tensors_and_variables_get_no_gradient():
    i = tf.Variable(3)
    t = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(i)
        tape.watch(t)
        y = i * 2
        z = t * 2
    assert tape.gradient(y, i) is None


def test_non_trainable_variables_are_unwatched_unless_watched():
    u = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = u * u
    assert tape.gradient(y, u) is None
    with tf.GradientTape() as tape:
        tape.watch(u)
        y = u * u
    assert float(tape.gradient(y, u)) == 6.0


def test_watched_variables_in_construction_order():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = b * a * c
    assert [v.ref() for v in tape.watched_variables()] == [a.ref(), b.ref(), c.ref()]


# -- structure and options ----------------------------------------------------------

def test_nested_sources_keep_their_structure():
    x = tf.constant([1.0, 2.0])
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * w
    g = tape.gradient(y, {"a": x, "b": [w, (w,)]})
    assert set(g) == {"a", "b"} and isinstance(g["b"], list) and isinstance(g["b"][1], tuple)
    np.testing.assert_array_equal(np_of(g["a"]), [3.0, 3.0])
    assert float(g["b"][0]) == 3.0 and float(g["b"][1][0]) == 3.0


def test_several_targets_add_up():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y1 = w * 2.0
        y2 = w * w
    assert float(tape.gradient([y1, y2], w)) == 8.0


def test_output_gradients_weight_the_target():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(
        np_of(tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))), [20.0, 400.0])
    np.testing.assert_array_equal(np_of(tape.gradient(y, x, output_gradients=[3.0, 4.0])),
                                  [6.0, 16.0])


def test_unconnected_gradients():
    w, u = tf.Variable(3.0), tf.Variable(1.0)
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = w * 2.0
    gw, gu = tape.gradient(y, [w, u])
    assert float(gw) == 2.0 and gu is None
    assert tape.gradient(y, x) is None
    gw, gu = tape.gradient(y, [w, u], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(gu) == 0.0
    assert float(tape.gradient(y, u, unconnected_gradients="zero")) == 0.0
    assert float(tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)) == 0.0


def test_the_gradient_of_a_variable_with_respect_to_itself_is_one():
    w = tf.Variable([3.0, 4.0])
    with tf.GradientTape() as tape:
        w * 2.0
    np.testing.assert_array_equal(np_of(tape.gradient(w, w)), [1.0, 1.0])


def test_gradient_through_a_read_and_an_assign_result():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = w.read_value()
    assert float(tape.gradient(y, w)) == 1.0
    with tf.GradientTape() as tape:
        y = w.assign(5.0) * 2.0
    assert float(tape.gradient(y, w)) == 2.0


def test_float16_gradients_keep_their_dtype():
    w = tf.Variable(np.float16(3.0))
    with tf.GradientTape() as tape:
        y = w * w
    g = tape.gradient(y, w)
    assert g.dtype == torch.float16 and float(g) == 6.0


def test_slicing_gradients():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = w[::-1, 1] * tf.constant([1.0, 10.0])
    np.testing.assert_array_equal(np_of(tape.gradient(y, w)), [[0.0, 10.0], [0.0, 1.0]])


# -- jacobians --------------------------------------------------------------------

def test_jacobian():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(np_of(tape.jacobian(y, x)), [[2.0, 0.0], [0.0, 4.0]])
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = w * w
    np.testing.assert_array_equal(np_of(tape.jacobian(y, w)), [[2.0, 0.0], [0.0, 4.0]])


def test_jacobian_of_unconnected_sources():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.constant(3.0) * 2.0
    assert tape.jacobian(y, x) is None
    np.testing.assert_array_equal(np_of(tape.jacobian(y, x, unconnected_gradients="zero")),
                                  [0.0, 0.0])


def test_batch_jacobian():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(np_of(tape.batch_jacobian(y, x)),
                                  [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]])


@given(st.data())
def test_jacobian_of_a_linear_map_is_the_matrix(data):
    n, m = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    a = data.draw(tfst.arrays(np.float64, (n, m)))
    x = data.draw(tfst.arrays(np.float64, (m,)))
    w = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = torch.matmul(tf.constant(a), torch.reshape(w, (m, 1)))
    np.testing.assert_allclose(np_of(tape.jacobian(y, w)).reshape(n, m), a)


def test_jacobian_of_sparse_and_mixed_reads_is_dense():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape(persistent=True) as tape:
        rows = tf.gather(w, [2, 0, 2]) * 2.0
        mixed = rows + w[1:2] * w[1:2]
    jac = tape.jacobian(rows, w)
    assert isinstance(jac, torch.Tensor) and tuple(jac.shape) == (3, 2, 3, 2)
    expected = torch.autograd.functional.jacobian(lambda m: m[[2, 0, 2]] * 2.0, w.value())
    assert torch.equal(jac, expected)
    expected = torch.autograd.functional.jacobian(
        lambda m: m[[2, 0, 2]] * 2.0 + m[1:2] * m[1:2], w.value())
    assert torch.equal(tape.jacobian(mixed, w), expected)
    batch = tape.batch_jacobian(rows, w)  # example i of rows reads row [2, 0, 2][i] of w
    assert tuple(batch.shape) == (3, 2, 2)


def test_jacobian_is_one_vectorized_backward_pass():
    calls = []

    class Counting(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            calls.append(grad.shape)
            return grad

    v = tf.Variable(torch.arange(6.0))
    with tf.GradientTape() as tape:
        y = Counting.apply(v * v)
    np.testing.assert_array_equal(np_of(tape.jacobian(y, v)), np.diag(2.0 * np.arange(6.0)))
    assert len(calls) == 1


def test_jacobian_falls_back_to_a_pass_per_element_when_torch_cannot_batch():
    class Unbatchable(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, grad):
            grad.sum().item()  # data-dependent: vmap refuses it
            return grad * 2.0

    v = tf.Variable([1.0, 2.0, 3.0])
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = Unbatchable.apply(v * v)
        z = Unbatchable.apply(x * x)
    np.testing.assert_array_equal(np_of(tape.jacobian(y, v)), np.diag([4.0, 8.0, 12.0]))
    np.testing.assert_array_equal(np_of(tape.batch_jacobian(z, x)),
                                  [[[4.0, 0.0], [0.0, 8.0]], [[12.0, 0.0], [0.0, 16.0]]])


def test_jacobian_of_an_empty_target():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        y = v[:0] * 2.0
    assert tape.jacobian(y, v) is None
    assert tuple(tape.jacobian(y, v, unconnected_gradients="zero").shape) == (0, 2)


def test_jacobian_inside_an_outer_tape_is_differentiable():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = v * v * v
        jac = inner.jacobian(y, v)
        total = torch.sum(jac)
    np.testing.assert_array_equal(np_of(jac), np.diag([3.0, 12.0, 27.0]))
    np.testing.assert_array_equal(np_of(outer.gradient(total, v)), [6.0, 12.0, 18.0])


# -- recording control ----------------------------------------------------------------

def test_stop_recording():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = w * w
        with tape.stop_recording():
            z = w * w
        y = y + z
    assert float(tape.gradient(y, w)) == 6.0
    tape = tf.GradientTape()
    with tape:
        pass
    with pytest.raises(ValueError, match="not recording"):
        with tape.stop_recording():
            pass


def test_reset():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = w * w
        tape.reset()
        y2 = w * 2.0
    assert float(tape.gradient(y2, w)) == 2.0
    del y


def test_nested_tapes_give_second_derivatives():
    w = tf.Variable(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = w * w * w
        g = inner.gradient(y, w)
    assert float(g.detach()) == 27.0
    assert float(outer.gradient(g, w)) == 18.0
    x = tf.constant(2.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            y = x * x * x
        dy = t2.gradient(y, x)
    assert float(dy.detach()) == 12.0 and float(t1.gradient(dy, x)) == 12.0


def test_stop_gradient():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(w) * w
    assert float(tape.gradient(y, w)) == 3.0


# -- variables that change ---------------------------------------------------------

def test_a_read_between_two_assigns_contributes_its_own_gradient():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        a = v * 3.0
        v.assign(5.0)
        b = v * v
        y = a + b
    assert float(tape.gradient(y, v)) == 13.0


def test_reads_before_the_tape_started_do_not_count():
    v = tf.Variable(2.0)
    early = v * 3.0
    with tf.GradientTape() as tape:
        y = early + v * v
    assert float(tape.gradient(y, v)) == 4.0


# -- sparse gradients ----------------------------------------------------------------

def test_sparse_read_gradients_are_indexed_slices_with_duplicates_kept():
    w = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = torch.sum(w.sparse_read([0, 2, 0]) * tf.constant([1.0, 2.0, 3.0]))
    g = tape.gradient(y, w)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.values.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 0])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [3])
    assert g.dense_shape.dtype == torch.int32
    np.testing.assert_array_equal(np_of(g), [4.0, 0.0, 2.0])


def test_sparse_gradients_of_nd_indices_and_several_reads():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = torch.sum(w.sparse_read([[1, 0]]))
    g = tape.gradient(y, w)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.values.numpy(), [[1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_array_equal(g.indices.numpy(), [1, 0])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [2, 2])
    u = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = torch.sum(u.sparse_read([0])) + torch.sum(u.sparse_read([2, 2]))
    g = tape.gradient(y, u)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 2])
    np.testing.assert_array_equal(g.values.numpy(), [1.0, 1.0, 1.0])


def test_sparse_and_dense_reads_give_a_dense_gradient():
    w = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = torch.sum(w.sparse_read([0, 2])) + torch.sum(w * w)
    g = tape.gradient(y, w)
    assert isinstance(g, torch.Tensor)
    np.testing.assert_array_equal(g.numpy(), [3.0, 4.0, 7.0])


def test_sparse_gradient_with_unconnected_zero_stays_sparse():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = torch.sum(w.sparse_read([1]) * 2.0)
    assert isinstance(tape.gradient(y, w, unconnected_gradients="zero"), tf.IndexedSlices)


def test_gather_nd_of_rows_gives_indexed_slices():
    # TF: ResourceGatherNd's gradient is IndexedSlices when indices are [n, 1]
    w = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = torch.sum(w.gather_nd([[0], [0]]))
    g = tape.gradient(y, w)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 0])
    np.testing.assert_array_equal(g.values.numpy(), [1.0, 1.0])
    m = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = torch.sum(m.gather_nd([[0, 1], [1, 1]]))
    np.testing.assert_array_equal(np_of(tape.gradient(y, m)), [[0.0, 1.0], [0.0, 1.0]])


# -- threads -------------------------------------------------------------------------

def test_tapes_are_thread_local():
    w = tf.Variable(3.0)
    out = {}
    with tf.GradientTape() as tape:
        t = threading.Thread(target=lambda: out.setdefault("y", w * w))
        t.start()
        t.join()
        w * 2.0
    assert tape.gradient(out["y"], w) is None
    assert [v.ref() for v in tape.watched_variables()] == [w.ref()]


def test_a_tape_in_another_thread_does_not_record_here():
    w = tf.Variable(3.0)
    entered, release = threading.Event(), threading.Event()

    def other():
        with tf.GradientTape():
            entered.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert entered.wait(10)
        r = w.read_value()
        assert not r.requires_grad and r.grad_fn is None
    finally:
        release.set()
        t.join()


# -- no graph outside tapes ----------------------------------------------------------

@pytest.mark.parametrize("read", ["read_value", "value", "convert", "operator", "slice",
                                  "sparse_read", "torch"])
def test_reading_outside_a_tape_builds_no_graph(read):
    v = tf.Variable(np.ones((3, 2), np.float32))
    r = {"read_value": lambda: v.read_value(), "value": lambda: v.value(),
         "convert": lambda: tf.convert_to_tensor(v), "operator": lambda: v * 2.0,
         "slice": lambda: v[1:], "sparse_read": lambda: v.sparse_read([0, 0]),
         "torch": lambda: torch.sin(v)}[read]()
    assert not r.requires_grad and r.grad_fn is None


def test_after_a_tape_reads_are_plain_again():
    v = tf.Variable(np.ones(3, np.float32))
    with tf.GradientTape() as tape:
        inside = v.read_value()
    assert inside.requires_grad
    tape.gradient(torch.sum(inside), v)
    after = v.read_value()
    assert not after.requires_grad and after.grad_fn is None


def test_many_reads_outside_a_tape_keep_no_graph_alive():
    v = tf.Variable(np.ones(16, np.float32))
    acc = torch.zeros(16)
    for _ in range(10_000):
        r = v.read_value()
        acc = acc + r
    assert not acc.requires_grad and acc.grad_fn is None
    assert not r.requires_grad
    gc.collect()
    ptr = v.handle.data_ptr()
    del r
    v.assign_add(np.ones(16, np.float32))
    assert v.handle.data_ptr() == ptr  # nothing (no graph) still holds a read


# -- graphs shared between tapes --------------------------------------------------------

def test_an_idle_persistent_tape_does_not_keep_other_tapes_graphs_alive():
    # Only a tape that recorded at the same time may share this tape's graph: an old
    # persistent tape still referenced must not make later gradients retain theirs (the
    # saved reads would then make the optimizer's next write copy the variable).
    v = tf.Variable(np.ones(8, np.float32))
    with tf.GradientTape(persistent=True) as old:
        old_y = torch.sum(v * 2.0)
    with tf.GradientTape() as tape:
        y = torch.sum(v * v)  # saves its reads of v for backward
    g = tape.gradient(y, v)
    gc.collect()
    ptr = v.handle.data_ptr()
    v.assign_sub(g * 0.5)
    assert v.handle.data_ptr() == ptr  # backward freed the saved reads: updated in place
    np.testing.assert_array_equal(v.numpy(), np.zeros(8, np.float32))
    np.testing.assert_array_equal(np_of(old.gradient(old_y, v)), np.full(8, 2.0, np.float32))
    del y


def test_tapes_recording_together_each_get_their_gradients():
    w = tf.Variable(3.0)
    with tf.GradientTape() as t1:
        with tf.GradientTape() as t2:
            y = w * w
    assert float(t2.gradient(y, w)) == 6.0
    assert float(t1.gradient(y, w)) == 6.0
    with tf.GradientTape(persistent=True) as p:
        with tf.GradientTape() as q:
            z = w * w * w
    assert float(q.gradient(z, w)) == 27.0
    assert float(p.gradient(z, w)) == 27.0
    assert float(p.gradient(z, w)) == 27.0
    # Overlapping without nesting: entered one after the other, left in the same order.
    a, b = tf.GradientTape(), tf.GradientTape()
    a.__enter__()
    u = w * 2.0
    b.__enter__()
    s = u * w
    a.__exit__(None, None, None)
    b.__exit__(None, None, None)
    assert float(b.gradient(s, w)) == 6.0
    assert float(a.gradient(s, w)) == 12.0
