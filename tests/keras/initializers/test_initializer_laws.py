"""Laws of the tf.keras initializers: fans, bounds, variances, orthogonality, seeds, configs.

TF's Philox bits are not reproduced, so the random initializers are checked by what TF
guarantees: the fans of `_compute_fans`, the support and moments of each distribution, the
seed semantics of tf_keras 2.21 (stateless draws keyed by the seed), and config round trips.
"""

from __future__ import annotations

import copy
import math
import random
import warnings

import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.keras import initializers
from tfcompat.keras.initializers.initializer import compute_fans

K = tf.keras.initializers

_dims = st.integers(1, 6)
_shapes = st.one_of(st.lists(_dims, min_size=0, max_size=4).map(tuple))


@given(_shapes)
def test_fans_follow_tf(shape):
    fan_in, fan_out = compute_fans(shape)
    if len(shape) == 0:
        assert (fan_in, fan_out) == (1, 1)
    elif len(shape) == 1:
        assert fan_in == fan_out == shape[0]
    elif len(shape) == 2:
        assert (fan_in, fan_out) == shape
    else:
        receptive = math.prod(shape[:-2])
        assert (fan_in, fan_out) == (shape[-2] * receptive, shape[-1] * receptive)


@given(st.floats(-5, 5), st.floats(0.01, 5), st.integers(0, 2**31 - 1),
       st.sampled_from(["float32", "float64", "float16", "bfloat16"]))
def test_random_uniform_stays_in_half_open_range(minval, width, seed, dtype):
    maxval = minval + width
    values = K.RandomUniform(minval, maxval, seed=seed)((64,), dtype=dtype)
    assert values.dtype == getattr(torch, dtype)
    v = values.double()
    lo = torch.tensor(minval, dtype=values.dtype).double()
    hi = torch.tensor(maxval, dtype=values.dtype).double()
    assert bool((v >= lo).all()) and bool((v <= hi).all())


@given(st.integers(-50, 50), st.integers(1, 50), st.integers(0, 2**31 - 1))
def test_random_uniform_integers(minval, width, seed):
    values = K.RandomUniform(minval, minval + width, seed=seed)((100,), dtype="int64")
    assert values.dtype == torch.int64
    assert int(values.min()) >= minval and int(values.max()) < minval + width


_VARIANCE = {
    "GlorotUniform": ("uniform", lambda fi, fo: 2.0 / (fi + fo)),
    "GlorotNormal": ("truncated_normal", lambda fi, fo: 2.0 / (fi + fo)),
    "HeUniform": ("uniform", lambda fi, fo: 2.0 / fi),
    "HeNormal": ("truncated_normal", lambda fi, fo: 2.0 / fi),
    "LecunUniform": ("uniform", lambda fi, fo: 1.0 / fi),
    "LecunNormal": ("truncated_normal", lambda fi, fo: 1.0 / fi),
}


@pytest.mark.parametrize("name", sorted(_VARIANCE))
@given(shape=st.sampled_from([(30, 40), (3, 3, 8, 16), (200,), (5, 7, 9)]),
       seed=st.integers(0, 2**31 - 1))
def test_presets_limits_and_variance(name, shape, seed):
    distribution, variance = _VARIANCE[name]
    fan_in, fan_out = compute_fans(shape)
    var = variance(fan_in, fan_out)
    values = getattr(K, name)(seed=seed)(shape, dtype="float64").flatten()
    n = values.numel()
    if distribution == "uniform":
        limit = math.sqrt(3.0 * var)
        assert float(values.abs().max()) <= limit
    else:  # a normal truncated at two (pre-truncation) standard deviations
        limit = 2.0 * math.sqrt(var) / 0.87962566103423978
        assert float(values.abs().max()) <= limit * (1 + 1e-12)
    # The sample variance of n draws: 6 standard errors (a fourth moment below 2 var^2).
    sample = float((values ** 2).mean())
    assert abs(sample - var) <= 6 * math.sqrt(2.0 / n) * var


@given(st.sampled_from(["fan_in", "fan_out", "fan_avg"]),
       st.sampled_from(["uniform", "truncated_normal", "untruncated_normal"]),
       st.floats(0.1, 4.0), st.integers(0, 1000))
def test_variance_scaling_matches_its_formula(mode, distribution, scale, seed):
    shape = (40, 60)
    n = {"fan_in": 40, "fan_out": 60, "fan_avg": 50}[mode]
    values = K.VarianceScaling(scale, mode, distribution, seed=seed)(shape, dtype="float64")
    var = scale / n
    sample = float((values ** 2).mean())
    bound = 6 * math.sqrt((3.0 if distribution == "untruncated_normal" else 2.0) / 2400) * var
    assert abs(sample - var) <= bound
    if distribution == "uniform":
        assert float(values.abs().max()) <= math.sqrt(3 * var)


@given(st.integers(1, 8), st.integers(1, 8), st.floats(0.5, 3.0), st.integers(0, 10**6))
def test_orthogonal_has_orthonormal_rows_or_columns(rows, cols, gain, seed):
    q = K.Orthogonal(gain=gain, seed=seed)((rows, cols), dtype="float64")
    gram = q.T @ q if rows >= cols else q @ q.T
    eye = torch.eye(min(rows, cols), dtype=torch.float64)
    assert torch.allclose(gram, gain ** 2 * eye, atol=1e-12 * gain ** 2 * max(rows, cols))


def test_orthogonal_flattens_higher_rank():
    q = K.Orthogonal(seed=1)((2, 3, 5), dtype="float64").reshape(6, 5)
    assert torch.allclose(q.T @ q, torch.eye(5, dtype=torch.float64), atol=1e-12)


_RANDOM = ["RandomUniform", "RandomNormal", "TruncatedNormal", "VarianceScaling",
           "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform",
           "LecunNormal", "Orthogonal"]


@pytest.mark.parametrize("name", _RANDOM)
def test_seeded_instance_repeats_and_same_seed_agrees(name):
    cls = getattr(K, name)
    a = cls(seed=11)
    first = a((4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a seeded instance never warns
        again = a((4, 5))
    assert torch.equal(first, again)
    assert torch.equal(first, cls(seed=11)((4, 5)))
    assert not torch.equal(first, cls(seed=12)((4, 5)))


@pytest.mark.parametrize("name", _RANDOM)
def test_unseeded_instance_repeats_with_tf_keras_warning(name):
    init = getattr(K, name)()
    first = init((4, 5))
    with pytest.warns(UserWarning, match=f"The initializer {name} is unseeded"):
        second = init((4, 5))
    assert torch.equal(first, second)
    # a fresh unseeded instance picks a fresh seed
    assert not torch.equal(first, getattr(K, name)()((4, 5)))


def test_python_random_seed_makes_unseeded_initializers_reproducible():
    random.seed(123)
    a = K.GlorotUniform()((3, 3))
    random.seed(123)
    b = K.GlorotUniform()((3, 3))
    assert torch.equal(a, b)


def test_tf_random_set_seed_does_not_reach_unseeded_initializers():
    # tf_keras 2.21 seeds unseeded initializers from Python's `random`, not TF's seed.
    tf.random.set_seed(1)
    a = K.RandomNormal()((8,))
    tf.random.set_seed(1)
    b = K.RandomNormal()((8,))
    assert not torch.equal(a, b)


def test_partitions_draw_their_own_values():
    init = K.RandomNormal(seed=3)
    p0 = init((4, 2), partition_shape=(2, 2), partition_offset=(0, 0))
    p1 = init((4, 2), partition_shape=(2, 2), partition_offset=(2, 0))
    assert p0.shape == (2, 2) and not torch.equal(p0, p1)


def test_variance_scaling_partition_uses_the_full_shape_fans():
    init = K.VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=0)
    part = init((400, 10), partition_shape=(2, 10), partition_offset=(0, 0))
    assert float(part.abs().max()) <= math.sqrt(3.0 / 400)


def test_deepcopy_keeps_the_configured_seed():
    init = K.HeNormal(seed=4)
    assert torch.equal(copy.deepcopy(init)((3, 3)), init((3, 3)))


_ALL = {
    "Zeros": {}, "Ones": {}, "Constant": {"value": 2.5}, "Identity": {"gain": 0.5},
    "RandomUniform": {"minval": -1.0, "maxval": 2.0, "seed": 1},
    "RandomNormal": {"mean": 1.0, "stddev": 3.0, "seed": None},
    "TruncatedNormal": {"mean": 0.0, "stddev": 1.0, "seed": 9},
    "VarianceScaling": {"scale": 2.0, "mode": "fan_out", "distribution": "uniform", "seed": 2},
    "GlorotUniform": {"seed": 3}, "GlorotNormal": {"seed": None}, "HeUniform": {"seed": 1},
    "HeNormal": {"seed": 1}, "LecunUniform": {"seed": 1}, "LecunNormal": {"seed": 1},
    "Orthogonal": {"gain": 2.0, "seed": 5},
}


@pytest.mark.parametrize("name", sorted(_ALL))
def test_config_round_trips(name):
    cls = getattr(K, name)
    init = cls(**_ALL[name])
    config = init.get_config()
    assert config == _ALL[name]
    clone = cls.from_config(dict(config, dtype="float32"))  # a stale dtype key is dropped
    assert type(clone) is cls and clone.get_config() == config
    restored = K.deserialize(K.serialize(init))
    assert type(restored) is cls and restored.get_config() == config
    legacy = K.deserialize(K.serialize(init, use_legacy_format=True), use_legacy_format=True)
    assert type(legacy) is cls and legacy.get_config() == config
    if config.get("seed") is not None:
        assert torch.equal(restored((3, 4)), init((3, 4)))


@pytest.mark.parametrize("alias,cls", [("glorot_uniform", "GlorotUniform"),
                                       ("he_normal", "HeNormal"), ("zeros", "Zeros"),
                                       ("random_uniform", "RandomUniform"),
                                       ("normal", "RandomNormal"), ("one", "Ones")])
def test_get_resolves_snake_case_names(alias, cls):
    assert type(K.get(alias)) is getattr(K, cls)
    if hasattr(K, alias):
        assert getattr(K, alias) is getattr(K, cls)


def test_get_passes_callables_and_instantiates_classes():
    def init(shape, dtype=None):
        return tf.zeros(shape)

    assert K.get(init) is init
    assert isinstance(K.get(K.Ones), K.Ones)
    assert K.get(None) is None


def test_serialize_warns_for_foreign_objects():
    with pytest.warns(UserWarning, match="should only be used for objects of type"):
        K.serialize(lambda_free_function)


def lambda_free_function(shape, dtype=None):
    return tf.zeros(shape)


def test_default_dtype_follows_floatx():
    from tfcompat.keras import backend
    backend.set_floatx("float64")
    try:
        assert K.GlorotUniform(seed=1)((2, 2)).dtype == torch.float64
        assert K.Zeros()((2,)).dtype == torch.float64
    finally:
        backend.set_floatx("float32")


def test_failed_call_changes_nothing():
    init = K.RandomNormal()
    with pytest.raises(ValueError):
        init((2,), dtype="int32")
    assert not getattr(init, "_used", False)  # the error came before the first draw
    assert init.get_config()["seed"] is None


def test_module_exports():
    assert set(initializers.__all__) >= {"Initializer", "GlorotUniform", "get", "serialize",
                                         "deserialize", "variance_scaling"}
