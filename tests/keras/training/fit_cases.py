"""The `Model.fit` / `evaluate` / `predict` conformance cases, written once against a `tf` module.

Only numpy is imported here. `generate_fit_golden.py` runs every case with `tensorflow`
(`tf.keras` is tf_keras 2.21 under `TF_USE_LEGACY_KERAS=1`) to write the fixture;
`test_fit_golden.py` runs them with `tfcompat` and compares. A case is `fn(tf) -> dict`: it
builds a model, sets its weights from a seeded NumPy generator (never from an initializer),
builds seeded NumPy data, compiles, trains with `shuffle=False`, and returns what a program
can observe: `history.history` / `.epoch` / `.params`, the final `get_weights()`,
`evaluate`'s list and dict, `metrics_names`, `predict`'s output and the `*_on_batch` values.

Data and weights are cast to `tf.keras.backend.floatx()`, so the generator can replay a case
in float64 as the reference its error model is checked against (see `test_fit_golden.py`).

`encode` turns a result into a JSON-able tree that keeps each leaf's Python kind (`float`,
`int`, `ndarray`, `tensor`, ...) and exact bytes, so the comparison can check both that
tfcompat returns what tf_keras returns (a Python float in `history.history`, an ndarray from
`predict`) and that the numbers agree within the tolerance.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from typing import Any, Callable, Dict

import numpy as np


@dataclasses.dataclass(frozen=True)
class FitCase:
    """One case. ``steps``: the optimizer steps its longest-trained model takes (what the
    test's error model scales with); ``float64``: also replay it with floatx float64 as the
    reference that checks the error model (False for a case whose result is text)."""

    fn: Callable[[Any], Dict[str, Any]]
    steps: int
    float64: bool = True


# -- seeded weights and data ------------------------------------------------------------

def _floatx(tf: Any) -> str:
    return tf.keras.backend.floatx()


def set_seeded_weights(model: Any, seed: int) -> None:
    """Every layer's weights from `RandomState(seed)`, in `model.layers` order (metrics held
    by the model are not layers, so their state is left alone): kernels ~ N(0, 1/fan_in),
    BatchNorm scales and variances in [1, 1.1), the rest ~ 0.1 * N(0, 1)."""
    rs = np.random.RandomState(seed)
    for layer in model.layers:
        values = []
        for w in layer.weights:
            shape = tuple(int(d) for d in w.shape)
            name = w.name
            if "gamma" in name or "moving_variance" in name:
                v = 1.0 + 0.1 * rs.uniform(size=shape)
            elif len(shape) >= 2:
                v = rs.normal(size=shape) / np.sqrt(shape[0])
            else:
                v = 0.1 * rs.normal(size=shape)
            values.append(v.astype(np.float64))
        if values:
            layer.set_weights(values)


def regression_data(tf: Any, n: int = 100, features: int = 8, outputs: int = 1,
                    seed: int = 0) -> tuple:
    """x ~ N(0, 1) of shape (n, features); y = tanh(x @ w) + noise, shape (n, outputs)."""
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, features))
    w = rs.normal(size=(features, outputs)) / np.sqrt(features)
    y = np.tanh(x @ w) + 0.1 * rs.normal(size=(n, outputs))
    return x.astype(_floatx(tf)), y.astype(_floatx(tf))


def class_data(tf: Any, n: int = 100, features: int = 6, classes: int = 3,
               seed: int = 1) -> tuple:
    """x ~ N(0, 1); integer labels (int32, shape (n,)) from a noisy linear score."""
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, features))
    w = rs.normal(size=(features, classes))
    labels = np.argmax(x @ w + 0.5 * rs.normal(size=(n, classes)), axis=1)
    return x.astype(_floatx(tf)), labels.astype(np.int32)


def binary_data(tf: Any, n: int = 100, features: int = 5, seed: int = 2,
                positive: float = 0.0) -> tuple:
    """x ~ N(0, 1); 0/1 labels (floatx, shape (n, 1)); `positive` shifts the threshold
    (a positive value makes class 1 rarer, for `class_weight`)."""
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, features))
    w = rs.normal(size=(features, 1))
    y = (x @ w + 0.5 * rs.normal(size=(n, 1)) > positive).astype(np.float64)
    return x.astype(_floatx(tf)), y.astype(_floatx(tf))


def mlp(tf: Any, features: int, hidden: int, outputs: int, activation: Any = None,
        seed: int = 10, **dense_kwargs: Any) -> Any:
    """Functional Input(features) -> Dense(hidden, relu) -> Dense(outputs, activation)."""
    keras = tf.keras
    inputs = keras.Input((features,))
    h = keras.layers.Dense(hidden, activation="relu", **dense_kwargs)(inputs)
    outputs_ = keras.layers.Dense(outputs, activation=activation)(h)
    model = keras.Model(inputs, outputs_)
    set_seeded_weights(model, seed)
    return model


# -- what a case records ----------------------------------------------------------------

def fit_record(history: Any) -> Dict[str, Any]:
    """What `fit` returns a program can read: the History's logs, epochs and params."""
    return {"history": history.history, "epoch": history.epoch, "params": history.params}


def observe(model: Any, fit_kwargs: dict, x: Any, y: Any,
            eval_kwargs: Any = None) -> Dict[str, Any]:
    """Run the standard script on a compiled model: `metrics_names` before training, `fit`,
    `metrics_names` after, weights, `evaluate` (list and dict) and `predict`, the last three
    on `eval_kwargs`' x and y when given (and its other arguments, e.g. sample_weight)."""
    eval_kwargs = dict(eval_kwargs or {})
    out: Dict[str, Any] = {"metrics_names_before": list(model.metrics_names)}
    out["fit"] = fit_record(model.fit(x, y, verbose=0, shuffle=False, **fit_kwargs))
    out["metrics_names"] = list(model.metrics_names)
    out["weights"] = model.get_weights()
    ex = eval_kwargs.pop("x", x)
    ey = eval_kwargs.pop("y", y)
    out["evaluate"] = model.evaluate(ex, ey, verbose=0, **eval_kwargs)
    out["evaluate_dict"] = model.evaluate(ex, ey, verbose=0, return_dict=True, **eval_kwargs)
    out["predict"] = model.predict(ex, verbose=0)
    return out


# -- the cases ---------------------------------------------------------------------------

def mlp_regression_sgd(tf: Any) -> dict:
    """1. MSE + SGD(0.01) + ["mae"], batch 16 over 100 samples (6 full batches, one of 4)."""
    x, y = regression_data(tf)
    model = mlp(tf, 8, 16, 1)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def sparse_softmax_adam_split(tf: Any) -> dict:
    """2a. "sparse_categorical_crossentropy" on a softmax output, Adam(1e-3), "accuracy"
    (resolves to sparse categorical accuracy on integer labels), validation_split=0.2."""
    x, labels = class_data(tf)
    model = mlp(tf, 6, 12, 3, activation="softmax", seed=11)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return observe(model, dict(batch_size=16, epochs=3, validation_split=0.2), x, labels)


def sparse_logits_adam(tf: Any) -> dict:
    """2b. SparseCategoricalCrossentropy(from_logits=True) on a linear output, Adam(1e-3),
    "accuracy" and a metric object."""
    keras = tf.keras
    x, labels = class_data(tf, seed=3)
    model = mlp(tf, 6, 12, 3, seed=12)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy",
                           keras.metrics.SparseCategoricalCrossentropy(from_logits=True)])
    return observe(model, dict(batch_size=20, epochs=3), x, labels)


def binary_validation_data(tf: Any) -> dict:
    """3. "binary_crossentropy" on a sigmoid output, "accuracy" (binary accuracy),
    validation_data as a tuple, validation_freq=2 over 4 epochs (val_* at epochs 2 and 4)."""
    x, y = binary_data(tf)
    xv, yv = binary_data(tf, n=30, seed=4)
    model = mlp(tf, 5, 8, 1, activation="sigmoid", seed=13)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="binary_crossentropy",
                  metrics=["accuracy"])
    return observe(model, dict(batch_size=16, epochs=4, validation_data=(xv, yv),
                               validation_freq=2), x, y, eval_kwargs=dict(x=xv, y=yv))


def class_weight(tf: Any) -> dict:
    """4. class_weight={0: 1.0, 1: 3.0} on an unbalanced binary problem."""
    x, y = binary_data(tf, seed=5, positive=0.8)
    model = mlp(tf, 5, 8, 1, activation="sigmoid", seed=14)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="binary_crossentropy",
                  metrics=["accuracy"])
    return observe(model, dict(batch_size=16, epochs=3, class_weight={0: 1.0, 1: 3.0}), x, y)


def sample_weight(tf: Any) -> dict:
    """5. A sample_weight array in fit and evaluate; "mae" both as a metric (unweighted) and
    as a weighted metric (logged as "weighted_mae")."""
    x, y = regression_data(tf, seed=6)
    sw = np.random.RandomState(7).uniform(0.2, 2.0, size=(100,)).astype(_floatx(tf))
    model = mlp(tf, 8, 16, 1, seed=15)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.02), loss="mse", metrics=["mae"],
                  weighted_metrics=["mae"])
    out = observe(model, dict(batch_size=16, epochs=3, sample_weight=sw), x, y,
                  eval_kwargs=dict(sample_weight=sw))
    out["evaluate_unweighted"] = model.evaluate(x, y, verbose=0, return_dict=True)
    return out


def regularizers(tf: Any) -> dict:
    """6. An L2 kernel_regularizer and an L1 activity_regularizer (which tf_keras divides by
    the batch size) on the hidden layer: both enter `loss` in fit and evaluate."""
    keras = tf.keras
    x, y = regression_data(tf, seed=8)
    model = mlp(tf, 8, 16, 1, seed=16, kernel_regularizer=keras.regularizers.L2(0.01),
                activity_regularizer=keras.regularizers.L1(0.01))
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse", metrics=["mse"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def multi_output_dict(tf: Any) -> dict:
    """7. Two named outputs with dict losses, loss_weights and per-output metrics; dict
    targets; validation_split (History keys out_a_loss, out_b_accuracy, val_out_a_mae...)."""
    keras = tf.keras
    x, ya = regression_data(tf, n=80, features=5, seed=9)
    yb = (ya > 0).astype(_floatx(tf))
    inputs = keras.Input((5,), name="features")
    h = keras.layers.Dense(8, activation="relu", name="shared")(inputs)
    out_a = keras.layers.Dense(1, name="out_a")(h)
    out_b = keras.layers.Dense(1, activation="sigmoid", name="out_b")(h)
    model = keras.Model(inputs, {"out_a": out_a, "out_b": out_b})
    set_seeded_weights(model, 17)
    model.compile(optimizer=keras.optimizers.SGD(0.05),
                  loss={"out_a": "mse", "out_b": "binary_crossentropy"},
                  loss_weights={"out_a": 1.0, "out_b": 0.5},
                  metrics={"out_a": ["mae"], "out_b": ["accuracy"]})
    return observe(model, dict(batch_size=16, epochs=3, validation_split=0.2), x,
                   {"out_a": ya, "out_b": yb})


def initial_epoch(tf: Any) -> dict:
    """8a. initial_epoch=1, epochs=3: two epochs run, History.epoch == [1, 2]."""
    x, y = regression_data(tf, seed=10)
    model = mlp(tf, 8, 16, 1, seed=18)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=25, epochs=3, initial_epoch=1), x, y)


def dataset_repeat_steps(tf: Any) -> dict:
    """8b. A `Dataset.from_tensor_slices((x, y)).batch(16).repeat()` with steps_per_epoch=5
    (epochs continue where the infinite iterator stopped); evaluate on a finite dataset."""
    x, y = regression_data(tf, n=96, seed=11)
    model = mlp(tf, 8, 16, 1, seed=19)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat()
    finite = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    out: Dict[str, Any] = {"metrics_names_before": list(model.metrics_names)}
    out["fit"] = fit_record(model.fit(ds, epochs=3, steps_per_epoch=5, verbose=0))
    out["weights"] = model.get_weights()
    out["evaluate"] = model.evaluate(finite, verbose=0)
    out["evaluate_steps"] = model.evaluate(ds, steps=2, verbose=0, return_dict=True)
    out["predict"] = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(10), verbose=0)
    return out


def generator_steps(tf: Any) -> dict:
    """8c. A Python generator of (x, y) batches with steps_per_epoch=4 (the one iterator runs
    on across epochs), and validation from a generator with validation_steps=2. tf_keras reads
    a generator ahead of the steps it takes, so the validation generator repeats one batch:
    which of its batches an epoch sees would otherwise depend on that read-ahead."""
    x, y = regression_data(tf, n=96, seed=12)
    model = mlp(tf, 8, 16, 1, seed=20)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])

    def batches(start: int, size: int, stop: int = 96):
        while True:
            for i in range(start, stop, size):
                yield x[i:i + size], y[i:i + size]

    out: Dict[str, Any] = {}
    out["fit"] = fit_record(model.fit(batches(0, 16), epochs=3, steps_per_epoch=4, verbose=0,
                                      validation_data=batches(64, 16, stop=80),
                                      validation_steps=2))
    out["metrics_names"] = list(model.metrics_names)
    out["weights"] = model.get_weights()
    out["evaluate"] = model.evaluate(batches(0, 32), steps=3, verbose=0)
    return out


def _train_step_model(tf: Any, use_minimize: bool) -> Any:
    keras = tf.keras

    class CustomModel(keras.Model):
        """The guide's train_step: compiled_loss, an optimizer step, compiled_metrics."""

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            if use_minimize:
                self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
            else:
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input((8,))
    h = keras.layers.Dense(16, activation="relu")(inputs)
    return CustomModel(inputs, keras.layers.Dense(1)(h))


def custom_train_step(tf: Any) -> dict:
    """9a. A functional subclass overriding train_step (apply_gradients), as TF's
    "Customizing what happens in fit" guide; evaluate runs the default test_step."""
    x, y = regression_data(tf, seed=13)
    model = _train_step_model(tf, use_minimize=False)
    set_seeded_weights(model, 21)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def custom_train_step_minimize(tf: Any) -> dict:
    """9b. The same train_step through `optimizer.minimize(loss, vars, tape=tape)`, Adam."""
    x, y = regression_data(tf, seed=14)
    model = _train_step_model(tf, use_minimize=True)
    set_seeded_weights(model, 22)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def custom_train_step_subclass(tf: Any) -> dict:
    """9c. The guide's train_step on a model subclassed the other way (layers as attributes,
    its own `call`), built by a first call before its weights are set."""
    keras = tf.keras

    class Regressor(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(16, activation="relu")
            self.out = keras.layers.Dense(1)

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = regression_data(tf, seed=19)
    model = Regressor()
    model(x[:1])
    set_seeded_weights(model, 28)
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def custom_compute_loss(tf: Any) -> dict:
    """9d. tf_keras's `compute_loss` example: a loss tracker as the only metric, its own
    squared error plus `self.losses` (a symbolic `add_loss` on the outputs), `reset_metrics`
    and `metrics` overridden; the compiled "mse" is never used by it."""
    keras = tf.keras

    class MyModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")

        def compute_loss(self, x, y, y_pred, sample_weight):
            loss = tf.reduce_mean(tf.math.squared_difference(y_pred, y))
            loss += tf.add_n(self.losses)
            self.loss_tracker.update_state(loss)
            return loss

        def reset_metrics(self):
            self.loss_tracker.reset_states()

        @property
        def metrics(self):
            return [self.loss_tracker]

    x, y = regression_data(tf, seed=15, outputs=2)
    inputs = keras.Input((8,))
    outputs = keras.layers.Dense(2)(keras.layers.Dense(16, activation="relu")(inputs))
    model = MyModel(inputs, outputs)
    model.add_loss(0.01 * tf.reduce_mean(tf.abs(outputs)))
    set_seeded_weights(model, 23)
    model.compile(keras.optimizers.SGD(0.01), loss="mse")
    out = observe(model, dict(batch_size=16, epochs=3), x, y)
    out["loss_tracker"] = float(model.loss_tracker.result())
    return out


def custom_compute_loss_subclass(tf: Any) -> dict:
    """9e. `compute_loss` overridden on a subclassed model (its own `call`, which adds a loss
    with `self.add_loss`): the default train_step and test_step call it, the compiled "mse"
    and "mae" log beside it (its extra term is not in the logged `loss`, which tracks the
    compiled loss and the added losses only as tf_keras does)."""
    keras = tf.keras

    class Penalized(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(16, activation="relu")
            self.out = keras.layers.Dense(1)

        def call(self, inputs, training=None):
            h = self.hidden(inputs)
            self.add_loss(0.01 * tf.reduce_mean(tf.square(h)))
            return self.out(h)

        def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
            loss = super().compute_loss(x, y, y_pred, sample_weight)
            return loss + 0.1 * tf.reduce_mean(tf.abs(y_pred))

    x, y = regression_data(tf, seed=20)
    model = Penalized()
    model(x[:1])
    set_seeded_weights(model, 29)
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    return observe(model, dict(batch_size=16, epochs=3), x, y)


def batch_methods(tf: Any) -> dict:
    """10. train_on_batch / test_on_batch with reset_metrics True/False and return_dict,
    predict_on_batch, metrics_names before and after, evaluate(return_dict) and
    predict(batch_size=7) (15 batches concatenated, the last of 2)."""
    x, y = regression_data(tf, seed=16)
    model = mlp(tf, 8, 16, 1, seed=24)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    out: Dict[str, Any] = {"metrics_names_before": list(model.metrics_names)}
    b = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 96, 16)]
    out["train_1"] = model.train_on_batch(*b[0])
    out["metrics_names"] = list(model.metrics_names)
    out["train_2_keep"] = model.train_on_batch(*b[1], reset_metrics=False)
    out["train_3_keep"] = model.train_on_batch(*b[2], reset_metrics=False)
    out["train_4_reset"] = model.train_on_batch(*b[3], reset_metrics=True)
    out["train_5_dict"] = model.train_on_batch(*b[4], return_dict=True)
    out["test_1"] = model.test_on_batch(*b[0])
    out["test_2_keep"] = model.test_on_batch(*b[1], reset_metrics=False)
    out["test_3_keep"] = model.test_on_batch(*b[2], reset_metrics=False)
    out["test_4_dict"] = model.test_on_batch(*b[3], return_dict=True)
    out["predict_on_batch"] = model.predict_on_batch(x[:10])
    out["weights"] = model.get_weights()
    out["evaluate_dict"] = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
    out["predict_7"] = model.predict(x, batch_size=7, verbose=0)
    out["predict_default"] = model.predict(x, verbose=0)

    # A model with a loss and no metrics: scalar results, not one-element lists.
    plain = mlp(tf, 8, 16, 1, seed=25)
    plain.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    out["plain_train"] = plain.train_on_batch(*b[0])
    out["plain_test"] = plain.test_on_batch(*b[1])
    out["plain_metrics_names"] = list(plain.metrics_names)
    out["plain_evaluate"] = plain.evaluate(x, y, verbose=0)
    out["plain_fit"] = fit_record(plain.fit(x, y, batch_size=50, epochs=2, verbose=0,
                                            shuffle=False))
    return out


def batchnorm_dropout(tf: Any) -> dict:
    """11. Sequential Dense -> BatchNormalization -> Dropout(0.0) -> Dense with SGD momentum:
    fit trains on batch statistics and moves the moving averages (in the final weights);
    evaluate and predict use the moving averages."""
    keras = tf.keras
    x, y = regression_data(tf, features=6, seed=17)
    model = keras.Sequential([
        keras.Input((6,)),
        keras.layers.Dense(8),
        keras.layers.BatchNormalization(momentum=0.9),
        keras.layers.Dropout(0.0),
        keras.layers.Dense(1),
    ])
    set_seeded_weights(model, 26)
    model.compile(optimizer=keras.optimizers.SGD(0.01, momentum=0.9), loss="mse",
                  metrics=[keras.metrics.MeanAbsoluteError()])
    out = observe(model, dict(batch_size=20, epochs=3), x, y)
    out["call_inference"] = model(x[:5], training=False)
    out["call_training"] = model(x[:5], training=True)
    return out


def verbose2_stdout(tf: Any) -> dict:
    """The text `fit(verbose=2)` and `evaluate(verbose=2)` print (for the lead to compare;
    times differ by run and are normalized by the test), with validation."""
    x, y = regression_data(tf, seed=18)
    model = mlp(tf, 8, 16, 1, seed=27)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", metrics=["mae"])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(x, y, batch_size=16, epochs=2, validation_split=0.2, verbose=2,
                  shuffle=False)
        model.evaluate(x, y, batch_size=50, verbose=2)
    return {"stdout": buf.getvalue()}


CASES: Dict[str, FitCase] = {
    "mlp_regression_sgd": FitCase(mlp_regression_sgd, steps=21),
    "sparse_softmax_adam_split": FitCase(sparse_softmax_adam_split, steps=15),
    "sparse_logits_adam": FitCase(sparse_logits_adam, steps=15),
    "binary_validation_data": FitCase(binary_validation_data, steps=28),
    "class_weight": FitCase(class_weight, steps=21),
    "sample_weight": FitCase(sample_weight, steps=21),
    "regularizers": FitCase(regularizers, steps=21),
    "multi_output_dict": FitCase(multi_output_dict, steps=12),
    "initial_epoch": FitCase(initial_epoch, steps=8),
    "dataset_repeat_steps": FitCase(dataset_repeat_steps, steps=15),
    "generator_steps": FitCase(generator_steps, steps=12),
    "custom_train_step": FitCase(custom_train_step, steps=21),
    "custom_train_step_minimize": FitCase(custom_train_step_minimize, steps=21),
    "custom_train_step_subclass": FitCase(custom_train_step_subclass, steps=21),
    "custom_compute_loss": FitCase(custom_compute_loss, steps=21),
    "custom_compute_loss_subclass": FitCase(custom_compute_loss_subclass, steps=21),
    "batch_methods": FitCase(batch_methods, steps=5),
    "batchnorm_dropout": FitCase(batchnorm_dropout, steps=15),
    "verbose2_stdout": FitCase(verbose2_stdout, steps=10, float64=False),
}


# -- encoding ----------------------------------------------------------------------------

def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu()
        return x.resolve_conj().numpy() if hasattr(x, "resolve_conj") else x.numpy()
    if hasattr(x, "read_value"):  # a variable
        x = x.read_value()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _array(kind: str, arr: np.ndarray) -> dict:
    arr = np.asarray(arr)
    return {kind: {"dtype": str(arr.dtype), "shape": list(arr.shape),
                   "hex": arr.tobytes(order="C").hex()}}


def encode(x: Any) -> Any:
    """A JSON-able tree of a result: dicts (keys kept in their order, which is compared),
    lists (a tuple is recorded as a list, as `tf.nest` treats them alike), and leaves tagged
    with their kind and exact value."""
    if x is None:
        return {"none": None}
    if isinstance(x, bool):
        return {"bool": x}
    if isinstance(x, int):
        return {"int": x}
    if isinstance(x, float):
        return {"float": x.hex()}
    if isinstance(x, str):
        return {"str": x}
    if isinstance(x, np.generic):
        return _array("npscalar", np.asarray(x))
    if isinstance(x, np.ndarray):
        return _array("ndarray", x)
    if isinstance(x, dict):
        return {"dict": [[str(k), encode(v)] for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return {"list": [encode(v) for v in x]}
    return _array("tensor", _to_numpy(x))


def decode_array(rec: dict) -> np.ndarray:
    """The ndarray of an array leaf's record."""
    return np.frombuffer(bytes.fromhex(rec["hex"]), dtype=np.dtype(rec["dtype"])).reshape(
        rec["shape"])
