"""Adapters for data held in memory: arrays, tensors, lists of scalars, array-likes.

tf_keras turns such inputs into a `tf.data` pipeline of index batches gathered from the
data; here the same batches come straight from the (converted) tensors:

* unshuffled, batch `i` is rows `[i * batch_size, (i + 1) * batch_size)` of every leaf, a
  view (no copy); the last batch is partial when `batch_size` does not divide the rows;
* `shuffle=True` (any truthy value but "batch"): a fresh permutation of all rows each
  epoch, each batch gathered from it (a copy);
* `shuffle="batch"` (any case): the batches keep their rows but come in a random order
  each epoch, each one's rows shuffled too. tf_keras shuffles every tensor of a batch on
  its own (so its `x` and `y` rows no longer match); here one permutation serves all of a
  batch's tensors, which keeps the pairs. tf_keras draws the batch order from a 1024-batch
  shuffle buffer; here it is a uniform permutation of all the batches.

Permutations come from `torch.randperm` with a generator seeded from tfcompat's global
seed (`tf.random.set_seed`, `tf.keras.utils.set_random_seed`), drawn as an op seed when
the adapter is built, so a seeded program shuffles the same way every run (tfcompat's
orders, not TF's); without a global seed they come from torch's default generator.
"""

from __future__ import annotations

import hashlib
import logging
import math
from typing import Any, Callable, Iterator, Optional

import numpy as np
import torch

from ....framework import nest
from ....ops import random_ops
from .packing import (check_data_cardinality, fill_partial_sample_weights, first_dim,
                      pack_x_y_sample_weight, process_tensorlike, to_tensor)

__all__ = ["DataAdapter", "TensorLikeDataAdapter", "GenericArrayLikeDataAdapter",
           "ListsOfScalarsDataAdapter", "ArraySlices", "Shuffler", "UNKNOWN", "INFINITE"]

_log = logging.getLogger("tensorflow")

INFINITE = -1  # tf.data's cardinality constants
UNKNOWN = -2


class DataAdapter:
    """What `DataHandler` asks of an input kind (tf_keras's `DataAdapter` interface).

    `get_dataset()` is a re-iterable of batches (each `iter()` starts over, or continues,
    as the kind's `should_recreate_iterator()` implies); `get_size()` is the number of
    batches per epoch when known; `on_epoch_end()` runs after each epoch.
    """

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        """Whether this adapter takes `x` (and `y`)."""
        raise NotImplementedError

    def get_dataset(self) -> Any:
        """The batches: a re-iterable whose elements are packed `(x, y, sample_weight)`."""
        raise NotImplementedError

    def get_size(self) -> Optional[int]:
        """Batches per epoch, or None when unknown."""
        raise NotImplementedError

    def batch_size(self) -> Optional[int]:
        """The batch size when the adapter sets it, else None."""
        raise NotImplementedError

    def representative_batch_size(self) -> Optional[int]:
        """A typical batch size (the first batch's for generators)."""
        return self.batch_size()

    def has_partial_batch(self) -> bool:
        """Whether the last batch of an epoch is smaller than `batch_size()`."""
        raise NotImplementedError

    def partial_batch_size(self) -> Optional[int]:
        """The size of that last partial batch (None when there is none or it is unknown)."""
        raise NotImplementedError

    def should_recreate_iterator(self) -> bool:
        """Whether each epoch takes a new iterator (else one iterator spans the epochs)."""
        raise NotImplementedError

    def get_samples(self) -> Optional[int]:
        """The number of samples per epoch, or None when the size is unknown."""
        size, batch = self.get_size(), self.batch_size()
        if not size or not batch:
            return None
        total = size * batch
        if self.has_partial_batch():
            total -= batch - self.partial_batch_size()
        return total

    def on_epoch_end(self) -> None:
        """Called after each epoch."""


def _is_tensor_leaf(v: Any) -> bool:
    from ....framework.variable_protocol import is_variable
    return isinstance(v, (torch.Tensor, np.ndarray)) or is_variable(v)


def _leaves(x: Any, y: Any) -> list:
    flat = nest.flatten(x)
    if y is not None:
        flat += nest.flatten(y)
    return [v for v in flat if v is not None]


class Shuffler:
    """Permutations for shuffled epochs, seeded as the module docstring says."""

    def __init__(self) -> None:
        seeds = random_ops.get_seed(None)
        self._generator: Optional[torch.Generator] = None
        if seeds[0] is not None:
            digest = hashlib.blake2b(repr(("DataAdapterShuffle", seeds)).encode(),
                                     digest_size=8).digest()
            self._generator = torch.Generator()
            self._generator.manual_seed(int.from_bytes(digest, "little") & (2 ** 63 - 1))

    def permutation(self, n: int) -> torch.Tensor:
        """A uniformly random permutation of `range(n)` (int64, on the host)."""
        return torch.randperm(n, generator=self._generator)


def _take_rows(leaf: Any, start: int, stop: int) -> Any:
    return leaf[start:stop]


def _gather_rows(leaf: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    if index.device != leaf.device:
        index = index.to(leaf.device)
    return leaf.index_select(0, index)


class ArraySlices:
    """The batches of in-memory data: each `iter()` runs `epochs` passes over the rows.

    `take(leaf, start, stop)` and `gather(leaf, index)` cut one leaf; `finish(leaf)`
    converts what they return (array-likes give NumPy arrays to convert).
    """

    def __init__(self, inputs: Any, num_samples: int, batch_size: int, epochs: int,
                 shuffle: Any, take: Callable[[Any, int, int], Any] = _take_rows,
                 gather: Callable[[Any, torch.Tensor], Any] = _gather_rows,
                 finish: Optional[Callable[[Any], Any]] = None) -> None:
        self._structure = inputs
        self._flat = nest.flatten(inputs)
        self._n = num_samples
        self._batch = batch_size
        self._epochs = max(int(epochs), 1)
        self._shuffle = shuffle
        self._shuffler = Shuffler() if shuffle else None
        self._take, self._gather, self._finish = take, gather, finish

    def cardinality(self) -> int:
        """The batches over all the epochs one `iter()` runs."""
        return math.ceil(self._n / self._batch) * self._epochs

    def _pack(self, leaves: list) -> Any:
        if self._finish is not None:
            leaves = [None if v is None else self._finish(v) for v in leaves]
        return nest.pack_sequence_as(self._structure, leaves)

    def _epoch(self) -> Iterator[Any]:
        n, bs, flat = self._n, self._batch, self._flat
        if not self._shuffle:
            for start in range(0, n, bs):
                stop = min(start + bs, n)
                yield self._pack([None if v is None else self._take(v, start, stop)
                                  for v in flat])
            return
        shuffler = self._shuffler
        if self._shuffle == "batch":
            for b in shuffler.permutation(math.ceil(n / bs)).tolist():
                start = b * bs
                stop = min(start + bs, n)
                index = shuffler.permutation(stop - start) + start
                yield self._pack([None if v is None else self._gather(v, index) for v in flat])
            return
        order = shuffler.permutation(n)
        for start in range(0, n, bs):
            index = order[start:start + bs]
            yield self._pack([None if v is None else self._gather(v, index) for v in flat])

    def __iter__(self) -> Iterator[Any]:
        for _ in range(self._epochs):
            yield from self._epoch()


def _normalize_shuffle(shuffle: Any) -> Any:
    return shuffle.lower() if isinstance(shuffle, str) else shuffle


class TensorLikeDataAdapter(DataAdapter):
    """NumPy arrays, torch tensors and variables, alone or in nests (lists, tuples, dicts).

    As tf_keras: floating NumPy arrays become `floatx()` tensors (others keep their
    dtype; torch tensors and variables keep theirs); lists become tuples; missing
    per-output sample weights become ones; `batch_size` defaults to
    `ceil(samples / steps)` when `steps` is given, else 32; the last batch may be partial.
    """

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return all(_is_tensor_leaf(v) for v in _leaves(x, y))

    def __init__(self, x: Any, y: Any = None, sample_weights: Any = None,
                 sample_weight_modes: Any = None, batch_size: Optional[int] = None,
                 epochs: int = 1, steps: Optional[int] = None, shuffle: Any = False,
                 **kwargs: Any) -> None:
        x, y, sample_weights = self._convert((x, y, sample_weights))
        sample_weights = fill_partial_sample_weights(y, sample_weights)
        inputs = pack_x_y_sample_weight(x, y, sample_weights)
        num_samples = first_dim(inputs)
        if num_samples is None:
            raise ValueError(
                "No data to iterate: `x` is None (or holds only Nones). Pass the input data "
                "as `x` (arrays, tensors, a `tf.data.Dataset`, a generator or a "
                "`keras.utils.Sequence`).")
        check_data_cardinality(inputs if isinstance(inputs, tuple) else (inputs,))
        if not batch_size:
            # (steps=-1 means "run forever": it does not size batches)
            batch_size = int(math.ceil(num_samples / steps)) if steps and steps > 0 else 32
        self._size = int(math.ceil(num_samples / batch_size))
        self._batch_size = batch_size
        self._partial_batch_size = num_samples % batch_size
        self._shuffle = _normalize_shuffle(shuffle)
        self._dataset = self._slices(inputs, num_samples, batch_size, epochs, self._shuffle)

    @staticmethod
    def _convert(data: Any) -> Any:
        return process_tensorlike(data)

    def _slices(self, inputs: Any, num_samples: int, batch_size: int, epochs: int,
                shuffle: Any) -> ArraySlices:
        return ArraySlices(inputs, num_samples, batch_size, epochs, shuffle)

    def get_dataset(self) -> ArraySlices:
        return self._dataset

    def get_size(self) -> int:
        return self._size

    def batch_size(self) -> int:
        return self._batch_size

    def has_partial_batch(self) -> bool:
        return self._partial_batch_size > 0

    def partial_batch_size(self) -> Optional[int]:
        return self._partial_batch_size or None

    def should_recreate_iterator(self) -> bool:
        # One iterator runs through all the epochs (tf_keras repeats the index dataset).
        return False


def _is_array_like(v: Any) -> bool:
    return (hasattr(v, "__getitem__") and hasattr(v, "shape") and hasattr(v, "dtype")
            and hasattr(v, "__len__"))


def _take_array_like(leaf: Any, start: int, stop: int) -> Any:
    return leaf[start:stop]


def _gather_array_like(leaf: Any, index: torch.Tensor) -> Any:
    if isinstance(leaf, torch.Tensor):
        return _gather_rows(leaf, index)
    # Read the rows in increasing order (what h5py and memory maps can do), then reorder.
    wanted = index.numpy()
    order = np.argsort(wanted, kind="stable")
    rows = np.asarray(leaf[wanted[order]])
    out = np.empty_like(rows)
    out[order] = rows
    return out


class GenericArrayLikeDataAdapter(TensorLikeDataAdapter):
    """Array-likes that are neither NumPy nor tensors (h5py datasets, memory maps, any
    object with `__getitem__`, `__len__`, `shape` and `dtype`), read a batch at a time so
    the data need not fit in memory; each batch converted as NumPy input is."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        if TensorLikeDataAdapter.can_handle(x, y):
            return False
        return all(_is_array_like(v) for v in _leaves(x, y))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _log.warning(
            "Keras is training/fitting/evaluating on array-like data. TF-Keras may not be "
            "optimized for this format, so if your input data format is supported by "
            "TensorFlow I/O (https://github.com/tensorflow/io) we recommend using that to "
            "load a Dataset instead.")
        super().__init__(*args, **kwargs)

    @staticmethod
    def _convert(data: Any) -> Any:
        from .packing import list_to_tuple
        return list_to_tuple(data)

    def _slices(self, inputs: Any, num_samples: int, batch_size: int, epochs: int,
                shuffle: Any) -> ArraySlices:
        return ArraySlices(inputs, num_samples, batch_size, epochs, shuffle,
                           take=_take_array_like, gather=_gather_array_like, finish=to_tensor)


def _is_list_of_scalars(inp: Any) -> bool:
    if isinstance(inp, (float, int, str, bytes, bytearray)):
        return True
    if isinstance(inp, (list, tuple)) and inp:
        return _is_list_of_scalars(inp[0])
    return False


class ListsOfScalarsDataAdapter(DataAdapter):
    """Python lists (of lists) of numbers: made NumPy arrays (`np.asarray`, so floats are
    float64 and then `floatx()`, ints int64), then batched as arrays; each epoch takes a
    new iterator, as tf_keras."""

    @staticmethod
    def can_handle(x: Any, y: Any = None) -> bool:
        return _is_list_of_scalars(x) and (y is None or _is_list_of_scalars(y))

    def __init__(self, x: Any, y: Any = None, sample_weights: Any = None,
                 sample_weight_modes: Any = None, batch_size: Optional[int] = None,
                 shuffle: Any = False, **kwargs: Any) -> None:
        x = np.asarray(x)
        if y is not None:
            y = np.asarray(y)
        if sample_weights is not None:
            sample_weights = np.asarray(sample_weights)
        self._internal_adapter = TensorLikeDataAdapter(
            x, y=y, sample_weights=sample_weights, sample_weight_modes=sample_weight_modes,
            batch_size=batch_size, shuffle=shuffle, **kwargs)

    def get_dataset(self) -> ArraySlices:
        return self._internal_adapter.get_dataset()

    def get_size(self) -> int:
        return self._internal_adapter.get_size()

    def batch_size(self) -> int:
        return self._internal_adapter.batch_size()

    def has_partial_batch(self) -> bool:
        return self._internal_adapter.has_partial_batch()

    def partial_batch_size(self) -> Optional[int]:
        return self._internal_adapter.partial_batch_size()

    def should_recreate_iterator(self) -> bool:
        return True
