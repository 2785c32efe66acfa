"""Optimizer steps on a CUDA device never wait for the host (skipped without one).

Run with `TFCOMPAT_TEST_GPU=1 pytest tests/keras/optimizers/test_gpu_steps.py` on
a machine with CUDA. `torch.cuda.set_sync_debug_mode("error")` turns every
synchronizing call into an error: a device value read on the host
(`float(t)`), and a tensor built from a Python number on the device
(`torch.tensor(1e-7, device="cuda")`, a blocking host-to-device copy). After
the first step (which creates slots and reads hyperparameters once), every
table configuration, with inverse-time decay and with learning-rate
schedules, must step without one. `test_multi_tensor.py` checks the same on
the CPU by counting those calls.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import no_host_sync

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
