"""`tf.keras.utils.pad_sequences` / `tf.keras.preprocessing.sequence.pad_sequences` against
tf_keras 2.21's results (recorded), and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf

SEQS = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], []]


def test_values_are_tf_keras():
    pad = tf.keras.utils.pad_sequences
    assert pad(SEQS).tolist() == [[0, 0, 1, 2, 3], [0, 0, 0, 4, 5], [6, 7, 8, 9, 10],
                                  [0, 0, 0, 0, 0]]
    assert pad(SEQS, maxlen=4, padding="post", truncating="post").tolist() == [
        [1, 2, 3, 0], [4, 5, 0, 0], [6, 7, 8, 9], [0, 0, 0, 0]]
    assert pad(SEQS, maxlen=2, value=-1).tolist() == [[2, 3], [4, 5], [9, 10], [-1, -1]]
    out = pad([[[1, 2], [3, 4]], [[5, 6]]], dtype="float32")
    assert out.dtype == np.float32
    assert out.tolist() == [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [5.0, 6.0]]]
    assert tf.keras.preprocessing.sequence.pad_sequences is pad
    assert pad(SEQS).dtype == np.int32


@pytest.mark.parametrize("kwargs,text", [
    (dict(padding="mid"), 'Padding type "mid" not understood'),
    (dict(truncating="x"), 'Truncating type "x" not understood'),
    (dict(value="a"), "is not compatible with `value`'s type"),
])
def test_errors_are_tf_keras(kwargs, text):
    with pytest.raises(ValueError, match=text):
        tf.keras.utils.pad_sequences(SEQS, **kwargs)


@given(seqs=st.lists(st.lists(st.integers(1, 9), max_size=6), min_size=1, max_size=5),
       maxlen=st.one_of(st.none(), st.integers(0, 7)),
       padding=st.sampled_from(["pre", "post"]), truncating=st.sampled_from(["pre", "post"]))
def test_each_row_holds_its_kept_entries_and_the_rest_is_padding(seqs, maxlen, padding,
                                                                 truncating):
    out = tf.keras.utils.pad_sequences(seqs, maxlen=maxlen, padding=padding,
                                       truncating=truncating)
    width = max(len(s) for s in seqs) if maxlen is None else maxlen
    assert out.shape == (len(seqs), width)
    for row, s in zip(out.tolist(), seqs):
        kept = (s[-width:] if truncating == "pre" else s[:width]) if width else []
        pads = [0] * (width - len(kept))
        assert row == (pads + kept if padding == "pre" else kept + pads)
