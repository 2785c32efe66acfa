"""The shared MirroredStrategy check (tests/keras/layers/mirrored_check.py) catches a layer that
computes otherwise under the strategy: in its outputs, or in its gradients alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.keras.layers.mirrored_check import (  # noqa: F401 (strategy: a fixture)
    assert_mirrored_equals_one_device, split_batch, strategy)

L = tf.keras.layers
X = torch.tensor(np.random.default_rng(1).uniform(-1, 1, (4, 5)), dtype=torch.float32)


class _OffUnderAStrategy(L.Dense):
    """Dense, but under a strategy its output (or only its gradients) are scaled."""

    def __init__(self, units, output_scale=1.0, grad_scale=1.0, **kwargs):
        super().__init__(units, **kwargs)
        self.output_scale, self.grad_scale = output_scale, grad_scale

    def call(self, inputs):
        out = super().call(inputs)
        if not tf.distribute.has_strategy():
            return out
        out = out * self.output_scale
        # the same value, its gradient times grad_scale
        return out * self.grad_scale - tf.stop_gradient(out) * (self.grad_scale - 1.0)


def test_a_right_layer_passes(strategy):
    got, totals = assert_mirrored_equals_one_device(strategy, lambda: _OffUnderAStrategy(3), X)
    assert got.shape == (4, 3) and len(totals) == 2


def test_outputs_off_under_the_strategy_fail(strategy):
    with pytest.raises(AssertionError, match="rtol=1e-05, atol=1e-06"):
        assert_mirrored_equals_one_device(
            strategy, lambda: _OffUnderAStrategy(3, output_scale=1.0 + 1e-4), X)


def test_gradients_off_under_the_strategy_fail(strategy):
    # the outputs agree; the gradients' check fails
    with pytest.raises(AssertionError, match="rtol=0.0001, atol=1e-05"):
        assert_mirrored_equals_one_device(
            strategy, lambda: _OffUnderAStrategy(3, grad_scale=1.001), X)


def test_split_batch_gives_each_replica_its_share(strategy):
    parts = strategy.experimental_local_results(split_batch(strategy, torch.arange(8.0)))
    assert [torch.as_tensor(p).tolist() for p in parts] == [[0.0, 1.0, 2.0, 3.0],
                                                             [4.0, 5.0, 6.0, 7.0]]
