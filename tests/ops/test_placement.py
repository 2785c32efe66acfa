"""Where ops put their results, and which checks read data back to the host.

A Python operand is made on the device of the tensor it meets (a fill
kernel there), so an op runs where its tensors live whatever `tf.device`
says, with no host-to-device copy. TF's CPU kernels validate data (indices,
integer division by zero, negative integer powers); its GPU kernels do not,
and tfcompat only reads data back where that is free (`checks_on_host`).

torch's `meta` device stands in for an accelerator here: its tensors have
no data, so any read back to the host, or any tensor placed there by
mistake and then mixed with host tensors, fails loudly on a CPU-only host.
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat import errors
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat.framework import device as device_lib

META = torch.device("meta")


@pytest.fixture
def placed_elsewhere(monkeypatch):
    """New tensors go to the `meta` device, as they would go to GPU:0 on a GPU host."""
    monkeypatch.setattr(device_lib, "current_torch_device", lambda: META)


def test_python_operands_follow_their_tensor(placed_elsewhere):
    x = torch.tensor([1.0, 2.0, 3.0])
    i = torch.tensor([7, 8], dtype=torch.int32)
    b = torch.tensor([True, False])
    results = {
        "add": (tf.add(x, 2.0), [3.0, 4.0, 5.0]),
        "radd": (tf.add(2.0, x), [3.0, 4.0, 5.0]),
        "subtract": (tf.subtract(x, 1), [0.0, 1.0, 2.0]),
        "multiply": (tf.multiply(2.0, x), [2.0, 4.0, 6.0]),
        "truediv": (tf.truediv(x, 2.0), [0.5, 1.0, 1.5]),
        "rtruediv": (tf.truediv(6.0, x), [6.0, 3.0, 2.0]),
        "floordiv": (tfm.floordiv(i, 2), [3, 4]),
        "floormod": (tfm.floormod(i, 3), [1, 2]),
        "pow": (tf.pow(i, 2), [49, 64]),
        "maximum": (tf.maximum(i, 8), [8, 8]),
        "less": (tf.less(x, 2.5), [True, True, False]),
        "equal": (tf.equal(2.0, x), [False, True, False]),
        "logical_and": (tf.logical_and(b, True), [True, False]),
        "logical_or": (tf.logical_or(False, b), [True, False]),
        "bitwise_and": (tf.bitwise.bitwise_and(i, 3), [3, 0]),
        "where": (tf.where(b, torch.tensor([1.0, 2.0]), 0.0), [1.0, 0.0]),
        "concat": (tf.concat([i, [9]], 0), [7, 8, 9]),
        "pad": (tf.pad(x, torch.tensor([[1, 0]]), constant_values=9.0), [9.0, 1.0, 2.0, 3.0]),
        "scatter_update": (tf.tensor_scatter_nd_update(x, torch.tensor([[0]]), [5.0]),
                           [5.0, 2.0, 3.0]),
        "one_hot": (tf.one_hot(torch.tensor([1]), 2), [[0.0, 1.0]]),
        "clip_by_value": (tf.clip_by_value(x, 1.5, 2.5), [1.5, 2.0, 2.5]),
        "clip_by_norm": (tf.clip_by_norm(torch.tensor([3.0, 4.0]), 1.0), [0.6, 0.8]),
        "clip_by_global_norm": (tf.clip_by_global_norm([torch.tensor([3.0, 4.0])], 1.0)[0][0],
                                [0.6, 0.8]),
        # Python indices, labels and masks meet their data where it is.
        "gather": (tf.gather(x, [2, 0]), [3.0, 1.0]),
        "gather_nd": (tf.gather_nd(x, [[1]]), [2.0]),
        "scatter_add": (tf.tensor_scatter_nd_add(x, [[2]], [1.0]), [1.0, 2.0, 4.0]),
        "segment_sum": (tfm.unsorted_segment_sum(x, [0, 1, 0], 2), [4.0, 2.0]),
        "boolean_mask": (tf.boolean_mask(x, [True, False, True]), [1.0, 3.0]),
        "sparse_xent": (nn.sparse_softmax_cross_entropy_with_logits([0], torch.zeros(1, 2)),
                        [np.log(2.0)]),
        "softmax_xent": (nn.softmax_cross_entropy_with_logits([[1.0, 0.0]], torch.zeros(1, 2)),
                         [np.log(2.0)]),
        "sigmoid_xent": (nn.sigmoid_cross_entropy_with_logits([0.0], torch.zeros(1)),
                         [np.log(2.0)]),
    }
    for name, (out, expected) in results.items():
        assert out.device.type == "cpu", name
        np.testing.assert_allclose(np.asarray(out.tolist()), expected, rtol=1e-6, err_msg=name)


def test_new_tensors_still_follow_the_placement(placed_elsewhere):
    assert tf.constant(1.0).device == META and tf.zeros([2]).device == META
    assert tf.add(1.0, 2.0).device == META  # no tensor operand: the current device


# -- data checks: on the host only ---------------------------------------------------------------

def test_integer_division_checks_read_data_on_the_host_only():
    on_cpu = torch.tensor([4, 5], dtype=torch.int32)
    with pytest.raises(errors.InvalidArgumentError, match=r"Integer division by zero \[Op:FloorDiv\]"):
        tfm.floordiv(on_cpu, torch.tensor([1, 0], dtype=torch.int32))
    with pytest.raises(errors.InvalidArgumentError, match=r"Integer division by zero \[Op:FloorMod\]"):
        tfm.floormod(on_cpu, torch.tensor([0, 1], dtype=torch.int32))
    with pytest.raises(errors.InvalidArgumentError, match="Integers to negative integer powers"):
        tf.pow(on_cpu, torch.tensor([1, -1], dtype=torch.int32))
    # Elsewhere nothing is read back (TF's GPU kernels do not check either).
    x = torch.empty(2, dtype=torch.int64, device=META)
    y = torch.empty(2, dtype=torch.int64, device=META)
    for out in (tfm.floordiv(x, y), tfm.floormod(x, y), tf.pow(x, y)):
        assert out.device == META and out.shape == (2,)


def test_python_divisors_are_checked_before_conversion_anywhere():
    # A Python zero is known without reading any tensor: the error costs nothing.
    x = torch.empty(2, dtype=torch.int64, device=META)
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        tfm.floordiv(x, 0)
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        tfm.floormod(x, 0)
    with pytest.raises(errors.InvalidArgumentError, match="Integers to negative integer powers"):
        tf.pow(x, -2)
    assert tfm.floordiv(torch.tensor([7.0]), 0).tolist() == [float("inf")]  # floats divide


def test_no_host_reads_for_accelerator_training_ops():
    """The ops of a training step run on `meta` tensors: nothing is read back or copied in."""
    w = torch.empty(4, 3, device=META)
    x = torch.empty(2, 4, device=META)
    logits = tf.matmul(x, w)
    labels = torch.empty(2, dtype=torch.int64, device=META)
    loss = tf.reduce_mean(nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    assert loss.device == META
    g = torch.empty(4, 3, device=META)
    clipped, norm = tf.clip_by_global_norm([g, None], 5.0)
    assert clipped[0].device == META and clipped[1] is None and norm.device == META
    assert tf.clip_by_norm(g, 1.0).device == META
    assert nn.dropout(x, 0.5).device == META
    rows = tf.gather_nd(w, torch.empty(5, 2, dtype=torch.int64, device=META))
    assert rows.device == META and rows.shape == (5,)
    s = tf.IndexedSlices(torch.empty(2, 3, device=META), torch.empty(2, dtype=torch.int64,
                                                                    device=META), [4, 3])
    assert s.to_dense().device == META and s.shape == tf.TensorShape([4, 3])
    assert tf.range(0.0, 1.0, 0.25).device.type == "cpu"  # (ops tests are placed on the host)
