"""One source of truth for the values a step reads: writes that bypass torch's version counter.

Code outside tfcompat may write a variable's live tensor without torch
noticing: `torch.distributed.broadcast` into `var.handle`, or a numpy view of
it. The optimizer must still use the written value on the next step:

* `iterations` is mirrored on the host only where reading is free (Adam's
  bias correction on the CPU; on an accelerator it is a device tensor), with
  a mirror keyed, as below, by the storage cell's token: its next value is
  whatever the storage holds;
* a hyperparameter a fused kernel takes as a host float (Adam's `beta_1`)
  is mirrored on the host, and the mirror is keyed by the storage cell's
  token, which `Variable.handle` invalidates: it is read again once.

The writes here go through `var.handle.numpy()`, which shares the memory
and does not bump the version counter (as a collective's write does not).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf

from optimizer_info import INFO_BY_NAME, build, to_numpy

STEP_DEPENDENT = [  # optimizers (and configs) whose update depends on the step count
    ("Adam", {"learning_rate": 0.1}),
    ("Adam", {"learning_rate": 0.1, "amsgrad": True}),
    ("Adamax", {"learning_rate": 0.1}),
    ("Nadam", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": "__schedule__", "momentum": 0.5}),
    ("Adagrad", {"learning_rate": 0.1, "decay": 0.5}),
]


def _write_behind_torchs_back(var, value):
    arr = var.handle.detach().numpy()  # shares memory; the write below bumps no version counter
    before = var._storage().value._version
    arr[...] = value
    assert var._storage().value._version == before


def _variables(dtype=np.float64):
    return [tf.Variable(np.array([1.0, -2.0, 0.5], dtype), name="a"),
            tf.Variable(np.array([[0.25, -1.0], [3.0, 0.125]], dtype), name="b")]


def _grads(k, dtype=np.float64):
    return [torch.tensor(np.array([0.5, -1.0, 2.0], dtype) * (k + 1)),
            torch.tensor(np.array([[1.0, -0.5], [0.25, 2.0]], dtype) / (k + 1))]


def _run(name, kwargs, multi, write):
    opt = build(name, kwargs, multi_tensor=multi)
    variables = _variables()
    for k in range(4):
        if k == 2:
            write(opt)
        opt.apply_gradients(zip(_grads(k), variables))
    return opt, variables


@pytest.mark.parametrize("name,kwargs", STEP_DEPENDENT,
                         ids=[f"{n}-{'-'.join(map(str, kw.values()))}" for n, kw in STEP_DEPENDENT])
def test_iterations_written_behind_torchs_back_is_used_next_step(name, kwargs):
    k = 1000
    fast = _run(name, kwargs, True, lambda opt: _write_behind_torchs_back(opt.iterations, k))
    ref = _run(name, kwargs, False, lambda opt: opt.iterations.assign(k))
    untouched = _run(name, kwargs, True, lambda opt: None)
    assert int(fast[0].iterations.numpy()) == k + 2
    for x, y, z in zip(fast[1], ref[1], untouched[1]):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), rtol=1e-12, atol=1e-14)
        assert not np.allclose(to_numpy(x), to_numpy(z), rtol=1e-9, atol=0), "the step count made no difference"


MIRRORED = [  # (optimizer, kwargs, hyperparameter a fused kernel takes as a host float, new value)
    ("Adam", {"learning_rate": 0.1}, "beta_1", 0.5),
    ("Adam", {"learning_rate": 0.1}, "beta_2", 0.9),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}, "momentum", 0.25),
]


@pytest.mark.parametrize("name,kwargs,hyper,value", MIRRORED, ids=[f"{n}-{h}" for n, _, h, _ in MIRRORED])
def test_hyperparameter_written_behind_torchs_back_is_used_next_step(name, kwargs, hyper, value):
    def write(opt):
        _write_behind_torchs_back(opt._hyper[hyper], value)

    fast = _run(name, kwargs, True, write)
    ref = _run(name, kwargs, False, lambda opt: setattr(opt, hyper, value))
    untouched = _run(name, kwargs, True, lambda opt: None)
    for x, y, z in zip(fast[1], ref[1], untouched[1]):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), rtol=1e-12, atol=1e-14)
        assert not np.allclose(to_numpy(x), to_numpy(z), rtol=1e-9, atol=0)


def test_mirror_is_read_once_per_hand_out_and_not_per_step(monkeypatch):
    """Handing the live tensor out (`handle`) invalidates the mirror once; steps don't."""
    from tfcompat.keras.optimizers import multi_tensor

    conversions = []
    original = multi_tensor.HostMirrors.read

    def read(self, key, source, convert):
        return original(self, key, source, lambda t: conversions.append(key) or convert(t))

    monkeypatch.setattr(multi_tensor.HostMirrors, "read", read)
    opt = build("Adam", {"learning_rate": 0.1})
    variables = _variables()
    opt.apply_gradients(zip(_grads(0), variables))
    conversions.clear()
    for k in range(3):
        opt.apply_gradients(zip(_grads(k), variables))
    assert conversions == []
    _ = opt._hyper["beta_1"].handle  # outside code got the live tensor: it may have written it
    opt.apply_gradients(zip(_grads(0), variables))
    assert [key[0] for key in conversions] == ["beta_1"]
    conversions.clear()
    opt.apply_gradients(zip(_grads(1), variables))
    assert conversions == []


def test_optimizer_steps_never_hand_out_live_tensors():
    """tfcompat itself never uses `Variable.handle` (which invalidates every mirror): a step
    leaves every cell's hand-out count as it was."""
    for name in ("SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam", "Ftrl"):
        info = INFO_BY_NAME[name]
        kwargs = dict(info.typical_kwargs())
        if info.supports_schedule:
            kwargs["learning_rate"] = "__schedule__"
        opt = build(info, kwargs)
        variables = _variables()
        opt.apply_gradients(zip(_grads(0), variables))
        cells = [w._storage() for w in opt.weights + variables]
        cells += [h._storage() for h in opt._hyper.values() if isinstance(h, tf.Variable)]
        before = [c.handed_out for c in cells]
        for k in range(2):
            opt.apply_gradients(zip(_grads(k), variables))
            sparse = tf.IndexedSlices(torch.ones(1, 2, dtype=torch.float64), torch.tensor([1]))
            opt.apply_gradients([(sparse, variables[1])])
        assert [c.handed_out for c in cells] == before, name
