"""tfcompat's `DataHandler` against tf_keras 2.21's, recorded in `fixtures/data_adapter_golden.json`.

`generate_data_adapter_golden.py` (run under TensorFlow) walked tf_keras's handler over each
case as `Model.fit` does and recorded the batches' rows, step indices, step increments,
`steps_per_execution` values, inferred steps, the "ran out of data" warning, class-weight
sample weights, validation-split sizes, error texts and a shuffled `Sequence`'s batch order.
The same module builds the inputs here (with tfcompat) and walks tfcompat's handler the
same way; the two must agree exactly.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import tfcompat as tf
from tests.keras.engine import generate_data_adapter_golden as golden
from tfcompat.keras.engine import data_adapter as da
from tfcompat.keras.utils import Sequence

GOLDEN = json.loads(golden.FIXTURE.read_text())


def _kwargs(case: dict) -> dict:
    kw = dict(case["kwargs"])
    if "steps_per_execution" in kw:
        kw["steps_per_execution"] = tf.Variable(kw["steps_per_execution"])
    return kw


@pytest.mark.parametrize("name", sorted(GOLDEN["handlers"]))
def test_handler_walk_matches_tf_keras(name):
    record = GOLDEN["handlers"][name]
    case, expected = record["case"], record["result"]
    with golden.tf_warnings() as messages:
        handler = da.DataHandler(**golden.build_x(case, tf, Sequence), **_kwargs(case))
        got = golden.run_handler(handler)
    got["ran_out_warning"] = any("ran out of data" in m for m in messages)
    got["samples"] = handler._samples
    assert got == expected


@pytest.mark.parametrize("name", sorted(GOLDEN["class_weights"]))
def test_class_weight_sample_weights_match_tf_keras(name):
    record = GOLDEN["class_weights"][name]
    handler = da.DataHandler(**golden.class_weight_inputs(record["case"]))
    got = golden.class_weight_result(handler)
    assert [dtype for _, dtype in got] == [dtype for _, dtype in record["result"]]
    for (values, _), (want, _) in zip(got, record["result"]):
        np.testing.assert_allclose(values, want, rtol=0, atol=0)
    assert len(got) == len(record["result"])


def test_validation_split_sizes_and_errors_match_tf_keras():
    for n, frac, sizes, message in GOLDEN["splits"]:
        x, y, _ = golden.arrays(n)
        if sizes is None:
            with pytest.raises(ValueError) as info:
                da.train_validation_split((x, y), frac)
            assert str(info.value) == message
        else:
            (tx, ty), (vx, vy) = da.train_validation_split((x, y), frac)
            assert [len(tx), len(vx)] == sizes and [len(ty), len(vy)] == sizes, (n, frac)


# TF's text names its own objects here; the rest of the message must match.
_TF_SPECIFIC = {
    "steps_per_execution_zero": "Expected steps_per_execution to be positive. Received is ",
}


@pytest.mark.parametrize("name", golden.ERROR_CASES)
def test_error_texts_match_tf_keras(name):
    expected = GOLDEN["errors"][name]
    call = golden.error_inputs(name, tf, da, Sequence)
    if expected is None:
        call()
        return
    kind, message = expected
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value).__name__ == kind
    if name in _TF_SPECIFIC:
        assert str(info.value).startswith(_TF_SPECIFIC[name])
    else:
        assert str(info.value) == message


@pytest.mark.parametrize("seed", sorted(GOLDEN["sequence_orders"]))
def test_shuffled_sequence_order_is_tf_keras_order(seed):
    # tf_keras shuffles a Sequence's batches with Python's `random.shuffle`, so under the
    # same `random.seed` the orders are TF's exactly.
    state = random.getstate()
    try:
        orders = golden.sequence_shuffle_orders(da, Sequence, int(seed))
    finally:
        random.setstate(state)
    assert orders == GOLDEN["sequence_orders"][seed]


def test_single_batch_iterator_matches_tf_keras():
    expected = GOLDEN["single_batch"]
    x, y, sw = golden.arrays(6)
    batch = next(da.single_batch_iterator(tf.distribute.get_strategy(), x, y, sw))
    assert [len(batch)] == expected["structure"]
    assert [golden._rows(t) for t in batch] == expected["rows"]
    assert [tf.as_dtype(t.dtype).name for t in batch] == expected["dtypes"]
    batch = next(da.single_batch_iterator(tf.distribute.get_strategy(), x))
    assert [type(batch).__name__, len(batch)] == expected["x_only"]


@pytest.mark.parametrize("dtype", sorted(GOLDEN["dtypes"]))
def test_array_dtypes_match_tf_keras(dtype):
    arr = np.ones((4, 2), dtype=dtype)
    batch = golden._first_batch(da.DataHandler(x=arr, y=arr, batch_size=4))
    assert [tf.as_dtype(t.dtype).name for t in batch] == GOLDEN["dtypes"][dtype]


def test_fixture_covers_every_case():
    assert sorted(GOLDEN["handlers"]) == sorted(c["name"] for c in golden.HANDLER_CASES)
    assert sorted(GOLDEN["errors"]) == sorted(golden.ERROR_CASES)
    assert len(GOLDEN["splits"]) == len(golden.SPLIT_CASES)
