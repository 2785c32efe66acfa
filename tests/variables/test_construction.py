"""`tf.Variable(...)`: every constructor argument, as TF 2.21 eager handles it.

Expected values were recorded from TensorFlow 2.21 (eager).
"""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.testing import strategies as tfst

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


# -- initial_value ------------------------------------------------------------

@pytest.mark.parametrize("value, dtype, expected", [
    (1, tf.int32, 1),
    (1.5, tf.float32, 1.5),
    (True, tf.bool, True),
    (2 ** 40, tf.int64, 2 ** 40),
    ([1, 2.5], tf.float32, [1.0, 2.5]),
    ([[1, 2], [3, 4]], tf.int32, [[1, 2], [3, 4]]),
    ([], tf.float32, []),
    (np.array([1.5]), tf.float64, [1.5]),
    (np.array([1, 2], np.int64), tf.int64, [1, 2]),
    (np.float16(0.5), tf.float16, 0.5),
])
def test_python_and_numpy_initial_values_infer_tf_dtypes(value, dtype, expected):
    v = tf.Variable(value)
    assert v.dtype == dtype
    np.testing.assert_array_equal(v.numpy(), np.array(expected, dtype=dtype.as_numpy_dtype))
    assert v.shape == np.shape(expected)


def test_tensor_and_constant_initial_values():
    v = tf.Variable(tf.constant([1.0, 2.0]))
    assert v.dtype == tf.float32
    w = tf.Variable(torch.tensor([1, 2], dtype=torch.int64))
    assert w.dtype == tf.int64
    np.testing.assert_array_equal(w.numpy(), [1, 2])


def test_callable_initial_value_is_called():
    calls = []

    def init():
        calls.append(1)
        return tf.constant([1.0, 1.0])

    v = tf.Variable(init)
    assert calls == [1]
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])


def test_another_variable_as_initial_value_is_copied():
    src = tf.Variable([1.0, 2.0], name="src")
    v = tf.Variable(src)
    assert v.name == "Variable:0" and v.dtype == tf.float32
    src.assign([9.0, 9.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.assign([5.0, 5.0])
    np.testing.assert_array_equal(src.numpy(), [9.0, 9.0])


@pytest.mark.parametrize("source", ["numpy", "torch"])
def test_the_variable_owns_its_storage(source):
    init = np.array([1.0, 2.0], np.float32)
    if source == "torch":
        init = torch.from_numpy(init)
    v = tf.Variable(init)
    init[0] = 100.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.assign_add([1.0, 1.0])
    assert float(init[1]) == 2.0


def test_missing_initial_value_is_a_value_error():
    with pytest.raises(ValueError, match="initial_value"):
        tf.Variable()
    with pytest.raises(ValueError, match="initial_value"):
        tf.Variable(None)


def test_variable_def_and_initial_value_are_exclusive():
    with pytest.raises(ValueError):
        tf.Variable(1.0, variable_def=tf.Variable(2.0).to_proto())


# -- dtype --------------------------------------------------------------------

def test_python_int_with_float_dtype_is_converted():
    v = tf.Variable(1, dtype=tf.float32)
    assert v.dtype == tf.float32 and float(v) == 1.0


def test_python_float_with_int_dtype_is_a_type_error():
    with pytest.raises(TypeError):
        tf.Variable(1.5, dtype=tf.int32)


def test_tensor_of_another_dtype_is_a_value_error():
    with pytest.raises(ValueError):
        tf.Variable(tf.constant(1), dtype=tf.float32)
    with pytest.raises(ValueError):
        tf.Variable(lambda: tf.constant([1.0]), dtype=tf.float64)
    with pytest.raises(ValueError):
        tf.Variable(tf.Variable([1.0]), dtype=tf.float64)


def test_numpy_arrays_are_cast_to_the_requested_dtype():
    v = tf.Variable(np.array([1.5]), dtype=tf.float32)
    assert v.dtype == tf.float32
    w = tf.Variable(np.array([1.5, -1.5]), dtype=tf.int32)
    np.testing.assert_array_equal(w.numpy(), np.array([1, -1], np.int32))


@pytest.mark.parametrize("spelling", ["float64", np.float64, torch.float64, tf.float64, "double"])
def test_dtype_spellings(spelling):
    assert tf.Variable(1.0, dtype=spelling).dtype == tf.float64


@given(st.data())
def test_dtype_and_shape_follow_the_initial_value(data):
    dtype = data.draw(tfst.dtypes())
    value = data.draw(tfst.arrays(dtype, data.draw(tfst.shapes())))
    v = tf.Variable(value)
    assert v.dtype == dtype and v.shape == value.shape
    assert v.handle.dtype == dtype.as_torch and tuple(v.handle.shape) == value.shape
    np.testing.assert_array_equal(v.numpy(), value)


# -- name ---------------------------------------------------------------------

def test_default_name():
    assert tf.Variable(1.0).name == "Variable:0"
    assert tf.Variable(1.0, name=None).name == "Variable:0"


def test_name_scopes_prefix_names_which_are_not_uniquified():
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            a = tf.Variable(1.0, name="x")
            b = tf.Variable(1.0, name="x")
            c = tf.Variable(1.0)
    assert (a.name, b.name, c.name) == ("outer/inner/x:0", "outer/inner/x:0",
                                        "outer/inner/Variable:0")


def test_absolute_and_reset_name_scopes():
    with tf.name_scope("outer"):
        with tf.name_scope("abs/"):
            assert tf.Variable(1.0, name="x").name == "abs/x:0"
        with tf.name_scope(""):
            assert tf.Variable(1.0, name="x").name == "x:0"


def test_a_name_with_a_colon_keeps_it():
    assert tf.Variable(1.0, name="a:0").name == "a:0:0"


# -- shape --------------------------------------------------------------------

def test_partial_shape_allows_later_assigns_to_change_shape():
    v = tf.Variable([1.0, 2.0], shape=[None])
    assert v.shape == tf.TensorShape([None]) and v.get_shape() == tf.TensorShape([None])
    v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    assert v.shape.as_list() == [None]
    with pytest.raises(ValueError):
        v.assign([[1.0, 2.0, 3.0]])  # the rank is known
    with pytest.raises(errors.InvalidArgumentError):
        v.assign_add([1.0, 2.0])  # assign_add needs the current shape exactly
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_unknown_shape_allows_rank_changes():
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    assert v.shape == tf.TensorShape(None) and v.shape.rank is None
    v.assign([[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0, 3.0]])
    assert v.shape.rank is None


def test_fully_defined_shape_argument():
    v = tf.Variable([1.0, 2.0], shape=(2,))
    assert v.shape == (2,)
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])


@pytest.mark.parametrize("shape", [[3], [2, 1], []])
def test_incompatible_explicit_shape_is_a_value_error(shape):
    with pytest.raises(ValueError, match="not compatible"):
        tf.Variable([1.0, 2.0], shape=shape)


def test_validate_shape_false_keeps_the_shape_of_the_value():
    v = tf.Variable([1.0, 2.0], validate_shape=False)
    assert v.shape == (2,)
    with pytest.raises(ValueError):
        v.assign([1.0, 2.0, 3.0])


@given(st.data())
def test_partially_shaped_variables_take_any_compatible_value(data):
    dtype = data.draw(tfst.dtypes())
    shape = data.draw(tfst.shapes(min_rank=1))
    known = [data.draw(st.booleans()) for _ in shape]
    declared = [d if k else None for d, k in zip(shape, known)]
    v = tf.Variable(data.draw(tfst.arrays(dtype, shape)), shape=declared)
    new_shape = tuple(d if k else data.draw(st.integers(0, 4)) for d, k in zip(shape, known))
    new_value = data.draw(tfst.arrays(dtype, new_shape))
    v.assign(new_value)
    np.testing.assert_array_equal(v.numpy(), new_value)
    assert v.shape.as_list() == declared
    v.assign_add(new_value)
    np.testing.assert_array_equal(v.numpy(), new_value + new_value)


# -- constraint, synchronization, aggregation, trainable ----------------------

def test_constraint_must_be_callable():
    with pytest.raises(ValueError, match="constraint"):
        tf.Variable(1.0, constraint=3)


def test_constraint_is_kept_but_not_applied_by_assign():
    clip = lambda x: x * 0  # noqa: E731
    v = tf.Variable(5.0, constraint=clip)
    assert v.constraint is clip
    assert float(v) == 5.0
    v.assign(3.0)
    assert float(v) == 3.0
    assert tf.Variable(1.0).constraint is None


def test_synchronization_and_aggregation_defaults():
    v = tf.Variable(1.0)
    assert v.synchronization == tf.VariableSynchronization.AUTO
    assert v.aggregation == tf.VariableAggregation.NONE
    assert v.trainable is True
    w = tf.Variable(1.0, synchronization=None, aggregation=None)
    assert w.synchronization == tf.VariableSynchronization.AUTO
    assert w.aggregation == tf.VariableAggregation.NONE


@pytest.mark.parametrize("kwargs", [{"synchronization": "foo"}, {"aggregation": "foo"},
                                    {"synchronization": 3}])
def test_invalid_synchronization_or_aggregation_is_a_value_error(kwargs):
    with pytest.raises(ValueError):
        tf.Variable(1.0, **kwargs)


def test_on_read_variables_default_to_non_trainable():
    on_read = tf.VariableSynchronization.ON_READ
    assert tf.Variable(1.0, synchronization=on_read).trainable is False
    assert tf.Variable(1.0, synchronization=on_read, trainable=True).trainable is True
    assert tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_WRITE).trainable


@pytest.mark.parametrize("agg", list(tf.VariableAggregation))
def test_aggregation_values_are_kept(agg):
    assert tf.Variable(1.0, aggregation=agg).aggregation == agg


def test_trainable_false():
    assert tf.Variable(1.0, trainable=False).trainable is False


# -- properties ---------------------------------------------------------------

def test_properties():
    v = tf.Variable(np.zeros((2, 3), np.float32), name="p")
    assert v.name == "p:0"
    assert isinstance(v.dtype, tf.DType) and v.dtype == tf.float32
    assert isinstance(v.shape, tf.TensorShape) and v.shape == (2, 3)
    assert v.get_shape() == v.shape
    assert v.device == CPU0
    assert isinstance(v.handle, torch.Tensor) and tuple(v.handle.shape) == (2, 3)
    assert v.initializer is None
    assert tf.is_tensor(v)


def test_device_scope_places_the_variable():
    with tf.device("/cpu:0"):
        v = tf.Variable(1.0)
    assert v.device == CPU0 and v.handle.device.type == "cpu"


def test_initial_value_raises_in_eager_mode():
    with pytest.raises(RuntimeError, match="eager"):
        tf.Variable(1.0).initial_value


def test_caching_device_is_accepted():
    assert float(tf.Variable(1.0, caching_device="/cpu:0")) == 1.0


# -- a fresh runtime ----------------------------------------------------------

def test_tensor_initial_value_as_the_first_call_of_a_process(monkeypatch):
    # The first lines of many TF programs: nothing has touched the device
    # runtime yet when tf.constant runs. A fresh, uninitialized runtime
    # stands in for a new process (and is put back afterwards).
    from tfcompat.framework import device
    monkeypatch.setattr(device, "_runtime", device._Runtime())
    v = tf.Variable(tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.device == CPU0 or "GPU" in v.device


# -- where the initial value is converted ---------------------------------------

def test_a_registered_conversion_result_is_copied_not_adopted():
    # A conversion function may hand out a tensor its object keeps: the variable owns a copy.
    class Box:
        def __init__(self):
            self.held = torch.tensor([1.0, 2.0])

    tf.register_tensor_conversion_function(Box, lambda box, dtype=None, name=None, as_ref=False:
                                           box.held)
    box = Box()
    v = tf.Variable(box)
    v.assign_add([10.0, 10.0])
    np.testing.assert_array_equal(box.held.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [11.0, 12.0])


@pytest.mark.parametrize("initial", [np.ones(3, np.float32), [1.0, 2.0], 3.0])
def test_a_scoped_variable_converts_its_initial_value_on_its_own_device(monkeypatch, initial):
    # The default device stands for an accelerator (torch's "meta" device, which holds no
    # data): a variable placed on the CPU must never convert its initial value there first.
    from tfcompat.framework import device as device_lib
    device_lib._runtime.initialize()
    monkeypatch.setitem(device_lib._runtime.logical, "GPU:0", torch.device("meta"))
    with tf.device("/CPU:0"):
        v = tf.Variable(initial)
    assert v.handle.device.type == "cpu"
    np.testing.assert_array_equal(v.numpy(), np.asarray(initial, np.float32))
