"""`tfcompat.keras.engine.data_adapter`: packing, validation splits, class weights, steps.

Laws stated as properties; tf_keras's own numbers and texts are in
`test_data_adapter_golden.py` (recorded from TF). Input kinds and their epochs are in
`test_data_adapter_inputs.py`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.keras.engine import data_adapter as da
from tests.keras.engine.generate_data_adapter_golden import tf_warnings, walk


# -- pack / unpack ------------------------------------------------------------------------

leaf = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=3),
                 st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))


@given(x=leaf, y=st.one_of(st.none(), leaf), sw=st.one_of(st.none(), leaf))
def test_unpack_inverts_pack(x, y, sw):
    got = da.unpack_x_y_sample_weight(da.pack_x_y_sample_weight(x, y, sw))
    assert got == (x, y, sw if y is not None else None)


@given(x=st.tuples(leaf, leaf), y=st.one_of(st.none(), leaf))
def test_a_tuple_x_survives_packing(x, y):
    # (x is wrapped as (x,) without y, so it is not read back as (x, y))
    assert da.unpack_x_y_sample_weight(da.pack_x_y_sample_weight(x, y))[:2] == (x, y)


def test_unpack_reads_lists_as_tuples_and_leaves_as_x():
    assert da.unpack_x_y_sample_weight([1, 2]) == (1, 2, None)
    assert da.unpack_x_y_sample_weight([1]) == (1, None, None)
    assert da.unpack_x_y_sample_weight({"a": 1}) == ({"a": 1}, None, None)
    assert da.pack_x_y_sample_weight([1, 2]) == [1, 2]  # a list x stays a list (tf_keras)
    assert da.pack_x_y_sample_weight(1, None, 3) == 1  # a weight without y is dropped
    with pytest.raises(ValueError, match="found: \\(\\)"):
        da.unpack_x_y_sample_weight(())


# -- train_validation_split ----------------------------------------------------------------

@given(n=st.integers(1, 60), frac=st.floats(0.01, 0.99), as_torch=st.booleans())
def test_validation_split_takes_the_last_fraction_in_order(n, frac, as_torch):
    x = np.arange(n * 2, dtype="float32").reshape(n, 2)
    y = np.arange(n)
    if as_torch:
        x, y = torch.from_numpy(x), torch.from_numpy(y)
    split_at = math.floor(n * (1 - frac))
    if split_at in (0, n):
        with pytest.raises(ValueError, match="not sufficient to split"):
            da.train_validation_split((x, y, None), frac)
        return
    (tx, ty, tsw), (vx, vy, vsw) = da.train_validation_split((x, y, None), frac)
    assert tsw is None and vsw is None
    assert len(tx) == len(ty) == split_at and len(vx) == len(vy) == n - split_at
    np.testing.assert_array_equal(np.concatenate([np.asarray(tx), np.asarray(vx)]),
                                  np.asarray(x))
    np.testing.assert_array_equal(np.asarray(vy), np.arange(split_at, n))
    assert type(tx) is type(x)


def test_validation_split_keeps_the_nest_and_slices_without_copying():
    x = torch.arange(10.0)
    arrays = ({"a": x, "b": [np.arange(10), None]}, x, None)
    train, val = da.train_validation_split(arrays, 0.3)
    assert set(train[0]) == {"a", "b"} and isinstance(train[0]["b"], list)
    assert train[0]["b"][1] is None and train[2] is None
    assert val[0]["a"].tolist() == [7.0, 8.0, 9.0]
    assert val[0]["a"].data_ptr() == x[7:].data_ptr()  # a view
    assert da.train_validation_split((None, None), 0.5) == ((None, None), (None, None))


def test_validation_split_rejects_what_it_cannot_slice():
    with pytest.raises(ValueError, match="only supported for Tensors or NumPy arrays"):
        da.train_validation_split((tf.Variable([1.0, 2.0]),), 0.5)
    with pytest.raises(ValueError, match="ResourceVariable|Variable"):
        da.train_validation_split((tf.Variable([1.0, 2.0]),), 0.5)
    with pytest.raises(ValueError, match="Dataset"):
        da.train_validation_split((tf.data.Dataset.range(3),), 0.5)


# -- class weights --------------------------------------------------------------------------

@given(labels=st.lists(st.integers(0, 3), min_size=1, max_size=20),
       weights=st.lists(st.floats(0.0, 10.0, width=32), min_size=4, max_size=4),
       bs=st.integers(1, 8), one_hot=st.booleans())
def test_class_weight_gives_each_sample_its_class_weight(labels, weights, bs, one_hot):
    y = np.asarray(labels)
    if one_hot:
        y = np.eye(4, dtype="float32")[y]
    handler = da.DataHandler(np.zeros((len(labels), 1)), y, batch_size=bs,
                             class_weight=dict(enumerate(weights)))
    got = torch.cat([b[2] for _, _, b in walk(handler)])
    assert got.dtype == torch.float32
    np.testing.assert_array_equal(got.numpy(), np.float32(weights)[labels])


@given(labels=st.lists(st.integers(0, 2), min_size=1, max_size=12),
       sw=st.data())
def test_class_weight_multiplies_the_sample_weight(labels, sw):
    weights = sw.draw(st.lists(st.floats(0.0, 4.0, width=32), min_size=len(labels),
                               max_size=len(labels)))
    cw = {0: 0.5, 1: 2.0, 2: 4.0}
    handler = da.DataHandler(np.zeros((len(labels), 1)), np.asarray(labels),
                             sample_weight=np.asarray(weights), class_weight=cw, batch_size=5)
    got = torch.cat([b[2] for _, _, b in walk(handler)]).numpy()
    want = np.float32(weights) * np.float32([cw[c] for c in labels])
    np.testing.assert_array_equal(got, want)


def test_class_weight_broadcasts_a_per_sample_weight_over_sequence_labels():
    y = np.array([[0, 1, 1], [1, 0, 0]])[..., None]  # (2, 3, 1): class ids per timestep
    sw = np.array([1.0, 2.0])
    ((_, _, batch),) = walk(da.DataHandler(np.zeros((2, 1)), y, sample_weight=sw,
                                           class_weight={0: 1.0, 1: 10.0}))
    assert batch[2].tolist() == [[1.0, 10.0, 10.0], [20.0, 2.0, 2.0]]


def test_class_weight_errors():
    x, y = np.zeros((4, 1)), np.array([0, 1, 2, 5])
    handler = da.DataHandler(x, y, class_weight={0: 1.0, 1: 1.0, 2: 1.0})
    with pytest.raises(errors.InvalidArgumentError, match="indices\\[3\\] = 5 is not in"):
        walk(handler)
    handler = da.DataHandler(x, class_weight={0: 1.0})
    with pytest.raises(ValueError, match="`class_weight` needs targets"):
        walk(handler)
    with pytest.raises(ValueError, match="keys from 0 to one less"):
        da.DataHandler(x, y, class_weight={1: 1.0})


def test_class_weight_applies_to_datasets_and_generators():
    x, y = np.zeros((4, 1), "float32"), np.array([0, 1, 1, 0])
    cw = {0: 3.0, 1: 5.0}
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(3)
    got = [b[2].tolist() for _, _, b in walk(da.DataHandler(ds, class_weight=cw))]
    assert got == [[3.0, 5.0, 5.0], [3.0]]
    gen = ((x[i:i + 2], y[i:i + 2]) for i in (0, 2))
    got = [b[2].tolist() for _, _, b in walk(da.DataHandler(gen, class_weight=cw))]
    assert got == [[3.0, 5.0], [5.0, 3.0]]


# -- steps and steps_per_execution ------------------------------------------------------------

@given(n=st.integers(1, 40), bs=st.integers(1, 8), spe=st.integers(1, 9),
       epochs=st.integers(1, 3), as_variable=st.booleans())
def test_steps_cover_the_epoch_in_executions(n, bs, spe, epochs, as_variable):
    handle = tf.Variable(spe) if as_variable else spe
    handler = da.DataHandler(np.arange(n), batch_size=bs, epochs=epochs,
                             steps_per_execution=handle)
    steps_per_epoch = math.ceil(n / bs)
    for epoch, iterator in handler.enumerate_epochs():
        starts, rows = [], []
        for step in handler.steps():
            starts.append(step)
            width = handler.step_increment + 1
            if as_variable:  # the variable says how many steps this execution runs
                assert int(handle.numpy()) == width
            rows += [next(iterator) for _ in range(width)]
        assert starts == list(range(0, steps_per_epoch, min(spe, steps_per_epoch)))
        assert torch.cat(rows).tolist() == list(range(n))
    if as_variable:
        assert int(handle.numpy()) == spe  # restored after the truncation / last execution


def test_steps_per_epoch_minus_one_runs_until_stopped():
    ds = tf.data.Dataset.range(3).repeat()
    with tf_warnings() as messages:
        handler = da.DataHandler(ds, steps_per_epoch=-1)
    assert handler.inferred_steps is None and handler.should_sync
    assert any("run indefinitely" in m for m in messages)
    _, iterator = next(handler.enumerate_epochs())
    steps = handler.steps()
    assert [next(steps) for _ in range(7)] == list(range(7))
    assert [int(next(iterator)) for _ in range(4)] == [0, 1, 2, 0]


def test_initial_step_starts_only_the_first_epoch():
    handler = da.DataHandler(np.arange(6), batch_size=1, epochs=2)
    handler._initial_step = 4  # what fit sets when it resumes from a checkpoint
    seen = []
    for epoch, _ in handler.enumerate_epochs():
        seen.append(list(handler.steps()))
    assert seen == [[4, 5], [0, 1, 2, 3, 4, 5]]


def test_catch_stop_iteration_catches_out_of_range_and_passes_other_errors():
    handler = da.DataHandler(tf.data.Dataset.range(5).filter(lambda v: True))
    for _, iterator in handler.enumerate_epochs():
        with handler.catch_stop_iteration():
            for _ in handler.steps():
                iterator.get_next()
    assert handler.inferred_steps == 5
    with pytest.raises(KeyError):
        with handler.catch_stop_iteration():
            raise KeyError("not ours")
    assert handler.inferred_steps == 5 and not handler._insufficient_data


def test_iterator_api():
    handler = da.DataHandler(np.arange(3), batch_size=2)
    _, iterator = next(handler.enumerate_epochs())
    assert iter(iterator) is iterator
    assert iterator.get_next_as_optional().get_value().tolist() == [0, 1]
    assert iterator.get_next().tolist() == [2]
    assert not iterator.get_next_as_optional().has_value()
    with pytest.raises(errors.OutOfRangeError):
        iterator.get_next()
    with pytest.raises(StopIteration):
        next(iterator)


def test_get_data_handler_and_samples():
    handler = da.get_data_handler(x=np.arange(10), y=np.arange(10), batch_size=3, model=None)
    assert isinstance(handler, da.DataHandler)
    assert handler._samples == 10 and handler.inferred_steps == 4
    assert handler._adapter.partial_batch_size() == 1
    assert da.DataHandler(np.arange(9), batch_size=3)._adapter.partial_batch_size() is None


def test_positive_argument_checks_take_ints_and_variables():
    with pytest.raises(ValueError, match="steps_per_execution to be positive"):
        da.DataHandler(np.arange(3), steps_per_execution=0)
    with pytest.raises(ValueError, match="steps_per_epoch must be positive, None or -1"):
        da.DataHandler(np.arange(3), steps_per_epoch=-2)


# -- single_batch_iterator ---------------------------------------------------------------------

def test_single_batch_iterator_converts_checks_and_weights():
    strategy = tf.distribute.get_strategy()
    x = [np.ones((3, 2)), np.zeros((3, 1), "float16")]
    (xb,) = next(da.single_batch_iterator(strategy, x))
    assert isinstance(xb, tuple) and [t.dtype for t in xb] == [torch.float32] * 2
    _, _, sw = next(da.single_batch_iterator(strategy, np.ones((3, 1)), np.array([0, 1, 1]),
                                             class_weight={0: 1.0, 1: 4.0}))
    assert sw.tolist() == [1.0, 4.0, 4.0]
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        da.single_batch_iterator(strategy, np.ones((3, 1)), np.ones(2))
    iterator = da.single_batch_iterator(strategy, np.ones((3, 1)))
    next(iterator)
    with pytest.raises(StopIteration):
        next(iterator)
