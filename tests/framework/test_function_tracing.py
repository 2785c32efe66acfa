"""`tf.function`'s observable tracing (the golden table `cases_control_function.py` holds TF's
results): counts as laws, input_signature conversion."""

import pytest
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


def test_get_concrete_function_binds_its_python_arguments():
    """TF's tf.function guide: `pow.get_concrete_function(a=TensorSpec(...), b=2)` holds `b`
    (its trace's constant); the concrete function takes the tensors, by position or name, and
    passing `b` again is TF's TypeError."""
    @tf.function
    def pow(a, b):
        return a ** b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert float(square(tf.constant(10.0))) == 100.0
    assert float(square(a=tf.constant(3.0))) == 9.0
    with pytest.raises(TypeError):
        square(tf.constant(10.0), b=3)
    with pytest.raises(TypeError):
        square()
    with pytest.raises(tf.errors.InvalidArgumentError):
        square(tf.constant(10, dtype=tf.int32))
    assert [s.dtype for s in square.inputs] == [tf.float32]

    @tf.function
    def scaled(scale, x):
        return x * scale

    concrete = scaled.get_concrete_function(scale=2.0, x=tf.TensorSpec([None], tf.float32))
    assert concrete(tf.constant([1.0, 2.0])).tolist() == [2.0, 4.0]
    positional = pow.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))
    assert float(positional(tf.constant(2.0), tf.constant(3.0))) == 8.0

    class Model(tf.Module):  # the guide: a module captured positionally, the tensor passed
        def __init__(self):
            super().__init__()
            self.weight, self.bias = tf.Variable(5.0), tf.Variable(0.0)

    def evaluate(model, x):
        return model.weight * x + model.bias

    model, x = Model(), tf.constant([10.0])
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(model, x)
    assert evaluate_no_bias(x).tolist() == [50.0]
