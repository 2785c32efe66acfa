"""The whole-step benchmark models, written once for tfcompat and for TensorFlow.

Only numpy is imported here: `steps.py` passes `tfcompat` as `tf`, the TF
worker (`_tf_worker.py`) passes the real `tensorflow`, and both run the very
same model code from the very same initial values and data (numpy, seeded),
so their losses can be compared step by step. The plain-torch baselines
live in `steps.py`; they start from the same arrays.

Models (sizes for the full run; `--quick` shrinks them):

* `mlp`: 784-512-512-10, ReLU, softmax cross-entropy on integer labels,
  batch 256, Adam(1e-3);
* `many`: 2000 variables of 100 floats, loss `sum_i sum(v_i * x_i)`, so a
  step is dominated by per-variable overhead, Adam(1e-3);
* `embedding`: a 50,000 x 64 table read with `tf.gather` for a batch of
  1024 ids (with repeats), a dense 64 -> 10 head, softmax cross-entropy,
  Adagrad(0.1): the table's gradient is `IndexedSlices`, so the update is
  sparse. Adagrad, not Adam: Keras' sparse Adam decays `m` and `v` of every
  row (not lazy) while torch's `SparseAdam` touches only the rows in the
  batch, so the two would compute different things; Keras' Adagrad and
  torch's sparse Adagrad update exactly the rows present, with the same
  formula (`initial_accumulator_value=0.1`, `epsilon=1e-7` on both sides).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

SIZES: Dict[str, Dict[str, dict]] = {
    "full": {
        "mlp": dict(sizes=(784, 512, 512, 10), batch=256),
        "many": dict(count=2000, size=100),
        "embedding": dict(vocab=50_000, dim=64, classes=10, batch=1024),
    },
    "quick": {
        "mlp": dict(sizes=(32, 16, 16, 10), batch=8),
        "many": dict(count=20, size=10),
        "embedding": dict(vocab=200, dim=8, classes=10, batch=32),
    },
}

#: Optimizer per model: (Keras class name, constructor kwargs). The torch
#: baselines in `steps.py` use the same hyperparameters.
OPTIMIZERS: Dict[str, tuple] = {
    "mlp": ("Adam", dict(learning_rate=1e-3)),
    "many": ("Adam", dict(learning_rate=1e-3)),
    "embedding": ("Adagrad", dict(learning_rate=0.1, initial_accumulator_value=0.1, epsilon=1e-7)),
}


def _glorot(rs: np.random.RandomState, fan_in: int, fan_out: int) -> np.ndarray:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rs.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)


def init(model: str, size: str = "full", seed: int = 0) -> Dict[str, Any]:
    """Initial values and data of `model` (float32 numpy arrays, int64 labels/ids)."""
    spec = SIZES[size][model]
    rs = np.random.RandomState(seed)
    if model == "mlp":
        sizes = spec["sizes"]
        layers = [(_glorot(rs, a, b), np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]
        x = rs.uniform(0.0, 1.0, (spec["batch"], sizes[0])).astype(np.float32)
        labels = rs.randint(0, sizes[-1], spec["batch"]).astype(np.int64)
        return dict(layers=layers, x=x, labels=labels)
    if model == "many":
        values = [rs.normal(0, 1, spec["size"]).astype(np.float32) for _ in range(spec["count"])]
        xs = [rs.normal(0, 1, spec["size"]).astype(np.float32) for _ in range(spec["count"])]
        return dict(values=values, xs=xs)
    if model == "embedding":
        table = rs.normal(0, 0.1, (spec["vocab"], spec["dim"])).astype(np.float32)
        w = _glorot(rs, spec["dim"], spec["classes"])
        b = np.zeros(spec["classes"], np.float32)
        # Zipf-like ids: frequent rows repeat within a batch, as in real vocabularies.
        ids = (rs.zipf(1.3, spec["batch"]) % spec["vocab"]).astype(np.int64)
        labels = rs.randint(0, spec["classes"], spec["batch"]).astype(np.int64)
        return dict(table=table, w=w, b=b, ids=ids, labels=labels)
    raise KeyError(model)


def tf_step(tf: Any, make_optimizer: Callable[[str, dict], Any], model: str,
            data: Dict[str, Any]) -> Callable[[], Any]:
    """A training step of `model` in TF's API (`tf` is tfcompat or tensorflow).

    The step reads the variables under `tf.GradientTape`, takes
    `tape.gradient` and calls `apply_gradients`; it returns the loss (a
    tensor, not read back, so the step makes no host sync of its own).
    """
    name, kwargs = OPTIMIZERS[model]
    opt = make_optimizer(name, kwargs)
    if model == "mlp":
        params: List[Any] = []
        for w, b in data["layers"]:
            params += [tf.Variable(w), tf.Variable(b)]
        x, labels = tf.constant(data["x"]), tf.constant(data["labels"])

        def loss_fn():
            h = x
            for i in range(0, len(params) - 2, 2):
                h = tf.nn.relu(tf.matmul(h, params[i]) + params[i + 1])
            logits = tf.matmul(h, params[-2]) + params[-1]
            return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    elif model == "many":
        params = [tf.Variable(v) for v in data["values"]]
        xs = [tf.constant(x) for x in data["xs"]]

        def loss_fn():
            return tf.add_n([tf.reduce_sum(v * x) for v, x in zip(params, xs)])
    elif model == "embedding":
        params = [tf.Variable(data["table"]), tf.Variable(data["w"]), tf.Variable(data["b"])]
        ids, labels = tf.constant(data["ids"]), tf.constant(data["labels"])

        def loss_fn():
            table, w, b = params
            logits = tf.matmul(tf.gather(table, ids), w) + b
            return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    else:
        raise KeyError(model)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, params)
        opt.apply_gradients(zip(grads, params))
        return loss

    return step
