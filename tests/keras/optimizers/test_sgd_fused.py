"""SGD with momentum through torch's fused CPU kernel (`sgd._fused_update`) rounds exactly as
TF's four operations (`sgd._step`): on the flat path for many small tensors, through the
scratch for big ones, for float32 and float64, with tensors whose length leaves a scalar tail
after the kernel's vector loop, and with a workspace kept across steps while shapes change."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings, strategies as st

from tfcompat.keras.optimizers import sgd as sgd_lib


def _wide(shape, dtype, gen):
    """Values over many binades, so products and sums round in every way."""
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    return (x * torch.exp(torch.randn(shape, generator=gen, dtype=torch.float64) * 4)).to(dtype)


def _reference(params, grads, bufs, lr, m):
    """TF's `ResourceApplyKerasMomentum`, one rounded operation at a time."""
    sgd_lib._step(params, grads, bufs, torch._foreach_mul(grads, lr), lr, m, False)


def _case(shapes, dtype, seed, lr_value, momentum):
    gen = torch.Generator().manual_seed(seed)
    params, grads, bufs = ([_wide(s, dtype, gen) for s in shapes] for _ in range(3))
    lr = torch.tensor(lr_value, dtype=dtype)
    m = float(torch.tensor(momentum, dtype=torch.float32).to(dtype))
    return params, grads, bufs, lr, m


_SIZES = st.lists(st.integers(1, 70), min_size=sgd_lib._FLAT_MIN_TENSORS, max_size=40)


@settings(max_examples=60, deadline=None)
@given(_SIZES, st.sampled_from([torch.float32, torch.float64]), st.integers(0, 10_000),
       st.sampled_from([0.01, 0.1, 3e-4, 0.7]), st.sampled_from([0.9, 0.5, 0.99, 1.0]))
def test_flat_fused_path_equals_tf_operations(sizes, dtype, seed, lr_value, momentum):
    params, grads, bufs, lr, m = _case([(n,) for n in sizes], dtype, seed, lr_value, momentum)
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    _reference(want_p, grads, want_b, lr, m)
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, workspace={})
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_scratch_fused_path_equals_tf_operations(dtype, monkeypatch):
    """Big tensors in scratch-sized pieces (the last piece of each ends in a scalar tail)."""
    monkeypatch.setattr(sgd_lib, "SCRATCH_ELEMENTS", 40_000)
    shapes = [(100_003,), (7, 10_001), (33_000,)]
    params, grads, bufs, lr, m = _case(shapes, dtype, 5, 0.01, 0.9)
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    _reference(want_p, grads, want_b, lr, m)
    scratch = torch.empty(sgd_lib.SCRATCH_ELEMENTS, dtype=dtype)
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, scratch=scratch)
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)


def test_workspace_follows_changing_shapes():
    """A workspace kept across steps is rebuilt when the tensors' sizes or shapes change
    (same element counts in other shapes included), and every step stays exact."""
    workspace: dict = {}
    layouts = [[(12,)] * 20, [(12,)] * 20, [(3, 4)] * 20, [(4, 3)] * 20, [(12,)] * 19 + [(13,)],
               [(5,)] * 30]
    for i, shapes in enumerate(layouts):
        params, grads, bufs, lr, m = _case(shapes, torch.float32, i, 0.05, 0.9)
        want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
        _reference(want_p, grads, want_b, lr, m)
        sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, workspace=workspace)
        for got, want in zip(params + bufs, want_p + want_b):
            assert got.shape == want.shape
            assert torch.equal(got, want), i


def test_fused_path_handles_infinities_nan_and_signed_zeros():
    n = sgd_lib._FLAT_MIN_TENSORS
    specials = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-45, 3e38,
                             -3e38, 1.0, -1.0, 2.0 ** -126, 0.5])
    gen = torch.Generator().manual_seed(1)
    pick = lambda: specials[torch.randint(0, specials.numel(), (37,), generator=gen)]  # noqa: E731
    params, grads, bufs = ([pick() for _ in range(n)] for _ in range(3))
    lr = torch.tensor(0.5)
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    _reference(want_p, grads, want_b, lr, 0.5)
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=0.5, workspace={})
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got.isnan(), want.isnan())
        ok = ~want.isnan()
        assert torch.equal(got[ok], want[ok])
        assert torch.equal(torch.signbit(got[ok]), torch.signbit(want[ok]))


def test_optimizer_keeps_one_workspace_per_group():
    import tfcompat as tf

    opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    variables = [tf.Variable(torch.ones(5)) for _ in range(sgd_lib._FLAT_MIN_TENSORS)]
    grads = [torch.full((5,), 0.5) for _ in variables]
    for _ in range(2):
        opt.apply_gradients(zip(grads, variables))
    (workspace,) = opt._workspaces.values()
    assert workspace["flat"].key == [5] * len(variables)
    # accum: -0.05, then -0.05 * 0.9 - 0.05; var: 1 + both, each rounded in float32
    a1 = torch.tensor(0.5) * torch.tensor(0.1)
    accum = torch.tensor(0.0) * torch.tensor(0.9) - a1
    var = torch.tensor(1.0) + accum
    accum = accum * torch.tensor(0.9) - a1
    var = var + accum
    for v in variables:
        assert torch.equal(v.value(), var.expand(5))
        assert torch.equal(opt.get_slot(v, "momentum").value(), accum.expand(5))


_ALIGNED_SIZES = st.lists(st.sampled_from([8, 16, 32, 48, 64, 160]), min_size=sgd_lib._FLAT_MIN_TENSORS,
                          max_size=40)


@settings(max_examples=40, deadline=None)
@given(_ALIGNED_SIZES, st.sampled_from([torch.float32, torch.float64]), st.integers(0, 10_000),
       st.sampled_from([0.01, 0.7]), st.sampled_from([0.9, 0.0, -0.0, 1.0]))
def test_one_kernel_form_on_aligned_tensors_equals_tf_operations(sizes, dtype, seed, lr_value, momentum):
    """Lengths that are whole multiples of 64 bytes (float64: 8 elements, float32: 16) may take the
    one-kernel form (no `accum * momentum` pass); momentum 0 still sets the accumulator."""
    params, grads, bufs, lr, m = _case([(n,) for n in sizes], dtype, seed, lr_value, momentum)
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    _reference(want_p, grads, want_b, lr, m)
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, workspace={})
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)
        assert torch.equal(torch.signbit(got), torch.signbit(want))


def test_the_one_kernel_form_is_refused_where_the_kernel_contracts_buf_times_m(monkeypatch):
    """`_vector_loop_exact` says False for a kernel that rounds `buf * m - grad` once (as the
    kernel's scalar tail does), and the update then stays exact through the two-kernel form."""
    real = torch._fused_sgd_

    def contracting(params, grads, bufs, *, momentum, **kw):
        if momentum == 1.0:
            return real(params, grads, bufs, momentum=momentum, **kw)
        for p, g, b in zip(params, grads, bufs):  # buf * m - grad, one rounding (float64 is exact
            b.copy_((b.double() * momentum - g.double()).to(b.dtype))  # for float32's operands)
            p.add_(b)

    monkeypatch.setattr(torch, "_fused_sgd_", contracting)
    sgd_lib._vector_loop_exact.cache_clear()
    try:
        assert not sgd_lib._vector_loop_exact(torch.float32)
        params, grads, bufs, lr, m = _case([(16,)] * sgd_lib._FLAT_MIN_TENSORS, torch.float32, 3, 0.01, 0.9)
        want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
        _reference(want_p, grads, want_b, lr, m)
        sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=m, workspace={})
        for got, want in zip(params + bufs, want_p + want_b):
            assert torch.equal(got, want)
    finally:
        sgd_lib._vector_loop_exact.cache_clear()
