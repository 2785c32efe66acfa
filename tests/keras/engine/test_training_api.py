"""`Model.compile` / `fit` / `evaluate` / `predict` as tf_keras 2.21 runs them: the hook
sequence callbacks see (recorded from tf_keras), the compiled trainable state, stopping,
the result shapes of `evaluate`, the accepted input kinds, the errors, and the host reads
(none per batch: logs stay tensors until an epoch ends). Numbers against tf_keras are
pinned by `tests/keras/training/test_fit_golden.py`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import accelerator_policy, host_syncs

K = tf.keras


def _data(n=20, features=4, seed=0):
    rs = np.random.RandomState(seed)
    return (rs.normal(size=(n, features)).astype("float32"),
            rs.normal(size=(n, 1)).astype("float32"))


def _model(metrics=("mae",)):
    model = K.Sequential([K.Input((4,)), K.layers.Dense(3, name="d1"), K.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=list(metrics))
    return model


class _Recorder(K.callbacks.Callback):
    HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
             "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
             "on_test_batch_begin", "on_test_batch_end")

    def __init__(self):
        super().__init__()
        self.calls = []
        for hook in self.HOOKS:
            setattr(self, hook, self._make(hook))

    def _make(self, hook):
        def record(*args, **kwargs):
            logs = kwargs.get("logs", args[-1] if args and isinstance(args[-1], dict) else None)
            index = tuple(a for a in args if isinstance(a, int))
            self.calls.append((hook, index, tuple(sorted(logs)) if logs else ()))
        return record


# what tf_keras 2.21 calls for 2 epochs of 2 batches with validation data of 1 batch
_TF_KERAS_EPOCH = [
    ("on_train_batch_begin", (0,), ()), ("on_train_batch_end", (0,), ("loss", "mae")),
    ("on_train_batch_begin", (1,), ()), ("on_train_batch_end", (1,), ("loss", "mae")),
    ("on_test_begin", (), ()), ("on_test_batch_begin", (0,), ()),
    ("on_test_batch_end", (0,), ("loss", "mae")), ("on_test_end", (), ("loss", "mae")),
]
_VAL_KEYS = ("loss", "mae", "val_loss", "val_mae")
TF_KERAS_HOOKS = ([("on_train_begin", (), ())]
                  + [("on_epoch_begin", (0,), ())] + _TF_KERAS_EPOCH
                  + [("on_epoch_end", (0,), _VAL_KEYS), ("on_epoch_begin", (1,), ())]
                  + _TF_KERAS_EPOCH
                  + [("on_epoch_end", (1,), _VAL_KEYS), ("on_train_end", (), _VAL_KEYS)])


def test_callbacks_see_tf_keras_hook_sequence_and_logs():
    x, y = _data()
    recorder = _Recorder()
    history = _model().fit(x, y, batch_size=10, epochs=2, verbose=0,
                           validation_data=(x[:10], y[:10]), callbacks=[recorder])
    assert recorder.calls == TF_KERAS_HOOKS
    assert sorted(history.history) == sorted(_VAL_KEYS)
    assert history.epoch == [0, 1]
    assert all(isinstance(v, float) for values in history.history.values() for v in values)


def test_trainable_state_at_compile_is_what_fit_trains():
    """tf_keras: freezing after `compile` takes effect at the next `compile` (checked in
    tf_keras 2.21: the frozen layer still trains, and `trainable` reads False after fit)."""
    x, y = _data()
    model = _model()
    d1 = model.get_layer("d1")
    d1.trainable = False
    before = d1.kernel.numpy().copy()
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    assert not np.array_equal(before, d1.kernel.numpy())
    assert d1.trainable is False
    model.compile("sgd", "mse")
    before = d1.kernel.numpy().copy()
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    np.testing.assert_array_equal(before, d1.kernel.numpy())


def test_stop_training_ends_after_the_epoch():
    x, y = _data()

    class Stop(K.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                self.model.stop_training = True

    history = _model().fit(x, y, batch_size=5, epochs=5, verbose=0, callbacks=[Stop()])
    assert history.epoch == [0, 1]


def test_stop_training_inside_an_epoch_stops_at_the_batch():
    x, y = _data()
    seen = []

    class Stop(K.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(batch)
            if batch == 1:
                self.model.stop_training = True

    _model().fit(x, y, batch_size=5, epochs=3, verbose=0, callbacks=[Stop()])
    assert seen == [0, 1]


def test_evaluate_results_in_metrics_names_order_and_scalar_alone():
    x, y = _data()
    model = _model()
    assert model.metrics_names == []
    results = model.evaluate(x, y, verbose=0)
    assert model.metrics_names == ["loss", "mae"]
    assert isinstance(results, list) and len(results) == 2
    as_dict = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(as_dict) == ["loss", "mae"]
    np.testing.assert_allclose(results, list(as_dict.values()))
    alone = _model(metrics=())
    assert isinstance(alone.evaluate(x, y, verbose=0), float)


def test_validation_freq_list_and_int():
    x, y = _data()
    history = _model().fit(x, y, batch_size=10, epochs=4, verbose=0,
                           validation_data=(x, y), validation_freq=[1, 4])
    assert len(history.history["val_loss"]) == 2
    history = _model().fit(x, y, batch_size=10, epochs=4, verbose=0,
                           validation_data=(x, y), validation_freq=2)
    assert len(history.history["val_loss"]) == 2
    with pytest.raises(ValueError, match="Expected `validation_freq` to be a list or int"):
        _model().fit(x, y, epochs=1, verbose=0, validation_data=(x, y), validation_freq="x")


def test_input_kinds_train_the_same():
    """Arrays, tensors, a tf.data pipeline, a DataLoader and a generator of the same batches
    in the same order give the same weights."""
    x, y = _data()
    results = []
    sources = {
        "numpy": lambda m: m.fit(x, y, batch_size=5, epochs=2, shuffle=False, verbose=0),
        "tensor": lambda m: m.fit(torch.from_numpy(x), torch.from_numpy(y), batch_size=5,
                                  epochs=2, shuffle=False, verbose=0),
        "tf.data": lambda m: m.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(5),
                                   epochs=2, verbose=0),
        "DataLoader": lambda m: m.fit(torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)),
            batch_size=5), epochs=2, verbose=0),
        "generator": lambda m: m.fit(((x[i:i + 5], y[i:i + 5]) for _ in range(2)
                                      for i in range(0, 20, 5)),
                                     steps_per_epoch=4, epochs=2, verbose=0),
    }
    init = None
    for name, run in sources.items():
        model = _model()
        if init is None:
            init = model.get_weights()
        model.set_weights(init)
        run(model)
        results.append((name, model.get_weights()))
    for name, weights in results[1:]:
        for a, b in zip(results[0][1], weights):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=name)


def test_predict_concatenates_batches_into_numpy():
    x, _ = _data(n=23)
    inputs = K.Input((4,))
    model = K.Model(inputs, [K.layers.Dense(2)(inputs), K.layers.Dense(1)(inputs)])
    out = model.predict(x, batch_size=5, verbose=0)
    assert isinstance(out, list) and [o.shape for o in out] == [(23, 2), (23, 1)]
    assert all(isinstance(o, np.ndarray) for o in out)
    np.testing.assert_allclose(out[0], model(x)[0].detach().numpy(), rtol=1e-6)


def test_not_compiled_and_bad_compile_arguments_raise_tf_keras_errors():
    x, y = _data()
    model = K.Sequential([K.Input((4,)), K.layers.Dense(1)])
    with pytest.raises(RuntimeError, match="You must compile your model before"):
        model.fit(x, y, verbose=0)
    with pytest.raises(RuntimeError, match="You must compile your model before"):
        model.evaluate(x, y, verbose=0)
    with pytest.raises(TypeError, match="Invalid keyword argument"):
        model.compile("sgd", "mse", bogus=1)
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="Target data is missing"):
        model.fit(x, verbose=0)


def test_no_loss_raises():
    x, y = _data()
    model = K.Sequential([K.Input((4,)), K.layers.Dense(1)])
    model.compile("sgd")
    with pytest.raises(ValueError, match="No loss found"):
        model.fit(x, y, verbose=0)


def test_fit_generator_is_a_deprecated_alias():
    x, y = _data()
    model = _model()
    with pytest.warns(UserWarning, match="`Model.fit_generator` is deprecated"):
        history = model.fit_generator(((x, y) for _ in range(3)), steps_per_epoch=1, epochs=3,
                                      verbose=0)
    assert len(history.history["loss"]) == 3


def test_subclass_called_with_inputs_and_outputs_is_functional():
    class CustomModel(K.Model):
        def train_step(self, data):
            self.custom_calls = getattr(self, "custom_calls", 0) + 1
            return super().train_step(data)

    inputs = K.Input((4,))
    model = CustomModel(inputs, K.layers.Dense(1)(inputs))
    assert model.name.startswith("custom_model") and isinstance(model, K.Model)
    assert len(model.weights) == 2
    model.compile("sgd", "mse")
    x, y = _data()
    model.fit(x, y, batch_size=10, epochs=1, verbose=0)
    assert model.custom_calls == 2


def test_metric_attribute_state_is_model_weights_not_layer_weights():
    """tf_keras 2.21 (checked): a model's attribute metrics count in its weights; a layer's
    do not."""
    class Holder(K.layers.Layer):
        def __init__(self):
            super().__init__()
            self.acc = K.metrics.Accuracy()
            self.v = tf.Variable(1.0)

    class WithTracker(K.Model):
        def __init__(self):
            super().__init__()
            self.d = K.layers.Dense(2)
            self.tracker = K.metrics.Mean(name="loss")

        def call(self, x):
            return self.d(x)

    assert [w.name for w in Holder().weights] == ["Variable:0"]
    model = WithTracker()
    model(tf.ones((1, 3)))
    assert [w.name.split("/")[-1] for w in model.weights] == ["kernel:0", "bias:0", "total:0",
                                                                "count:0"]
    assert model.count_params() == 10


@pytest.mark.parametrize("epochs", [1, 3])
def test_fit_reads_the_host_once_per_metric_per_epoch_not_per_batch(epochs):
    """On an accelerator (CPU tensors standing in) a batch makes no host read: the logs stay
    tensors; each epoch reads each metric once (tf_keras reads them once too)."""
    rs = np.random.RandomState(0)
    with accelerator_policy():
        x = torch.from_numpy(rs.normal(size=(64, 8)).astype("float32"))
        y = torch.from_numpy(rs.randint(0, 3, 64))
        model = K.Sequential([K.Input((8,)), K.layers.Dense(3)])
        model.compile("adam", K.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # (first step: slots, mirrors)
        with host_syncs() as log:
            model.fit(x, y, batch_size=16, epochs=epochs, verbose=0, shuffle=False)
    assert len(log) == 2 * epochs, "\n".join(str(s) for s in log)


def test_steps_per_execution_runs_every_step():
    x, y = _data(n=10)
    model = K.Sequential([K.Input((4,)), K.layers.Dense(1)])
    model.compile("sgd", "mse", steps_per_execution=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x, y, batch_size=1, epochs=2, verbose=0)
    assert int(model._train_counter.numpy()) == 20


# -- fit's steps skip their logs only where nothing can read them ---------------------------
# Law: whether fit's built-in steps compute their per-batch logs (a callback with a batch
# hook, verbose=1) or not (verbose 0/2, no such callback), the History, the metrics and the
# weights are the same, bit for bit; code that can see a step's result (a custom or
# super()-calling train_step, train_on_batch from a callback, a step after a failed fit)
# always gets the dict.

class _BatchEnd(K.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(dict(logs))

    def on_test_batch_end(self, batch, logs=None):
        self.seen.append(dict(logs))


def _fit(model, callbacks=(), **kwargs):
    x, y = _data(n=24)
    return model.fit(x, y, batch_size=5, epochs=2, verbose=0, shuffle=False,
                     validation_split=0.25, callbacks=list(callbacks), **kwargs)


@pytest.mark.parametrize("steps_per_execution", [1, 3])
def test_unread_step_logs_change_nothing(steps_per_execution):
    runs = []
    for with_hook in (False, True):
        tf.keras.backend.clear_session()
        tf.keras.utils.set_random_seed(3)
        model = _model(metrics=("mae", "mse"))
        model.compile("sgd", "mse", metrics=["mae", "mse"],
                      steps_per_execution=steps_per_execution)
        hook = _BatchEnd()
        history = _fit(model, [hook] if with_hook else [])
        assert bool(hook.seen) == with_hook
        x, y = _data(n=13, seed=1)
        evaluated = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True,
                                   callbacks=[hook] if with_hook else [])
        runs.append((history.history, [w.copy() for w in model.get_weights()],
                     [float(m.result()) for m in model.metrics], evaluated))
    (h0, w0, m0, e0), (h1, w1, m1, e1) = runs
    assert h0 == h1 and m0 == m1 and e0 == e1
    for a, b in zip(w0, w1):
        np.testing.assert_array_equal(a, b)


def test_code_that_sees_a_step_gets_its_dict():
    x, y = _data(n=10)
    got = []

    class Custom(K.Sequential):
        def train_step(self, data):
            logs = super().train_step(data)
            got.append(sorted(logs))
            return logs

        def test_step(self, data):
            logs = super().test_step(data)
            got.append(sorted(logs))
            return logs

    model = Custom([K.Input((4,)), K.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    model.fit(x, y, batch_size=5, epochs=1, verbose=0)
    assert got == [["loss", "mae"]] * 2
    got.clear()
    assert sorted(model.evaluate(x, y, batch_size=5, verbose=0, return_dict=True)) == [
        "loss", "mae"]
    assert got == [["loss", "mae"]] * 2

    plain = _model()
    inner = []

    class OnBatch(K.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            inner.append(self.model.train_on_batch(x[:5], y[:5], return_dict=True))

    plain.fit(x, y, batch_size=5, epochs=1, verbose=0, callbacks=[OnBatch()])
    assert sorted(inner[0]) == ["loss", "mae"]
    direct = []
    plain.train_step = lambda data: direct.append(K.Model.train_step(plain, data)) or direct[-1]
    plain.fit(x, y, batch_size=5, epochs=1, verbose=0)
    assert all(isinstance(d, dict) and sorted(d) == ["loss", "mae"] for d in direct)


def test_a_step_after_a_failed_fit_returns_its_dict():
    x, y = _data(n=10)
    model = _model()

    class Boom(K.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            if batch == 1:
                raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        model.fit(x, y, batch_size=5, epochs=1, verbose=0, callbacks=[Boom()])
    bad = _model(metrics=())
    bad.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(tf.errors.InvalidArgumentError):
        bad.fit(x, np.full((10,), 7), batch_size=5, epochs=1, verbose=0)
    logs = bad.train_step((tf.constant(x[:5]), tf.constant(np.zeros((5,), np.int64))))
    assert isinstance(logs, dict) and "loss" in logs


def test_a_callback_added_during_fit_gets_batch_logs():
    x, y = _data(n=10)
    model = _model()
    late = _BatchEnd()

    class AddLate(K.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 0:
                callbacks.append(late)

    callbacks = K.callbacks.CallbackList([AddLate()], add_history=True, model=model)
    model.fit(x, y, batch_size=5, epochs=2, verbose=0, callbacks=callbacks)
    assert len(late.seen) == 2 and all(sorted(logs) == ["loss", "mae"] for logs in late.seen)
