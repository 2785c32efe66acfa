"""Operators on variables, both directions, with TF 2.21's dtype rules.

Each row's expected dtype and values were recorded from TensorFlow 2.21.
The property (every operator against numpy under TF's rules) runs in the
conformance suite.
"""

import operator

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors


def vi():
    return tf.Variable([3, -7], dtype=tf.int32)


def vf():
    return tf.Variable([1.5, -2.5])


def vb():
    return tf.Variable([True, False])


CASES = [
    # (label, thunk, dtype, values)
    ("vi / tensor", lambda: vi() / tf.constant([2, 2]), "float64", [1.5, -3.5]),
    ("vi64 / vi64", lambda: tf.Variable([3, -7], dtype=tf.int64) / tf.Variable([3, -7], dtype=tf.int64),
     "float64", [1.0, 1.0]),
    ("vi / 2", lambda: vi() / 2, "float64", [1.5, -3.5]),
    ("3 / vi", lambda: 3 / tf.Variable(2), "float64", 1.5),
    ("vu8 / vu8", lambda: tf.Variable(np.array([3], np.uint8)) / tf.Variable(np.array([2], np.uint8)),
     "float32", [1.5]),
    ("vi8 / 2", lambda: tf.Variable(np.array([3], np.int8)) / 2, "float32", [1.5]),
    ("vf16 / 2", lambda: tf.Variable(np.array([3], np.float16)) / 2, "float16", [1.5]),
    ("vi / 0", lambda: vi() / 0, "float64", [np.inf, -np.inf]),
    ("vf / 0", lambda: vf() / 0.0, "float32", [np.inf, -np.inf]),
    ("vi // 2", lambda: vi() // 2, "int32", [1, -4]),
    ("vi % 2", lambda: vi() % 2, "int32", [1, 1]),
    ("vi % -2", lambda: vi() % -2, "int32", [-1, -1]),
    ("7 // v", lambda: 7 // tf.Variable(2), "int32", 3),
    ("7 % v", lambda: 7 % tf.Variable(2), "int32", 1),
    ("vf // 1", lambda: vf() // 1, "float32", [1.0, -3.0]),
    ("vf % 1.0", lambda: vf() % 1.0, "float32", [0.5, 0.5]),
    ("vi ** 2", lambda: vi() ** 2, "int32", [9, 49]),
    ("vf ** 0.5", lambda: tf.Variable([4.0]) ** 0.5, "float32", [2.0]),
    ("2 ** v", lambda: 2 ** tf.Variable(3.0), "float32", 8.0),
    ("1 - v", lambda: 1 - tf.Variable(3.0), "float32", -2.0),
    ("f32 + int", lambda: tf.Variable(3.0) + 2, "float32", 5.0),
    ("vf16 + 1", lambda: tf.Variable(np.float16(1.0)) + 1, "float16", 2.0),
    ("vf16 + 1.5", lambda: tf.Variable(np.float16(1.0)) + 1.5, "float16", 2.5),
    ("vi64 + 2**40", lambda: tf.Variable([3], dtype=tf.int64) + 2 ** 40, "int64", [2 ** 40 + 3]),
    ("vf + f64 ndarray", lambda: vf() + np.array([1.0, 2.0]), "float32", [2.5, -0.5]),
    ("vf + int ndarray", lambda: vf() + np.array([1, 2]), "float32", [2.5, -0.5]),
    ("f64 ndarray + vf", lambda: np.array([1.0, 2.0]) + vf(), "float32", [2.5, -0.5]),
    ("vi + f64 ndarray", lambda: vi() + np.array([1.5, 2.0]), "int32", [4, -5]),
    ("int64 ndarray + vi", lambda: np.array([1, 2], np.int64) + vi(), "int32", [4, -5]),
    ("np.float64 * vf", lambda: np.float64(2) * vf(), "float32", [3.0, -5.0]),
    ("np.int64 * vi", lambda: np.int64(2) * vi(), "int32", [6, -14]),
    ("ndarray @ v", lambda: np.eye(2, dtype=np.float32) @ tf.Variable([[1.0, 2.0], [3.0, 4.0]]),
     "float32", [[1.0, 2.0], [3.0, 4.0]]),
    ("v @ v", lambda: tf.Variable([[1.0, 2.0]]) @ tf.Variable([[1.0], [2.0]]), "float32", [[5.0]]),
    ("vb & vb", lambda: vb() & vb(), "bool", [True, False]),
    ("vb | True", lambda: vb() | True, "bool", [True, True]),
    ("True & vb", lambda: True & vb(), "bool", [True, False]),
    ("vb ^ True", lambda: vb() ^ True, "bool", [False, True]),
    ("~vb", lambda: ~vb(), "bool", [False, True]),
    ("vb * vb", lambda: vb() * vb(), "bool", [True, False]),
    ("vi & 6", lambda: tf.Variable([3, 5]) & 6, "int32", [2, 4]),
    ("6 & vi", lambda: 6 & tf.Variable([3, 5]), "int32", [2, 4]),
    ("6 | vi", lambda: 6 | tf.Variable([3, 5]), "int32", [7, 7]),
    ("6 ^ vi", lambda: 6 ^ tf.Variable([3, 5]), "int32", [5, 3]),
    ("~vi", lambda: ~tf.Variable([3, 5]), "int32", [-4, -6]),
    ("-vf", lambda: -vf(), "float32", [-1.5, 2.5]),
    ("abs vi", lambda: abs(tf.Variable([-1, 2])), "int32", [1, 2]),
    ("vf == [1.5]", lambda: vf() == [1.5], "bool", [True, False]),
    ("vf == 1", lambda: vf() == 1, "bool", [False, False]),
    ("vf == [1, 2, 3]", lambda: vf() == [1.0, 2.0, 3.0], "bool", False),
    ("vf != [1, 2, 3]", lambda: vf() != [1.0, 2.0, 3.0], "bool", True),
    ("v == v", lambda: tf.Variable(1.0) == tf.Variable(1.0), "bool", True),
    ("vf < 2", lambda: vf() < 2, "bool", [True, True]),
    ("2 < vf", lambda: 2 < vf(), "bool", [False, False]),
    ("vf >= -2.5", lambda: vf() >= -2.5, "bool", [True, True]),
    ("tensor / vi", lambda: tf.constant([2, 2]) / vi(), "float64",
     [2 / 3, -2 / 7]),
]


@pytest.mark.parametrize("label, thunk, dtype, values", CASES, ids=[c[0] for c in CASES])
def test_operator_results_follow_tf(label, thunk, dtype, values):
    out = thunk()
    assert isinstance(out, torch.Tensor) and not isinstance(out, tf.Variable)
    assert tf.as_dtype(out.dtype).name == dtype, label
    np.testing.assert_allclose(out.numpy(), np.array(values, dtype=dtype), rtol=1e-7)


ERRORS = [
    ("vi ** -1", lambda: vi() ** -1, errors.InvalidArgumentError),
    ("2 ** vi (negative)", lambda: 2 ** vi(), errors.InvalidArgumentError),
    ("vi // 0", lambda: vi() // 0, errors.InvalidArgumentError),
    ("vi % 0", lambda: vi() % 0, errors.InvalidArgumentError),
    ("vb + vb", lambda: vb() + vb(), errors.InvalidArgumentError),
    ("vf & vf", lambda: vf() & vf(), errors.InvalidArgumentError),
    ("-vb", lambda: -vb(), errors.InvalidArgumentError),
    ("vf < vi", lambda: vf() < vi(), errors.InvalidArgumentError),
    ("vf + vi", lambda: vf() + vi(), errors.InvalidArgumentError),
    ("vf + f64 tensor", lambda: vf() + tf.constant([1.0, 1.0], tf.float64), errors.InvalidArgumentError),
    ("vf * f64 tensor", lambda: vf() * tf.constant([1.0, 1.0], tf.float64), errors.InvalidArgumentError),
    ("vf - f64 tensor", lambda: vf() - tf.constant([1.0, 1.0], tf.float64), errors.InvalidArgumentError),
    ("f64 tensor * vf", lambda: tf.constant([1.0, 1.0], tf.float64) * vf(), errors.InvalidArgumentError),
    ("vm @ 1-D", lambda: tf.Variable([[1.0, 2.0]]) @ np.array([1.0, 2.0], np.float32),
     errors.InvalidArgumentError),
    ("vi + 2.5", lambda: vi() + 2.5, errors.InvalidArgumentError),
    ("vi * 2.5", lambda: vi() * 2.5, TypeError),
    ("2.5 * vi", lambda: 2.5 * vi(), TypeError),
    ("2.5 + vi", lambda: 2.5 + vi(), TypeError),
    ("vi == 1.5", lambda: vi() == 1.5, TypeError),
    ("vf == None", lambda: vf() == None, ValueError),  # noqa: E711 - TF's behaviour
    ("vf != 'a'", lambda: vf() != "a", TypeError),
    ("vi >> 1", lambda: vi() >> 1, TypeError),
    ("+vf", lambda: +vf(), TypeError),
    ("divmod", lambda: divmod(vi(), 2), TypeError),
    ("round", lambda: round(tf.Variable(1.5)), TypeError),
]


@pytest.mark.parametrize("label, thunk, error", ERRORS, ids=[e[0] for e in ERRORS])
def test_operator_errors_follow_tf(label, thunk, error):
    with pytest.raises(error):
        thunk()


@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.lt, operator.eq])
def test_operators_read_a_snapshot_and_never_return_the_variable(fn):
    v = tf.Variable([1.0, 2.0])
    out = fn(v, 1.0)
    before = out.clone()
    v.assign([5.0, 5.0])
    assert torch.equal(out, before)


def test_products_with_bool_operands_follow_tf_on_both_sides():
    # TF 2.21: `*` is a bool product when x is bool or y is a bool *tensor*; a bool variable
    # on the right of a float is Mul's dtype error, whichever side is the variable.
    f, b, i = tf.constant([2.0, 3.0, 0.0]), tf.constant([True, False, True]), tf.constant([1, 2, 3])
    vf, vb = tf.Variable([2.0, 3.0, 0.0]), tf.Variable([True, False, True])
    for out, expected in [(vf * b, [True, False, False]), (vb * f, [True, False, False]),
                          (b * vf, [True, False, False]), (vb * vf, [True, False, False]),
                          (vb * i, [True, False, True]), (b * vb, [True, False, True])]:
        assert out.dtype == torch.bool and out.tolist() == expected
    for thunk in (lambda: f * vb, lambda: vf * vb, lambda: i * vb):
        with pytest.raises(errors.InvalidArgumentError, match="but is a bool tensor"):
            thunk()


@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.lt, operator.ge, operator.eq, operator.ne])
def test_tensor_op_variable_reads_a_snapshot(fn):
    v = tf.Variable([1.0, 2.0])
    t = torch.tensor([2.0, 2.0])
    out = fn(t, v)
    assert type(out) is torch.Tensor
    assert torch.equal(out, fn(t, torch.tensor([1.0, 2.0])))
    before = out.clone()
    v.assign([5.0, 5.0])
    assert torch.equal(out, before)


def test_tensor_op_variable_of_unbroadcastable_shapes_is_tf_error():
    t = torch.ones(3)
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
        t + v
    assert (t == v).tolist() is False  # TF's `==` of incompatible shapes: a scalar False
