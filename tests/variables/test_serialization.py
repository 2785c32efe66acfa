"""Copying and serializing variables: copy, deepcopy, pickle, to_proto/from_proto.

copy/deepcopy/pickle behave as TF 2.21. `to_proto`/`from_proto` raise in TF 2
eager; tfcompat gives them graph-mode TF's meaning within one process: a
`VariableDef` names the variable's storage, and `from_proto` builds another
variable object over the same storage.
"""

import copy
import gc
import pickle

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.variables import VariableDef


def test_copy_returns_the_variable_itself():
    v = tf.Variable([1.0, 2.0])
    assert copy.copy(v) is v


def test_deepcopy_is_an_independent_variable_with_the_same_metadata():
    clip = lambda x: x  # noqa: E731
    with tf.name_scope("sc"):
        v = tf.Variable([1.0, 2.0], name="w", trainable=False, constraint=clip,
                        synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.MEAN)
    d = copy.deepcopy(v)
    assert isinstance(d, tf.Variable) and d is not v
    assert d.name == "sc/w:0" and d.dtype == v.dtype and d.shape == v.shape
    assert d.trainable is False and d.constraint is clip
    assert d.synchronization == tf.VariableSynchronization.ON_READ
    assert d.aggregation == tf.VariableAggregation.MEAN
    d.assign([5.0, 5.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.assign([7.0, 7.0])
    np.testing.assert_array_equal(d.numpy(), [5.0, 5.0])


def test_deepcopy_keeps_sharing_within_a_structure():
    v = tf.Variable([1.0])
    a, b = copy.deepcopy([v, v])
    assert a is b and a is not v

    class Holder:
        def __init__(self, var):
            self.var = var
            self.alias = var

    h = copy.deepcopy(Holder(v))
    assert h.var is h.alias and h.var is not v
    h.var.assign([3.0])
    assert float(v[0]) == 1.0


@pytest.mark.parametrize("value", [np.array([1.0, 2.0], np.float32), np.array([1, 2], np.int64),
                                   np.array([1.0, 2.0], np.float16), np.float64(3.5),
                                   np.array([[True, False]])])
def test_pickle_round_trip(value):
    with tf.name_scope("sc"):
        v = tf.Variable(value, name="p", trainable=False)
    p = pickle.loads(pickle.dumps(v))
    assert isinstance(p, tf.Variable) and p is not v
    assert p.name == "sc/p:0" and p.trainable is False
    assert p.dtype == v.dtype and p.shape == v.shape
    np.testing.assert_array_equal(p.numpy(), value)
    p.assign(np.zeros_like(value))
    np.testing.assert_array_equal(v.numpy(), value)  # independent storage


def test_to_proto_names_the_variable():
    with tf.name_scope("outer"):
        v = tf.Variable([1.0, 2.0], name="x", trainable=False)
    d = v.to_proto()
    assert isinstance(d, VariableDef)
    assert d.variable_name == "outer/x:0"
    assert d.trainable is False and d.is_resource is True
    assert d.snapshot_name == "outer/x/Read/ReadVariableOp:0"


def test_from_proto_shares_storage_within_the_process():
    v = tf.Variable([1.0, 2.0], name="shared", trainable=False)
    w = tf.Variable.from_proto(v.to_proto())
    assert isinstance(w, tf.Variable) and w is not v
    assert w.name == "shared:0" and w.dtype == tf.float32 and w.trainable is False
    w.assign([3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    np.testing.assert_array_equal(w.numpy(), [4.0, 5.0])
    r = w.read_value()
    v.assign([0.0, 0.0])
    np.testing.assert_array_equal(r.numpy(), [4.0, 5.0])  # snapshots hold across objects too


def test_import_and_export_scopes():
    with tf.name_scope("model"):
        v = tf.Variable(1.0, name="k")
    assert v.to_proto(export_scope="other") is None
    d = v.to_proto(export_scope="model")
    assert d.variable_name == "k:0"
    w = tf.Variable.from_proto(d, import_scope="copy")
    assert w.name == "copy/k:0"
    w.assign(2.0)
    assert float(v) == 2.0


def test_from_proto_of_a_variable_that_is_gone_is_not_found():
    d = tf.Variable(1.0).to_proto()
    gc.collect()
    with pytest.raises(errors.NotFoundError):
        tf.Variable.from_proto(d)
