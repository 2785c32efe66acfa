"""LossScaleOptimizer (tf_keras 2.21's OptimizerV2 wrapper): the dynamic scale's counter
semantics against a model of TF's algorithm, skipped steps, fixed scale, delegation, errors,
config, checkpoint keys, MirroredStrategy, host reads. Numbers vs tf_keras are in
tests/keras/golden/cases_mixed.py."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras.mixed_precision import loss_scale_optimizer as lso_lib
from tests.distribute.logical_devices import logical_cpus

mp = tf.keras.mixed_precision
LSO = mp.LossScaleOptimizer
INF = float("inf")

# The keys tf_keras 2.21 writes for tf.train.Checkpoint(optimizer=LSO(Adam), v=v) after one
# step (recorded with tf.train.list_variables in the TF venv; also a golden in cases_mixed).
TF_KEYS = [
    "_CHECKPOINTABLE_OBJECT_GRAPH",
    "optimizer/beta_1/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/beta_2/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/decay/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/learning_rate/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE",
    "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
    "v/.ATTRIBUTES/VARIABLE_VALUE",
    "v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
    "v/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE",
]


def _step(opt, var, grad):
    opt.apply_gradients([(tf.constant(grad), var)])


def _model_of_tf(initial, growth, finite_seq):
    """TF's `_DynamicLossScaleState.update`, in plain Python floats."""
    scale, counter, out = float(np.float32(initial)), 0, []
    for finite in finite_seq:
        if finite:
            if counter + 1 >= growth:
                new = float(np.float32(scale * 2))
                if math.isfinite(new):
                    scale = new
                counter = 0
            else:
                counter += 1
        else:
            scale, counter = max(scale / 2, 1.0), 0
        out.append((scale, counter))
    return out


# -- the dynamic scale -------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(initial=st.sampled_from([1.0, 2.0, 3.0, 2.0**15, 2.0**127, 0.5]),
       growth=st.integers(1, 4),
       finite_seq=st.lists(st.booleans(), min_size=1, max_size=10))
def test_scale_and_counter_follow_tf(initial, growth, finite_seq):
    var = tf.Variable([1.0, -2.0])
    opt = LSO(tf.keras.optimizers.SGD(0.5, momentum=0.5), initial_scale=initial,
              dynamic_growth_steps=growth)
    want = _model_of_tf(initial, growth, finite_seq)
    value = var.numpy().copy()
    applied = 0
    for i, (finite, (scale, counter)) in enumerate(zip(finite_seq, want)):
        before = var.numpy().copy()
        _step(opt, var, [0.25, 0.5] if finite else [INF if i % 2 else float("nan"), 1.0])
        applied += finite
        assert float(opt.loss_scale) == scale
        assert int(opt.dynamic_counter.numpy()) == counter
        assert int(opt.iterations.numpy()) == i + 1  # a skipped step counts too, as TF
        if not finite:
            np.testing.assert_array_equal(var.numpy(), before)
        value = var.numpy()
    assert applied == 0 or not np.array_equal(value, [1.0, -2.0])


def test_skipped_step_leaves_variables_and_slots_bitwise():
    var = tf.Variable([1.0, -2.0])
    inner = tf.keras.optimizers.Adam(0.1)
    opt = LSO(inner, initial_scale=8.0, dynamic_growth_steps=3)
    _step(opt, var, [0.5, -0.25])
    state = [var.numpy().copy(), inner.get_slot(var, "m").numpy().copy(),
             inner.get_slot(var, "v").numpy().copy()]
    weights = [w.numpy().copy() for w in opt.weights]
    _step(opt, var, [INF, 0.0])
    after = [var.numpy(), inner.get_slot(var, "m").numpy(), inner.get_slot(var, "v").numpy()]
    for a, b in zip(after, state):
        assert a.tobytes() == b.tobytes()
    assert int(opt.iterations.numpy()) == 2 and float(opt.loss_scale) == 4.0
    assert [w.numpy().tobytes() for w in opt.weights[1:]] == [w.tobytes() for w in weights[1:]]


def test_fresh_skipped_step_creates_only_iterations():
    var = tf.Variable([1.0])
    opt = LSO(tf.keras.optimizers.Adam(0.1))
    _step(opt, var, [float("nan")])
    assert [w.name for w in opt.weights] == ["iter:0"] and opt.get_slot_names() == []
    assert float(opt.loss_scale) == 2.0**14
    _step(opt, var, [1.0])
    assert opt.get_slot_names() == ["m", "v"] and int(opt.iterations.numpy()) == 2


def test_growth_to_inf_keeps_scale():
    var = tf.Variable([1.0])
    opt = LSO(tf.keras.optimizers.SGD(0.1), initial_scale=2.0**127, dynamic_growth_steps=1)
    _step(opt, var, [1.0])
    assert float(opt.loss_scale) == 2.0**127 and int(opt.dynamic_counter.numpy()) == 0


def test_halving_stops_at_one():
    var = tf.Variable([1.0])
    opt = LSO(tf.keras.optimizers.SGD(0.1), initial_scale=1.5)
    for want in (1.0, 1.0):
        _step(opt, var, [INF])
        assert float(opt.loss_scale) == want


def test_sparse_and_none_gradients():
    var = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    other = tf.Variable([5.0])
    opt = LSO(tf.keras.optimizers.SGD(1.0), initial_scale=4.0)
    sparse = tf.IndexedSlices(tf.constant([[INF, 1.0]]), tf.constant([1]), tf.constant([2, 2]))
    opt.apply_gradients([(sparse, var), (None, other)])
    np.testing.assert_array_equal(var.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert float(opt.loss_scale) == 2.0
    grads = opt.get_unscaled_gradients([tf.IndexedSlices(tf.constant([[4.0, 2.0]]), tf.constant([0]),
                                                         tf.constant([2, 2])), None])
    assert grads[1] is None
    np.testing.assert_array_equal(np.asarray(grads[0].values), [[2.0, 1.0]])
    opt.apply_gradients([(grads[0], var)])
    np.testing.assert_array_equal(var.numpy(), [[-1.0, 1.0], [3.0, 4.0]])


# -- scaling ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [tf.float32, tf.float16, tf.bfloat16, tf.float64])
def test_scaled_loss_and_unscaled_gradients(dtype):
    opt = LSO(tf.keras.optimizers.SGD(), initial_scale=2.0**10)
    loss = tf.constant(3.0, dtype=dtype)
    scaled = opt.get_scaled_loss(loss)
    assert scaled.dtype == dtype.as_torch and float(scaled) == 3.0 * 2**10
    assert float(opt.get_scaled_loss(lambda: loss)()) == 3.0 * 2**10
    (g,) = opt.get_unscaled_gradients([tf.constant([2.0**10], dtype=dtype)])
    assert g.dtype == dtype.as_torch and float(g[0]) == 1.0


def test_fixed_scale():
    var = tf.Variable([1.0])
    opt = LSO(tf.keras.optimizers.SGD(1.0), dynamic=False, initial_scale=3)
    assert opt.loss_scale.dtype == torch.float32 and float(opt.loss_scale) == 3.0
    assert opt.dynamic is False and opt.dynamic_counter is None and opt.dynamic_growth_steps is None
    # 1/3 in float32, as TF's `1.0 / loss_scale`
    (g,) = opt.get_unscaled_gradients([tf.constant([3.0])])
    assert float(g[0]) == float(np.float32(3.0) * (np.float32(1.0) / np.float32(3.0)))
    _step(opt, var, [INF])  # a fixed scale never skips
    assert not np.isfinite(var.numpy()[0]) and float(opt.loss_scale) == 3.0


def test_minimize_scales_and_unscales():
    var = tf.Variable(1.0)
    opt = LSO(tf.keras.optimizers.SGD(0.25))
    opt.minimize(lambda: var**2, var_list=[var])
    assert var.numpy() == 0.5  # tf_keras's docstring example
    with tf.GradientTape() as tape:
        loss = opt.get_scaled_loss(var**2)
    (grad,) = opt.get_unscaled_gradients(tape.gradient(loss, [var]))
    opt.apply_gradients([(grad, var)])
    assert var.numpy() == 0.25


def test_warns_without_scaling(caplog):
    var = tf.Variable([1.0])
    opt = LSO(tf.keras.optimizers.SGD())
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        logging.getLogger("tensorflow").addHandler(caplog.handler)
        try:
            _step(opt, var, [1.0])
            opt.get_scaled_loss(tf.constant(1.0))
            _step(opt, var, [1.0])
            opt.get_unscaled_gradients([tf.constant(1.0)])
            _step(opt, var, [1.0])
        finally:
            logging.getLogger("tensorflow").removeHandler(caplog.handler)
    messages = [r.getMessage() for r in caplog.records if "LossScaleOptimizer" in r.getMessage()]
    assert len(messages) == 2
    assert "get_scaled_loss() and" in messages[0]
    assert "get_unscaled_gradients() before" in messages[1]


# -- delegation ------------------------------------------------------------------------------
def test_hyperparameters_delegate():
    inner = tf.keras.optimizers.Adam(beta_1=0.8, epsilon=1e-5)
    opt = LSO(inner)
    assert float(opt.beta_1) == pytest.approx(0.8)
    opt.beta_1 = 0.7
    assert float(inner.beta_1) == pytest.approx(0.7)
    opt.learning_rate = 0.5
    assert float(inner.learning_rate) == 0.5 and float(opt.lr) == 0.5
    opt.lr = 0.25
    assert float(inner.learning_rate) == 0.25
    with pytest.raises(AttributeError, match="'LossScaleOptimizer' object has no attribute 'epsilon'"):
        opt.epsilon
    opt.epsilon = 1e-4  # set on the wrapper only, as tf_keras
    assert inner.epsilon == 1e-5 and opt.epsilon == 1e-4
    assert "beta_1" in dir(opt) and "lr" in dir(opt)
    opt.clipnorm = 1.0
    assert inner.clipnorm == 1.0 and opt.clipnorm == 1.0
    assert opt.inner_optimizer is inner and isinstance(opt, tf.keras.optimizers.Optimizer)


def test_weights_slots_iterations_are_the_inner_optimizers():
    var = tf.Variable([1.0, 2.0])
    inner = tf.keras.optimizers.Adam(0.1)
    opt = LSO(inner)
    opt.minimize(lambda: tf.reduce_sum(var * var), [var])
    assert opt.iterations is inner.iterations and opt.weights is inner.weights
    assert opt.variables() is inner.variables() and opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(var, "m") is inner.get_slot(var, "m")
    weights = opt.get_weights()
    opt.set_weights([w * 0 for w in weights])
    assert all(not np.any(w) for w in inner.get_weights())


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,exc,message", [
    ({"dynamic": "dynamic"}, TypeError, '"dynamic" argument to LossScaleOptimizer.__init__ must be a '
                                        "bool, but got: 'dynamic'"),
    ({"dynamic": False}, ValueError, '"initial_scale" must be specified if "dynamic" is False'),
    ({"dynamic": False, "initial_scale": 2, "dynamic_growth_steps": 3}, ValueError,
     '"dynamic_growth_steps" must be None if "dynamic" is False, but got: 3'),
    ({"initial_scale": "x"}, ValueError, "could not convert string to float: 'x'"),
])
def test_argument_errors_leave_the_optimizer_wrappable(kwargs, exc, message):
    inner = tf.keras.optimizers.SGD()
    with pytest.raises(exc) as info:
        LSO(inner, **kwargs)
    assert message in str(info.value)
    assert float(LSO(inner).loss_scale) == 2.0**15


def test_wrapping_errors():
    with pytest.raises(TypeError, match=r'"inner_optimizer" must be an instance of '
                       r"`tf.keras.optimizers.Optimizer` or "
                       r"`tf.keras.optimizers.experimental.Optimizer`, but got: foo\."):
        LSO("foo")
    inner = tf.keras.optimizers.SGD()
    opt = LSO(inner)
    with pytest.raises(ValueError, match='"inner_optimizer" is already wrapped by a '
                       "LossScaleOptimizer"):
        LSO(inner)
    with pytest.raises(TypeError, match="LossScaleOptimizer cannot wrap another LossScaleOptimizer"):
        LSO(opt)


def test_cross_replica_apply_is_an_error():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        var = tf.Variable([1.0])
        opt = LSO(tf.keras.optimizers.SGD())
        with pytest.raises(ValueError, match=r"apply_gradients\(\) must be called in a replica "
                           "context."):
            opt.apply_gradients([(tf.constant([1.0]), var)])


# -- config ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"initial_scale": 4, "dynamic_growth_steps": 7},
                                    {"dynamic": False, "initial_scale": 16}])
def test_config_round_trip(kwargs):
    opt = LSO(tf.keras.optimizers.Adam(0.01, beta_1=0.5), **kwargs)
    config = opt.get_config()
    assert set(config) == {"inner_optimizer", "dynamic", "initial_scale", "dynamic_growth_steps"}
    assert config["inner_optimizer"]["class_name"] == "Adam"
    again = LSO.from_config(config)
    assert again.get_config() == config and type(again.inner_optimizer) is tf.keras.optimizers.Adam
    assert isinstance(config["initial_scale"], float)


def test_v1_loss_scale_config():
    inner = {"class_name": "SGD", "config": {"name": "SGD", "learning_rate": 0.1}}
    dyn = LSO.from_config({"optimizer": inner, "loss_scale": {
        "class_name": "DynamicLossScale",
        "config": {"initial_loss_scale": 8.0, "increment_period": 5, "multiplier": 2.0}}})
    assert (dyn.dynamic, dyn.initial_scale, dyn.dynamic_growth_steps) == (True, 8.0, 5)
    fixed = LSO.from_config({"optimizer": inner, "loss_scale": {
        "class_name": "FixedLossScale", "config": {"loss_scale_value": 3.0}}})
    assert (fixed.dynamic, fixed.initial_scale) == (False, 3.0)
    with pytest.raises(ValueError, match="multiplier is not 2"):
        LSO.from_config({"optimizer": inner, "loss_scale": {
            "class_name": "DynamicLossScale", "config": {"multiplier": 3.0}}})


# -- checkpoints -------------------------------------------------------------------------------
def _trained(initial=4.0):
    var = tf.Variable([1.0, 2.0], name="v")
    opt = LSO(tf.keras.optimizers.Adam(0.1), initial_scale=initial, dynamic_growth_steps=2)
    with tf.GradientTape() as tape:
        loss = opt.get_scaled_loss(tf.reduce_sum(var * var))
    opt.apply_gradients(zip(opt.get_unscaled_gradients(tape.gradient(loss, [var])), [var]))
    return var, opt


def test_checkpoint_keys_are_tf_keras(tmp_path):
    var, opt = _trained()
    path = tf.train.Checkpoint(optimizer=opt, v=var).save(str(tmp_path / "ck"))
    assert sorted(k for k, _ in tf.train.list_variables(path)) == TF_KEYS


def test_checkpoint_round_trip_restores_scale_counter_and_slots(tmp_path):
    var, opt = _trained()
    _step(opt, var, [INF, 1.0])
    _step(opt, var, [0.5, 0.5])
    path = tf.train.Checkpoint(optimizer=opt, v=var).save(str(tmp_path / "ck"))
    want = (float(opt.loss_scale), int(opt.dynamic_counter.numpy()), opt.get_weights(), var.numpy())
    var2 = tf.Variable([0.0, 0.0], name="v")
    opt2 = LSO(tf.keras.optimizers.Adam(0.1), initial_scale=4.0, dynamic_growth_steps=2)
    tf.train.Checkpoint(optimizer=opt2, v=var2).restore(path)
    _step(opt2, var2, [0.0, 0.0])  # creates the slots, which take the restored values
    _step(opt, var, [0.0, 0.0])
    assert float(opt2.loss_scale) == float(opt.loss_scale)
    assert int(opt2.dynamic_counter.numpy()) == int(opt.dynamic_counter.numpy())
    # (slot by slot: a restore creates the slots before `iter`, with or without the wrapper)
    for name in ("m", "v"):
        np.testing.assert_array_equal(opt2.get_slot(var2, name).numpy(), opt.get_slot(var, name).numpy())
    assert int(opt2.iterations.numpy()) == int(opt.iterations.numpy()) == 4
    np.testing.assert_array_equal(var2.numpy(), var.numpy())
    assert want[0] == 2.0 and want[1] == 1


def test_inner_optimizer_checkpoint_holds_the_loss_scale(tmp_path):
    """As tf_keras (its wrapper tracks through the inner optimizer)."""
    var, opt = _trained()
    path = tf.train.Checkpoint(optimizer=opt.inner_optimizer, v=var).save(str(tmp_path / "ck"))
    assert sorted(k for k, _ in tf.train.list_variables(path)) == TF_KEYS


# -- strategies ---------------------------------------------------------------------------------
@pytest.fixture
def strategy():
    with logical_cpus(2):
        yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def test_mirrored_equals_one_device_and_skips_together(strategy):
    x = np.random.default_rng(3).uniform(-1, 1, (4, 3)).astype(np.float32)
    w0 = np.random.default_rng(4).uniform(-1, 1, (3, 1)).astype(np.float32)

    def loss_of(w, part):
        return tf.reduce_sum(tf.matmul(part, w) ** 2)

    single_w = tf.Variable(w0)
    single = LSO(tf.keras.optimizers.SGD(0.1, momentum=0.9), initial_scale=8.0,
                 dynamic_growth_steps=1)
    with strategy.scope():
        w = tf.Variable(w0)
        opt = LSO(tf.keras.optimizers.SGD(0.1, momentum=0.9), initial_scale=8.0,
                  dynamic_growth_steps=1)
    halves = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(x[2 * ctx.replica_id_in_sync_group:][:2]))
    poison = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(INF if ctx.replica_id_in_sync_group == 1 else 1.0))

    def step(part, factor):
        with tf.GradientTape() as tape:
            loss = opt.get_scaled_loss(loss_of(w, part) * factor)
        grads = opt.get_unscaled_gradients(tape.gradient(loss, [w]))
        opt.apply_gradients(zip(grads, [w]))

    ones = strategy.experimental_distribute_values_from_function(lambda ctx: tf.constant(1.0))
    for factor in (ones, poison, ones):
        strategy.run(step, args=(halves, factor))
    for finite in (True, False, True):
        with tf.GradientTape() as tape:
            loss = single.get_scaled_loss(loss_of(single_w, tf.constant(x)) * (1.0 if finite else INF))
        grads = single.get_unscaled_gradients(tape.gradient(loss, [single_w]))
        single.apply_gradients(zip(grads, [single_w]))
    assert float(opt.loss_scale) == float(single.loss_scale) == 16.0
    assert int(opt.iterations.numpy()) == 3
    for component in strategy.experimental_local_results(w):
        np.testing.assert_allclose(np.asarray(component), single_w.numpy(), rtol=1e-6, atol=1e-6)


# -- host reads ---------------------------------------------------------------------------------
def test_one_host_read_per_step():
    """The skip decision is the only read of a device value in a steady step (documented)."""
    from tfcompat.testing import accelerator_policy, host_syncs
    with accelerator_policy():
        var = tf.Variable(np.ones((4, 3), np.float32))
        opt = LSO(tf.keras.optimizers.Adam(0.01))
        for _ in range(2):
            with tf.GradientTape() as tape:
                loss = opt.get_scaled_loss(tf.reduce_sum(var * var))
            opt.apply_gradients(zip(opt.get_unscaled_gradients(tape.gradient(loss, [var])), [var]))
        with host_syncs(new_host_tensors=True) as log:
            for _ in range(3):
                with tf.GradientTape() as tape:
                    loss = opt.get_scaled_loss(tf.reduce_sum(var * var))
                grads = opt.get_unscaled_gradients(tape.gradient(loss, [var]))
                opt.apply_gradients(zip(grads, [var]))
    assert len(log) == 3, "\n".join(map(str, log))
    assert all("_should_apply" in str(s) for s in log), "\n".join(map(str, log))


def test_exports():
    assert sorted(n for n in dir(mp) if not n.startswith("_") and n[0].isupper() or n in (
        "global_policy", "set_global_policy")) == ["LossScaleOptimizer", "Policy", "global_policy",
                                                   "set_global_policy"]
    assert mp.LossScaleOptimizer is lso_lib.LossScaleOptimizer


@pytest.mark.parametrize("bad", [INF, -INF, float("nan")])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float16, tf.bfloat16, tf.float64])
def test_any_non_finite_value_skips(bad, dtype):
    var = tf.Variable(np.zeros((3, 4)), dtype=dtype)
    other = tf.Variable([1.0, 2.0])
    opt = LSO(tf.keras.optimizers.SGD(1.0), initial_scale=8.0)
    grad = np.full((3, 4), 0.5)
    grad[2, 1] = bad
    opt.apply_gradients([(tf.constant(grad, dtype=dtype), var), (tf.constant([1.0, 1.0]), other),
                         (tf.zeros((0,)), tf.Variable(tf.zeros((0,))))])
    assert float(opt.loss_scale) == 4.0 and not np.any(var.numpy())
    np.testing.assert_array_equal(other.numpy(), [1.0, 2.0])


def test_optimizers_serialize_deserialize_and_get_know_the_wrapper():
    """tf_keras 2.21's record (recorded): module, class and registered name."""
    import tfcompat as tf
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                                                      initial_scale=8.0)
    record = tf.keras.optimizers.serialize(opt)
    assert record["module"] == "tf_keras.src.mixed_precision.loss_scale_optimizer"
    assert record["class_name"] == record["registered_name"] == "LossScaleOptimizer"
    assert record["config"]["inner_optimizer"]["class_name"] == "SGD"
    for back in (tf.keras.optimizers.deserialize(record), tf.keras.optimizers.get(record)):
        assert type(back) is type(opt) and back.initial_scale == 8.0
        assert type(back.inner_optimizer).__name__ == "SGD"
