"""`tf.compat.v1.layers` against TensorFlow 2.21's record (`fixtures/v1_layers.json`).

The scenarios (`v1_layers_cases.py`) ran on real TF in a fresh TF 1 graph each (the
semantics tfcompat emulates eagerly) and in eager mode for the math; here they run on
tfcompat after `reset_default_graph()`.
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf
import tfcompat.compat.v1 as tf1
from tests.compat.v1 import v1_layers_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "v1_layers.json")) as f:
    FIXTURE = json.load(f)

EPS32 = float(np.finfo(np.float32).eps)


@pytest.fixture(autouse=True)
def _fresh_graph():
    """Each test starts from an empty emulated TF 1 graph (store, scopes, collections)."""
    tf1.reset_default_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the function forms' deprecation notes
        yield
    tf1.reset_default_graph()


def created_names(fn):
    names = []

    def creator(next_creator, **kwargs):
        v = next_creator(**kwargs)
        names.append(v.name)
        return v

    with tf.variable_creator_scope(creator):
        value = fn()
    return names, value


def inputs(shape, offset=2.0):
    return tf.constant(cases.pattern(shape, offset))


def assert_close(actual, expected, k):
    """Error model: each output is a length-`k` reduction of O(1) float32 terms."""
    expected = np.asarray(expected, np.float32)
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=4 * k * EPS32 * scale)


# --------------------------------------------------------------------------- namespace
def test_namespace_has_tf_names():
    from tfcompat.compat.v1 import legacy_layers
    assert sorted(legacy_layers.V1_NAMES["layers"]) == [
        n for n in FIXTURE["names"] if n != "experimental"]
    assert tf1.layers.dense is legacy_layers.dense
    assert tf1.layers.Conv2D is legacy_layers.Conv2D
    assert issubclass(tf1.layers.Dense, tf.keras.layers.Dense)
    assert issubclass(tf1.layers.Dense, tf1.layers.Layer)


# --------------------------------------------------------------------------- naming, sharing
@pytest.mark.parametrize("case", sorted(cases.GRAPH_CASES))
def test_graph_semantics(case):
    want = FIXTURE["graph"][case]
    x, img = tf.ones([2, 4]), tf.ones([2, 5, 5, 3])
    fn = cases.GRAPH_CASES[case]
    if "error" in want:
        with pytest.raises(ValueError) as info:
            created_names(lambda: fn(tf, tf1, x, img))
        assert str(info.value).split("\n")[0] == want["error"][1]
    else:
        names, extra = created_names(lambda: fn(tf, tf1, x, img))
        assert names == want["created"]
        if "extra" in want:
            assert extra == want["extra"]
    assert [v.name for v in tf1.global_variables()] == want["global"]
    assert [v.name for v in tf1.trainable_variables()] == want["trainable"]
    assert len(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)) == want["update_ops"]
    assert (len(tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES))
            == want["regularization_losses"])


@settings()
@given(st.lists(st.sampled_from(["dense", "conv1d", "batch_normalization"]),
                min_size=1, max_size=6), st.integers(1, 3))
def test_default_names_count_per_kind_and_reuse_creates_once(kinds, calls):
    """Law: in a scope, the k-th unnamed layer of a kind is `<kind>_k` (`<kind>` first);
    re-entering the scope with AUTO_REUSE any number of times creates nothing more."""
    tf1.reset_default_graph()
    x = tf.ones([2, 4, 3])
    make = {"dense": lambda: tf1.layers.dense(x, 2),
            "conv1d": lambda: tf1.layers.conv1d(x, 2, 1, use_bias=False),
            "batch_normalization": lambda: tf1.layers.batch_normalization(x, center=False,
                                                                          scale=False)}
    suffix = {"dense": ["kernel", "bias"], "conv1d": ["kernel"],
              "batch_normalization": ["moving_mean", "moving_variance"]}

    def body():
        with tf1.variable_scope("s", reuse=tf1.AUTO_REUSE):
            for kind in kinds:
                make[kind]()

    names, _ = created_names(body)
    for _ in range(calls - 1):
        again, _ = created_names(body)
        assert again == []
    seen: dict = {}
    expected = []
    for kind in kinds:
        k = seen.get(kind, 0)
        seen[kind] = k + 1
        scope = kind if k == 0 else f"{kind}_{k}"
        expected += [f"s/{scope}/{v}:0" for v in suffix[kind]]
    assert names == expected


def test_variables_are_ordinary_and_shared_objects():
    x = tf.ones([2, 4])
    a = tf1.layers.Dense(3, name="d", _reuse=tf1.AUTO_REUSE)
    b = tf1.layers.Dense(3, name="d", _reuse=tf1.AUTO_REUSE)
    a(x), b(x)
    assert isinstance(a.kernel, tf.Variable)
    assert a.kernel is b.kernel and a.bias is b.bias
    assert a.trainable_weights == [a.kernel, a.bias]


def test_scope_initializer_applies_when_no_kernel_initializer():
    cases.scope_initializer(tf, tf1, tf.ones([2, 4]), None)
    kernel, bias = tf1.global_variables()
    np.testing.assert_array_equal(kernel.numpy(), cases.pattern([4, 3], 3.0))
    np.testing.assert_array_equal(bias.numpy(), np.zeros(3, np.float32))  # bias: zeros


def test_class_layer_names():
    x = tf.ones([2, 4])
    layer = tf1.layers.Dense(3)
    with pytest.raises(ValueError, match="has not been used yet"):
        layer.scope_name
    layer(x)
    assert layer.scope_name == "dense"
    # tf_keras's legacy layers name themselves from 1 (`dense_1`), the scope from 0
    assert layer.name.startswith("dense_") and layer.name != "dense"
    second = tf1.layers.Dense(3)
    second(x, scope="custom")  # `scope=` names the scope on the first call
    assert second.scope_name == "custom"
    assert [v.name for v in second.variables] == ["custom/kernel:0", "custom/bias:0"]
    names, _ = created_names(lambda: layer(x))
    assert names == []  # built: reuse=True from then on


def test_layer_name_may_be_a_variable_scope():
    with tf1.variable_scope("outer") as scope:
        pass
    layer = tf1.layers.Dense(2, name=scope)
    layer(tf.ones([1, 3]))
    # as TF: the scope's name is the base of a new default-named scope; the layer's
    # own name is the class's
    assert layer.scope_name == "outer_1"
    assert layer.kernel.name == "outer_1/kernel:0"
    assert layer.name.startswith("dense_")


def test_dtype_is_inferred_from_inputs():
    y = tf1.layers.dense(tf.ones([2, 3], tf.float64), 2)
    assert y.dtype == tf.float64
    assert tf1.global_variables()[0].dtype == tf.float64


# --------------------------------------------------------------------------- math
@pytest.mark.parametrize("case", sorted(cases.MATH_CASES))
def test_math(case):
    shape, k, fn = cases.MATH_CASES[case]
    want = FIXTURE["math"][case]
    y = fn(tf, tf1, inputs(shape))
    assert list(y.shape) == want["output_shape"]
    assert_close(y.numpy(), want["output"], k)


@pytest.mark.parametrize("case", sorted(cases.BN_CASES))
def test_batch_norm_train_then_infer(case):
    shape, k = cases.BN_CASES[case]
    want = FIXTURE["math"][case]
    layer = cases.bn_layer(tf, tf1)
    y_train = layer(inputs(shape), training=True)
    assert_close(y_train.numpy(), want["train"], k)
    state = {v.name.split("/")[-1].split(":")[0]: v.numpy() for v in layer.variables}
    assert sorted(state) == sorted(want["state"])
    for name, value in want["state"].items():
        assert_close(state[name], value, k)
    assert_close(layer(inputs(shape)).numpy(), want["infer"], k)  # training defaults False
    assert [v.name.split("/")[-1] for v in layer.variables] == [
        n.split("/")[-1] for n in want["names"]]


def test_batch_norm_update_ops_once_per_variable():
    x = inputs([6, 3])
    for _ in range(3):  # a training step calling the model function again
        with tf1.variable_scope("m", reuse=tf1.AUTO_REUSE):
            tf1.layers.batch_normalization(x, training=True)
    updates = tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)
    assert [v.name for v in updates] == ["m/batch_normalization/moving_mean:0",
                                         "m/batch_normalization/moving_variance:0"]
    # the updates already ran: three steps of momentum 0.99 from zero
    mean = cases.pattern([6, 3], 2.0).mean(axis=0)
    np.testing.assert_allclose(updates[0].numpy(), mean * (1 - 0.99 ** 3), rtol=1e-5)
    with tf.control_dependencies(updates):  # the TF 1 idiom keeps working
        pass


def test_batch_norm_v1_rules():
    x = inputs([4, 3])
    frozen = tf1.layers.BatchNormalization(trainable=False)
    frozen(x, training=True)  # v1: trainable=False does not mean inference
    assert not np.allclose(frozen.moving_mean.numpy(), 0.0)
    assert tf1.get_collection(tf1.GraphKeys.UPDATE_OPS) == []
    fused = tf1.layers.BatchNormalization(fused=True)
    fused(x, training=True)  # v1: `fused=True` on 2-D inputs falls back instead of raising
    idle = tf1.layers.BatchNormalization()
    idle(x)
    np.testing.assert_array_equal(idle.moving_mean.numpy(), np.zeros(3, np.float32))


def test_dropout_training_default_false():
    x = tf.ones([50, 40])
    np.testing.assert_array_equal(tf1.layers.dropout(x, 0.5).numpy(), x.numpy())
    np.testing.assert_array_equal(tf1.layers.Dropout(0.5)(x).numpy(), x.numpy())
    y = tf1.layers.dropout(x, 0.5, training=True, seed=1).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.35 < float((y == 0).mean()) < 0.65


def test_dropout_function_ignores_learning_phase():
    x = tf.ones([20, 10])
    with tf.keras.backend.learning_phase_scope(1):  # `training=False` is passed explicitly
        np.testing.assert_array_equal(tf1.layers.dropout(x, 0.5).numpy(), x.numpy())


def test_custom_legacy_layer():
    class MyLayer(tf1.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", [input_shape[-1], 2],
                                     initializer=cases.pattern_init(tf))

        def call(self, inputs):
            return tf.matmul(inputs, self.w)

    with tf1.variable_scope("top"):
        layer = MyLayer()
        y = layer.apply(inputs([3, 4]))
    assert layer.w.name == "top/my_layer/w:0"
    assert [v.name for v in tf1.global_variables()] == ["top/my_layer/w:0"]
    assert_close(y.numpy(), cases.pattern([3, 4], 2.0) @ cases.pattern([4, 2]), 4)


def test_regularizer_losses():
    layer = cases.regularized_dense(tf, tf1)
    layer(inputs([2, 4]))
    got = [float(v) for v in layer.losses]
    np.testing.assert_allclose(got, FIXTURE["math"]["regularizer_losses"], rtol=1e-6)
    collected = tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)
    np.testing.assert_allclose([float(v) for v in collected], got, rtol=1e-6)
    np.testing.assert_allclose(float(tf1.losses.get_regularization_loss()), sum(got), rtol=1e-6)
    layer.kernel.assign(tf.zeros([4, 3]))  # the collection follows the variable
    assert float(tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)[0]) == 0.0
    assert float(layer.losses[0]) == 0.0


def test_reused_variable_adds_no_second_regularization_loss():
    x = tf.ones([2, 4])
    for _ in range(2):
        tf1.layers.dense(x, 3, name="r", reuse=tf1.AUTO_REUSE,
                         kernel_regularizer=tf.keras.regularizers.l2(0.1))
    assert len(tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)) == 1


# --------------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(ValueError, match="Argument `strides` must not be None."):
        tf1.layers.MaxPooling2D(2, None)
    with pytest.raises(TypeError, match="Unknown keyword argument"):
        layer = tf1.layers.Layer()
        layer.add_weight("w", [2], bogus=1)
    tf1.layers.dense(tf.ones([2, 4]), 3, name="d")
    before = [v.name for v in tf1.global_variables()]
    with pytest.raises(ValueError, match="already exists, disallowed"):
        tf1.layers.dense(tf.ones([2, 4]), 3, name="d")
    assert [v.name for v in tf1.global_variables()] == before  # a failed call changes nothing


def test_function_forms_warn_as_tf():
    x = tf.ones([2, 4])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tf1.layers.dense(x, 3)
        tf1.layers.batch_normalization(x)
        tf1.layers.max_pooling2d(tf.ones([1, 2, 2, 1]), 2, 2)
    messages = sorted({str(w.message) for w in caught if issubclass(w.category, UserWarning)})
    assert messages == FIXTURE["eager"]["warnings"]
    assert all(w.filename == __file__ for w in caught)  # reported at the caller's line


# --------------------------------------------------------------------------- TF 2 eager notes
def test_documented_difference_from_tf2_eager():
    """TF 2 eager has no default store: `AUTO_REUSE` twice creates four variables there
    (and `layer.updates`/`UPDATE_OPS` stay empty); tfcompat keeps TF 1's graph rules."""
    assert len(FIXTURE["eager"]["auto_reuse_created"]) == 4
    assert FIXTURE["eager"]["bn_update_ops"] == 0
    names, _ = created_names(lambda: cases.named_auto_reuse(tf, tf1, tf.ones([2, 4]), None))
    assert names == FIXTURE["graph"]["named_auto_reuse"]["created"]


def test_track_tf1_style_variables_creates_once():
    shim = getattr(getattr(tf1.keras, "utils", None), "track_tf1_style_variables", None)
    if shim is None or not callable(shim) or type(shim).__name__ == "NotBuilt":
        pytest.skip("tf.compat.v1.keras.utils.track_tf1_style_variables is not built yet")
    want = FIXTURE["eager"]["shim"]
    net = cases.ShimNet.build(tf, tf1)
    x = tf.constant(cases.pattern([2, 3]))
    first, y = created_names(lambda: net(x))
    second, _ = created_names(lambda: net(x))
    assert first == want["first"] and second == want["second"]
    assert sorted(v.name for v in net.variables) == want["variables"]
    assert_close(y.numpy(), want["output"], 4)
    assert tf1.global_variables() == []  # the shim's variables are not collected, as TF 2


# --------------------------------------------------------------------------- acceptance
def test_tf1_model_trains_eagerly_and_saver_restores_by_tf1_names(tmp_path):
    """A TF 1 program, only the import changed: a model function under
    `variable_scope("model", reuse=AUTO_REUSE)`, trained with GradientTape, saved and
    restored by TF 1 names."""
    rng = np.random.RandomState(0)
    features = rng.randn(32, 4).astype(np.float32)
    targets = (features @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3)
    x, y = tf.constant(features), tf.constant(targets)
    tf.random.set_seed(1)

    def loss_fn():
        pred = cases.model_fn(tf, tf1, x)
        return tf.reduce_mean(tf.square(pred - y))

    loss_fn()  # first call creates
    variables = tf1.trainable_variables()
    assert [v.name for v in variables] == ["model/dense/kernel:0", "model/dense/bias:0",
                                           "model/dense_1/kernel:0", "model/dense_1/bias:0"]
    opt = tf.keras.optimizers.SGD(0.05)
    losses = []
    for _ in range(60):
        with tf.GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, variables)
        assert all(g is not None for g in grads)
        opt.apply_gradients(zip(grads, variables))
        losses.append(float(loss))
    assert len(tf1.global_variables()) == 4  # every step reused the variables
    assert losses[-1] < 0.5 * losses[0]

    saver = tf1.train.Saver(tf1.global_variables())
    path = saver.save(None, str(tmp_path / "model.ckpt"))
    keys = dict(tf.train.list_variables(path))
    assert keys == {"model/dense/kernel": [4, 5], "model/dense/bias": [5],
                    "model/dense_1/kernel": [5, 1], "model/dense_1/bias": [1]}
    trained = {v.name: v.numpy() for v in tf1.global_variables()}
    trained_loss = float(loss_fn())

    tf1.reset_default_graph()  # a new program: build the model again, then restore
    fresh_loss = float(loss_fn())
    assert fresh_loss != trained_loss
    tf1.train.Saver(tf1.global_variables()).restore(None, path)
    for v in tf1.global_variables():
        np.testing.assert_array_equal(v.numpy(), trained[v.name])
    assert float(loss_fn()) == trained_loss


def test_tf1_model_with_tf1_adam_saves_slots_by_tf1_names(tmp_path):
    """The same port with a TF 1 optimizer: the checkpoint holds TF 1's slot names."""
    adam = getattr(tf1.train, "AdamOptimizer", None)
    if adam is None or type(adam).__name__ == "NotBuilt":
        pytest.skip("tf.compat.v1.train.AdamOptimizer is not built yet")
    x = tf.constant(np.random.RandomState(0).randn(8, 4).astype(np.float32))
    y = tf.ones([8, 1])

    def loss_fn():
        return tf.reduce_mean(tf.square(cases.model_fn(tf, tf1, x) - y))

    loss_fn()
    opt = adam(0.01)
    for _ in range(3):
        opt.minimize(loss_fn, var_list=tf1.trainable_variables())
    assert len(tf1.trainable_variables()) == 4  # (the slots are global, as in TF 1)
    path = tf1.train.Saver(tf1.global_variables()).save(
        None, str(tmp_path / "adam.ckpt"))
    keys = set(dict(tf.train.list_variables(path)))
    layers = ["model/dense/kernel", "model/dense/bias", "model/dense_1/kernel",
              "model/dense_1/bias"]
    assert keys == ({"beta1_power", "beta2_power"} | set(layers)
                    | {f"{n}/Adam" for n in layers} | {f"{n}/Adam_1" for n in layers})
