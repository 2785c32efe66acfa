"""The `OptimizerV2` base-class contract (tf_keras 2.21 legacy), table-driven.

Constructor validation, hyperparameter attributes and the `lr` alias,
`iterations`, slots, weights, `minimize`, `apply_gradients` (skipped and
invalid gradients, constraints, atomicity of failed calls), variable creator
scopes, gradient transformers, `get`/`serialize`/`deserialize`/`from_config`,
the public paths of the classes, and a custom optimizer subclass written the
way the OptimizerV2 docstring (the seed) documents.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras import optimizers as keras_optimizers
from tfcompat.keras.optimizers import OptimizerV2, schedules

from optimizer_info import (ALL_CONFIGS, BASE_INVALID, INFO_BY_NAME, MODIFIERS, OPTIMIZER_INFOS, SCHEDULE_KWARGS,
                            build, config_id, resolve_kwargs, to_numpy, to_tf_grad)

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]
PATHS = (True, False)
PATH_IDS = ("multi_tensor", "reference")
ALLOWED_KWARGS = ("clipnorm", "clipvalue", "lr", "decay", "global_clipnorm")


def _vars(dtype=np.float32, names=("var0", "var1")):
    rs = np.random.RandomState(0)
    shapes = [(3,), (2, 3)]
    return [tf.Variable(rs.uniform(-1, 1, s).astype(dtype), name=n) for s, n in zip(shapes, names)]


def _grads(variables, scale=0.5, seed=1):
    rs = np.random.RandomState(seed)
    return [torch.from_numpy((rs.normal(0, scale, v.shape.as_list())).astype(to_numpy(v).dtype))
            for v in variables]



def _snapshot(opt, variables):
    state = [to_numpy(v).copy() for v in variables]
    state += [np.array(w, copy=True) for w in opt.get_weights()]
    return state, [w.name for w in opt.weights]


def _assert_unchanged(before, opt, variables):
    values, names = before
    after, after_names = _snapshot(opt, variables)
    assert after_names == names, "the failed call created or dropped optimizer weights"
    assert len(after) == len(values)
    for a, b in zip(after, values):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------
# constructor
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_defaults(info):
    opt = info.cls()
    config = opt.get_config()
    assert config == {"name": info.name, **info.defaults}
    for key, value in info.defaults.items():
        assert type(config[key]) is type(value), (key, type(config[key]))
    assert sorted(opt._hyper) == sorted(info.hypers)


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_table_configs(pair):
    info, cfg = pair
    opt = info.cls(**cfg.kwargs)
    assert opt.get_config() == info.expected_config(cfg)
    assert opt.get_slot_names() == []  # nothing is created before the first step
    assert opt.weights == []


INVALID = [(info, inv) for info in OPTIMIZER_INFOS for inv in info.all_invalid]


@pytest.mark.parametrize("info,inv", INVALID, ids=[f"{i.name}/{v.id}" for i, v in INVALID])
def test_invalid_constructor_arguments(info, inv):
    with pytest.raises(Exception) as err:
        info.cls(**resolve_kwargs(inv.kwargs))
    assert type(err.value) is inv.exception
    msg = str(err.value)
    if inv.match == "exact":
        assert msg == inv.message
    else:
        assert msg.startswith(inv.message), msg


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_unexpected_kwarg_names_argument_and_allowed_set(info):
    with pytest.raises(TypeError) as err:
        info.cls(not_an_option=1.0)
    msg = str(err.value)
    assert "not_an_option" in msg
    for allowed in ALLOWED_KWARGS:
        assert repr(allowed) in msg, (allowed, msg)


def test_skipped_base_invalid_are_accepted():
    """Nadam overwrites `decay` with `schedule_decay`, so a negative decay is silently ignored (as TF)."""
    for info in OPTIMIZER_INFOS:
        for inv_id in info.skip_base_invalid:
            kwargs = next(i for i in BASE_INVALID if i.id == inv_id).kwargs
            opt = info.cls(**kwargs)
            assert opt.get_config()["decay"] == info.defaults["decay"]


def test_decay_message():
    with pytest.raises(ValueError) as err:
        keras_optimizers.SGD(decay=-1.0)
    assert str(err.value) == "Expected decay >= 0, received: -1.0"


@pytest.mark.parametrize("which", ["clipnorm", "clipvalue", "global_clipnorm"])
def test_clipping_conflicts_with_gradient_transformers(which):
    transformers = [lambda gv: gv]
    with pytest.raises(ValueError) as err:
        keras_optimizers.SGD(gradient_transformers=transformers, **{which: 1.0})
    assert str(err.value).startswith(
        f"`{which}` cannot be set when `gradient_transformers` is set. Instead, use the "
        "`gradient_transformers` to specify clipping and other transformations. Received: val=1.0, "
        "gradient_transformers=")
    opt = keras_optimizers.SGD(gradient_transformers=transformers)
    with pytest.raises(ValueError):
        setattr(opt, which, 1.0)
    setattr(opt, which, None)  # clearing is fine


def test_clipping_attributes():
    opt = keras_optimizers.SGD(clipnorm=1.0, clipvalue=2.0)
    assert (opt.clipnorm, opt.clipvalue, opt.global_clipnorm) == (1.0, 2.0, None)
    opt.clipnorm = None
    opt.global_clipnorm = 3.0
    assert opt.get_config()["global_clipnorm"] == 3.0 and "clipnorm" not in opt.get_config()


# ---------------------------------------------------------------------------
# hyperparameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_hyperparameter_attributes(info):
    opt = info.cls()
    for name in info.hypers:
        value = getattr(opt, name)  # reading creates the hyperparameter variables, as in TF
        assert isinstance(value, tf.Variable), (name, type(value))
        assert value.dtype == tf.float32
        assert to_numpy(value) == np.float32(info.defaults[name]), name
        assert name in dir(opt)
    assert opt.lr is opt.learning_rate
    assert "lr" in dir(opt)
    assert opt.weights == []  # hyperparameters are not optimizer weights
    for name, value in info.settable.items():
        setattr(opt, name, value)
        assert to_numpy(getattr(opt, name)) == np.float32(value), name
        got = opt.get_config()[name]
        assert float(got) == float(np.float32(value))
    opt.lr = 0.125
    assert to_numpy(opt.learning_rate) == np.float32(0.125)
    assert float(opt.get_config()["learning_rate"]) == 0.125
    with pytest.raises(AttributeError):
        opt.no_such_hyperparameter  # noqa: B018


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_hyperparameter_set_before_creation_stays_python(info):
    """Before the hyperparameter variables exist, `opt.x = v` just replaces the Python value."""
    opt = info.cls()
    opt.learning_rate = 0.5
    assert opt.get_config()["learning_rate"] == 0.5
    assert type(opt.get_config()["learning_rate"]) is float
    opt.lr = 0.25
    assert opt.get_config()["learning_rate"] == 0.25


def test_schedule_learning_rate_attribute():
    sched = schedules.ExponentialDecay(**SCHEDULE_KWARGS)
    opt = keras_optimizers.Adam(learning_rate=sched)
    assert opt.learning_rate is sched and opt.lr is sched
    v = tf.Variable([1.0])
    opt.apply_gradients([(torch.ones(1), v)])
    assert opt.learning_rate is sched
    opt.learning_rate = 0.5  # a schedule is replaced, not assigned into
    assert opt.get_config()["learning_rate"] == 0.5


def test_missing_attribute_is_attribute_error():
    opt = keras_optimizers.SGD()
    with pytest.raises(AttributeError):
        opt.beta_1  # noqa: B018
    assert not hasattr(opt, "rho")


def test_callable_and_tensor_hyperparameters():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(learning_rate=lambda: 0.5, momentum=torch.tensor(0.25))
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs.get("name"))
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        opt.apply_gradients([(torch.ones(2), v)])
    # callables and tensors do not become variables
    assert "learning_rate" not in seen and "momentum" not in seen
    config = opt.get_config()
    assert config["learning_rate"] == 0.5 and type(config["learning_rate"]) is float
    assert config["momentum"] == np.float32(0.25) and isinstance(config["momentum"], np.float32)
    np.testing.assert_allclose(to_numpy(v), [0.5, 1.5])


# ---------------------------------------------------------------------------
# iterations
# ---------------------------------------------------------------------------


def test_iterations_is_lazy_int64_only_first_replica():
    opt = keras_optimizers.Adam()
    assert opt.weights == []
    it = opt.iterations
    assert it.dtype == tf.int64
    assert it.shape == ()
    assert it.aggregation == tf.VariableAggregation.ONLY_FIRST_REPLICA
    assert not it.trainable
    assert int(it.numpy()) == 0
    assert opt.weights == [it]
    assert opt.iterations is it


def test_iterations_settable_before_weights_exist():
    opt = keras_optimizers.SGD(0.1)
    mine = tf.Variable(5, dtype=tf.int64, name="my_iter")
    opt.iterations = mine
    assert opt.iterations is mine
    v = tf.Variable([1.0])
    opt.apply_gradients([(torch.ones(1), v)])
    assert int(mine.numpy()) == 6
    assert opt.weights[0] is mine
    with pytest.raises(RuntimeError) as err:
        opt.iterations = tf.Variable(0, dtype=tf.int64)
    assert str(err.value).startswith("Cannot set `iterations` to a new Variable after the Optimizer weights "
                                     "have been created. Here it is attempting to set `iterations` to ")
    assert opt.iterations is mine


def test_iterations_cannot_be_replaced_after_creation():
    opt = keras_optimizers.SGD()
    _ = opt.iterations
    with pytest.raises(RuntimeError):
        opt.iterations = tf.Variable(0, dtype=tf.int64)


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_iterations_increment_once_per_call(info, multi):
    opt = build(info, info.typical_kwargs(), multi_tensor=multi)
    v32 = tf.Variable(np.ones(3, np.float32), name="a")
    v64 = tf.Variable(np.ones((2, 2), np.float64), name="b")
    sp = tf.Variable(np.ones((4, 2), np.float32), name="c")
    for k in range(1, 4):
        result = opt.apply_gradients([
            (torch.full((3,), 0.1, dtype=torch.float32), v32),
            (torch.full((2, 2), 0.1, dtype=torch.float64), v64),
            (tf.IndexedSlices(torch.ones(3, 2), torch.tensor([0, 2, 0], dtype=torch.int32)), sp),
        ])
        assert int(opt.iterations.numpy()) == k
        assert int(to_numpy(result)) == k
    opt.minimize(lambda: tf.reduce_sum(tf.multiply(v32, v32)), var_list=[v32])
    assert int(opt.iterations.numpy()) == 4


# ---------------------------------------------------------------------------
# slots
# ---------------------------------------------------------------------------


def test_add_slot_get_slot_get_slot_names():
    opt = keras_optimizers.SGD()
    v = tf.Variable(np.ones((2, 3), np.float64), name="w")
    s = opt.add_slot(v, "acc")
    assert opt.get_slot(v, "acc") is s
    assert opt.add_slot(v, "acc") is s  # existing slots are kept
    assert s.shape == (2, 3) and s.dtype == tf.float64 and not s.trainable
    assert s.name == "w/acc:0"
    np.testing.assert_array_equal(to_numpy(s), 0.0)
    ones = opt.add_slot(v, "ones", initializer="ones")
    np.testing.assert_array_equal(to_numpy(ones), 1.0)
    custom = opt.add_slot(v, "custom", initializer=lambda shape, dtype: torch.full(shape, 3.0, dtype=torch.float64))
    np.testing.assert_array_equal(to_numpy(custom), 3.0)
    shaped = opt.add_slot(v, "row", shape=[3])
    assert shaped.shape == (3,)
    assert opt.get_slot_names() == ["acc", "ones", "custom", "row"]
    assert opt.weights == [s, ones, custom, shaped]
    with pytest.raises(KeyError):
        opt.get_slot(v, "missing")
    with pytest.raises(KeyError):
        opt.get_slot(tf.Variable(1.0), "acc")


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_slots_and_weight_order(pair):
    """`get_slot_names()`, slot shapes/dtypes/initial values and `weights` order, per table config."""
    info, cfg = pair
    opt = info.cls(**cfg.kwargs)
    variables = _vars(np.float64, names=("alpha", "beta"))
    zero = [torch.zeros(v.shape.as_list(), dtype=torch.float64) for v in variables]
    opt.apply_gradients(zip(zero, variables))
    assert tuple(opt.get_slot_names()) == cfg.slots
    for v in variables:
        for name in cfg.slots:
            slot = opt.get_slot(v, name)
            assert slot.shape == v.shape and slot.dtype == tf.float64
    names = info.weight_names(cfg, ("alpha", "beta"))
    assert [w.name for w in opt.weights] == names
    assert [w.name for w in opt.variables()] == names
    values = opt.get_weights()
    assert len(values) == len(names) and all(isinstance(x, (np.ndarray, np.generic)) for x in values)
    assert int(values[0]) == 1


# ---------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_get_weights_set_weights_round_trip(info):
    kwargs = info.typical_kwargs()
    a_vars, b_vars = _vars(), _vars()
    a, b = info.cls(**kwargs), info.cls(**kwargs)
    for seed in range(3):
        a.apply_gradients(zip(_grads(a_vars, seed=seed), a_vars))
    b.apply_gradients(zip([torch.zeros_like(g) for g in _grads(b_vars)], b_vars))  # create b's weights
    b.set_weights(a.get_weights())
    for x, y in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(x, y)
    for v, w in zip(b_vars, a_vars):
        v.assign(w)
    for seed in range(3, 5):
        a.apply_gradients(zip(_grads(a_vars, seed=seed), a_vars))
        b.apply_gradients(zip(_grads(b_vars, seed=seed), b_vars))
    for x, y in zip(a_vars, b_vars):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(y))


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_set_weights_errors_assign_nothing(info):
    opt = info.cls(**info.typical_kwargs())
    variables = _vars()
    opt.apply_gradients(zip(_grads(variables), variables))
    good = opt.get_weights()
    n = len(good)
    before = _snapshot(opt, variables)
    too_many = good + [good[-1]] * 5
    with pytest.raises(ValueError) as err:
        opt.set_weights(too_many)
    assert str(err.value) == (
        f"You called `set_weights(weights)` on optimizer {info.name} with a  weight list of length "
        f"{len(too_many)}, but the optimizer was expecting {n} weights. Provided weights: "
        f"{str(too_many)[:50]}...")
    _assert_unchanged(before, opt, variables)
    # a bad shape anywhere (here: the last entry) assigns nothing at all
    bad = [np.full_like(w, 7) for w in good]
    bad[-1] = np.zeros(np.shape(good[-1]) + (2,), dtype=good[-1].dtype)
    with pytest.raises(ValueError) as err:
        opt.set_weights(bad)
    assert str(err.value) == (f"Optimizer weight shape {np.shape(good[-1])} not compatible with provided "
                              f"weight shape {bad[-1].shape}.")
    _assert_unchanged(before, opt, variables)


def test_set_weights_legacy_lengths():
    """TF's per-class compatibility: Adam accepts amsgrad weights; RMSprop, Adagrad and Adadelta
    accept a list without the iteration count."""
    variables = _vars()
    adam = keras_optimizers.Adam()
    adam.apply_gradients(zip(_grads(variables), variables))
    w = adam.get_weights()
    adam.set_weights(w + w[1:3])  # 1 + 3 * 2 entries: vhat dropped
    for name in ("RMSprop", "Adagrad", "Adadelta"):
        opt = INFO_BY_NAME[name].cls()
        opt.apply_gradients(zip(_grads(variables), variables))
        w = opt.get_weights()
        opt.set_weights(w[1:])
        assert int(opt.iterations.numpy()) == 0


def test_set_weights_on_empty_optimizer():
    opt = keras_optimizers.SGD()
    opt.set_weights([])
    with pytest.raises(ValueError):
        opt.set_weights([np.zeros(())])


# ---------------------------------------------------------------------------
# minimize
# ---------------------------------------------------------------------------


def test_minimize_callable_loss():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(0.1)
    result = opt.minimize(lambda: tf.reduce_sum(tf.multiply(v, v)), var_list=[v])
    np.testing.assert_allclose(to_numpy(v), [0.8, 1.6], rtol=1e-6)
    assert int(opt.iterations.numpy()) == 1 and int(to_numpy(result)) == 1


def test_minimize_tensor_loss_with_tape():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.multiply(v, v))
    opt.minimize(loss, var_list=[v], tape=tape)
    np.testing.assert_allclose(to_numpy(v), [0.8, 1.6], rtol=1e-6)


def test_minimize_callable_var_list():
    holder = {}

    def loss():
        if "v" not in holder:  # variables created by the first call, like a Keras model's
            holder["v"] = tf.Variable([1.0, 2.0], name="lazy")
        return tf.reduce_sum(tf.multiply(holder["v"], holder["v"]))

    opt = keras_optimizers.SGD(0.1)
    opt.minimize(loss, var_list=lambda: [holder["v"]])
    np.testing.assert_allclose(to_numpy(holder["v"]), [0.8, 1.6], rtol=1e-6)
    opt.minimize(loss, var_list=lambda: [holder["v"]])
    np.testing.assert_allclose(to_numpy(holder["v"]), [0.64, 1.28], rtol=1e-6)


def test_minimize_tensor_loss_without_tape():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(0.1)
    loss = tf.reduce_sum(tf.multiply(v, v))
    with pytest.raises(ValueError) as err:
        opt.minimize(loss, var_list=[v])
    assert str(err.value).startswith("`tape` is required when a `Tensor` loss is passed. Received: loss=")
    assert str(err.value).endswith(", tape=None.")
    np.testing.assert_array_equal(to_numpy(v), [1.0, 2.0])


def test_minimize_applies_clipping():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(1.0, clipvalue=0.5)
    opt.minimize(lambda: tf.reduce_sum(tf.multiply(v, 3.0)), var_list=[v])
    np.testing.assert_allclose(to_numpy(v), [0.5, 1.5])


# ---------------------------------------------------------------------------
# apply_gradients
# ---------------------------------------------------------------------------


def test_none_gradients_are_skipped_with_a_warning(caplog):
    v0, v1 = _vars()
    before = to_numpy(v0).copy()
    opt = keras_optimizers.Adam()
    with caplog.at_level(logging.WARNING):
        opt.apply_gradients([(None, v0), (torch.ones(2, 3), v1)])
    np.testing.assert_array_equal(to_numpy(v0), before)
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("Gradients do not exist for variables ['var0:0'] when minimizing the loss.")
               for m in messages), messages
    assert [w.name for w in opt.weights] == ["Adam/iter:0", "Adam/var1/m:0", "Adam/var1/v:0"]
    assert int(opt.iterations.numpy()) == 1


def test_all_none_gradients():
    v0, v1 = _vars()
    opt = keras_optimizers.SGD()
    with pytest.raises(ValueError) as err:
        opt.apply_gradients([(None, v0), (None, v1)])
    assert str(err.value).startswith(
        "No gradients provided for any variable: (['var0:0', 'var1:0'],). Provided `grads_and_vars` is ")
    assert opt.weights == [] or int(opt.iterations.numpy()) == 0


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_empty_grads_and_vars_is_a_no_op(info):
    """TF 2.21: `apply_gradients([])` creates `iterations` (and the hyperparameters), returns
    `tf.no_op()` (None in eager) and counts no step; the next real step counts one. Nadam's
    `_create_slots` reads `var_list[0]`, so TF's Nadam raises IndexError, after creating them."""
    opt = info.cls(**info.typical_kwargs())
    if info.name == "Nadam":
        with pytest.raises(IndexError):
            opt.apply_gradients([])
    else:
        assert opt.apply_gradients([]) is None
        assert opt.apply_gradients(iter([])) is None
    assert [w.name for w in opt.weights] == [f"{info.name}/iter:0"]
    assert int(opt.iterations.numpy()) == 0
    assert opt.get_slot_names() == []
    for name in info.hypers:  # the hyperparameters are variables now, as TF's
        assert isinstance(opt._hyper[name], tf.Variable), name
    v = tf.Variable([1.0, 2.0], name="v")
    assert opt.apply_gradients([(torch.ones(2), v)]) is opt.iterations
    assert int(opt.iterations.numpy()) == 1


def _case_wrong_shape(variables):
    return [(torch.ones(3), variables[0]), (torch.ones(4, 3), variables[1])], tf.errors.InvalidArgumentError


def _case_wrong_dtype(variables):
    return [(torch.ones(3), variables[0]), (torch.ones(2, 3, dtype=torch.float64), variables[1])], \
        tf.errors.InvalidArgumentError


def _case_integer_variable(variables):
    iv = tf.Variable([1, 2], name="ints")
    return [(torch.ones(3), variables[0]), (torch.tensor([1, 1]), iv)], "int"


def _case_bool_variable(variables):
    bv = tf.Variable([True, False], name="bools")
    return [(torch.ones(3), variables[0]), (torch.tensor([True, True]), bv)], "bool"


def _case_sparse_constraint(variables):
    grad = tf.IndexedSlices(torch.ones(1, 3), torch.tensor([0], dtype=torch.int32))
    return [(torch.ones(3), variables[0]), (grad, variables[2])], RuntimeError


def _case_sparse_out_of_range(variables):
    grad = tf.IndexedSlices(torch.ones(2, 3), torch.tensor([0, 5], dtype=torch.int32))
    return [(torch.ones(3), variables[0]), (grad, variables[1])], tf.errors.InvalidArgumentError


def _case_sparse_wrong_row_shape(variables):
    grad = tf.IndexedSlices(torch.ones(2, 4), torch.tensor([0, 1], dtype=torch.int32))
    return [(torch.ones(3), variables[0]), (grad, variables[1])], tf.errors.InvalidArgumentError


def _case_all_none(variables):
    return [(None, variables[0]), (None, variables[1])], ValueError


ERROR_CASES = {
    "wrong_shape": _case_wrong_shape,
    "wrong_dtype": _case_wrong_dtype,
    "integer_variable": _case_integer_variable,
    "bool_variable": _case_bool_variable,
    "sparse_constraint": _case_sparse_constraint,
    "sparse_out_of_range": _case_sparse_out_of_range,
    "sparse_wrong_row_shape": _case_sparse_wrong_row_shape,
    "all_none": _case_all_none,
}


@pytest.mark.parametrize("kind", list(ERROR_CASES))
@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_failed_apply_changes_nothing(info, multi, kind):
    """Each error leaves all variables, slots, hyperparameters and `iterations` as they were."""
    opt = build(info, info.typical_kwargs(), multi_tensor=multi)
    constrained = tf.Variable(np.full((2, 3), 0.5, np.float32), name="cv",
                              constraint=lambda x: tf.clip_by_value(x, 0.0, 1.0))
    variables = _vars() + [constrained]
    opt.apply_gradients(zip(_grads(variables), variables))  # slots exist now
    pairs, exc = ERROR_CASES[kind](variables)
    exc = info.non_float_errors.get(exc, exc)  # TF's class for a non-float variable, per optimizer
    before = _snapshot(opt, variables)
    hypers = {k: to_numpy(getattr(opt, k)).copy() for k in info.hypers}
    with pytest.raises(exc):
        opt.apply_gradients(pairs)
    _assert_unchanged(before, opt, variables)
    for k, val in hypers.items():
        np.testing.assert_array_equal(to_numpy(getattr(opt, k)), val)
    # and the optimizer still works afterwards
    opt.apply_gradients(zip(_grads(variables, seed=2), variables))
    assert int(opt.iterations.numpy()) == 2


def test_error_messages():
    v0, v1 = _vars()
    opt = keras_optimizers.SGD()
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        opt.apply_gradients([(torch.ones(4), v0)])
    assert "[3] [4]" in str(err.value)
    cv = tf.Variable([1.0, 2.0], constraint=lambda x: x, name="cv")
    with pytest.raises(RuntimeError) as err:
        opt.apply_gradients([(tf.IndexedSlices(torch.ones(1), torch.tensor([0])), cv)])
    assert str(err.value).startswith("Cannot use a constraint function on a sparse variable. Received: grad=")


@pytest.mark.parametrize("kind,dtype", [("int", "int32"), ("int", "int64"), ("bool", "bool")])
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_non_float_variable_gets_tfs_exception_and_advice(info, kind, dtype):
    """tf_keras' apply_gradients fails on an integer or bool variable with the exception its
    kernel (`InvalidArgumentError`) or its constant conversion (`TypeError`) raises; tfcompat
    raises the same class, before anything changes, and says what to do."""
    opt = info.cls()
    var = tf.Variable(np.zeros(2, dtype), name="counts")
    with pytest.raises(info.non_float_errors[kind]) as err:
        opt.apply_gradients([(torch.zeros(2, dtype=var.dtype.as_torch), var)])
    message = str(err.value)
    assert f"{info.name} cannot update counts:0: its dtype {dtype} is not one of" in message
    assert "leave this variable out of `grads_and_vars`" in message
    assert opt.get_slot_names() == [] and np.asarray(var.numpy()).tolist() == [0, 0]


def test_minimize_keeps_tfs_value_error_for_unsupported_dtypes():
    """`minimize` checks the variables it differentiates with TF's `_assert_valid_dtypes`."""
    opt = keras_optimizers.SGD()
    with pytest.raises(ValueError, match="Invalid type tf.int32 for ints:0"):
        opt._assert_valid_dtypes([tf.Variable([1], name="ints")])


# ---------------------------------------------------------------------------
# what the transformations hand on is validated too
# ---------------------------------------------------------------------------


def _bad_second_gradient(kind, armed=(True,)):
    """A map over (gradient, variable) pairs that spoils the second gradient (`kind`) while
    `armed` is non-empty."""
    def spoil(grads_and_vars):
        if not armed:
            return list(grads_and_vars)
        out = []
        for i, (g, v) in enumerate(grads_and_vars):
            if i == 1:
                g = {"dtype": lambda g: g.to(torch.float64),
                     "shape": lambda g: g[:1],
                     "sparse_rows": lambda g: tf.IndexedSlices(g[:, :2], torch.tensor([0, 1])),
                     "sparse_out_of_range": lambda g: tf.IndexedSlices(g, torch.tensor([0, 5]))}[kind](g)
            out.append((g, v))
        return out
    return spoil


def _via_transformer(info, kwargs, spoil):
    return info.cls(**kwargs, gradient_transformers=[spoil])


def _via_aggregator(info, kwargs, spoil):
    return info.cls(**kwargs, gradient_aggregator=spoil)


def _via_subclass(info, kwargs, spoil):
    class Spoiling(info.cls):
        def _transform_gradients(self, grads_and_vars):
            return spoil(super()._transform_gradients(grads_and_vars))

    return Spoiling(**kwargs)


TRANSFORM_HOOKS = {"gradient_transformers": _via_transformer, "gradient_aggregator": _via_aggregator,
                   "subclass": _via_subclass}


@pytest.mark.parametrize("kind", ["dtype", "shape", "sparse_rows", "sparse_out_of_range"])
@pytest.mark.parametrize("hook", list(TRANSFORM_HOOKS))
@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_transformed_gradients_are_validated_before_anything_changes(info, multi, hook, kind):
    """A gradient the aggregator, a transformer or a subclass hook spoils is TF's
    `InvalidArgumentError` (TF's kernels reject it), raised before any variable, slot or
    weight (Nadam's momentum cache) changes, with the message a bad input gradient gets."""
    variables = _vars()
    good = build(info, info.typical_kwargs(), multi_tensor=multi)
    armed: list = []
    spoiled = TRANSFORM_HOOKS[hook](info, info.typical_kwargs(), _bad_second_gradient(kind, armed))
    spoiled.use_multi_tensor = multi
    spoiled.apply_gradients(zip(_grads(variables), variables))  # untouched: slots exist afterwards
    before = _snapshot(spoiled, variables)
    hypers = {k: to_numpy(getattr(spoiled, k)).copy() for k in info.hypers}
    armed.append(True)
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        spoiled.apply_gradients(zip(_grads(variables, seed=2), variables))
    _assert_unchanged(before, spoiled, variables)
    for k, val in hypers.items():
        np.testing.assert_array_equal(to_numpy(getattr(spoiled, k)), val)
    # the same words as for a bad gradient passed in directly
    bad = _bad_second_gradient(kind)(list(zip(_grads(variables, seed=2), variables)))
    with pytest.raises(tf.errors.InvalidArgumentError) as direct:
        good.apply_gradients(bad)
    assert str(err.value) == str(direct.value)
    # and the optimizer still works afterwards
    armed.clear()
    spoiled.apply_gradients(zip(_grads(variables, seed=3), variables))
    assert int(spoiled.iterations.numpy()) == 2


def test_transformed_gradient_error_messages():
    v0, v1 = _vars()
    opt = keras_optimizers.Adam(0.1, gradient_transformers=[_bad_second_gradient("shape")])
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        opt.apply_gradients([(torch.ones(3), v0), (torch.ones(2, 3), v1)])
    assert "var and grad do not have the same shape[2, 3] [1, 3]" in str(err.value)
    opt = keras_optimizers.SGD(0.1, gradient_transformers=[_bad_second_gradient("dtype")])
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        opt.apply_gradients([(torch.ones(3), v0), (torch.ones(2, 3), v1)])
    assert "The gradient of var1:0 has dtype float64, the variable float32" in str(err.value)
    np.testing.assert_array_equal(to_numpy(v0), to_numpy(_vars()[0]))


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_fused_adam_rejects_a_short_gradient_from_a_transformer(multi):
    """The reviewer's case: a shape-[1] gradient for a shape-[2] variable used to update only
    element 0 under the fused kernel, silently."""
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.Adam(0.1, gradient_transformers=[lambda gv: [(g[:1], v) for g, v in gv]])
    opt.use_multi_tensor = multi
    with pytest.raises(tf.errors.InvalidArgumentError):
        opt.apply_gradients([(torch.ones(2), v)])
    np.testing.assert_array_equal(to_numpy(v), [1.0, 2.0])


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_transformer_outputs_are_converted_like_inputs(info, multi):
    """A transformer may return numpy arrays or lists: they are converted as input gradients are."""
    a_vars, b_vars = _vars(), _vars()
    a = build(info, info.typical_kwargs(), multi_tensor=multi)
    b = TRANSFORM_HOOKS["gradient_transformers"](
        info, info.typical_kwargs(), lambda gv: [(to_numpy(g).tolist() if i else to_numpy(g), v)
                                                 for i, (g, v) in enumerate(gv)])
    b.use_multi_tensor = multi
    for seed in range(2):
        a.apply_gradients(zip(_grads(a_vars, seed=seed), a_vars))
        b.apply_gradients(zip(_grads(b_vars, seed=seed), b_vars))
    for x, y in zip(a_vars, b_vars):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(y))


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_transformer_may_drop_or_reorder_variables(multi):
    v0, v1 = _vars()
    start0, start1 = to_numpy(v0).copy(), to_numpy(v1).copy()
    opt = keras_optimizers.SGD(0.5, gradient_transformers=[lambda gv: [gv[1]]])
    opt.use_multi_tensor = multi
    opt.apply_gradients([(torch.ones(3), v0), (torch.ones(2, 3), v1)])
    np.testing.assert_array_equal(to_numpy(v0), start0)
    np.testing.assert_allclose(to_numpy(v1), start1 - 0.5)
    opt.gradient_transformers = [lambda gv: list(reversed(gv))]
    opt.apply_gradients([(torch.ones(3), v0), (torch.ones(2, 3), v1)])
    np.testing.assert_allclose(to_numpy(v0), start0 - 0.5)
    np.testing.assert_allclose(to_numpy(v1), start1 - 1.0)


def test_empty_grads_and_vars_creates_weights_and_counts_no_step():
    """TF: `apply_gradients([])` creates `iterations` and returns a no-op (None in eager)."""
    opt = keras_optimizers.Adam()
    assert opt.apply_gradients([]) is None
    assert [w.name for w in opt.weights] == ["Adam/iter:0"]
    assert int(opt.iterations.numpy()) == 0


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_a_variable_listed_twice_is_updated_twice(info):
    """Both paths apply both gradients, in order, with the call's coefficients."""
    results = []
    for multi in PATHS:
        v, w = _vars()
        opt = build(info, info.typical_kwargs(), multi_tensor=multi)
        g1, g2 = _grads([v, v], seed=4)
        for _ in range(2):
            opt.apply_gradients([(g1, v), (torch.ones(2, 3), w), (g2, v)])
        results.append((to_numpy(v).copy(), to_numpy(w).copy()))
    for x, y in zip(*results):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)
    v = tf.Variable([1.0, 2.0])
    keras_optimizers.SGD(0.5).apply_gradients([(torch.tensor([1.0, 2.0]), v), (torch.tensor([4.0, 8.0]), v)])
    np.testing.assert_array_equal(to_numpy(v), [1.0 - 0.5 - 2.0, 2.0 - 1.0 - 4.0])


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_a_variable_whose_shape_changes_between_steps(multi):
    """The step plan caches a variable's dtype and device, not its shape."""
    v = tf.Variable(np.ones(2, np.float32), shape=tf.TensorShape(None), name="free")
    opt = build("SGD", {"learning_rate": 0.5, "momentum": 0.0}, multi_tensor=multi)
    opt.apply_gradients([(torch.ones(2), v)])
    v.assign(np.ones(3, np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        opt.apply_gradients([(torch.ones(2), v)])
    opt.apply_gradients([(torch.ones(3), v)])
    np.testing.assert_array_equal(to_numpy(v), [0.5, 0.5, 0.5])


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_constraint_applied_after_dense_update(info, multi):
    def constraint(x):
        return tf.clip_by_value(x, -0.25, 0.25)

    init = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
    free = tf.Variable(init, name="free")
    bound = tf.Variable(init, constraint=constraint, name="bound")
    other = tf.Variable(init, name="other")  # unconstrained, in the same call
    grad = torch.from_numpy(np.linspace(0.5, -0.5, 6).astype(np.float32).reshape(2, 3))
    a = build(info, info.typical_kwargs(), multi_tensor=multi)
    b = build(info, info.typical_kwargs(), multi_tensor=multi)
    a.apply_gradients([(grad, free)])
    b.apply_gradients([(grad, bound), (grad, other)])
    np.testing.assert_allclose(to_numpy(bound), np.clip(to_numpy(free), -0.25, 0.25), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(to_numpy(other), to_numpy(free), rtol=1e-6, atol=1e-7)
    assert np.abs(to_numpy(free)).max() > 0.25  # the constraint did something


def test_experimental_aggregate_gradients_false():
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(0.5)
    opt.apply_gradients([(torch.ones(2), v)], experimental_aggregate_gradients=False)
    np.testing.assert_allclose(to_numpy(v), [0.5, 1.5])


# ---------------------------------------------------------------------------
# creator scopes see every optimizer variable
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_variable_creator_scope_sees_optimizer_variables(info):
    cfg = info.config("default") if any(c.name == "default" for c in info.configs) else info.configs[0]
    kwargs = dict(cfg.kwargs)
    if info.supports_decay:
        kwargs["decay"] = 0.1
    opt = info.cls(**kwargs)
    v = tf.Variable(np.ones(3, np.float32), name="var0")
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs)
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        opt.apply_gradients([(torch.ones(3), v)])
    names = [k.get("name") for k in seen]
    expected = (["iter"] + sorted(info.hypers) + list(info.extra_weights)
                + [f"var0/{s}" for s in cfg.slots])
    assert names == expected
    by_name = {k["name"]: k for k in seen}
    assert by_name["iter"]["dtype"] == tf.int64
    for name in ["iter"] + list(info.hypers) + list(info.extra_weights):
        assert by_name[name].get("aggregation") == tf.VariableAggregation.ONLY_FIRST_REPLICA, name
        assert by_name[name].get("trainable") is False, name
    for s in cfg.slots:
        assert by_name[f"var0/{s}"].get("trainable") is False
    # what the creator returned is what the optimizer uses
    assert [w.name for w in opt.weights] == info.weight_names(cfg, ("var0",))


def test_creator_scope_can_wrap_slot_variables():
    """A creator may return its own variable; the optimizer keeps using it."""
    made = {}

    def creator(next_creator, **kwargs):
        var = next_creator(**kwargs)
        made[kwargs["name"]] = var
        return var

    v = tf.Variable([1.0, 2.0], name="w")
    opt = keras_optimizers.Adam(0.1)
    with tf.variable_creator_scope(creator):
        opt.apply_gradients([(torch.ones(2), v)])
    assert opt.get_slot(v, "m") is made["w/m"]
    assert opt.iterations is made["iter"]


# ---------------------------------------------------------------------------
# gradient transformers and aggregators
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_gradient_transformers(multi):
    calls = []

    def double(grads_and_vars):
        calls.append(len(grads_and_vars))
        return [(g * 2.0, v) for g, v in grads_and_vars]

    def shift(grads_and_vars):
        return [(g + 1.0, v) for g, v in grads_and_vars]

    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(0.5, gradient_transformers=[double, shift])
    opt.use_multi_tensor = multi
    opt.apply_gradients([(torch.tensor([1.0, -1.0]), v)])
    np.testing.assert_allclose(to_numpy(v), [1.0 - 0.5 * 3.0, 2.0 - 0.5 * -1.0])
    assert calls == [1]


def test_gradient_aggregator():
    seen = []

    def aggregator(grads_and_vars):
        seen.append([float(g.sum()) for g, _ in grads_and_vars])
        return [(g * 10.0, v) for g, v in grads_and_vars]

    v = tf.Variable([1.0])
    opt = keras_optimizers.SGD(0.01, gradient_aggregator=aggregator)
    opt.apply_gradients([(torch.ones(1), v)])
    np.testing.assert_allclose(to_numpy(v), [0.9], rtol=1e-6)
    opt.apply_gradients([(torch.ones(1), v)], experimental_aggregate_gradients=False)
    np.testing.assert_allclose(to_numpy(v), [0.89], rtol=1e-6)
    assert seen == [[1.0]]


# ---------------------------------------------------------------------------
# get / serialize / deserialize / from_config
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_get_by_name_dict_and_instance(info):
    for name in (info.name, info.name.lower()):
        opt = keras_optimizers.get(name)
        assert type(opt) is info.cls
        assert opt.get_config() == {"name": info.name, **info.defaults}
    opt = info.cls()
    assert keras_optimizers.get(opt) is opt
    for identifier in (keras_optimizers.serialize(opt), {"class_name": info.name, "config": {}},
                       {"class_name": info.name.lower(), "config": {}}):
        got = keras_optimizers.get(identifier)
        assert type(got) is info.cls and got.get_config() == opt.get_config()
    assert tf.keras.optimizers.get is keras_optimizers.get


def test_get_errors():
    with pytest.raises(ValueError) as err:
        keras_optimizers.get(3)
    assert str(err.value) == "Could not interpret optimizer identifier: 3"
    with pytest.raises(ValueError) as err:
        keras_optimizers.get("foo")
    assert str(err.value).startswith("Unknown optimizer: 'foo'. Please ensure you are using a "
                                     "`keras.utils.custom_object_scope` and that this object is included in "
                                     "the scope")
    for bad in ({"class_name": "Foo", "config": {}}, {"class_name": "OptimizerV2", "config": {}},
                {"class_name": "ExponentialDecay", "config": {}},
                {"module": "os", "class_name": "system", "config": {}, "registered_name": "system"}):
        with pytest.raises(ValueError):
            keras_optimizers.deserialize(bad)


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_serialize_deserialize(pair):
    info, cfg = pair
    opt = info.cls(**cfg.kwargs)
    config = opt.get_config()
    assert keras_optimizers.serialize(opt) == {
        "module": "keras.optimizers.legacy", "class_name": info.name, "config": config, "registered_name": None}
    assert keras_optimizers.serialize(opt, use_legacy_format=True) == {"class_name": info.name, "config": config}
    for serialized in (keras_optimizers.serialize(opt), keras_optimizers.serialize(opt, use_legacy_format=True)):
        again = keras_optimizers.deserialize(serialized)
        assert type(again) is info.cls
        assert again.get_config() == _after_round_trip(info, config)


def _round_trip_cases():
    out = []
    for info, cfg in ALL_CONFIGS:
        out.append((info, cfg.name, dict(cfg.kwargs)))
    for info in OPTIMIZER_INFOS:
        base = info.typical_kwargs()
        for mod, extra in MODIFIERS.items():
            if mod == "lr_schedule" and not info.supports_schedule:
                continue
            out.append((info, mod, dict(base, **extra)))
    return out


ROUND_TRIPS = _round_trip_cases()


def _after_round_trip(info, config):
    """What `from_config(config).get_config()` gives in TF: keys the constructor drops are reset."""
    return {**config, **{k: info.defaults[k] for k in info.from_config_resets}}


def _plain(config):
    """Config values as comparable Python values (np.float32 -> float)."""
    return {k: (_plain(v) if isinstance(v, dict) else float(v) if isinstance(v, (np.generic, np.ndarray)) else v)
            for k, v in config.items()}


@pytest.mark.parametrize("info,label,kwargs", ROUND_TRIPS, ids=[f"{i.name}/{n}" for i, n, _ in ROUND_TRIPS])
def test_from_config_round_trip(info, label, kwargs):
    opt = info.cls(**resolve_kwargs(kwargs))
    config = opt.get_config()
    again = info.cls.from_config(config)
    assert _plain(again.get_config()) == _plain(_after_round_trip(info, config))
    if isinstance(kwargs.get("learning_rate"), str):
        assert isinstance(again._hyper["learning_rate"], schedules.ExponentialDecay)
        assert again._hyper["learning_rate"].get_config()["initial_learning_rate"] == \
            SCHEDULE_KWARGS["initial_learning_rate"]
    # after a step the config holds float32 values read from the hyperparameter variables
    variables = _vars()
    opt.apply_gradients(zip(_grads(variables), variables))
    config = opt.get_config()
    again = info.cls.from_config(config)
    assert _plain(again.get_config()) == _plain(_after_round_trip(info, config))
    json_like = keras_optimizers.deserialize(keras_optimizers.serialize(opt))
    assert _plain(json_like.get_config()) == _plain(_after_round_trip(info, config))


@pytest.mark.filterwarnings("ignore:The `lr` argument is deprecated")  # test_lr_kwarg_is_deprecated checks it
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_lr_in_config_maps_to_learning_rate(info):
    opt = info.cls.from_config({"name": info.name, "lr": 0.375})
    assert opt.get_config()["learning_rate"] == 0.375
    assert "lr" not in opt.get_config()
    opt = keras_optimizers.deserialize({"class_name": info.name, "config": {"lr": 0.375}})
    assert opt.get_config()["learning_rate"] == 0.375
    opt = info.cls(lr=0.375)
    # TF's Ftrl passes `learning_rate`, not `kwargs.get("lr", ...)`, to _set_hyper
    want = 0.375 if info.lr_kwarg else info.defaults["learning_rate"]
    assert opt.get_config()["learning_rate"] == want


def test_lr_kwarg_is_deprecated():
    with pytest.warns(UserWarning, match="The `lr` argument is deprecated, use `learning_rate` instead."):
        keras_optimizers.SGD(lr=0.5)


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_public_paths(info):
    cls = info.cls
    assert getattr(tf.keras.optimizers, info.name) is cls
    assert getattr(tf.keras.optimizers.legacy, info.name) is cls
    assert getattr(tf.optimizers, info.name) is cls
    assert issubclass(cls, tf.keras.optimizers.Optimizer)
    assert tf.keras.optimizers.Optimizer is OptimizerV2
    assert tf.keras.optimizers.legacy.Optimizer is OptimizerV2
    assert tf.optimizers.Optimizer is OptimizerV2


# ---------------------------------------------------------------------------
# a custom optimizer, written as the seed's docstring says
# ---------------------------------------------------------------------------


class SeedStyleMomentum(OptimizerV2):
    """velocity = momentum * velocity + g; var -= lr * velocity.

    Overrides exactly what the OptimizerV2 docstring lists, with the seed's
    signatures `_resource_apply_dense(grad, handle)` and
    `_resource_apply_sparse(grad, handle, indices)` (no `apply_state`).
    """

    def __init__(self, learning_rate=0.1, momentum=0.5, name="SeedStyleMomentum", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("momentum", momentum)
        self.calls = {"dense": 0, "sparse": 0}

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "velocity")

    def _resource_apply_dense(self, grad, handle):
        self.calls["dense"] += 1
        lr = self._decayed_lr(handle.dtype)
        momentum = self._get_hyper("momentum", handle.dtype)
        velocity = self.get_slot(handle, "velocity")
        velocity.assign(velocity.value() * momentum + grad)
        return handle.assign_sub(velocity.value() * lr)

    def _resource_apply_sparse(self, grad, handle, indices):
        self.calls["sparse"] += 1
        lr = self._decayed_lr(handle.dtype)
        momentum = self._get_hyper("momentum", handle.dtype)
        velocity = self.get_slot(handle, "velocity")
        rows = velocity.sparse_read(indices) * momentum + grad
        velocity.scatter_update(tf.IndexedSlices(rows, indices))
        return handle.scatter_sub(tf.IndexedSlices(rows * lr, indices))

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate": self._serialize_hyperparameter("learning_rate"),
                       "decay": self._initial_decay,
                       "momentum": self._serialize_hyperparameter("momentum")})
        return config


class ApplyStateMomentum(SeedStyleMomentum):
    """The same rule with tf_keras' newer signatures (`apply_state=None`)."""

    def _resource_apply_dense(self, grad, handle, apply_state=None):
        return super()._resource_apply_dense(grad, handle)

    def _resource_apply_sparse(self, grad, handle, indices, apply_state=None):
        return super()._resource_apply_sparse(grad, handle, indices)


def _momentum_reference(init, grads, lr=0.1, momentum=0.5):
    var, vel = np.array(init, np.float32), np.zeros_like(init, np.float32)
    for g in grads:
        vel = vel * np.float32(momentum) + g
        var = var - vel * np.float32(lr)
    return var, vel


@pytest.mark.parametrize("cls", [SeedStyleMomentum, ApplyStateMomentum], ids=["seed_signature", "apply_state"])
def test_custom_optimizer_trains_and_uses_its_own_rule(cls):
    opt = cls(learning_rate=0.1, momentum=0.5)
    assert opt.use_multi_tensor  # the default; still routed through the subclass's own rule
    v = tf.Variable([1.0, -2.0, 3.0], name="w")
    grads = [np.array([0.5, -1.0, 0.25], np.float32), np.array([1.0, 1.0, -1.0], np.float32)]
    for g in grads:
        opt.apply_gradients([(torch.from_numpy(g), v)])
    want_var, want_vel = _momentum_reference([1.0, -2.0, 3.0], grads)
    np.testing.assert_allclose(to_numpy(v), want_var, rtol=1e-6)
    np.testing.assert_allclose(to_numpy(opt.get_slot(v, "velocity")), want_vel, rtol=1e-6)
    assert opt.calls == {"dense": 2, "sparse": 0}
    assert opt.get_slot_names() == ["velocity"]
    assert [w.name for w in opt.weights] == ["SeedStyleMomentum/iter:0", "SeedStyleMomentum/w/velocity:0"]
    # sparse gradients with duplicate indices are summed before _resource_apply_sparse
    opt.apply_gradients([(tf.IndexedSlices(torch.tensor([1.0, 2.0]), torch.tensor([0, 0], dtype=torch.int32)), v)])
    assert opt.calls["sparse"] == 1
    vel0 = want_vel[0] * 0.5 + 3.0
    np.testing.assert_allclose(to_numpy(v)[0], want_var[0] - np.float32(0.1) * vel0, rtol=1e-6)
    np.testing.assert_allclose(to_numpy(v)[1:], want_var[1:], rtol=1e-6)
    # minimize goes through the same rule
    opt.minimize(lambda: tf.reduce_sum(tf.multiply(v, v)), var_list=[v])
    assert opt.calls["dense"] == 3 and int(opt.iterations.numpy()) == 4


@pytest.mark.parametrize("cls", [SeedStyleMomentum, ApplyStateMomentum], ids=["seed_signature", "apply_state"])
def test_custom_optimizer_config_round_trip(cls):
    opt = cls(learning_rate=0.25, momentum=0.75, clipnorm=1.0, decay=0.5)
    config = opt.get_config()
    assert config == {"name": "SeedStyleMomentum", "clipnorm": 1.0, "learning_rate": 0.25, "decay": 0.5,
                      "momentum": 0.75}
    again = cls.from_config(config)
    assert type(again) is cls and again.get_config() == config
    serialized = keras_optimizers.serialize(opt)
    assert serialized["class_name"] == cls.__name__ and serialized["registered_name"] == cls.__name__
    with pytest.raises(ValueError):
        keras_optimizers.deserialize(serialized)  # not registered
    rebuilt = keras_optimizers.deserialize(serialized, custom_objects={cls.__name__: cls})
    assert type(rebuilt) is cls and rebuilt.get_config() == config


def test_subclass_of_builtin_overriding_dense_rule_uses_it():
    """A subclass of a built-in that overrides `_resource_apply_dense` is not sent to the fast path."""
    calls = []

    class CountingAdam(keras_optimizers.Adam):
        def _resource_apply_dense(self, grad, var, apply_state=None):
            calls.append(var.name)
            return super()._resource_apply_dense(grad, var, apply_state)

    v = tf.Variable([1.0, 2.0], name="x")
    ref_v = tf.Variable([1.0, 2.0], name="x")
    opt, ref = CountingAdam(0.1), keras_optimizers.Adam(0.1)
    for _ in range(2):
        opt.apply_gradients([(torch.tensor([0.5, -0.5]), v)])
        ref.apply_gradients([(torch.tensor([0.5, -0.5]), ref_v)])
    assert calls == ["x:0", "x:0"]
    np.testing.assert_allclose(to_numpy(v), to_numpy(ref_v), rtol=1e-6)


def test_optimizer_base_is_abstract():
    opt = OptimizerV2("bare")
    v = tf.Variable([1.0])
    with pytest.raises(NotImplementedError):
        opt.apply_gradients([(torch.ones(1), v)])


def test_sparse_support_table():
    for info in OPTIMIZER_INFOS:
        assert info.supports_sparse
        v = tf.Variable(np.ones((3, 2), np.float32))
        opt = build(info, info.typical_kwargs())
        opt.apply_gradients([(to_tf_grad({"indices": [0, 2, 0], "values": np.ones((3, 2)),
                                          "dense_shape": [3, 2]}, np.float32), v)])
        assert int(opt.iterations.numpy()) == 1


# ---------------------------------------------------------------------------
# pinned TF behaviours (numbers from tf_keras 2.21 legacy, CPU)
# ---------------------------------------------------------------------------

# Two steps of [(g1, v), (g2, v)]: a variable listed twice is updated twice per call, in order,
# with the same iteration count; iterations still increments once per call.
_DUPLICATE_VARIABLE_TF = {
    "SGD": (dict(learning_rate=0.1, momentum=0.9), [0.6403, 1.89595], {"momentum": [-0.1267, -0.09955]}),
    "Adam": (dict(learning_rate=0.1), [0.54319453, 2.0042257],
             {"m": [0.12670001, 0.09955001], "v": [0.00062387, 0.00249697]}),
    "Ftrl": (dict(learning_rate=0.1), [0.2512467, 0.90691537],
             {"accumulator": [0.725, 2.6], "linear": [-2.1392884, -14.62357]}),
}


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("name", list(_DUPLICATE_VARIABLE_TF))
def test_variable_listed_twice(name, multi):
    kwargs, want_var, want_slots = _DUPLICATE_VARIABLE_TF[name]
    opt = build(name, kwargs, multi_tensor=multi)
    v = tf.Variable([1.0, 2.0])
    for _ in range(2):
        opt.apply_gradients([(torch.tensor([0.5, -0.5]), v), (torch.tensor([0.25, 1.0]), v)])
    np.testing.assert_allclose(to_numpy(v), want_var, rtol=1e-5, atol=1e-6)
    for slot, want in want_slots.items():
        np.testing.assert_allclose(to_numpy(opt.get_slot(v, slot)), want, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == 2


def test_setting_decay_does_not_change_the_learning_rate_decay():
    """`decay` is registered as a hyperparameter, but `_decayed_lr` reads the constructor's value."""
    v = tf.Variable([1.0, 2.0])
    opt = keras_optimizers.SGD(1.0, decay=0.5)
    opt.apply_gradients([(torch.ones(2), v)])
    opt.decay = 0.0
    opt.apply_gradients([(torch.ones(2), v)])
    np.testing.assert_allclose(to_numpy(v), [-0.6666667, 0.3333333], rtol=1e-6)
    assert opt.get_config()["decay"] == 0.5
    assert to_numpy(opt.decay) == 0.0


@pytest.mark.parametrize("grad", [np.array([1.0, 1.0], np.float32), [1.0, 1.0]], ids=["numpy", "list"])
def test_gradients_that_are_not_tensors_are_converted(grad):
    v = tf.Variable([1.0, 2.0])
    keras_optimizers.SGD(0.1).apply_gradients([(grad, v)])
    np.testing.assert_allclose(to_numpy(v), [0.9, 1.9], rtol=1e-6)


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_new_variables_get_slots_appended_in_tf_order(info):
    """A later call with more variables creates their slots after the existing weights."""
    cfg = info.config("default") if any(c.name == "default" for c in info.configs) else info.configs[0]
    opt = info.cls(**cfg.kwargs)
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([3.0], name="b")
    opt.apply_gradients([(torch.ones(2), a)])
    opt.apply_gradients([(torch.ones(2), a), (torch.ones(1), b)])
    prefix = info.name
    want = [f"{prefix}/iter:0"] + [f"{prefix}/{w}:0" for w in info.extra_weights]
    # each call creates the slots of its new variables (in the table's layout), after the existing ones
    want += [f"{prefix}/a/{s}:0" for s in cfg.slots] + [f"{prefix}/b/{s}:0" for s in cfg.slots]
    assert [w.name for w in opt.weights] == want
    assert int(opt.iterations.numpy()) == 2


@pytest.mark.parametrize("multi", PATHS, ids=PATH_IDS)
def test_user_variable_hyperparameters(multi):
    """A `tf.Variable` passed as a hyperparameter is read each step (and assigned by `opt.x = v`)."""
    lr = tf.Variable(0.5, name="my_lr")
    momentum = tf.Variable(0.5, name="my_momentum")
    opt = keras_optimizers.SGD(learning_rate=lr, momentum=momentum)
    opt.use_multi_tensor = multi
    v = tf.Variable([0.0])
    opt.apply_gradients([(torch.ones(1), v)])      # accum = -0.5; v = -0.5
    lr.assign(0.25)
    momentum.assign(0.0)
    opt.apply_gradients([(torch.ones(1), v)])      # accum = -0.25; v = -0.75
    np.testing.assert_allclose(to_numpy(v), [-0.75])
    opt.learning_rate = 1.0                         # assigns into the user's variable, as TF does
    assert to_numpy(lr) == 1.0 and opt._hyper["learning_rate"] is lr
    opt.momentum = 0.5
    opt.apply_gradients([(torch.ones(1), v)])      # accum = -0.25 * 0.5 - 1 = -1.125
    np.testing.assert_allclose(to_numpy(v), [-1.875])
    assert float(opt.get_config()["learning_rate"]) == 1.0


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_name_prefixes_weights_and_hyperparameters(info):
    cfg = info.config("default") if any(c.name == "default" for c in info.configs) else info.configs[0]
    opt = info.cls(name="my_opt", **cfg.kwargs)
    assert opt.get_config()["name"] == "my_opt"
    v = tf.Variable(np.ones((2, 2), np.float32), name="kernel")
    opt.apply_gradients([(torch.ones(2, 2), v)])
    assert [w.name for w in opt.weights] == info.weight_names(cfg, ("kernel",), prefix="my_opt")
    for hyper in info.hypers:
        assert getattr(opt, hyper).name == f"my_opt/{hyper}:0"
    assert info.cls.from_config(opt.get_config()).get_config()["name"] == "my_opt"
