"""Elements are values, as TF's tensors are: an in-place write into one changes nothing else.

TF code writes `x /= 255.0`, which is a new tensor in TF and an in-place division of a
torch tensor here; neither the source, nor a later epoch, nor a cache may see it.
"""

import numpy as np
import torch

import tfcompat as tf


def _scribble(element):
    for t in tf.nest.flatten(element):
        t.mul_(0).add_(-7)


def test_slices_rows_batches_and_the_source_stay_unchanged():
    source = torch.arange(12.0).reshape(6, 2)
    kept = source.clone()
    ds = tf.data.Dataset.from_tensor_slices((source, torch.arange(6)))
    for pipeline in (ds, ds.batch(4), ds.batch(4, drop_remainder=True), ds.map(lambda x, y: (x, y))):
        first = [tuple(t.clone() for t in e) for e in pipeline]
        for element in pipeline:
            _scribble(element)
        second = [tuple(t.clone() for t in e) for e in pipeline]
        assert all(torch.equal(a, b) for x, y in zip(first, second) for a, b in zip(x, y))
    assert torch.equal(source, kept)


def test_a_write_into_the_callers_tensor_after_building_does_not_reach_the_dataset():
    source = np.arange(6, dtype=np.float32)
    t = torch.arange(6.0)
    for ds, arg in ((tf.data.Dataset.from_tensor_slices(source), source),
                    (tf.data.Dataset.from_tensor_slices(t), t),
                    (tf.data.Dataset.from_tensors(t), t)):
        before = [e.clone() for e in ds]
        arg *= 100
        after = [e.clone() for e in ds]
        assert all(torch.equal(a, b) for a, b in zip(before, after))


def test_from_tensors_and_cache_replay_values():
    ds = tf.data.Dataset.from_tensors(torch.ones(3))
    for e in ds:
        e.add_(5)
    assert torch.equal(next(iter(ds)), torch.ones(3))
    cached = tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32) * 2).cache()
    for e in cached:  # the recording pass
        e.add_(100)
    for e in cached:  # a replaying pass
        e.add_(100)
    assert [float(e) for e in cached] == [0.0, 2.0, 4.0, 6.0]


def test_guide_style_in_place_normalisation_is_per_epoch():
    images = np.full((4, 2), 255.0, np.float32)
    ds = tf.data.Dataset.from_tensor_slices(images).batch(2)
    for _ in range(3):
        for x in ds:
            x /= 255.0  # TF: a new tensor; torch: in place
            assert torch.equal(x, torch.ones(2, 2))
