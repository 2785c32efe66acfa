"""`compile(jit_compile=True)`: the built-in train step's forward pass and loss run as one
graph compiled by torch.compile (`tfcompat/keras/engine/compiled_step.py`).

Laws: the compiled step trains as the eager step does (the same History and weights, up to
the rounding a fused kernel may change: Inductor reorders elementwise arithmetic, so each
step may differ by a few ulps, which training carries forward); a loss metric is updated
once per step; what cannot be one pure graph (random draws, variable writes, a custom
train_step, a strategy) runs eagerly with one warning; a bad label still raises TF's error.
"""

import warnings

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.engine import compiled_step, training_api

K = tf.keras


def _data(n=40, features=5, classes=3, seed=0):
    rs = np.random.RandomState(seed)
    return (rs.normal(size=(n, features)).astype(np.float32),
            rs.randint(0, classes, n).astype(np.int64))


def _model(*middle, seed=1):
    K.utils.set_random_seed(seed)
    return K.Sequential([K.Input((5,)), K.layers.Dense(8, activation="relu"), *middle,
                         K.layers.Dense(3)])


def _compile(model, jit):
    model.compile(optimizer=K.optimizers.Adam(0.01),
                  loss=K.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], jit_compile=jit)


def _fit(model, x, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a fallback warning would fail the compiled case)
        return model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False, **kwargs)


def test_compiled_step_trains_as_the_eager_step():
    x, y = _data()  # 40 samples in batches of 16: two signatures (16 and the last 8)
    eager, jit = _model(), _model()
    _compile(eager, False)
    _compile(jit, True)
    h_eager, h_jit = _fit(eager, x, y), _fit(jit, x, y)
    step = jit._compiled_train_step
    assert isinstance(step, compiled_step.CompiledTrainStep)
    assert len(step._regions) == 2 and not step._eager  # (compiled, not fallen back)
    # Error model: float32, 9 steps; a reordered sum changes a step's values by a few ulps
    # (relative 1e-6 each), and Adam carries the difference forward.
    for key in ("loss", "accuracy"):
        np.testing.assert_allclose(h_jit.history[key], h_eager.history[key], rtol=1e-4, atol=1e-6)
    for a, b in zip(jit.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert int(jit.optimizer.iterations.numpy()) == 9


def test_the_loss_metric_is_updated_once_per_step():
    x, y = _data(n=16)
    model = _model()
    _compile(model, True)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # (builds, traces)
    model.reset_metrics()
    logs = model.train_on_batch(x, y, return_dict=True)
    count = model.compiled_loss._total_loss_mean.count.numpy()
    assert count == 16, count  # (one update, weighted by the batch size)
    assert np.isfinite(logs["loss"])


def test_a_bad_label_raises_tensorflows_error():
    x, y = _data(n=16)
    model = _model()
    _compile(model, True)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    y_bad = y.copy()
    y_bad[3] = 7
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(tf.errors.InvalidArgumentError):
        model.fit(x, y_bad, batch_size=16, epochs=1, verbose=0)
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)  # (the failed step changed nothing)


@pytest.mark.parametrize("layer,why", [(lambda: K.layers.Dropout(0.5), "random"),
                                       (lambda: K.layers.BatchNormalization(), "writes variables")])
def test_what_is_not_one_graph_runs_eagerly_with_one_warning(layer, why):
    x, y = _data()
    model = _model(layer())
    _compile(model, True)
    with pytest.warns(RuntimeWarning, match=why):
        history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # (said once)


def test_a_custom_train_step_runs_eagerly_with_one_warning(monkeypatch):
    monkeypatch.setattr(training_api, "_warned", set())
    calls = []

    class Custom(K.Model):
        def __init__(self):
            super().__init__()
            self.dense = K.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            calls.append(1)
            return super().train_step(data)

    x, y = _data(n=16)
    model = Custom()
    _compile(model, True)
    with pytest.warns(UserWarning, match="custom train_step runs eagerly"):
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert len(calls) == 2


def test_jit_compile_and_run_eagerly_conflict():
    model = _model()
    with pytest.raises(ValueError, match="run_eagerly"):
        model.compile("sgd", "mse", run_eagerly=True, jit_compile=True)
