"""Adapters for inputs that yield batches: `tf.data.Dataset`, generators, `Sequence`, `DataLoader`.

Their batches are used as they come (no `batch_size`: tf_keras ignores one given with
them), after tf_keras's standardisation of a generator's output: `None`s dropped from
`(x, y, sample_weight)`, lists made tuples, floating NumPy arrays made `floatx()` tensors
(other arrays and numbers tensors of their own dtype; torch tensors unchanged).

* `tf.data.Dataset` (tfcompat's): each epoch a new iterator, unless `steps_per_epoch` is
  given and differs from its cardinality (an infinite or unknown-size dataset), when one
  iterator continues across epochs; an infinite one needs `steps_per_epoch`. A distributed
  dataset is used as is and needs the steps.
* A generator or iterator: one pass shared by all epochs, size unknown (the first epoch
  ends when it is exhausted) unless `steps_per_epoch` is given. Its first batch is read
  when the adapter is built (to build an unbuilt model on it, as tf_keras).
* `keras.utils.Sequence`: `len(seq)` batches, `seq[i]` in order each epoch, or in a
  `random.shuffle`d order when `shuffle` (Python's `random` module, as tf_keras); then
  `seq.on_epoch_end()`. `seq[0]` is read once when the adapter is built (as tf_keras).
  With `workers > 1` (or `use_multiprocessing`), up to `max_queue_size` batches are read
  ahead by a pool of `workers` threads, in order (tf_keras's `OrderedEnqueuer`; threads
  also stand in for its processes).
* `torch.utils.data.DataLoader` (tfcompat's addition): its batches (a tensor, a dict, or a
  list/tuple read as `(x, y)` / `(x, y, sample_weight)`); `len(loader)` steps when it has a
  length; re-iterated each epoch as a dataset is. Its own `shuffle`, workers and pinning
  apply; the model is not built on a peeked batch (that would start its workers).
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import random
from typing import Any, Iterator, Optional

import torch
import torch.utils.data

from ....data.dataset_ops import Dataset
from ....distribute import distribute_lib, input_lib
from ....framework import device as device_lib
from ....framework import nest
from ...utils.data_utils import Sequence
from .array_adapters import INFINITE, DataAdapter
from .packing import (is_none_or_empty, list_to_tuple, pack_x_y_sample_weight, to_tensor,
                      unpack_x_y_sample_weight)

__all__ = ["DatasetAdapter", "GeneratorDataAdapter", "KerasSequenceAdapter",
           "DataLoaderAdapter", "standardize_batch", "is_distributed_dataset", "cardinality_of"]


def is_distributed_dataset(x: Any) -> bool:
    return isinstance(x, (input_lib.DistributedDataset, input_lib.DistributedDatasetsFromFunction))


def cardinality_of(source: Any) -> int:
    """A batch source's cardinality: its `cardinality()` (a `tf.data` dataset's, or one of
    the adapters' sources), else unknown (-2)."""
    get = getattr(source, "cardinality", None)
    if get is None or not callable(get):
        return -2
    return int(get())


def standardize_batch(data: Any) -> Any:
    """tf_keras's `_standardize_batch` for a generator's batch (see the module docstring)."""
    x, y, sample_weight = unpack_x_y_sample_weight(data)
    data = list_to_tuple(pack_x_y_sample_weight(x, y, sample_weight))
    return nest.map_structure(to_tensor, data)


def _reject_targets(y: Any, sample_weights: Any, what: str) -> None:
    if not is_none_or_empty(y):
        raise ValueError(f"`y` argument is not supported when using {what} as input.")
    if not is_none_or_empty(sample_weights):
        raise ValueError(f"`sample_weight` argument is not supported when using {what} as input.")


def _build_model(model: Any, batch: Any) -> None:
    """tf_keras builds an unbuilt model on a generator's first batch (concrete shapes)."""
    if model is None or getattr(model, "built", True):
        return
    concrete_x, _, _ = unpack_x_y_sample_weight(batch)
    device = device_lib.current_torch_device()
    concrete_x = nest.map_structure(
        lambda t: t.to(device) if isinstance(t, torch.Tensor) else t, concrete_x)
    strategy = getattr(model, "distribute_strategy", None) or distribute_lib.get_strategy()
    try:
        strategy.run(lambda x: model(x, training=False), args=(concrete_x,))
    except NotImplementedError:
        # A container model (a GAN, a VAE) whose subcomponents hold the forward pass needs
        # no build, as in tf_keras.
        pass


def _first_dim_or_none(batch: Any) -> Optional[int]:
    leaves = nest.flatten(batch)
    first = leaves[0] if leaves else None
    shape = getattr(first, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else None


class DatasetAdapter(DataAdapter):
    """A `tf.data.Dataset` (or a distributed dataset) whose elements are the batches."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return isinstance(x, Dataset) or is_distributed_dataset(x)

    def __init__(self, x: Any, y: Any = None, sample_weights: Any = None,
                 steps: Optional[int] = None, **kwargs: Any) -> None:
        self._dataset = x  # datasets are immutable: the user's is reused
        self._user_steps = steps
        _reject_targets(y, sample_weights, "dataset")
        if steps is None:
            if is_distributed_dataset(x):
                raise ValueError("When providing a distributed dataset, you must specify the "
                                 "number of steps to run.")
            if cardinality_of(x) == INFINITE:
                raise ValueError(
                    "When providing an infinite dataset, you must specify the number of steps "
                    "to run (if you did not intend to create an infinite dataset, make sure to "
                    "not call `repeat()` on the dataset).")

    def get_dataset(self) -> Any:
        return self._dataset

    def get_size(self) -> None:
        return None  # the handler reads the cardinality

    def batch_size(self) -> None:
        return None

    def has_partial_batch(self) -> bool:
        return False

    def partial_batch_size(self) -> None:
        return None

    def should_recreate_iterator(self) -> bool:
        if is_distributed_dataset(self._dataset):
            return False  # no cardinality: the user's steps say how far each epoch goes
        return self._user_steps is None or cardinality_of(self._dataset) == self._user_steps


class _GeneratorBatches:
    """One pass over a generator (its first batch put back), shared by every `iter()`."""

    def __init__(self, stream: Iterator[Any]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[Any]:
        for data in self._stream:
            yield standardize_batch(data)


class GeneratorDataAdapter(DataAdapter):
    """A Python generator or iterator of batches (anything with `__next__` and `__iter__`
    that is not a `Sequence`)."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return ((hasattr(x, "__next__") or hasattr(x, "next")) and hasattr(x, "__iter__")
                and not isinstance(x, Sequence))

    def __init__(self, x: Any, y: Any = None, sample_weights: Any = None, workers: int = 1,
                 use_multiprocessing: bool = False, max_queue_size: int = 10, model: Any = None,
                 **kwargs: Any) -> None:
        _reject_targets(y, sample_weights, self._what())
        peek, x = self._peek_and_restore(x)
        peek = standardize_batch(peek)
        _build_model(model, peek)
        self._first_batch_size = _first_dim_or_none(peek)
        self._dataset = self._batches(x, workers, use_multiprocessing, max_queue_size)

    @staticmethod
    def _what() -> str:
        return "python generator"

    @staticmethod
    def _peek_and_restore(x: Any) -> tuple:
        peek = next(x)
        return peek, itertools.chain([peek], x)

    def _batches(self, x: Any, workers: int, use_multiprocessing: bool,
                 max_queue_size: int) -> Any:
        # Read in this thread: a generator cannot be read by several workers in order.
        return _GeneratorBatches(x)

    def get_dataset(self) -> Any:
        return self._dataset

    def get_size(self) -> Optional[int]:
        return None

    def batch_size(self) -> None:
        return None

    def representative_batch_size(self) -> Optional[int]:
        return self._first_batch_size

    def has_partial_batch(self) -> bool:
        return False

    def partial_batch_size(self) -> None:
        return None

    def should_recreate_iterator(self) -> bool:
        return False


class _SequenceBatches:
    """Each `iter()` is one epoch over a `Sequence` (see the module docstring)."""

    def __init__(self, sequence: Sequence, shuffle: Any, workers: int,
                 use_multiprocessing: bool, max_queue_size: int) -> None:
        self._sequence = sequence
        self._shuffle = shuffle
        self._threads = workers if (workers > 1 or use_multiprocessing) else 0
        self._queue = max(int(max_queue_size), 1)
        self.live: Optional[Any] = None  # the epoch being read ahead (stopped at epoch end)

    def cardinality(self) -> int:
        return len(self._sequence)

    def __iter__(self) -> Iterator[Any]:
        epoch = self._epoch()
        if self._threads:
            self.live = epoch
        return epoch

    def _epoch(self) -> Iterator[Any]:
        # The order is drawn when the epoch's first batch is wanted, as tf_keras's
        # generator function does.
        order = list(range(len(self._sequence)))
        if self._shuffle:
            random.shuffle(order)
        if not self._threads:
            for i in order:
                yield standardize_batch(self._sequence[i])
            return
        yield from self._read_ahead(order)

    def _read_ahead(self, order: list) -> Iterator[Any]:
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(self._threads, 1))
        pending: collections.deque = collections.deque()
        indices = iter(order)
        try:
            for i in itertools.islice(indices, self._queue):
                pending.append(pool.submit(self._sequence.__getitem__, i))
            while pending:
                batch = pending.popleft().result()
                for i in itertools.islice(indices, 1):
                    pending.append(pool.submit(self._sequence.__getitem__, i))
                yield standardize_batch(batch)
        finally:
            # Nothing may read the sequence while `on_epoch_end` (say, a reshuffle) runs.
            pool.shutdown(wait=True, cancel_futures=True)

    def stop(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            live.close()


class KerasSequenceAdapter(GeneratorDataAdapter):
    """A `tf.keras.utils.Sequence`: `len()` batches an epoch, `on_epoch_end()` after each."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return isinstance(x, Sequence)

    def __init__(self, x: Sequence, y: Any = None, sample_weights: Any = None,
                 shuffle: Any = False, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10, model: Any = None, **kwargs: Any) -> None:
        self._shuffle_sequence = shuffle
        self._keras_sequence = x
        super().__init__(x, y, sample_weights, workers=workers,
                         use_multiprocessing=use_multiprocessing, max_queue_size=max_queue_size,
                         model=model, **kwargs)

    @staticmethod
    def _what() -> str:
        return "`keras.utils.Sequence`"

    @staticmethod
    def _peek_and_restore(x: Any) -> tuple:
        return x[0], x

    def _batches(self, x: Any, workers: int, use_multiprocessing: bool,
                 max_queue_size: int) -> _SequenceBatches:
        return _SequenceBatches(x, self._shuffle_sequence, workers, use_multiprocessing,
                                max_queue_size)

    def get_size(self) -> int:
        return len(self._keras_sequence)

    def should_recreate_iterator(self) -> bool:
        return True

    def on_epoch_end(self) -> None:
        self._dataset.stop()
        self._keras_sequence.on_epoch_end()


class _LoaderBatches:
    """Each `iter()` is one pass over a `DataLoader`, its batches standardised."""

    def __init__(self, loader: torch.utils.data.DataLoader) -> None:
        self._loader = loader

    def cardinality(self) -> int:
        try:
            return len(self._loader)
        except TypeError:  # an IterableDataset without a length
            return -2

    def __iter__(self) -> Iterator[Any]:
        for data in self._loader:
            yield standardize_batch(data)


class DataLoaderAdapter(DataAdapter):
    """A `torch.utils.data.DataLoader` whose batches are the batches (see the module
    docstring); `y` and `sample_weight` belong in its batches, as for datasets."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return isinstance(x, torch.utils.data.DataLoader)

    def __init__(self, x: torch.utils.data.DataLoader, y: Any = None, sample_weights: Any = None,
                 steps: Optional[int] = None, **kwargs: Any) -> None:
        _reject_targets(y, sample_weights, "a `torch.utils.data.DataLoader`")
        self._loader = x
        self._user_steps = steps
        self._dataset = _LoaderBatches(x)

    def get_dataset(self) -> _LoaderBatches:
        return self._dataset

    def get_size(self) -> Optional[int]:
        size = self._dataset.cardinality()
        return size if size >= 0 else None

    def batch_size(self) -> None:
        return None

    def representative_batch_size(self) -> Optional[int]:
        return self._loader.batch_size

    def has_partial_batch(self) -> bool:
        return False

    def partial_batch_size(self) -> None:
        return None

    def should_recreate_iterator(self) -> bool:
        # As a dataset: a new pass each epoch unless the steps cut epochs out of one pass.
        size = self.get_size()
        return self._user_steps is None or size == self._user_steps
