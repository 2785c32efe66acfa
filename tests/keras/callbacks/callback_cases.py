"""Callback scenarios written against the TF API, run by `generate_callback_golden.py` under
TensorFlow + tf_keras 2.21 and by `test_callback_golden.py` under tfcompat; each returns a
JSON-able record (stdout, warnings, files written, history, attributes, weights). The loop
they run in is `callback_driver.fit`.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Dict

import numpy as np

from tests.keras.callbacks.callback_driver import (Env, captured, error, files, fit,
                                                   make_model, plain, summary, val)


# ------------------------------------------------------------------ EarlyStopping
EARLY_STOPPING = [
    ("default_patience0", {}, [1.0, 0.9, 0.95, 0.8, 0.7], "val_loss"),
    ("patience2_min_delta_restore", {"patience": 2, "min_delta": 0.05, "verbose": 1,
                                     "restore_best_weights": True},
     [1.0, 0.97, 0.96, 0.99, 0.5, 0.4], "val_loss"),
    ("accuracy_auto_max_restore", {"monitor": "val_accuracy", "patience": 1,
                                   "restore_best_weights": True, "verbose": 1},
     [0.5, 0.7, 0.65, 0.6, 0.9], "val_accuracy"),
    ("baseline_not_beaten", {"baseline": 0.5, "patience": 2, "verbose": 1},
     [0.9, 0.8, 0.7, 0.6, 0.4, 0.3], "val_loss"),
    ("baseline_beaten", {"baseline": 0.85, "patience": 1},
     [0.9, 0.8, 0.7, 0.75, 0.76, 0.6], "val_loss"),
    ("start_from_epoch", {"start_from_epoch": 2, "patience": 1, "verbose": 1},
     [1.0, 2.0, 3.0, 2.5, 2.6, 2.7], "val_loss"),
    ("missing_monitor", {"monitor": "val_mae"}, [1.0, 1.1, 1.2], "val_loss"),
    ("unknown_mode", {"mode": "bogus", "patience": 1}, [1.0, 1.1, 1.2, 1.3], "val_loss"),
    ("never_improves_restores_first", {"restore_best_weights": True, "patience": 2,
                                       "verbose": 1}, [1.0, 1.1, 1.2, 1.3, 1.4], "val_loss"),
    ("mode_max_on_loss", {"mode": "max", "patience": 1}, [1.0, 0.9, 0.8, 0.7], "val_loss"),
    ("auc_auto_max_negative_delta", {"monitor": "val_auc", "min_delta": -0.1,
                                     "patience": 1}, [0.5, 0.55, 0.58, 0.9, 0.91], "val_auc"),
    ("first_epoch_not_finite", {"patience": 0}, [math.inf, 1.0, 1.0, 1.0], "val_loss"),
    ("restore_but_never_stopped", {"restore_best_weights": True, "patience": 5, "verbose": 1},
     [1.0, 0.5, 0.7, 0.6], "val_loss"),
]


def early_stopping(env: Env, name: str) -> dict:
    kwargs, table, key = next((k, t, m) for n, k, t, m in EARLY_STOPPING if n == name)
    model = make_model(env)
    with captured(env) as record:
        cb = env.keras.callbacks.EarlyStopping(**kwargs)
        history = fit(env, model, [cb], epochs=len(table), steps=2, val_logs=val(table, key))
    record.update(summary(history, model))
    record["attrs"] = {"stopped_epoch": cb.stopped_epoch, "best_epoch": cb.best_epoch,
                       "best": plain(cb.best), "wait": cb.wait,
                       "stop_training": bool(model.stop_training)}
    return record


def early_stopping_reused(env: Env) -> dict:
    model = make_model(env)
    cb = env.keras.callbacks.EarlyStopping(patience=1, verbose=1)
    with captured(env) as record:
        fit(env, model, [cb], epochs=4, steps=1, val_logs=val([1.0, 1.1, 1.2, 0.1]))
        first = cb.stopped_epoch
        fit(env, model, [cb], epochs=4, steps=1, val_logs=val([0.5, 0.4, 0.3, 0.2]))
    record["attrs"] = {"first_stopped": first, "second_stopped": cb.stopped_epoch,
                       "best": plain(cb.best)}
    return record


# ------------------------------------------------------------------ ReduceLROnPlateau
REDUCE_LR = [
    ("patience1_cooldown_min_lr", {"factor": 0.5, "patience": 1, "cooldown": 1,
                                   "min_lr": 0.02, "verbose": 1},
     [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5], "val_loss"),
    ("acc_auto_max", {"monitor": "val_acc", "factor": 0.2, "patience": 2, "verbose": 1},
     [0.5, 0.6, 0.6, 0.6, 0.61, 0.7], "val_acc"),
    ("epsilon_kwarg", {"epsilon": 0.5, "patience": 1, "verbose": 1},
     [1.0, 0.8, 0.6, 0.1], "val_loss"),
    ("missing_monitor", {"monitor": "val_mae", "patience": 0}, [1.0, 1.0], "val_loss"),
    ("unknown_mode", {"mode": "bogus", "patience": 0, "factor": 0.9},
     [1.0, 1.0, 2.0], "val_loss"),
    ("min_delta_big", {"min_delta": 0.3, "patience": 1, "factor": 0.1, "verbose": 1},
     [1.0, 0.8, 0.6, 0.2, 0.19], "val_loss"),
    ("mode_min_explicit_zero_patience", {"mode": "min", "patience": 0, "factor": 0.5},
     [1.0, 1.0, 0.9, 0.9], "val_loss"),
]


def reduce_lr(env: Env, name: str) -> dict:
    kwargs, table, key = next((k, t, m) for n, k, t, m in REDUCE_LR if n == name)
    model = make_model(env)
    trace: list = []
    lam = env.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda e, logs: trace.append(float(model.optimizer.lr.numpy())))
    with captured(env) as record:
        cb = env.keras.callbacks.ReduceLROnPlateau(**kwargs)
        history = fit(env, model, [cb, lam], epochs=len(table), steps=1,
                      val_logs=val(table, key))
    record.update(summary(history, model))
    record["lr_trace"] = trace
    record["attrs"] = {"wait": cb.wait, "cooldown_counter": cb.cooldown_counter,
                       "best": plain(cb.best)}
    return record


def reduce_lr_errors(env: Env) -> dict:
    return {"factor_one": error(lambda: env.keras.callbacks.ReduceLROnPlateau(factor=1.0))}


# ------------------------------------------------------------------ LearningRateScheduler
def lr_scheduler(env: Env) -> dict:
    tf = env.tf
    schedules = {
        "two_args": (lambda e, lr: lr * 0.5 if e > 1 else lr, 1),
        "one_arg": (lambda e: 0.1 / (e + 1), 1),
        "numpy_float32": (lambda e, lr: np.float32(0.3 - 0.1 * e), 1),
        "float_tensor": (lambda e, lr: tf.constant(0.05 * (e + 1)), 0),
    }
    out = {}
    for name, (schedule, verbose) in schedules.items():
        model = make_model(env)
        with captured(env) as record:
            history = fit(env, model,
                          [env.keras.callbacks.LearningRateScheduler(schedule, verbose)],
                          epochs=3, steps=1)
        record.update(summary(history, model))
        out[name] = record
    bad = {"int": lambda e, lr: 1, "int_tensor": lambda e, lr: tf.constant(1),
           "string": lambda e, lr: "0.1"}
    for name, schedule in bad.items():
        model = make_model(env)
        out["error_" + name] = error(lambda: fit(
            env, model, [env.keras.callbacks.LearningRateScheduler(schedule)], epochs=1,
            steps=1))
    return out


# ------------------------------------------------------------------ ModelCheckpoint
MODEL_CHECKPOINT = [
    ("weights_tf_format_templated", {"filepath": "w.{epoch:02d}-{val_loss:.2f}",
                                     "save_weights_only": True, "verbose": 1},
     [0.91, 0.456, 0.333]),
    ("weights_h5_best_only", {"filepath": "sub/best.h5", "save_weights_only": True,
                              "save_best_only": True, "verbose": 1},
     [1.0, 0.8, 0.9, 0.8, 0.5]),
    ("best_only_acc_auto_max_threshold", {"filepath": "acc-{epoch}.h5", "monitor": "val_acc",
                                          "save_weights_only": True, "save_best_only": True,
                                          "initial_value_threshold": 0.6, "verbose": 1},
     [0.5, 0.7, 0.65, 0.8]),
    ("full_model_h5", {"filepath": "model-{epoch}.h5", "verbose": 1}, [1.0, 0.9]),
    ("save_freq_batches", {"filepath": "b-{epoch}-{batch}.h5", "save_weights_only": True,
                           "save_freq": 2, "verbose": 1}, [1.0, 0.9, 0.8]),
    ("missing_monitor_best_only", {"filepath": "m.h5", "monitor": "val_mae",
                                   "save_weights_only": True, "save_best_only": True},
     [1.0, 0.9]),
    ("unknown_mode", {"filepath": "u{epoch}.h5", "mode": "bogus", "save_weights_only": True,
                      "save_best_only": True}, [1.0, 1.5, 0.5]),
    ("period_deprecated", {"filepath": "p{epoch}.h5", "period": 2, "save_weights_only": True,
                           "verbose": 1}, [1.0, 0.9, 0.8, 0.7, 0.6]),
    ("mode_min_on_acc", {"filepath": "a.h5", "monitor": "val_acc", "mode": "min",
                         "save_weights_only": True, "save_best_only": True, "verbose": 1},
     [0.5, 0.7, 0.4]),
]


def model_checkpoint(env: Env, name: str) -> dict:
    kwargs, table = next((dict(k), t) for n, k, t in MODEL_CHECKPOINT if n == name)
    kwargs["filepath"] = os.path.join(env.tmpdir, kwargs["filepath"])
    acc_key = "val_acc" if "acc" in kwargs.get("monitor", "") else "val_loss"
    model = make_model(env)
    with captured(env) as record:
        cb = env.keras.callbacks.ModelCheckpoint(**kwargs)
        fit(env, model, [cb], epochs=len(table), steps=3, val_logs=val(table, acc_key))
    record["files"] = files(env)
    record["best"] = plain(cb.best)
    return record


def model_checkpoint_errors(env: Env) -> dict:
    keras, d = env.keras, env.tmpdir
    model = make_model(env)
    return {
        "bad_save_freq": error(lambda: keras.callbacks.ModelCheckpoint(d, save_freq="batch")),
        "weights_options_type": error(lambda: keras.callbacks.ModelCheckpoint(
            d, save_weights_only=True, options="opts")),
        "model_options_type": error(lambda: keras.callbacks.ModelCheckpoint(
            os.path.join(d, "m.h5"), options="opts")),
        "keras_with_options": error(lambda: keras.callbacks.ModelCheckpoint(
            os.path.join(d, "m.keras"), options="opts")),
        "missing_key": error(lambda: fit(env, model, [keras.callbacks.ModelCheckpoint(
            os.path.join(d, "{nope}.h5"), save_weights_only=True)], epochs=1, steps=1), d),
    }


# ------------------------------------------------------------------ CSVLogger
def csv_logger(env: Env) -> dict:
    keras, d = env.keras, env.tmpdir
    out = {}

    def text(path: str) -> str:
        with open(path, "rb") as f:
            return f.read().decode()

    fit(env, make_model(env), [keras.callbacks.CSVLogger(os.path.join(d, "basic.csv"))],
        epochs=3, steps=1, val_logs=val([1.0, 0.5, 0.25]))
    out["basic"] = text(os.path.join(d, "basic.csv"))
    fit(env, make_model(env), [keras.callbacks.CSVLogger(os.path.join(d, "noval.csv"))],
        epochs=2, steps=1, batch_logs=lambda e, s: {"loss": 0.5, "acc": 0.25 * e})
    out["no_val_keys"] = text(os.path.join(d, "noval.csv"))
    fit(env, make_model(env),
        [keras.callbacks.CSVLogger(os.path.join(d, "semi.csv"), separator=";")], epochs=2,
        steps=1, val_logs=lambda e: {"val_loss": 0.5, "vec": np.array([1.5, 2.0 + e]),
                                     "word": "a;b", "val_late": 1.0} if e else
        {"val_loss": 0.75, "vec": np.array([0.5, 1.0]), "word": 'say "hi"'})
    out["separator_sequences_strings"] = text(os.path.join(d, "semi.csv"))
    path = os.path.join(d, "append.csv")
    for _ in range(2):
        fit(env, make_model(env), [keras.callbacks.CSVLogger(path, append=True)], epochs=2,
            steps=1, val_logs=val([0.5, 0.25]))
    out["append_twice"] = text(path)
    empty = os.path.join(d, "empty.csv")
    open(empty, "w").close()
    fit(env, make_model(env), [keras.callbacks.CSVLogger(empty, append=True)], epochs=1, steps=1)
    out["append_to_empty"] = text(empty)
    model = make_model(env)
    fit(env, model, [keras.callbacks.ReduceLROnPlateau(patience=0, factor=0.5),
                     keras.callbacks.CSVLogger(os.path.join(d, "lr.csv"))], epochs=3, steps=1,
        val_logs=val([1.0, 1.0, 1.0]))
    out["with_lr_column"] = text(os.path.join(d, "lr.csv"))
    return out


# ------------------------------------------------------------------ TerminateOnNaN
def terminate_on_nan(env: Env) -> dict:
    model = make_model(env)
    table = {(0, 0): 0.5, (0, 1): 0.4, (1, 0): 0.3, (1, 1): math.nan, (1, 2): 0.2}
    with captured(env) as record:
        history = fit(env, model, [env.keras.callbacks.TerminateOnNaN()], epochs=3, steps=3,
                      batch_logs=lambda e, s: {"loss": table.get((e, s), 0.1)})
    record.update(summary(history, model))
    return record


def terminate_on_inf(env: Env) -> dict:
    model = make_model(env)
    with captured(env) as record:
        history = fit(env, model, [env.keras.callbacks.TerminateOnNaN()], epochs=2, steps=2,
                      batch_logs=lambda e, s: {"loss": math.inf if s == 1 else 0.5})
    record.update(summary(history, model))
    return record


# ------------------------------------------------------------------ ProgbarLogger
def _acc(e: int, s: int) -> dict:
    return {"loss": 1.0 / (1 + e + s), "acc": 0.1 * (s + 1) + 0.2 * e}


PROGBAR = {
    "default_verbose1": dict(epochs=2, steps=3, verbose=1, batch_logs=_acc),
    "default_verbose2": dict(epochs=2, steps=3, verbose=2, batch_logs=_acc),
    "single_epoch_no_header": dict(epochs=1, steps=4, verbose=1, batch_logs=_acc, dt=0.2),
    "stateful_explicit": dict(epochs=2, steps=3, verbose=1, batch_logs=_acc,
                              extra=lambda k: [k.callbacks.ProgbarLogger(
                                  count_mode="steps", stateful_metrics=["loss", "acc"])]),
    "with_validation": dict(epochs=2, steps=2, verbose=1, batch_logs=_acc, validation_steps=2,
                            val_logs=lambda e: {"val_loss": 0.3 - 0.1 * e, "val_acc": 0.5}),
    "with_reduce_lr": dict(epochs=3, steps=2, verbose=1, batch_logs=_acc,
                           val_logs=val([1.0, 1.0, 1.0]),
                           extra=lambda k: [k.callbacks.ReduceLROnPlateau(patience=0)]),
    "unknown_steps": dict(epochs=2, steps=None, run_steps=3, verbose=1, batch_logs=_acc),
    "samples_mode": dict(epochs=2, steps=2, verbose=1,
                         batch_logs=lambda e, s: {"loss": 0.5, "size": 32},
                         extra=lambda k: [k.callbacks.ProgbarLogger()]),
    "verbose2_with_early_stopping": dict(
        epochs=4, steps=2, verbose=2, batch_logs=_acc, val_logs=val([1.0, 1.2, 1.3, 1.4]),
        extra=lambda k: [k.callbacks.EarlyStopping(patience=1, verbose=1)]),
}


def progbar_logger(env: Env, name: str) -> dict:
    spec = dict(PROGBAR[name])
    extra = spec.pop("extra", lambda k: [])
    model = make_model(env)
    env.clock[0] = 1000.0
    with captured(env) as record:
        history = fit(env, model, extra(env.keras), **spec)
    record["history"] = {k: plain(v) for k, v in history.history.items()}
    return record


def progbar_evaluate_predict(env: Env) -> dict:
    keras = env.keras
    model = make_model(env)
    env.clock[0] = 50.0
    with captured(env) as record:
        cbs = keras.callbacks.CallbackList(None, add_progbar=True, model=model, verbose=1,
                                           epochs=1, steps=3)
        cbs.on_test_begin()
        for step in range(3):
            env.clock[0] += 0.02
            cbs.on_test_batch_begin(step)
            cbs.on_test_batch_end(step, {"loss": env.tensor(0.5 + step)})
        cbs.on_test_end({"loss": 1.5})
        cbs.on_predict_begin()
        for step in range(3):
            env.clock[0] += 0.5
            cbs.on_predict_batch_begin(step)
            cbs.on_predict_batch_end(step, {"outputs": env.tensor([[1.0, 2.0]])})
        cbs.on_predict_end()
    return record


# ------------------------------------------------------------------ hook order and log types
def hook_order(env: Env) -> dict:
    keras, tf = env.keras, env.tf

    def kind(v: Any) -> str:
        return "tensor" if tf.is_tensor(v) else type(v).__name__

    def recorder(supports_tf_logs: bool) -> Any:
        calls: list = []

        def hook(name: str) -> Callable:
            def fn(*args: Any) -> None:
                logs = args[-1] if args else None
                calls.append([name] + [a for a in args[:-1]] +
                             [sorted((k, kind(v)) for k, v in (logs or {}).items())])
            return fn

        names = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
                 "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
                 "on_test_batch_begin", "on_test_batch_end"]
        cls = type("Recorder", (keras.callbacks.Callback,),
                   {n: (lambda n: lambda self, *a, **k: hook(n)(*(a + tuple(k.values()))))(n)
                    for n in names})
        cb = cls()
        cb._supports_tf_logs = supports_tf_logs
        cb.calls = calls
        return cb

    out = {}
    for supports in (False, True):
        cb = recorder(supports)
        fit(env, make_model(env), [cb], epochs=2, steps=2, validation_steps=1,
            val_logs=lambda e: {"val_loss": 0.5}, batch_logs=lambda e, s: {
                "loss": 0.5, "vec": np.array([1.0, 2.0], "float32"), "mae": 0.25})
        out["supports_tf_logs" if supports else "plain"] = cb.calls

    old_style: list = []

    class OldStyle(keras.callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            old_style.append(["begin", batch])

        def on_batch_end(self, batch, logs=None):
            old_style.append(["end", batch, sorted(logs)])

    fit(env, make_model(env), [OldStyle()], epochs=1, steps=2)
    out["on_batch_aliases"] = old_style
    return out


def history_params(env: Env) -> dict:
    model = make_model(env)
    history = fit(env, model, [], epochs=2, steps=3, val_logs=val([0.5, 0.25]))
    return {"params": dict(history.params), "epoch": list(history.epoch),
            "keys": sorted(history.history), "is_model_history": model.history is history}


# ------------------------------------------------------------------ BackupAndRestore
def backup_and_restore(env: Env, save_freq: Any) -> dict:
    keras = env.keras
    backup = os.path.join(env.tmpdir, "backup")
    ref_model = make_model(env)
    fit(env, ref_model, [], epochs=4, steps=3)
    model = make_model(env)
    interrupted = False
    try:
        fit(env, model, [keras.callbacks.BackupAndRestore(backup, save_freq=save_freq)],
            epochs=4, steps=3, interrupt=(2, 1))
    except KeyboardInterrupt:
        interrupted = True
    files_after_kill = files(env)
    resumed = make_model(env)
    epochs_seen: list = []
    steps_seen: list = []
    spy = keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda e, logs: epochs_seen.append(e),
        on_batch_begin=lambda b, logs: steps_seen.append(b))
    fit(env, resumed, [keras.callbacks.BackupAndRestore(backup, save_freq=save_freq), spy],
        epochs=4, steps=3)
    return {"interrupted": interrupted, "files_after_kill": files_after_kill,
            "files_at_end": files(env), "epochs_resumed": epochs_seen,
            "steps_resumed": steps_seen,
            "weights": [w.tolist() for w in resumed.get_weights()],
            "reference_weights": [w.tolist() for w in ref_model.get_weights()],
            "iterations": int(resumed.optimizer.iterations.numpy())}


def backup_keys(env: Env) -> dict:
    """The variable keys of a backup checkpoint (what a tf_keras backup holds)."""
    keras, tf = env.keras, env.tf
    backup = os.path.join(env.tmpdir, "keys")
    model = make_model(env)
    try:
        fit(env, model, [keras.callbacks.BackupAndRestore(backup)], epochs=2, steps=1,
            interrupt=(1, 0))
    except KeyboardInterrupt:
        pass
    path = tf.train.latest_checkpoint(os.path.join(backup, "chief"))
    return {"keys": sorted(k for k, _ in tf.train.list_variables(path)),
            "saved_epoch": int(tf.train.load_variable(
                path, "ckpt_saved_epoch/.ATTRIBUTES/VARIABLE_VALUE")),
            "saved_batch": int(tf.train.load_variable(
                path, "ckpt_saved_batch/.ATTRIBUTES/VARIABLE_VALUE"))}


def all_cases() -> Dict[str, Callable[[Env], Any]]:
    """Every scenario by name (each runs in its own empty `env.tmpdir`)."""
    cases: Dict[str, Callable[[Env], Any]] = {}
    for name, *_ in EARLY_STOPPING:
        cases[f"early_stopping/{name}"] = (lambda n: lambda env: early_stopping(env, n))(name)
    cases["early_stopping/reused"] = early_stopping_reused
    for name, *_ in REDUCE_LR:
        cases[f"reduce_lr/{name}"] = (lambda n: lambda env: reduce_lr(env, n))(name)
    cases["reduce_lr/errors"] = reduce_lr_errors
    cases["lr_scheduler"] = lr_scheduler
    for name, *_ in MODEL_CHECKPOINT:
        cases[f"model_checkpoint/{name}"] = (lambda n: lambda env: model_checkpoint(env, n))(name)
    cases["model_checkpoint/errors"] = model_checkpoint_errors
    cases["csv_logger"] = csv_logger
    cases["terminate_on_nan"] = terminate_on_nan
    cases["terminate_on_inf"] = terminate_on_inf
    for name in PROGBAR:
        cases[f"progbar_logger/{name}"] = (lambda n: lambda env: progbar_logger(env, n))(name)
    cases["progbar_logger/evaluate_predict"] = progbar_evaluate_predict
    cases["hook_order"] = hook_order
    cases["history_params"] = history_params
    cases["backup_and_restore/epoch"] = lambda env: backup_and_restore(env, "epoch")
    cases["backup_and_restore/every_2_batches"] = lambda env: backup_and_restore(env, 2)
    cases["backup_and_restore/keys"] = backup_keys
    return cases
