"""Laws of eager control flow, custom gradients and recompute_grad (TF's results are in the
golden tables `cases_control*.py`)."""

import numpy as np
import torch
from hypothesis import given, strategies as st

import tfcompat as tf


@given(st.integers(-5, 20), st.integers(0, 6), st.one_of(st.none(), st.integers(0, 8)))
def test_while_loop_is_the_python_loop(start, step, cap):
    """while_loop(cond, body, [i, s]) runs body while cond and at most maximum_iterations times."""
    out = tf.while_loop(lambda i, s: i < 10, lambda i, s: [i + 1, s + step],
                        [tf.constant(start), tf.constant(0)], maximum_iterations=cap)
    i, s, rounds = start, 0, 0
    while i < 10 and (cap is None or rounds < cap):
        i, s, rounds = i + 1, s + step, rounds + 1
    assert [int(out[0]), int(out[1])] == [i, s]


@given(st.integers(-3, 5), st.integers(1, 4))
def test_switch_case_picks_the_branch_or_the_default(index, n):
    fns = [(lambda k=k: k) for k in range(n)]
    got = tf.switch_case(tf.constant(index), fns, default=lambda: -1)
    assert got == (index if 0 <= index < n else -1)


def test_cond_runs_only_the_chosen_branch():
    ran = []
    tf.cond(tf.constant(False), lambda: ran.append("t"), lambda: ran.append("f"))
    assert ran == ["f"]


def test_recompute_grad_matches_finite_differences():
    w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2))
    f = tf.recompute_grad(lambda x: tf.tanh(tf.matmul(x, w)) * x[:, :2])

    def fn(x):
        return f(x)

    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fn, (x,))


def test_recompute_grad_keeps_the_variable_gradient():
    w = tf.Variable([[2.0, -1.0]])
    f = tf.recompute_grad(lambda x: tf.reduce_sum(tf.matmul(x, w) ** 2))
    x = tf.constant([[1.5], [0.5]])
    with tf.GradientTape() as tape:
        y = f(x)
    g = tape.gradient(y, w)
    with tf.GradientTape() as tape:
        y2 = tf.reduce_sum(tf.matmul(x, w) ** 2)
    assert torch.allclose(g, tape.gradient(y2, w)) and torch.allclose(y, y2)


def test_custom_gradient_under_plain_torch_autograd():
    @tf.custom_gradient
    def f(x):
        return x * x, lambda dy: dy * 7.0
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    f(x).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]


def test_custom_gradient_without_a_tape_builds_no_graph():
    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy
    y = f(tf.constant([1.0]))
    assert not y.requires_grad and y.grad_fn is None


def test_tensor_array_stack_gradient_matches_finite_differences():
    def fn(x):
        ta = tf.TensorArray(tf.float64, size=2)
        ta = ta.write(0, tf.sin(x)).write(1, x * x)
        return ta.stack()
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fn, (x,))


def test_custom_gradient_of_the_wrong_shape_is_a_clear_error():
    import pytest
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def g(x):
        def grad(dy, variables):
            return dy * v, [dy * x]  # [2] for a scalar variable
        return x * v, grad
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(g(tf.constant([1.0, 2.0])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        tape.gradient(out, v)


def test_custom_gradient_python_number_broadcasts():
    @tf.custom_gradient
    def k(x):
        return x * 2.0, lambda dy: 5.0
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = k(x)
    assert tape.gradient(y, x).tolist() == [5.0, 5.0]


def test_failed_tensor_array_writes_change_nothing():
    import pytest
    ta = tf.TensorArray(tf.float32, size=1, dynamic_size=True).write(0, [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        ta.write(5, tf.constant([1, 2]))  # wrong dtype: the array must not grow
    with pytest.raises(tf.errors.OutOfRangeError):
        ta.scatter([1, -1], [[1.0, 2.0], [3.0, 4.0]])  # the second index is bad: no row lands
    assert int(ta.size()) == 1 and ta.stack().tolist() == [[1.0, 2.0]]
