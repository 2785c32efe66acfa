"""The harness of the callback scenarios (`callback_cases.py`): written against the TF API,
so it runs under TensorFlow + tf_keras 2.21 and under tfcompat alike.

`fit` below drives a `CallbackList` through the same hook sequence as tf_keras's
`Model.fit` (train begin, epochs, batches, an optional validation pass, epoch end, train
end), training a small functional model by hand with `GradientTape` between the hooks.
Logged numbers come from tables (as 0-d tensors in batch logs) so decisions do not hang on
the last bit of a float; the weights come from real training.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from typing import Any, Callable, Dict, List, Optional

import numpy as np


class Env:
    """What a scenario needs from the framework under test."""

    def __init__(self, tf: Any, keras: Any, clock: List[float], tmpdir: str,
                 warning_filter: Callable[[logging.LogRecord], bool],
                 loggers: List[str]) -> None:
        self.tf, self.keras, self.clock, self.tmpdir = tf, keras, clock, tmpdir
        self.warning_filter, self.loggers = warning_filter, loggers

    def tensor(self, x: Any) -> Any:
        return self.tf.constant(x, dtype=self.tf.float32)


class _Capture(logging.Handler):
    def __init__(self, keep: Callable[[logging.LogRecord], bool]) -> None:
        super().__init__(logging.WARNING)
        self.keep, self.messages = keep, []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING and self.keep(record):
            self.messages.append(record.getMessage())


@contextlib.contextmanager
def captured(env: Env):
    """Collect stdout and the callbacks' warnings into `record`."""
    handler = _Capture(env.warning_filter)
    loggers = [logging.getLogger(name) for name in env.loggers]
    for lg in loggers:
        lg.addHandler(handler)
    out = io.StringIO()
    record: Dict[str, Any] = {}
    try:
        with contextlib.redirect_stdout(out):
            yield record
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
        record["stdout"] = out.getvalue().replace(env.tmpdir, "<dir>")
        record["warnings"] = [m.replace(env.tmpdir, "<dir>") for m in handler.messages]


def make_model(env: Env, momentum: float = 0.5) -> Any:
    keras = env.keras
    inputs = keras.Input((3,))
    outputs = keras.layers.Dense(2)(inputs)
    model = keras.Model(inputs, outputs)
    model.set_weights([np.arange(6, dtype="float32").reshape(3, 2) * 0.1 - 0.2,
                       np.array([0.05, -0.05], "float32")])
    model.optimizer = keras.optimizers.legacy.SGD(learning_rate=0.1, momentum=momentum)
    return model


def batch_data(epoch: int, step: int) -> tuple:
    x = (np.arange(12, dtype="float32").reshape(4, 3) * 0.1
         + np.float32(0.01) * (3 * epoch + step)).astype("float32")
    y = (x @ np.array([[1.0, -1.0], [0.5, 0.25], [-0.5, 2.0]], "float32")).astype("float32")
    return x, y


def train_step(env: Env, model: Any, epoch: int, step: int) -> Any:
    tf = env.tf
    x, y = batch_data(epoch, step)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def host(value: Any) -> Any:
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
        return value.item()
    return value


def fit(env: Env, model: Any, callbacks: list, epochs: int, steps: Optional[int],
        batch_logs: Optional[Callable[[int, int], dict]] = None,
        val_logs: Optional[Callable[[int], dict]] = None, verbose: int = 0,
        run_steps: Optional[int] = None, validation_steps: int = 0, dt: float = 0.01,
        initial_epoch: int = 0, interrupt: Optional[tuple] = None) -> Any:
    """tf_keras's fit loop around hand-written training steps; returns the History.
    `interrupt=(epoch, step)` raises KeyboardInterrupt after that step (a killed fit)."""
    keras = env.keras
    run_steps = run_steps or steps
    batch_logs = batch_logs or (lambda e, s: {"loss": 0.5 / (1 + e) + 0.01 * s})
    cbs = keras.callbacks.CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                                       model=model, verbose=verbose, epochs=epochs, steps=steps)
    model.stop_training = False
    cbs.on_train_begin()
    initial_step = 0
    if hasattr(model, "_maybe_load_initial_counters_from_ckpt"):  # tf_keras
        initial_epoch, initial_step = model._maybe_load_initial_counters_from_ckpt(
            steps, initial_epoch)
    elif getattr(model, "_training_state", None) is not None:  # the lead's fit contract
        initial_epoch, initial_step = model._training_state.maybe_load_initial_counters_from_ckpt(
            steps, initial_epoch)
    training_logs, logs = None, None
    for epoch in range(initial_epoch, epochs):
        cbs.on_epoch_begin(epoch)
        for step in range(initial_step, run_steps):
            env.clock[0] += dt
            cbs.on_train_batch_begin(step)
            loss = train_step(env, model, epoch, step)
            logs = {k: env.tensor(v) if isinstance(v, float) else v
                    for k, v in batch_logs(epoch, step).items()}
            logs.setdefault("loss", loss)
            cbs.on_train_batch_end(step, logs)
            if interrupt == (epoch, step):
                raise KeyboardInterrupt
            if model.stop_training:
                break
        initial_step = 0
        epoch_logs = {k: host(v) for k, v in logs.items()}
        if validation_steps:
            cbs.on_test_begin()
            for step in range(validation_steps):
                cbs.on_test_batch_begin(step)
                cbs.on_test_batch_end(step, {"loss": env.tensor(0.25)})
            cbs.on_test_end({"loss": 0.25})
        epoch_logs.update(val_logs(epoch) if val_logs else {})
        cbs.on_epoch_end(epoch, epoch_logs)
        training_logs = epoch_logs
        if model.stop_training:
            break
    cbs.on_train_end(logs=training_logs)
    return model.history


def plain(value: Any) -> Any:
    value = host(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def summary(history: Any, model: Any) -> dict:
    return {"history": {k: plain(v) for k, v in history.history.items()},
            "epochs_run": list(history.epoch), "params": dict(history.params),
            "weights": [w.tolist() for w in model.get_weights()]}


def files(env: Env) -> list:
    found = []
    for root, dirs, files in os.walk(env.tmpdir):
        for name in files:
            found.append(os.path.relpath(os.path.join(root, name), env.tmpdir))
    return sorted(found)


def error(fn: Callable[[], Any], tmpdir: str = "\0") -> list:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the golden records the class and message
        return [type(e).__name__, str(e).replace(tmpdir, "<dir>")]
    return []


def val(table: list, key: str = "val_loss") -> Callable[[int], dict]:
    return lambda e: {key: table[e]} if e < len(table) and table[e] is not None else {}

