"""Optimizer steps on a CUDA device never wait for the host (skipped without one).

Run with `TFCOMPAT_TEST_GPU=1 pytest tests/keras/optimizers/test_gpu_steps.py` on
a machine with CUDA. `torch.cuda.set_sync_debug_mode("error")` turns every
synchronizing call into an error: a device value read on the host
(`float(t)`), and a tensor built from a Python number on the device
(`torch.tensor(1e-7, device="cuda")`, a blocking host-to-device copy). After
the first step (which creates slots and reads hyperparameters once), every
table configuration, with inverse-time decay and with learning-rate
schedules, must step without one, and so must every sparse rule, with
duplicate and out-of-range indices (TF's GPU kernels skip those rows: the
result is the CPU result without them). `test_host_sync.py` checks the same
on the CPU under `accelerator_policy()`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import accelerator_policy, no_host_sync

from optimizer_info import ALL_CONFIGS, INFO_BY_NAME, OPTIMIZER_INFOS, build, config_id

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")

SCHEDULES = {
    "exponential": lambda: tf.keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5),
    "polynomial": lambda: tf.keras.optimizers.schedules.PolynomialDecay(0.1, 4, cycle=True),
    "inverse_time": lambda: tf.keras.optimizers.schedules.InverseTimeDecay(0.1, 2, 0.5),
    "cosine_warmup": lambda: tf.keras.optimizers.schedules.CosineDecay(0.1, 4, warmup_target=0.2, warmup_steps=2),
    "cosine_restarts": lambda: tf.keras.optimizers.schedules.CosineDecayRestarts(0.1, 2),
}
CASES = ([(info, cfg.kwargs, config_id((info, cfg))) for info, cfg in ALL_CONFIGS]
         + [(info, {**info.typical_kwargs(), "decay": 0.1}, f"{info.name}/decay")
            for info in OPTIMIZER_INFOS if info.supports_decay]
         + [(INFO_BY_NAME[name], {"learning_rate": key}, f"{name}/{key}")
            for name in ("SGD", "Adam", "RMSprop") for key in SCHEDULES]
         + [(INFO_BY_NAME["SGD"], {"learning_rate": 0.1, "momentum": "tensor"}, "SGD/tensor_momentum"),
            (INFO_BY_NAME["Adam"], {"beta_1": "tensor"}, "Adam/tensor_beta_1")])


def _resolve(kwargs):
    out = {}
    for key, value in kwargs.items():
        if key == "learning_rate" and value in SCHEDULES:
            value = SCHEDULES[value]()
        elif value == "tensor":
            value = torch.tensor(0.9, device="cuda")
        out[key] = value
    return out


@pytest.mark.parametrize("info,kwargs,case_id", CASES, ids=[c for _, _, c in CASES])
def test_steady_state_steps_do_not_sync(info, kwargs, case_id):
    gen = torch.Generator().manual_seed(0)
    shapes, dtypes = [(7,), (3, 5), (4,)], [torch.float32, torch.float32, torch.float64]
    variables = [tf.Variable(torch.randn(s, generator=gen).to("cuda", d)) for s, d in zip(shapes, dtypes)]
    grads = [torch.randn(s, generator=gen).to("cuda", d) * 0.1 for s, d in zip(shapes, dtypes)]
    opt = build(info, _resolve(kwargs))
    pairs = list(zip(grads, variables))
    opt.apply_gradients(pairs)
    with no_host_sync():
        for _ in range(3):
            opt.apply_gradients(pairs)
    assert int(opt.iterations) == 4
    assert all(np.isfinite(v.numpy()).all() for v in variables)


SPARSE = [(info, cfg) for info, cfg in ALL_CONFIGS if info.supports_sparse]


def _sparse_steps(device, rows_ok_only):
    """Three steps of IndexedSlices gradients (duplicates; out-of-range rows unless `rows_ok_only`)."""
    gen = torch.Generator().manual_seed(1)
    steps = []
    for _ in range(4):
        grads = []
        for shape, index_dtype in (((9,), torch.int64), ((6, 3), torch.int32)):
            idx = torch.randint(0, shape[0], (5,), generator=gen)
            idx[-1] = idx[0]
            values = torch.randn((8,) + shape[1:], generator=gen, dtype=torch.float64)
            idx = torch.cat([idx[:2], torch.tensor([-1, shape[0], shape[0] + 3]), idx[2:]])
            keep = (idx >= 0) & (idx < shape[0]) if rows_ok_only else torch.ones(8, dtype=torch.bool)
            grads.append(tf.IndexedSlices(values[keep].to(device), idx[keep].to(device, index_dtype),
                                          torch.tensor(shape)))
        steps.append(grads)
    return steps


@pytest.mark.parametrize("info,cfg", SPARSE, ids=[config_id(p) for p in SPARSE])
def test_sparse_steps_do_not_sync_and_skip_out_of_range_rows(info, cfg):
    gen = torch.Generator().manual_seed(0)
    initial = [torch.randn(9, generator=gen, dtype=torch.float64),
               torch.randn(6, 3, generator=gen, dtype=torch.float64)]
    variables = [tf.Variable(x.to("cuda")) for x in initial]
    opt = build(info, cfg.kwargs)
    steps = _sparse_steps("cuda", rows_ok_only=False)
    opt.apply_gradients(zip(steps[0], variables))
    with no_host_sync():
        for grads in steps[1:]:
            opt.apply_gradients(zip(grads, variables))
    # The CPU kernels (which validate) on the in-range rows alone: the same values, up to the
    # order in which the GPU's atomics add duplicate rows.
    cpu_vars = [tf.Variable(x) for x in initial]
    cpu_opt = build(info, cfg.kwargs)
    for grads in _sparse_steps("cpu", rows_ok_only=True):
        cpu_opt.apply_gradients(zip(grads, cpu_vars))
    for got, want in zip(variables, cpu_vars):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_sparse_steps_on_cuda_match_the_accelerator_policy_on_cpu():
    """(The CPU simulation of the accelerator path runs the code a GPU runs.)"""
    gen = torch.Generator().manual_seed(2)
    initial = torch.randn(6, 3, generator=gen, dtype=torch.float64)
    grad = tf.IndexedSlices(torch.randn(4, 3, generator=gen, dtype=torch.float64), torch.tensor([5, 1, 9, 1]),
                            torch.tensor([6, 3]))
    v = tf.Variable(initial.to("cuda"))
    tf.keras.optimizers.Adagrad(0.1).apply_gradients(
        [(tf.IndexedSlices(grad.values.cuda(), grad.indices.cuda(), grad.dense_shape), v)])
    with accelerator_policy():
        w = tf.Variable(initial)
        tf.keras.optimizers.Adagrad(0.1).apply_gradients([(grad, w)])
    np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-14, atol=0)
