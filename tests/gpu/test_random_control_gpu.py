"""Random draws, tf.print, TensorArray and custom gradients on a CUDA device (skipped without one).

Run with `TFCOMPAT_TEST_GPU=1 pytest tests/gpu` on a machine with CUDA. The claims checked:
a `tf.random.Generator` keeps its state in host memory and draws on the GPU without a
device sync; stateless ops with host seeds and the seeded samplers do not sync; printing
copies only what it shows.
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")


def test_generator_draws_on_the_gpu_without_a_sync():
    g = tf.random.Generator.from_seed(7)
    assert g.state.device.endswith("CPU:0")
    saved = g.state.numpy()
    with no_host_sync():
        a = g.normal([1000])
        b = g.uniform([10], 0, 5, dtype=tf.int64)
        c = g.truncated_normal([10])
    assert a.device.type == b.device.type == c.device.type == "cuda"
    g.state.assign(saved)
    assert torch.equal(g.normal([1000]), a)


@pytest.mark.parametrize("draw", [
    lambda: tf.random.stateless_normal([100], seed=[1, 2]),
    lambda: tf.random.stateless_uniform([100], seed=np.array([1, 2]), minval=0, maxval=9,
                                        dtype=tf.int32),
    lambda: tf.random.categorical(tf.zeros([4, 1000]), 50, seed=3),
    lambda: tf.random.poisson([10], tf.constant([1.0, 2.0]), seed=1),
    lambda: tf.random.gamma([10], tf.constant([1.0, 2.0]), seed=1),
    lambda: tf.random.shuffle(tf.range(100), seed=1),
])
def test_seeded_draws_do_not_sync(draw):
    torch.cuda.synchronize()
    with no_host_sync():
        out = draw()
    assert out.device.type == "cuda"


def test_stateless_draws_match_across_calls_on_gpu():
    a = tf.random.stateless_normal([64], seed=[3, 4])
    assert torch.equal(a, tf.random.stateless_normal([64], seed=[3, 4]))


def test_print_of_a_gpu_tensor(capsys):
    tf.print(tf.reshape(tf.range(10000), [100, 100]))
    assert capsys.readouterr().err.startswith("[[0 1 2 ... 97 98 99]")


def test_tensor_array_and_custom_gradient_on_gpu():
    x = tf.Variable([1.0, 2.0])

    @tf.custom_gradient
    def f(t):
        return t * t, lambda dy: dy * 10.0
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=2).write(0, f(x)).write(1, x * 3.0)
        y = tf.reduce_sum(ta.stack())
    g = tape.gradient(y, x)
    assert g.device.type == "cuda" and g.tolist() == [13.0, 13.0]
