"""`tf.keras.datasets.imdb`: 25000 + 25000 movie reviews as word-id lists, labelled 0/1."""

from __future__ import annotations

import json
from typing import Any, Optional

import numpy as np

from ..utils.data_utils import get_file
from . import _cache
from . import _word_sequences as W
from ._restricted_pickle import load_npz

__all__ = ["load_data", "get_word_index"]

ORIGIN = _cache.KERAS_DATASETS + "imdb.npz"
FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_ORIGIN = _cache.KERAS_DATASETS + "imdb_word_index.json"
WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"


def load_data(path: str = "imdb.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, seed: int = 113, start_char: Optional[int] = 1,
              oov_char: Optional[int] = 2, index_from: int = 3,
              cache_dir: Optional[str] = None, **kwargs: Any) -> tuple:
    """`tf.keras.datasets.imdb.load_data`: `(x_train, y_train), (x_test, y_test)`.

    tf_keras's steps, in its order: the train and test sets are each shuffled with one
    `np.random.RandomState(seed)` (train first); every review gets `start_char` prepended
    and `index_from` added to its ids; with `maxlen`, reviews of `maxlen` ids or more are
    dropped (`ValueError` if a set ends up empty); then ids outside
    `[skip_top, num_words)` become `oov_char` (or are removed when `oov_char` is None).
    `x_*` are object arrays of lists of ints, `y_*` the label arrays (int64).
    """
    num_words = W.check_kwargs(num_words, kwargs, ".")
    path = get_file(path, origin=ORIGIN, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    f = load_npz(path)
    x_train, labels_train = f["x_train"], f["y_train"]
    x_test, labels_test = f["x_test"], f["y_test"]

    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = x_train[indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = x_test[indices], labels_test[indices]

    x_train = W.index_words(x_train, start_char, index_from)
    x_test = W.index_words(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = W.drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = W.drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, "
                             "no sequence was kept. Increase maxlen.")
    xs = W.clip_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    idx = len(x_train)
    return ((W.as_object_array(xs[:idx]), labels[:idx]),
            (W.as_object_array(xs[idx:]), labels[idx:]))


def get_word_index(path: str = "imdb_word_index.json") -> dict:
    """`tf.keras.datasets.imdb.get_word_index`: word -> rank (1 = most frequent).

    A word's id in `load_data`'s output is its rank plus `index_from` (3 by default).
    """
    path = get_file(path, origin=WORD_INDEX_ORIGIN, file_hash=WORD_INDEX_HASH)
    with open(path) as f:
        return json.load(f)
