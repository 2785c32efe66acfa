"""One tf.data iterator shared by threads: every element goes to exactly one caller (TF's
iterators are thread-safe), through `next`, `get_next`, `get_next_as_optional` and
`as_numpy_iterator`; the end is seen by every thread."""

import threading
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf


def _slow_generator(n):
    def gen():
        for i in range(n):
            time.sleep(0)  # hands the GIL to the other threads inside the pipeline's step
            yield i
    return gen


PIPELINES = {
    "range_map": lambda n: tf.data.Dataset.range(n).map(lambda x: x * 2),
    "generator": lambda n: tf.data.Dataset.from_generator(
        _slow_generator(n), output_signature=tf.TensorSpec([], tf.int64)).map(lambda x: x * 2),
    "generator_batch_unbatch": lambda n: tf.data.Dataset.from_generator(
        _slow_generator(n), output_signature=tf.TensorSpec([], tf.int64)).batch(3).unbatch()
        .map(lambda x: x * 2),
    "shuffle": lambda n: tf.data.Dataset.from_generator(
        _slow_generator(n), output_signature=tf.TensorSpec([], tf.int64)).shuffle(7, seed=1)
        .map(lambda x: x * 2),
}


def _value(element):
    return int(np.asarray(element))


def _drain(iterator, how, out, errors, start):
    start.wait()
    try:
        while True:
            if how == "next":
                try:
                    element = next(iterator)
                except StopIteration:
                    return
            elif how == "get_next":
                try:
                    element = iterator.get_next()
                except tf.errors.OutOfRangeError:
                    return
            else:
                optional = iterator.get_next_as_optional()
                if not optional.has_value():
                    return
                element = optional.get_value()
            out.append(_value(element))
    except BaseException as e:  # noqa: BLE001 - reported by the test
        errors.append(repr(e))


def _shared(iterator, how, threads):
    out, errors = [], []
    start = threading.Barrier(threads)
    workers = [threading.Thread(target=_drain, args=(iterator, how, out, errors, start))
               for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return out, errors


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(PIPELINES)), st.sampled_from(["next", "get_next", "optional"]),
       st.integers(2, 6), st.integers(0, 300))
def test_every_element_is_delivered_exactly_once(pipeline, how, threads, n):
    out, errors = _shared(iter(PIPELINES[pipeline](n)), how, threads)
    assert errors == []
    assert Counter(out) == Counter(2 * i for i in range(n))


def test_the_issue_case_four_threads_one_iterator():
    iterator = iter(PIPELINES["generator"](2000))
    out, errors = _shared(iterator, "next", 4)
    assert errors == []
    assert sorted(out) == list(range(0, 4000, 2))
    with pytest.raises(StopIteration):
        next(iterator)  # and it stays exhausted
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()


def test_numpy_iterator_shared_by_threads():
    iterator = PIPELINES["generator"](500).as_numpy_iterator()
    out, errors = _shared(iterator, "next", 4)
    assert errors == []
    assert sorted(out) == list(range(0, 1000, 2))


def test_a_single_thread_sees_the_pipeline_order():
    # the lock changes nothing for one caller: the same order as before, shuffle included
    first = [_value(x) for x in PIPELINES["shuffle"](50)]
    assert first == [_value(x) for x in PIPELINES["shuffle"](50)]  # (same seed, first epoch)
    assert sorted(first) == list(range(0, 100, 2)) and first != sorted(first)
    assert [_value(x) for x in PIPELINES["range_map"](5)] == [0, 2, 4, 6, 8]


def test_an_error_in_the_pipeline_reaches_one_caller_and_the_rest_end():
    def gen():
        for i in range(100):
            time.sleep(0)
            if i == 40:
                raise RuntimeError("boom")
            yield i
    iterator = iter(tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)))
    out, errors = _shared(iterator, "next", 4)
    assert len(errors) == 1 and "boom" in errors[0]
    assert sorted(out) == list(range(40))
