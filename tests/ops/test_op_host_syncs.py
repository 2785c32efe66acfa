"""The host syncs of the op subset, checked on CPU with the operator watch.

`docs/op_coverage.md` promises: Python operands are filled on the device of
the tensor they meet (never a host-to-device copy); the data checks TF's CPU
kernels make (indices, integer division by zero, negative integer powers)
are free on CPU and skipped on an accelerator; host syncs happen only where
TF's result shape depends on the data (`unique`, `boolean_mask`,
one-argument `where`). `tests/ops/test_placement.py` checks placement with
`meta` tensors; here `tfcompat.testing.host_syncs()` watches torch's operators
(C++ callers included) with CPU tensors standing in for device tensors, and
`accelerator_policy()` applies the accelerator's data-check policy to them.
Inputs are built before each watched block (building them from host data is
the test's doing, not the op's).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat import random as tfr
from tfcompat.testing import accelerator_policy, host_syncs

X = torch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
W = torch.from_numpy(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
I = torch.tensor([7, 8, 9])
G = torch.ones(4, 3)
ND = torch.tensor([[1, 2], [0, 0]])
ROWS = torch.tensor([1, 0, 1])
LABELS = torch.tensor([0, 3])
ONE_HOT = torch.eye(4)[LABELS]
MASK = X > 2
SEGMENTS = torch.tensor([1, 0])
SCATTER_AT = torch.tensor([[1]])
SCATTER_UPD = torch.ones(1, 3)
DENSE_SHAPE = torch.tensor([4, 3])  # host memory by design (TF keeps shapes there too)
SPARSE = tf.IndexedSlices(torch.ones(2, 3), torch.tensor([0, 3]), DENSE_SHAPE)


#: The ops of a training step: no host read, no copy, no tensor built from host data.
SYNC_FREE = {
    "add_python_float": lambda: tf.add(X, 2.0),
    "multiply_python_int": lambda: tf.multiply(3, X),
    "subtract_from_python": lambda: tf.subtract(1.5, X),
    "truediv": lambda: tf.truediv(X, 4.0),
    "maximum": lambda: tf.maximum(X, 0.5),
    "less": lambda: tf.less(X, 1.0),
    "pow_float": lambda: tf.pow(X, 2.0),
    "floordiv_int_tensor": lambda: tfm.floordiv(I, I),
    "floordiv_python_int": lambda: tfm.floordiv(I, 2),
    "floormod_int_tensor": lambda: tfm.floormod(I, I),
    "pow_int_tensor": lambda: tf.pow(I, I),
    "matmul": lambda: tf.matmul(X, W),
    "relu": lambda: nn.relu(X),
    "softmax": lambda: nn.softmax(X),
    "sparse_softmax_xent": lambda: nn.sparse_softmax_cross_entropy_with_logits(LABELS, tf.matmul(X, W)),
    "softmax_xent": lambda: nn.softmax_cross_entropy_with_logits(ONE_HOT, tf.matmul(X, W)),
    "sigmoid_xent": lambda: nn.sigmoid_cross_entropy_with_logits(tf.ones_like(X), X),
    "reduce_mean": lambda: tf.reduce_mean(X),
    "reduce_sum_axis": lambda: tf.reduce_sum(X, axis=1),
    "argmax": lambda: tf.argmax(X, 1),
    "clip_by_global_norm": lambda: tf.clip_by_global_norm([G, None], 1.0),
    "clip_by_norm": lambda: tf.clip_by_norm(G, 1.0),
    "clip_by_value": lambda: tf.clip_by_value(G, -0.5, 0.5),
    "dropout": lambda: nn.dropout(X, 0.5),
    "gather": lambda: tf.gather(X, ROWS),
    "gather_nd": lambda: tf.gather_nd(X, ND),
    "unsorted_segment_sum": lambda: tfm.unsorted_segment_sum(X, SEGMENTS, 2),
    "tensor_scatter_nd_add": lambda: tf.tensor_scatter_nd_add(X, SCATTER_AT, SCATTER_UPD),
    "tensor_scatter_nd_update": lambda: tf.tensor_scatter_nd_update(X, SCATTER_AT, SCATTER_UPD),
    "one_hot": lambda: tf.one_hot(LABELS, 4),
    "where_three_arguments": lambda: tf.where(MASK, X, tf.zeros_like(X)),
    "reshape": lambda: tf.reshape(X, [3, 2]),
    "transpose": lambda: tf.transpose(X),
    "concat": lambda: tf.concat([X, X], 0),
    "cast": lambda: tf.cast(X, tf.float64),
    "indexed_slices_to_dense": lambda: SPARSE.to_dense(),
    "convert_indexed_slices": lambda: tf.convert_to_tensor(SPARSE),
    "random_normal": lambda: tfr.normal([3], 0.0, 1.0),
}


def _watched(fn, **kwargs):
    with accelerator_policy():
        with host_syncs(new_host_tensors=True, host_memory=[DENSE_SHAPE], **kwargs) as log:
            fn()
    return log


@pytest.mark.parametrize("name", list(SYNC_FREE))
def test_training_step_ops_never_sync_with_the_host(name):
    log = _watched(SYNC_FREE[name])
    assert not log, log.report()


def test_a_training_step_through_the_tape_never_syncs():
    """Forward, loss and gradients (autograd's backward operators included) of a small model."""
    with accelerator_policy():
        w = tf.Variable(W)
        table = tf.Variable(torch.ones(4, 2))
        with host_syncs(new_host_tensors=True, host_memory=[DENSE_SHAPE]) as log:
            with tf.GradientTape() as tape:
                h = tf.concat([tf.gather(table, ROWS[:2]), X[:, :1]], 1)
                logits = tf.matmul(nn.dropout(nn.relu(h), 0.25), w[:3])
                loss = tf.reduce_mean(nn.sparse_softmax_cross_entropy_with_logits(LABELS, logits))
            grads = tape.gradient(loss, [w, table])
            clipped, norm = tf.clip_by_global_norm(grads, 1.0)
            tf.convert_to_tensor(clipped[1])
    assert not log, log.report()
    assert isinstance(grads[1], tf.IndexedSlices)


# -- where the docs say syncs happen, the watch sees them ----------------------------------------

DATA_DEPENDENT = {
    "unique": (lambda: tf.unique(I), "aten::_unique2"),
    "boolean_mask": (lambda: tf.boolean_mask(X, MASK[:, 0]), "aten::nonzero"),
    "where_one_argument": (lambda: tf.where(MASK), "aten::nonzero"),
}


@pytest.mark.parametrize("name", list(DATA_DEPENDENT))
def test_data_dependent_shapes_sync_as_documented(name):
    fn, op = DATA_DEPENDENT[name]
    log = _watched(fn)
    assert op in log.ops, log.report()
    assert any(s.location.startswith("tfcompat/ops/") for s in log), log.report()


CPU_CHECKS = {  # TF's CPU kernels validate these; tfcompat reads them on the host only on CPU
    "floordiv_by_tensor": lambda: tfm.floordiv(I, I),
    "floormod_by_tensor": lambda: tfm.floormod(I, I),
    "pow_int_tensor": lambda: tf.pow(I, I),
    "gather": lambda: tf.gather(X, ROWS),
    "gather_nd": lambda: tf.gather_nd(X, ND),
    "unsorted_segment_sum": lambda: tfm.unsorted_segment_sum(X, SEGMENTS, 2),
    "tensor_scatter_nd_add": lambda: tf.tensor_scatter_nd_add(X, SCATTER_AT, SCATTER_UPD),
    "sparse_softmax_xent": lambda: nn.sparse_softmax_cross_entropy_with_logits(LABELS, tf.matmul(X, W)),
}


@pytest.mark.parametrize("name", list(CPU_CHECKS))
def test_cpu_data_checks_read_on_the_host_only_on_cpu(name):
    with host_syncs() as log:
        CPU_CHECKS[name]()
    assert "aten::_local_scalar_dense" in log.ops, "TF's CPU kernel validates this data: tfcompat too"
    assert _watched(CPU_CHECKS[name]).ops == []


def test_shape_tensors_are_read_without_touching_the_device():
    """`tf.shape` is built from the static shape, in host memory (TF keeps shapes there): no
    device value is read to make it."""
    with accelerator_policy():
        with host_syncs() as log:
            out = tf.shape(X)
    assert not log, log.report()
    assert out.device.type == "cpu" and out.tolist() == [2, 3]
