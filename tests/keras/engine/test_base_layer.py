"""The Layer base: tf_keras 2.21's contract (names, build, weights order, losses, training
and mask propagation, autocast, input specs, configs, the creator stack, checkpoints).

Expected names and orders are what tf_keras 2.21 gives for the same code (checked in
TF's eager mode, e.g. `['w0:0', 'l/w1:0']` for a weight made in `__init__` and one in
`build`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.engine.base_layer import Layer
from tfcompat.keras.engine.input_spec import InputSpec
from tfcompat.keras.engine.keras_tensor import KerasTensor


@pytest.fixture(autouse=True)
def _fresh_names():
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


class Linear(Layer):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
        self.bias = self.add_weight("bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel) + self.bias


class Counter(Layer):
    """Assigns a weight in call (as BatchNormalization's moving statistics do)."""

    def build(self, input_shape):
        self.count = self.add_weight("count", shape=(), initializer="zeros", trainable=False)

    def call(self, inputs):
        self.count.assign_add(1.0)
        return inputs


def test_weight_made_in_init_and_in_build_are_named_as_tf_keras():
    class L(Layer):
        def __init__(self):
            super().__init__()
            self.w0 = self.add_weight("w0", shape=(2,))

        def build(self, input_shape):
            self.w1 = self.add_weight("w1", shape=(2,))

    layer = L()
    layer(torch.ones(1, 2))
    assert [v.name for v in layer.weights] == ["w0:0", "l/w1:0"]
    assert layer.name == "l"


def test_auto_names_count_per_class_and_clear_session_restarts():
    assert [Linear().name for _ in range(3)] == ["linear", "linear_1", "linear_2"]
    assert Linear(name="custom").name == "custom"
    tf.keras.backend.clear_session()
    assert Linear().name == "linear"


def test_build_runs_once_with_a_tensor_shape():
    shapes = []

    class Probe(Layer):
        def build(self, input_shape):
            shapes.append(input_shape)

    probe = Probe()
    probe(torch.ones(3, 4))
    probe(torch.ones(5, 4))
    assert len(shapes) == 1 and isinstance(shapes[0], tf.TensorShape)
    assert shapes[0].as_list() == [3, 4] and probe.built


def test_nested_weights_order_names_and_freezing():
    class Block(Layer):
        def __init__(self):
            super().__init__()
            self.first = Linear(3)
            self.rest = [Linear(2), Linear(2)]
            self.count = tf.Variable(0.0, trainable=False)

        def call(self, x):
            return self.rest[1](self.rest[0](self.first(x)))

    block = Block()
    block(torch.ones(1, 4))
    assert [v.name for v in block.trainable_weights] == [
        "block/linear/kernel:0", "block/linear/bias:0", "block/linear_1/kernel:0",
        "block/linear_1/bias:0", "block/linear_2/kernel:0", "block/linear_2/bias:0"]
    assert block.non_trainable_weights == [block.count]
    assert block.weights == block.trainable_weights + block.non_trainable_weights
    block.trainable = False
    assert block.trainable_weights == [] and len(block.non_trainable_weights) == 7
    assert not block.first.trainable and not block.rest[1].trainable
    block.rest[0].trainable = True
    assert block.trainable_weights == []  # a frozen parent freezes its children's weights


def test_reassigning_an_attribute_untracks_the_old_layer():
    class Holder(Layer):
        def __init__(self):
            super().__init__()
            self.inner = Linear(2)

    holder = Holder()
    old = holder.inner
    holder.inner = Linear(3)
    assert old not in list(holder._flatten_layers(include_self=False))
    holder.alias = holder.inner
    del holder.alias
    assert holder.inner in list(holder._flatten_layers(include_self=False))


def test_init_kwargs_are_validated_as_tf_keras():
    with pytest.raises(TypeError) as info:
        Linear(foo=1)
    assert info.value.args == ("Keyword argument not understood:", "foo")
    with pytest.raises(TypeError, match="Expected `trainable` argument to be a boolean"):
        Linear(trainable="yes")
    with pytest.raises(TypeError, match="Expected `name` argument to be a string"):
        Linear(name=3)
    layer = Linear(input_shape=(4,))
    assert layer._batch_input_shape == (None, 4)
    assert Linear(input_dim=5, batch_size=8)._batch_input_shape == (8, 5)


def test_add_weight_rules():
    layer = Layer()
    with pytest.raises(TypeError):
        layer.add_weight("w", shape=(2,), bogus=1)
    with pytest.raises(ValueError, match="ON_READ only for non-trainable"):
        layer.add_weight("w", shape=(2,), trainable=True,
                         synchronization=tf.VariableSynchronization.ON_READ)
    on_read = layer.add_weight("r", shape=(2,),
                               synchronization=tf.VariableSynchronization.ON_READ)
    assert not on_read.trainable
    ints = layer.add_weight("i", shape=(3,), dtype="int32")
    assert ints.dtype == tf.int32 and np.array_equal(ints.numpy(), [0, 0, 0])
    floats = layer.add_weight("f", shape=(4, 5))  # glorot_uniform by default
    limit = np.sqrt(6 / 9)
    assert np.all(np.abs(floats.numpy()) <= limit) and np.std(floats.numpy()) > 0


def test_losses_regularizers_and_per_call_add_loss():
    class Reg(Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(2,), initializer="ones",
                                     regularizer=tf.keras.regularizers.L2(0.5))

        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x * self.w

    layer = Reg()
    layer(torch.ones(1, 2))
    values = [float(v) for v in layer.losses]
    assert values == [2.0, 1.0]  # the call's loss, then the regularizer (0.5 * sum(w^2))
    layer(torch.full((1, 2), 3.0))
    assert [float(v) for v in layer.losses] == [6.0, 1.0]  # per call: replaced, not summed
    layer.add_loss(lambda: tf.constant(7.0))
    assert [float(v) for v in layer.losses] == [6.0, 1.0, 7.0]


def test_activity_regularizer_divides_by_the_batch_size():
    layer = Layer(activity_regularizer=tf.keras.regularizers.L1(1.0))
    layer(torch.ones(4, 3))
    assert [float(v) for v in layer.losses] == [3.0]


def test_training_propagates_to_nested_layers():
    seen = []

    class Inner(Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(Layer):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, x, training=None):
            return self.inner(x)

    class NoTraining(Layer):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, x):
            return self.inner(x)

    Outer()(torch.ones(1))
    Outer()(torch.ones(1), training=True)
    Outer()(torch.ones(1), True)
    NoTraining()(torch.ones(1), training=False)
    with tf.keras.backend.learning_phase_scope(1):
        Outer()(torch.ones(1))
    Inner()(torch.ones(1))
    assert seen == [None, True, True, False, True, None]


def test_masks_flow_through_layers_that_support_them():
    class MakeMask(Layer):
        def compute_mask(self, inputs, mask=None):
            return inputs != 0

    class Passes(Layer):
        def __init__(self):
            super().__init__()
            self.supports_masking = True

    class Reads(Layer):
        def call(self, inputs, mask=None):
            return mask

    x = torch.tensor([[1.0, 0.0, 2.0]])
    masked = MakeMask()(x)
    assert torch.equal(masked._keras_mask, torch.tensor([[True, False, True]]))
    passed = Passes()(masked)
    assert torch.equal(passed._keras_mask, masked._keras_mask)
    assert torch.equal(Reads()(passed), masked._keras_mask)
    explicit = torch.tensor([[True, True, False]])
    assert torch.equal(Reads()(passed, mask=explicit), explicit)
    with pytest.raises(TypeError, match="does not support masking"):
        Layer().compute_mask(x, explicit)


def test_floating_inputs_are_cast_to_the_compute_dtype():
    layer = Linear(2)
    y = layer(np.ones((1, 3)))  # NumPy float64 -> tensor -> float32
    assert y.dtype == torch.float32 and layer.kernel.dtype == tf.float32
    assert Layer()(torch.ones(2, dtype=torch.int64)).dtype == torch.int64
    assert Linear(2, dtype="float64")(torch.ones(1, 3)).dtype == torch.float64
    assert Layer(autocast=False)(torch.ones(2, dtype=torch.float64)).dtype == torch.float64


def test_input_spec_errors_are_tf_keras_and_leave_the_layer_unbuilt():
    layer = Linear(2)
    layer.input_spec = InputSpec(ndim=2)
    with pytest.raises(ValueError) as info:
        layer(torch.ones(3))
    assert str(info.value) == ('Input 0 of layer "linear" is incompatible with the layer: '
                               "expected ndim=2, found ndim=1. Full shape received: (3,)")
    assert not layer.built and layer.weights == []
    layer.input_spec = InputSpec(axes={-1: 4})
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 4"):
        layer(torch.ones(2, 3))
    with pytest.raises(TypeError, match="must be an instance of InputSpec"):
        layer.input_spec = "ndim=2"


def test_set_weights_is_all_or_nothing():
    layer = Linear(2)
    layer(torch.ones(1, 3))
    before = layer.get_weights()
    with pytest.raises(ValueError, match="weight shape \\(2,\\) is not compatible"):
        layer.set_weights([np.ones((3, 2)), np.ones((3,))])
    for w, b in zip(layer.get_weights(), before):
        assert np.array_equal(w, b)
    with pytest.raises(ValueError, match="was expecting 2 weights"):
        layer.set_weights([np.ones((3, 2))])
    layer.set_weights([np.full((3, 2), 2.0), np.ones(2)])
    assert np.array_equal(layer.kernel.numpy(), np.full((3, 2), 2.0, np.float32))
    held = layer.get_weights()
    held[0][...] = 9.0  # get_weights hands out copies
    assert np.array_equal(layer.kernel.numpy(), np.full((3, 2), 2.0, np.float32))


def test_count_params_needs_a_built_layer():
    layer = Linear(2)
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()
    layer(torch.ones(1, 3))
    assert layer.count_params() == 8


def test_get_config_automatic_and_from_config():
    layer = Linear(4, name="lin", dtype="float64")
    config = layer.get_config()
    assert config == {"name": "lin", "trainable": True, "dtype": "float64", "units": 4}
    clone = Linear.from_config(config)
    assert clone.units == 4 and clone.name == "lin" and clone.dtype == "float64"

    class Complex(Layer):
        def __init__(self, fn, **kwargs):
            super().__init__(**kwargs)
            self.fn = fn

    with pytest.raises(NotImplementedError, match="must override `get_config\\(\\)`"):
        Complex(lambda x: x).get_config()


def test_weights_go_through_the_variable_creator_stack():
    made = []

    def creator(next_creator, **kwargs):
        made.append(kwargs["name"])
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        Linear(2)(torch.ones(1, 3))
    assert made == ["kernel", "bias"]


def test_weights_under_mirrored_strategy_are_mirrored():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        layer = Linear(2)
        layer(torch.ones(1, 3))
        counter = Counter()
        counter(torch.ones(1))
    assert type(layer.kernel).__name__ == "MirroredVariable"


def test_symbolic_call_infers_shapes_and_changes_nothing():
    counter = Counter()
    x = KerasTensor([None, 5])
    y = counter(Linear(3)(x))
    assert y.shape.as_list() == [None, 3] and y.dtype == tf.float32
    assert float(counter.count.numpy()) == 0.0  # the tracing runs were undone
    history = y._keras_history
    assert history.layer is counter and history.node_index == 0
    node = counter._inbound_nodes[0]
    assert node.parent_nodes[0].layer.name == "linear"
    z = (y * 2.0 + 1.0)[:, :2]
    assert z.shape.as_list() == [None, 2]
    joined = torch.cat([y, y], dim=1)
    assert joined.shape.as_list() == [None, 6]
    assert Linear(7).compute_output_shape((None, 4)).as_list() == [None, 7]


def test_symbolic_unknown_time_dimension():
    class Pool(Layer):
        def call(self, x):
            return x[:, ::2]

    y = Pool()(KerasTensor([None, None, 4]))
    assert y.shape.as_list() == [None, None, 4]
    fixed = Pool()(KerasTensor([None, 10, 4]))
    assert fixed.shape.as_list() == [None, 5, 4]


def test_layer_checkpoint_keys_are_attribute_names():
    class Block(Layer):
        def __init__(self):
            super().__init__()
            self.dense = Linear(2)
            self.blocks = [Linear(2)]

        def call(self, x):
            return self.blocks[0](self.dense(x))

    block = Block()
    block(torch.ones(1, 3))
    keys = {k for k, _ in tf.train.list_variables(
        tf.train.Checkpoint(model=block).write(str(pytest.tmp_dir / "ckpt")))}
    assert {"model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
            "model/blocks/0/bias/.ATTRIBUTES/VARIABLE_VALUE"} <= keys
    assert not any("_trainable_weights" in k or "_self_tracked" in k for k in keys)


@pytest.fixture(autouse=True)
def _tmp(tmp_path):
    pytest.tmp_dir = tmp_path
    yield


def test_calling_without_super_init_is_an_error():
    class Broken(Layer):
        def __init__(self):
            pass

    with pytest.raises(RuntimeError, match="super\\(\\).__init__\\(\\)"):
        Broken()(torch.ones(1))


# -- `losses` / `metrics` skip the layer walk only while no layer holds any ----------------
# Law: a model's `losses` and `metrics` are the same whether or not the walk is skipped:
# every way a loss or a metric reaches a layer (add_loss of a tensor, of a callable, inside
# a call, a regularizer, tf_keras-style direct appends and `+=` to the private lists, a metric
# attribute) makes the next read see it.

def _nested_model():
    inner = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model = tf.keras.Sequential([tf.keras.Input((3,)), inner, tf.keras.layers.Dense(1)])
    return model, inner.layers[0]


_LOSS_ARRIVALS = {
    "add_loss tensor": lambda layer: layer.add_loss(tf.constant(2.0)),
    "add_loss callable": lambda layer: layer.add_loss(lambda: tf.constant(2.0)),
    "append": lambda layer: layer._losses.append(tf.constant(2.0)),
    "iadd": lambda layer: layer.__dict__["_losses"].__iadd__([tf.constant(2.0)]),
    "callable append": lambda layer: layer._callable_losses.append(lambda: tf.constant(2.0)),
}


@pytest.mark.parametrize("how", sorted(_LOSS_ARRIVALS))
def test_losses_walk_skipped_until_a_loss_arrives(how, monkeypatch):
    from tfcompat.keras.engine import base_layer
    monkeypatch.setattr(base_layer.held, "losses", False)
    model, deep = _nested_model()
    assert model.losses == [] and not base_layer.held.losses
    _LOSS_ARRIVALS[how](deep)
    assert base_layer.held.losses
    assert [float(v) for v in model.losses] == [2.0]


def test_regularizer_and_call_losses_are_seen(monkeypatch):
    from tfcompat.keras.engine import base_layer
    monkeypatch.setattr(base_layer.held, "losses", False)

    class Penalized(Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    model = tf.keras.Sequential([tf.keras.Input((2,)), Penalized()])
    assert model.losses == []
    model(tf.ones((1, 2)))
    assert [float(v) for v in model.losses] == [2.0]
    monkeypatch.setattr(base_layer.held, "losses", False)
    reg = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(
        1, kernel_initializer="ones", kernel_regularizer=tf.keras.regularizers.L2(0.5))])
    assert [float(v) for v in reg.losses] == [1.0]


def test_metrics_walk_skipped_until_a_metric_arrives(monkeypatch):
    from tfcompat.keras.engine import base_layer
    monkeypatch.setattr(base_layer.held, "metrics", False)
    model, deep = _nested_model()
    assert model.metrics == [] and deep.metrics == []
    tracker = tf.keras.metrics.Mean(name="tracked")
    deep.tracker = tracker
    assert model.metrics == [tracker]
    monkeypatch.setattr(base_layer.held, "metrics", False)
    other = tf.keras.metrics.Sum(name="appended")
    deep._metrics.append(other)  # (as tf_keras's own code and tests do)
    assert model.metrics == [tracker, other]
