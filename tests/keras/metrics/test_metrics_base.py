"""`tf.keras.metrics` laws: merge_state, reset, config round trips, failed calls, the Layer
integration, and metrics under `MirroredStrategy` (each replica updates; `result()` is the
metric over the global batch). Numerics against tf_keras: tests/keras/golden (metrics)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.distribute.logical_devices import logical_cpus
from tfcompat.variables.enums import VariableAggregation, VariableSynchronization

K = tf.keras.metrics

# (factory, batch maker) pairs: the batch maker draws (y_true, y_pred) of `n` rows.
_RNG = np.random.default_rng(0)


def _binary(rng, n):
    return (rng.integers(0, 2, size=(n, 3)).astype(np.float32),
            rng.uniform(0, 1, size=(n, 3)).astype(np.float32))


def _categorical(rng, n):
    labels = rng.integers(0, 4, size=(n,))
    return np.eye(4, dtype=np.float32)[labels], rng.uniform(0, 1, (n, 4)).astype(np.float32)


def _sparse(rng, n):
    return (rng.integers(0, 4, size=(n, 1)).astype(np.float32),
            rng.uniform(0, 1, (n, 4)).astype(np.float32))


def _regression(rng, n):
    return (rng.uniform(-1, 1, (n, 3)).astype(np.float32),
            rng.uniform(-1, 1, (n, 3)).astype(np.float32))


def _classes(rng, n):
    return (rng.integers(0, 3, size=(n,)).astype(np.float32),
            rng.integers(0, 3, size=(n,)).astype(np.float32))


METRICS = {
    "Accuracy": (lambda: K.Accuracy(), _classes),
    "BinaryAccuracy": (lambda: K.BinaryAccuracy(), _binary),
    "CategoricalAccuracy": (lambda: K.CategoricalAccuracy(), _categorical),
    "SparseCategoricalAccuracy": (lambda: K.SparseCategoricalAccuracy(), _sparse),
    "TopK": (lambda: K.TopKCategoricalAccuracy(k=2), _categorical),
    "Precision": (lambda: K.Precision(thresholds=[0.3, 0.6]), _binary),
    "Recall": (lambda: K.Recall(), _binary),
    "TruePositives": (lambda: K.TruePositives(), _binary),
    "AUC": (lambda: K.AUC(num_thresholds=50), _binary),
    "AUC_multi": (lambda: K.AUC(num_thresholds=20, multi_label=True, num_labels=3), _binary),
    "SensitivityAtSpecificity": (lambda: K.SensitivityAtSpecificity(0.5, num_thresholds=20),
                                 _binary),
    "MSE": (lambda: K.MeanSquaredError(), _regression),
    "RMSE": (lambda: K.RootMeanSquaredError(), _regression),
    "Cosine": (lambda: K.CosineSimilarity(), _regression),
    "BCE": (lambda: K.BinaryCrossentropy(), _binary),
    "Hinge": (lambda: K.Hinge(), _binary),
    "MeanIoU": (lambda: K.MeanIoU(num_classes=3), _classes),
}


def _batch(maker, seed, n):
    rng = np.random.default_rng(seed)
    y_true, y_pred = maker(rng, n)
    sw = (rng.integers(0, 5, size=(n,)) / 2.0).astype(np.float32)
    return y_true, y_pred, sw


def _update(m, y_true, y_pred, sw):
    m.update_state(torch.tensor(y_true), torch.tensor(y_pred), sample_weight=torch.tensor(sw))


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(METRICS))
@given(seed=st.integers(0, 2**16), n1=st.integers(1, 6), n2=st.integers(1, 6))
def test_merge_state_equals_one_metric_over_both_batches(name, seed, n1, n2):
    make, maker = METRICS[name]
    b1, b2 = _batch(maker, seed, n1), _batch(maker, seed + 1, n2)
    m1, m2, whole = make(), make(), make()
    _update(m1, *b1)
    _update(m2, *b2)
    _update(whole, *b1)
    _update(whole, *b2)
    m1.merge_state([m2])
    for w, v in zip(m1.get_weights(), whole.get_weights()):
        _close(w, v)
    _close(m1.result(), whole.result())


@pytest.mark.parametrize("name", sorted(METRICS))
def test_reset_state_zeroes_and_config_round_trips(name):
    make, maker = METRICS[name]
    m = make()
    _update(m, *_batch(maker, 3, 5))
    assert any(np.any(w != 0) for w in m.get_weights())
    m.reset_state()
    assert all(np.all(w == 0) for w in m.get_weights())
    config = m.get_config()
    clone = type(m).from_config(config)
    assert clone.get_config() == config
    assert [w.shape for w in clone.get_weights()] == [w.shape for w in m.get_weights()]
    restored = K.deserialize(K.serialize(m))
    assert type(restored) is type(m) and restored.get_config() == config
    assert all(not w.trainable for w in m.weights)


def test_state_variables_are_sync_on_read_sums():
    m = K.Mean()
    assert [w.name for w in m.weights] == ["total:0", "count:0"]
    total = m.weights[0]
    assert total.synchronization == VariableSynchronization.ON_READ
    assert total.aggregation == VariableAggregation.SUM
    assert m.dtype == "float32" and K.Mean(dtype="float64").total.dtype == tf.float64


def test_call_updates_then_returns_the_result_and_tracks_the_metric():
    m = K.Mean()
    out = m(torch.tensor([1.0, 3.0]))
    assert float(out) == 2.0 and out._metric_obj is m
    assert float(m([5.0, 7.0], sample_weight=[1.0, 0.0])) == 3.0
    assert str(m) == "Mean(name=mean,dtype=float32)"
    twin = copy.deepcopy(m)
    assert float(twin.result()) == 3.0 and twin is not m

    class Holder(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.acc = K.Accuracy()
            self.dense_like = tf.Variable(1.0)

    h = Holder()
    assert h.metrics == [h.acc]
    assert all(w is not h.acc.total for w in h.weights)  # metric state is not layer weights


def test_failed_update_changes_nothing():
    m = K.Mean()
    m.update_state([1.0, 2.0])
    before = m.get_weights()
    with pytest.raises(ValueError, match="weights can not be broadcast"):
        K.Precision().update_state([[1.0, 0.0]], [[0.7, 0.2]], sample_weight=[[1.0, 2.0, 3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        m.update_state(torch.ones(4, 3), sample_weight=torch.ones(2))
    for a, b in zip(before, m.get_weights()):
        np.testing.assert_array_equal(a, b)
    mt = K.MeanTensor()
    mt.update_state([1.0, 2.0])
    with pytest.raises(ValueError, match="same shape"):
        mt.update_state([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(mt.result().numpy(), [1.0, 2.0])


def test_errors_as_tf_keras():
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        K.Recall(thresholds=[-0.1])
    with pytest.raises(ValueError, match="is not compatible with"):
        K.Mean().merge_state([K.Sum()])
    with pytest.raises(ValueError, match="MeanTensor does not have any value yet"):
        K.MeanTensor().result()
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        K.get(3)
    with pytest.raises(RuntimeError, match="only be a single Tensor"):
        K.Mean().update_state({"a": 1.0})
    with pytest.raises(NotImplementedError):
        K.Metric().result()


def test_custom_metric_subclass_and_reset_states_alias():
    class Count(K.Metric):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.n = self.add_weight("n", initializer="zeros")

        def update_state(self, x):
            self.n.assign_add(tf.cast(tf.size(x), self.dtype))

        def result(self):
            return self.n  # a variable: the wrapper returns its value

    c = Count()
    c.update_state(torch.ones(3))
    r = c.result()
    assert isinstance(r, torch.Tensor) and float(r) == 3.0
    c.reset_states()
    assert float(c.result()) == 0.0
    assert c.get_config() == {"name": "count", "dtype": "float32"}


def test_function_forms():
    y_true, y_pred = [[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]
    np.testing.assert_array_equal(K.categorical_accuracy(y_true, y_pred).numpy(), [0, 1])
    np.testing.assert_array_equal(K.top_k_categorical_accuracy(y_true, y_pred, k=3).numpy(),
                                  [1, 1])
    np.testing.assert_array_equal(K.sparse_categorical_accuracy([2, 1], y_pred).numpy(), [0, 1])
    np.testing.assert_array_equal(
        K.sparse_top_k_categorical_accuracy([2, 1], y_pred, k=1).numpy(), [0, 1])
    np.testing.assert_array_equal(K.binary_accuracy([[1], [1], [0], [0]],
                                                     [[1], [1], [0], [0]]).numpy(), [1] * 4)
    assert K.mse is K.mean_squared_error is tf.keras.losses.mean_squared_error
    assert K.get("mae") is K.mean_absolute_error and isinstance(K.get("AUC"), K.AUC)
    wrapper = K.MeanMetricWrapper(K.binary_accuracy, name="w", threshold=0.3)
    again = K.MeanMetricWrapper.from_config(wrapper.get_config())
    assert again._fn is K.binary_accuracy and again._fn_kwargs == {"threshold": 0.3}


# ---------------------------------------------------------------- under MirroredStrategy
@pytest.fixture
def strategy():
    with logical_cpus(2):
        yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


_DISTRIBUTED = ["BinaryAccuracy", "Precision", "AUC", "AUC_multi", "MSE", "RMSE", "MeanIoU",
                "SparseCategoricalAccuracy"]


@pytest.mark.parametrize("name", _DISTRIBUTED)
def test_replicas_update_and_result_is_the_global_metric(strategy, name):
    make, maker = METRICS[name]
    parts = [_batch(maker, 10 + r, 4) for r in range(2)]
    with strategy.scope():
        m = make()
    assert type(m.weights[0]).__name__ == "SyncOnReadVariable"

    def replica_values(ctx):
        return tuple(torch.tensor(x) for x in parts[ctx.replica_id_in_sync_group])

    inputs = strategy.experimental_distribute_values_from_function(replica_values)

    def step(batch):
        y_true, y_pred, sw = batch
        m.update_state(y_true, y_pred, sample_weight=sw)
        return m.result()  # inside a replica: computed once, over both replicas' state

    per_replica = strategy.run(step, args=(inputs,))
    single = make()
    for part in parts:
        _update(single, *part)
    want = single.result()
    for value in strategy.experimental_local_results(per_replica):
        _close(value, want)
    _close(m.result(), want)  # cross-replica read: the components summed
    for w, v in zip(m.get_weights(), single.get_weights()):
        _close(w, v)
    m.reset_state()
    assert all(np.all(w == 0) for w in m.get_weights())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_mean_result_is_divide_no_nan_of_its_state(dtype):
    # Law (tf_keras: `result() = divide_no_nan(total, count)`): 0 before any update, then the
    # division in the metric's dtype, a new tensor each time (not a view of the state).
    m = tf.keras.metrics.Mean(dtype=dtype)
    first = m.result()
    assert first.dtype == getattr(torch, dtype) and float(first) == 0.0
    m.update_state(tf.constant([1.0, 2.0, 4.0], dtype=dtype), sample_weight=[1.0, 1.0, 2.0])
    got = m.result()
    want = tf.math.divide_no_nan(m.total.read_value(), m.count.read_value())
    assert got.dtype == want.dtype and torch.equal(got, want)
    m.update_state(tf.constant([3.0], dtype=dtype))
    assert not torch.equal(got, m.result())  # (the earlier result kept its value)
    assert float(got) == float(want)
    m.reset_state()
    assert float(m.result()) == 0.0
