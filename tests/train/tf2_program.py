"""One TF2 training program, written once and run by both TensorFlow and tfcompat.

`gen_checkpoints.py` runs it with real TensorFlow (`tf` = `tensorflow`) to write the
object-based fixture and record TF's continued training; `test_tf_compat.py` runs the same
functions with `tf` = `tfcompat`. Only the module passed in differs: this is the
"change the import line" test, made literal. Nothing here imports TF or torch.

The model is the TF guide's `tf.Module` MLP: two dense-like layers kept in a list, so the
checkpoint keys are `model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE` and so on, and the legacy
Keras Adam's slots hang off each variable (`.../.OPTIMIZER_SLOT/optimizer/m/...`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

LEARNING_RATE = 0.05
STEPS_BEFORE_SAVE = 5
STEPS_AFTER_RESTORE = 5


def data() -> tuple[np.ndarray, np.ndarray]:
    """The fixed training batch (float32), the same for TF and tfcompat."""
    rng = np.random.RandomState(8)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = np.stack([np.sin(x[:, 0]) + x[:, 1], x[:, 2] * x[:, 0]], axis=1).astype(np.float32)
    return x, y


def build(tf: Any, seed: int = 0) -> tuple[Any, Any, Any]:
    """The model, the optimizer and the step counter, as a TF2 program builds them.

    `seed` only picks the initial weights; a restore overwrites them."""
    rng = np.random.RandomState(seed)

    class Dense(tf.Module):
        def __init__(self, in_features: int, out_features: int, activation=None, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(rng.normal(scale=0.5, size=(in_features, out_features)).astype(np.float32),
                                 name="w")
            self.b = tf.Variable(np.zeros(out_features, np.float32), name="b")
            self.activation = activation

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return self.activation(y) if self.activation is not None else y

    class MLP(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.layers = [Dense(3, 8, activation=tf.nn.relu), Dense(8, 2)]

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    model = MLP()
    # tf_keras 2.21 keeps OptimizerV2 under .legacy (what tfcompat's tf.keras.optimizers are)
    optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=LEARNING_RATE)
    step = tf.Variable(0, dtype=tf.int64, name="step")
    return model, optimizer, step


def variables(model: Any) -> list[Any]:
    """The trainable variables in a fixed order: layer by layer, kernel then bias."""
    return [v for layer in model.layers for v in (layer.w, layer.b)]


def train_step(tf: Any, model: Any, optimizer: Any, step: Any, x: np.ndarray, y: np.ndarray) -> Any:
    """One step of mean-squared-error training; returns the loss (before the update)."""
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(tf.constant(x)) - tf.constant(y)))
    params = variables(model)
    grads = tape.gradient(loss, params)
    optimizer.apply_gradients(zip(grads, params))
    step.assign_add(1)
    return loss


def variable_paths() -> list[str]:
    """Checkpoint keys of `variables(model)`, in the same order."""
    return [f"model/layers/{i}/{n}/.ATTRIBUTES/VARIABLE_VALUE" for i in range(2) for n in ("w", "b")]
