"""The Keras benchmark models, written once against a `keras` module.

Only numpy is imported here. `keras.py` passes `tfcompat.keras` (and times the step under
`tfcompat.GradientTape`); the TF worker passes tf_keras (`tf.keras` with
`TF_USE_LEGACY_KERAS=1`); the Keras 3 worker passes `keras` on its torch backend. All
build the same layers from the same NumPy weights and data (seeded), so the first losses
can be compared:

* `mlp`: Input(784) -> Dense(512, relu) -> Dense(512, relu) -> Dense(10), batch 256;
* `cnn`: Input(32, 32, 3) -> [Conv2D(32, 3, same) -> BatchNormalization -> ReLU ->
  MaxPooling2D] -> [the same with 64 filters] -> Flatten -> Dense(10), batch 128;
* `lstm`: Input(64, 128) -> LSTM(256) -> Dense(10), batch 64.

A step is softmax cross-entropy on integer labels (from logits) and Adam(1e-3).
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

SIZES: Dict[str, Dict[str, dict]] = {
    "full": {
        "mlp": dict(batch=256, features=784, hidden=512),
        "cnn": dict(batch=128, image=32),
        "lstm": dict(batch=64, steps=64, features=128, units=256),
    },
    "quick": {
        "mlp": dict(batch=8, features=32, hidden=16),
        "cnn": dict(batch=4, image=8),
        "lstm": dict(batch=4, steps=5, features=8, units=8),
    },
}
CLASSES = 10


def data(model: str, size: str = "full", seed: int = 0) -> Dict[str, np.ndarray]:
    """Inputs (float32) and integer labels of `model`'s batch."""
    spec = SIZES[size][model]
    rs = np.random.RandomState(seed)
    if model == "mlp":
        x = rs.uniform(0, 1, (spec["batch"], spec["features"]))
    elif model == "cnn":
        x = rs.uniform(0, 1, (spec["batch"], spec["image"], spec["image"], 3))
    elif model == "lstm":
        x = rs.normal(0, 1, (spec["batch"], spec["steps"], spec["features"]))
    else:
        raise KeyError(model)
    labels = rs.randint(0, CLASSES, spec["batch"]).astype(np.int64)
    return dict(x=x.astype(np.float32), labels=labels)


def build(keras: Any, model: str, size: str = "full") -> Any:
    """`model` as a functional Keras model; its weights set from a seeded generator."""
    spec = SIZES[size][model]
    layers = keras.layers
    if model == "mlp":
        inputs = keras.Input((spec["features"],))
        h = layers.Dense(spec["hidden"], activation="relu")(inputs)
        h = layers.Dense(spec["hidden"], activation="relu")(h)
        outputs = layers.Dense(CLASSES)(h)
    elif model == "cnn":
        inputs = keras.Input((spec["image"], spec["image"], 3))
        h = inputs
        for filters in (32, 64):
            h = layers.Conv2D(filters, 3, padding="same")(h)
            h = layers.BatchNormalization()(h)
            h = layers.ReLU()(h)
            h = layers.MaxPooling2D()(h)
        outputs = layers.Dense(CLASSES)(layers.Flatten()(h))
    elif model == "lstm":
        inputs = keras.Input((spec["steps"], spec["features"]))
        outputs = layers.Dense(CLASSES)(layers.LSTM(spec["units"])(inputs))
    else:
        raise KeyError(model)
    net = keras.Model(inputs, outputs)
    rs = np.random.RandomState(1)
    weights = []
    for w in net.get_weights():
        if w.ndim >= 2:
            fan = int(np.prod(w.shape[:-1]))
            weights.append(rs.uniform(-1, 1, w.shape).astype(np.float32) / np.sqrt(fan))
        else:
            weights.append(w)  # biases 0, BatchNorm's gamma 1, beta 0, moving stats (0, 1)
    net.set_weights(weights)
    return net


# -- one epoch of `Model.fit` (benchmarks/keras_fit.py) ------------------------------------------

# Batches per fit epoch: the MLP's 60 x 256 = 15360 samples; the CNN's 16 x 128 (about a second
# of training on the 2-core development VM).
FIT_BATCHES: Dict[str, Dict[str, int]] = {"full": {"mlp": 60, "cnn": 16},
                                          "quick": {"mlp": 4, "cnn": 3}}


def fit_data(model: str, size: str = "full", seed: int = 0) -> Dict[str, np.ndarray]:
    """An epoch's inputs and labels for `model`: `FIT_BATCHES` batches of its batch size,
    drawn as `data` draws one batch (same seed: every process gets the same arrays)."""
    spec = dict(SIZES[size][model])
    spec["batch"] *= FIT_BATCHES[size][model]
    rs = np.random.RandomState(seed)
    shape = ((spec["batch"], spec["features"]) if model == "mlp"
             else (spec["batch"], spec["image"], spec["image"], 3))
    x = rs.uniform(0, 1, shape).astype(np.float32)
    labels = rs.randint(0, CLASSES, spec["batch"]).astype(np.int64)
    return dict(x=x, labels=labels)


def compile_for_fit(keras: Any, net: Any, jit_compile: bool = False) -> None:
    """`compile` as a user writes it: Adam(1e-3), sparse cross-entropy from logits, accuracy
    (with `jit_compile=True`: XLA in tf_keras, torch.compile in tfcompat and Keras 3)."""
    extra = {"jit_compile": True} if jit_compile else {}
    net.compile(optimizer=keras.optimizers.Adam(1e-3),
                loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"], **extra)


def fit_epoch(net: Any, x: Any, labels: Any, batch_size: int, verbose: int = 0) -> Any:
    """A function running one epoch of `net.fit` on `(x, labels)` in order (no shuffling) and
    returning the epoch's `(loss, accuracy)`. With `verbose=1` the progress bar is drawn to
    the null device (drawn in full: the bar writes whatever the stream)."""
    import contextlib
    import os

    def epoch() -> tuple:
        with contextlib.ExitStack() as stack:
            if verbose:
                sink = stack.enter_context(open(os.devnull, "w"))
                stack.enter_context(contextlib.redirect_stdout(sink))
            history = net.fit(x, labels, batch_size=batch_size, epochs=1, verbose=verbose,
                              shuffle=False)
        return history.history["loss"][0], history.history["accuracy"][0]

    return epoch
