"""`tf.compat.v1.train.summary_iterator` reads the event files `tf.summary` writes: the
`file_version` record first, then each summary with its step, tag and value, in order."""

from __future__ import annotations

import os

import numpy as np

import tfcompat as tf
from tfcompat.summary.protos import to_ndarray


def test_v1_summary_iterator_reads_what_tf_summary_wrote(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
    writer.flush()
    (name,) = os.listdir(tmp_path)
    events = list(tf.compat.v1.train.summary_iterator(str(tmp_path / name)))
    assert events[0].file_version == "brain.Event:2"
    assert [e.step for e in events[1:]] == [0, 1, 2]
    assert all(e.summary.value[0].tag == "loss" for e in events[1:])
    values = [float(to_ndarray(e.summary.value[0].tensor)) for e in events[1:]]
    np.testing.assert_allclose(values, [1.0, 0.5, 1.0 / 3], rtol=1e-7)
