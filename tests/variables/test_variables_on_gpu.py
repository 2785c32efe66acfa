"""Variables on a CUDA device: TF's GPU gather and scatter semantics (no index checks).

Skipped without a visible CUDA device: run with `TFCOMPAT_TEST_GPU=1 pytest
tests/variables/test_variables_on_gpu.py tests/autodiff/test_tape_on_gpu.py` on a
GPU machine (the rest of the suite hides GPUs, see `tests/conftest.py`).
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync
from tfcompat.framework import errors

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")

IS = tf.IndexedSlices


def test_gather_nd_out_of_range_reads_zeros_without_sync():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    idx = torch.tensor([[1, 0], [5, 0], [0, -1]], device="cuda")
    rows = torch.tensor([[1], [9]], device="cuda")
    with no_host_sync():
        elems = v.gather_nd(idx)
        whole = v.gather_nd(rows)
    assert elems.tolist() == [3.0, 0.0, 0.0]
    assert whole.tolist() == [[3.0, 4.0], [0.0, 0.0]]
    with pytest.raises(errors.InvalidArgumentError, match="Tindices"):
        v.gather_nd([[1.7]])


def test_sparse_read_takes_host_indices_and_records_them_on_the_device():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        y = torch.sum(v.sparse_read(torch.tensor([1, 1])))
    g = tape.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.device.type == "cuda" and g.values.device.type == "cuda"
    assert g.indices.tolist() == [1, 1]


@pytest.mark.parametrize("bad", [2, -1])
def test_scatters_skip_out_of_range_rows_without_a_host_sync(bad):
    # TF's GPU scatter kernels skip an index outside [0, n); checking would cost a sync.
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    with no_host_sync():
        v.scatter_add(IS(torch.ones(2, 2, device="cuda"), torch.tensor([0, bad], device="cuda")))
        v.scatter_nd_update(torch.tensor([[[1, 0]], [[bad, 0]]], device="cuda"),
                            torch.full((2, 1), 9.0, device="cuda"))
    np.testing.assert_array_equal(v.numpy(), [[2.0, 3.0], [9.0, 4.0]])


def test_scatter_div_on_gpu():
    v = tf.Variable([[8.0, -8.0], [1.0, 2.0]])
    v.scatter_div(IS(torch.tensor([[2.0, 2.0], [2.0, -4.0]], device="cuda"),
                     torch.tensor([0, 0], device="cuda")))
    np.testing.assert_array_equal(v.numpy(), [[2.0, 1.0], [1.0, 2.0]])


def test_a_cpu_scoped_variable_never_allocates_on_the_gpu():
    before = torch.cuda.memory_stats().get("allocation.all.allocated", 0)
    with tf.device("/CPU:0"):
        v = tf.Variable(np.ones((4, 4), np.float32))
        w = tf.Variable([1.0, 2.0])
    assert v.handle.device.type == "cpu" and w.handle.device.type == "cpu"
    assert torch.cuda.memory_stats().get("allocation.all.allocated", 0) == before
