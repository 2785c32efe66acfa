"""`tf.nn`: activations, softmax, losses, `l2_loss`, `bias_add`, `dropout`."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import op_reference as ref
from tfcompat import math as tfm
from tfcompat import nn
from tfcompat import random as tfr
from tfcompat.framework import errors

L = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])


def logits(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)):
    return hnp.arrays(np.float64, shape, elements=st.floats(-10, 10))


def test_relu():
    assert nn.relu([-1.0, 0.0, 2.0]).tolist() == [0.0, 0.0, 2.0]
    assert nn.relu(torch.tensor([1, -2], dtype=torch.int32)).tolist() == [1, 0]
    assert np.isnan(nn.relu([np.nan]).item())
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        nn.relu([True])
    x = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    nn.relu(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]  # TF's ReluGrad is 0 at 0


@given(x=logits(), data=st.data())
def test_softmax_and_log_softmax_match_reference(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    ls = ref.log_softmax(x, axis)
    np.testing.assert_allclose(nn.log_softmax(x, axis=axis).numpy(), ls, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(nn.softmax(x, axis=axis).numpy(), np.exp(ls), rtol=1e-10, atol=1e-12)


def test_softmax_errors():
    with pytest.raises(errors.InvalidArgumentError, match=r"`dim` must be in the range \[-2, 2\)"):
        nn.softmax(L, axis=2)
    with pytest.raises(errors.InvalidArgumentError, match="of int32"):
        nn.softmax([1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="rank >= 1"):
        nn.softmax(torch.tensor(1.0))
    assert tfm.softmax is nn.softmax


@given(x=logits(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)), data=st.data())
def test_softmax_xent_matches_reference(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    labels = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(0, 1)))
    out = nn.softmax_cross_entropy_with_logits(labels=labels, logits=x, axis=axis)
    np.testing.assert_allclose(out.numpy(), ref.softmax_xent(labels, x, axis), rtol=1e-9, atol=1e-9)


def test_softmax_xent_details():
    out = nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]], logits=L)
    np.testing.assert_allclose(out.numpy(), [1.4076059, 1.0986123], rtol=1e-6)
    # int labels and float64 labels are cast to the logits' dtype
    out = nn.softmax_cross_entropy_with_logits(labels=[[0, 1, 0], [1, 0, 0]], logits=L)
    assert out.dtype == torch.float32
    out = nn.softmax_cross_entropy_with_logits(labels=torch.tensor([[0.0, 1.0, 0.0]],
                                                                   dtype=torch.float64), logits=L)
    assert out.shape == (2,) and out.dtype == torch.float32  # labels broadcast
    half = nn.softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=torch.tensor(
        [1.0, 2.0], dtype=torch.float16))
    assert half.dtype == torch.float16
    with pytest.raises(errors.InvalidArgumentError, match="must be broadcastable"):
        nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=L)
    with pytest.raises(errors.InvalidArgumentError, match="of int32"):
        nn.softmax_cross_entropy_with_logits(labels=[[0, 1, 0]], logits=[[1, 2, 3]])


def test_softmax_xent_gradient_is_tfs_for_unnormalized_labels():
    x = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    z = torch.tensor([[0.5, 1.0, 1.5]], dtype=torch.float64, requires_grad=True)  # sums to 3
    nn.softmax_cross_entropy_with_logits(labels=z, logits=x).sum().backward()
    sm = torch.softmax(x.detach(), -1)
    np.testing.assert_allclose(x.grad.numpy(), (sm - z.detach()).numpy(), rtol=1e-12)
    np.testing.assert_allclose(z.grad.numpy(), (-torch.log_softmax(x.detach(), -1)).numpy(),
                               rtol=1e-12)


@given(x=logits(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)), data=st.data())
def test_sparse_softmax_xent_matches_reference(x, data):
    labels = data.draw(hnp.arrays(np.int64, x.shape[:-1], elements=st.integers(0, x.shape[-1] - 1)))
    out = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
    np.testing.assert_allclose(out.numpy(), ref.sparse_softmax_xent(labels, x), rtol=1e-9,
                               atol=1e-9)


def test_sparse_softmax_xent_details():
    out = nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=L)
    np.testing.assert_allclose(out.numpy(), [0.40760595, 1.0986123], rtol=1e-6)
    assert nn.sparse_softmax_cross_entropy_with_logits(labels=1, logits=[1.0, 2.0]).shape == ()
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"label value of 3 which is outside the valid range of \[0, 3\)"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=[3, 0], logits=L)
    with pytest.raises(errors.InvalidArgumentError, match="label value of -1"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=L)
    with pytest.raises(errors.InvalidArgumentError, match="'Tlabels' of float"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=[2.0, 0.0], logits=L)
    with pytest.raises(ValueError, match="`labels.shape` must equal `logits.shape` except"):
        nn.sparse_softmax_cross_entropy_with_logits(labels=[2], logits=L)
    x = L.clone().requires_grad_(True)
    nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=x).sum().backward()
    expected = torch.softmax(L, -1) - torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(x.grad.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)


@given(x=logits(), data=st.data())
def test_sigmoid_xent_matches_reference(x, data):
    z = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(0, 1)))
    out = nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    np.testing.assert_allclose(out.numpy(), ref.sigmoid_xent(z, x), rtol=1e-12, atol=1e-12)


def test_sigmoid_xent_details():
    out = nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0, 0.5], logits=[-100.0, 100.0, 0.0])
    np.testing.assert_allclose(out.numpy(), [0.0, 0.0, 0.6931472], atol=1e-7)  # stable
    with pytest.raises(ValueError, match=r"must have the same shape, received \(\(3,\) vs \(2,\)\)"):
        nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0], logits=[1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="cannot compute Mul as input #1"):
        nn.sigmoid_cross_entropy_with_logits(labels=[0, 1], logits=[1.0, 2.0])
    x = torch.tensor([0.0, 2.0], requires_grad=True)
    nn.sigmoid_cross_entropy_with_logits(labels=torch.tensor([1.0, 0.0]), logits=x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.5, 1 / (1 + np.exp(-2.0))], rtol=1e-6)


def test_l2_loss():
    assert nn.l2_loss([1.0, 2.0, 3.0]).item() == 7.0
    assert nn.l2_loss(torch.tensor([1.0, 2.0], dtype=torch.float16)).dtype == torch.float16
    with pytest.raises(errors.InvalidArgumentError, match="L2Loss"):
        nn.l2_loss([1, 2])
    x = torch.tensor([1.0, -3.0], requires_grad=True)
    nn.l2_loss(x).backward()
    assert x.grad.tolist() == [1.0, -3.0]


def test_bias_add():
    assert nn.bias_add(L, [1.0, 2.0, 3.0]).tolist() == [[2, 4, 6], [2, 3, 4]]
    out = nn.bias_add(torch.zeros(1, 2, 3, 3), [1.0, 2.0], data_format="NCHW")
    assert out[0, :, 1, 1].tolist() == [1.0, 2.0]
    assert nn.bias_add(torch.zeros(1, 2, 3), [1.0, 2.0], data_format="NCW")[0, :, 0].tolist() == [1, 2]
    assert nn.bias_add(torch.zeros(1, 2, 3), [1.0, 2.0, 3.0], data_format="NWC").shape == (1, 2, 3)
    assert nn.bias_add(torch.tensor([[1, 2]], dtype=torch.int32), [1, 2]).tolist() == [[2, 4]]
    with pytest.raises(ValueError, match="must be of the form `N...C` or `NC...`"):
        nn.bias_add(L, [1.0, 2.0, 3.0], data_format="XX")
    with pytest.raises(errors.InvalidArgumentError, match="as many biases as the last dimension"):
        nn.bias_add(L, [1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="at least 2D"):
        nn.bias_add([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="Biases must be 1D"):
        nn.bias_add(L, [[1.0, 2.0, 3.0]])
    with pytest.raises(errors.InvalidArgumentError, match="input #1"):
        nn.bias_add(L, torch.tensor([1, 2, 3], dtype=torch.int32))
    b = torch.zeros(2, requires_grad=True)
    nn.bias_add(torch.ones(4, 2, 5), b, data_format="NCW").sum().backward()
    assert b.grad.tolist() == [20.0, 20.0]


# -- dropout -----------------------------------------------------------------------------

def test_dropout_scales_kept_values_and_drops_the_rest():
    x = torch.ones(20000)
    out = nn.dropout(x, rate=0.25, seed=3)
    kept = out != 0
    assert torch.allclose(out[kept], torch.tensor(1 / 0.75))
    assert abs(kept.float().mean().item() - 0.75) < 0.02


def test_dropout_noise_shape_shares_decisions():
    out = nn.dropout(torch.ones(50, 4), rate=0.5, noise_shape=[50, 1], seed=1)
    rows = (out != 0).float()
    assert torch.all(rows.min(dim=1).values == rows.max(dim=1).values)
    out = nn.dropout(torch.ones(3, 4), rate=0.5, noise_shape=[None, 1])
    assert out.shape == (3, 4)
    out = nn.dropout(torch.ones(3, 40), rate=0.5, noise_shape=[40])
    assert torch.all((out != 0).float().std(dim=0) == 0)


def test_dropout_rules():
    x = torch.ones(2, 3)
    assert nn.dropout(x, rate=0.0) is x
    out = nn.dropout(x, rate=torch.tensor(0.5))
    assert set(out.unique().tolist()) <= {0.0, 2.0}
    assert nn.dropout(torch.ones(4, dtype=torch.float16), rate=0.5).dtype == torch.float16
    with pytest.raises(ValueError, match=r"range \[0, 1\). Received: rate=1.0"):
        nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="rate=-0.1"):
        nn.dropout(x, rate=-0.1)
    with pytest.raises(ValueError, match="must be a floating point tensor"):
        nn.dropout(torch.tensor([1, 2]), rate=0.5)
    with pytest.raises(errors.InvalidArgumentError, match="must be broadcastable"):
        nn.dropout(torch.ones(3, 4), rate=0.5, noise_shape=[2, 1])
    with pytest.raises(TypeError):
        nn.dropout(x, keep_prob=0.5)


def test_dropout_is_reproducible_under_set_seed_and_differentiable():
    tfr.set_seed(11)
    a = nn.dropout(torch.ones(100), 0.5)
    b = nn.dropout(torch.ones(100), 0.5)
    tfr.set_seed(11)
    assert torch.equal(a, nn.dropout(torch.ones(100), 0.5))
    assert torch.equal(b, nn.dropout(torch.ones(100), 0.5))
    tfr.set_seed(None)
    x = torch.ones(100, requires_grad=True)
    out = nn.dropout(x, 0.5, seed=2)
    out.sum().backward()
    assert torch.equal(x.grad, (out != 0).float() * 2)
