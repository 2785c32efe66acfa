"""`tf.keras.datasets.reuters`: 11228 Reuters newswires as word-id lists in 46 topics."""

from __future__ import annotations

import json
from typing import Any, Optional

import numpy as np

from ..utils.data_utils import get_file
from . import _cache
from . import _word_sequences as W
from ._restricted_pickle import load_npz

__all__ = ["load_data", "get_word_index", "get_label_names"]

ORIGIN = _cache.KERAS_DATASETS + "reuters.npz"
FILE_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
WORD_INDEX_ORIGIN = _cache.KERAS_DATASETS + "reuters_word_index.json"
WORD_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"

# The 46 topics, in label order (label k is _LABEL_NAMES[k]); the list tf_keras ships.
_LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
    "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
    "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
    "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
    "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
    "dlr", "gas", "silver", "wpi", "hog", "lead",
)


def load_data(path: str = "reuters.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, test_split: float = 0.2, seed: int = 113,
              start_char: Optional[int] = 1, oov_char: Optional[int] = 2,
              index_from: int = 3, cache_dir: Optional[str] = None, **kwargs: Any) -> tuple:
    """`tf.keras.datasets.reuters.load_data`: `(x_train, y_train), (x_test, y_test)`.

    tf_keras's steps, in its order: all wires are shuffled with
    `np.random.RandomState(seed)`; each gets `start_char` prepended and `index_from` added;
    with `maxlen`, wires of `maxlen` ids or more are dropped; ids outside
    `[skip_top, num_words)` become `oov_char` (removed when it is None); then the first
    `int(n * (1 - test_split))` wires are the training set. `x_*` are object arrays of
    lists of ints, `y_*` int64 label arrays.
    """
    num_words = W.check_kwargs(num_words, kwargs, "")
    path = get_file(path, origin=ORIGIN, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    f = load_npz(path)
    xs, labels = f["x"], f["y"]

    indices = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(indices)
    xs, labels = xs[indices], labels[indices]

    xs = W.index_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = W.drop_long(maxlen, xs, labels)
    xs = W.clip_vocabulary(xs, num_words, skip_top, oov_char)
    idx = int(len(xs) * (1 - test_split))
    return ((W.as_object_array(xs[:idx]), np.array(labels[:idx])),
            (W.as_object_array(xs[idx:]), np.array(labels[idx:])))


def get_word_index(path: str = "reuters_word_index.json") -> dict:
    """`tf.keras.datasets.reuters.get_word_index`: word -> rank (1 = most frequent)."""
    path = get_file(path, origin=WORD_INDEX_ORIGIN, file_hash=WORD_INDEX_HASH)
    with open(path) as f:
        return json.load(f)


def get_label_names() -> tuple:
    """`tf.keras.datasets.reuters.get_label_names`: the 46 topic names, by label id."""
    return _LABEL_NAMES
