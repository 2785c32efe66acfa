"""Golden cases for what eager code observes of `tf.function`: input_signature binding and its
errors, tracing counts, concrete functions."""

import numpy as np

from tests.ops.golden.harness import Case


def head(fn):
    """The error class and the message up to the (tensor-repr-laden) "Received args" part."""
    def run(tf):
        try:
            return ["returned", fn(tf)]
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, str(e).split(" Received args")[0].split(", got <class")[0]]
    return run


def _sig(tf):
    return tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([None], tf.float32)])


def _two(tf):
    return tf.function(lambda x, y: x + y, input_signature=[tf.TensorSpec([], tf.int32),
                                                            tf.TensorSpec([], tf.int32)])


def _count(tf):
    g = tf.function(lambda x, y=1: x + y)
    for a in [1, tf.constant(1), tf.constant(2), tf.constant([2]), tf.constant([2, 3]), 2, 1]:
        g(a)
    return g.experimental_get_tracing_count()


def _count_relaxed(tf, **kw):
    h = tf.function(lambda x: x, **kw)
    h(tf.constant([1]))
    h(tf.constant([1, 2]))
    h(tf.constant([1, 2, 3]))
    h(tf.constant([1.0]))
    return h.experimental_get_tracing_count()


def _count_signature(tf):
    f = _sig(tf)
    f(tf.constant([1.0]))
    f([1.0, 2.0, 3.0])
    return f.experimental_get_tracing_count()


def _concrete(tf):
    k = tf.function(lambda x: x * 2)
    cf = k.get_concrete_function(tf.TensorSpec([None], tf.float32))
    return [cf(tf.constant([1.0, 2.0])), cf(tf.constant([[1.0]])), k.experimental_get_tracing_count(),
            type(cf).__name__, cf.structured_input_signature[0][0].name]


def _concrete_from_tensor(tf):
    k = tf.function(lambda x: x * 2)
    return k.get_concrete_function(tf.constant([1.0]))(tf.constant([3.0]))


def _concrete_bad_dtype(tf):
    cf = tf.function(lambda x: x * 2).get_concrete_function(tf.TensorSpec([None], tf.float32))
    return cf(tf.constant([1, 2]))


def _method(tf):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def scale(self, x):
            return x * self.v
    m = M()
    return m.scale(3.0), m.scale(tf.constant(1.5))


def _side_effects(tf):
    calls = []

    @tf.function
    def f(x):
        calls.append(1)  # eager: every call runs the Python body
        return x + 1
    f(tf.constant(1))
    f(tf.constant(2))
    return len(calls) >= 1


CASES = {
    "sig_ok": lambda tf: _sig(tf)(tf.constant([1.0, 2.0])),
    "sig_python_list": lambda tf: _sig(tf)([1.0, 2.0]),
    "sig_numpy_f64": lambda tf: _sig(tf)(np.array([1.0, 2.0])),
    "sig_variable": lambda tf: _sig(tf)(tf.Variable([1.0, 2.0])),
    "sig_kwarg": lambda tf: _sig(tf)(x=tf.constant([1.0])),
    "sig_wrong_dtype": head(lambda tf: _sig(tf)(tf.constant([1, 2]))),
    "sig_wrong_rank": head(lambda tf: _sig(tf)(tf.constant([[1.0, 2.0]]))),
    "sig_scalar": head(lambda tf: _sig(tf)(1.0)),
    "sig_too_many": head(lambda tf: _sig(tf)(tf.constant([1.0]), 3)),
    "sig_missing": head(lambda tf: _sig(tf)()),
    "sig_bad_python": head(lambda tf: _two(tf)(1.5, 2)),
    "sig_int64": head(lambda tf: _two(tf)(tf.constant(1, tf.int64), 2)),
    "sig_two_python": lambda tf: [_two(tf)(1, 2), _two(tf)(1, y=2)],
    "sig_nested": lambda tf: tf.function(lambda xs: xs[0] + xs[1], input_signature=[
        [tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)]])([1.0, 2.0]),
    "sig_not_spec": head(lambda tf: tf.function(lambda x: x, input_signature=[1])),
    "sig_not_list": head(lambda tf: tf.function(lambda x: x,
                                                input_signature=tf.TensorSpec([1]))),
    "sig_property": lambda tf: [s.shape for s in _sig(tf).input_signature],
    "python_function": lambda tf: _sig(tf).python_function(tf.constant(1.0)),
    "tracing_count": _count,
    "tracing_count_reduce": lambda tf: _count_relaxed(tf, reduce_retracing=True),
    "tracing_count_relax_shapes": lambda tf: _count_relaxed(tf, experimental_relax_shapes=True),
    "tracing_count_default": lambda tf: _count_relaxed(tf),
    "tracing_count_signature": _count_signature,
    "concrete": _concrete,
    "concrete_from_tensor": _concrete_from_tensor,
    "concrete_bad_dtype": Case(_concrete_bad_dtype, values=False),
    "method": _method,
    "side_effects": _side_effects,
    "jit_compile": lambda tf: tf.function(lambda x: x * 3.0, jit_compile=True)(tf.constant(2.0)),
}
