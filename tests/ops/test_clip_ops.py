"""clip_by_value, clip_by_norm, clip_by_global_norm, global_norm."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import op_reference as ref
import tfcompat as tf
from tfcompat import linalg
from tfcompat.framework import errors

X = torch.tensor([[-2.0, 1.0], [3.0, 4.0]])


def arrays(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)):
    return hnp.arrays(np.float64, shape, elements=st.floats(-10, 10))


@given(x=arrays(), lo=st.floats(-5, 0), hi=st.floats(0, 5))
def test_clip_by_value_matches_numpy(x, lo, hi):
    np.testing.assert_array_equal(tf.clip_by_value(x, lo, hi).numpy(), np.clip(x, lo, hi))
    t = torch.from_numpy(x)
    np.testing.assert_array_equal(  # tensor bounds take the general (maximum/minimum) path
        tf.clip_by_value(t, torch.tensor(lo, dtype=t.dtype), torch.tensor(hi, dtype=t.dtype)).numpy(),
        np.clip(x, lo, hi))


def test_float64_bounds_keep_their_precision():
    x = torch.tensor([-2.0], dtype=torch.float64)
    assert tf.clip_by_value(x, -1.8245040003926487, 0.0).item() == -1.8245040003926487


def test_clip_by_value_rules():
    assert tf.clip_by_value(torch.tensor([1, 5], dtype=torch.int32), 2, 3).tolist() == [2, 3]
    assert tf.clip_by_value(X, 0, 1).dtype == torch.float32
    assert tf.clip_by_value(X, torch.tensor([0.0, 1.0]), 3.0).tolist() == [[0, 1], [3, 3]]
    assert tf.clip_by_value(X, 3.0, 1.0).tolist() == [[3, 3], [3, 3]]  # min wins, as TF
    assert np.isnan(tf.clip_by_value([np.nan], 0.0, 1.0).item())
    s = tf.clip_by_value(tf.IndexedSlices(X, [0, 1], [2, 2]), 0.0, 1.0)
    assert isinstance(s, tf.IndexedSlices) and s.values.tolist() == [[0, 1], [1, 1]]
    with pytest.raises(TypeError, match="Cannot convert 3.0"):
        tf.clip_by_value(torch.tensor([1, 5], dtype=torch.int32), 2.0, 3.0)
    with pytest.raises(ValueError, match=r"Shapes \(1,\) and \(2,\) are incompatible"):
        tf.clip_by_value([1.0], torch.tensor([0.0, 1.0]), 3.0)
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        tf.clip_by_value(torch.tensor([True]), False, True)
    with pytest.raises(errors.InvalidArgumentError, match="double tensor"):
        tf.clip_by_value(X, torch.tensor(0.0, dtype=torch.float64), 1.0)


def test_clip_by_value_gradient_passes_at_the_bounds():
    x = torch.tensor([0.0, 0.5, 1.0, 2.0], requires_grad=True)
    tf.clip_by_value(x, 0.0, 1.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.0]  # TF: ties pass the gradient through


@given(x=arrays(), clip=st.floats(0.1, 10), data=st.data())
def test_clip_by_norm_matches_reference(x, clip, data):
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, x.ndim - 1), unique=True,
                                                   min_size=1)))
    out = tf.clip_by_norm(x, clip, axes=axes)
    np.testing.assert_allclose(out.numpy(), ref.clip_by_norm(x, clip, axes), rtol=1e-12, atol=1e-12)


def test_clip_by_norm_details():
    np.testing.assert_allclose(tf.clip_by_norm(X, 1.0, axes=[1]).numpy(),
                               [[-0.8944272, 0.4472136], [0.6, 0.8]], rtol=1e-6)
    assert tf.clip_by_norm(X, 100.0).tolist() == X.tolist()
    assert tf.clip_by_norm(torch.zeros(2), 1.0).tolist() == [0.0, 0.0]
    assert tf.clip_by_norm(X, -1.0).abs().sum().item() == 0.0  # negative clip_norm counts as 0
    assert tf.clip_by_norm(X, torch.tensor(1.0, dtype=torch.float64)).dtype == torch.float32
    assert tf.clip_by_norm(X, 1).dtype == torch.float32
    s = tf.clip_by_norm(tf.IndexedSlices(X, [0, 1], [2, 2]), 1.0)
    assert isinstance(s, tf.IndexedSlices)
    with pytest.raises(errors.InvalidArgumentError, match="Sqrt"):
        tf.clip_by_norm(torch.tensor([3, 4], dtype=torch.int32), 1)
    out = tf.clip_by_norm(torch.tensor([np.inf, 1.0]), 1.0)
    assert np.isnan(out[0].item()) and out[1].item() == 0.0


def test_clip_by_norm_gradient_at_zero_is_finite():
    x = torch.zeros(3, requires_grad=True)
    tf.clip_by_norm(x, 1.0).sum().backward()
    assert torch.isfinite(x.grad).all()


@given(ts=st.lists(arrays(), min_size=1, max_size=4))
def test_global_norm_matches_reference(ts):
    out = linalg.global_norm([torch.from_numpy(t) for t in ts])
    np.testing.assert_allclose(out.item(), ref.global_norm(ts), rtol=1e-12)


def test_global_norm_details():
    assert linalg.global_norm([X, None]).item() == pytest.approx(np.sqrt(30))
    assert linalg.global_norm([tf.IndexedSlices(X, [0, 1], [2, 2])]).item() == pytest.approx(
        np.sqrt(30))
    assert linalg.global_norm((X,)).item() == pytest.approx(np.sqrt(30))
    empty = linalg.global_norm([])
    assert empty.item() == 0.0 and empty.dtype == torch.float32
    assert linalg.global_norm([None]).item() == 0.0
    assert linalg.global_norm([torch.tensor([300.0, 400.0], dtype=torch.float16)]).item() == np.inf
    with pytest.raises(errors.InvalidArgumentError, match="input #1"):
        linalg.global_norm([X, torch.tensor([1.0], dtype=torch.float64)])
    with pytest.raises(errors.InvalidArgumentError, match="L2Loss"):
        linalg.global_norm([torch.tensor([3, 4])])
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        linalg.global_norm(X)


@given(ts=st.lists(arrays(), min_size=1, max_size=4), clip=st.floats(0.5, 20))
def test_clip_by_global_norm_matches_reference(ts, clip):
    clipped, norm = tf.clip_by_global_norm([torch.from_numpy(t) for t in ts], clip)
    g = ref.global_norm(ts)
    np.testing.assert_allclose(norm.item(), g, rtol=1e-12)
    for c, t in zip(clipped, ts):
        np.testing.assert_allclose(c.numpy(), t * clip / max(g, clip), rtol=1e-12, atol=1e-12)


def test_clip_by_global_norm_details():
    clipped, norm = tf.clip_by_global_norm([X, None, tf.IndexedSlices(X, [0, 1], [2, 2])], 1.0)
    assert clipped[1] is None and isinstance(clipped[2], tf.IndexedSlices)
    np.testing.assert_allclose(norm.item(), np.sqrt(60), rtol=1e-6)
    small, _ = tf.clip_by_global_norm([torch.tensor([0.3, 0.4])], 1.0)
    assert small[0].tolist() == pytest.approx([0.3, 0.4])
    used, n = tf.clip_by_global_norm([X], 1.0, use_norm=10.0)
    assert n.item() == 10.0 and torch.allclose(used[0], X / 10)
    for bad in (np.inf, np.nan):
        out, _ = tf.clip_by_global_norm([torch.tensor([bad, 1.0])], 1.0)
        assert torch.isnan(out[0]).all()  # TF's scale is NaN for a non-finite norm
    half, n = tf.clip_by_global_norm([torch.tensor([3.0, 4.0], dtype=torch.float16)], 1.0)
    assert half[0].dtype == torch.float16 and n.item() == 5.0
    assert tf.clip_by_global_norm([], 1.0)[0] == []
    with pytest.raises(TypeError, match="should be a sequence of tensors"):
        tf.clip_by_global_norm(X, 1.0)
    with pytest.raises(errors.InvalidArgumentError, match="input #1"):
        tf.clip_by_global_norm([torch.tensor([3.0], dtype=torch.float64), torch.tensor([1.0])], 1.0)


def test_clip_by_global_norm_accepts_variables_and_differentiates():
    v = tf.Variable([3.0, 4.0])
    clipped, norm = tf.clip_by_global_norm([v], 1.0)
    assert clipped[0].tolist() == pytest.approx([0.6, 0.8]) and norm.item() == 5.0
    x = torch.tensor([3.0, 4.0], requires_grad=True)
    tf.clip_by_global_norm([x], 1.0)[0][0].sum().backward()
    assert torch.isfinite(x.grad).all()
