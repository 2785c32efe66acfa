"""Laws of `tf.linalg` (issue 9): decompositions reconstruct their input, solves solve, TF's
output orders, and float64 gradients checked against finite differences (through
gauge-invariant functions for `svd`, `eigh` and `qr`, whose factors are unique only up to sign)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf

la = tf.linalg


def _well_conditioned(seed: int, n: int = 3, batch: tuple = ()) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch + (n, n), generator=g, dtype=torch.float64) + 3 * torch.eye(
        n, dtype=torch.float64)


def _spd(seed: int, n: int = 3) -> torch.Tensor:
    m = _well_conditioned(seed, n)
    return m @ m.T + torch.eye(n, dtype=torch.float64)


@given(st.integers(0, 10 ** 6), st.sampled_from([(), (2,)]))
def test_inverse_solve_and_det_agree(seed, batch):
    a = _well_conditioned(seed, 3, batch)
    b = torch.randn(batch + (3, 2), dtype=torch.float64)
    eye = torch.eye(3, dtype=torch.float64).expand(batch + (3, 3))
    torch.testing.assert_close(la.matmul(la.inv(a), a), eye)
    torch.testing.assert_close(a @ la.solve(a, b), b)
    torch.testing.assert_close(a.mT @ la.solve(a, b, adjoint=True), b)
    sign, logabs = la.slogdet(a)
    torch.testing.assert_close(sign * torch.exp(logabs), la.det(a))


@given(st.integers(0, 10 ** 6), st.sampled_from([(4, 3), (3, 4), (3, 3)]), st.booleans())
def test_svd_is_tf_ordered_and_reconstructs(seed, shape, full):
    a = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    s, u, v = la.svd(a, full_matrices=full)
    k = min(shape)
    assert s.shape == (k,) and bool((s[:-1] >= s[1:]).all())
    assert u.shape == (shape[0], shape[0] if full else k)
    assert v.shape == (shape[1], shape[1] if full else k)  # v, not v^H
    torch.testing.assert_close(u[:, :k] * s @ v[:, :k].T, a)
    torch.testing.assert_close(la.svd(a, compute_uv=False), s)


@given(st.integers(0, 10 ** 6))
def test_eigh_and_cholesky_reconstruct(seed):
    a = _spd(seed)
    e, v = la.eigh(a)
    assert bool((e[:-1] <= e[1:]).all())
    torch.testing.assert_close(v * e @ v.T, a)
    c = la.cholesky(a)
    torch.testing.assert_close(c, torch.tril(c))
    torch.testing.assert_close(c @ c.T, a)
    torch.testing.assert_close(la.logdet(a), torch.logdet(a))


@given(st.integers(0, 10 ** 6), st.sampled_from([(4, 3), (3, 4)]), st.booleans())
def test_qr_reconstructs_with_orthonormal_q(seed, shape, full):
    a = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    q, r = la.qr(a, full_matrices=full)
    torch.testing.assert_close(q @ r, a)
    torch.testing.assert_close(q.T @ q, torch.eye(q.shape[1], dtype=torch.float64))
    torch.testing.assert_close(r, torch.triu(r))


def test_lstsq_fast_and_exact_agree_on_full_rank():
    a = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    b = torch.randn(5, 2, dtype=torch.float64)
    want = torch.linalg.lstsq(a, b).solution
    torch.testing.assert_close(la.lstsq(a, b), want)
    torch.testing.assert_close(la.lstsq(a, b, fast=False), want)
    lam = 0.7  # the regularised normal equations, as TF's fast path
    want = torch.linalg.solve(a.T @ a + lam * torch.eye(3, dtype=torch.float64), a.T @ b)
    torch.testing.assert_close(la.lstsq(a, b, l2_regularizer=lam), want)


@given(st.integers(0, 10 ** 6), st.sampled_from([(), (2,)]))
def test_lu_permutes_rows_as_tf(seed, batch):
    a = _well_conditioned(seed, 4, batch)
    packed, p = la.lu(a)
    assert p.dtype == torch.int32
    low = torch.tril(packed, -1) + torch.eye(4, dtype=torch.float64)
    rows = a.gather(-2, p.long().unsqueeze(-1).expand(a.shape))
    torch.testing.assert_close(low @ torch.triu(packed), rows)  # a[p] = L U
    torch.testing.assert_close(la.lu_reconstruct(packed, p), a)


def test_singular_inputs_follow_tf_cpu():
    sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible"):
        la.inv(sing)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible"):
        la.solve(sing, torch.ones(2, 1))
    assert la.det(sing).item() == 0.0
    out = la.triangular_solve(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), torch.ones(2, 1))
    assert torch.isinf(out).any()


def test_dtype_rules():
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        la.inv([[1, 2], [3, 4]])
    with pytest.raises(tf.errors.NotFoundError):
        la.det(np.eye(2, dtype=np.float16))
    assert la.inv(np.eye(2, dtype=np.float16)).dtype == torch.float16
    assert la.trace([[1, 2], [3, 4]]).dtype == torch.int32
    with pytest.raises(TypeError):
        la.l2_normalize([3, 4])


# ---------------------------------------------------------------------------
# gradients in float64 against finite differences
# ---------------------------------------------------------------------------

def _sym(x):
    return (x + x.T) / 2


W = torch.arange(12.0, dtype=torch.float64).reshape(4, 3) / 7

GRADCHECKS = {
    "det": (lambda x: la.det(x), lambda: _well_conditioned(0)),
    "inv": (lambda x: la.inv(x), lambda: _well_conditioned(1)),
    "solve": (lambda x: la.solve(x, W[:3, :2]), lambda: _well_conditioned(2)),
    "slogdet": (lambda x: la.slogdet(x).log_abs_determinant, lambda: _well_conditioned(3)),
    "cholesky": (lambda x: la.cholesky(_sym(x)), lambda: _spd(4)),
    "triangular_solve": (lambda x: la.triangular_solve(torch.tril(x), W[:3]), lambda: _well_conditioned(5)),
    "qr_invariants": (lambda x: (la.qr(x).q @ la.qr(x).q.T, torch.abs(la.qr(x).r)),
                      lambda: W + torch.eye(4, 3, dtype=torch.float64)),
    "svd_invariants": (lambda x: (la.svd(x)[0], la.svd(x)[1] @ la.svd(x)[1].T),
                       lambda: W + torch.eye(4, 3, dtype=torch.float64) * torch.tensor([3.0, 2.0, 1.0], dtype=torch.float64)),
    "eigh_invariants": (lambda x: (la.eigh(_sym(x))[0], la.eigh(_sym(x))[1][:, :1] @ la.eigh(_sym(x))[1][:, :1].T),
                        lambda: _spd(6)),
    "expm": (lambda x: la.expm(x), lambda: _well_conditioned(7) * 0.2),
    "pinv": (lambda x: la.pinv(x), lambda: W + torch.eye(4, 3, dtype=torch.float64)),
    "lstsq": (lambda x: la.lstsq(x, W[:, :2] + 1, l2_regularizer=0.1), lambda: W + torch.eye(4, 3, dtype=torch.float64)),
    "norm_euclidean": (lambda x: tf.norm(x), lambda: _well_conditioned(8)),
    "norm_2_matrix": (lambda x: tf.norm(x, ord=2, axis=[0, 1]), lambda: _well_conditioned(9)),
    "norm_p3": (lambda x: tf.norm(x, ord=3, axis=1), lambda: _well_conditioned(10)),
    "l2_normalize": (lambda x: la.l2_normalize(x, axis=0), lambda: _well_conditioned(11)),
    "einsum": (lambda x: tf.einsum("ij,jk,k->i", x, x, x[0]), lambda: _well_conditioned(12)),
    "top_k": (lambda x: tf.math.top_k(x, 2).values, lambda: _well_conditioned(13)),
    "sort": (lambda x: tf.sort(x, axis=0, direction="DESCENDING"), lambda: _well_conditioned(14)),
    "lu_solve": (lambda x: la.lu_solve(*la.lu(x), W[:3]), lambda: _well_conditioned(16)),
    "lu_reconstruct": (lambda x: la.lu_reconstruct(*la.lu(x)), lambda: _well_conditioned(17)),
    "cross": (lambda x: la.cross(x, x.flip(0)), lambda: _well_conditioned(18)),
    "reverse_sequence": (lambda x: tf.reverse_sequence(x, [3, 0, 2], seq_axis=1, batch_axis=0),
                         lambda: _well_conditioned(19)),
    "diag": (lambda x: la.diag(x[0], k=-1, padding_value=2.0), lambda: _well_conditioned(20)),
    "set_diag": (lambda x: la.set_diag(x, x[1] * 3), lambda: _well_conditioned(21)),
    "band_part": (lambda x: la.band_part(x, 0, 1), lambda: _well_conditioned(22)),
    "gather_batch_dims": (lambda x: tf.gather(x, [[2, 0], [1, 1], [0, 2]], axis=1, batch_dims=1),
                          lambda: _well_conditioned(15)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradient_matches_finite_differences(name):
    fn, make = GRADCHECKS[name]
    x = make().requires_grad_(True)
    assert torch.autograd.gradcheck(fn, (x,))


def test_eigh_gradient_is_tfs_lower_triangle():
    # TF's SelfAdjointEigV2 reads the lower triangle only, so the upper triangle gets no gradient.
    x = _spd(3).requires_grad_(True)
    la.eigvalsh(x).mul(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    g = x.grad
    assert torch.count_nonzero(torch.triu(g, 1)) == 0
    y = x.detach().clone().requires_grad_(True)
    lower = torch.tril(y) + torch.tril(y, -1).T  # the matrix eigh actually sees
    torch.linalg.eigvalsh(lower).mul(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    torch.testing.assert_close(g, y.grad)
