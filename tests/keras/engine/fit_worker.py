"""A `torchrun` worker for `test_fit_multi_worker.py`: `model.fit` under
MultiWorkerMirroredStrategy on the global data (every worker reads every global batch and
keeps its share), then writes its History, evaluation and weights to `$FIT_OUT.<rank>.json`."""

from __future__ import annotations

import json
import os

import numpy as np

import tfcompat as tf


def data():
    rs = np.random.RandomState(0)
    x = rs.normal(size=(96, 8)).astype("float32")
    return x, (x[:, 0] + x[:, 1] > 0).astype("int64")


def build():
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(2)])
    model.compile(tf.keras.optimizers.SGD(0.1),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def main() -> None:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    x, y = data()
    with strategy.scope():
        model = build()
    history = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0,
                        validation_split=0.25)
    result = {"history": history.history,
              "evaluate": model.evaluate(x, y, batch_size=32, verbose=0),
              "weights": [w.tolist() for w in model.get_weights()],
              "replicas": strategy.num_replicas_in_sync}
    rank = int(os.environ["RANK"])
    with open(f"{os.environ['FIT_OUT']}.{rank}.json", "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
