"""`GradientTape` on a CUDA device: sparse and mixed gradients without host syncs.

Skipped without a visible CUDA device: run with `TFCOMPAT_TEST_GPU=1 pytest
tests/autodiff/test_tape_on_gpu.py` on a GPU machine (the rest of the suite
hides GPUs, see `tests/conftest.py`).
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")


def test_sparse_gradients_keep_their_dense_shape_on_the_host():
    w = tf.Variable(np.ones((4, 2), np.float32))
    idx = torch.tensor([3, 0, 3], device="cuda")
    with tf.GradientTape() as tape:
        y = torch.sum(w.sparse_read(idx))
    with no_host_sync():
        g = tape.gradient(y, w)
    assert isinstance(g, tf.IndexedSlices)
    assert g.dense_shape.device.type == "cpu" and g.dense_shape.tolist() == [4, 2]
    assert g.values.device.type == "cuda"


def test_dense_and_sparse_reads_combine_without_a_sync():
    w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    idx = torch.tensor([1, 1, 3], device="cuda")
    with tf.GradientTape() as tape:
        y = torch.sum(w * w) + torch.sum(w.sparse_read(idx))
    with no_host_sync():
        g = tape.gradient(y, w)
    expected = 2 * np.arange(8, dtype=np.float32).reshape(4, 2)
    expected[1] += 2
    expected[3] += 1
    np.testing.assert_array_equal(g.cpu().numpy(), expected)


def test_jacobian_on_gpu():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.gather(w, [1, 0]) * w
    jac = tape.jacobian(y, w)
    expected = torch.autograd.functional.jacobian(lambda m: m[[1, 0]] * m, w.value())
    assert jac.device.type == "cuda" and torch.equal(jac, expected)
