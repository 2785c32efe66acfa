"""The word-id preprocessing `imdb` and `reuters` share, in tf_keras's order.

Order matters for the result, so each loader calls these steps as tf_keras does:
shuffle (by the caller) -> `index_words` (prepend `start_char`, add `index_from`) ->
`drop_long` (keep sequences shorter than `maxlen`) -> `clip_vocabulary` (ids outside
`[skip_top, num_words)` become `oov_char` or are dropped). Note the ids compared against
`skip_top` and `num_words` are the shifted ones, so `start_char` itself is subject to
`skip_top`, and `maxlen` counts `start_char`.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["check_kwargs", "index_words", "drop_long", "clip_vocabulary", "as_object_array"]


def check_kwargs(num_words: Optional[int], kwargs: dict, sep: str) -> Optional[int]:
    """tf_keras's legacy `nb_words` spelling of `num_words`; any other keyword: TypeError."""
    if "nb_words" in kwargs:
        print("The `nb_words` argument in `load_data` has been renamed `num_words`.")
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {str(kwargs)}{sep}")
    return num_words


def index_words(xs: Sequence[Any], start_char: Optional[int], index_from: int) -> list:
    """Each sequence as a list: ids shifted by `index_from`, after `start_char` if given."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return list(xs)


def drop_long(maxlen: int, xs: Sequence[Any], labels: Sequence[Any]) -> tuple:
    """The sequences shorter than `maxlen` (strictly) with their labels, as two lists."""
    kept = [(x, y) for x, y in zip(xs, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def clip_vocabulary(xs: Sequence[Any], num_words: Optional[int], skip_top: int,
                    oov_char: Optional[int]) -> list:
    """Ids outside `[skip_top, num_words)` replaced by `oov_char`, or removed when it is None.

    `num_words` None or 0 means the largest id present (so that id itself is outside the
    range and is replaced: tf_keras's behaviour, kept).
    """
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def as_object_array(xs: list) -> np.ndarray:
    """`np.array(xs, dtype=object)`: a 1-D array of lists when lengths differ, as tf_keras.

    (Equal lengths give a 2-D object array there too; NumPy decides, as in tf_keras.)
    """
    return np.array(xs, dtype="object")
