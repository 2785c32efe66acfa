"""The functional core of each algorithm: the update over plain tensor lists.

`adam.adam`, `sgd.sgd`, `adagrad.adagrad`, `rmsprop.rmsprop`,
`adadelta.adadelta`, `adamax.adamax`, `nadam.nadam`, `ftrl.ftrl` take lists
of tensors of one device and dtype (variables, gradients, slots) and the
step's coefficients, and update them in place, without an optimizer object
(a strategy calls them per replica device, per bucket). The OptimizerV2
classes call them with their coefficients (`_multi_tensor_coefficients`).

Properties: a core called directly on tensors gives what the optimizer
gives; the fused and foreach implementations agree (to the ulp the fused
kernels' fused multiply-adds may differ by); and `choose_kernel` picks per
layout as documented.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.optimizers import (adadelta, adagrad, adam, adamax, ftrl, multi_tensor, nadam, rmsprop, sgd,
                                      step_plan)

from optimizer_info import INFO_BY_NAME, build

CORES = {"SGD": sgd.sgd, "Adam": adam.adam, "Adagrad": adagrad.adagrad, "RMSprop": rmsprop.rmsprop,
         "Adadelta": adadelta.adadelta, "Adamax": adamax.adamax, "Nadam": nadam.nadam, "Ftrl": ftrl.ftrl}


def _tensors(seed, shapes=((4,), (2, 3)), dtype=torch.float32):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=gen, dtype=torch.float64).to(dtype) for s in shapes]


def test_every_builtin_calls_its_core(monkeypatch):
    """Each optimizer's multi-tensor step is exactly its module's core function."""
    for name, core in CORES.items():
        module = __import__(core.__module__, fromlist=["_"])
        seen = []
        monkeypatch.setattr(module, core.__name__, lambda *a, _c=core, **k: seen.append(1) or _c(*a, **k))
        opt = build(name, INFO_BY_NAME[name].typical_kwargs())
        v = tf.Variable(np.ones(3, np.float32))
        opt.apply_gradients([(torch.ones(3), v)])
        assert seen == [1], name
        monkeypatch.undo()


@pytest.mark.parametrize("name", list(CORES))
def test_a_core_on_plain_tensors_gives_the_optimizers_values(name):
    """Run the core by hand on copies of the variables and slots, with the coefficients the
    optimizer computes for that step: the same values as the optimizer's own step."""
    info = INFO_BY_NAME[name]
    opt = build(info, info.typical_kwargs())
    variables = [tf.Variable(x) for x in _tensors(1)]
    grads = _tensors(2)
    opt.apply_gradients(zip(grads, variables))  # slots exist, hyperparameters are variables
    slot_names = opt.get_slot_names()
    params = [v.value().clone() for v in variables]
    slots = {s: [opt.get_slot(v, s).value().clone() for v in variables] for s in slot_names}
    key = (variables[0].device, variables[0].dtype)
    cache = opt._m_cache.value().clone() if name == "Nadam" else None
    # the coefficients of the next step (Nadam's `_prepare` is TF's and runs eagerly)
    step = step_plan.StepCoefficients(opt, opt._prepare(variables) if opt._overrides_prepare() else None)
    coefficients = opt._multi_tensor_coefficients(key[0], key[1], step)
    if cache is not None:  # preparing advanced the momentum cache: let the optimizer's step redo it
        opt._m_cache.assign(cache)
    group = multi_tensor.make_dense_groups(variables, opt._slots_of)[0][1]
    opt.apply_gradients(zip(grads, variables))
    # the same call by hand, on plain tensors
    c = coefficients
    by_name = {
        "SGD": lambda: sgd.sgd(params, grads, slots.get("momentum"), nesterov=opt.nesterov, **c),
        "Adam": lambda: adam.adam(params, grads, slots["m"], slots["v"], slots.get("vhat"), amsgrad=opt.amsgrad,
                                  implementation=group.kernel("adam"), **c),
        "Adagrad": lambda: adagrad.adagrad(params, grads, slots["accumulator"],
                                           implementation=group.kernel("adagrad"), **c),
        "RMSprop": lambda: rmsprop.rmsprop(params, grads, slots["rms"], slots.get("mg"), slots.get("momentum"), **c),
        "Adadelta": lambda: adadelta.adadelta(params, grads, slots["accum_grad"], slots["accum_var"], **c),
        "Adamax": lambda: adamax.adamax(params, grads, slots["m"], slots["v"], **c),
        "Nadam": lambda: nadam.nadam(params, grads, slots["m"], slots["v"], **c),
        "Ftrl": lambda: ftrl.ftrl(params, grads, slots["accumulator"], slots["linear"], **c)}
    with torch.no_grad():
        by_name[name]()
    for p, v in zip(params, variables):
        assert torch.equal(p, v.value()), name
    for s in slot_names:
        for t, v in zip(slots[s], variables):
            assert torch.equal(t, opt.get_slot(v, s).value()), (name, s)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_fused_and_foreach_agree(dtype):
    """Same arguments, both implementations: within an ulp or two per step."""
    for core, slots, kwargs in (
            (adam.adam, 3, dict(alpha=torch.tensor(0.01, dtype=dtype), beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                                amsgrad=True)),
            (adagrad.adagrad, 1, dict(lr=torch.tensor(0.1, dtype=dtype), epsilon=1e-7))):
        runs = []
        for implementation in ("fused", "foreach"):
            params = _tensors(3, dtype=dtype)
            state = [[t.abs() for t in _tensors(4 + i, dtype=dtype)] for i in range(slots)]
            for k in range(5):
                core(params, _tensors(10 + k, dtype=dtype), *state, implementation=implementation, **kwargs)
            runs.append(params + [t for s in state for t in s])
        for a, b in zip(*runs):
            torch.testing.assert_close(a, b, rtol=1e-6 if dtype is torch.float32 else 1e-14, atol=1e-7)


def test_cores_take_lists_of_any_length_and_empty_ones():
    sgd.sgd([], [], None, lr=torch.tensor(0.1))
    p = [torch.ones(2)]
    sgd.sgd(p, [torch.ones(2)], None, lr=torch.tensor(0.5))
    assert p[0].tolist() == [0.5, 0.5]


def test_choose_kernel(monkeypatch):
    small = [torch.ones(100) for _ in range(4)]
    big = [torch.ones(50_000) for _ in range(4)]
    half = [torch.ones(100, dtype=torch.float16)]
    assert multi_tensor.choose_kernel("adam", half) == "foreach"  # TF rounds every op
    assert multi_tensor.choose_kernel("rmsprop", small) == "foreach"  # no fused kernel
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    assert multi_tensor.choose_kernel("adam", small) == "fused"
    assert multi_tensor.choose_kernel("adagrad", small) == "fused"
    monkeypatch.setattr(torch, "get_num_threads", lambda: 16)
    assert multi_tensor.choose_kernel("adam", small) == "foreach"  # per-tensor thread fan-out
    assert multi_tensor.choose_kernel("adagrad", small) == "foreach"
    assert multi_tensor.choose_kernel("adam", big) == "fused"  # one pass over big tensors
    monkeypatch.setattr(torch, "get_num_threads", lambda: 10)
    assert multi_tensor.choose_kernel("adagrad", small) == "foreach"
    assert multi_tensor.choose_kernel("adam", small) == "fused"
    assert not multi_tensor.fused_available("sgd", torch.device("cpu"), torch.float32)  # TF's rounding
