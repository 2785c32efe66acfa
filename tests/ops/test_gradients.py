"""Gradients through the ops, taken with `GradientTape`, against central finite differences."""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat.autodiff import GradientTape

W = np.array([[0.3, -1.2, 0.7], [1.5, 0.2, -0.4]])
M = torch.tensor([[0.5, 1.0, -1.0], [2.0, 0.3, 0.1]], dtype=torch.float64)
LABELS = torch.tensor([[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]], dtype=torch.float64)

# name, scalar function of the variable `v` (shape W.shape, float64)
CASES = [
    ("square/sqrt/exp/log", lambda v: tf.reduce_sum(tf.sqrt(tf.square(v) + 1.0)
                                                    + tfm.log(tf.exp(v) + 1.0))),
    ("rsqrt/sigmoid/tanh", lambda v: tf.reduce_sum(tfm.rsqrt(v * v + 1.0) * tf.sigmoid(v)
                                                   + tf.tanh(v))),
    ("reduce_mean/max/prod", lambda v: tf.reduce_mean(v, axis=0)[1] + tf.reduce_max(v)
     + tf.reduce_prod(v, axis=1)[0]),
    ("matmul transpose_b", lambda v: tf.reduce_sum(tf.matmul(v, M, transpose_b=True) ** 2)),
    ("add_n/cumsum", lambda v: tf.reduce_sum(tf.add_n([v, v * v, tf.cumsum(v, axis=1,
                                                                           exclusive=True)]))),
    ("reshape/transpose/concat/split", lambda v: tf.reduce_sum(
        tf.split(tf.concat([tf.transpose(v), tf.reshape(v, [3, 2])], 1), [1, 3], axis=1)[1] ** 3)),
    ("stack/unstack/tile/pad", lambda v: tf.reduce_sum(
        tf.pad(tf.tile(tf.stack(tf.unstack(v), axis=1), [2, 1]), [[2, 2], [1, 1]],
               mode="REFLECT") ** 2)),
    ("gather/gather_nd", lambda v: tf.reduce_sum(tf.gather(v, [2, 0, 2], axis=1) ** 2)
     + tf.reduce_sum(tf.gather_nd(v, [[1, 2], [0, 0]]) ** 3)),
    ("scatter ops", lambda v: tf.reduce_sum(tf.tensor_scatter_nd_update(v, [[0, 1]], [v[1, 1] * 3])
                                            ** 2 + tf.scatter_nd([[1], [0]], v, [3, 3])[1, 0])),
    ("segment/boolean_mask/where", lambda v: tf.reduce_sum(
        tfm.unsorted_segment_sum(v, [1, 0], 3) ** 2)
     + tf.reduce_sum(tf.boolean_mask(v, [True, False, True], axis=1) ** 3)
     + tf.reduce_sum(tf.where(v > 0, v * v, -v))),
    ("softmax xent", lambda v: tf.reduce_sum(nn.softmax_cross_entropy_with_logits(LABELS, v))),
    ("sparse xent", lambda v: tf.reduce_sum(nn.sparse_softmax_cross_entropy_with_logits([2, 0],
                                                                                        v))),
    ("sigmoid xent/log_softmax", lambda v: tf.reduce_sum(
        nn.sigmoid_cross_entropy_with_logits(LABELS, v) + nn.log_softmax(v) * LABELS)),
    ("l2_loss/bias_add/relu", lambda v: nn.l2_loss(nn.relu(nn.bias_add(v, [0.1, -0.5, 0.2])))),
    ("clip ops", lambda v: tf.reduce_sum(tf.clip_by_norm(v, 1.0) ** 2)
     + tf.reduce_sum(tf.clip_by_global_norm([v, v * 2.0], 2.0)[0][1])
     + tf.reduce_sum(tf.clip_by_value(v, -1.0, 1.0) ** 2)),
    ("maximum/minimum/abs", lambda v: tf.reduce_sum(tf.maximum(v, 0.25) * tf.minimum(v, 1.0)
                                                    + tf.abs(v))),
]


def _finite_difference(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        grad[i] = (fn(torch.from_numpy(hi)).item() - fn(torch.from_numpy(lo)).item()) / (2 * eps)
    return grad


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(name, fn):
    v = tf.Variable(W.copy())
    with GradientTape() as tape:
        y = fn(v)
    grad = tape.gradient(y, v)
    assert grad is not None, "the op chain must not cut the gradient"
    grad = tf.convert_to_tensor(grad).numpy()
    np.testing.assert_allclose(grad, _finite_difference(fn, W), rtol=1e-5, atol=1e-6)


def test_gather_of_a_variable_gradient_is_indexed_slices_and_correct():
    v = tf.Variable(W.copy())
    fn = lambda p: tf.reduce_sum(tf.gather(p, [1, 1, 0]) ** 2)  # noqa: E731
    with GradientTape() as tape:
        y = fn(v)
    grad = tape.gradient(y, v)
    assert isinstance(grad, tf.IndexedSlices)
    np.testing.assert_allclose(tf.convert_to_tensor(grad).numpy(), _finite_difference(fn, W),
                               rtol=1e-5, atol=1e-6)
