"""Reads are snapshots, and copy-on-write keeps them cheap (behaviour, not timing).

A read aliases the variable's storage; a write goes in place when no read is
alive, and to new storage (leaving the read its values) when one is.
`v.handle.data_ptr()` shows which happened. The snapshot law over every read
kind and mutator runs in the conformance suite.
"""

import numpy as np
import pytest
import torch

import tfcompat as tf

WRITES = {
    "assign": lambda v: v.assign(np.full(4, 5.0, np.float32)),
    "assign_add": lambda v: v.assign_add(np.ones(4, np.float32)),
    "assign_sub": lambda v: v.assign_sub(np.ones(4, np.float32)),
    "scatter_add": lambda v: v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([2]))),
    "scatter_nd_update": lambda v: v.scatter_nd_update(tf.constant([[1]]), tf.constant([9.0])),
    "slice_assign": lambda v: v[1:3].assign(7.0),
    "item_assign": lambda v: v.__setitem__(0, 3.0),
}


def fresh():
    return tf.Variable(np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_after_reads_were_dropped_is_in_place(write):
    v = fresh()
    r = v.read_value()
    s = v[1:]
    del r, s
    ptr = v.handle.data_ptr()
    WRITES[write](v)
    assert v.handle.data_ptr() == ptr


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_never_read_is_in_place(write):
    v = fresh()
    ptr = v.handle.data_ptr()
    for _ in range(3):
        WRITES[write](v)
    assert v.handle.data_ptr() == ptr


@pytest.mark.parametrize("read", ["read_value", "value", "convert", "slice", "view", "row"])
@pytest.mark.parametrize("write", list(WRITES))
def test_a_live_read_keeps_its_values_and_the_write_moves(read, write):
    v = fresh()
    ptr = v.handle.data_ptr()
    r = {"read_value": lambda: v.read_value(), "value": lambda: v.value(),
         "convert": lambda: tf.convert_to_tensor(v), "slice": lambda: v[1:3],
         "view": lambda: v.read_value()[0], "row": lambda: list(v)[2]}[read]()
    before = r.clone()
    WRITES[write](v)
    assert torch.equal(r, before)
    assert v.handle.data_ptr() != ptr
    # and the next write, with the old read still alive, is in place again
    ptr2 = v.handle.data_ptr()
    WRITES[write](v)
    assert v.handle.data_ptr() == ptr2
    assert torch.equal(r, before)


def test_one_copy_per_kept_read_not_per_write():
    v = fresh()
    kept = v.read_value()
    v.assign_add(np.ones(4, np.float32))
    ptr = v.handle.data_ptr()
    for _ in range(5):
        v.assign_add(np.ones(4, np.float32))
    assert v.handle.data_ptr() == ptr
    np.testing.assert_array_equal(kept.numpy(), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [6.0, 7.0, 8.0, 9.0])


def test_reads_share_storage_until_a_write():
    v = fresh()
    a, b = v.read_value(), v.read_value()
    assert a.data_ptr() == b.data_ptr() == v.handle.data_ptr()  # no copy per read


def test_training_step_updates_in_place_once_the_loss_is_dropped():
    v = tf.Variable(np.ones(64, np.float32))
    ptrs = set()
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = torch.sum(v * v)
        grad = tape.gradient(loss, v)
        del loss
        ptrs.add(v.handle.data_ptr())
        v.assign_sub(0.1 * grad)
    ptrs.add(v.handle.data_ptr())
    assert len(ptrs) == 1


def test_mutating_the_handle_in_place_bypasses_snapshots():
    # documented escape hatch: `handle` is the live storage
    v = fresh()
    v.handle.add_(1.0)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0, 4.0])
