"""SGD's flat path for many small CPU tensors (`sgd._flat_step`) rounds exactly as the
per-tensor passes: the same operations on flat copies, written back into every variable and
accumulator (any shape, 0-d included, split into batches or not)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings, strategies as st

from tfcompat.keras.optimizers import sgd as sgd_lib

_SHAPES = st.lists(st.sampled_from([(), (1,), (7,), (3, 4), (2, 1, 5), (100,)]),
                   min_size=sgd_lib._FLAT_MIN_TENSORS, max_size=40)


def _tensors(shapes, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(s, generator=g) * 3).to(dtype) for s in shapes]


@settings(max_examples=40, deadline=None)
@given(_SHAPES, st.sampled_from([torch.float32, torch.float16, torch.bfloat16, torch.float64]),
       st.sampled_from([0.0, 0.9, 0.5]), st.booleans(), st.sampled_from([1 << 20, 64]),
       st.integers(0, 1000))
def test_flat_path_equals_the_per_tensor_passes(shapes, dtype, momentum, nesterov, batch, seed):
    params, grads, bufs = (_tensors(shapes, dtype, seed + k) for k in range(3))
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    lr = torch.tensor(0.01, dtype=dtype)
    m = float(torch.tensor(momentum, dtype=dtype))
    # the per-tensor passes, 8 tensors at a time (below the flat path's threshold)
    for i in range(0, len(shapes), 8):
        sl = slice(i, i + 8)
        sgd_lib.sgd(want_p[sl], grads[sl], want_b[sl] if momentum else None, lr=lr, momentum=m,
                    nesterov=nesterov)
    old = sgd_lib._FLAT_ELEMENTS
    sgd_lib._FLAT_ELEMENTS = batch
    try:
        sgd_lib.sgd(params, grads, bufs if momentum else None, lr=lr, momentum=m,
                    nesterov=nesterov)
    finally:
        sgd_lib._FLAT_ELEMENTS = old
    for got, want in zip(params + bufs, want_p + want_b):
        assert got.shape == want.shape
        assert torch.equal(got, want)


def test_flat_path_writes_non_contiguous_variables():
    """Variables and accumulators that are not contiguous (a transposed tensor's storage) are
    written in place, as by the per-tensor passes."""
    n = sgd_lib._FLAT_MIN_TENSORS
    params = [torch.arange(16.0).reshape(4, 4).t() for _ in range(n)]
    bufs = [torch.ones(4, 4).t() for _ in range(n)]
    grads = [torch.full((4, 4), 2.0) for _ in range(n)]
    want_p, want_b = [p.clone() for p in params], [b.clone() for b in bufs]
    lr = torch.tensor(0.5)
    sgd_lib.sgd(want_p[:8], grads[:8], want_b[:8], lr=lr, momentum=0.5)
    sgd_lib.sgd(want_p[8:], grads[8:], want_b[8:], lr=lr, momentum=0.5)
    sgd_lib.sgd(params, grads, bufs, lr=lr, momentum=0.5)
    assert not params[0].is_contiguous()
    for got, want in zip(params + bufs, want_p + want_b):
        assert torch.equal(got, want)
