"""Statistical laws of tf.random's samplers and the Generator's state contract (fixed seeds)."""

import numpy as np
import pytest
import torch

import tfcompat as tf

N = 20000


def test_categorical_frequencies():
    probs = np.array([0.1, 0.2, 0.7])
    draws = tf.random.categorical(np.log([probs]).astype(np.float32), N, seed=3).numpy()[0]
    freq = np.bincount(draws, minlength=3) / N
    np.testing.assert_allclose(freq, probs, atol=0.015)


def test_categorical_never_draws_minus_inf():
    logits = tf.constant([[0.0, -np.inf, 0.0]])
    assert 1 not in tf.random.stateless_categorical(logits, 2000, seed=[4, 5]).numpy()


def test_gamma_moments():
    alpha, beta = np.array([0.5, 3.0], np.float32), np.array([[2.0], [0.5]], np.float32)
    x = tf.random.gamma([N], alpha, beta, seed=1).numpy().astype(np.float64)
    assert x.shape == (N, 2, 2) and (x > 0).all()
    np.testing.assert_allclose(x.mean(0), alpha / beta, rtol=0.05)
    np.testing.assert_allclose(x.var(0), alpha / beta ** 2, rtol=0.1)


def test_poisson_moments():
    lam = np.array([0.5, 4.0], np.float32)
    x = tf.random.poisson([N], lam, dtype=tf.int64, seed=2).numpy()
    assert x.dtype == np.int64 and (x >= 0).all()
    np.testing.assert_allclose(x.mean(0), lam, rtol=0.05)
    np.testing.assert_allclose(x.var(0), lam, rtol=0.1)


def test_shuffle_is_a_permutation_of_rows():
    x = np.arange(20).reshape(10, 2)
    y = tf.random.shuffle(x, seed=5).numpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x)) and not (y == x).all()


@pytest.mark.parametrize("max_index", [0, 1, 9, 100])
def test_index_shuffle_is_a_bijection(max_index):
    idx = tf.range(max_index + 1, dtype=tf.int64)
    out = tf.random.experimental.index_shuffle(idx, seed=[7, 8], max_index=max_index).numpy()
    assert sorted(out.tolist()) == list(range(max_index + 1))
    again = tf.random.experimental.index_shuffle(idx, seed=[7, 8], max_index=max_index).numpy()
    assert (out == again).all()


def test_stateless_is_deterministic_and_seed_sensitive():
    a = tf.random.stateless_normal([100], seed=[1, 2])
    assert torch.equal(a, tf.random.stateless_normal([100], seed=[1, 2]))
    assert not torch.equal(a, tf.random.stateless_normal([100], seed=[1, 3]))
    u = tf.random.stateless_uniform([N], seed=[3, 4], minval=-2, maxval=5, dtype=tf.int32).numpy()
    assert u.min() == -2 and u.max() == 4


@pytest.mark.parametrize("sampler", ["stateless", "generator"])
def test_truncated_normal_moments(sampler):
    if sampler == "stateless":
        x = tf.random.stateless_truncated_normal([N], seed=[5, 6], mean=1.0, stddev=2.0)
    else:
        x = tf.random.Generator.from_seed(3).truncated_normal([N], mean=1.0, stddev=2.0)
    x = x.numpy().astype(np.float64)
    assert x.min() >= -3.0 and x.max() <= 5.0
    # the standard normal cut at +-2 has variance 0.7737
    assert abs(x.mean() - 1.0) < 0.05 and abs(x.var() / 4.0 - 0.7737) < 0.03


def test_generator_normal_and_uniform_moments():
    g = tf.random.Generator.from_seed(11)
    z = g.normal([N], mean=2.0, stddev=3.0).numpy()
    assert abs(z.mean() - 2.0) < 0.1 and abs(z.std() - 3.0) < 0.1
    u = g.uniform([N], minval=1.0, maxval=3.0).numpy()
    assert u.min() >= 1.0 and u.max() < 3.0 and abs(u.mean() - 2.0) < 0.03
    i = g.uniform([N], minval=0, maxval=4, dtype=tf.int64).numpy()
    np.testing.assert_allclose(np.bincount(i) / N, [0.25] * 4, atol=0.02)


def test_generator_state_determines_the_stream():
    g = tf.random.Generator.from_seed(42)
    g.normal([3])
    saved = g.state.numpy()
    first = [g.normal([5]), g.uniform([2], 0, 9, dtype=tf.int32)]
    assert not (g.state.numpy() == saved).all()  # drawing advanced the variable
    g.state.assign(saved)
    again = [g.normal([5]), g.uniform([2], 0, 9, dtype=tf.int32)]
    assert all(torch.equal(a, b) for a, b in zip(first, again))
    restored = tf.random.Generator.from_state(saved, alg="philox")
    assert torch.equal(restored.normal([5]), first[0])
    same_seed = tf.random.Generator.from_seed(42)
    same_seed.normal([3])
    assert torch.equal(same_seed.normal([5]), first[0])
    g.reset_from_seed(42)
    assert torch.equal(g.state, tf.random.Generator.from_seed(42).state.read_value())


def test_split_generators_are_independent():
    children = tf.random.Generator.from_seed(1).split(3)
    draws = np.stack([c.normal([N]).numpy() for c in children])
    corr = np.corrcoef(draws)
    assert np.abs(corr - np.eye(3)).max() < 0.03
    seeds = tf.random.Generator.from_seed(1).make_seeds(4)
    assert seeds.shape == (2, 4) and seeds.dtype == torch.int64


def test_global_generator():
    g = tf.random.Generator.from_seed(9)
    old = tf.random.get_global_generator()
    tf.random.set_global_generator(g)
    try:
        assert tf.random.get_global_generator() is g
        assert tf.random.experimental.get_global_generator() is g
    finally:
        tf.random.set_global_generator(old)


L = torch.zeros(2, 3)
P = torch.tensor([1.0, 2.0])
#: Seeded draws with host seeds: nothing read back from a device.
SYNC_FREE = {
    "stateless_normal": lambda g: tf.random.stateless_normal([3], seed=[1, 2]),
    "stateless_uniform_int": lambda g: tf.random.stateless_uniform([3], seed=np.array([1, 2]),
                                                                   minval=0, maxval=5,
                                                                   dtype=tf.int32),
    "stateless_categorical": lambda g: tf.random.stateless_categorical(L, 4, seed=[1, 2]),
    "categorical": lambda g: tf.random.categorical(L, 4, seed=1),
    "poisson": lambda g: tf.random.poisson([2], P, seed=1),
    "gamma": lambda g: tf.random.gamma([2], P, seed=1),
    "shuffle": lambda g: tf.random.shuffle(L, seed=1),
    "index_shuffle": lambda g: tf.random.experimental.index_shuffle(torch.tensor([1, 2]), [3, 4],
                                                                    9),
}


@pytest.mark.parametrize("name", sorted(SYNC_FREE))
def test_seeded_draws_do_not_sync(name):
    from tfcompat.testing import host_syncs
    g = tf.random.Generator.from_seed(1)
    with host_syncs() as log:
        SYNC_FREE[name](g)
    assert list(log) == []


def test_generator_reads_only_its_host_state():
    """A draw reads the state variable, which lives in host memory (CPU) by design; nothing else."""
    from tfcompat.testing import host_syncs
    with tf.device("CPU:0"):
        g = tf.random.Generator.from_seed(1)
    assert g.state.device.endswith("CPU:0")
    with host_syncs() as log:
        g.normal([3])
        g.uniform([2], 0, 4, dtype=tf.int64)
    assert [s.location.split(" in ")[-1] for s in log] == ["_advance", "_advance"]  # the state read, one per draw


def test_stateless_gamma_poisson_binomial_moments_and_determinism():
    a = tf.random.stateless_gamma([N, 2], seed=[1, 2], alpha=[0.5, 4.0], beta=2.0).numpy()
    np.testing.assert_allclose(a.mean(0), [0.25, 2.0], rtol=0.05)
    assert torch.equal(tf.random.stateless_gamma([N, 2], seed=[1, 2], alpha=[0.5, 4.0], beta=2.0),
                       torch.from_numpy(a))
    p = tf.random.stateless_poisson([N, 2], seed=[3, 4], lam=[0.5, 4.0]).numpy()
    assert p.dtype == np.int32
    np.testing.assert_allclose(p.var(0), [0.5, 4.0], rtol=0.1)
    b = tf.random.stateless_binomial([N], seed=[5, 6], counts=10.0, probs=0.3).numpy()
    assert b.min() >= 0 and b.max() <= 10
    assert abs(b.mean() - 3.0) < 0.05 and abs(b.var() - 2.1) < 0.1


def test_split_and_fold_in_give_distinct_seeds():
    seeds = tf.random.split([1, 2], 4).numpy()
    assert len({tuple(s) for s in seeds}) == 4
    assert not (tf.random.fold_in([1, 2], 0).numpy() == tf.random.fold_in([1, 2], 1).numpy()).all()


def test_generator_checkpoint_round_trip(tmp_path):
    g = tf.random.Generator.from_seed(3)
    g.normal([2])
    path = tf.train.Checkpoint(gen=g).write(str(tmp_path / "ck"))
    after_save = g.normal([4])
    g.normal([4])
    tf.train.Checkpoint(gen=g).restore(path)
    assert torch.equal(g.normal([4]), after_save)
    fresh = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(gen=fresh).restore(path)
    assert torch.equal(fresh.normal([4]), after_save)


def test_failed_generator_calls_leave_the_state_alone():
    g = tf.random.Generator.from_seed(5)
    before = g.state.numpy().copy()
    for bad in [lambda: g.normal([2], dtype=tf.int32),
                lambda: g.uniform([2], 5, 1, dtype=tf.int32),
                lambda: g.uniform([2], dtype=tf.int32),
                lambda: g.categorical([[1, 2]], 3),
                lambda: g.categorical([[1.0, 2.0]], -1),
                lambda: g.uniform_full_int([2], dtype=tf.float32),
                lambda: g.normal([-1])]:
        with pytest.raises((TypeError, ValueError, tf.errors.OpError)):
            bad()
    assert (g.state.numpy() == before).all()


def test_parameterized_truncated_normal_bounds_and_mean():
    x = tf.random.stateless_parameterized_truncated_normal(
        [N, 2], seed=[1, 2], means=[0.0, 5.0], stddevs=[1.0, 2.0], minvals=[0.0, 4.0],
        maxvals=[np.inf, 6.0]).numpy().astype(np.float64)
    assert x[:, 0].min() >= 0.0 and 4.0 <= x[:, 1].min() and x[:, 1].max() <= 6.0
    # half-normal mean sqrt(2/pi); the symmetric cut keeps the mean at 5
    assert abs(x[:, 0].mean() - np.sqrt(2 / np.pi)) < 0.02 and abs(x[:, 1].mean() - 5.0) < 0.02
    s = tf.random.experimental.stateless_shuffle(np.arange(10), seed=[3, 4]).numpy()
    assert sorted(s) == list(range(10))


def test_generator_draws_on_the_device_it_was_made_on():
    """TF colocates a generator's draws with it: the device current at creation, not at the
    draw (checked with the logical CPU devices; tests/gpu would show it for a GPU)."""
    g = tf.random.Generator.from_seed(1)
    with tf.device("CPU:0"):
        z = g.normal([2])
    assert z.device.type == "cpu" and g._logical == "CPU:0"
    assert all(c._logical == g._logical for c in g.split(2))
