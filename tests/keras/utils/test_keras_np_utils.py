"""`to_categorical`, `to_ordinal`, `normalize`: tf_keras's documented results and laws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf

U = tf.keras.utils


def test_to_categorical_doc_example():
    np.testing.assert_array_equal(U.to_categorical([0, 1, 2, 3], num_classes=4), np.eye(4))
    out = U.to_categorical([1, 0])
    assert out.dtype == np.float32 and out.tolist() == [[0, 1], [1, 0]]


def test_to_categorical_shapes_and_dtype():
    assert U.to_categorical(np.array([[1], [2]])).shape == (2, 3)  # trailing 1 dropped
    assert U.to_categorical(np.array([[1, 2], [0, 0]]), 4).shape == (2, 2, 4)
    assert U.to_categorical(np.array([[1]]), 3).shape == (1, 3)
    assert U.to_categorical([1], 3, dtype="int32").dtype == np.int32
    assert U.to_categorical(np.array(2), 3).tolist() == [0, 0, 1]  # scalar: shape (3,)
    with pytest.raises(IndexError):
        U.to_categorical([3], num_classes=3)


@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                  elements=st.integers(0, 6)))
def test_to_categorical_argmax_inverts(y):
    out = U.to_categorical(y, num_classes=7)
    squeezed = y.reshape(y.shape[:-1]) if y.ndim > 1 and y.shape[-1] == 1 else y
    assert out.shape == squeezed.shape + (7,)
    np.testing.assert_array_equal(out.argmax(-1), squeezed)
    np.testing.assert_array_equal(out.sum(-1), np.ones(squeezed.shape))


def test_to_ordinal_doc_example():
    np.testing.assert_array_equal(U.to_ordinal([0, 1, 2, 3], num_classes=4),
                                  [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]])


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x, axis=0), [[1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x, order=1), [[3 / 7, 4 / 7], [0, 0]])
    # A 1-D input comes back as (1, n) in tf_keras (its norm is made 1-D, then expanded).
    np.testing.assert_allclose(U.normalize(np.array([2.0, -2.0]), axis=0),
                               [[2 ** -0.5, -(2 ** -0.5)]])
    assert x.tolist() == [[3.0, 4.0], [0.0, 0.0]]  # input unchanged


@given(hnp.arrays(np.float64, (3, 4), elements=st.floats(-100, 100)))
def test_normalize_gives_unit_or_zero_rows(x):
    norms = np.linalg.norm(U.normalize(x), axis=-1)
    expected = np.where(np.linalg.norm(x, axis=-1) == 0, 0.0, 1.0)
    np.testing.assert_allclose(norms, expected, rtol=1e-12, atol=1e-12)
