"""`tf.function(jit_compile=True)` compiles a pure function of tensors and variables with
`torch.compile` (tfcompat/autodiff/jit.py), and runs everything else eagerly with one warning.

Laws: a compiled call returns what the eager call returns (to float32 rounding: Inductor may
fuse differently), sees every later write of the variables it reads, is differentiable under
the caller's tape, runs no Python of the function after its trace, and raises TF's error for
bad input; a function that is not one pure graph gives the eager results.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import tfcompat as tf

RTOL, ATOL = 1e-6, 1e-6  # float32: a fused kernel may round a few ulps differently


@pytest.fixture
def dense():
    w = tf.Variable(tf.random.stateless_normal([4, 3], seed=[1, 2]), name="w")
    b = tf.Variable([0.5, -1.0, 0.25], name="b")
    return w, b


def _eager(x, w, b):
    return tf.nn.relu(tf.matmul(x, w) + b) * 2.0


def _no_warnings():
    return warnings.catch_warnings(record=True)


def test_compiled_calls_equal_eager_and_run_no_python(dense):
    w, b = dense
    traced = []

    @tf.function(jit_compile=True)
    def f(x):
        traced.append(1)  # a Python side effect: runs when traced, as in TF
        return _eager(x, w, b)

    x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    with _no_warnings() as seen:
        warnings.simplefilter("always")
        for _ in range(4):
            torch.testing.assert_close(f(x), _eager(x, w, b), rtol=RTOL, atol=ATOL)
    assert not [w for w in seen if issubclass(w.category, RuntimeWarning)]
    assert len(traced) == 2  # the eager first call and the trace; none after
    entries = f._target._entries
    assert len(entries) == 1 and all(e.fn is not None for e in entries.values())


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_other_float_dtypes_compile_and_equal_eager(dtype):
    """The law above in float64 and half precision (one rounding per op in the dtype: the
    graph's fused kernel may round a sum differently, within the dtype's ulp)."""
    w = tf.Variable(torch.linspace(-1, 1, 12, dtype=dtype).reshape(4, 3))
    f = tf.function(lambda x: tf.nn.relu(tf.matmul(x, w)) * 2.0, jit_compile=True)
    x = torch.linspace(-1, 1, 8, dtype=dtype).reshape(2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        outs = [f(x) for _ in range(3)]
    want = tf.nn.relu(tf.matmul(x, w)) * 2.0
    assert outs[-1].dtype == dtype
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(outs[-1], want, rtol=4 * eps, atol=4 * eps)
    assert all(e.fn is not None for e in f._target._entries.values())


def test_a_compiled_call_sees_later_writes_of_its_variables(dense):
    w, b = dense
    f = tf.function(lambda x: _eager(x, w, b), jit_compile=True)
    x = tf.ones([2, 4])
    f(x), f(x)
    b.assign([3.0, 2.0, 1.0])
    w.assign_add(tf.ones([4, 3]))
    torch.testing.assert_close(f(x), _eager(x, w, b), rtol=RTOL, atol=ATOL)


def test_gradients_flow_through_the_compiled_function(dense):
    w, b = dense
    f = tf.function(lambda x: tf.reduce_sum(_eager(x, w, b) ** 2), jit_compile=True)
    x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    for _ in range(3):  # eager, traced, compiled
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = f(x)
        got = tape.gradient(loss, [w, b, x])
        with tf.GradientTape() as tape:
            tape.watch(x)
            want_loss = tf.reduce_sum(_eager(x, w, b) ** 2)
        want = tape.gradient(want_loss, [w, b, x])
        torch.testing.assert_close(loss, want_loss, rtol=RTOL, atol=ATOL)
        for g, h in zip(got, want):
            torch.testing.assert_close(g, h, rtol=1e-5, atol=1e-5)
    assert loss.grad_fn is not None


def test_a_compiled_loss_trains_under_the_callers_tape(dense):
    w, b = dense
    w2, b2 = tf.Variable(w), tf.Variable(b)
    x, y = tf.ones([2, 4]), tf.constant([[1.0, 0.0, 2.0], [0.0, 1.0, 0.5]])
    compiled = tf.function(lambda x, y: tf.reduce_mean((_eager(x, w, b) - y) ** 2), jit_compile=True)
    opt, opt2 = tf.keras.optimizers.SGD(0.1), tf.keras.optimizers.SGD(0.1)
    for _ in range(5):
        with tf.GradientTape() as tape:
            loss = compiled(x, y)
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        with tf.GradientTape() as tape:
            loss2 = tf.reduce_mean((_eager(x, w2, b2) - y) ** 2)
        opt2.apply_gradients(zip(tape.gradient(loss2, [w2, b2]), [w2, b2]))
    torch.testing.assert_close(w.numpy(), w2.numpy(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(b.numpy(), b2.numpy(), rtol=1e-5, atol=1e-6)


def test_each_input_signature_is_traced_on_its_own(dense):
    w, b = dense
    f = tf.function(lambda x, scale: _eager(x, w, b) * scale, jit_compile=True)
    for rows in (1, 3, 1, 3, 5):
        for scale in (1.0, 2.0):
            x = tf.ones([rows, 4])
            torch.testing.assert_close(f(x, scale), _eager(x, w, b) * scale, rtol=RTOL, atol=ATOL)
    with pytest.raises(Exception):  # a bad shape is the eager call's error
        f(tf.ones([2, 5]), 1.0)


def test_variables_created_on_the_first_call_then_compiled():
    model = tf.keras.Sequential([tf.keras.layers.Dense(5, activation="tanh"),
                                 tf.keras.layers.Dense(2)])
    f = tf.function(lambda x: model(x), jit_compile=True)
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    first = f(x)  # builds the model
    assert model.built
    for _ in range(3):
        torch.testing.assert_close(f(x), model(x), rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(first, model(x), rtol=RTOL, atol=ATOL)
    assert any(e.fn is not None for e in f._target._entries.values())


def test_a_module_method():
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.k = tf.Variable(3.0)

        @tf.function(jit_compile=True)
        def __call__(self, x):
            return x * self.k

    a, b = Scale(), Scale()
    b.k.assign(5.0)
    x = tf.constant([1.0, 2.0])
    for _ in range(3):
        assert a(x).tolist() == [3.0, 6.0]
        assert b(x).tolist() == [5.0, 10.0]


def test_bad_indices_raise_tfs_error_on_a_compiled_call():
    f = tf.function(lambda p, i: tf.gather(p, i) * 2.0, jit_compile=True)
    p = tf.constant([1.0, 2.0, 3.0])
    for _ in range(3):
        assert f(p, tf.constant([2, 0])).tolist() == [6.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(p, tf.constant([3, 0]))
    assert f(p, tf.constant([1, 1])).tolist() == [4.0, 4.0]


def _runs_eagerly(fn, why, calls=4):
    f = tf.function(fn, jit_compile=True)
    with pytest.warns(RuntimeWarning, match=why) as seen:
        out = [f() for _ in range(calls)]
    assert len([w for w in seen if "jit_compile" in str(w.message)]) == 1
    return out


def test_what_is_not_one_pure_graph_runs_eagerly_with_one_warning(dense):
    w, b = dense
    counter = tf.Variable(0)
    assert [int(v) for v in _runs_eagerly(lambda: counter.assign_add(1) + 0, "writes variables")] \
        == [1, 2, 3, 4]

    def own_tape():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(b * b)
        return tape.gradient(loss, b)
    for g in _runs_eagerly(own_tape, "GradientTape"):
        assert g.tolist() == [1.0, -2.0, 0.5]

    draws = _runs_eagerly(lambda: tf.random.uniform([3]), "random numbers")
    assert not torch.equal(draws[-1], draws[-2])  # a fresh draw each call, as eagerly

    rows = _runs_eagerly(lambda: tf.gather(b, [2, 0]), "rows of a variable")
    assert rows[-1].tolist() == [0.25, 0.5]

    host = tf.Variable([1.0, 2.0])
    f = tf.function(lambda: tf.constant(host.numpy()) * 2.0, jit_compile=True)
    with pytest.warns(RuntimeWarning, match="jit_compile"):
        f(), f()
    host.assign([5.0, 6.0])
    assert f().tolist() == [10.0, 12.0]  # never a value frozen at trace time


def test_optimizer_step_inside_falls_back_with_the_eager_result(dense):
    w, b = dense
    w2, b2 = tf.Variable(w), tf.Variable(b)
    opt, opt2 = tf.keras.optimizers.Adam(0.01), tf.keras.optimizers.Adam(0.01)
    x = tf.ones([2, 4])

    def step(w, b, opt):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(_eager(x, w, b))
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        return loss

    compiled = tf.function(lambda: step(w, b, opt), jit_compile=True)
    with pytest.warns(RuntimeWarning, match="GradientTape"):
        for _ in range(3):
            compiled()
    for _ in range(3):
        step(w2, b2, opt2)
    assert np.array_equal(w.numpy(), w2.numpy()) and np.array_equal(b.numpy(), b2.numpy())


def test_in_a_strategys_replicas_it_runs_eagerly_without_deadlock():
    from tests.distribute.logical_devices import logical_cpus

    with logical_cpus(2):
        _replicas_run_eagerly()


def _replicas_run_eagerly():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        v = tf.Variable(2.0)

    @tf.function(jit_compile=True)
    def replica_fn(x):
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce(tf.distribute.ReduceOp.SUM, x * v)  # (a merge point: replicas meet)

    with pytest.warns(RuntimeWarning, match="replicas"):
        for _ in range(3):
            out = strategy.run(replica_fn, args=(tf.constant(1.0),))
    assert [float(t) for t in strategy.experimental_local_results(out)] == [4.0, 4.0]
    outside = tf.function(lambda x: x * 3.0, jit_compile=True)
    for _ in range(3):
        assert float(outside(tf.constant(2.0))) == 6.0


def test_another_threads_tape_is_not_disturbed_while_a_function_is_traced(dense):
    """The recorders are per thread: a tape in one thread records its reads while another
    thread's compiled function records (first call) and traces (second)."""
    import threading
    w, b = dense
    f = tf.function(lambda x: _eager(x, w, b), jit_compile=True)
    errors, grads = [], []
    start = threading.Barrier(2)

    def trainer():
        try:
            start.wait()
            for _ in range(30):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(w * 2.0) + tf.reduce_sum(b)
                grads.append(tape.gradient(loss, [w, b]))
        except Exception as error:  # noqa: BLE001
            errors.append(error)

    thread = threading.Thread(target=trainer)
    thread.start()
    start.wait()
    x = tf.ones([2, 4])
    for _ in range(4):
        f(x)
    thread.join(60)
    assert not errors and len(grads) == 30
    for gw, gb in grads:
        assert torch.equal(gw, torch.full((4, 3), 2.0)) and torch.equal(gb, torch.ones(3))
    from tfcompat.framework import variable_protocol as protocol
    assert not isinstance(protocol.recorder, protocol._Dispatcher)  # (restored)
