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
neither, each dataset draws a fresh seed from the OS when it is made
(nondeterministic, as TF; torch's own generator is left alone, so building
a dataset does not change a program's torch draws). `reshuffle_each_iteration`
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

from ..framework import errors
from ..ops import random_ops
from .dataset_ops import UNKNOWN, Dataset, as_int, peeking

__all__ = ["ShuffleDataset", "set_worker_epoch_key", "epoch_rng", "seeds_for"]

_entropy = random.SystemRandom()

# Set in a DataLoader worker process by torch_bridge: the loader's per-epoch base seed, which
# every worker shares, replacing this process's own epoch counting.
_worker_epoch_key: Optional[Any] = None


def set_worker_epoch_key(key: Optional[Any]) -> None:
    global _worker_epoch_key
    _worker_epoch_key = key


def epoch_rng(owner: Any, seeds: tuple, per_epoch: bool) -> random.Random:
    """The random stream of `owner`'s next iteration: keyed by its seeds and, when
    `per_epoch`, by its epoch count (advanced here, except while an element spec is sampled)
    or, in a DataLoader worker, by the loader's epoch key."""
    if not per_epoch:
        key: Any = 0
    else:
        key = owner._epochs if _worker_epoch_key is None else (_worker_epoch_key, owner._epochs)
        if not peeking():
            owner._epochs += 1
    digest = hashlib.blake2b(repr((seeds, key)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "little"))


def seeds_for(seed: Optional[int]) -> tuple:
    """`tf.random`'s seed pair for an op seed; without any seed, a fresh one from the OS."""
    seeds = random_ops.get_seed(None if seed is None else as_int(seed, "seed"))
    if seeds[0] is None:
        seeds = (_entropy.randrange(2 ** 31 - 1), 0)
    return seeds


class ShuffleDataset(Dataset):
    """`shuffle(buffer_size, seed=None, reshuffle_each_iteration=None)` (see the module doc);
    `buffer_size=tf.data.UNKNOWN_CARDINALITY` buffers the whole input."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, buffer_size: Any, seed: Optional[int],
                 reshuffle_each_iteration: Optional[bool], name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        size = as_int(buffer_size, "buffer_size")
        if size <= 0 and size != UNKNOWN:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
        # UNKNOWN_CARDINALITY: a buffer as large as the dataset (a uniform permutation).
        self._buffer_size = size if size > 0 else None
        self._seeds = seeds_for(seed)
        self._reshuffle = True if reshuffle_each_iteration is None else bool(
            reshuffle_each_iteration)
        self._epochs = 0

    def _iterate(self) -> Iterator[Any]:
        rng = epoch_rng(self, self._seeds, self._reshuffle)
        size, pick = self._buffer_size, rng.randrange
        buffer = []
        source = self._inputs[0]._iterate()
        for element in source:
            buffer.append(element)
            if len(buffer) == size:
                break
        if size is None:
            size = len(buffer)
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
