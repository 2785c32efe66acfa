"""`fit` / `evaluate` / `predict` under `tf.distribute.MirroredStrategy` and
`CentralStorageStrategy` (two logical CPUs):
each global batch is split across the replicas, the SUM_OVER_BATCH_SIZE loss is scaled by the
replicas, the summed gradients update the mirrored weights, and the metrics aggregate across
replicas -- so the History, the evaluation and the final weights equal one device on the
global batch (to float32 rounding: the replicas sum their halves of a batch separately).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf
from tests.keras.layers.mirrored_check import strategy  # noqa: F401 (a fixture)

K = tf.keras


def _data(seed=0, n=64):
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, 8)).astype("float32")
    return x, (x[:, 0] + x[:, 1] > 0).astype("int64") + (x[:, 2] > 1).astype("int64")


def _build(kind):
    if kind == "sequential":
        return K.Sequential([K.Input((8,)), K.layers.Dense(16, activation="relu"),
                             K.layers.Dense(3)])
    inputs = K.Input((8,))
    h = K.layers.Dense(16, activation="relu",
                       kernel_regularizer=K.regularizers.L2(1e-3))(inputs)
    return K.Model(inputs, K.layers.Dense(3)(h))


def _compile(model, optimizer):
    model.compile(optimizer, K.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", K.metrics.SparseCategoricalCrossentropy(from_logits=True)])


@pytest.mark.parametrize("central", [False, True], ids=["mirrored", "central_storage"])
@pytest.mark.parametrize("kind", ["sequential", "functional"])
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_mirrored_fit_equals_one_device_on_the_global_batch(strategy, kind, optimizer,  # noqa: F811
                                                            central):
    if central:
        strategy = tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
    x, y = _data()
    single = _build(kind)
    init = single.get_weights()
    _compile(single, K.optimizers.get(optimizer))
    want = single.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                      validation_split=0.25)
    with strategy.scope():
        mirrored = _build(kind)
        mirrored.set_weights(init)
        _compile(mirrored, K.optimizers.get(optimizer))
    assert mirrored.distribute_strategy is strategy
    got = mirrored.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                       validation_split=0.25)
    assert list(got.history) == list(want.history)
    for key in want.history:
        np.testing.assert_allclose(got.history[key], want.history[key], rtol=2e-5, atol=1e-6,
                                   err_msg=key)
    for a, b in zip(mirrored.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-6)
    np.testing.assert_allclose(mirrored.evaluate(x, y, batch_size=16, verbose=0),
                               single.evaluate(x, y, batch_size=16, verbose=0), rtol=2e-5)
    np.testing.assert_allclose(mirrored.predict(x, batch_size=16, verbose=0),
                               single.predict(x, batch_size=16, verbose=0), rtol=1e-5, atol=1e-6)


def test_mirrored_custom_train_step(strategy):  # noqa: F811
    """The guide's custom `train_step` (compiled loss, minimize, compiled metrics) under the
    strategy equals one device."""
    class CustomModel(K.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    def build():
        inputs = K.Input((8,))
        return CustomModel(inputs, K.layers.Dense(3)(K.layers.Dense(8)(inputs)))

    x, y = _data(seed=1)
    single = build()
    init = single.get_weights()
    _compile(single, K.optimizers.SGD(0.1))
    want = single.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    with strategy.scope():
        mirrored = build()
        mirrored.set_weights(init)
        _compile(mirrored, K.optimizers.SGD(0.1))
    got = mirrored.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    for key in want.history:
        np.testing.assert_allclose(got.history[key], want.history[key], rtol=2e-5, atol=1e-6)
