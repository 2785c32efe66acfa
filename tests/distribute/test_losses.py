"""`tf.nn.compute_average_loss` and `tf.nn.scale_regularization_loss` (TF 2.21's rules)."""

from __future__ import annotations

import pytest
import torch

import tfcompat as tf
from tests.distribute.logical_devices import logical_cpus


@pytest.fixture
def strategy():
    with logical_cpus(2):
        yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def test_average_over_the_global_batch():
    loss = torch.tensor([1.0, 2.0, 3.0])
    assert float(tf.nn.compute_average_loss(loss)) == 2.0
    assert float(tf.nn.compute_average_loss(loss, global_batch_size=8)) == 0.75
    weighted = tf.nn.compute_average_loss(loss, sample_weight=torch.tensor([1.0, 0.0, 2.0]))
    assert float(weighted) == pytest.approx(7.0 / 3)
    half = tf.nn.compute_average_loss(torch.tensor([1.0, 2.0], dtype=torch.float16))
    assert half.dtype is torch.float16


def test_errors():
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.compute_average_loss(torch.tensor(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        tf.nn.compute_average_loss(torch.tensor([1.0]), global_batch_size=-1)
    with pytest.raises(TypeError, match="integer"):
        tf.nn.compute_average_loss(torch.tensor([1.0]), global_batch_size=2.5)


def test_empty_batches_integers_and_tensor_regularization_as_tf():
    """TF 2.21 (checked live): a global batch of 0 gives 0 (div_no_nan); integer losses divide
    as truediv (float64); a regularization tensor is summed first."""
    assert float(tf.nn.compute_average_loss(torch.zeros(0))) == 0.0
    zero = tf.nn.compute_average_loss(torch.tensor([1.0, 2.0]), global_batch_size=0)
    assert float(zero) == 0.0 and zero.dtype is torch.float32
    ints = tf.nn.compute_average_loss(torch.tensor([1, 2], dtype=torch.int32))
    assert ints.dtype is torch.float64 and float(ints) == 1.5
    summed = tf.nn.scale_regularization_loss(torch.tensor([1.0, 2.0]))
    assert summed.shape == () and float(summed) == 3.0
    assert tf.nn.scale_regularization_loss(torch.tensor(3, dtype=torch.int32)).dtype is torch.float64


def test_under_a_strategy_the_batch_is_scaled_by_the_replicas(strategy):
    out = strategy.run(lambda: tf.nn.compute_average_loss(torch.tensor([1.0, 3.0])))
    assert [float(t) for t in out.values] == [1.0, 1.0]  # 4 / (2 rows x 2 replicas)
    reg = strategy.run(lambda: tf.nn.scale_regularization_loss([torch.tensor(2.0), torch.tensor(4.0)]))
    assert [float(t) for t in reg.values] == [3.0, 3.0]
    with strategy.scope(), pytest.raises(RuntimeError, match="cross replica context"):
        tf.nn.compute_average_loss(torch.tensor([1.0]))
