"""The bridge between `tf.data` pipelines and `torch.utils.data`.

**Into tf.data: `Dataset.from_torch(source, element_spec=None)`.** `source`
is a map-style `torch.utils.data.Dataset` (read at indices `0..len-1`, so
its cardinality is its `len`), an `IterableDataset`, or a `DataLoader`
(each epoch is one `iter(loader)`, so its workers, sampler and collation
are torch's; cardinality `len(loader)` when torch knows it). Items become
elements by tf.data's rules, except that lists read as tuples (torch's
`default_collate` turns a sample's tuple into a list). `element_spec`,
when not given, comes from the first item; for a batching `DataLoader`
without `drop_last` its batch dimension is unknown (`None`), as TF's.

**Out of tf.data: `dataset.to_torch()`** is a `torch.utils.data.IterableDataset`
over the pipeline's elements. Use it with `DataLoader(ds.to_torch(),
batch_size=None, num_workers=W)` (the pipeline batches; `batch_size=None`
stops torch from batching again). In each of the `W` worker processes the
pipeline runs with TF's DATA sharding: worker `w` keeps elements
`w, w + W, ...` of the pipeline's output, so the shards are disjoint and
cover every element, and since the loader takes one element from each
worker in turn the loader's order is the pipeline's. Elementwise `map`s at
the end of the pipeline (and `prefetch`, `with_options`) run after the
shard is taken, so each worker maps only its own elements: that is where
the worker processes save time. Every worker runs the rest of the
pipeline in full. Shuffles stay disjoint across workers because each worker
shuffles with the same seed; epochs differ through the loader's per-epoch
base seed (`get_worker_info().seed - worker id`, drawn from torch's
generator), so seeded shuffles are reproducible under `torch.manual_seed`
but not the same orders as iterating the dataset directly.
`len()` is the dataset's where TF knows it.
"""

from __future__ import annotations

from typing import Any, Iterator

import torch
import torch.utils.data

from . import structure
from .dataset_ops import UNKNOWN, Dataset, first_element
from .transformations import MapDataset, OptionsDataset, PrefetchDataset, ShardDataset

__all__ = ["TorchSourceDataset", "TorchIterable"]


def _as_element(item: Any) -> Any:
    """A torch item as an element: lists (collated tuples) read as tuples, all the way down."""
    if isinstance(item, list):
        return tuple(_as_element(v) for v in item)
    if isinstance(item, tuple) and not hasattr(item, "_fields"):
        return tuple(_as_element(v) for v in item)
    if isinstance(item, dict):
        return {k: _as_element(v) for k, v in item.items()}
    return item


class TorchSourceDataset(Dataset):
    """`Dataset.from_torch(source)`: the items of a torch `Dataset` or `DataLoader`."""

    def __init__(self, source: Any, element_spec: Any = None) -> None:
        super().__init__()
        is_loader = isinstance(source, torch.utils.data.DataLoader)
        if not is_loader and not isinstance(source, torch.utils.data.Dataset):
            raise TypeError(f"Dataset.from_torch takes a torch.utils.data.Dataset or DataLoader, "
                            f"got {type(source).__name__}; for other iterables use "
                            "Dataset.from_generator.")
        self._source = source
        self._map_style = (not is_loader and not isinstance(
            source, torch.utils.data.IterableDataset) and hasattr(source, "__len__"))
        if not is_loader and not self._map_style and not isinstance(
                source, torch.utils.data.IterableDataset):
            raise TypeError("A map-style torch Dataset needs __len__ to be read by from_torch.")
        self._spec = element_spec
        self._relax_batch = (is_loader and source.batch_size is not None
                             and not source.drop_last)

    def _iterate(self) -> Iterator[Any]:
        source, normalize = self._source, structure.normalize
        if self._map_style:
            for i in range(len(source)):
                yield normalize(_as_element(source[i]))
        else:
            for item in source:
                yield normalize(_as_element(item))

    def _derive_spec(self, sample: bool) -> Any:
        if not sample:
            return None
        element = first_element(self)
        if element is None:
            raise ValueError("from_torch could not infer the element_spec of an empty source: "
                             "pass element_spec=.")
        spec = structure.spec_of(element)
        if self._relax_batch:
            spec = structure.relaxed(spec, lambda s: [a == 0 for a in range(s.shape.rank)])
        return spec

    def _cardinality(self) -> int:
        try:
            return len(self._source)
        except TypeError:
            return UNKNOWN


# Transformations that change each element on its own: a shard commutes with them.
_ELEMENTWISE = (MapDataset, PrefetchDataset, OptionsDataset)


def _sharded(dataset: Dataset, num_shards: int, index: int) -> Dataset:
    """`dataset` with `shard(num_shards, index)` placed below its trailing elementwise steps."""
    if isinstance(dataset, _ELEMENTWISE):
        inner = _sharded(dataset._inputs[0], num_shards, index)
        clone = object.__new__(type(dataset))
        clone.__dict__.update(dataset.__dict__)
        clone._inputs = (inner,)
        return clone
    return ShardDataset(dataset, num_shards, index)


class TorchIterable(torch.utils.data.IterableDataset):
    """`dataset.to_torch()`: the pipeline as a torch `IterableDataset` (see the module doc)."""

    def __init__(self, dataset: Dataset) -> None:
        super().__init__()
        self._dataset = dataset
        self._epochs = 0  # per process: a persistent worker's epochs

    @property
    def dataset(self) -> Dataset:
        return self._dataset

    def __iter__(self) -> Iterator[Any]:
        info = torch.utils.data.get_worker_info()
        if info is None:
            return iter(self._dataset._iterate())
        from . import shuffling
        shuffling.set_worker_epoch_key((info.seed - info.id, self._epochs))
        self._epochs += 1
        return iter(_sharded(self._dataset, info.num_workers, info.id)._iterate())

    def __len__(self) -> int:
        return len(self._dataset)
