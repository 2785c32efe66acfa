"""What a cross-replica update of a distributed variable returns converts to the new value (TF's
`Mirrored` conversion), and the default strategy names no devices (TF's RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.framework import device as device_lib
from tests.distribute.logical_devices import logical_cpus


@pytest.fixture(autouse=True)
def two_cpus():
    with logical_cpus(2):
        yield


floats = st.lists(st.floats(-1e3, 1e3, width=32), min_size=1, max_size=4)


@settings(max_examples=15)
@given(start=floats, delta=st.floats(-10, 10, width=32),
       method=st.sampled_from(["assign", "assign_add", "assign_sub"]),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_mirrored_update_result_is_the_new_value(start, delta, method, dtype):
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    x = np.asarray(start, dtype)
    with s.scope():
        v = tf.Variable(x)
        arg = np.full_like(x, delta)
        r = getattr(v, method)(arg)
        new = np.asarray(v.read_value())
        for view in (r.numpy(), np.asarray(r), np.asarray(tf.convert_to_tensor(r)),
                     np.asarray(tf.identity(r)), np.asarray(r * 1)):
            np.testing.assert_array_equal(view, new)
        assert tf.convert_to_tensor(r).dtype == v.dtype
        v.assign_add(np.ones_like(x))  # the result is a snapshot, not a live view
        np.testing.assert_array_equal(np.asarray(r), new)
        with tf.device("/cpu:1"):
            np.testing.assert_array_equal(np.asarray(tf.convert_to_tensor(r)), new)
        assert v.assign(x, read_value=False) is None


def test_mirrored_variable_still_converts_as_a_variable_read():
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        v = tf.Variable([1.0, 2.0])
    t = tf.convert_to_tensor(v)
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])  # a read is a snapshot


def test_a_per_replica_value_does_not_convert_in_cross_replica_context():
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    pr = s.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    with pytest.raises(ValueError):
        tf.convert_to_tensor(pr)


@pytest.mark.parametrize("name", ["worker_devices", "parameter_devices"])
def test_default_strategy_names_no_devices(name):
    ds = tf.distribute.get_strategy()
    with pytest.raises(RuntimeError, match=rf"^{name}\(\) method unsupported by default "
                                           r"tf\.distribute\.Strategy\."):
        getattr(ds.extended, name)
    with tf.device("/cpu:1"):  # its one replica still runs where tf.device says
        where = ds.experimental_distribute_values_from_function(
            lambda ctx: device_lib.current_device())
    assert where == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert tf.distribute.OneDeviceStrategy("/cpu:1").extended.worker_devices == (
        "/job:localhost/replica:0/task:0/device:CPU:1",)
