"""Golden cases for eager control flow: cond, case, switch_case, while_loop, py_function."""

import numpy as np

from tests.ops.golden.harness import Case

C = np.float32


def _c(tf, v, dtype=None):
    return tf.constant(v, dtype=dtype)


def _loop_list(tf):
    # body returns a list like loop_vars: the eager path's structure check passes
    return tf.while_loop(lambda i, s: i < 5, lambda i, s: [i + 1, s * 2.0],
                         [tf.constant(0), tf.constant(1.5)])


def _loop_nested(tf):
    return tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, [j[0] * 2.0, j[1] - 1]),
                         [tf.constant(0), [tf.constant(1.0), tf.constant(2)]])


def _loop_shape_change(tf):
    # eager TF checks no shapes: the loop variable grows with no shape invariant
    return tf.while_loop(lambda x: tf.shape(x)[0] < 4, lambda x: [tf.concat([x, x], 0)],
                         [tf.ones([1])])


def _loop_var_input(tf):
    v = tf.Variable(2.0)
    return tf.while_loop(lambda x: x < 10.0, lambda x: (x * 2.0,), [v])


def _loop_calls(tf):
    calls = []

    def cond(x):
        calls.append(1)
        return x < 100

    out = tf.while_loop(cond, lambda x: [x + 1], [tf.constant(0)], maximum_iterations=3)
    return out, len(calls)


def _cond_variable(tf):
    v = tf.Variable(False)
    return tf.cond(v, lambda: tf.constant([1, 2]), lambda: tf.constant([3, 4]))


def _cond_grad_branch(tf):
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.cond(x > 2.0, lambda: x * x, lambda: x)
    return y, tape.gradient(y, x)


def _loop_grad(tf):
    x = tf.Variable(1.5)
    with tf.GradientTape() as tape:
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x),
                             (tf.constant(0), tf.constant(1.0)))
    return y, tape.gradient(y, x)


def _py_grad(tf):
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.py_function(lambda a: a * a * a, [x], tf.float32)
    return y, tape.gradient(y, x)


def _ctrl_deps(tf):
    x = tf.constant(1.0)
    with tf.control_dependencies([x]) as c:
        y = x + 1.0
    return c, y, tf.group(x, y), tf.no_op()


CASES = {
    # -- cond
    "cond_true": lambda tf: tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: 2.0),
    "cond_false_list": lambda tf: tf.cond(_c(tf, False), lambda: [tf.constant(1)],
                                          lambda: [tf.constant(2)]),
    "cond_python_bool": lambda tf: tf.cond(True, lambda: [1], lambda: 2),
    "cond_int_pred": lambda tf: tf.cond(tf.constant(0), lambda: 1, lambda: (2,)),
    "cond_float_pred": lambda tf: tf.cond(tf.constant(1.5), lambda: 1, lambda: 2),
    "cond_one_element": lambda tf: tf.cond(tf.constant([True]), lambda: 1, lambda: 2),
    "cond_vector_pred": lambda tf: tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2),
    "cond_empty_pred": lambda tf: tf.cond(tf.constant([], tf.float32), lambda: 1, lambda: 2),
    "cond_not_callable": lambda tf: tf.cond(True, 1, lambda: 2),
    "cond_no_false_fn": lambda tf: tf.cond(tf.constant(True), true_fn=lambda: [1]),
    "cond_returns_none": lambda tf: [tf.cond(True, lambda: None, lambda: 2)],  # [None]: a bare None reads as unrecorded
    "cond_variable_pred": _cond_variable,
    "cond_gradient": _cond_grad_branch,
    # -- case
    "case_second": lambda tf: tf.case([(_c(tf, False), lambda: 1), (_c(tf, True), lambda: 2)],
                                      default=lambda: 3),
    "case_default": lambda tf: tf.case([(_c(tf, False), lambda: 1)], default=lambda: 3),
    "case_first_wins": lambda tf: tf.case([(_c(tf, True), lambda: 1), (_c(tf, True), lambda: 2)],
                                          exclusive=True),
    "case_no_default_none_true": lambda tf: tf.case([(_c(tf, False), lambda: 1),
                                                     (_c(tf, False), lambda: 2)]),
    "case_no_default_last": lambda tf: tf.case([(_c(tf, False), lambda: 1),
                                                (_c(tf, True), lambda: 2)]),
    "case_no_default_earlier": lambda tf: tf.case([(_c(tf, True), lambda: 1),
                                                   (_c(tf, False), lambda: 2)]),
    "case_unpacks": lambda tf: tf.case([(_c(tf, False), lambda: [1])], default=lambda: [2]),
    "case_strict": lambda tf: tf.case([(_c(tf, False), lambda: [1])], default=lambda: [2],
                                      strict=True),
    "case_python_pred": lambda tf: tf.case([(_c(tf, True), lambda: 1), (True, lambda: 2)]),
    "case_variable_pred": lambda tf: tf.case([(tf.Variable(True), lambda: 1)]),
    "case_list_pair": lambda tf: tf.case([[_c(tf, True), lambda: 1]]),
    "case_empty": lambda tf: tf.case([], default=lambda: 7),
    "case_int_pred": lambda tf: tf.case([(tf.constant(1), lambda: 1)]),
    "case_default_not_callable": lambda tf: tf.case([(_c(tf, True), lambda: 1)], default=3),
    "case_vector_pred": lambda tf: tf.case([(tf.constant([True, True]), lambda: 1)]),
    # -- switch_case
    "switch_in_range": lambda tf: tf.switch_case(tf.constant(1), [lambda: 1, lambda: 2]),
    "switch_int64": lambda tf: tf.switch_case(tf.constant(0, tf.int64), [lambda: 1, lambda: 2]),
    "switch_above": lambda tf: tf.switch_case(tf.constant(5), [lambda: 1, lambda: 2]),
    "switch_negative_default": lambda tf: tf.switch_case(tf.constant(-1), [lambda: 1, lambda: 2],
                                                         default=lambda: 9),
    "switch_negative_last": lambda tf: tf.switch_case(tf.constant(-1), [lambda: 1, lambda: 2]),
    "switch_pairs": lambda tf: tf.switch_case(tf.constant(1), [(1, lambda: 2), (0, lambda: 1)]),
    "switch_dict": lambda tf: tf.switch_case(tf.constant(0), {0: lambda: 10, 1: lambda: 20}),
    "switch_dict_gap": lambda tf: tf.switch_case(tf.constant(1), {0: lambda: 1, 3: lambda: 2}),
    "switch_python_int": lambda tf: tf.switch_case(1, [lambda: 1, lambda: 2]),
    "switch_float_index": lambda tf: tf.switch_case(tf.constant(1.0), [lambda: 1, lambda: 2]),
    "switch_empty": lambda tf: tf.switch_case(tf.constant(0), []),
    "switch_not_fn": lambda tf: tf.switch_case(tf.constant(0), [1]),
    "switch_variable_index": lambda tf: tf.switch_case(tf.Variable(1), [lambda: 1, lambda: 2]),
    "switch_int16": lambda tf: tf.switch_case(tf.constant(1, tf.int16), [lambda: 1, lambda: 2]),
    # -- while_loop
    "while_list": _loop_list,
    "while_tuple_body": lambda tf: tf.while_loop(lambda i: i < 3, lambda i: (i + 1,),
                                                 [tf.constant(0)]),
    "while_tuple_vars": lambda tf: tf.while_loop(lambda i: i < 3, lambda i: [i + 1],
                                                 (tf.constant(0),)),
    "while_python_values": lambda tf: tf.while_loop(lambda x, y: x < 4,
                                                    lambda x, y: (x + 1, y * 2.0), (0, 1.0)),
    "while_no_rounds": lambda tf: tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [5]),
    "while_nested": _loop_nested,
    "while_nested_type_change": lambda tf: tf.while_loop(
        lambda i, j: i < 3, lambda i, j: (i + 1, (j[0], j[1])),
        [tf.constant(0), [tf.constant(1.0), tf.constant(2)]]),
    "while_bare_body": lambda tf: tf.while_loop(lambda x: x < 4, lambda x: x + 1,
                                                [tf.constant(0)]),
    "while_wrong_length": lambda tf: tf.while_loop(lambda x: x < 4, lambda x: (x + 1, x),
                                                   [tf.constant(0)]),
    "while_dict_var": lambda tf: tf.while_loop(lambda d: d["a"] < 4,
                                               lambda d: [{"a": d["a"] + 1}], [{"a": 0}]),
    "while_shape_change": _loop_shape_change,
    "while_shape_invariants": lambda tf: tf.while_loop(
        lambda i: i < 3, lambda i: (i + 1,), [tf.constant(0)],
        shape_invariants=[tf.TensorShape([None])]),
    "while_dtype_change": lambda tf: tf.while_loop(
        lambda i: i < 3, lambda i: (tf.cast(i + 1, tf.float32),), [tf.constant(0)]),
    "while_variable": _loop_var_input,
    "while_max_iter": lambda tf: tf.while_loop(lambda i: i < 30, lambda i: [i + 1],
                                               [tf.constant(0)], maximum_iterations=4),
    "while_max_iter_tensor": lambda tf: tf.while_loop(
        lambda i: i < 3, lambda i: [i + 1], [0], maximum_iterations=tf.constant(1, tf.int64)),
    "while_max_iter_tuple_body": lambda tf: tf.while_loop(
        lambda i: i < 3, lambda i: (i + 1,), [tf.constant(0)], maximum_iterations=2),
    "while_max_iter_negative": lambda tf: tf.while_loop(
        lambda i: i < 3, lambda i: [i + 1], [tf.constant(0)], maximum_iterations=-1),
    "while_max_iter_vector": lambda tf: tf.while_loop(
        lambda x: x < 4, lambda x: [x + 1], [1], maximum_iterations=[1, 2]),
    "while_cond_calls": _loop_calls,
    "while_no_vars": lambda tf: tf.while_loop(lambda x: x < 4, lambda x: x + 1, []),
    "while_int_vars": lambda tf: tf.while_loop(lambda x: x < 4, lambda x: x + 1, 0),
    "while_parallel_zero": lambda tf: tf.while_loop(lambda x: x < 4, lambda x: [x + 1], [1],
                                                    parallel_iterations=0),
    "while_cond_not_callable": lambda tf: tf.while_loop(1, lambda i: (i + 1,), [tf.constant(0)]),
    "while_vector_cond": lambda tf: tf.while_loop(lambda i: tf.constant([True, True]),
                                                  lambda i: (i + 1,), [tf.constant(0)]),
    "while_gradient": _loop_grad,
    # -- identity_n, group, no_op, control_dependencies
    "identity_n": lambda tf: tf.identity_n([1, 2.0, [3]]),
    "identity_n_variables": lambda tf: tf.identity_n([tf.Variable(1.0), tf.Variable([2, 3])]),
    "identity_n_ragged": lambda tf: tf.identity_n([[1, 2], [3]]),
    "identity_n_scalar": lambda tf: tf.identity_n(tf.constant(1.0)),
    "identity_n_empty": lambda tf: tf.identity_n([]),
    "control_deps": _ctrl_deps,
    "control_deps_none": lambda tf: [tf.control_dependencies(None).__enter__()],
    "control_deps_int": lambda tf: tf.control_dependencies(1),
    "group_args": lambda tf: [tf.group([1, 2], tf.Variable(1.0), name="g")],
    # -- py_function / numpy_function
    "py_function": lambda tf: tf.py_function(lambda x: x * 2, [tf.constant(3)], tf.int32),
    "py_function_list": lambda tf: tf.py_function(lambda x: [x * 2, 5.0], [tf.constant(3.0)],
                                                  [tf.float32, tf.float64]),
    "py_function_cast_python": lambda tf: tf.py_function(lambda x: 5, [3.0], tf.float32),
    "py_function_tuple_single": lambda tf: tf.py_function(lambda x: (x, x), [3.0], tf.float32),
    "py_function_empty_tout": lambda tf: tf.py_function(lambda x: x, [3.0], []),
    "py_function_bad_dtype": lambda tf: tf.py_function(lambda x: x * 2, [3], tf.float32),
    "py_function_bad_python": lambda tf: tf.py_function(lambda x: x * 2.5, [tf.constant(3)],
                                                        tf.int32),
    "py_function_raises": lambda tf: tf.py_function(lambda: 1 / 0, [], tf.float32),
    "py_function_no_tout": lambda tf: tf.py_function(lambda x: None, [3.0], None),
    "py_function_kwargs": lambda tf: tf.py_function(func=lambda x: x + 1, inp=[1], Tout=tf.int32,
                                                    name="a"),
    "py_function_gradient": _py_grad,
    "numpy_function": lambda tf: tf.numpy_function(lambda x: x * 2, [tf.constant(3)], tf.int32),
    "numpy_function_type": lambda tf: tf.numpy_function(lambda x: np.float32(type(x) is np.ndarray),
                                                        [tf.constant(3)], tf.float32),
    "numpy_function_no_cast": lambda tf: tf.numpy_function(lambda x: x * 2.5, [tf.constant(3)],
                                                           tf.int32),
    "numpy_function_list": lambda tf: tf.numpy_function(
        lambda x, y: [x + 1, y], [np.array([1, 2], np.int64), 2.5], [tf.int64, tf.float32]),
    "numpy_function_raises": lambda tf: tf.numpy_function(lambda x: 1 / 0, [tf.constant(3)],
                                                          tf.int32),
}
