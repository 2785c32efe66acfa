"""A `tf.data` iterator is trackable (TF's checkpoint guide: `tf.train.Checkpoint(step=...,
optimizer=opt, net=net, iterator=iterator)`): a restore continues where the save was, with the
same elements, shuffles included; a state of another pipeline is refused and changes nothing."""

from __future__ import annotations

import os

import pytest

import tfcompat as tf


def _pipeline():
    return tf.data.Dataset.range(23).shuffle(7).batch(3).repeat(3)  # (unseeded shuffle)


def _take(iterator, n):
    return [next(iterator).tolist() for _ in range(n)]


@pytest.mark.parametrize("consumed", [0, 1, 5, 8, 20])
def test_restore_continues_with_the_same_elements(tmp_path, consumed):
    iterator = iter(_pipeline())
    _take(iterator, consumed)
    checkpoint = tf.train.Checkpoint(iterator=iterator)
    path = checkpoint.save(os.path.join(tmp_path, "ckpt"))
    want = _take(iterator, 4)  # (across the repeat's reshuffled passes too)
    checkpoint.restore(path).assert_consumed()
    assert _take(iterator, 4) == want
    again = iter(_pipeline())  # a new dataset of the same pipeline: its own fresh seeds
    tf.train.Checkpoint(iterator=again).restore(path).assert_consumed()
    assert _take(again, 4) == want


def test_the_checkpoint_guides_loop_with_a_manager(tmp_path):
    """TF's guide: a model, an optimizer and the iterator in one checkpoint, saved by a
    CheckpointManager every few steps, restored into new objects that continue alike."""
    def make():
        net = tf.keras.layers.Dense(1)
        opt = tf.keras.optimizers.Adam(0.1)
        data = tf.data.Dataset.from_tensor_slices(
            (tf.reshape(tf.range(40, dtype=tf.float32), (20, 2)), tf.range(20, dtype=tf.float32)))
        iterator = iter(data.repeat().batch(2))
        ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
        return net, opt, iterator, ckpt

    def train(net, opt, iterator, ckpt, steps):
        losses = []
        for _ in range(steps):
            x, y = next(iterator)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.abs(net(x)[:, 0] - y))
            variables = net.trainable_variables
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
            ckpt.step.assign_add(1)
            losses.append(float(loss.numpy()))
        return losses

    first = make()
    manager = tf.train.CheckpointManager(first[3], tmp_path, max_to_keep=3)
    train(*first, 5)
    manager.save()
    want = train(*first, 5)
    second = make()
    status = second[3].restore(tf.train.latest_checkpoint(tmp_path))  # (net: built later)
    assert int(second[3].step) == 6
    assert train(*second, 5) == want
    status.assert_consumed()


def test_a_module_attribute_iterator_is_tracked(tmp_path):
    module = tf.Module()
    module.it = iter(tf.data.Dataset.range(10))
    next(module.it), next(module.it)
    path = tf.train.Checkpoint(m=module).save(os.path.join(tmp_path, "ckpt"))
    names = [name for name, _ in tf.train.list_variables(path)]
    assert "m/it/.ATTRIBUTES/TFCOMPAT_ITERATOR_POSITION" in names
    other = tf.Module()
    other.it = iter(tf.data.Dataset.range(10))
    tf.train.Checkpoint(m=other).restore(path).assert_consumed()
    assert int(next(other.it)) == 2


def test_sampling_from_datasets_replays(tmp_path):
    data = tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(100), tf.data.Dataset.range(100, 200)], weights=[0.5, 0.5])
    iterator = iter(data)
    _take(iterator, 7)
    checkpoint = tf.train.Checkpoint(iterator=iterator)
    path = checkpoint.save(os.path.join(tmp_path, "ckpt"))
    want = _take(iterator, 10)
    checkpoint.restore(path)
    assert _take(iterator, 10) == want


def test_a_state_of_another_pipeline_is_refused_and_changes_nothing(tmp_path):
    iterator = iter(_pipeline())
    _take(iterator, 3)
    path = tf.train.Checkpoint(iterator=iterator).save(os.path.join(tmp_path, "ckpt"))

    plain = iter(tf.data.Dataset.range(100))  # no shuffle: another pipeline
    next(plain)
    with pytest.raises(ValueError, match="another pipeline"):
        tf.train.Checkpoint(iterator=plain).restore(path)
    assert int(next(plain)) == 1

    _take(iterator, 5)
    later = tf.train.Checkpoint(iterator=iterator).save(os.path.join(tmp_path, "later"))
    short = iter(tf.data.Dataset.range(5).shuffle(2))  # one shuffle, fewer than 8 elements
    first = int(next(short))
    with pytest.raises(ValueError, match="fewer"):
        tf.train.Checkpoint(iterator=short).restore(later)
    rest = sorted(int(x) for x in short)
    assert sorted(rest + [first]) == [0, 1, 2, 3, 4]  # (the pass went on untouched)


def test_a_failed_iterator_restore_assigns_nothing_else(tmp_path):
    """All or nothing: the iterator's replay is staged before any value of the checkpoint is
    assigned, so a refused iterator state leaves the variables saved with it untouched."""
    step = tf.Variable(5)
    iterator = iter(_pipeline())
    _take(iterator, 9)
    path = tf.train.Checkpoint(count=step, iterator=iterator).save(os.path.join(tmp_path, "ckpt"))
    fresh_step = tf.Variable(0)
    short = iter(tf.data.Dataset.range(4).shuffle(2))
    with pytest.raises(ValueError, match="fewer"):
        tf.train.Checkpoint(count=fresh_step, iterator=short).restore(path)  # (count: first)
    assert int(fresh_step) == 0
    assert len(list(short)) == 4
