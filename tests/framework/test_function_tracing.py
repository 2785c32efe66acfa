"""`tf.function`'s observable tracing (the golden table `cases_control_function.py` holds TF's
results): counts as laws, input_signature conversion."""

import torch
from hypothesis import given, strategies as st

import tfcompat as tf

shapes = st.lists(st.lists(st.integers(0, 3), max_size=2).map(tuple), min_size=1, max_size=8)


@given(shapes)
def test_tracing_count_is_the_number_of_distinct_signatures(calls):
    f = tf.function(lambda x: x)
    for s in calls:
        f(tf.zeros(s))
    assert f.experimental_get_tracing_count() == len(set(calls))


@given(shapes)
def test_reduce_retracing_traces_at_most_twice_per_rank(calls):
    f = tf.function(lambda x: x, reduce_retracing=True)
    for s in calls:
        f(tf.zeros(s))
    ranks = {len(s) for s in calls}
    assert len(ranks) <= f.experimental_get_tracing_count() <= 2 * len(ranks)


def test_signature_converts_python_values_before_the_call():
    seen = []
    f = tf.function(lambda x: seen.append(x) or x,
                    input_signature=[tf.TensorSpec([None], tf.float64)])
    f([1, 2])
    assert isinstance(seen[0], torch.Tensor) and seen[0].dtype == torch.float64
    assert f.experimental_get_tracing_count() == 1
