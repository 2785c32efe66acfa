"""Golden cases for eager `tf.TensorArray`: values, zeros for unwritten slots, TF's errors."""

import numpy as np

from tests.ops.golden.harness import Case, Grad


def _ta(tf, size=2, **kw):
    return tf.TensorArray(tf.float32, size=size, **kw)


def _read_twice(tf):
    ta = _ta(tf, 1).write(0, 1.0)
    ta.read(0)
    return ta.read(0)


def _read_keep(tf):
    ta = _ta(tf, 1, clear_after_read=False).write(0, [1.0, 2.0])
    return ta.read(0), ta.read(0), ta.stack()


def _mutable(tf):
    ta = _ta(tf, 2)
    ta.write(0, 1.0)  # eager TensorArrays change in place
    ta.write(1, 2.0)
    return ta.stack()


def _loop(tf):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)
    _, ta = tf.while_loop(lambda i, ta: i < 4, body, [0, ta])
    return ta.stack(), ta.size()


def _grad(tf):
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        ta = _ta(tf, 2).write(0, x * 2.0).write(1, x * x)
        y = tf.reduce_sum(ta.stack()) + tf.reduce_sum(ta.gather([1]))
    return tape.gradient(y, x)


def _close(tf):
    ta = _ta(tf, 2).write(0, 1.0)
    return [ta.close(), ta.size()]


CASES = {
    "stack": Case(lambda tf: _ta(tf).write(0, 1.0).write(1, 2.0).stack(), ulps=0),
    "stack_unwritten_zero": lambda tf: _ta(tf).write(0, 1.0).stack(),
    "read_unknown_shape": lambda tf: _ta(tf).read(0),
    "read_unwritten_known": lambda tf: _ta(tf).write(0, [1.0, 2.0]).read(1),
    "write_past_end": Case(lambda tf: _ta(tf).write(2, 1.0), match_message=True),
    "write_negative": Case(lambda tf: _ta(tf).write(-1, 1.0), match_message=True),
    "read_past_end": Case(lambda tf: _ta(tf).read(5), match_message=True),
    "read_negative": Case(lambda tf: _ta(tf).read(-1), match_message=True),
    "dynamic_grow": lambda tf: [_ta(tf, dynamic_size=True).write(0, 1.0).write(5, 2.0).stack(),
                                _ta(tf, dynamic_size=True).write(3, 1.0).size()],
    "write_python_int": lambda tf: _ta(tf).write(0, 1).stack(),
    "write_int_tensor": Case(lambda tf: _ta(tf).write(0, tf.constant(1)), match_message=True),
    "write_shape_mismatch": Case(lambda tf: _ta(tf).write(0, 1.0).write(1, [2.0]),
                                 match_message=True),
    "element_shape_mismatch": Case(lambda tf: _ta(tf, element_shape=[2]).write(0, 1.0),
                                   match_message=True),
    "empty_stack": lambda tf: _ta(tf, 0).stack(),
    "empty_stack_known_shape": lambda tf: _ta(tf, 0, element_shape=[3]).stack(),
    "unstack_read": lambda tf: _ta(tf, 3).unstack([1.0, 2.0, 3.0]).read(2),
    "unstack_too_many": Case(lambda tf: _ta(tf, 2).unstack([1.0, 2.0, 3.0]), match_message=True),
    "unstack_dynamic": lambda tf: _ta(tf, 1, dynamic_size=True).unstack([1.0, 2.0]).stack(),
    "unstack_scalar": lambda tf: _ta(tf).unstack(1.0),
    "gather": lambda tf: _ta(tf, 3).unstack([[1.0, 2.0], [3, 4], [5, 6]]).gather([2, 0]),
    "gather_repeat": lambda tf: _ta(tf).write(0, 1.0).write(1, 2.0).gather([0, 1, 1]),
    "gather_unknown": lambda tf: _ta(tf).gather([0, 3]),
    "scatter": lambda tf: _ta(tf, 3).scatter([2, 0], [[1.0], [2.0]]).stack(),
    "concat": lambda tf: _ta(tf, 3, infer_shape=False).write(0, [1.0, 2]).write(1, [3.0])
    .write(2, [4.0, 5, 6]).concat(),
    "concat_scalar": Case(lambda tf: _ta(tf, 2).write(0, 1.0).write(1, 2.0).concat(),
                          match_message=True),
    "stack_ragged": lambda tf: _ta(tf, 2, infer_shape=False).write(0, [1.0, 2]).write(1, [3.0])
    .stack(),
    "split": lambda tf: _ta(tf).split([1.0, 2, 3], [1, 2]).read(1),
    "split_bad_sum": Case(lambda tf: _ta(tf).split([1.0, 2, 3], [1, 1]), match_message=True),
    "split_bad_count": Case(lambda tf: _ta(tf).split([1.0, 2, 3], [3]), match_message=True),
    "size": lambda tf: _ta(tf).size(),
    "identity_read": lambda tf: _ta(tf, clear_after_read=True).write(0, 1.0).identity().read(0),
    "read_twice": Case(_read_twice, match_message=True),
    "read_keep": _read_keep,
    "mutable": _mutable,
    "close": _close,
    "properties": lambda tf: [_ta(tf).dtype, _ta(tf).element_shape, _ta(tf).dynamic_size,
                              _ta(tf, element_shape=[None, 2]).element_shape,
                              _ta(tf).write(0, [[1.0, 2.0]]).element_shape],
    "int32": lambda tf: tf.TensorArray(tf.int32, size=2).write(0, 1).write(1, 2).stack(),
    "f16": Case(lambda tf: tf.TensorArray(tf.float16, size=1).write(0, [0.1]).stack(), ulps=0),
    "no_size": lambda tf: tf.TensorArray(tf.float32),
    "tensor_size_index": lambda tf: tf.TensorArray(tf.float32, size=tf.constant(2))
    .write(tf.constant(1), 5.0).read(tf.constant(1)),
    "while_loop": _loop,
    "gradient": _grad,
    "variable_value": lambda tf: _ta(tf, 1).write(0, tf.Variable([3.0])).stack(),
}

GRADIENTS = {
    "stack_read": Grad(lambda tf, x: tf.TensorArray(tf.float32, size=2, clear_after_read=False)
                       .write(0, x * 3.0).write(1, tf.tanh(x)).stack(),
                       [np.array([0.5, -1.0], np.float32)]),
}
