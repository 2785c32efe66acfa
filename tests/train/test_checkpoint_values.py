"""Checkpoint round trips for every variable dtype, in both directions of the value law:
a restore changes the variable, never a read taken before it, and a write into what the
reader returns never changes the variable or the file."""

import numpy as np
import pytest
import torch

import tfcompat as tf

DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int32, tf.int64,
          tf.uint8, tf.bool, tf.complex64, tf.complex128]


def _value(dtype, seed):
    rng = np.random.RandomState(seed)
    raw = rng.randn(3, 2) * 5
    if dtype.is_complex:
        raw = raw + 1j * rng.randn(3, 2)
    if dtype == tf.bool:
        raw = raw > 0
    return tf.cast(tf.constant(raw), dtype) if dtype != tf.bool else tf.constant(raw)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_restore_changes_the_variable_not_earlier_reads(tmp_path, dtype):
    saved = tf.Variable(_value(dtype, 0))
    path = tf.train.Checkpoint(v=saved).write(str(tmp_path / "ckpt"))

    target = tf.Variable(_value(dtype, 1))
    before = target.read_value()
    before_copy = before.clone()
    tf.train.Checkpoint(v=target).read(path).assert_consumed()

    assert torch.equal(target.read_value(), saved.read_value())  # the variable took the file's value
    assert target.dtype == dtype
    assert torch.equal(before, before_copy)  # a read from before the restore is unchanged


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.int64],
                         ids=lambda d: d.name)
def test_reader_values_are_copies(tmp_path, dtype):
    v = tf.Variable(_value(dtype, 2))
    path = tf.train.Checkpoint(v=v).write(str(tmp_path / "ckpt"))
    reader = tf.train.load_checkpoint(path)
    got = reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    got[...] = 0  # writing into the returned array changes neither the variable nor the file
    assert torch.equal(torch.as_tensor(np.asarray(
        reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")).astype(np.float64)),
        tf.cast(v, tf.float64).cpu())
    assert not torch.equal(tf.cast(v, tf.float64), torch.zeros(3, 2, dtype=torch.float64))


def test_a_mismatched_restore_changes_nothing_of_either_variable(tmp_path):
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([[1.0]])
    path = tf.train.Checkpoint(a=a, b=b).write(str(tmp_path / "ckpt"))
    a2, b2 = tf.Variable([5.0, 6.0]), tf.Variable([7.0, 8.0])  # b2 has another shape
    with pytest.raises(ValueError):
        tf.train.Checkpoint(a=a2, b=b2).read(path)
    assert a2.numpy().tolist() == [5.0, 6.0] and b2.numpy().tolist() == [7.0, 8.0]
