"""TensorFlow side of the benchmarks: a worker process driven over a pipe.

The benchmark scripts start this file under `--tf-python PATH` (a Python
with tensorflow and tf_keras; tfcompat's own environment never needs them,
and TF is never imported into the tfcompat process). It reads one JSON
request per line on stdin and answers one JSON line on stdout:

* `{"op": "setup", "suite": ..., "case": {...}}` builds the case's function
  (an optimizer step, a variable operation, a training step), warms it up
  and answers `{"ok": true, "info": {...}}` (`info` holds the first losses
  of a training step);
* `{"op": "run", "number": n}` times `n` calls of the current function and
  answers `{"seconds": s}` (measured here, so the pipe's latency is not in
  the figure);
* `{"op": "quit"}` ends the worker.

The driver (`_tf.py`) alternates these runs with its own, so TF and
tfcompat are measured in the same minutes. An error answers
`{"error": traceback}`. Suite "selftest" needs only numpy (the smoke test
drives the protocol without TF). `TFCOMPAT_BENCH_THREADS=n` gives TF n
intra-op and n inter-op threads (the driver's `--threads`).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _tf():
    import tensorflow as tf
    threads = int(os.environ.get("TFCOMPAT_BENCH_THREADS", "0"))
    if threads and not getattr(_tf, "configured", False):
        # Same thread counts as the driver gives torch (set before TF runs its first op).
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    _tf.configured = True
    return tf


def _legacy_optimizer(name: str, kwargs: dict):
    import tf_keras
    return getattr(tf_keras.optimizers.legacy, name)(**kwargs)


def setup_optimizers(case: dict):
    """One `apply_gradients` of tf_keras' legacy optimizer over `count` variables of `size`."""
    import numpy as np
    tf = _tf()
    rng = np.random.RandomState(0)
    count, size = case["count"], case["size"]
    variables = [tf.Variable(rng.randn(size).astype(np.float32)) for _ in range(count)]
    grads = [tf.constant(rng.randn(size).astype(np.float32)) for _ in range(count)]
    pairs = list(zip(grads, variables))
    opt = _legacy_optimizer(case["optimizer"], case["kwargs"])
    return (lambda: opt.apply_gradients(pairs)), {}


def setup_variables(case: dict):
    """One variable operation in TF eager (the rows of `variables.py`)."""
    import numpy as np
    tf = _tf()
    shape = tuple(case["shape"])
    v = tf.Variable(tf.random.normal(shape))
    x = tf.random.normal(shape)
    idx = tf.constant(np.random.RandomState(0).randint(0, shape[0], 16))
    ops = {
        "assign_add": lambda: v.assign_add(x),
        "read_value": v.read_value,
        "v + x": lambda: v + x,
        "sparse_read": lambda: v.sparse_read(idx),
        "v[1:5]": lambda: v[1:5],
        "reduce_sum(v)": lambda: tf.reduce_sum(v),
        "v * 2.0": lambda: v * 2.0,
    }
    return ops[case["op"]], {}


def setup_steps(case: dict):
    """A whole training step of `_models.py`'s model, with tf_keras' legacy optimizer."""
    import _models
    tf = _tf()
    data = _models.init(case["model"], case["size"])
    step = _models.tf_step(tf, _legacy_optimizer, case["model"], data)
    losses = [float(step()) for _ in range(case.get("check_steps", 3))]
    return step, {"losses": losses}


def _keras_step(case: dict, keras, train_step):
    """`_keras_models.py`'s model on `keras`; its forward, or a step made by `train_step`."""
    import _keras_models
    batch = _keras_models.data(case["model"], case["size"])
    model = _keras_models.build(keras, case["model"], case["size"])
    if case["kind"] == "forward":
        x = batch["x"]
        return (lambda: model(x, training=False)), {}
    step = train_step(keras, model, batch)
    losses = [float(step()) for _ in range(case.get("check_steps", 3))]
    return step, {"losses": losses}


def setup_keras(case: dict):
    """tf_keras 2.21 (`TF_USE_LEGACY_KERAS=1`): a Keras custom-loop step under GradientTape."""
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    tf = _tf()

    def train_step(keras, model, batch):
        x, labels = tf.constant(batch["x"]), tf.constant(batch["labels"])
        opt = keras.optimizers.legacy.Adam(1e-3)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn(labels, model(x, training=True))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                    model.trainable_variables))
            return loss
        return step

    return _keras_step(case, tf.keras, train_step)


def setup_keras3(case: dict):
    """Keras 3 on its torch backend: the custom loop of Keras' "training loop in torch" guide."""
    os.environ["KERAS_BACKEND"] = "torch"
    # (this script's folder is sys.path[0] and holds benchmarks/keras.py: not that `keras`)
    here = os.path.dirname(os.path.abspath(__file__))
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    sys.modules.pop("keras", None)
    try:
        import keras
    finally:
        sys.path[:] = saved
    import torch

    def train_step(keras, model, batch):
        x, labels = torch.from_numpy(batch["x"]), torch.from_numpy(batch["labels"])
        opt = keras.optimizers.Adam(1e-3)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step():
            loss = loss_fn(labels, model(x, training=True))
            model.zero_grad()
            loss.backward()
            weights = model.trainable_weights
            with torch.no_grad():
                opt.apply([w.value.grad for w in weights], weights)
            return loss.detach()
        return step

    threads = int(os.environ.get("TFCOMPAT_BENCH_THREADS", "0"))
    if threads:
        torch.set_num_threads(threads)
    return _keras_step(case, keras, train_step)


def _keras_fit(case: dict, keras, to_tensor):
    """`_keras_models.py`'s model compiled for `fit`; a function running one epoch of `fit` on
    the preloaded epoch (`to_tensor`: the library's own tensors), and the first epoch's loss."""
    import _keras_models
    data = _keras_models.fit_data(case["model"], case["size"])
    model = _keras_models.build(keras, case["model"], case["size"])
    _keras_models.compile_for_fit(keras, model, case.get("jit_compile", False))
    epoch = _keras_models.fit_epoch(
        model, to_tensor(data["x"]), to_tensor(data["labels"]),
        _keras_models.SIZES[case["size"]][case["model"]]["batch"], case.get("verbose", 0))
    loss, accuracy = epoch()
    return epoch, {"loss": loss, "accuracy": accuracy}


def setup_keras_fit(case: dict):
    """tf_keras 2.21: one epoch of `Model.fit` (its default `tf.function` train step)."""
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    tf = _tf()
    return _keras_fit(case, tf.keras, tf.constant)


def _keras3():
    """Keras 3 on its torch backend (`--threads` applied to torch)."""
    os.environ["KERAS_BACKEND"] = "torch"
    # (this script's folder is sys.path[0] and holds benchmarks/keras.py: not that `keras`)
    here = os.path.dirname(os.path.abspath(__file__))
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    if "keras" in sys.modules and not hasattr(sys.modules["keras"], "Model"):
        sys.modules.pop("keras")
    try:
        import keras
    finally:
        sys.path[:] = saved
    import torch
    threads = int(os.environ.get("TFCOMPAT_BENCH_THREADS", "0"))
    if threads:
        torch.set_num_threads(threads)
    return keras, torch


def setup_keras3_fit(case: dict):
    """Keras 3 on torch: one epoch of `Model.fit` (its default: no `jit_compile` on torch)."""
    keras, torch = _keras3()
    # (as the driver's torch columns; TF's CPU kernels flush subnormals themselves)
    torch.set_flush_denormal(bool(case.get("flush_denormal", False)))
    return _keras_fit(case, keras, torch.from_numpy)


def setup_selftest(case: dict):
    import numpy as np
    a = np.arange(case.get("n", 100), dtype=np.float64)
    return (lambda: a.sum()), {"pid": os.getpid()}


SUITES = {"optimizers": setup_optimizers, "variables": setup_variables, "steps": setup_steps,
          "keras": setup_keras, "keras3": setup_keras3, "keras_fit": setup_keras_fit,
          "keras3_fit": setup_keras3_fit, "selftest": setup_selftest}


def serve(requests, answer) -> None:
    fn = None
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request["op"]
            if op == "quit":
                answer({"ok": True})
                return
            if op == "setup":
                fn = None  # (free the previous case first)
                fn, info = SUITES[request["suite"]](request["case"])
                for _ in range(request.get("warmup", 3)):
                    fn()
                answer({"ok": True, "info": info})
            elif op == "run":
                if fn is None:
                    answer({"error": "no case is set up (did the last setup fail?)"})
                    continue
                number = int(request["number"])
                start = time.perf_counter()
                for _ in range(number):
                    fn()
                answer({"seconds": time.perf_counter() - start})
            else:
                answer({"error": f"unknown op {op!r}"})
        except Exception:
            answer({"error": traceback.format_exc()})


def main() -> None:
    # Answers go to the original stdout; anything TF (or its C++ logging) prints
    # to stdout is sent to stderr, so it cannot corrupt the protocol.
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def answer(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    serve(sys.stdin, answer)


if __name__ == "__main__":
    main()
