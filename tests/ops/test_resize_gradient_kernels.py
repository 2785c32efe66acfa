"""tf.image.resize gradients follow TF's CPU gradient kernels term by term: a scalar
NumPy transcription of the kernels' loops (batch, output row, output column, channel, then
the taps in order, each `T(g * wy * wx)` added to its source pixel) must equal the
autograd gradient bit for bit, for bilinear, bicubic and nearest in float16/32/64.
(Goldens vs TF: tests/keras/golden/cases_preprocessing.py, cases_reshaping.py.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.ops import image_ops


def _taps(method, in_size, out_size):
    if method == "bilinear":
        lo, hi, lerp = (t.numpy() for t in image_ops._bilinear_axis(in_size, out_size, "cpu"))
        return np.stack([lo, hi], 1), np.stack([np.float32(1) - lerp, lerp], 1)
    if method == "bicubic":
        return tuple(t.numpy() for t in image_ops._bicubic_axis(in_size, out_size, "cpu"))
    index = image_ops._nearest_axis(in_size, out_size, "cpu").numpy()[:, None]
    return index, np.ones(index.shape, np.float32)


def _kernel_gradient(method, cot, shape, dtype):
    """The gradient kernels' loops, one scalar addition at a time."""
    n, h, w, c = shape
    out_h, out_w = cot.shape[1], cot.shape[2]
    yi, yw = _taps(method, h, out_h)
    xi, xw = _taps(method, w, out_w)
    if method == "bilinear":        # float32 products, float64 or float32 sums
        compute = np.float32
        acc = np.float64 if dtype == np.float64 else np.float32
    elif method == "bicubic":       # everything in the image's dtype (float32 for half)
        compute = acc = np.float64 if dtype == np.float64 else np.float32
    else:                           # the cotangent arrives in the image's dtype
        compute = acc = dtype
    out = np.zeros(shape, acc)
    g = cot.astype(dtype) if method == "nearest" else cot
    for b in range(n):
        for y in range(out_h):
            for x in range(out_w):
                for ch in range(c):
                    gv = compute(g[b, y, x, ch])
                    for ty in range(yi.shape[1]):
                        for tx in range(xi.shape[1]):
                            term = gv if method == "nearest" else \
                                gv * compute(yw[y, ty]) * compute(xw[x, tx])
                            i, j = yi[y, ty], xi[x, tx]
                            out[b, i, j, ch] = acc(out[b, i, j, ch] + acc(term))
    return out.astype(dtype)


@settings(deadline=None, max_examples=25)
@given(method=st.sampled_from(["bilinear", "bicubic", "nearest"]),
       dtype=st.sampled_from([np.float16, np.float32, np.float64]),
       h=st.integers(1, 5), w=st.integers(1, 5), out_h=st.integers(1, 9),
       out_w=st.integers(1, 9), seed=st.integers(0, 2 ** 16))
def test_gradient_is_the_kernel_loop_bit_for_bit(method, dtype, h, w, out_h, out_w, seed):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.uniform(-1, 1, (2, h, w, 2)).astype(dtype), requires_grad=True)
    y = image_ops.resize(x, [out_h, out_w], method=method)
    cot = rng.uniform(-1, 1, tuple(y.shape)).astype(np.float32)
    (grad,) = torch.autograd.grad(y, x, torch.tensor(cot).to(y.dtype))
    assert grad.dtype == x.dtype
    want = _kernel_gradient(method, cot if method != "nearest" else cot.astype(dtype),
                            tuple(x.shape), dtype)
    np.testing.assert_array_equal(grad.numpy(), want)


def test_gradient_is_the_adjoint_in_float64():
    """<resize(x), g> == <x, resize^T(g)> up to rounding, for every differentiable method."""
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.uniform(-1, 1, (1, 4, 6, 1)), requires_grad=True)
    for method in ("bilinear", "bicubic", "nearest", "area"):
        y = tf.image.resize(x, [7, 3], method=method)
        g = torch.tensor(rng.uniform(-1, 1, tuple(y.shape)), dtype=y.dtype)
        (grad,) = torch.autograd.grad(y, x, g)
        lhs = float((y.detach().double() * g.double()).sum())
        rhs = float((x.detach() * grad).sum())
        assert lhs == pytest.approx(rhs, rel=1e-6, abs=1e-6)


def test_non_finite_cotangents_do_not_leak_into_other_pixels():
    """The padded entries of the gradient plan read a zero row: an inf cotangent reaches
    only the pixels its output read."""
    x = torch.zeros(1, 4, 4, 1, requires_grad=True)
    y = tf.image.resize(x, [8, 8], method="bilinear")
    g = torch.zeros_like(y)
    g[0, 0, 0, 0] = float("inf")
    (grad,) = torch.autograd.grad(y, x, g)
    assert np.isinf(grad[0, 0, 0, 0].item())
    assert torch.isfinite(grad.view(-1)[1:]).all()
