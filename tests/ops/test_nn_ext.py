"""`tf.nn` activations and normalization of issue 9: laws, gradients, argument rules."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from tfcompat import nn
from tfcompat.framework import errors

arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                    elements=st.floats(-10, 10))


@pytest.mark.parametrize("fn", [nn.elu, nn.selu, nn.gelu, lambda x: nn.gelu(x, True),
                                nn.silu, nn.leaky_relu, nn.relu6])
def test_activation_gradients_match_finite_differences(fn):
    x = torch.tensor([-2.5, -0.7, -0.1, 0.3, 1.2, 5.5, 6.4], dtype=torch.float64,
                     requires_grad=True)
    assert torch.autograd.gradcheck(fn, (x,))


def test_tf_gradients_at_the_kinks():
    x = torch.tensor([0.0, 6.0, -1e3, 1e5], requires_grad=True)
    (g,) = torch.autograd.grad(nn.relu6(x).sum(), x)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0]  # Relu6Grad: only 0 < x < 6 passes
    (g,) = torch.autograd.grad(nn.leaky_relu(x).sum(), x)
    assert g[0].item() == pytest.approx(0.2)  # LeakyReluGrad: alpha at 0
    (g,) = torch.autograd.grad(nn.elu(x).sum(), x)
    assert g.tolist() == [1.0, 1.0, 0.0, 1.0]  # EluGrad from the output: no inf * 0


def test_leaky_relu_alpha_rules():
    assert nn.leaky_relu([1.0, -1.0], alpha=2.0).tolist() == [1.0, -2.0]  # x > 0 keeps x
    assert nn.leaky_relu([-1], 0.5).dtype == torch.float32  # ints become float32
    with pytest.raises(TypeError, match="Expected float for argument 'alpha'"):
        nn.leaky_relu([-1.0], alpha=torch.tensor(0.5))
    # alpha is a float32 attr: a float64 input sees float32(0.1)
    assert nn.leaky_relu(torch.tensor([-1.0], dtype=torch.float64), 0.1).item() == \
        -float(np.float32(0.1))


def test_activation_dtype_errors():
    with pytest.raises(errors.InvalidArgumentError, match="of int32"):
        nn.elu([1, 2])
    with pytest.raises(ValueError, match="floating point"):
        nn.gelu([1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        nn.relu6([True])


@given(x=arrays, data=st.data())
def test_moments_match_numpy(x, data):
    axes = sorted(set(data.draw(st.lists(st.integers(0, x.ndim - 1), min_size=1))))
    mean, var = nn.moments(x, axes)
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=tuple(axes)), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(var.numpy(), x.var(axis=tuple(axes)), rtol=1e-9, atol=1e-9)
    km, kv = nn.moments(x, axes, keepdims=True)
    assert km.shape == kv.shape == np.mean(x, axis=tuple(axes), keepdims=True).shape


@given(x=arrays, data=st.data())
def test_l2_normalize_gives_unit_norm(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    y = nn.l2_normalize(x, axis=axis).numpy()
    norms = np.sqrt((x ** 2).sum(axis=axis, keepdims=True))
    big = np.broadcast_to(norms > 1e-3, x.shape)
    np.testing.assert_allclose(np.sqrt((y ** 2).sum(axis=axis))[np.squeeze(norms > 1e-3, axis)],
                               1.0, rtol=1e-9)
    np.testing.assert_allclose(y[big], (x / np.where(norms > 0, norms, 1))[big], rtol=1e-9)


def test_batch_normalization_is_tfs_formula_and_differentiable():
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    m, v = torch.tensor(rng.standard_normal(3)), torch.tensor(np.abs(rng.standard_normal(3)))
    o = torch.tensor(rng.standard_normal(3), requires_grad=True)
    s = torch.tensor(rng.standard_normal(3), requires_grad=True)
    got = nn.batch_normalization(x, m, v, o, s, 1e-3)
    inv = torch.rsqrt(v + 1e-3) * s
    assert torch.equal(got, x * inv + (o - m * inv))
    assert torch.autograd.gradcheck(lambda a, b, c: nn.batch_normalization(a, m, v, b, c, 1e-3),
                                    (x, o, s))


def test_weighted_moments_with_unit_weights_are_moments():
    x = np.random.default_rng(2).standard_normal((3, 4))
    wm, wv = nn.weighted_moments(x, [0], np.ones((3, 1)))
    m, v = nn.moments(x, [0])
    np.testing.assert_allclose(wm.numpy(), m.numpy(), rtol=1e-12)
    np.testing.assert_allclose(wv.numpy(), v.numpy(), rtol=1e-12)


def test_embedding_lookup_mod_partitions_read_id_mod_n():
    from tfcompat.ops.embedding_ops import embedding_lookup_v1
    table = torch.arange(14.0).reshape(7, 2)
    parts = [table[0::3], table[1::3], table[2::3]]  # "mod": id i in partition i % 3, row i // 3
    ids = torch.tensor([[6, 0], [4, 5]])
    assert torch.equal(embedding_lookup_v1(parts, ids), table[ids])
    assert torch.equal(nn.embedding_lookup([table[:3], table[3:5], table[5:]], ids), table[ids])
    with pytest.raises(errors.InvalidArgumentError):
        embedding_lookup_v1(parts, [9])  # row 3 of partition 0 (which has 3 rows)
    with pytest.raises(ValueError, match="partition strategy"):
        embedding_lookup_v1(parts, [1], partition_strategy="cyclic")


def test_ctc_loss_is_the_negative_log_likelihood_over_alignments():
    # two frames, one label "1", blank 0: alignments (1,1), (0,1), (1,0)
    logits = torch.tensor(np.random.default_rng(4).standard_normal((2, 1, 3)), dtype=torch.float32)
    p = torch.softmax(logits.double()[:, 0], -1).numpy()
    want = -np.log(p[0, 1] * p[1, 1] + p[0, 0] * p[1, 1] + p[0, 1] * p[1, 0])
    assert nn.ctc_loss([[1]], logits, [1], [2]).item() == pytest.approx(want, rel=1e-6)
    # a label no alignment fits into the frames: inf (TF returns a large finite number)
    assert nn.ctc_loss([[1, 1]], logits, [2], [2]).item() == float("inf")
    with pytest.raises(errors.InvalidArgumentError):  # float64 fails in TF's dense path too
        nn.ctc_loss([[1]], logits.double(), [1], [2])
