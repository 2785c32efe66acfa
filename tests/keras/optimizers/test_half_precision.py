"""Half precision and tiny learning rates: the multi-tensor path rounds as TF does.

TF's CPU training kernels evaluate their Eigen expressions in the
variable's dtype, rounding every operation (`Eigen::half` and
`Eigen::bfloat16` compute each operation in float32 and round back);
tf_keras' Python-level rules round per TF op. torch's fused kernels compute
half precision in float32 and round once, so the multi-tensor path runs TF's
operations one by one there. The properties:

* on float16 and bfloat16, in regimes where rounding matters (large
  gradients whose squares overflow, tiny ones whose squares underflow), the
  multi-tensor path gives the per-variable reference path's values bit for
  bit, for every configuration (the reference path is checked against TF's
  recorded values in `test_golden.py`);
* SGD with momentum is exact for every learning rate, in every dtype: the
  variable and its accumulator equal an operation-by-operation replay of
  TF's `ResourceApplyKerasMomentum` (numpy in float16/32/64, which rounds
  each operation as TF does: checked against TF 2.21 for the rates below).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf

from optimizer_info import ALL_CONFIGS, INFO_BY_NAME, build, config_id

CONFIG_IDS = [config_id(p) for p in ALL_CONFIGS]
HALF = (torch.float16, torch.bfloat16)


def _bits(t):
    """The bit patterns, every NaN as one (a NaN's sign and payload are not TF's contract)."""
    t = t.detach()
    return torch.where(torch.isnan(t), torch.full_like(t, float("nan")).abs(), t).view(torch.int16).tolist()


def _problem(dtype, regime, seed=0):
    rs = np.random.RandomState(seed)
    shapes = [(8,), (3, 5), ()]
    init = [rs.uniform(-1, 1, s) for s in shapes]
    scale = {"large": 300.0, "tiny": 1e-4, "ordinary": 1.0}[regime]
    steps = [[rs.normal(0, 1, s) * scale for s in shapes] for _ in range(5)]
    as_t = lambda a: torch.tensor(np.asarray(a, np.float32)).to(dtype)  # noqa: E731
    return [as_t(x) for x in init], [[as_t(g) for g in step] for step in steps]


def _run(info, kwargs, init, steps, multi):
    opt = build(info, kwargs, multi_tensor=multi)
    variables = [tf.Variable(x.clone(), name=f"v{i}") for i, x in enumerate(init)]
    for grads in steps:
        opt.apply_gradients(zip(grads, variables))
    return opt, variables


@pytest.mark.parametrize("regime", ["large", "tiny", "ordinary"])
@pytest.mark.parametrize("dtype", HALF, ids=str)
@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=CONFIG_IDS)
def test_half_precision_multi_tensor_path_is_the_reference_bit_for_bit(pair, dtype, regime):
    info, cfg = pair
    kwargs = dict(cfg.kwargs, **info.half_overrides.get(str(dtype).split(".")[-1], {}))
    init, steps = _problem(dtype, regime)
    fast_opt, fast_vars = _run(info, kwargs, init, steps, True)
    ref_opt, ref_vars = _run(info, kwargs, init, steps, False)
    for x, y in zip(fast_vars, ref_vars):
        assert _bits(x.value()) == _bits(y.value()), (x.name, x.value(), y.value())
        for name in fast_opt.get_slot_names():
            a, b = fast_opt.get_slot(x, name).value(), ref_opt.get_slot(y, name).value()
            assert _bits(a) == _bits(b), (x.name, name, a, b)


def test_adam_float16_with_overflowing_squares_matches_tfs_value():
    """TF 2.21: Adam(0.1) on a float16 variable [1.0, -2.0] with gradient [300, -0.5]: the
    square 90000 overflows to inf in float16, so `v` is inf and the first element does not
    move, as TF computes it; a float32-internal kernel would move it by ~0.1."""
    want = {"var": [1.0, -1.900390625], "m": [30.03125, -0.050048828125], "v": [float("inf"), 0.000244140625]}
    for multi in (True, False):
        opt = build("Adam", {"learning_rate": 0.1}, multi_tensor=multi)
        var = tf.Variable(torch.tensor([1.0, -2.0], dtype=torch.float16))
        opt.apply_gradients([(torch.tensor([300.0, -0.5], dtype=torch.float16), var)])
        np.testing.assert_array_equal(var.numpy(), np.array(want["var"], np.float16))
        np.testing.assert_array_equal(opt.get_slot(var, "m").numpy(), np.array(want["m"], np.float16))
        np.testing.assert_array_equal(opt.get_slot(var, "v").numpy(), np.array(want["v"], np.float16))


def test_half_precision_never_runs_a_fused_kernel(monkeypatch):
    """The fused kernels round half precision once per update: the multi-tensor path must not
    call them for float16 / bfloat16 (it does for float32)."""
    called = []
    for name in ("_fused_adam_", "_fused_adagrad_", "_fused_sgd_"):
        original = getattr(torch, name)
        monkeypatch.setattr(torch, name, lambda *a, _n=name, _o=original, **k: called.append(_n) or _o(*a, **k))
    for dtype in HALF + (torch.float32,):
        called.clear()
        for name, kwargs in (("Adam", {}), ("Adagrad", {}), ("SGD", {"momentum": 0.9})):
            opt = build(name, kwargs)
            var = tf.Variable(torch.ones(4, dtype=dtype))
            opt.apply_gradients([(torch.full((4,), 0.5, dtype=dtype), var)])
        if dtype is torch.float32:
            assert sorted(called) == ["_fused_adagrad_", "_fused_adam_"]
        else:
            assert called == []


# ---------------------------------------------------------------------------
# SGD with momentum: exact for every learning rate
# ---------------------------------------------------------------------------

_NUMPY = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}


def _keras_momentum_replay(dtype, lr, momentum, nesterov, init, grads):
    """TF's kernel operation by operation in `dtype` (hyperparameters: float32 variables, cast)."""
    if dtype is torch.bfloat16:  # numpy has no bfloat16 arithmetic; torch's CPU ops round per op too
        cast = lambda x: torch.tensor(np.float32(x)).to(torch.bfloat16)  # noqa: E731
        var, accum = init.clone(), torch.zeros_like(init)
        lr_t, m_t = cast(lr), cast(momentum)
        for g in grads:
            accum = accum * m_t - g * lr_t
            var = var + (accum * m_t - g * lr_t if nesterov else accum)
        return var, accum
    npd = _NUMPY[dtype]
    lr_t, m_t = npd(np.float32(lr)), npd(np.float32(momentum))
    var, accum = init.numpy().copy(), np.zeros(init.shape, npd)
    for g in grads:
        g = g.numpy()
        accum = accum * m_t - g * lr_t
        var = var + (accum * m_t - g * lr_t if nesterov else accum)
    return torch.from_numpy(np.asarray(var, npd)), torch.from_numpy(np.asarray(accum, npd))


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("lr", [1e-3, 1e-12, 1e-17, 1e-30])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_sgd_momentum_is_exact_for_every_learning_rate(dtype, lr, nesterov):
    """The old fast path's `dampening = 1 + lr` cancelled (float64: lr=1e-12 moved the slot with
    9e-5 relative error, lr=1e-17 not at all); float32 keeps even 1e-30 steps."""
    init = torch.tensor([1.0, 1e-10, 1e-20, -3.0, 0.5, 2.0, -1e-3, 7.0, 1e-25], dtype=torch.float64).to(dtype)
    grads = [torch.tensor([1.0, 0.5, 2.0, -1.0, 3.0, -0.25, 0.125, 1e-3, 4.0], dtype=torch.float64).to(dtype)
             * (k + 1) for k in range(4)]
    want_var, want_accum = _keras_momentum_replay(dtype, lr, 0.9, nesterov, init, grads)
    for multi in (True, False):
        opt = build("SGD", {"learning_rate": lr, "momentum": 0.9, "nesterov": nesterov}, multi_tensor=multi)
        var = tf.Variable(init.clone())
        for g in grads:
            opt.apply_gradients([(g, var)])
        got_var, got_accum = var.value(), opt.get_slot(var, "momentum").value()
        assert torch.equal(got_var, want_var), (multi, got_var, want_var)
        assert torch.equal(got_accum, want_accum), (multi, got_accum, want_accum)
    if dtype in (torch.float32, torch.float64) and lr < 1e-3:  # the slot really moves
        assert (want_accum != 0).all()


def test_sgd_learning_rate_of_a_schedule_or_variable_is_exact_too():
    """A schedule's or a variable's learning rate goes through the same exact path."""
    init = torch.tensor([1.0, -2.0, 1e-12], dtype=torch.float64)
    grads = [torch.tensor([1.0, 3.0, -2.0], dtype=torch.float64)] * 3
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([1], [1e-12, 1e-17])
    lrs = [1e-12, 1e-12, 1e-17]  # the schedule at steps 0, 1, 2
    opt = tf.keras.optimizers.SGD(schedule, momentum=0.9)
    var = tf.Variable(init.clone())
    accum = np.zeros(3)
    want = init.numpy().copy()
    for g, lr in zip(grads, lrs):
        opt.apply_gradients([(g, var)])
        accum = accum * np.float64(np.float32(0.9)) - g.numpy() * np.float64(np.float32(lr))
        want = want + accum
    assert torch.equal(var.value(), torch.from_numpy(want))
    assert INFO_BY_NAME["SGD"].cls is type(opt)


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_sgd_momentum_on_big_tensors_through_the_scratch_is_exact(dtype, nesterov, monkeypatch):
    """Big CPU tensors take `g * lr` through the optimizer's scratch buffer, in pieces when the
    buffer is smaller than a tensor (here 50_000 elements for tensors of 120_000 and 70_000):
    still TF's values exactly, next to small tensors on the temporary path."""
    from tfcompat.keras.optimizers import sgd as sgd_module

    monkeypatch.setattr(sgd_module, "SCRATCH_ELEMENTS", 50_000)
    gen = torch.Generator().manual_seed(3)
    shapes = [(120_000,), (7, 10_000), (5, 3), (40_000,)]
    init = [torch.randn(s, generator=gen, dtype=torch.float64).to(dtype) for s in shapes]
    grads = [[torch.randn(s, generator=gen, dtype=torch.float64).to(dtype) for s in shapes] for _ in range(3)]
    opt = build("SGD", {"learning_rate": 0.01, "momentum": 0.9, "nesterov": nesterov})
    variables = [tf.Variable(x.clone()) for x in init]
    for step in grads:
        opt.apply_gradients(zip(step, variables))
    assert opt._scratch_buffers[(torch.device("cpu"), dtype)].numel() == 50_000
    for i, var in enumerate(variables):
        want_var, want_accum = _keras_momentum_replay(dtype, 0.01, 0.9, nesterov, init[i],
                                                      [g[i] for g in grads])
        assert torch.equal(var.value(), want_var.reshape(shapes[i])), i
        assert torch.equal(opt.get_slot(var, "momentum").value(), want_accum.reshape(shapes[i])), i
