"""AutoCastVariable: reads cast inside enable_auto_cast_variables, everything else delegates."""

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras.mixed_precision import autocast_variable as acv


def _make():
    return acv.create_autocast_variable(tf.Variable([1.0, 2.0]))


def test_reads_cast_only_inside_scope():
    v = _make()
    assert v.dtype == tf.float32 and tf.convert_to_tensor(v).dtype == tf.float32.as_torch
    with acv.enable_auto_cast_variables(tf.float16):
        assert v.dtype == tf.float16 and v.true_dtype == tf.float32
        assert tf.convert_to_tensor(v).dtype == tf.float16.as_torch
        assert (v * 2).dtype == tf.float16.as_torch
        assert tf.add(v, v).dtype == tf.float16.as_torch
    assert acv.is_autocast_variable(v)


def test_gradient_is_float32_to_inner():
    v = _make()
    with acv.enable_auto_cast_variables(tf.float16):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v * v)
    g = tape.gradient(y, v)
    assert g.dtype == tf.float32.as_torch
    np.testing.assert_array_equal(np.asarray(g), [2.0, 4.0])


def test_assign_and_numpy_delegate():
    v = _make()
    assert v.assign_add([1.0, 1.0]) is v
    np.testing.assert_array_equal(np.asarray(v), [2.0, 3.0])
    assert v.numpy().dtype == np.float32
    assert v.name == v._variable.name and v.shape == v._variable.shape


def test_rejects_non_floating():
    with pytest.raises(ValueError, match="floating point"):
        acv.create_autocast_variable(tf.Variable([1, 2]))
