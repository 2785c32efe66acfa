"""`tf.keras.utils.pad_sequences` (also `tf.keras.preprocessing.sequence.pad_sequences`):
a list of variable-length sequences as one NumPy array, padded and truncated as tf_keras does.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["pad_sequences"]


def pad_sequences(sequences: Any, maxlen: Optional[int] = None, dtype: Any = "int32",
                  padding: str = "pre", truncating: str = "pre", value: Any = 0.0) -> np.ndarray:
    """`(len(sequences), maxlen) + sample_shape` array: each sequence's last (`truncating=
    "pre"`) or first (`"post"`) `maxlen` entries, placed at the end (`padding="pre"`) or the
    start (`"post"`) of its row, the rest `value`; `maxlen` defaults to the longest length.
    The sample shape is the first non-empty sequence's entry shape."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape = [], None
    for item in sequences:
        try:
            lengths.append(len(item))
        except TypeError as e:
            raise ValueError("`sequences` must be a list of iterables. "
                             f"Found non-iterable: {item}") from e
        if sample_shape is None and len(item):
            sample_shape = np.asarray(item).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = int(np.max(lengths)) if lengths else 0
    string_dtype = np.issubdtype(np.dtype(dtype), np.str_) if dtype is not object else False
    if isinstance(value, str) and dtype is not object and not string_dtype:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    out = np.full((len(lengths), maxlen) + tuple(sample_shape), value, dtype=dtype)
    for row, item in enumerate(sequences):
        if not len(item) or maxlen == 0:
            continue
        kept = np.asarray(item[-maxlen:] if truncating == "pre" else item[:maxlen], dtype=dtype)
        if kept.shape[1:] != tuple(sample_shape):
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {row} "
                             f"is different from expected shape {tuple(sample_shape)}")
        if padding == "post":
            out[row, :len(kept)] = kept
        else:
            out[row, maxlen - len(kept):] = kept
    return out
