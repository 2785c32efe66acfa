"""The models behind the weights fixtures, written once for both Keras implementations.

Each builder takes a Keras module (`tf_keras` when the generator records, `tfcompat.keras`
in the tests) and returns a built model whose layers all have explicit names, so the `.h5`
group names and the checkpoint keys do not depend on a process's name counters.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple


def mlp(keras: Any) -> Any:
    """Sequential MLP: 4 -> 8 (relu) -> 3."""
    layers = keras.layers
    return keras.Sequential([keras.Input(shape=(4,)),
                             layers.Dense(8, activation="relu", name="mlp_d1"),
                             layers.Dense(3, name="mlp_d2")], name="mlp")


def branch(keras: Any) -> Any:
    """Functional model with a branch: one input, a two-layer head and a bias-free head."""
    layers = keras.layers
    inp = keras.Input(shape=(5,), name="br_in")
    hidden = layers.Dense(6, activation="tanh", name="br_h")(inp)
    head_a = layers.Dense(2, name="br_a")(hidden)
    head_b = layers.Dense(3, use_bias=False, name="br_b")(inp)
    return keras.Model(inp, [head_a, head_b], name="branch")


def cnn(keras: Any) -> Any:
    """Small CNN with BatchNorm (non-trainable moving statistics in the files)."""
    layers = keras.layers
    return keras.Sequential([keras.Input(shape=(6, 6, 2)),
                             layers.Conv2D(3, 3, name="cnn_c"),
                             layers.BatchNormalization(name="cnn_bn"),
                             layers.Flatten(name="cnn_f"),
                             layers.Dense(2, name="cnn_d")], name="cnn")


def subclassed(keras: Any) -> Any:
    """A subclassed model (checkpoint keys are its attribute names), built on (None, 3)."""
    layers = keras.layers

    class Sub(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="sub")
            self.d1 = layers.Dense(4, activation="relu", name="sub_d1")
            self.bn = layers.BatchNormalization(name="sub_bn")
            self.out = layers.Dense(2, name="sub_out")

        def call(self, x: Any, training: Any = None) -> Any:
            return self.out(self.bn(self.d1(x), training=training))

    model = Sub()
    model.build((None, 3))
    return model


def lstm(keras: Any) -> Any:
    """Sequential LSTM(4) over 5 steps of 3 features, then Dense(1)."""
    layers = keras.layers
    return keras.Sequential([keras.Input(shape=(5, 3)), layers.LSTM(4, name="lstm_l"),
                             layers.Dense(1, name="lstm_d")], name="lstm")


# name -> (builder, input shape without the batch dimension)
MODELS: Dict[str, Tuple[Callable[[Any], Any], tuple]] = {
    "mlp": (mlp, (4,)),
    "branch": (branch, (5,)),
    "cnn": (cnn, (6, 6, 2)),
    "subclassed": (subclassed, (3,)),
    "lstm": (lstm, (5, 3)),
}

# Models also saved whole with `model.save("<name>_model.h5")` (a Sequential and a functional
# one; the generator also saves the compiled MLP whole, as `mlp_opt_model.h5`).
WHOLE_MODELS = ("branch", "cnn")
