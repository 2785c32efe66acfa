"""The bridge to torch.utils.data: `Dataset.from_torch` and `dataset.to_torch()` with workers."""

import pytest
import torch
from torch.utils.data import DataLoader, IterableDataset, TensorDataset, get_worker_info

import tfcompat as tf


class _Stream(IterableDataset):
    def __iter__(self):
        return iter([{"x": torch.tensor([i, i])} for i in range(3)])


def test_from_torch_map_style_dataset():
    x, y = torch.arange(10.0).reshape(5, 2), torch.arange(5)
    ds = tf.data.Dataset.from_torch(TensorDataset(x, y))
    assert len(ds) == 5
    assert repr(ds.element_spec) == ("(TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
                                     "TensorSpec(shape=(), dtype=tf.int64, name=None))")
    batches = list(ds.batch(2))
    assert [b[1].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    assert torch.equal(batches[0][0], x[:2])


def test_from_torch_data_loader_keeps_tuples_and_unknown_batch_dim():
    loader = DataLoader(TensorDataset(torch.arange(10)), batch_size=4)
    ds = tf.data.Dataset.from_torch(loader)
    assert int(ds.cardinality()) == 3
    assert repr(ds.element_spec) == "(TensorSpec(shape=(None,), dtype=tf.int64, name=None),)"
    assert [b[0].tolist() for b in ds] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    full = tf.data.Dataset.from_torch(DataLoader(TensorDataset(torch.arange(10)), batch_size=4,
                                                 drop_last=True))
    assert repr(full.element_spec) == "(TensorSpec(shape=(4,), dtype=tf.int64, name=None),)"


def test_from_torch_iterable_dataset_and_errors():
    ds = tf.data.Dataset.from_torch(_Stream())
    assert int(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    assert [e["x"].tolist() for e in ds.map(lambda e: {"x": e["x"] * 2})] == [[0, 0], [2, 2], [4, 4]]
    with pytest.raises(TypeError, match="from_generator"):
        tf.data.Dataset.from_torch([1, 2, 3])


def test_to_torch_in_process():
    ds = tf.data.Dataset.range(5).map(lambda x: x * 3)
    iterable = ds.to_torch()
    assert isinstance(iterable, IterableDataset) and len(iterable) == 5
    assert [int(x) for x in DataLoader(iterable, batch_size=None)] == [0, 3, 6, 9, 12]
    assert [b.tolist() for b in DataLoader(iterable, batch_size=2)] == [[0, 3], [6, 9], [12]]


def _tag_with_worker(x):
    return x, tf.constant(get_worker_info().id)


def test_to_torch_two_workers_get_disjoint_shards_in_order():
    ds = tf.data.Dataset.range(11).map(_tag_with_worker)
    loader = DataLoader(ds.to_torch(), batch_size=None, num_workers=2)
    got = [(int(x), int(w)) for x, w in loader]
    assert [x for x, _ in got] == list(range(11))  # every element once, the pipeline's order
    shards = {w: {x for x, ww in got if ww == w} for w in (0, 1)}
    assert shards == {0: set(range(0, 11, 2)), 1: set(range(1, 11, 2))}


def test_to_torch_two_workers_shuffle_stays_disjoint_and_changes_per_epoch():
    torch.manual_seed(0)
    ds = tf.data.Dataset.range(20).shuffle(20).batch(5)
    loader = DataLoader(ds.to_torch(), batch_size=None, num_workers=2)
    epochs = [[x for b in loader for x in b.tolist()] for _ in range(2)]
    for order in epochs:
        assert sorted(order) == list(range(20))
    assert epochs[0] != epochs[1]


def test_to_torch_persistent_workers_reshuffle_each_epoch():
    torch.manual_seed(1)
    ds = tf.data.Dataset.range(12).shuffle(12, seed=5)
    loader = DataLoader(ds.to_torch(), batch_size=None, num_workers=2, persistent_workers=True)
    epochs = [[int(x) for x in loader] for _ in range(3)]
    for order in epochs:
        assert sorted(order) == list(range(12))
    assert len({tuple(e) for e in epochs}) == 3
