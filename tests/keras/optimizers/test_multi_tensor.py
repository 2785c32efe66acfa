"""The multi-tensor fast path (`multi_tensor.py` + `_multi_tensor_apply_dense`).

Properties, for every table configuration:

* it is the path built-ins take for dense gradients (and only then);
* variables and slot values equal the reference path's (`use_multi_tensor=False`);
* snapshots users read between steps keep their values (copy-on-write) and
  the step still lands on the variable and its slots;
* no per-step host read: after the first step, steps convert no device
  scalar (hyperparameters) to a Python number, and the iteration count never
  reaches the host at all; a write from outside (`opt.iterations.assign(...)`,
  `opt.beta_1 = ...`) causes exactly one refresh of a mirrored scalar, and the
  new value is used.

Host reads are counted by wrapping the `convert` callback that
`multi_tensor.HostMirrors.read` calls on a cache miss.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import struct
import traceback

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.optimizers import multi_tensor
from tfcompat.keras.optimizers.optimizer_v2 import OptimizerV2

from optimizer_info import (ALL_CONFIGS, INFO_BY_NAME, OPTIMIZER_INFOS, HyperRange, build, config_id,
                            to_numpy, tolerance)

CONFIG_IDS = [config_id(p) for p in ALL_CONFIGS]


def _problem(seed=0, dtypes=(np.float32, np.float32, np.float64)):
    rs = np.random.RandomState(seed)
    shapes = [(3,), (2, 3), (4, 2)]
    init = [rs.uniform(-1, 1, s).astype(d) for s, d in zip(shapes, dtypes)]
    steps = [[rs.uniform(0.05, 1.0, s).astype(d) * np.where(rs.uniform(size=s) < 0.5, -1, 1).astype(d)
              for s, d in zip(shapes, dtypes)] for _ in range(4)]
    return init, steps


def _variables(init, prefix="v"):
    return [tf.Variable(x.copy(), name=f"{prefix}{i}") for i, x in enumerate(init)]


def _apply(opt, variables, grads):
    opt.apply_gradients(zip([torch.from_numpy(g) for g in grads], variables))


@contextlib.contextmanager
def _counting_host_reads():
    """Count HostMirrors conversions (cache misses) by key while the block runs."""
    counts: collections.Counter = collections.Counter()
    original = multi_tensor.HostMirrors.read

    def read(self, key, tensor, convert):
        def counting(t):
            counts[key] += 1
            return convert(t)
        return original(self, key, tensor, counting)

    multi_tensor.HostMirrors.read = read
    try:
        yield counts
    finally:
        multi_tensor.HostMirrors.read = original


@pytest.fixture
def host_reads():
    """A Counter of HostMirrors conversions (cache misses) by key."""
    with _counting_host_reads() as counts:
        yield counts


# ---------------------------------------------------------------------------
# which path runs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_dense_built_ins_take_the_multi_tensor_path(pair, monkeypatch):
    info, cfg = pair
    calls = collections.Counter()
    cls = info.cls
    fast, slow = cls._multi_tensor_apply_dense, cls._resource_apply_dense

    def spy_fast(self, group, grads, coefficients):
        calls["fast"] += len(group)
        return fast(self, group, grads, coefficients)

    def spy_slow(self, *args, **kwargs):
        calls["slow"] += 1
        return slow(self, *args, **kwargs)

    monkeypatch.setattr(cls, "_multi_tensor_apply_dense", spy_fast)
    monkeypatch.setattr(cls, "_resource_apply_dense", spy_slow)
    monkeypatch.setattr(cls, "_multi_tensor_ok", True, raising=False)  # the spies are not overrides
    init, steps = _problem()
    opt = cls(**cfg.kwargs)
    variables = _variables(init)
    _apply(opt, variables, steps[0])
    assert calls == {"fast": 3}
    opt.use_multi_tensor = False
    _apply(opt, variables, steps[1])
    assert calls == {"fast": 3, "slow": 3}
    # sparse gradients always take the per-variable path
    opt.use_multi_tensor = True
    calls.clear()
    opt.apply_gradients([(tf.IndexedSlices(torch.ones(2, 2, dtype=torch.float64), torch.tensor([0, 0])),
                          variables[2]), (torch.ones(3), variables[0])])
    assert calls == {"fast": 1}


def test_subclass_rules_are_never_replaced_by_the_fast_path():
    class MyRule(OptimizerV2):
        def __init__(self):
            super().__init__("MyRule")
            self._set_hyper("learning_rate", 0.5)

        def _resource_apply_dense(self, grad, var, apply_state=None):
            return var.assign_sub(grad * 2.0)

        def get_config(self):
            return super().get_config()

    assert not MyRule._has_multi_tensor()
    v = tf.Variable([1.0, 2.0])
    MyRule().apply_gradients([(torch.ones(2), v)])
    np.testing.assert_array_equal(to_numpy(v), [-1.0, 0.0])


# ---------------------------------------------------------------------------
# equal to the reference path
# ---------------------------------------------------------------------------


def _run(info, kwargs, init, steps, multi, between=None):
    opt = build(info, kwargs, multi_tensor=multi)
    variables = _variables(init)
    for k, grads in enumerate(steps):
        if between is not None:
            between(k, opt, variables)
        _apply(opt, variables, grads)
    return opt, variables


def _assert_same(info, a, b, what=""):
    (opt_a, vars_a), (opt_b, vars_b) = a, b
    assert opt_a.get_slot_names() == opt_b.get_slot_names()
    assert [w.name for w in opt_a.weights] == [w.name for w in opt_b.weights]
    config = {k: float(v) if isinstance(v, (np.generic, np.ndarray)) else v for k, v in opt_a.get_config().items()}
    for x, y in zip(vars_a, vars_b):
        tol = tolerance(x.dtype.name, info.name, config)
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), *tol, err_msg=f"{what} {x.name}")
        for name in opt_a.get_slot_names():
            np.testing.assert_allclose(to_numpy(opt_a.get_slot(x, name)), to_numpy(opt_b.get_slot(y, name)), *tol,
                                       err_msg=f"{what} slot {name} of {x.name}")
    for wa, wb in zip(opt_a.weights, opt_b.weights):  # iter, momentum_cache, slots
        np.testing.assert_allclose(to_numpy(wa).astype(np.float64), to_numpy(wb).astype(np.float64),
                                   *tolerance(wa.dtype.name if wa.dtype.is_floating else "float64"),
                                   err_msg=f"{what} weight {wa.name}")


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_slots_and_variables_equal_reference_path(pair):
    info, cfg = pair
    init, steps = _problem()
    _assert_same(info, _run(info, cfg.kwargs, init, steps, True), _run(info, cfg.kwargs, init, steps, False),
                 config_id(pair))


# ---------------------------------------------------------------------------
# copy-on-write snapshots
# ---------------------------------------------------------------------------

READS = {
    "value": lambda v: v.value(),
    "read_value": lambda v: v.read_value(),
    "identity": lambda v: tf.identity(v),
    "convert_to_tensor": lambda v: tf.convert_to_tensor(v),
    "view": lambda v: v.value()[0],
    "arithmetic_alias": lambda v: v.value().reshape(-1),
}


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_snapshots_survive_steps_and_steps_land(pair, read):
    info, cfg = pair
    init, steps = _problem(seed=3)
    baseline = _run(info, cfg.kwargs, init, steps, True)
    held = []  # (snapshot, numpy copy at read time)

    def between(k, opt, variables):
        if k == 0:
            return
        for v in variables:
            snap = READS[read](v)
            held.append((snap, np.array(to_numpy(snap), copy=True)))
            for name in opt.get_slot_names():
                snap = READS[read](opt.get_slot(v, name))
                held.append((snap, np.array(to_numpy(snap), copy=True)))

    result = _run(info, cfg.kwargs, init, steps, True, between=between)
    for snap, at_read in held:
        np.testing.assert_array_equal(to_numpy(snap), at_read)
    (opt_a, vars_a), (opt_b, vars_b) = result, baseline
    for x, y in zip(vars_a, vars_b):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(y))
        for name in opt_a.get_slot_names():
            np.testing.assert_array_equal(to_numpy(opt_a.get_slot(x, name)), to_numpy(opt_b.get_slot(y, name)))


def test_snapshot_taken_inside_a_tape_survives_the_step():
    v = tf.Variable([1.0, 2.0, 3.0])
    opt = tf.keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        seen = v.value()
        loss = tf.reduce_sum(tf.multiply(v, v))
    grads = tape.gradient(loss, [v])
    opt.apply_gradients(zip(grads, [v]))
    np.testing.assert_array_equal(to_numpy(seen), [1.0, 2.0, 3.0])
    assert not np.array_equal(to_numpy(v), [1.0, 2.0, 3.0])


# ---------------------------------------------------------------------------
# host reads
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_no_host_reads_after_the_first_step(pair, host_reads):
    info, cfg = pair
    init, steps = _problem()
    opt = build(info, cfg.kwargs)
    variables = _variables(init)
    _apply(opt, variables, steps[0])
    first = dict(host_reads)
    host_reads.clear()
    for grads in steps[1:]:
        _apply(opt, variables, grads)
        # what users do between steps: log the step count, keep a snapshot of it
        int(opt.iterations.numpy())
        kept = opt.iterations.value()  # noqa: F841
    assert dict(host_reads) == {}, f"host reads after the first step: {dict(host_reads)} (first: {first})"


def _new_value(info, name):
    if name in info.settable:
        return info.settable[name]
    spec = info.space[name]
    options = spec if isinstance(spec, tuple) else (spec,)
    for option in options:
        if isinstance(option, HyperRange):
            return (option.lo + option.hi) / 2
    raise AssertionError(f"no new value for {info.name}.{name}")


def _mirrored(info, cfg):
    """The host-mirrored scalars of a configuration: the keys its first step converts."""
    init, steps = _problem()
    opt = build(info, cfg.kwargs)
    with _counting_host_reads() as counts:
        _apply(opt, _variables(init), steps[0])
    return sorted(counts, key=str)


MIRRORED = [(info, cfg, key) for info, cfg in ALL_CONFIGS for key in _mirrored(info, cfg)]


def test_some_scalars_are_mirrored():
    """The fast path mirrors Adam's beta_1 and beta_2 (the fused kernel's host floats) and, on
    the CPU, the step count (its bias correction runs on NumPy scalars there; each increment
    advances the mirror, so steady steps read nothing: `test_no_host_reads_after_the_first_step`)."""
    keys = {(info.name, str(key)) for info, _, key in MIRRORED}
    assert any(name == "Adam" and "beta_1" in key for name, key in keys)
    assert any(name == "Adam" and "beta_2" in key for name, key in keys)
    assert any(name == "Adam" and key == "iterations" for name, key in keys)
    # only Adam's coefficients take the host path
    assert {name for name, key in keys if key == "iterations"} == {"Adam"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lr", ["float", "variable", "callable"])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_host_coefficients_equal_the_device_ones_bit_for_bit(dtype, lr, amsgrad):
    """Adam's step size on NumPy scalars (CPU) and as device tensors (an accelerator's path,
    here CPU tensors standing in) give the same bits, step after step, for every form of
    learning rate the host path takes."""
    from tfcompat.testing import accelerator_policy
    rs = np.random.RandomState(3)
    init = [rs.uniform(-1, 1, (7,)).astype(dtype), rs.uniform(-1, 1, (3, 4)).astype(dtype)]
    grads = [[rs.uniform(-1, 1, w.shape).astype(dtype) for w in init] for _ in range(40)]

    def learning_rate():
        return {"float": 0.01, "variable": tf.Variable(0.01, dtype=tf.float32),
                "callable": lambda: 0.01}[lr]

    def run(device_path):
        if device_path:
            with accelerator_policy():
                variables = [tf.Variable(w) for w in init]
                opt = tf.keras.optimizers.Adam(learning_rate(), amsgrad=amsgrad)
                assert opt._host_step(variables[0].value().dtype) is None
                for step in grads:
                    opt.apply_gradients(zip([torch.from_numpy(g) for g in step], variables))
        else:
            variables = [tf.Variable(w) for w in init]
            opt = tf.keras.optimizers.Adam(learning_rate(), amsgrad=amsgrad)
            for step in grads:
                opt.apply_gradients(zip([torch.from_numpy(g) for g in step], variables))
            assert opt._host_step(variables[0].value().dtype) is not None
        return [to_numpy(v) for v in variables]

    for host, device in zip(run(False), run(True)):
        np.testing.assert_array_equal(host, device)


def _perturb(info, key, opt):
    if key == "iterations":
        opt.iterations.assign(opt.iterations.numpy() + 5)
    else:
        name = key[0]
        setattr(opt, name, _new_value(info, name))


@pytest.mark.parametrize("info,cfg,key", MIRRORED,
                         ids=[f"{i.name}/{c.name}/{k if isinstance(k, str) else k[0] + '-' + str(k[1])}"
                              for i, c, k in MIRRORED])
def test_outside_write_refreshes_once_and_is_honoured(info, cfg, key, host_reads):
    init, steps = _problem()

    def between(k, opt, variables):
        if k == 2:
            _perturb(info, key, opt)

    counts_per_step = []

    def between_counting(k, opt, variables):
        counts_per_step.append(dict(host_reads))
        host_reads.clear()
        between(k, opt, variables)

    fast = _run(info, cfg.kwargs, init, steps, True, between=between_counting)
    counts_per_step.append(dict(host_reads))
    # counts_per_step[k] holds the reads of step k - 1 (index 0: before the first step)
    assert counts_per_step[2] == {}, counts_per_step
    assert counts_per_step[3].get(key) == 1, f"step after the write: {counts_per_step[3]}"
    assert counts_per_step[4] == {}, counts_per_step
    slow = _run(info, cfg.kwargs, init, steps, False, between=between)
    _assert_same(info, fast, slow, f"{info.name}/{cfg.name} after writing {key}")


def test_iterations_assign_is_honoured_by_adam():
    """Adam's bias correction uses the assigned step count on the very next step."""
    init, steps = _problem(dtypes=(np.float64, np.float64, np.float64))
    a = build("Adam", dict(learning_rate=0.1))
    b = build("Adam", dict(learning_rate=0.1), multi_tensor=False)
    va, vb = _variables(init), _variables(init)
    for opt, vs in ((a, va), (b, vb)):
        _apply(opt, vs, steps[0])
        opt.iterations.assign(100)
        _apply(opt, vs, steps[1])
        assert int(opt.iterations.numpy()) == 101
    for x, y in zip(va, vb):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), rtol=1e-12, atol=1e-14)
    # and it differs from not assigning (the bias correction changed)
    c = build("Adam", dict(learning_rate=0.1))
    vc = _variables(init)
    _apply(c, vc, steps[0])
    _apply(c, vc, steps[1])
    assert not np.allclose(to_numpy(vc[0]), to_numpy(va[0]), rtol=1e-9, atol=0)


def test_mixed_dtypes_and_many_variables_in_one_call():
    info = INFO_BY_NAME["Adam"]
    rs = np.random.RandomState(5)
    init = [rs.uniform(-1, 1, (i % 4 + 1, 3)).astype(np.float64 if i % 2 else np.float32) for i in range(40)]
    steps = [[rs.uniform(-1, 1, x.shape).astype(x.dtype) for x in init] for _ in range(3)]
    _assert_same(info, _run(info, {"learning_rate": 0.05, "amsgrad": True}, init, steps, True),
                 _run(info, {"learning_rate": 0.05, "amsgrad": True}, init, steps, False), "40 variables")


# ---------------------------------------------------------------------------
# outside writes and changing variable lists
# ---------------------------------------------------------------------------

WRITES = {
    "assign_variable": lambda opt, vs: vs[0].assign(np.full(vs[0].shape.as_list(), 0.5, to_numpy(vs[0]).dtype)),
    "assign_add_variable": lambda opt, vs: vs[1].assign_add(np.ones(vs[1].shape.as_list(), to_numpy(vs[1]).dtype)),
    "slice_assign_variable": lambda opt, vs: vs[1][0].assign(np.zeros(3, to_numpy(vs[1]).dtype)),
    "assign_slots": lambda opt, vs: [opt.get_slot(v, s).assign(np.full(v.shape.as_list(), 0.25, to_numpy(v).dtype))
                                     for v in vs for s in opt.get_slot_names()],
    "set_weights": lambda opt, vs: opt.set_weights([np.asarray(w) * 0 + (1 if np.ndim(w) == 0 else 0.125)
                                                    for w in opt.get_weights()]),
}


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_outside_writes_between_steps_are_honoured(pair, write):
    info, cfg = pair
    init, steps = _problem(seed=4)

    def between(k, opt, variables):
        if k == 2:
            WRITES[write](opt, variables)

    _assert_same(info, _run(info, cfg.kwargs, init, steps, True, between=between),
                 _run(info, cfg.kwargs, init, steps, False, between=between), f"{config_id(pair)} {write}")


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Ftrl"])
def test_rotating_variable_lists(name):
    """More distinct variable lists than the step-plan cache holds, in changing orders."""
    info = INFO_BY_NAME[name]
    kwargs = dict(info.configs[2].kwargs)
    rs = np.random.RandomState(9)
    init = [rs.uniform(-1, 1, (i % 3 + 1, 2)).astype(np.float32) for i in range(6)]
    lists = [[i % 6, (i + 1) % 6, (i * 5 + 2) % 6] for i in range(12)] + [[5, 4, 3, 2, 1, 0], [0]]
    lists = [sorted(set(l), key=l.index) for l in lists]
    results = []
    for multi in (True, False):
        opt = build(info, kwargs, multi_tensor=multi)
        variables = _variables(init)
        g_rs = np.random.RandomState(10)
        for rnd in range(2):
            for idx in lists:
                grads = [torch.from_numpy(g_rs.uniform(-1, 1, init[i].shape).astype(np.float32)) for i in idx]
                opt.apply_gradients(zip(grads, [variables[i] for i in idx]))
        results.append((opt, variables))
    _assert_same(info, *results, f"{name} rotating lists")


# ---------------------------------------------------------------------------
# tensor hyperparameters are mirrored too (or stay on the device)
# ---------------------------------------------------------------------------

TENSOR_HYPERS = [  # (optimizer, kwargs, hyperparameter given as a tensor, value written later,
    #                 whether a kernel takes it as a host float)
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}, "momentum", 0.5, True),
    ("Adam", {"beta_1": 0.9}, "beta_1", 0.8, True),
    ("Adam", {"beta_2": 0.999}, "beta_2", 0.99, True),
    ("Adamax", {"beta_1": 0.9}, "beta_1", 0.7, False),
    ("RMSprop", {"momentum": 0.5, "rho": 0.9}, "rho", 0.8, False),
    ("RMSprop", {"momentum": 0.5}, "momentum", 0.25, False),
    ("Ftrl", {"l1_regularization_strength": 0.01}, "l1_regularization_strength", 0.05, False),
]


@pytest.mark.parametrize("name,kwargs,hyper,new,mirrored", TENSOR_HYPERS,
                         ids=[f"{n}-{h}" for n, _, h, _, _ in TENSOR_HYPERS])
def test_tensor_hyperparameters_are_read_once_per_write(name, kwargs, hyper, new, mirrored, host_reads):
    """`SGD(momentum=torch.tensor(0.9))`: where a fused kernel takes the hyperparameter as a host
    float, the fast path mirrors the tensor like a variable hyperparameter (keyed by the tensor
    and its version), instead of a conversion per step; the foreach cores take it as a device
    tensor and never read it on the host."""
    init, steps = _problem()
    info = INFO_BY_NAME[name]
    tensors = []

    def make(multi):
        t = torch.tensor(kwargs[hyper])
        tensors.append(t)
        return build(info, {**kwargs, hyper: t}, multi_tensor=multi)

    per_step = []

    def between(k, opt, variables):
        per_step.append({key: n for key, n in host_reads.items() if key[0] == hyper})
        host_reads.clear()
        if k == 2:
            for t in tensors:
                t.fill_(new)  # an in-place write by the user

    fast_opt = make(True)
    fast_vars = _variables(init)
    for k, grads in enumerate(steps):
        between(k, fast_opt, fast_vars)
        _apply(fast_opt, fast_vars, grads)
    between(len(steps), fast_opt, fast_vars)
    keys = {(hyper, torch.float32), (hyper, torch.float64)} if mirrored else set()
    # per_step[k] holds the reads of step k - 1
    assert per_step[1] == dict.fromkeys(keys, 1), per_step
    assert per_step[2] == {}, per_step
    assert per_step[3] == dict.fromkeys(keys, 1), per_step  # the write is seen, once
    assert per_step[4] == {}, per_step
    slow_opt = make(False)
    slow_vars = _variables(init)
    for k, grads in enumerate(steps):
        if k == 2:
            tensors[-1].fill_(new)
        _apply(slow_opt, slow_vars, grads)
    _assert_same(info, (fast_opt, fast_vars), (slow_opt, slow_vars), f"{name} {hyper} tensor")


# ---------------------------------------------------------------------------
# no scalar traffic between host and device in a step
# ---------------------------------------------------------------------------

_SCALAR_BUILDERS = ("tensor", "as_tensor", "from_numpy")
_HOST_READS = ("__float__", "__int__", "__bool__", "__index__", "item", "tolist", "numpy")


def _origin() -> str:
    """The innermost tfcompat frame of the current stack (where a counted call came from)."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        if f"{os.sep}tfcompat{os.sep}" in frame.filename:
            return f"{frame.filename.split(os.sep + 'tfcompat' + os.sep)[-1]}:{frame.lineno}"
    return "?"


@pytest.fixture
def scalar_traffic(monkeypatch):
    """Counts, while `scalar_traffic.on` is set, tensors built from host data (`torch.tensor`,
    ...: a blocking host-to-device copy on an accelerator) and device values read on the host
    (`float(t)`, `t.item()`, ...: a sync), by (function, tfcompat origin)."""
    counts: collections.Counter = collections.Counter()
    counts.on = False

    def counting(name, fn):
        def wrapper(*args, **kwargs):
            if counts.on:
                counts[(name, _origin())] += 1
            return fn(*args, **kwargs)
        return wrapper

    for name in _SCALAR_BUILDERS:
        monkeypatch.setattr(torch, name, counting(f"torch.{name}", getattr(torch, name)))
    for name in _HOST_READS:
        monkeypatch.setattr(torch.Tensor, name, counting(f"Tensor.{name}", getattr(torch.Tensor, name)))
    return counts


SCHEDULES = {
    "exponential": lambda: tf.keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5),
    "piecewise": lambda: tf.keras.optimizers.schedules.PiecewiseConstantDecay([1, 3], [0.1, 0.05, 0.01]),
    "polynomial": lambda: tf.keras.optimizers.schedules.PolynomialDecay(0.1, 4, cycle=True),
    "inverse_time": lambda: tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 2, 0.5),
    "cosine": lambda: tf.keras.optimizers.schedules.CosineDecay(0.1, 4),
    "cosine_warmup": lambda: tf.keras.optimizers.schedules.CosineDecay(0.1, 4, warmup_target=0.2,
                                                                         warmup_steps=2),
    "cosine_restarts": lambda: tf.keras.optimizers.schedules.CosineDecayRestarts(0.1, 2),
}
TRAFFIC_CASES = ([(info, cfg.kwargs, config_id((info, cfg))) for info, cfg in ALL_CONFIGS]
                 + [(info, {**info.typical_kwargs(), "decay": 0.1}, f"{info.name}/decay")
                    for info in OPTIMIZER_INFOS if info.supports_decay]
                 + [(INFO_BY_NAME[name], {"learning_rate": schedule}, f"{name}/{key}")
                    for name in ("SGD", "Adam") for key, schedule in SCHEDULES.items()])


@pytest.mark.parametrize("info,kwargs,case_id", TRAFFIC_CASES, ids=[c for _, _, c in TRAFFIC_CASES])
def test_steps_copy_no_scalars_between_host_and_device(info, kwargs, case_id, scalar_traffic):
    """After the first step, a step builds no tensor from a Python number and reads no device
    value on the host (constants such as epsilon are built once; host floats are mirrored)."""
    init, steps = _problem()
    kwargs = {k: v() if callable(v) and k == "learning_rate" else v for k, v in kwargs.items()}
    opt = build(info, kwargs)
    variables = _variables(init)
    grads = [[torch.from_numpy(g) for g in step] for step in steps]
    opt.apply_gradients(zip(grads[0], variables))
    scalar_traffic.on = True
    for step in grads[1:]:
        opt.apply_gradients(zip(step, variables))
    scalar_traffic.on = False
    assert dict(scalar_traffic) == {}


# ---------------------------------------------------------------------------
# each path computes the coefficients it reads, once per step
# ---------------------------------------------------------------------------

# The optimizers whose fused-capable cores take their own coefficients
# (`_multi_tensor_coefficients`): a multi-tensor step never builds TF's apply_state for them.
OWN_COEFFICIENTS = ("SGD", "Adam", "Adagrad")


def _count_prepare_local(monkeypatch, cls):
    calls = collections.Counter()
    original = cls._prepare_local

    def spy(self, var_device, var_dtype, apply_state):
        calls[(var_device, var_dtype)] += 1
        assert type(apply_state) is dict and type(apply_state[(var_device, var_dtype)]) is dict
        return original(self, var_device, var_dtype, apply_state)

    monkeypatch.setattr(cls, "_prepare_local", spy)
    monkeypatch.setattr(cls, "_multi_tensor_ok", True, raising=False)  # the spy is not an override
    return calls


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_each_path_prepares_its_coefficients_once_per_step(pair, monkeypatch):
    """A dense multi-tensor step prepares TF's apply_state (`_prepare_local`) only for the cores
    that read it, once per (device, dtype); a step with sparse gradients prepares it once per
    (device, dtype) for the per-variable rules, however many variables take them."""
    info, cfg = pair
    calls = _count_prepare_local(monkeypatch, info.cls)
    init, steps = _problem()
    opt = build(info, cfg.kwargs)
    variables = _variables(init)  # float32, float32, float64: two keys
    _apply(opt, variables, steps[0])
    calls.clear()
    _apply(opt, variables, steps[1])
    expected = 0 if info.name in OWN_COEFFICIENTS else 1
    assert sorted(calls.values()) == [expected] * (2 if expected else 0), dict(calls)
    calls.clear()
    sparse = [tf.IndexedSlices(torch.from_numpy(g[:1].copy()), torch.tensor([0])) for g in steps[2][1:]]
    opt.apply_gradients(zip([torch.from_numpy(steps[2][0])] + sparse, variables))
    assert sorted(calls.values()) == [1, 1], dict(calls)


def test_rules_receive_a_plain_apply_state_dict():
    """What `_resource_apply_dense` receives is TF's apply_state: a dict of dicts, with TF's keys."""
    seen = []

    class Spy(tf.keras.optimizers.Adam):
        def _resource_apply_dense(self, grad, var, apply_state=None):
            seen.append(apply_state)
            return super()._resource_apply_dense(grad, var, apply_state)

    v = tf.Variable([1.0, 2.0])
    Spy(0.1).apply_gradients([(torch.ones(2), v)])
    (state,) = seen
    assert type(state) is dict and list(state) == [(v.device, v.dtype)]
    entry = state[(v.device, v.dtype)]
    assert type(entry) is dict
    assert {"lr_t", "lr", "epsilon", "beta_1_t", "beta_1_power", "one_minus_beta_1_t", "beta_2_t",
            "beta_2_power", "one_minus_beta_2_t"} <= set(entry)


# ---------------------------------------------------------------------------
# cached constants round exactly as building them each step did
# ---------------------------------------------------------------------------

_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
         torch.float64: torch.int64}


def _constant_values():
    rs = np.random.RandomState(11)
    special = [0.0, -0.0, 1.0, 0.1, 1e-7, 1e-8, 0.9, 0.999, 1 / 3, math.pi, 65504.0, 65520.0, 70000.0,
               5e-324, 1e-40, 1e-45, 3.4028235e38, 3.5e38, 1e300, float("inf"), float("-inf"), float("nan"),
               0.5 + 2 ** -12, 1 + 2 ** -11 + 2 ** -30, 2, 0, -3]
    return special + list(rs.uniform(-1, 1, 200) * 10.0 ** rs.randint(-30, 30, 200))


def _same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and bool((a.view(_BITS[a.dtype]) == b.view(_BITS[b.dtype])).all())


@pytest.mark.parametrize("dtype", list(_BITS), ids=str)
def test_cached_constants_round_as_torch_tensor(dtype):
    cpu = torch.device("cpu")
    for value in _constant_values():
        t = multi_tensor.scalar(value, dtype, cpu)
        assert t is multi_tensor.scalar(value, dtype, cpu)  # built once
        assert t.device == cpu
        assert _same_bits(t, torch.tensor(value, dtype=dtype)), (value, t)
        via = multi_tensor.scalar(value, dtype, cpu, via=torch.float32)
        assert _same_bits(via, torch.tensor(value, dtype=torch.float32).to(dtype)), (value, via)
        for got, want in (
                (multi_tensor.host_value(value, dtype), float(torch.tensor(value, dtype=dtype).to(torch.float64))),
                (multi_tensor.round_to(value, dtype),
                 float(torch.tensor(value, dtype=torch.float32).to(dtype).to(torch.float64))),
                (multi_tensor.one_minus(value, dtype),
                 float((torch.ones((), dtype=dtype) - torch.tensor(value, dtype=dtype)).to(torch.float64)))):
            assert struct.pack("<d", got) == struct.pack("<d", want) or (math.isnan(got) and math.isnan(want)), \
                (value, got, want)


def test_cached_constants_keep_the_sign_of_zero():
    cpu = torch.device("cpu")
    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        multi_tensor.scalar(first, torch.float32, cpu)
        assert math.copysign(1.0, float(multi_tensor.scalar(second, torch.float32, cpu))) == math.copysign(1.0, second)
        multi_tensor.round_to(first, torch.float32)
        assert math.copysign(1.0, multi_tensor.round_to(second, torch.float32)) == math.copysign(1.0, second)
        multi_tensor.host_value(first, torch.float64)
        assert math.copysign(1.0, multi_tensor.host_value(second, torch.float64)) == math.copysign(1.0, second)
