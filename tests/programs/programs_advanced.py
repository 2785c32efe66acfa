"""Guide-style programs from "Advanced automatic differentiation" and "Introduction to
tensors/variables" follow-ups: custom gradients, higher-order gradients, jacobians, gradient
clipping inside a step, `tf.while_loop` and `tf.TensorArray` in a small RNN, `tf.cond`.
Same contract as `programs_basics.py`."""

import numpy as np

from tests.ops.golden.harness import Case


def custom_gradients(tf):
    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    out = {"clipped": t.gradient(output, v)}

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    out["stable_grad"] = tape.gradient(y, x)

    w = tf.Variable([1.0, 2.0])

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * 3.0, [dy * 0 + 7.0 for _ in variables]
        return x * w, grad

    with tf.GradientTape() as tape:
        z = tf.reduce_sum(scaled(tf.constant([1.0, 1.0])))
    out["variable_grad"] = tape.gradient(z, w)
    return out


def higher_order(tf):
    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    out = {"dy_dx": dy_dx, "d2y_dx2": d2y_dx2}

    xs = tf.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2))
    layer_w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 10)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        ys = tf.nn.tanh(tf.matmul(xs, layer_w))
    out["jacobian_w_shape"] = list(tape.jacobian(ys, layer_w).shape)
    out["batch_jacobian"] = tape.batch_jacobian(ys, xs)
    del tape

    # input-gradient regularization, as the guide's example
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            t1.watch(xs)
            ys = tf.nn.sigmoid(tf.matmul(xs, layer_w))
        g = t1.gradient(ys, xs)
        penalty = tf.reduce_sum(g ** 2)
    out["penalty"] = penalty
    out["penalty_grad"] = t2.gradient(penalty, layer_w)
    return out


def rnn_loop(tf):
    w = tf.Variable(np.linspace(-0.5, 0.5, 9, dtype=np.float32).reshape(3, 3))
    inputs = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))

    def step(i, state, ta):
        new = tf.tanh(tf.linalg.matvec(w, state) + inputs[i])
        return i + 1, new, ta.write(i, new)

    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=4)
        _, final, ta = tf.while_loop(lambda i, *_: i < 4, step, (tf.constant(0), tf.zeros(3), ta))
        stacked = ta.stack()
        loss = tf.cond(tf.reduce_sum(final) > 0, lambda: tf.reduce_sum(stacked ** 2),
                       lambda: tf.reduce_sum(tf.abs(stacked)))
    grads = tape.gradient(loss, w)
    clipped, norm = tf.clip_by_global_norm([grads], 0.1)
    return {"final": final, "stacked": stacked, "loss": loss, "grad": grads, "norm": norm,
            "clipped": clipped}


PROGRAMS = {
    "custom_gradients": custom_gradients,
    "higher_order": Case(higher_order, ulps=8),
    "rnn_loop": Case(rnn_loop, ulps=16),  # four chained tanh steps and their gradient
}
