"""Variables, tapes and optimizers on a CUDA device (skipped without one).

Run with `TFCOMPAT_TEST_GPU=1 pytest tests/gpu` on a machine with CUDA: the
rest of the suite hides GPUs (see `tests/conftest.py`) so that its
expectations, TF's CPU behaviour, hold on any machine.
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync
from tfcompat.framework import device as device_lib

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")

OPTIMIZERS = {
    "SGD": dict(learning_rate=0.1), "SGD-momentum": dict(learning_rate=0.1, momentum=0.9),
    "SGD-nesterov": dict(learning_rate=0.1, momentum=0.9, nesterov=True),
    "Adam": dict(learning_rate=0.01), "Adam-amsgrad": dict(learning_rate=0.01, amsgrad=True),
    "Adagrad": dict(learning_rate=0.1), "RMSprop": dict(learning_rate=0.01),
    "RMSprop-centered-momentum": dict(learning_rate=0.01, momentum=0.5, centered=True),
    "Adadelta": dict(learning_rate=1.0), "Adamax": dict(learning_rate=0.01),
    "Nadam": dict(learning_rate=0.01), "Ftrl": dict(learning_rate=0.1, l1_regularization_strength=0.01),
}


def test_default_placement_is_gpu0_as_in_tf():
    v = tf.Variable([1.0, 2.0])
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    assert v.handle.device == torch.device("cuda", 0)
    assert tf.constant(1.0).device.type == "cuda"
    with tf.device("/cpu:0"):
        c = tf.Variable(1.0)
    assert c.device.endswith("CPU:0") and c.handle.device.type == "cpu"


def test_variable_reads_writes_and_gradients_on_gpu():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    snapshot = v.read_value()
    v.assign_add(tf.ones([2, 3]))
    v[0, ::-1].assign([7.0, 8.0, 9.0])
    np.testing.assert_array_equal(snapshot.cpu().numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(v.numpy(), [[9, 8, 7], [4, 5, 6]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * v) + tf.reduce_sum(v.sparse_read([1, 1]))
    dense_and_sparse = tape.gradient(y, v)
    expected = 2 * v.numpy()
    expected[1] += 2
    np.testing.assert_allclose(dense_and_sparse.cpu().numpy(), expected)


def test_sparse_read_out_of_range_reads_zeros_without_sync_on_gpu():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    idx = torch.tensor([1, 7, -1], device="cuda")
    with no_host_sync():
        rows = v.sparse_read(idx)
    assert rows.tolist() == [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fused_gpu_path_matches_the_reference_path(name):
    cls = getattr(tf.keras.optimizers, name.split("-")[0])
    gen = torch.Generator().manual_seed(0)
    init = [torch.randn(7, generator=gen), torch.randn(3, 5, generator=gen)]
    grads = [[torch.randn(t.shape, generator=gen).cuda() for t in init] for _ in range(4)]
    results = []
    for multi in (True, False):
        variables = [tf.Variable(t.cuda()) for t in init]
        opt = cls(**OPTIMIZERS[name])
        opt.use_multi_tensor = multi
        for g in grads:
            opt.apply_gradients(zip(g, variables))
        results.append([v.numpy() for v in variables])
    for fast, reference in zip(*results):
        np.testing.assert_allclose(fast, reference, rtol=2e-5, atol=2e-6)


def test_training_loop_on_gpu_updates_in_place():
    w = tf.Variable(tf.random.normal([16, 4]))
    x = tf.random.normal([32, 16])
    opt = tf.keras.optimizers.Adam(0.05)
    pointers = set()
    losses = []
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        pointers.add(w._storage().value.const_data_ptr())
        losses.append(float(tf.stop_gradient(loss)))
    assert len(pointers) == 1 and losses[-1] < losses[0]


def test_logical_gpu_names_follow_placement():
    assert device_lib.current_device().endswith("GPU:0")
    assert [d.name for d in tf.config.list_logical_devices("GPU")][0] == "/device:GPU:0"


def test_reads_are_copy_on_write_on_gpu():
    # torch's lazy clones on CUDA memory: a read shares it until one side is written.
    v = tf.Variable(torch.arange(6.0).reshape(2, 3))
    live = v._storage().value
    r = v.read_value()
    assert r.const_data_ptr() == live.const_data_ptr()
    r += 1.0                                   # the read moves, the variable stays
    np.testing.assert_array_equal(v.numpy(), np.arange(6.0).reshape(2, 3))
    kept = v.read_value()
    v.assign_add(tf.ones([2, 3]))              # the variable moves, the read stays
    np.testing.assert_array_equal(kept.cpu().numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(r.cpu().numpy(), np.arange(1.0, 7.0).reshape(2, 3))


def test_a_training_step_with_a_kept_read_makes_no_host_sync_on_gpu():
    # A read kept across the optimizer step makes the step copy the variable (copy-on-write);
    # that copy must be asynchronous like every other kernel.
    w = tf.Variable(tf.random.normal([64, 8]))
    x = tf.random.normal([32, 64])
    opt = tf.keras.optimizers.Adam(0.01)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    with no_host_sync():
        kept = w.read_value()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    assert kept.const_data_ptr() != w._storage().value.const_data_ptr()
