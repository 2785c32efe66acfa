"""Property tests: tfcompat's optimizers compute what TF computes, for any valid input.

Driven by the table (`optimizer_info.OPTIMIZER_INFOS`): hypothesis draws
hyperparameters from each row's `space` (all valid), variable shapes,
float32/float64, step counts and dense or sparse (duplicate-index)
gradients, and compares with `numpy_reference.ReferenceOptimizer` (an
independent numpy transcription of TF's arithmetic, itself validated against
real TF). Also: the multi-tensor path equals the reference path;
hyperparameters changed between steps (attribute, `lr` alias, callable,
tensor, schedule) are honoured; float16/bfloat16 variables run and stay
close to a float32 run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import numpy_reference as ref
import tfcompat as tf
from tfcompat.keras.optimizers import schedules

from optimizer_info import (ALL_CONFIGS, OPTIMIZER_INFOS, HyperRange, build, config_id, to_numpy, to_tf_grad,
                            tolerance)

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]
SHAPES = [(3,), (2, 3), (4, 1), (5,), (3, 2, 2)]


def _examples(fraction: float):
    """A share of the active profile's `max_examples` (the "ci" profile keeps the suite fast)."""
    return settings(max_examples=max(5, int(settings.default.max_examples * fraction)))


def _gradient(rs, shape, dtype):
    """Gradient entries with |g| in [0.05, 1.5] and random sign.

    Keeping |g| away from 0 keeps the comparisons well-conditioned: Ftrl's
    `sqrt(acc + g*g) - sqrt(acc)` cancels catastrophically for tiny g, where
    one ulp of `sqrt` decides the result (`test_ftrl_tiny_gradient_matches_tf`
    pins that case against TF's numbers).
    """
    magnitude = rs.uniform(0.05, 1.5, shape)
    sign = np.where(rs.uniform(size=shape) < 0.5, -1.0, 1.0)
    return (magnitude * sign).astype(dtype)


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------


def _value(range_or_choice):
    if isinstance(range_or_choice, HyperRange):
        r = range_or_choice
        if r.log:
            return st.floats(math.log(r.lo), math.log(r.hi)).map(math.exp)
        return st.floats(r.lo, r.hi, allow_nan=False, allow_infinity=False)
    return st.just(range_or_choice)


def _space(spec):
    if isinstance(spec, tuple):
        return st.one_of(*[_value(c) for c in spec])
    return _value(spec)


@st.composite
def optimizer_kwargs(draw, info):
    """Valid constructor kwargs for `info` (every key of its `space`)."""
    return {key: draw(_space(spec)) for key, spec in info.space.items()}


@st.composite
def problems(draw, sparse=None, dtypes=("float32", "float64"), max_steps=4, mixed=True):
    """(dtypes, initial values, steps of gradients) for 1-3 variables.

    Each variable gets its own dtype when `mixed` (one call then spans
    several (device, dtype) groups, and Nadam's `momentum_cache` lives in
    the first variable's dtype). Gradients are numpy arrays, or
    `numpy_reference.Sparse` with duplicate indices when `sparse`; the same
    objects feed tfcompat (via `to_tf_grad`) and the reference.
    """
    n_vars = draw(st.integers(1, 3))
    if mixed:
        var_dtypes = [np.dtype(draw(st.sampled_from(dtypes))) for _ in range(n_vars)]
    else:
        var_dtypes = [np.dtype(draw(st.sampled_from(dtypes)))] * n_vars
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(n_vars)]
    n_steps = draw(st.integers(1, max_steps))
    seed = draw(st.integers(0, 2 ** 31 - 1))
    rs = np.random.RandomState(seed)
    init = [rs.uniform(-1.0, 1.0, s).astype(d) for s, d in zip(shapes, var_dtypes)]
    steps = []
    for _ in range(n_steps):
        grads = []
        for s, dtype in zip(shapes, var_dtypes):
            if sparse:
                k = int(rs.randint(1, 2 * s[0] + 1))
                idx = rs.randint(0, s[0], size=k)
                if k > 1:
                    idx[-1] = idx[0]  # at least one duplicate
                vals = _gradient(rs, (k,) + s[1:], dtype)
                grads.append(ref.Sparse(idx.astype(np.int64), vals, s))
            else:
                grads.append(_gradient(rs, s, dtype))
        steps.append(grads)
    return var_dtypes, init, steps


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _check(actual, expected, tol, what):
    rtol, atol = tol
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol,
                               atol=atol, err_msg=what)


def _reference_config(opt):
    config = opt.get_config()
    return {k: (float(v) if isinstance(v, (np.generic, np.ndarray)) else v) for k, v in config.items()}


def run_against_reference(info, kwargs, problem, multi, before_step=None):
    """Apply the steps to tfcompat and the reference side by side, comparing every step.

    `before_step(k, opt, reference)` may change hyperparameters of both.
    """
    var_dtypes, init, steps = problem
    opt = build(info, kwargs, multi_tensor=multi)
    reference = ref.ReferenceOptimizer(info.name, _reference_config(opt))
    tvars = [tf.Variable(x.copy(), name=f"v{i}") for i, x in enumerate(init)]
    rvars = [x.copy() for x in init]

    def tol(i):
        dtype = var_dtypes[i]
        if reference.momentum_cache is not None and var_dtypes[0].itemsize < dtype.itemsize:
            # Nadam's momentum_cache lives in the first variable's dtype: a float64 variable's
            # update carries the float32 cache's rounding (and the reference's float32 pow
            # differs from TF's by an ulp there), so it is only float32-accurate.
            dtype = var_dtypes[0]
        return tolerance(dtype.name, info.name, reference.config)

    for k, grads in enumerate(steps):
        if before_step is not None:
            before_step(k, opt, reference)
        opt.apply_gradients(zip([to_tf_grad(g, d) for g, d in zip(grads, var_dtypes)], tvars))
        reference.apply_gradients(grads, rvars)
        for i, (tv, rv) in enumerate(zip(tvars, rvars)):
            got = to_numpy(tv)
            assert got.dtype == var_dtypes[i]
            _check(got, rv, tol(i), f"{info.name} {kwargs} var{i} ({var_dtypes[i]}) after step {k + 1}")
    for i, tv in enumerate(tvars):
        for name in opt.get_slot_names():
            _check(to_numpy(opt.get_slot(tv, name)), reference.slots[i][name], tol(i),
                   f"{info.name} {kwargs}: slot {name} of var{i}")
    if reference.momentum_cache is not None:
        cache = opt.weights[1]
        assert cache.name.endswith("momentum_cache:0") and cache.dtype.name == var_dtypes[0].name
        _check(to_numpy(cache), reference.momentum_cache, tolerance(var_dtypes[0].name), "momentum_cache")
    assert int(opt.iterations.numpy()) == len(steps) == reference.iterations
    return opt, tvars


# ---------------------------------------------------------------------------
# tfcompat == numpy reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("multi", [True, False], ids=["multi_tensor", "reference"])
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
@_examples(0.5)
@given(data=st.data())
def test_dense_matches_reference(info, multi, data):
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    problem = data.draw(problems(sparse=False), label="problem")
    run_against_reference(info, kwargs, problem, multi)


@pytest.mark.parametrize("info", [i for i in OPTIMIZER_INFOS if i.supports_sparse],
                         ids=[i.name for i in OPTIMIZER_INFOS if i.supports_sparse])
@_examples(0.75)
@given(data=st.data())
def test_sparse_with_duplicates_matches_reference(info, data):
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    problem = data.draw(problems(sparse=True), label="problem")
    run_against_reference(info, kwargs, problem, multi=True)


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
@_examples(0.5)
@given(data=st.data())
def test_clipping_and_decay_match_reference(info, data):
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    which = data.draw(st.sampled_from(["clipnorm", "clipvalue", "global_clipnorm"]), label="clip")
    kwargs[which] = data.draw(st.floats(0.05, 2.0), label="clip_value")
    if info.supports_decay:
        kwargs["decay"] = data.draw(st.sampled_from([0.0, 0.1, 0.5]), label="decay")
    # clip_by_global_norm stacks the norms: TF rejects mixed dtypes (test_global_clipnorm_mixed_dtypes)
    problem = data.draw(problems(sparse=data.draw(st.booleans(), label="sparse"),
                                 mixed=(which != "global_clipnorm")), label="problem")
    run_against_reference(info, kwargs, problem, multi=True)


@pytest.mark.parametrize("multi", [True, False], ids=["multi_tensor", "reference"])
def test_global_clipnorm_mixed_dtypes_raise_like_tf(multi):
    """TF: `InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected to be a
    float tensor but is a double tensor [Op:Pack] name: stack`; nothing is updated."""
    a = tf.Variable([1.0, 2.0])
    b = tf.Variable(np.array([1.0], np.float64))
    opt = build("SGD", dict(learning_rate=0.1, global_clipnorm=1.0), multi_tensor=multi)
    with pytest.raises(tf.errors.InvalidArgumentError) as err:
        opt.apply_gradients([(torch.ones(2), a), (torch.ones(1, dtype=torch.float64), b)])
    assert str(err.value).startswith("cannot compute Pack as input #1(zero-based) was expected to be a float "
                                     "tensor but is a double tensor")
    np.testing.assert_array_equal(to_numpy(a), [1.0, 2.0])
    np.testing.assert_array_equal(to_numpy(b), [1.0])
    assert opt.weights == [] or int(opt.iterations.numpy()) == 0


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
@_examples(0.5)
@given(data=st.data())
def test_multi_tensor_path_equals_reference_path(info, data):
    """Many variables of mixed dtypes in one call: both update paths agree."""
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    n_steps = data.draw(st.integers(1, 3), label="steps")
    seed = data.draw(st.integers(0, 2 ** 31 - 1), label="seed")
    rs = np.random.RandomState(seed)
    specs = [(SHAPES[i % len(SHAPES)], np.float32 if i % 3 else np.float64) for i in range(7)]
    init = [rs.uniform(-1, 1, s).astype(d) for s, d in specs]
    runs = []
    for multi in (True, False):
        opt = build(info, kwargs, multi_tensor=multi)
        variables = [tf.Variable(x.copy(), name=f"w{i}") for i, x in enumerate(init)]
        rs = np.random.RandomState(seed + 1)
        for _ in range(n_steps):
            grads = [torch.from_numpy(_gradient(rs, s, d)) for s, d in specs]
            opt.apply_gradients(zip(grads, variables))
        runs.append((opt, variables))
    (fast, fast_vars), (slow, slow_vars) = runs
    assert [w.name for w in fast.weights] == [w.name for w in slow.weights]
    for (s, d), a, b in zip(specs, fast_vars, slow_vars):
        tol = tolerance(np.dtype(d).name, info.name, _reference_config(fast))
        _check(to_numpy(a), to_numpy(b), tol, f"{info.name} {kwargs} variable {s} {np.dtype(d).name}")
        for name in fast.get_slot_names():
            _check(to_numpy(fast.get_slot(a, name)), to_numpy(slow.get_slot(b, name)), tol, f"slot {name}")


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_table_configurations_match_reference(pair, sparse):
    """Every named configuration of the table (edges included), mixed float32/float64, 3 steps."""
    info, cfg = pair
    rs = np.random.RandomState(13)
    var_dtypes = [np.dtype(np.float32), np.dtype(np.float64)]
    shapes = [(4, 2), (3,)]
    init = [rs.uniform(-1, 1, s).astype(d) for s, d in zip(shapes, var_dtypes)]
    steps = []
    for _ in range(3):
        if sparse:
            steps.append([ref.Sparse(np.array([1, 3, 1]), _gradient(rs, (3, 2), np.float32), shapes[0]),
                          ref.Sparse(np.array([2, 2]), _gradient(rs, (2,), np.float64), shapes[1])])
        else:
            steps.append([_gradient(rs, s, d) for s, d in zip(shapes, var_dtypes)])
    for multi in (True, False):
        run_against_reference(info, cfg.kwargs, (var_dtypes, init, steps), multi)


# ---------------------------------------------------------------------------
# hyperparameters changed between steps
# ---------------------------------------------------------------------------

LR_CHANGES = ["attribute", "lr_alias", "tensor", "callable", "schedule"]


@pytest.mark.parametrize("how", LR_CHANGES)
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
@_examples(0.25)
@given(data=st.data())
def test_learning_rate_change_is_honoured(info, how, data):
    if how == "schedule" and not info.supports_schedule:
        pytest.skip(f"{info.name} rejects learning-rate schedules")
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    new_lr = data.draw(_value(info.space["learning_rate"]), label="new_lr")
    problem = data.draw(problems(sparse=data.draw(st.booleans(), label="sparse"), max_steps=4), label="problem")
    change_at = data.draw(st.integers(0, len(problem[2]) - 1), label="change_at")
    multi = data.draw(st.booleans(), label="multi_tensor")
    box = [kwargs["learning_rate"]]
    if how == "callable":
        kwargs = dict(kwargs, learning_rate=lambda: box[0])
    elif how == "tensor":
        kwargs = dict(kwargs, learning_rate=torch.tensor(kwargs["learning_rate"], dtype=torch.float32))
    sched = schedules.InverseTimeDecay(initial_learning_rate=new_lr, decay_steps=2, decay_rate=0.5)

    def before_step(k, opt, reference):
        if k != change_at:
            return
        if how == "attribute":
            opt.learning_rate = new_lr
        elif how == "lr_alias":
            opt.lr = new_lr
        elif how == "tensor":
            opt.learning_rate = torch.tensor(new_lr, dtype=torch.float32)
        elif how == "callable":
            box[0] = new_lr
        else:
            opt.learning_rate = sched
            reference.set_hyper("learning_rate", schedules.serialize(sched))
            return
        reference.set_hyper("learning_rate", new_lr)

    run_against_reference(info, kwargs, problem, multi, before_step=before_step)


@pytest.mark.parametrize("info", [i for i in OPTIMIZER_INFOS if set(i.settable) - {"learning_rate"}],
                         ids=[i.name for i in OPTIMIZER_INFOS if set(i.settable) - {"learning_rate"}])
@_examples(0.5)
@given(data=st.data())
def test_other_hyperparameter_changes_are_honoured(info, data):
    kwargs = data.draw(optimizer_kwargs(info), label="kwargs")
    changes = {}
    for name in info.settable:
        if name == "learning_rate":
            continue
        if kwargs.get(name, info.defaults[name]) == 0.0 and name == "momentum":
            continue  # momentum switched on later has no slot in TF either; not a change to test
        changes[name] = data.draw(_space(info.space[name]).filter(lambda x: name != "momentum" or x > 0),
                                  label=name)
    problem = data.draw(problems(sparse=data.draw(st.booleans(), label="sparse")), label="problem")
    change_at = data.draw(st.integers(0, len(problem[2]) - 1), label="change_at")
    multi = data.draw(st.booleans(), label="multi_tensor")

    def before_step(k, opt, reference):
        if k == change_at:
            for name, value in changes.items():
                setattr(opt, name, value)
                reference.set_hyper(name, value)

    run_against_reference(info, kwargs, problem, multi, before_step=before_step)


# ---------------------------------------------------------------------------
# half precision
# ---------------------------------------------------------------------------



@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_half_precision_runs_close_to_float32(info, sparse, half):
    rs = np.random.RandomState(7)
    init = rs.uniform(-1, 1, (4, 3)).astype(np.float32)
    steps = []
    for _ in range(3):
        if sparse:
            steps.append((rs.normal(0, 0.5, (3, 3)).astype(np.float32), np.array([0, 2, 0])))
        else:
            steps.append((rs.normal(0, 0.5, (4, 3)).astype(np.float32), None))
    results = {}
    for dtype in ("float32", half):
        tdtype = getattr(torch, dtype)
        opt = build(info, dict(info.typical_kwargs(), **info.half_overrides.get(half, {})))
        var = tf.Variable(torch.from_numpy(init).to(tdtype), name="h")
        for values, idx in steps:
            g = torch.from_numpy(values).to(tdtype)
            if idx is not None:
                g = tf.IndexedSlices(g, torch.from_numpy(idx).to(torch.int32))
            opt.apply_gradients([(g, var)])
        assert var.dtype.name == dtype
        for name in opt.get_slot_names():
            assert opt.get_slot(var, name).dtype.name == dtype
        results[dtype] = to_numpy(var).astype(np.float32)
        assert np.all(np.isfinite(results[dtype]))
    atol = 2e-2 if half == "float16" else 6e-2
    np.testing.assert_allclose(results[half], results["float32"], rtol=atol, atol=atol)
    assert not np.array_equal(results["float32"], init)


def test_nadam_bfloat16_default_beta_2_gives_nan_like_tf():
    """TF's Nadam on a bfloat16 variable with beta_2=0.999 (== 1.0 in bfloat16) yields NaN."""
    var = tf.Variable(torch.ones(3, dtype=torch.bfloat16))
    opt = tf.keras.optimizers.Nadam(0.01)
    opt.apply_gradients([(torch.full((3,), 0.5, dtype=torch.bfloat16), var)])
    assert not np.any(np.isfinite(to_numpy(var)))


@pytest.mark.parametrize("multi", [True, False], ids=["multi_tensor", "reference"])
def test_ftrl_tiny_gradient_matches_tf(multi):
    """A tiny gradient against a large accumulator: TF (and the reference) give these numbers.

    `sqrt(0.625 + g*g) - sqrt(0.625)` spans ~10 ulp, so a `sqrt` that is not
    correctly rounded moves `linear` by ~10%; TF's kernel rounds correctly.
    Values recorded from tf_keras 2.21 (legacy Ftrl, CPU).
    """
    init = np.array([0.26199996, 0.7646086, -0.4828967], np.float32)
    grad = np.array([0.21314242, -0.09089203, 0.00099609], np.float32)
    var = tf.Variable(init)
    opt = build("Ftrl", dict(learning_rate=float(np.exp(-4.0)), initial_accumulator_value=0.625), multi_tensor=multi)
    opt.apply_gradients([(torch.from_numpy(grad), var)])
    tf_var = np.array([4.2647519e-03, 7.0957756e-03, -2.3477536e-05], np.float32)
    tf_linear = np.array([-0.19065505, -0.308297, 0.00101338], np.float32)
    reference = ref.ReferenceOptimizer("Ftrl", dict(learning_rate=float(np.exp(-4.0)), initial_accumulator_value=0.625))
    rvars = [init.copy()]
    reference.apply_gradients([grad], rvars)
    np.testing.assert_allclose(rvars[0], tf_var, rtol=1e-6)  # the reference agrees with TF
    np.testing.assert_allclose(to_numpy(opt.get_slot(var, "linear")), tf_linear, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(var), tf_var, rtol=1e-5, atol=1e-6)


EDGES = [(info, name, value) for info in OPTIMIZER_INFOS for name, values in info.hyper_edges.items()
         for value in values]


@pytest.mark.parametrize("multi", [True, False], ids=["multi_tensor", "reference"])
@pytest.mark.parametrize("info,name,value", EDGES, ids=[f"{i.name}-{n}={v}" for i, n, v in EDGES])
def test_hyperparameter_set_to_an_edge_value(info, name, value, multi):
    """`opt.<hyper> = <edge of its range>` between steps, dense and sparse, float32 and float64."""
    kwargs = info.typical_kwargs()
    rs = np.random.RandomState(11)
    var_dtypes = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float32)]
    shapes = [(3,), (2, 3), (4, 2)]
    init = [rs.uniform(-1, 1, s).astype(d) for s, d in zip(shapes, var_dtypes)]
    steps = []
    for _ in range(3):
        grads = [_gradient(rs, s, d) for s, d in zip(shapes[:2], var_dtypes[:2])]
        grads.append(ref.Sparse(np.array([0, 3, 0]), _gradient(rs, (3, 2), np.float32), shapes[2]))
        steps.append(grads)

    def before_step(k, opt, reference):
        if k == 1:
            setattr(opt, name, value)
            reference.set_hyper(name, value)

    run_against_reference(info, kwargs, (var_dtypes, init, steps), multi, before_step=before_step)
