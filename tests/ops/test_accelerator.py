"""Ops on an accelerator: TF's GPU semantics and agreement with the CPU results.

Skipped without CUDA. On a GPU, TF's kernels do not validate indices (a
gather reads zeros, a scatter drops the update, a bad sparse label gives
NaN) and tfcompat follows them without host syncs.
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat import random as tfr

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

GPU = torch.device("cuda", 0)


def cuda(x, dtype=None):
    return torch.as_tensor(np.asarray(x), dtype=dtype, device=GPU)


def test_gather_out_of_range_reads_zeros_on_gpu():
    p = cuda([10.0, 11.0, 12.0])
    out = tf.gather(p, cuda([2, 5, -1, 0], torch.int32))
    assert out.device.type == "cuda" and out.tolist() == [12.0, 0.0, 0.0, 10.0]
    x = cuda(np.arange(6).reshape(2, 3), torch.int32)
    assert tf.gather(x, cuda([3, 1]), axis=1).tolist() == [[0, 1], [0, 4]]
    assert tf.gather(x, cuda([[0, 7], [2, 2]]), axis=1, batch_dims=1).tolist() == [[0, 0], [5, 5]]
    assert tf.gather_nd(x, cuda([[0, 1], [1, 3], [-1, 0]])).tolist() == [1, 0, 0]


def test_scatters_drop_out_of_range_updates_on_gpu():
    out = tf.scatter_nd(cuda([[1], [7], [1]]), cuda([1.0, 2.0, 3.0]), [4])
    assert out.tolist() == [0.0, 4.0, 0.0, 0.0]
    t = cuda([1.0, 2.0, 3.0])
    assert tf.tensor_scatter_nd_update(t, cuda([[5], [0]]), cuda([9.0, 8.0])).tolist() == [8, 2, 3]
    assert tf.tensor_scatter_nd_add(t, cuda([[-1], [2]]), cuda([9.0, 8.0])).tolist() == [1, 2, 11]
    seg = tfm.unsorted_segment_sum(cuda([1.0, 2.0, 4.0]), cuda([0, 9, -1]), 2)
    assert seg.tolist() == [1.0, 0.0]


def test_sparse_xent_bad_label_is_nan_on_gpu():
    logits = cuda([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    out = nn.sparse_softmax_cross_entropy_with_logits(cuda([3, 0]), logits)
    assert np.isnan(out[0].item()) and out[1].item() == pytest.approx(np.log(3), rel=1e-6)


def test_random_ops_on_gpu_are_seeded_and_placed():
    with tf.device("/gpu:0"):
        tfr.set_seed(3)
        a = [tfr.uniform([5]), tfr.normal([5], seed=1), tfr.truncated_normal([5]),
             tfr.uniform([5], 0, 9, dtype=tf.int64), nn.dropout(tf.ones([8]), 0.5)]
        tfr.set_seed(3)
        b = [tfr.uniform([5]), tfr.normal([5], seed=1), tfr.truncated_normal([5]),
             tfr.uniform([5], 0, 9, dtype=tf.int64), nn.dropout(tf.ones([8]), 0.5)]
    tfr.set_seed(None)
    for x, y in zip(a, b):
        assert x.device.type == "cuda" and torch.equal(x, y)


def test_creation_ops_follow_gpu_placement():
    with tf.device("/gpu:0"):
        for t in (tf.zeros([2]), tf.ones([2]), tf.fill([2], 1.0), tf.range(3), tf.constant([1.0])):
            assert t.device.type == "cuda"
    with tf.device("/cpu:0"):
        assert tf.zeros([2]).device.type == "cpu"


def test_shape_tensors_live_on_the_host_and_mix_with_gpu_tensors():
    x = cuda(np.ones((2, 3), np.float32))
    s = tf.shape(x)
    assert s.device.type == "cpu"
    assert tf.reshape(cuda(np.arange(6)), s).shape == (2, 3)
    assert (x / tf.cast(tf.size(x), tf.float32)).device.type == "cuda"
    assert tf.concat([tf.shape(x), cuda([7], torch.int32)], 0).tolist() == [2, 3, 7]


CASES = {
    "reduce": lambda a: [tf.reduce_sum(a, 1), tf.reduce_mean(a), tf.reduce_max(a, [0, 1]),
                         tf.reduce_prod(a, 0, keepdims=True), tf.argmax(a, 1), tf.cumsum(a, 1,
                                                                                           True)],
    "array": lambda a: [tf.transpose(a), tf.tile(a, [2, 1]), tf.pad(a, [[1, 1], [2, 2]], "REFLECT"),
                        tf.pad(a, [[1, 1], [2, 2]], "SYMMETRIC"), tf.pad(a, [[1, 0], [0, 1]]),
                        tf.concat([a, a], 0), tf.stack([a, a], 1), tf.split(a, [1, -1], 1)[1]],
    "index": lambda a: [tf.gather(a, [2, 0], axis=1), tf.gather_nd(a, [[1, 2]]),
                        tf.boolean_mask(a, a > 0), tf.where(a > 0), tf.where(a > 0, a, -a),
                        tf.unique(tf.reshape(a, [-1])).y, tf.one_hot([0, 2], 3)],
    "nn": lambda a: [nn.softmax(a), nn.log_softmax(a, 0), nn.relu(a), nn.l2_loss(a),
                     nn.softmax_cross_entropy_with_logits(tf.nn.softmax(a * 2), a),
                     nn.sparse_softmax_cross_entropy_with_logits([1, 0], a),
                     nn.sigmoid_cross_entropy_with_logits(tf.sigmoid(a), a),
                     nn.bias_add(a, [1.0, 2.0, 3.0])],
    "clip": lambda a: [tf.clip_by_value(a, -0.5, 0.5), tf.clip_by_norm(a, 1.0, axes=[1]),
                       tf.clip_by_global_norm([a, None], 1.0)[0][0]],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_results_match_cpu(name):
    base = np.array([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]], np.float32)
    with tf.device("/cpu:0"):
        want = CASES[name](torch.tensor(base))
    with tf.device("/gpu:0"):
        got = CASES[name](torch.tensor(base, device=GPU))
    for g, w in zip(got, want):
        assert g.device.type == "cuda", name
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_gradients_on_gpu():
    v = tf.Variable(np.array([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]], np.float32))
    assert "GPU" in v.device
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [1, 1])) + tf.reduce_sum(tf.clip_by_value(v, -1.0, 1.0))
    g = tape.gradient(y, v)
    dense = tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g
    assert dense.device.type == "cuda"


def test_training_step_ops_never_sync_with_the_host():
    """No op of a typical step waits for the GPU: Python operands are filled on the device,
    integer checks are skipped there, shape tensors are read from host memory.

    `torch.cuda.set_sync_debug_mode("error")` turns any synchronizing CUDA call (a
    blocking host-to-device copy, a read back) into an error.
    """
    x = cuda(np.arange(6, dtype=np.float32).reshape(2, 3))
    i = cuda([7, 8, 9], torch.int64)
    g = cuda(np.ones((4, 3), np.float32))
    idx = cuda([[1, 2], [0, 0]], torch.int64)
    sparse = tf.IndexedSlices(cuda(np.ones((2, 3), np.float32)), cuda([0, 3], torch.int64),
                              torch.tensor([4, 3]))
    with no_host_sync():
        outs = [tf.add(x, 2.0), tf.multiply(3, x), tf.subtract(1.5, x), tf.truediv(x, 4.0),
                tf.maximum(x, 0.5), tf.less(x, 1.0), tf.pow(x, 2.0),
                tfm.floordiv(i, 2), tfm.floormod(i, i), tf.pow(i, i), tfm.floordiv(i, i),
                tf.clip_by_global_norm([g, None], 1.0)[0][0], tf.clip_by_norm(g, 1.0),
                tf.clip_by_value(g, -0.5, 0.5), nn.dropout(x, 0.5), tf.gather_nd(x, idx),
                sparse.to_dense(), tf.convert_to_tensor(sparse), tfr.normal([3], 0.0, 1.0)]
    assert all(o.device.type == "cuda" for o in outs)
