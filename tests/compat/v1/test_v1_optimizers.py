"""`tf.compat.v1.train` optimizers against TF 2.21 (fixtures from `gen_v1_optimizers.py`).

Error model: every update is a handful of elementwise operations, each rounded once to
the dtype, in TF's kernel order; the only operation without an exact replay is TF's
float32 packet `rsqrt` (Adagrad, Adadelta, sparse RMSProp: an approximation whose last
bit depends on the CPU). So after `k` steps each value is within `k * ULPS` units in the
last place of the tensor's scale (`max(1, max |value|)`); float64 cases the same in
float64 ulps.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.compat.v1 import optimizers_base

tf1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
with open(os.path.join(FIXTURES, "v1_optimizers.json")) as f:
    GOLDEN = json.load(f)

ULPS = 8


def _close(got: np.ndarray, want: list, dtype: str, steps: int, what: str) -> None:
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == want.shape, what
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    tol = steps * ULPS * float(np.finfo(dtype).eps) * scale
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= tol, f"{what}: max error {err:.3g} > {tol:.3g}"


def _learning_rate(kind: str, base: float):
    if kind == "float":
        return base
    if kind == "tensor":
        return tf.constant(base, tf.float64)
    calls = []

    def schedule() -> float:
        calls.append(None)
        return base / len(calls)
    return schedule


def _make(config: str, lr_kind: str):
    cls, base, kwargs = GOLDEN["configs"][config]
    return getattr(tf1.train, cls)(learning_rate=_learning_rate(lr_kind, base), **kwargs)


def _grad(case: dict, step: int):
    dtype = case["dtype"]
    data = GOLDEN["inputs"]
    if case["grads"] == "dense":
        return tf.constant(np.array(data["dense"][step], dtype=dtype))
    return tf.IndexedSlices(tf.constant(np.array(data["sparse"][step], dtype=dtype)),
                            tf.constant(GOLDEN["sparse_indices"][step], tf.int64),
                            tf.constant(GOLDEN["shape"], tf.int64))


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: c["name"])
def test_steps_match_tf(case: dict) -> None:
    dtype = case["dtype"]
    var = tf.Variable(np.array(GOLDEN["inputs"]["init"], dtype=dtype), name=f"{case['name']}/kernel")
    opt = _make(case["config"], case["lr"])
    if case["error"] is not None:  # TF's kernel (or conversion) rejects this case: so do we
        error = case["error"]
        expected = {"ValueError": ValueError, "TypeError": TypeError}.get(error["class"])
        with pytest.raises(expected or getattr(tf.errors, error["class"])) as info:
            opt.apply_gradients([(_grad(case, 0), var)])
        assert type(info.value).__name__ == error["class"]
        if error["message"]:
            assert str(info.value.message).startswith(error["message"])
        return
    for step, want in enumerate(case["steps"]):
        assert opt.apply_gradients([(_grad(case, step), var)]) is None
        k = step + 1
        _close(var.numpy(), want["var"], dtype, k, f"{case['name']} step {k} var")
        assert opt.get_slot_names() == case["slot_names"]
        for name, value in want["slots"].items():
            _close(opt.get_slot(var, name).numpy(), value, dtype, k, f"step {k} slot {name}")
        non_slot = {v.name: v for v in opt.variables() if v.name in want["non_slot"]}
        assert sorted(non_slot) == sorted(want["non_slot"])
        for name, value in want["non_slot"].items():
            _close(non_slot[name].numpy(), value, "float32", k, f"step {k} {name}")
    assert [v.name for v in opt.variables()] == case["variables"]


@pytest.mark.parametrize("case", GOLDEN["minimize"], ids=lambda c: c["config"])
def test_minimize_with_callable_loss_and_global_step(case: dict) -> None:
    init = np.array(GOLDEN["inputs"]["init"], dtype="float32")
    kernel = tf.Variable(init, name=f"min_{case['config']}/kernel")
    emb = tf.Variable(init * 0.5, name=f"min_{case['config']}/emb")
    target = tf.constant(np.array(case["target"], dtype="float32"))
    step = tf.Variable(0, dtype=tf.int64, name="step", trainable=False)
    opt = _make(case["config"], "float")

    def loss():
        rows = tf.gather(emb, [0, 2, 0])
        return tf.reduce_sum(tf.square(kernel - target)) + tf.reduce_sum(rows * rows)
    for k, want in enumerate(case["steps"], start=1):
        opt.minimize(loss, global_step=step, var_list=[kernel, emb])
        # (gradients come from autodiff here: a few more roundings than the given ones)
        _close(kernel.numpy(), want["kernel"], "float32", 2 * k, "kernel")
        _close(emb.numpy(), want["emb"], "float32", 2 * k, "emb")
        assert int(step.numpy()) == want["step"]


def test_sparse_adam_is_not_lazy() -> None:
    var = tf.Variable(np.ones((3, 2), np.float32), name="lazy_check/kernel")
    opt = tf1.train.AdamOptimizer(0.1)
    opt.apply_gradients([(tf.IndexedSlices(tf.ones((1, 2)), tf.constant([0])), var)])
    opt.apply_gradients([(tf.IndexedSlices(tf.ones((1, 2)), tf.constant([2])), var)])
    # row 0's m decayed on the second step although row 0 was not touched, and every row moved
    m = opt.get_slot(var, "m").numpy()
    np.testing.assert_allclose(m[0], 0.1 * 0.9, rtol=1e-6)
    assert np.all(var.numpy()[0] < 1.0) and np.all(var.numpy()[2] < 1.0)


def test_sparse_gradient_descent_adds_duplicates() -> None:
    var = tf.Variable(np.zeros((3, 1), np.float32), name="gd_dups/kernel")
    tf1.train.GradientDescentOptimizer(0.5).apply_gradients(
        [(tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([1, 1])), var)])
    np.testing.assert_array_equal(var.numpy(), [[0.0], [-1.5], [0.0]])


def test_momentum_differs_from_keras_sgd_rounding_order() -> None:
    # TF 1: accum = accum * m + g; var -= lr * accum (lr after the accumulator)
    var = tf.Variable([1.0], name="mom_order/kernel")
    opt = tf1.train.MomentumOptimizer(0.1, 0.9)
    for _ in range(2):
        opt.apply_gradients([(tf.constant([1.0]), var)])
    np.testing.assert_allclose(opt.get_slot(var, "momentum").numpy(), [1.9], rtol=1e-7)
    np.testing.assert_allclose(var.numpy(), [1.0 - 0.1 - 0.19], rtol=1e-6)


def test_rmsprop_rms_starts_at_ones() -> None:
    var = tf.Variable([1.0, 2.0], name="rms_ones/kernel")
    opt = tf1.train.RMSPropOptimizer(0.1)
    opt.apply_gradients([(tf.constant([0.0, 0.0]), var)])
    np.testing.assert_allclose(opt.get_slot(var, "rms").numpy(), [0.9, 0.9], rtol=1e-7)


# -- errors -------------------------------------------------------------------------


def test_tensor_loss_is_runtime_error() -> None:
    opt = tf1.train.GradientDescentOptimizer(0.1)
    with pytest.raises(RuntimeError, match="should be a function when eager execution is enabled"):
        opt.minimize(tf.constant(1.0))


def test_error_cases() -> None:
    var = tf.Variable([1.0, 2.0], name="errors/kernel")
    opt = tf1.train.AdamOptimizer(0.1)
    with pytest.raises(ValueError, match="^No variables provided.$"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="No gradients provided for any variable: "):
        opt.apply_gradients([(None, var)])
    with pytest.raises(ValueError, match="No gradients provided for any variable, check your graph"):
        opt.minimize(lambda: tf.constant(1.0), var_list=[var])
    assert opt.variables() == []  # a failed call changes nothing
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive: 0.0"):
        tf1.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf1.train.Optimizer(False, "")
    assert opt.get_slot(var, "m") is None


def test_constraint_applies_after_dense_update_and_rejects_sparse() -> None:
    var = tf.Variable([1.0, 2.0], name="constrained/kernel",
                      constraint=lambda x: tf.clip_by_value(x, 0.0, 1.5))
    opt = tf1.train.GradientDescentOptimizer(1.0)
    opt.apply_gradients([(tf.constant([-1.0, -1.0]), var)])
    np.testing.assert_array_equal(var.numpy(), [1.5, 1.5])
    with pytest.raises(RuntimeError, match="Cannot use a constraint function on a sparse variable."):
        opt.apply_gradients([(tf.IndexedSlices(tf.ones((1,)), tf.constant([0])), var)])


# -- names, the global step, checkpoints ---------------------------------------------


def test_slot_names_are_made_unique_as_tf() -> None:
    var = tf.Variable([1.0], name="unique_names/kernel")
    first, second = tf1.train.AdamOptimizer(0.1), tf1.train.AdamOptimizer(0.1)
    for opt in (first, second):
        opt.minimize(lambda: tf.reduce_sum(var * var), var_list=[var])
    assert [v.name for v in first.variables()] == [
        "beta1_power:0", "beta2_power:0", "unique_names/kernel/Adam:0", "unique_names/kernel/Adam_1:0"]
    assert [v.name for v in second.variables()][2:] == [
        "unique_names/kernel/Adam_2:0", "unique_names/kernel/Adam_3:0"]


def test_global_step() -> None:
    optimizers_base._clear_global_step()
    try:
        assert tf1.train.get_global_step() is None
        step = tf1.train.get_or_create_global_step()
        assert step.name == "global_step:0" and step.dtype == tf.int64 and not step.trainable
        assert tf1.train.get_or_create_global_step() is step
        assert tf1.train.get_global_step() is step
        with pytest.raises(ValueError, match='"global_step" already exists.'):
            tf1.train.create_global_step()
        var = tf.Variable([1.0], name="gstep/kernel")
        tf1.train.GradientDescentOptimizer(0.1).apply_gradients(
            [(tf.constant([1.0]), var)], global_step=step)
        assert int(step.numpy()) == 1
        collections = optimizers_base._collections()
        if collections is not None:
            assert collections.get_collection(collections.GraphKeys.GLOBAL_STEP) == [step]
    finally:
        optimizers_base._clear_global_step()


def _adam_on(name: str):
    init = np.array(GOLDEN["inputs"]["init"], dtype="float32")
    kernel = tf.Variable(np.zeros_like(init), name=name)
    return kernel, tf1.train.AdamOptimizer(0.05)


def test_saver_checkpoint_written_by_tf_restores_and_training_continues() -> None:
    ck = GOLDEN["checkpoint"]
    prefix = os.path.join(FIXTURES, "v1_adam_saver", "model")
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == ck["saver_keys"]
    kernel, opt = _adam_on("ckpt_case/kernel")
    optimizers_base._reset_slot_names()
    collections = optimizers_base._sibling("collections", "reset_default_graph")
    if collections is not None:
        collections.reset_default_graph()
    # a step of zero gradients makes the slots (it moves nothing), then the restore
    opt.apply_gradients([(tf.zeros_like(kernel), kernel)])
    names = {v.name[:-2] for v in [kernel] + opt.variables()}
    assert names == set(ck["saver_keys"])  # TF 1's names: ckpt_case/kernel/Adam, ..._1, beta1_power
    tf1.train.Saver(var_list=[kernel] + opt.variables()).restore(None, prefix)
    for grad, want in zip(ck["grads"][2:], ck["after"]):
        opt.apply_gradients([(tf.constant(np.array(grad, np.float32)), kernel)])
        _close(kernel.numpy(), want["kernel"], "float32", 1, "kernel")
        _close(opt.get_slot(kernel, "m").numpy(), want["m"], "float32", 1, "m")


def test_object_checkpoint_written_by_tf_restores_on_create() -> None:
    ck = GOLDEN["checkpoint"]
    prefix = os.path.join(FIXTURES, "v1_adam_object", "ckpt")
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == ck["object_keys"]
    kernel, opt = _adam_on("object_case/kernel")
    status = tf.train.Checkpoint(optimizer=opt, kernel=kernel).restore(prefix)
    # slots and beta powers do not exist yet: the first apply creates them restored
    for grad, want in zip(ck["grads"][2:], ck["after"]):
        opt.apply_gradients([(tf.constant(np.array(grad, np.float32)), kernel)])
        _close(kernel.numpy(), want["kernel"], "float32", 1, "kernel")
        _close(opt.get_slot(kernel, "m").numpy(), want["m"], "float32", 1, "m")
    assert not any(opt._deferred_slot_restorations.get(n) for n in ("m", "v"))
    assert status is not None


def test_checkpoints_written_here_have_tf_keys(tmp_path) -> None:
    ck = GOLDEN["checkpoint"]
    optimizers_base._reset_slot_names()
    collections = optimizers_base._sibling("collections", "reset_default_graph")
    if collections is not None:
        collections.reset_default_graph()
    kernel, opt = _adam_on("ckpt_case/kernel")
    _train(kernel, opt, ck["grads"][:2])
    prefix = tf.train.Checkpoint(optimizer=opt, kernel=kernel).write(str(tmp_path / "ckpt"))
    keys = sorted(n for n, _ in tf.train.list_variables(prefix))
    assert keys == ck["object_keys"]
    saver_prefix = tf1.train.Saver(var_list=[kernel] + opt.variables()).save(None, str(tmp_path / "model"))
    assert sorted(n for n, _ in tf.train.list_variables(saver_prefix)) == ck["saver_keys"]


def _train(kernel, opt, grads):
    for g in grads:
        opt.apply_gradients([(tf.constant(np.array(g, np.float32)), kernel)])


@pytest.mark.parametrize("config", sorted(GOLDEN["configs"]))
def test_checkpoint_round_trip_continues_bit_for_bit(config: str, tmp_path) -> None:
    grads = GOLDEN["inputs"]["dense"]
    init = np.array(GOLDEN["inputs"]["init"], np.float32)
    kernel = tf.Variable(init, name=f"rt_{config}/kernel")
    opt = _make(config, "float")
    _train(kernel, opt, grads[:2])
    saver_vars = [kernel] + opt.variables()
    saver = tf1.train.Saver(var_list=saver_vars)
    saver_prefix = saver.save(None, str(tmp_path / "saver"))
    object_prefix = tf.train.Checkpoint(optimizer=opt, kernel=kernel).write(str(tmp_path / "object"))
    _train(kernel, opt, grads[2:])
    want = kernel.numpy()

    # name-based: the same names (a dict var_list maps them onto the new optimizer's)
    fresh = tf.Variable(np.zeros_like(init), name=f"rt2_{config}/kernel")
    opt2 = _make(config, "float")
    opt2.apply_gradients([(tf.zeros_like(fresh), fresh)])
    names = dict(zip([v.name for v in saver_vars], [fresh] + opt2.variables()))
    tf1.train.Saver(var_list={n[:-2]: v for n, v in names.items()}).restore(None, saver_prefix)
    _train(fresh, opt2, grads[2:])
    np.testing.assert_array_equal(fresh.numpy(), want)

    # object-based, restored before the slots exist
    fresh = tf.Variable(np.zeros_like(init), name=f"rt3_{config}/kernel")
    opt3 = _make(config, "float")
    tf.train.Checkpoint(optimizer=opt3, kernel=fresh).restore(object_prefix)
    _train(fresh, opt3, grads[2:])
    np.testing.assert_array_equal(fresh.numpy(), want)


def test_v1_namespace_resolves_here() -> None:
    from tfcompat.compat.v1 import optimizers
    for name, obj in optimizers.V1_NAMES["train"].items():
        assert getattr(tf1.train, name) is obj
    assert issubclass(tf1.train.AdamOptimizer, tf1.train.Optimizer)
    assert tf1.train.Saver is not None  # the existing overrides stay


def test_custom_subclass_uses_the_base_protocol() -> None:
    class SignSGD(tf1.train.Optimizer):
        def __init__(self, lr):
            super().__init__(False, "SignSGD")
            self._lr = lr

        def _resource_apply_dense(self, grad, var):
            var.assign_sub(self._lr * torch.sign(grad))

    var = tf.Variable([1.0, -1.0], name="custom/kernel")
    SignSGD(0.5).minimize(lambda: tf.reduce_sum(var * var))
    np.testing.assert_array_equal(var.numpy(), [0.5, -0.5])


def test_bad_gradients_raise_before_anything_changes() -> None:
    a = tf.Variable([1.0, 2.0], name="bad_grads/a")
    b = tf.Variable([[1.0], [2.0]], name="bad_grads/b")
    opt = tf1.train.AdamOptimizer(0.1)
    cases = [
        ([(tf.constant([1.0, 1.0]), a), (tf.constant([1.0]), b)],
         r"var and grad do not have the same shape\[2,1\] \[1\]"),
        ([(tf.constant([1.0, 1.0]), a), (tf.IndexedSlices(tf.ones((1, 1)), tf.constant([5])), b)],
         r"indices\[0\] = 5 is not in \[0, 2\)"),
        ([(tf.constant([1.0, 1.0], tf.float64), a)], "expected to be a float tensor but is a double tensor"),
    ]
    for pairs, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            opt.apply_gradients(pairs)
    assert opt.variables() == [] and a.numpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="Gradient must be convertible to a Tensor or IndexedSlices, or None"):
        opt.apply_gradients([(object(), a)])


def test_slots_and_beta_powers_join_global_variables_for_a_saver() -> None:
    collections = optimizers_base._collections()
    if collections is None or not hasattr(collections, "reset_default_graph"):
        pytest.skip("tfcompat.compat.v1.collections is not there")
    collections.reset_default_graph()
    try:
        kernel = tf.Variable([1.0, 2.0], name="gv_case/kernel")
        opt = tf1.train.AdamOptimizer(0.1)
        opt.minimize(lambda: tf.reduce_sum(kernel * kernel), var_list=[kernel])
        names = {v.name for v in collections.get_collection(collections.GraphKeys.GLOBAL_VARIABLES)}
        assert {v.name for v in opt.variables()} <= names
        # reset_default_graph starts the slot names again, as in TF
        collections.reset_default_graph()
        again = tf1.train.AdamOptimizer(0.1)
        again.minimize(lambda: tf.reduce_sum(kernel * kernel), var_list=[kernel])
        assert [v.name for v in again.variables()] == [v.name for v in opt.variables()]
    finally:
        collections.reset_default_graph()


@pytest.mark.parametrize("config", ["adam", "momentum", "rmsprop_centered", "adagrad"])
def test_under_mirrored_strategy_equals_one_device_on_the_summed_gradient(config: str) -> None:
    from tests.distribute.logical_devices import logical_cpus
    init = np.array(GOLDEN["inputs"]["init"], np.float32)
    xs = [np.array(g, np.float32) for g in GOLDEN["inputs"]["dense"][:2]]
    ref = tf.Variable(init, name=f"ms_ref_{config}/kernel")
    ref_opt = _make(config, "float")
    ref_step = tf.Variable(0, dtype=tf.int64, name="ms_ref_step")
    for _ in range(2):
        ref_opt.apply_gradients([(tf.constant(xs[0] + xs[1]), ref)], global_step=ref_step)
    with logical_cpus(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            var = tf.Variable(init, name=f"ms_{config}/kernel")
            step = tf.Variable(0, dtype=tf.int64, name="ms_step")
            opt = _make(config, "float")

        def replica_step():
            x = tf.constant(np.stack(xs))[tf.distribute.get_replica_context().replica_id_in_sync_group]
            opt.minimize(lambda: tf.reduce_sum(var * x), global_step=step, var_list=[var])
        for _ in range(2):
            strategy.run(replica_step)
        for component in var.values:
            np.testing.assert_array_equal(component.numpy(), ref.numpy())
        for name in opt.get_slot_names():
            for component in opt.get_slot(var, name).values:
                np.testing.assert_array_equal(component.numpy(), ref_opt.get_slot(ref, name).numpy())
        for mine, theirs in zip(opt._non_slot_variables(), ref_opt._non_slot_variables()):
            np.testing.assert_array_equal(mine.numpy(), theirs.numpy())  # updated once per step
        assert int(step.numpy()) == 2
        with pytest.raises(ValueError, match="apply_gradients\\(\\) must be called in a replica context."):
            with strategy.scope():
                opt.apply_gradients([(tf.ones_like(init), var)])
