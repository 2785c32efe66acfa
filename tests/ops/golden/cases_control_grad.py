"""Golden cases for tf.custom_gradient and tf.recompute_grad: TF's gradients, errors."""

import numpy as np

from tests.ops.golden.harness import Case, Grad


def _log1pexp(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    return log1pexp


def _clip_grad(tf):
    @tf.custom_gradient
    def clip(x, y):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5), dy * 3.0
        return x * y, grad
    return clip


def _with_variable(tf, v):
    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * 2.0, [dy * 10.0 * tf.ones_like(variables[0])]
        return x * v, grad
    return scaled


def _cg_variable_case(tf):
    v = tf.Variable(3.0)
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _with_variable(tf, v)(x)
    return y, tape.gradient(y, [x, v])


def _cg_missing_variables_kw(tf):
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def f(x):
        return x * v, lambda dy: dy
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        return f(x)


def _cg_wrong_count(tf):
    @tf.custom_gradient
    def f(x, y):
        return x * y, lambda dy: dy
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, tf.constant(3.0))
    return tape.gradient(y, x)


def _cg_multi_output(tf):
    @tf.custom_gradient
    def f(x):
        def grad(da, db):
            return da * 2.0 + db * 3.0
        return (x * 1.0, x * 1.0), grad
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        a, b = f(x)
        y = tf.reduce_sum(a) + tf.reduce_sum(b * b)
    return a, b, tape.gradient(y, x)


def _cg_second_order(tf):
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad
    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = cube(x)
        g = inner.gradient(y, x)
    return y, g, outer.gradient(g, x)


def _cg_no_tape(tf):
    return _log1pexp(tf)(tf.constant([0.0, 100.0]))


def _recompute(tf):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    f = tf.recompute_grad(lambda x: tf.tanh(tf.matmul(x, w)) * 2.0)
    x = tf.constant([[0.5, -0.5]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    return y, tape.gradient(y, [x, w])


CASES = {
    "custom_gradient_variable": _cg_variable_case,
    "custom_gradient_needs_variables_kw": _cg_missing_variables_kw,
    "custom_gradient_wrong_count": _cg_wrong_count,
    "custom_gradient_multi_output": _cg_multi_output,
    "custom_gradient_second_order": _cg_second_order,
    "custom_gradient_no_tape": _cg_no_tape,
    "recompute_grad": _recompute,
}

GRADIENTS = {
    "custom_log1pexp": Grad(lambda tf, x: _log1pexp(tf)(x), [np.array([0.0, 100.0, -3.0],
                                                                      np.float32)]),
    "custom_two_args": Grad(lambda tf, x, y: _clip_grad(tf)(x, y),
                            [np.array([1.0, -2.0], np.float32), np.array([3.0, 0.25], np.float32)]),
    "custom_f64": Grad(lambda tf, x: _log1pexp(tf)(x), [np.array([0.5, -1.5], np.float64)]),
}
