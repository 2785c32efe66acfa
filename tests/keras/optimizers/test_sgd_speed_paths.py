"""SGD-with-momentum's cached fast paths round exactly as TF's four passes.

* whole tensors through the scratch on a cached plan (`sgd._ScratchPlan`): any layout of
  tensors that each fit in the scratch, aligned lengths or not, a plan rebuilt when the layout
  or the scratch changes;
* the momentum slots moved into one flat buffer (`SGD._flat_momentum`) where many small
  tensors have lengths the one-kernel form cannot take: TF's values every step, reads of a
  slot stay snapshots, and a slot whose storage changed (an assign, a restore) or whose live
  tensor was handed out is handled.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import tfcompat as tf
from tfcompat.keras.optimizers import sgd as sgd_lib


def _tf_reference(params, grads, bufs, lr, m, steps=1):
    """TF's `ResourceApplyKerasMomentum`, one rounded operation at a time."""
    params, bufs = [p.clone() for p in params], [b.clone() for b in bufs]
    for _ in range(steps):
        for i, (p, g, b) in enumerate(zip(params, grads, bufs)):
            bufs[i] = b * m - g * lr
            params[i] = p + bufs[i]
    return params, bufs


def _random(sizes, dtype, seed):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randn(n, generator=gen, dtype=torch.float64)
             * torch.exp(torch.randn(n, generator=gen, dtype=torch.float64) * 3)).to(dtype) for n in sizes]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([65, 96, 128, 200, 256, 100, 64, 33]), min_size=1, max_size=12),
       st.sampled_from([torch.float32, torch.float64]), st.sampled_from([0.9, 0.5, 0.0]),
       st.integers(0, 10_000))
def test_whole_tensors_through_the_scratch_round_as_tf(monkeypatch, sizes, dtype, momentum, seed):
    monkeypatch.setattr(sgd_lib, "_CPU_TEMPORARY_LIMIT", 32)  # (every tensor is "big")
    params, grads, bufs = (_random(sizes, dtype, seed + k) for k in range(3))
    lr = torch.tensor(0.01, dtype=dtype)
    m = float(torch.tensor(momentum, dtype=dtype))
    want_p, want_b = _tf_reference(params, grads, bufs, lr, m, steps=2)
    scratch = torch.empty(256, dtype=dtype)
    workspace: dict = {}
    for _ in range(2):
        sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, scratch=scratch, workspace=workspace)
    assert "scratch" in workspace["big"]  # (the cached plan took them)
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)


def test_scratch_plan_follows_layout_and_scratch_changes(monkeypatch):
    monkeypatch.setattr(sgd_lib, "_CPU_TEMPORARY_LIMIT", 32)
    lr, m = torch.tensor(0.01), float(torch.tensor(0.9))
    workspace: dict = {}
    for sizes, shape_of, scratch in (([100, 64, 80], None, torch.empty(192)),
                                     ([64, 100, 80], None, torch.empty(192)),   # same sizes, reordered
                                     ([100, 64, 80], (10, 10), torch.empty(192)),  # a matrix
                                     ([100, 64, 80], None, torch.empty(128))):     # another scratch
        params, grads, bufs = (_random(sizes, torch.float32, k) for k in range(3))
        if shape_of is not None:
            params[0], grads[0], bufs[0] = (t.reshape(shape_of) for t in (params[0], grads[0], bufs[0]))
        want_p, want_b = _tf_reference(params, grads, bufs, lr, m)
        sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, scratch=scratch, workspace=workspace)
        plan = workspace["big"]["scratch"]
        assert plan.scratch is scratch
        for got, want in zip(params + bufs, want_p + want_b):
            assert got.shape == want.shape and torch.equal(got, want)


def test_tensors_bigger_than_the_scratch_still_split(monkeypatch):
    monkeypatch.setattr(sgd_lib, "_CPU_TEMPORARY_LIMIT", 32)
    lr, m = torch.tensor(0.01), float(torch.tensor(0.9))
    sizes = [1000, 64, 100]
    params, grads, bufs = (_random(sizes, torch.float32, k) for k in range(3))
    want_p, want_b = _tf_reference(params, grads, bufs, lr, m)
    workspace: dict = {}
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, scratch=torch.empty(128), workspace=workspace)
    assert "scratch" not in workspace.get("big", {})
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)


# -- the momentum slots in one flat buffer -----------------------------------------------------

def _model(sizes, dtype=tf.float32, seed=0):
    values = _random(sizes, torch.float64, seed)
    variables = [tf.Variable(v.numpy().astype(dtype.as_numpy_dtype)) for v in values]
    grads = [torch.as_tensor(g.numpy().astype(dtype.as_numpy_dtype)) for g in _random(sizes, torch.float64, seed + 1)]
    return variables, grads


def _numpy_reference(values, grads, steps, lr=0.01, m=0.9, dtype=np.float32):
    lr, m = dtype(np.float32(lr)), dtype(np.float32(m))  # (Keras keeps hyperparameters in float32)
    values = [np.array(v, dtype=dtype) for v in values]
    accums = [np.zeros_like(v) for v in values]
    for _ in range(steps):
        for i, g in enumerate(grads):
            g = np.asarray(g, dtype=dtype)
            accums[i] = (accums[i] * m - g * lr).astype(dtype)
            values[i] = (values[i] + accums[i]).astype(dtype)
    return values, accums


def _flat_of(opt):
    (workspace,) = opt._workspaces.values()
    return workspace.get("momentum_flat")


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
@pytest.mark.parametrize("sizes", [[100] * 40, [7, 100, 3, 1, 33] * 4, [64] * 19 + [100]])
def test_flat_momentum_rounds_as_tf(sizes, dtype):
    variables, grads = _model(sizes, dtype)
    start = [v.numpy() for v in variables]
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    for _ in range(3):
        opt.apply_gradients(zip(grads, variables))
    assert _flat_of(opt) is not None
    np_dtype = dtype.as_numpy_dtype
    want_v, want_a = _numpy_reference(start, [g.numpy() for g in grads], 3, dtype=np_dtype)
    for v, wv, wa in zip(variables, want_v, want_a):
        np.testing.assert_array_equal(v.numpy(), wv)
        np.testing.assert_array_equal(opt.get_slot(v, "momentum").numpy(), wa)


def test_flat_momentum_not_used_where_the_one_kernel_form_runs():
    variables, grads = _model([64] * 20)  # (every length a multiple of 64 bytes)
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    opt.apply_gradients(zip(grads, variables))
    if sgd_lib._one_kernel(0.9, torch.float32):
        assert _flat_of(opt) is None
    for nesterov, momentum in ((True, 0.9), (False, 0.0)):
        variables, grads = _model([100] * 20)
        opt = tf.keras.optimizers.SGD(0.01, momentum=momentum, nesterov=nesterov)
        opt.apply_gradients(zip(grads, variables))
        assert _flat_of(opt) is None


def test_flat_momentum_slots_are_views_of_one_buffer_and_reads_stay_snapshots():
    variables, grads = _model([100] * 30)
    start = [v.numpy() for v in variables]
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    opt.apply_gradients(zip(grads, variables))
    flat, views = _flat_of(opt)
    slots = [opt.get_slot(v, "momentum") for v in variables]
    cells = [s._storage() for s in slots]
    assert all(map(operator.is_, [c.value for c in cells], views))
    assert all(c.value.untyped_storage().data_ptr() == flat.untyped_storage().data_ptr() for c in cells)
    held = [s.read_value() for s in slots]  # reads kept across the next step
    held_np = [h.numpy().copy() for h in held]
    opt.apply_gradients(zip(grads, variables))
    for h, before in zip(held, held_np):
        np.testing.assert_array_equal(h.numpy(), before)  # (a snapshot: the step left it alone)
    held[0].add_(1.0)  # writing a read never writes the slot
    want_v, want_a = _numpy_reference(start, [g.numpy() for g in grads], 2)
    for v, s, wv, wa in zip(variables, slots, want_v, want_a):
        np.testing.assert_array_equal(v.numpy(), wv)
        np.testing.assert_array_equal(s.numpy(), wa)


def test_flat_momentum_rebuilt_after_a_slot_changes_storage():
    variables, grads = _model([100] * 20)
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    opt.apply_gradients(zip(grads, variables))
    first = _flat_of(opt)[0]
    slot = opt.get_slot(variables[3], "momentum")
    new = np.full(100, 0.25, np.float32)
    slot._storage().replace(torch.as_tensor(new).clone())  # (as a restore does)
    values = [v.numpy() for v in variables]
    accums = [opt.get_slot(v, "momentum").numpy() for v in variables]
    opt.apply_gradients(zip(grads, variables))
    flat, views = _flat_of(opt)
    assert flat is not first and slot._storage().value is views[3]
    m, lr = np.float32(0.9), np.float32(0.01)
    for v, a, before_v, before_a, g in zip(variables, [opt.get_slot(v, "momentum") for v in variables],
                                           values, accums, grads):
        want_a = (before_a * m - g.numpy() * lr).astype(np.float32)
        np.testing.assert_array_equal(a.numpy(), want_a)
        np.testing.assert_array_equal(v.numpy(), (before_v + want_a).astype(np.float32))
    assert accums[3][0] == np.float32(0.25)


def test_flat_momentum_keeps_a_handed_out_slot_in_place():
    variables, grads = _model([100] * 20)
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    opt._create_all_weights(variables)
    live = opt.get_slot(variables[0], "momentum").handle  # outside code holds the live tensor
    start = [v.numpy() for v in variables]
    for _ in range(2):
        opt.apply_gradients(zip(grads, variables))
    assert _flat_of(opt) is None
    want_v, want_a = _numpy_reference(start, [g.numpy() for g in grads], 2)
    np.testing.assert_array_equal(live.numpy(), want_a[0])
    for v, wv in zip(variables, want_v):
        np.testing.assert_array_equal(v.numpy(), wv)


def test_flat_momentum_checkpoint_round_trip(tmp_path):
    variables, grads = _model([100] * 20)
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    opt.apply_gradients(zip(grads, variables))
    ckpt = tf.train.Checkpoint(opt=opt, vs=variables)
    path = ckpt.save(str(tmp_path / "c"))
    saved = [opt.get_slot(v, "momentum").numpy() for v in variables]
    opt.apply_gradients(zip(grads, variables))
    ckpt.restore(path)
    for v, s in zip(variables, saved):
        np.testing.assert_array_equal(opt.get_slot(v, "momentum").numpy(), s)
    values = [v.numpy() for v in variables]
    opt.apply_gradients(zip(grads, variables))
    m, lr = np.float32(0.9), np.float32(0.01)
    for v, s, before, g in zip(variables, saved, values, grads):
        want_a = (s * m - g.numpy() * lr).astype(np.float32)
        np.testing.assert_array_equal(opt.get_slot(v, "momentum").numpy(), want_a)
        np.testing.assert_array_equal(v.numpy(), (before + want_a).astype(np.float32))
