"""Candidate sampling and `tf.nn.sampled_softmax_loss`: statistical laws of the random parts.

(TF's values given fixed `sampled_values` are in `golden/cases_nn.py`.)
"""

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import errors

P10 = np.log((np.arange(10) + 2) / (np.arange(10) + 1)) / np.log(11)  # log-uniform over 10
ALL10 = np.arange(10).reshape(1, 10)


def test_log_uniform_sampler_draws_zipf_frequencies():
    tf.random.set_seed(11)
    n = 20000
    s, true_count, sampled_count = tf.random.log_uniform_candidate_sampler(ALL10, 10, n, False, 10)
    assert s.dtype == torch.int64 and s.shape == (n,) and int(s.min()) >= 0 and int(s.max()) < 10
    freq = np.bincount(s.numpy(), minlength=10) / n
    z = np.abs(freq - P10) / np.sqrt(P10 * (1 - P10) / n)
    assert z.max() < 4.5, z  # each class within 4.5 standard errors of P(k)
    np.testing.assert_allclose(true_count.numpy()[0], P10 * n, rtol=1e-5)
    np.testing.assert_allclose(sampled_count.numpy(), P10[s.numpy()] * n, rtol=1e-5)


def test_unique_sampler_reports_tfs_expected_counts_for_its_number_of_tries():
    tf.random.set_seed(12)
    for _ in range(20):
        s, true_count, sampled_count = tf.random.log_uniform_candidate_sampler(ALL10, 10, 6, True,
                                                                               10)
        assert len(set(s.tolist())) == 6
        e = true_count.numpy()[0].astype(np.float64)
        if np.allclose(e, P10 * 6, rtol=1e-5):
            continue  # no draw was rejected: TF reports p * num_sampled
        # else e = 1 - (1 - p)^tries, one number of tries (> 6) for every class
        rare = e < 0.99  # (float32 cannot resolve tries where e rounds near 1)
        tries = np.log1p(-e[rare]) / np.log1p(-P10[rare])
        assert np.ptp(tries) < 1e-3 * tries.mean() and tries.mean() > 6, tries
        assert abs(tries.mean() - round(tries.mean())) < 1e-2
        np.testing.assert_allclose(sampled_count.numpy(), e[s.numpy()], rtol=1e-6)
    with pytest.raises(errors.InvalidArgumentError, match="range is too small"):
        tf.random.log_uniform_candidate_sampler(ALL10, 10, 11, True, 10)


def test_sampled_softmax_loss_approaches_the_full_loss_as_num_sampled_grows():
    tf.random.set_seed(13)
    rng = np.random.default_rng(0)
    c, d = 50, 8
    w, b = rng.standard_normal((c, d)).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    x, labels = rng.standard_normal((16, d)).astype(np.float32), rng.integers(0, c, (16, 1))
    full = tf.nn.sparse_softmax_cross_entropy_with_logits(labels[:, 0], x @ w.T + b).numpy()
    gaps = []
    for num_sampled in (5, 20, 45):
        mean = np.mean([tf.nn.sampled_softmax_loss(w, b, labels, x, num_sampled, c).numpy()
                        for _ in range(15)], 0)
        gaps.append(np.abs(mean - full).mean())
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.1 * gaps[0], gaps


def test_sampled_softmax_loss_gradients_reach_weights_biases_and_inputs():
    tf.random.set_seed(14)
    rng = np.random.default_rng(1)
    w = tf.Variable(rng.standard_normal((20, 4)).astype(np.float32))
    b = tf.Variable(np.zeros(20, np.float32))
    x = tf.Variable(rng.standard_normal((3, 4)).astype(np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.sampled_softmax_loss(w, b, [[1], [2], [3]], x, 5, 20))
    gw, gb, gx = tape.gradient(loss, [w, b, x])
    assert all(g is not None for g in (gw, gb, gx))
    assert float(tf.reduce_sum(tf.abs(tf.convert_to_tensor(gx)))) > 0
