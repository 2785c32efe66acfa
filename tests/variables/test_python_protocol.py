"""Python protocols of `tf.Variable`: repr, hashing, conversions, len, iteration.

Expected strings and behaviours were recorded from TensorFlow 2.21.
"""

import operator

import numpy as np
import pytest
import torch

import tfcompat as tf


# -- repr -----------------------------------------------------------------------

@pytest.mark.parametrize("value, kwargs, expected", [
    ([1.0, 2.0], {"name": "x"},
     "<tf.Variable 'x:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"),
    ([1, 2], {}, "<tf.Variable 'Variable:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"),
    ([True], {}, "<tf.Variable 'Variable:0' shape=(1,) dtype=bool, numpy=array([ True])>"),
    ([1.5], {"dtype": tf.float64}, "<tf.Variable 'Variable:0' shape=(1,) dtype=float64, numpy=array([1.5])>"),
    (np.arange(6.0, dtype=np.float32).reshape(2, 3), {},
     "<tf.Variable 'Variable:0' shape=(2, 3) dtype=float32, numpy=\n"
     "array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32)>"),
    (np.arange(6).reshape(2, 3), {},
     "<tf.Variable 'Variable:0' shape=(2, 3) dtype=int64, numpy=\narray([[0, 1, 2],\n       [3, 4, 5]])>"),
    (np.zeros((0, 3), np.float32), {},
     "<tf.Variable 'Variable:0' shape=(0, 3) dtype=float32, numpy=array([], shape=(0, 3), dtype=float32)>"),
    (np.arange(2000.0), {},
     "<tf.Variable 'Variable:0' shape=(2000,) dtype=float64, numpy=\n"
     "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n"
     "       1.999e+03], shape=(2000,))>"),
], ids=["float32", "int32", "bool", "float64", "2d-float32", "2d-int64", "empty", "summarized"])
def test_repr_of_arrays(value, kwargs, expected):
    v = tf.Variable(value, **kwargs)
    assert repr(v) == expected
    assert str(v) == expected


@pytest.mark.parametrize("value, expected", [
    (1.0, "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"),
    (1, "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=1>"),
    (True, "<tf.Variable 'Variable:0' shape=() dtype=bool, numpy=True>"),
    (np.float16(1.5), "<tf.Variable 'Variable:0' shape=() dtype=float16, numpy=1.5>"),
    (np.int64(3), "<tf.Variable 'Variable:0' shape=() dtype=int64, numpy=3>"),
    (-0.0, "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=-0.0>"),
    (1 / 3, "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.3333333432674408>"),
], ids=["float32", "int32", "bool", "float16", "int64", "negative-zero", "third"])
def test_repr_of_scalars(value, expected):
    assert repr(tf.Variable(value)) == expected


# -- numpy ----------------------------------------------------------------------

def test_numpy_of_a_scalar_is_a_numpy_scalar():
    x = tf.Variable(1.5).numpy()
    assert isinstance(x, np.float32) and x == 1.5
    assert isinstance(tf.Variable(1).numpy(), np.int32)


def test_numpy_is_a_copy():
    v = tf.Variable([1.0, 2.0])
    a = v.numpy()
    a[0] = 100.0
    assert v.numpy()[0] == 1.0
    b = np.asarray(v)
    b[1] = 100.0
    assert v.numpy()[1] == 2.0
    assert np.asarray(v, dtype=np.float64).dtype == np.float64


# -- hashing ------------------------------------------------------------------------

def test_variables_are_unhashable_and_refs_are_keys():
    v, w = tf.Variable(1.0), tf.Variable(1.0)
    with pytest.raises(TypeError, match="ref"):
        hash(v)
    with pytest.raises(TypeError):
        {v}
    table = {v.ref(): "v", w.ref(): "w"}
    assert table[v.ref()] == "v" and table[w.ref()] == "w"
    assert v.ref() == v.ref() and v.ref() != w.ref()
    assert v.ref().deref() is v
    assert v.experimental_ref() == v.ref()


# -- conversions ------------------------------------------------------------------

def test_python_number_conversions():
    assert float(tf.Variable(1)) == 1.0 and isinstance(float(tf.Variable(1)), float)
    assert int(tf.Variable(1.7)) == 1 and int(tf.Variable(-1.7)) == -1
    assert bool(tf.Variable(0.0)) is False and bool(tf.Variable(0.5)) is True
    with pytest.raises(ValueError):
        bool(tf.Variable([1.0, 2.0]))
    with pytest.raises(TypeError):
        float(tf.Variable([1.0, 2.0]))


def test_integer_scalar_variables_are_indices():
    # A documented tfcompat extension (the issue asks for `__index__`); TF 2.21
    # raises "'ResourceVariable' object cannot be interpreted as an integer".
    assert operator.index(tf.Variable(1)) == 1
    assert [1, 2, 3][tf.Variable(2)] == 3
    for not_an_index in (tf.Variable(1.0), tf.Variable([1, 2])):
        with pytest.raises(TypeError):
            operator.index(not_an_index)


def test_len_is_a_type_error():
    with pytest.raises(TypeError):
        len(tf.Variable([1.0, 2.0]))
    with pytest.raises(TypeError):
        len(tf.Variable(1.0))


def test_iteration_yields_row_tensors_that_are_snapshots():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    rows = list(v)
    assert len(rows) == 2 and all(isinstance(r, torch.Tensor) for r in rows)
    v.assign([[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(rows[1].numpy(), [3.0, 4.0])
    with pytest.raises(TypeError, match="scalar"):
        list(tf.Variable(1.0))
