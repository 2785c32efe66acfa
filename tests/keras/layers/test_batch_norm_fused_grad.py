"""BatchNormalization's fused training path: TF's gradient kernel formula (FusedBatchNormGradV3)
written as one backward, checked against autograd of the op-by-op forward it replaces.

Law: for every input layout the fused path takes (4-D/5-D, channels last or first), with and
without `scale`/`center`, the gradients of x, gamma and beta equal autograd's of
`(x - mean) * (rsqrt(var + eps) * gamma) + beta` (batch statistics) to float64 rounding; the
forward values are the same operations, so equal bit for bit; and a nested tape (a gradient of
a gradient) differentiates through it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf


def _reference(x, gamma, beta, axis, eps):
    dims = tuple(i for i in range(x.dim()) if i != axis)
    shape = [1] * x.dim()
    shape[axis] = x.shape[axis]
    mean = x.mean(dim=dims)
    centered = x - mean.reshape(shape)
    variance = (centered * centered).mean(dim=dims)
    factor = torch.rsqrt(variance + eps)
    if gamma is not None:
        factor = factor * gamma
    out = centered * factor.reshape(shape)
    if beta is not None:
        out = out + beta.reshape(shape)
    return out


@settings(max_examples=25, deadline=None)
@given(rank=st.sampled_from([4, 5]), channels_first=st.booleans(), scale=st.booleans(),
       center=st.booleans(), seed=st.integers(0, 2**16), offset=st.sampled_from([0.0, 50.0]))
def test_fused_gradients_equal_autograd_of_the_composition(rank, channels_first, scale, center,
                                                           seed, offset):
    rs = np.random.RandomState(seed)
    shape = (3, 4, 2, 5) if rank == 4 else (2, 3, 2, 2, 4)
    axis = 1 if channels_first else rank - 1
    x = rs.normal(offset, 2.0, shape)
    layer = tf.keras.layers.BatchNormalization(axis=axis, scale=scale, center=center,
                                               epsilon=1e-3, dtype="float64")
    layer.build(shape)
    if scale:
        layer.gamma.assign(rs.uniform(0.5, 2.0, shape[axis]))
    if center:
        layer.beta.assign(rs.normal(0, 1, shape[axis]))
    assert layer.fused
    dy = torch.from_numpy(rs.normal(0, 1, shape))
    xt = torch.from_numpy(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = layer(xt, training=True)
        loss = tf.reduce_sum(y * dy)
    got = tape.gradient(loss, [xt] + layer.trainable_variables)

    xr = torch.from_numpy(x).requires_grad_(True)
    gamma = torch.tensor(layer.gamma.numpy(), requires_grad=True) if scale else None
    beta = torch.tensor(layer.beta.numpy(), requires_grad=True) if center else None
    ref = _reference(xr, gamma, beta, axis, 1e-3)
    np.testing.assert_array_equal(y.detach().numpy(), ref.detach().numpy())
    want = torch.autograd.grad((ref * dy).sum(), [xr] + [t for t in (gamma, beta) if t is not None])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        scale_of = max(float(w.abs().max()), 1.0)
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=0, atol=1e-12 * scale_of)


def test_fused_gradient_in_float32_tracks_float64():
    """float32: within a few float32 ulps of the float64 gradient (error model: O(n eps))."""
    rs = np.random.RandomState(0)
    x = rs.normal(1.0, 3.0, (8, 6, 6, 4))
    grads = {}
    for dtype in ("float32", "float64"):
        layer = tf.keras.layers.BatchNormalization(dtype=dtype)
        xt = tf.constant(x.astype(dtype))
        with tf.GradientTape() as tape:
            tape.watch(xt)
            loss = tf.reduce_sum(tf.square(layer(xt, training=True)) * tf.constant(x.astype(dtype)))
        grads[dtype] = [np.asarray(g, np.float64) for g in
                        tape.gradient(loss, [xt] + layer.trainable_variables)]
    for a, b in zip(grads["float32"], grads["float64"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-5 * max(np.abs(b).max(), 1.0))


def test_second_order_gradient_through_training_batch_norm():
    """Nested tapes (a gradient penalty): the inner gradient is differentiable again, and equals
    the second derivative of the composition."""
    rs = np.random.RandomState(1)
    x = rs.normal(0, 1, (4, 3, 3, 2))
    layer = tf.keras.layers.BatchNormalization(dtype="float64")
    layer.build(x.shape)
    layer.gamma.assign([1.5, 0.5])
    xt = torch.from_numpy(x)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(xt)
            y = layer(xt, training=True)
            loss = tf.reduce_sum(y ** 3)
        dx = inner.gradient(loss, xt)
        penalty = tf.reduce_sum(dx * dx)
    d_gamma = outer.gradient(penalty, layer.gamma)

    gamma = torch.tensor([1.5, 0.5], dtype=torch.float64, requires_grad=True)
    xr = torch.from_numpy(x).requires_grad_(True)
    ref = _reference(xr, gamma, torch.zeros(2, dtype=torch.float64), 3, 1e-3)
    (gx,) = torch.autograd.grad((ref ** 3).sum(), [xr], create_graph=True)
    (want,) = torch.autograd.grad((gx * gx).sum(), [gamma])
    assert d_gamma is not None
    np.testing.assert_allclose(np.asarray(d_gamma), want.numpy(), rtol=1e-10)
