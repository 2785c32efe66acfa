"""`Dataset.shuffle`: TF's buffer semantics, with tfcompat's own random stream.

TF's algorithm, kept exactly: fill a buffer with the first `buffer_size`
input elements; then repeatedly emit a uniformly chosen buffer element and
put the next input element in its place; when the input ends, emit the
rest of the buffer in random order. So with `buffer_size=1` the order is
kept, the element at output position `i` comes from input positions
`<= i + buffer_size - 1`, and a buffer at least as large as the dataset
gives a uniformly random permutation.

Seeds follow `tf.random`'s rules (`random_ops.get_seed`): with an op seed
or a global seed (`tf.random.set_seed`) the orders are the same every run
(tfcompat's orders, not TF's: TF's Philox stream is not reproduced); with
neither, each dataset draws its seed from torch's default generator when it
is made (so `torch.manual_seed` fixes it too). `reshuffle_each_iteration`
(default True) gives each iteration (epoch) its own order, the k-th epoch of
a dataset always the same one for a given seed; False repeats the first
order every epoch.

Inside `to_torch()` DataLoader workers, every worker shuffles identically
(so their shards stay disjoint) and epochs are told apart by the loader's
per-epoch base seed (see `torch_bridge.py`).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Iterator, Optional

import torch

from ..framework import errors
from ..ops import random_ops
from .dataset_ops import Dataset, as_int, peeking

__all__ = ["ShuffleDataset", "set_worker_epoch_key"]

# Set in a DataLoader worker process by torch_bridge: the loader's per-epoch base seed, which
# every worker shares, replacing this process's own epoch counting.
_worker_epoch_key: Optional[Any] = None


def set_worker_epoch_key(key: Optional[Any]) -> None:
    global _worker_epoch_key
    _worker_epoch_key = key


class ShuffleDataset(Dataset):
    """`shuffle(buffer_size, seed=None, reshuffle_each_iteration=None)` (see the module doc)."""

    def __init__(self, input_dataset: Dataset, buffer_size: Any, seed: Optional[int],
                 reshuffle_each_iteration: Optional[bool], name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        size = as_int(buffer_size, "buffer_size")
        if size <= 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        self._buffer_size = size
        seeds = random_ops.get_seed(None if seed is None else as_int(seed, "seed"))
        if seeds[0] is None:  # no seed at all: one of our own, from torch's default generator
            seeds = (int(torch.randint(0, 2 ** 31 - 1, ()).item()), 0)
        self._seeds = seeds
        self._reshuffle = True if reshuffle_each_iteration is None else bool(
            reshuffle_each_iteration)
        self._epochs = 0

    def _next_epoch_key(self) -> Any:
        if not self._reshuffle:
            return 0
        if _worker_epoch_key is not None:
            key = (_worker_epoch_key, self._epochs)
        else:
            key = self._epochs
        if not peeking():
            self._epochs += 1
        return key

    def _iterate(self) -> Iterator[Any]:
        key = self._next_epoch_key()
        digest = hashlib.blake2b(repr((self._seeds, key)).encode(), digest_size=8).digest()
        rng = random.Random(int.from_bytes(digest, "little"))
        size, pick = self._buffer_size, rng.randrange
        buffer = []
        source = self._inputs[0]._iterate()
        for element in source:
            buffer.append(element)
            if len(buffer) == size:
                break
        for element in source:  # the buffer is full: emit one, refill its slot
            i = pick(size)
            out = buffer[i]
            buffer[i] = element
            yield out
        while buffer:  # the input has ended: drain in random order
            i = pick(len(buffer))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()


_ShuffleDataset = ShuffleDataset
