"""`clipvalue`, `clipnorm`, `global_clipnorm`: TF's clipping, as multi-tensor kernels.

tf_keras applies `tf.clip_by_value` / `tf.clip_by_norm` to each gradient and
`tf.clip_by_global_norm` to all of them. The optimizer's clipping
(`keras/optimizers/clipping.py`) computes the same formulas with a few
multi-tensor kernels per step, whatever the number of gradients. Laws:

* the results equal the per-tensor `tf.clip_by_*` functions: exactly for the
  element-wise operations, and to the rounding of the norm's summation
  order otherwise;
* IndexedSlices stay IndexedSlices (their values clipped); for the global
  norm, None entries stay None; NaN and infinite norms give TF's results;
  in half precision the squares are computed in the dtype (an overflow to
  inf clips the gradient to 0, as in TF);
* the number of torch operations a clipping step runs does not grow with
  the number of gradients.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

import tfcompat as tf
from tfcompat.keras.optimizers import clipping

from optimizer_info import OPTIMIZER_INFOS, build, to_numpy


FLOATS = st.sampled_from([torch.float32, torch.float64])


def _grads(seed, dtype=torch.float32, n=5, scale=3.0):
    gen = torch.Generator().manual_seed(seed)
    shapes = [(4,), (2, 3), (), (5, 1), (1,)][:n]
    return [(torch.randn(s, generator=gen, dtype=torch.float64) * scale).to(dtype) for s in shapes]


def _values(g):
    return g.values if isinstance(g, tf.IndexedSlices) else g


def _assert_close(got, want, exact):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert type(a) is type(b)
        if b is None:
            continue
        if isinstance(b, tf.IndexedSlices):
            assert a.indices is b.indices
        a, b = _values(a).double(), _values(b).double()
        if exact:
            assert torch.equal(torch.nan_to_num(a, nan=7.0), torch.nan_to_num(b, nan=7.0)), (a, b)
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), clip=st.floats(0.01, 20.0), dtype=FLOATS)
def test_clip_by_value_each_is_tfs(seed, clip, dtype):
    grads = _grads(seed, dtype)
    _assert_close(clipping.clip_by_value_each(grads, clip),
                  [tf.clip_by_value(g, -clip, clip) for g in grads], exact=True)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), clip=st.floats(0.01, 20.0), dtype=FLOATS)
def test_clip_by_norm_each_is_tfs(seed, clip, dtype):
    grads = _grads(seed, dtype)
    _assert_close(clipping.clip_by_norm_each(grads, clip), [tf.clip_by_norm(g, clip) for g in grads],
                  exact=False)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), clip=st.floats(0.01, 20.0), dtype=FLOATS)
def test_clip_by_global_norm_all_is_tfs(seed, clip, dtype):
    grads = _grads(seed, dtype)
    _assert_close(clipping.clip_by_global_norm_all(grads, clip), tf.clip_by_global_norm(grads, clip)[0],
                  exact=False)


def test_indexed_slices_and_none_entries():
    dense = torch.tensor([3.0, -4.0])
    sparse = tf.IndexedSlices(torch.tensor([[6.0, 8.0], [0.5, -0.5]]), torch.tensor([0, 2]),
                              torch.tensor([3, 2]))
    for got, want in (
            (clipping.clip_by_value_each([dense, sparse], 1.0),
             [tf.clip_by_value(g, -1.0, 1.0) for g in (dense, sparse)]),
            (clipping.clip_by_norm_each([dense, sparse], 1.0),
             [tf.clip_by_norm(g, 1.0) for g in (dense, sparse)]),
            (clipping.clip_by_global_norm_all([dense, None, sparse], 1.0),
             tf.clip_by_global_norm([dense, None, sparse], 1.0)[0])):
        _assert_close(got, want, exact=False)
        for g in got:
            if isinstance(g, tf.IndexedSlices):
                assert g.dense_shape is sparse.dense_shape
    # TF's per-tensor clips reject None (what the per-tensor function raises, raised here)
    with pytest.raises(Exception) as mine:
        clipping.clip_by_norm_each([dense, None], 1.0)
    with pytest.raises(type(mine.value)):
        tf.clip_by_norm(None, 1.0)


def test_non_finite_norms():
    nan_grads = [torch.tensor([1.0, float("nan")]), torch.tensor([3.0])]
    inf_grads = [torch.tensor([1.0, float("inf")]), torch.tensor([3.0])]
    for grads in (nan_grads, inf_grads):
        _assert_close(clipping.clip_by_norm_each(grads, 1.0), [tf.clip_by_norm(g, 1.0) for g in grads],
                      exact=True)
        _assert_close(clipping.clip_by_global_norm_all(grads, 1.0), tf.clip_by_global_norm(grads, 1.0)[0],
                      exact=True)
        _assert_close(clipping.clip_by_value_each(grads, 1.0), [tf.clip_by_value(g, -1.0, 1.0) for g in grads],
                      exact=True)
    zero = [torch.zeros(3), torch.tensor([0.0])]
    _assert_close(clipping.clip_by_norm_each(zero, 1.0), [tf.clip_by_norm(g, 1.0) for g in zero], exact=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_precision_squares_overflow_as_in_tf(dtype):
    """TF squares in the gradient's dtype: float16 300**2 is inf, so clip_by_norm gives 0 and the
    global norm is inf (every clipped value NaN); the float16 clip norm is the rounded 0.7."""
    grads = [torch.tensor([300.0, 1.0]).to(dtype), torch.tensor([0.5, -0.25]).to(dtype)]
    norm_each = clipping.clip_by_norm_each(grads, 0.7)
    _assert_close(norm_each, [tf.clip_by_norm(g, 0.7) for g in grads], exact=True)
    _assert_close(clipping.clip_by_global_norm_all(grads, 0.7), tf.clip_by_global_norm(grads, 0.7)[0],
                  exact=True)
    if dtype is torch.float16:
        assert norm_each[0].tolist() == [0.0, 0.0]


def test_mixed_dtypes_keep_tfs_behaviour():
    """clipnorm works per dtype; the global norm of mixed dtypes is TF's error (Pack)."""
    grads = [torch.tensor([3.0, 4.0]), torch.tensor([6.0, 8.0], dtype=torch.float64)]
    _assert_close(clipping.clip_by_norm_each(grads, 1.0), [tf.clip_by_norm(g, 1.0) for g in grads], exact=False)
    with pytest.raises(Exception) as mine:
        clipping.clip_by_global_norm_all(grads, 1.0)
    with pytest.raises(type(mine.value)):
        tf.clip_by_global_norm(grads, 1.0)


def test_gradients_that_need_autograd_take_the_per_tensor_functions():
    """Under an outer tape the clipped gradients stay differentiable (TF's gradients)."""
    x = torch.tensor([3.0, 4.0], requires_grad=True)
    (clipped,) = clipping.clip_by_norm_each([x * 1.0], 1.0)
    clipped.sum().backward()
    want = torch.tensor([3.0, 4.0], requires_grad=True)
    tf.clip_by_norm(want * 1.0, 1.0).sum().backward()
    torch.testing.assert_close(x.grad, want.grad)


class _CountOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("clip", [clipping.clip_by_value_each, clipping.clip_by_norm_each,
                                  clipping.clip_by_global_norm_all])
def test_operations_do_not_grow_with_the_number_of_gradients(clip):
    counts = []
    for n in (10, 200):
        grads = [torch.randn(7) for _ in range(n)]
        clip(grads, 0.5)  # builds the cached constants
        with _CountOps() as ops:
            clip(grads, 0.5)
        counts.append(ops.count)
    assert counts[0] == counts[1], counts
    assert counts[0] <= 16, counts  # a handful, not one sequence per gradient


@pytest.mark.parametrize("modifier", ["clipnorm", "clipvalue", "global_clipnorm"])
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=[i.name for i in OPTIMIZER_INFOS])
def test_optimizer_clipping_equals_clipping_each_gradient_first(info, modifier):
    """`Opt(clipnorm=c)` on gradients g equals `Opt()` on TF's `clip_by_norm(g, c)`."""
    clip = {"clipnorm": 0.5, "clipvalue": 0.3, "global_clipnorm": 0.7}[modifier]
    per_tensor = {"clipnorm": lambda gs: [tf.clip_by_norm(g, clip) for g in gs],
                  "clipvalue": lambda gs: [tf.clip_by_value(g, -clip, clip) for g in gs],
                  "global_clipnorm": lambda gs: tf.clip_by_global_norm(gs, clip)[0]}[modifier]
    clipped = build(info, {**info.typical_kwargs(), modifier: clip})
    plain = build(info, info.typical_kwargs())
    a = [tf.Variable(np.ones((2, 3), np.float32)), tf.Variable(np.ones(4, np.float32))]
    b = [tf.Variable(np.ones((2, 3), np.float32)), tf.Variable(np.ones(4, np.float32))]
    for seed in range(3):
        grads = [torch.randn(2, 3, generator=torch.Generator().manual_seed(seed)) * 2,
                 torch.randn(4, generator=torch.Generator().manual_seed(seed + 10)) * 2]
        clipped.apply_gradients(zip(grads, a))
        plain.apply_gradients(zip(per_tensor(grads), b))
    for x, y in zip(a, b):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), rtol=2e-6, atol=1e-7)
