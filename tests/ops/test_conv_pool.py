"""`tf.nn` convolutions and pools: TF's SAME geometry as properties, gradients, layouts, errors.

The golden tables (`golden/cases_nn_conv.py`) hold TF's values; these tests state the rules
behind them for every size and check what the oneDNN-built TF cannot record.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, strategies as st

from tfcompat import nn
from tfcompat.framework import errors


def _same_pads(n, k, s, d=1):
    eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def _ref_pool(x, k, s, kind):
    """TF's SAME pooling from its definition: pad explicitly, window by window (NHWC)."""
    n, h, w, c = x.shape
    (pt, pb), (pl, pr) = _same_pads(h, k[0], s[0]), _same_pads(w, k[1], s[1])
    ho, wo = -(-h // s[0]), -(-w // s[1])
    out = np.empty((n, ho, wo, c))
    for i in range(ho):
        for j in range(wo):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(r0, 0):min(r0 + k[0], h), max(c0, 0):min(c0 + k[1], w), :]
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "MAX" else win.mean(axis=(1, 2))
    return out


sizes = st.integers(1, 9)
windows = st.integers(1, 4)
steps = st.integers(1, 3)


@given(h=sizes, w=sizes, kh=windows, kw=windows, sh=steps, sw=steps,
       kind=st.sampled_from(["MAX", "AVG"]))
def test_same_pooling_matches_tf_definition(h, w, kh, kw, sh, sw, kind):
    x = np.random.default_rng(h * 100 + w).standard_normal((2, h, w, 3))
    fn = nn.max_pool2d if kind == "MAX" else nn.avg_pool2d
    got = fn(x, [kh, kw], [sh, sw], "SAME").numpy()
    np.testing.assert_allclose(got, _ref_pool(x, (kh, kw), (sh, sw), kind), rtol=1e-12, atol=1e-12)


@given(h=sizes, w=sizes, kh=windows, kw=windows, sh=steps, sw=steps, d=st.integers(1, 2))
def test_same_conv_matches_explicit_padding(h, w, kh, kw, sh, sw, d):
    rng = np.random.default_rng(h * 10 + w)
    x, f = rng.standard_normal((1, h, w, 2)), rng.standard_normal((kh, kw, 2, 3))
    got = nn.conv2d(x, f, [sh, sw], "SAME", dilations=d).numpy()
    (pt, pb), (pl, pr) = _same_pads(h, kh, sh, d), _same_pads(w, kw, sw, d)
    xp = F.pad(torch.from_numpy(x), (0, 0, pl, pr, pt, pb)).permute(0, 3, 1, 2)
    want = F.conv2d(xp, torch.from_numpy(f).permute(3, 2, 0, 1), stride=(sh, sw),
                    dilation=d).permute(0, 2, 3, 1)
    assert got.shape == (1, -(-h // sh), -(-w // sw), 3)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)


@given(h=st.integers(1, 6), w=st.integers(1, 6), k=st.integers(1, 3), s=st.integers(1, 3),
       padding=st.sampled_from(["SAME", "VALID"]))
def test_conv2d_transpose_is_the_input_gradient_of_conv2d(h, w, k, s, padding):
    """TF's definition: conv2d_transpose(dy, f, x.shape) = d/dx sum(conv2d(x, f) * dy)."""
    rng = np.random.default_rng(h + 7 * w)
    x = torch.tensor(rng.standard_normal((1, h, w, 2)), requires_grad=True)
    f = torch.tensor(rng.standard_normal((k, k, 2, 3)))
    if padding == "VALID" and (h < k or w < k):
        return
    y = nn.conv2d(x, f, s, padding)
    dy = torch.tensor(rng.standard_normal(tuple(y.shape)))
    (grad,) = torch.autograd.grad((y * dy).sum(), x)
    got = nn.conv2d_transpose(dy, f, [1, h, w, 2], s, padding)
    np.testing.assert_allclose(got.numpy(), grad.numpy(), rtol=1e-10, atol=1e-12)


@given(sizes=st.lists(st.integers(1, 5), min_size=1, max_size=3), k=st.integers(1, 3),
       s=st.integers(1, 3), d=st.integers(1, 2), padding=st.sampled_from(["SAME", "VALID"]))
def test_conv_transpose_is_the_input_gradient_of_the_convolution(sizes, k, s, d, padding):
    """conv{1,3}d_transpose and conv_transpose by TF's definition (dilations under stride 1,
    as TF requires)."""
    n = len(sizes)
    if padding == "VALID" and min(sizes) < (k - 1) * d + 1:
        return
    d = 1 if s > 1 else d
    rng = np.random.default_rng(sum(sizes) + 10 * k)
    x = torch.tensor(rng.standard_normal([2] + sizes + [2]), requires_grad=True)
    f = torch.tensor(rng.standard_normal([k] * n + [2, 3]))
    y = nn.convolution(x, f, [s] * n, padding, dilations=[d] * n)
    dy = torch.tensor(rng.standard_normal(tuple(y.shape)))
    (grad,) = torch.autograd.grad((y * dy).sum(), x)
    shape = [2] + sizes + [2]
    f_t = f  # [*k, in=2, out=3] is [*k, output_channels, in_channels] of the transpose
    if n == 1:
        got = nn.conv1d_transpose(dy, f_t, shape, s, padding, dilations=d)
    elif n == 3:
        got = nn.conv3d_transpose(dy, f_t, shape, s, padding, dilations=d)
    else:
        got = nn.conv2d_transpose(dy, f_t, shape, s, padding, dilations=d)
    np.testing.assert_allclose(got.numpy(), grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(nn.conv_transpose(dy, f_t, shape, s, padding,
                                                 dilations=d).numpy(), grad.numpy(),
                               rtol=1e-10, atol=1e-12)


def test_conv_transpose_errors():
    x, f = torch.ones(1, 3, 4), torch.ones(3, 2, 4)
    with pytest.raises(errors.InvalidArgumentError, match="Size of out_backprop doesn't match"):
        nn.conv1d_transpose(x, f, [1, 9, 2], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="same out_depth"):
        nn.conv1d_transpose(torch.ones(1, 3, 3), f, [1, 6, 2], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="input_sizes must be 5-dimensional"):
        nn.conv3d_transpose(torch.ones(1, 2, 2, 2, 4), torch.ones(2, 2, 2, 3, 4), [4, 4, 4], 2)
    with pytest.raises(ValueError, match="`output_shape` must be of length 3, 4 or 5"):
        nn.conv_transpose(x, f, [1, 2], 2)
    assert nn.conv1d_transpose(x, f, [6], 2, "SAME").shape == (1, 6, 2)


def test_conv_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((1, 5, 4, 2)), requires_grad=True)
    f = torch.tensor(rng.standard_normal((2, 3, 2, 2)), requires_grad=True)
    dw = torch.tensor(rng.standard_normal((3, 3, 2, 2)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: nn.conv2d(a, b, 2, "SAME"), (x, f))
    assert torch.autograd.gradcheck(lambda a, b: nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME"),
                                    (x, dw))
    assert torch.autograd.gradcheck(lambda a: nn.avg_pool2d(a, 2, 1, "SAME"), (x,))


def test_nhwc_convolution_returns_contiguous_nhwc_without_copying_the_input():
    x, f = torch.randn(2, 9, 9, 8), torch.randn(3, 3, 8, 4)
    y = nn.conv2d(x, f, 1, "SAME")  # symmetric padding: no F.pad, the input goes in as a view
    assert y.shape == (2, 9, 9, 4) and y.is_contiguous()
    y2 = nn.conv2d(x, f, 2, "SAME")  # asymmetric: one padded copy, still NHWC out
    assert y2.shape == (2, 5, 5, 4) and y2.is_contiguous()


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.int8,
                                   torch.int16])
def test_max_pool_of_integers_is_exact(dtype):
    # (recorded TF results for integer max pools depend on its kernel cache: checked here)
    x = torch.arange(-20, 30, dtype=torch.int64).reshape(1, 5, 5, 2) % 23
    x = x.to(dtype)
    got = nn.max_pool2d(x, 3, 2, "SAME")
    want = nn.max_pool2d(x.double(), 3, 2, "SAME").to(dtype)
    assert got.dtype == dtype and torch.equal(got, want)
    got1 = nn.max_pool1d(x[:, 0], 2, 1, "SAME")
    assert got1.dtype == dtype and torch.equal(got1, nn.max_pool1d(x[:, 0].double(), 2, 1,
                                                                   "SAME").to(dtype))


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = torch.tensor([[1.0, 3.0], [3.0, 3.0]]).reshape(1, 2, 2, 1).requires_grad_()
    nn.max_pool2d(x, 2, 2, "VALID").sum().backward()
    assert x.grad.reshape(-1).tolist() == [0.0, 1.0, 0.0, 0.0]


def test_conv2d_transpose_errors_are_tfs_portable_kernel_messages():
    x, f = torch.ones(1, 3, 3, 4), torch.ones(3, 3, 2, 4)
    with pytest.raises(errors.InvalidArgumentError, match="Size of out_backprop doesn't match"):
        nn.conv2d_transpose(x, f, [1, 7, 7, 2], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="same out_depth"):
        nn.conv2d_transpose(torch.ones(1, 3, 3, 3), f, [1, 5, 5, 2], 2, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="same depth"):
        nn.conv2d_transpose(x, f, [1, 5, 5, 3], 2, "SAME")
    assert nn.conv2d_transpose(x, f, [1, 5, 5, 2], 2, "SAME").shape == (1, 5, 5, 2)


def test_window_errors():
    x, f = torch.ones(1, 5, 5, 2), torch.ones(3, 3, 2, 4)
    with pytest.raises(errors.InvalidArgumentError, match="Computed output size would be negative"):
        nn.conv2d(torch.ones(1, 2, 2, 2), f, 1, "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="input depth must be evenly divisible"):
        nn.conv2d(torch.ones(1, 5, 5, 3), f, 1, "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="batch or depth"):
        nn.conv2d(x, f, 1, [[1, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="nonnegative"):
        nn.conv2d(x, f, 1, [[0, 0], [-1, 1], [1, 1], [0, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="Right padding 2"):
        nn.max_pool2d(x, 2, 1, [[0, 0], [0, 0], [0, 2], [0, 0]])
    with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
        nn.avg_pool2d(x, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(errors.InvalidArgumentError, match="same depth"):
        nn.depthwise_conv2d(x, torch.ones(3, 3, 3, 1), [1, 1, 1, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="must be at least 4-dimensional"):
        nn.conv2d(torch.ones(5, 5, 2), f, 1, "SAME")
    with pytest.raises(errors.NotFoundError):
        nn.avg_pool3d(torch.ones(1, 2, 2, 2, 1, dtype=torch.float64), 1, 1, "SAME")


def test_half_convolution_rounds_once_from_float32():
    rng = np.random.default_rng(3)
    x, f = rng.standard_normal((1, 6, 6, 8)), rng.standard_normal((3, 3, 8, 2))
    got = nn.conv2d(x.astype(np.float16), f.astype(np.float16), 2, "SAME")
    want = nn.conv2d(x.astype(np.float16).astype(np.float32),
                     f.astype(np.float16).astype(np.float32), 2, "SAME").half()
    assert got.dtype == torch.float16 and torch.equal(got, want)


SYNC_FREE = {
    "conv2d_same_s2": lambda x, f: nn.conv2d(x, f, 2, "SAME"),
    "conv2d_nchw": lambda x, f: nn.conv2d(x.permute(0, 3, 1, 2), f, 1, "VALID",
                                          data_format="NCHW"),
    "conv2d_transpose": lambda x, f: nn.conv2d_transpose(x, f.permute(0, 1, 3, 2), [2, 18, 17, 4],
                                                         2, "SAME"),
    "depthwise": lambda x, f: nn.depthwise_conv2d(x, f[..., :1], [1, 2, 2, 1], "SAME"),
    "max_pool_same": lambda x, f: nn.max_pool2d(x, 3, 2, "SAME"),
    "max_pool_explicit": lambda x, f: nn.max_pool2d(x, 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]]),
    "avg_pool_same_s1": lambda x, f: nn.avg_pool2d(x, 2, 1, "SAME"),
    "pool_avg_dilated": lambda x, f: nn.pool(x, [2, 2], "AVG", dilations=[2, 2]),
    "activations": lambda x, f: (nn.elu(x), nn.selu(x), nn.gelu(x), nn.silu(x, 1.5),
                                 nn.leaky_relu(x), nn.relu6(x)),
    "moments_batch_norm": lambda x, f: nn.batch_normalization(x, *nn.moments(x, [0, 1, 2]), None,
                                                              None, 1e-3),
    "l2_normalize": lambda x, f: nn.l2_normalize(x, -1),
    "embedding_lookup_partitions": lambda x, f: nn.embedding_lookup([f[0, 0], f[1, 1]],
                                                                    torch.tensor([0, 3])),
}


@pytest.mark.parametrize("name", sorted(SYNC_FREE))
def test_nn_ops_never_sync_with_the_host(name):
    from tfcompat.testing import accelerator_policy, host_syncs
    x = torch.randn(2, 9, 9, 2, requires_grad=True)
    f = torch.randn(3, 3, 2, 4, requires_grad=True)
    with accelerator_policy():
        with host_syncs() as log:
            out = SYNC_FREE[name](x, f)
            outs = out if isinstance(out, tuple) else (out,)
            torch.autograd.grad(sum(o.sum() for o in outs), [x, f], allow_unused=True)
    assert not log, log.report()
