"""`Dataset.shuffle`: TF's buffer semantics as laws, and tfcompat's seeding rules.

tfcompat does not reproduce TF's random stream, so nothing here compares
orders with TF; the laws below hold for TF's algorithm whatever the stream.
"""

import collections
import itertools

from hypothesis import given
from hypothesis import strategies as st
import pytest

import tfcompat as tf


def _order(ds):
    return [int(x) for x in ds]


@given(n=st.integers(0, 40), buffer_size=st.integers(1, 50), seed=st.integers(0, 2 ** 31 - 2))
def test_every_element_once_and_never_from_beyond_the_buffer(n, buffer_size, seed):
    out = _order(tf.data.Dataset.range(n).shuffle(buffer_size, seed=seed))
    assert sorted(out) == list(range(n))
    # The element at output position i was read by then: input positions <= i + buffer_size - 1.
    assert all(x <= i + buffer_size - 1 for i, x in enumerate(out))


def test_buffer_of_one_keeps_the_order():
    assert _order(tf.data.Dataset.range(30).shuffle(1)) == list(range(30))


def test_a_full_buffer_gives_every_permutation_about_equally_often():
    counts = collections.Counter(
        tuple(_order(tf.data.Dataset.range(3).shuffle(3, seed=s))) for s in range(1200))
    assert set(counts) == set(itertools.permutations(range(3)))
    assert all(150 <= c <= 250 for c in counts.values()), counts  # 200 expected each


def test_the_first_output_is_uniform_over_the_first_buffer():
    firsts = collections.Counter(
        _order(tf.data.Dataset.range(10).shuffle(4, seed=s))[0] for s in range(800))
    assert set(firsts) == {0, 1, 2, 3}
    assert all(150 <= c <= 250 for c in firsts.values()), firsts


def test_seeded_shuffles_are_deterministic_and_reshuffle_per_epoch():
    a = tf.data.Dataset.range(50).shuffle(50, seed=7)
    b = tf.data.Dataset.range(50).shuffle(50, seed=7)
    epochs_a = [_order(a) for _ in range(3)]
    epochs_b = [_order(b) for _ in range(3)]
    assert epochs_a == epochs_b
    assert epochs_a[0] != epochs_a[1] != epochs_a[2]
    assert _order(tf.data.Dataset.range(50).shuffle(50, seed=8)) != epochs_a[0]


def test_reshuffle_each_iteration_false_repeats_the_order():
    ds = tf.data.Dataset.range(50).shuffle(50, reshuffle_each_iteration=False)
    first = _order(ds)
    assert first != list(range(50))
    assert _order(ds) == first
    # ... also inside repeat(), which starts the shuffle again for each pass.
    twice = _order(ds.repeat(2))
    assert twice[:50] == twice[50:] == first


def test_repeat_after_shuffle_reshuffles_each_pass():
    out = _order(tf.data.Dataset.range(40).shuffle(40, seed=3).repeat(2))
    assert sorted(out[:40]) == sorted(out[40:]) == list(range(40))
    assert out[:40] != out[40:]


def test_global_seed_makes_unseeded_shuffles_reproducible():
    try:
        tf.random.set_seed(1234)
        first = [_order(tf.data.Dataset.range(30).shuffle(30)) for _ in range(2)]
        tf.random.set_seed(1234)
        again = [_order(tf.data.Dataset.range(30).shuffle(30)) for _ in range(2)]
    finally:
        tf.random.set_seed(None)
    assert first == again
    assert first[0] != first[1]  # two datasets made after one set_seed get different op seeds


def test_reading_a_map_spec_does_not_use_up_an_epoch():
    expected = _order(tf.data.Dataset.range(20).shuffle(20, seed=5))
    shuffled = tf.data.Dataset.range(20).shuffle(20, seed=5)
    mapped = shuffled.map(lambda x: x + 100)
    assert repr(mapped.element_spec) == "TensorSpec(shape=(), dtype=tf.int64, name=None)"
    assert [x - 100 for x in _order(mapped)] == expected


def test_shuffle_keeps_nested_elements_together():
    ds = tf.data.Dataset.from_tensor_slices(({"a": list(range(10))}, [float(i) for i in range(10)]))
    for d, f in ds.shuffle(10, seed=1):
        assert float(d["a"]) == float(f)


@pytest.mark.parametrize("bad", [0, -3])
def test_buffer_size_must_be_positive(bad):
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.range(3).shuffle(bad)


# -- sample_from_datasets: the same seeding rules ------------------------------------------

def test_sample_from_datasets_gives_every_element_once_in_each_inputs_order():
    a, b = tf.data.Dataset.range(0, 20), tf.data.Dataset.range(100, 130)
    out = _order(tf.data.Dataset.sample_from_datasets([a, b], seed=3))
    assert sorted(out) == list(range(20)) + list(range(100, 130))
    assert [x for x in out if x < 100] == list(range(20))  # each input's own order is kept


def test_sample_from_datasets_follows_the_weights():
    a, b = tf.data.Dataset.range(0, 1).repeat(), tf.data.Dataset.range(1, 2).repeat()
    picks = _order(tf.data.Dataset.sample_from_datasets([a, b], weights=[0.8, 0.2],
                                                        seed=0).take(2000))
    assert 1500 <= picks.count(0) <= 1700  # 1600 expected


def test_sample_from_datasets_stop_on_empty_and_reproducibility():
    def make():
        return tf.data.Dataset.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 100)], seed=4,
            stop_on_empty_dataset=True)
    first = _order(make())
    assert first == _order(make())  # the same seed, the same draws
    assert sum(1 for x in first if x < 3) == 3 and len(first) < 93
    ds = make()
    assert len({tuple(_order(ds)) for _ in range(5)}) > 1  # rerandomized per iteration


def test_unknown_cardinality_buffer_holds_the_whole_input():
    out = _order(tf.data.Dataset.range(30).shuffle(tf.data.UNKNOWN_CARDINALITY, seed=2))
    assert sorted(out) == list(range(30)) and out != list(range(30))
    firsts = collections.Counter(
        _order(tf.data.Dataset.range(6).shuffle(-2, seed=s))[0] for s in range(600))
    assert set(firsts) == set(range(6))  # any element can come first


def test_unseeded_shuffles_leave_torch_generator_alone():
    import torch
    torch.manual_seed(11)
    expected = torch.rand(3)
    torch.manual_seed(11)
    ds = tf.data.Dataset.range(10).shuffle(10)
    _order(ds)
    assert torch.equal(torch.rand(3), expected)
