"""tf.compat.v1.keras.utils.track_tf1_style_variables and get_or_create_layer: the TF
migrate guide's (model_mapping) patterns with only the import changed, against TF's facts
(`v1_varscope_golden.json`)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import tfcompat as tf
import v1_varscope_scenarios as scenarios
from test_v1_variable_scope import normalized

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "v1_varscope_golden.json")) as _f:
    GOLDEN = json.load(_f)


@pytest.mark.parametrize("name", ["shim_dense_layer", "shim_module", "shim_not_module",
                                  "nested_shims_keep_separate_stores"])
def test_shim_scenario_matches_tensorflow(name, tmp_path):
    got = scenarios.run(scenarios.EAGER[name], tf, tf1, tf.keras, str(tmp_path))
    assert normalized(got) == normalized(GOLDEN["eager"][name])


class DenseLayer(tf.keras.layers.Layer):
    """The guide's shimmed layer (model_mapping, verbatim but for the import)."""

    def __init__(self, units, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.units = units

    @tf.compat.v1.keras.utils.track_tf1_style_variables
    def call(self, inputs):
        out = inputs
        with tf.compat.v1.variable_scope("dense"):
            # The weights are created with a `regularizer`,
            # so the layer should track their regularization losses
            kernel = tf.compat.v1.get_variable(
                shape=[out.shape[-1], self.units],
                regularizer=tf.keras.regularizers.L2(),
                initializer=tf.compat.v1.initializers.glorot_normal,
                name="kernel")
            bias = tf.compat.v1.get_variable(
                shape=[self.units,],
                initializer=tf.compat.v1.initializers.zeros,
                name="bias")
            out = tf.linalg.matmul(out, kernel)
            out = tf.compat.v1.nn.bias_add(out, bias)
        return out


def test_dense_layer_creates_once_and_reports_losses():
    layer = DenseLayer(10)
    x = tf.random.normal(shape=(8, 20))
    first = layer(x)
    kernel = layer.trainable_weights[1]
    np.testing.assert_allclose(layer(x).numpy(), first.numpy())
    assert len(layer.weights) == 2 and layer.trainable_weights[1] is kernel
    (loss,) = layer.losses
    np.testing.assert_allclose(float(loss), 0.01 * float(tf.reduce_sum(kernel ** 2)), rtol=1e-5)
    kernel.assign(tf.zeros_like(kernel))
    assert float(layer.losses[0]) == 0.0  # (recomputed from the current value)


def test_model_mapping_guide_cells():
    layer = DenseLayer(10)
    x = tf.random.normal(shape=(8, 20))
    layer(x)
    assert [v.name for v in layer.trainable_variables] == ["dense/bias:0", "dense/kernel:0"]
    assert len(layer.losses) == 1
    for var in layer.trainable_variables:
        var.assign(var * 0.0)
    out = layer(x)
    assert [float(x) for x in layer.losses] == [0.0]
    np.testing.assert_array_equal(out.numpy(), np.zeros([8, 10]))
    inputs = tf.keras.Input(shape=(20))
    outputs = DenseLayer(10)(inputs)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    x = tf.random.normal(shape=(8, 20))
    model(x)
    assert [w.name for w in model.weights] == ["dense/bias:0", "dense/kernel:0"]
    assert len(model.losses) == 1


def test_training_through_shimmed_layer_with_keras_optimizer():
    layer = DenseLayer(3)
    x = tf.random.normal(shape=(16, 4), seed=1)
    y = tf.random.normal(shape=(16, 3), seed=2)
    layer(x)
    opt = tf.keras.optimizers.Adam(0.05)
    losses = []
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((layer(x) - y) ** 2) + tf.add_n(layer.losses)
        grads = tape.gradient(loss, layer.trainable_variables)
        assert all(g is not None for g in grads)
        opt.apply_gradients(zip(grads, layer.trainable_variables))
        losses.append(float(tf.stop_gradient(loss)))
    assert losses[-1] < losses[0]
    assert len(layer.trainable_variables) == 2  # (nothing created by later calls)


def test_keras_model_fit_through_shimmed_layer():
    inputs = tf.keras.Input(shape=(4,))
    model = tf.keras.Model(inputs, DenseLayer(2)(inputs))
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.RandomState(0).randn(32, 4).astype("float32")
    y = np.random.RandomState(1).randn(32, 2).astype("float32")
    history = model.fit(x, y, epochs=2, verbose=0)
    assert len(model.trainable_weights) == 2 and len(history.history["loss"]) == 2


class DenseModule(tf.Module):
    def __init__(self, units, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.units = units

    @tf.compat.v1.keras.utils.track_tf1_style_variables
    def __call__(self, inputs):
        with tf.compat.v1.variable_scope("dense"):
            kernel = tf.compat.v1.get_variable(
                shape=[inputs.shape[-1], self.units], regularizer=lambda v: tf.reduce_sum(v),
                initializer=tf.keras.initializers.Ones(), name="kernel")
            return tf.linalg.matmul(inputs, kernel)


def test_module_variables_and_checkpoint_round_trip(tmp_path):
    module = DenseModule(2)
    module(tf.ones([1, 3]))
    (kernel,) = module.trainable_variables
    assert kernel.name == "dense/kernel:0"
    path = tf.train.Checkpoint(m=module).save(str(tmp_path / "m"))
    kernel.assign(tf.zeros([3, 2]))
    tf.train.Checkpoint(m=module).restore(path)
    np.testing.assert_array_equal(kernel.numpy(), np.ones([3, 2]))
    other = DenseModule(2)  # (restored when its variables are created)
    tf.train.Checkpoint(m=other).restore(path)
    other(tf.ones([1, 3]))
    np.testing.assert_array_equal(other.trainable_variables[0].numpy(), np.ones([3, 2]))


def test_shim_variables_stay_out_of_collections_and_allow_reuse_true():
    tf1.reset_default_graph()

    class Reuser(tf.Module):
        @tf1.keras.utils.track_tf1_style_variables
        def __call__(self):
            with tf1.variable_scope("r"):
                w = tf1.get_variable("w", [1])
            with tf1.variable_scope("r", reuse=True):
                assert tf1.get_variable("w") is w
                with pytest.raises(ValueError, match="does not exist"):
                    tf1.get_variable("missing")
            return w

    r = Reuser()
    assert r() is r()
    assert tf1.trainable_variables() == []
    # outside the shim, the default store's graph-mode rules apply again
    with tf1.variable_scope("r"):
        tf1.get_variable("w", [1])
        with pytest.raises(ValueError, match="already exists"):
            tf1.get_variable("w", [1])
    tf1.reset_default_graph()


class NestedModel(tf.keras.Model):
    """The guide's get_or_create_layer example."""

    def __init__(self, units, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.units = units

    def build_model(self):
        inp = tf.keras.Input(shape=(5, 5))
        dense_layer = tf.keras.layers.Dense(10, name="dense", kernel_regularizer="l2",
                                            kernel_initializer="ones")
        return tf.keras.Model(inputs=inp, outputs=dense_layer(inp))

    @tf.compat.v1.keras.utils.track_tf1_style_variables
    def call(self, inputs):
        with tf.compat.v1.variable_scope("dense"):
            model = tf.compat.v1.keras.utils.get_or_create_layer("dense_model", self.build_model)
            return model(inputs)


def test_get_or_create_layer_builds_once():
    model = NestedModel(10)
    x = tf.ones([2, 5, 5])
    model(x)
    model(x)
    assert len(model.trainable_weights) == 2
    store = model._tf1_style_var_store
    assert list(store._layers) == ["dense/dense_model"]
    assert len(model.losses) >= 1
    with pytest.raises(ValueError, match="track_tf1_style_variables"):
        tf1.keras.utils.get_or_create_layer("x", lambda: None)


def test_shimmed_layer_trains_under_mirrored_strategy():
    from tfcompat.framework import device as device_lib
    device_lib._reset_runtime()
    tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    try:
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            layer = DenseLayer(3)
            layer(tf.ones([2, 4]))
            opt = tf.keras.optimizers.SGD(0.01)
        assert [type(v).__name__ for v in layer.trainable_weights] == ["MirroredVariable"] * 2

        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(layer(x) ** 2)
            grads = tape.gradient(loss, layer.trainable_variables)
            opt.apply_gradients(zip(grads, layer.trainable_variables))
            return loss

        first = strategy.run(step, args=(tf.ones([2, 4]),))
        second = strategy.run(step, args=(tf.ones([2, 4]),))
        assert len(layer.trainable_weights) == 2  # (replica threads reused the variables)
        assert float(tf.stop_gradient(second.values[0])) < float(tf.stop_gradient(first.values[0]))
    finally:
        device_lib._reset_runtime()
        tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))


def test_deterministic_random_test_tool_modes():
    tool_cls = tf.compat.v1.keras.utils.DeterministicRandomTestTool

    def draws(mode):
        tool = tool_cls(mode=mode)
        with tool.scope():
            a = tf.random.normal([4]).numpy()
            b = tf.random.uniform([4]).numpy()
            c = tf.random.normal([4]).numpy()
        return tool, a, b, c

    tool, a, b, c = draws("num_random_ops")
    assert tool.operation_seed == 3 and not np.array_equal(a, c)
    _, a2, b2, c2 = draws("num_random_ops")  # (the same program draws the same numbers)
    np.testing.assert_array_equal(np.stack([a, b, c]), np.stack([a2, b2, c2]))
    tool, a, _, c = draws("constant")
    assert tool.operation_seed == 0
    np.testing.assert_array_equal(a, c)  # (TF: every op repeats the same seeded draw)
    with pytest.raises(ValueError, match="Mode arg must be"):
        tool_cls(mode="other")
    reuse = tool_cls(mode="num_random_ops")
    with reuse.scope():
        tf.random.normal([1])
        reuse.operation_seed = 0
        with pytest.raises(ValueError, match="re-use the already-used operation seed 0"):
            tf.random.normal([1])


TF1_CKPT = os.path.join(HERE, "v1_varscope_ckpt", "model")  # (written by TF 1 graph code)


def test_tf1_saver_checkpoint_restores_into_shimmed_layer_by_name(tmp_path):
    layer = DenseLayer(2)
    layer(tf.ones([1, 3]))
    saver = tf1.train.Saver(layer.trainable_weights)
    saver.restore(None, TF1_CKPT)
    kernel = {v.name: v for v in layer.trainable_weights}["dense/kernel:0"]
    np.testing.assert_array_equal(kernel.numpy(), np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
    # (a 3-term dot product plus bias in float32: a few ulps)
    np.testing.assert_allclose(layer(tf.ones([1, 3])).numpy(), [[1.6, 2.9]], rtol=4e-7)
    path = saver.save(None, str(tmp_path / "again"))  # (and TF 1's names are written back)
    assert sorted(n for n, _ in tf.train.list_variables(path)) == ["dense/bias", "dense/kernel"]


def test_tf1_saver_checkpoint_restores_into_default_store():
    tf1.reset_default_graph()
    with tf1.variable_scope("dense"):
        kernel = tf1.get_variable("kernel", [3, 2])
        bias = tf1.get_variable("bias", [2])
    tf1.train.Saver(tf1.global_variables()).restore(None, TF1_CKPT)
    np.testing.assert_array_equal(bias.numpy(), [1.0, 2.0])
    assert float(kernel.numpy()[2, 1]) == np.float32(0.5)
    tf1.reset_default_graph()
