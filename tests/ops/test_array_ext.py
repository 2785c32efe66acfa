"""Laws of issue 9's array ops: strided slicing against numpy, einsum against numpy, sort/top_k
tie order, partition/stitch round trips, and the host syncs they promise (none for the
fixed-shape ops under the accelerator policy)."""

from __future__ import annotations

import string

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.testing import accelerator_policy, host_syncs

# ---------------------------------------------------------------------------
# strided_slice == numpy basic slicing (negative steps included)
# ---------------------------------------------------------------------------

_bound = st.one_of(st.none(), st.integers(-7, 7))
_step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))


@st.composite
def _keys(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    items = []
    for n in shape:
        if n and draw(st.booleans()) and draw(st.booleans()):
            items.append(draw(st.integers(-n, n - 1)))  # shrink axis
        else:
            items.append(slice(draw(_bound), draw(_bound), draw(_step)))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), None)  # new axis
    if draw(st.booleans()):
        # An ellipsis standing for the axes of a dropped run of items.
        i = draw(st.integers(0, len(items)))
        j = draw(st.integers(i, len(items)))
        if all(it is not None for it in items[i:j]):
            items[i:j] = [Ellipsis]
    return shape, tuple(items)


def _spec(key):
    """The key as strided_slice arguments, built the way TF's `__getitem__` builds them."""
    begin, end, strides = [], [], []
    bm = em = nm = sm = el = 0
    for i, k in enumerate(key):
        if k is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            el |= 1 << i
        elif k is None:
            begin.append(0), end.append(0), strides.append(1)
            nm |= 1 << i
        elif isinstance(k, int):
            begin.append(k), end.append(k + 1), strides.append(1)
            sm |= 1 << i
        else:
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            bm |= (k.start is None) << i
            em |= (k.stop is None) << i
    return begin, end, strides, dict(begin_mask=bm, end_mask=em, new_axis_mask=nm,
                                     shrink_axis_mask=sm, ellipsis_mask=el)


@given(_keys())
def test_strided_slice_is_numpy_slicing(case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    begin, end, strides, masks = _spec(key)
    got = tf.strided_slice(torch.from_numpy(x), begin, end, strides, **masks)
    np.testing.assert_array_equal(got.numpy(), x[key])


@given(_keys())
def test_variable_getitem_takes_negative_steps(case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(tf.Variable(x)[key].numpy(), x[key])


def test_strided_slice_ellipsis_matches_numpy():
    x = np.arange(120).reshape(2, 3, 4, 5)
    got = tf.strided_slice(x, [1, 0, 3], [0, 0, -1], [1, 1, -1], ellipsis_mask=2,
                           shrink_axis_mask=1)
    np.testing.assert_array_equal(got.numpy(), x[1, ..., 3:-1:-1])
    got = tf.strided_slice(x, [0, 0], [0, 0], [1, -2], ellipsis_mask=1, begin_mask=2, end_mask=2)
    np.testing.assert_array_equal(got.numpy(), x[..., ::-2])


def test_negative_stride_slice_is_differentiable_in_float64():
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(lambda t: tf.strided_slice(t, [3, -1], [0, 0], [-2, -3]), (x,))
    torch.autograd.gradcheck(lambda t: tf.reverse(t, [0, 1]), (x,))


def test_failed_slices_change_nothing():
    v = tf.Variable(np.arange(6.0, dtype=np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.strided_slice(v, [1], [0], [0])
    np.testing.assert_array_equal(v.numpy(), np.arange(6.0))


# ---------------------------------------------------------------------------
# einsum == numpy.einsum on random equations
# ---------------------------------------------------------------------------

@st.composite
def _equations(draw):
    letters = draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=5, unique=True))
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    n_ops = draw(st.integers(1, 3))
    subs = [draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3)) for _ in range(n_ops)]
    ellipsis = draw(st.booleans())
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=2))) if ellipsis else ()
    used = sorted({c for s in subs for c in s})
    if draw(st.booleans()):
        out = ("..." if ellipsis else "") + "".join(draw(st.permutations(used))[:draw(
            st.integers(0, len(used)))])
        eq = ",".join(("..." if ellipsis else "") + "".join(s) for s in subs) + "->" + out
    else:
        eq = ",".join(("..." if ellipsis else "") + "".join(s) for s in subs)
    rng = np.random.RandomState(draw(st.integers(0, 2 ** 16)))
    ops = [np.asarray(rng.randn(*(batch + tuple(sizes[c] for c in s)))) for s in subs]
    return eq, ops


@given(_equations())
def test_einsum_matches_numpy(case):
    eq, ops = case
    got = tf.einsum(eq, *[torch.from_numpy(o) for o in ops])
    np.testing.assert_allclose(got.numpy(), np.einsum(eq, *ops), rtol=1e-10, atol=1e-10)


def test_einsum_refuses_size_one_broadcast_of_a_label():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected dimension"):
        tf.einsum("ij,j->ij", np.ones((2, 3), np.float32), np.ones(1, np.float32))


@given(st.integers(0, 3))
def test_tensordot_int_axes_is_numpy(n):
    rng = np.random.RandomState(n)
    a, b = rng.randn(2, 3, 2, 2), rng.randn(2, 2, 3)
    k = min(n, 2)
    b2 = rng.randn(*a.shape[a.ndim - k:], 3)
    np.testing.assert_allclose(tf.tensordot(a, b2, k).numpy(), np.tensordot(a, b2, k), rtol=1e-12)
    np.testing.assert_allclose(tf.tensordot(a, b, [[1, 3], [2, 1]]).numpy(),
                               np.tensordot(a, b, [[1, 3], [2, 1]]), rtol=1e-12)


# ---------------------------------------------------------------------------
# sorting: TF's tie order (lower index first), both directions
# ---------------------------------------------------------------------------

@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30), st.booleans())
def test_argsort_is_stable_both_ways(values, descending):
    direction = "DESCENDING" if descending else "ASCENDING"
    got = tf.argsort(values, direction=direction).numpy()
    keys = [-v if descending else v for v in values]
    want = sorted(range(len(values)), key=lambda i: (keys[i], i))
    assert got.tolist() == want
    assert got.dtype == np.int32


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30), st.data())
def test_top_k_takes_lower_indices_first_on_ties(values, data):
    k = data.draw(st.integers(0, len(values)))
    res = tf.math.top_k(values, k)
    want = sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]
    assert res.indices.numpy().tolist() == want
    assert res.values.numpy().tolist() == [values[i] for i in want]


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=20), st.lists(st.integers(-6, 6), max_size=8))
def test_searchsorted_is_numpy(seq, vals):
    seq = sorted(seq)
    for side in ("left", "right"):
        got = tf.searchsorted(np.array(seq, np.int32), np.array(vals, np.int32), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, vals, side=side))


# ---------------------------------------------------------------------------
# partition / stitch, repeat, meshgrid
# ---------------------------------------------------------------------------

@given(st.lists(st.integers(0, 3), min_size=0, max_size=12))
def test_dynamic_stitch_inverts_dynamic_partition(parts):
    data = np.arange(len(parts) * 2, dtype=np.float32).reshape(len(parts), 2)
    pieces = tf.dynamic_partition(data, np.array(parts, np.int32), 4)
    where = tf.dynamic_partition(np.arange(len(parts), dtype=np.int32), np.array(parts, np.int32), 4)
    if not parts:
        return
    np.testing.assert_array_equal(tf.dynamic_stitch(where, pieces).numpy(), data)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6))
def test_repeat_is_numpy_repeat(reps):
    x = np.arange(len(reps) * 2).reshape(len(reps), 2)
    np.testing.assert_array_equal(tf.repeat(x, reps, axis=0).numpy(), np.repeat(x, reps, axis=0))
    np.testing.assert_array_equal(tf.repeat(x, 2).numpy(), np.repeat(x, 2))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_is_numpy(indexing):
    a, b, c = np.arange(3), np.arange(2), np.arange(4)
    for got, want in zip(tf.meshgrid(a, b, c, indexing=indexing),
                         np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(got.numpy(), want)


def test_linspace_ends_are_exact_and_the_result_is_tf_dtype():
    out = tf.linspace(0.1, 0.7, 7)
    assert out.dtype == torch.float32 and out[0].item() == np.float32(0.1)
    assert out[-1].item() == np.float32(0.7)
    assert tf.linspace(0, 1, 3).dtype == torch.float64


# ---------------------------------------------------------------------------
# host syncs: fixed-shape ops read nothing back, under the accelerator's policy
# ---------------------------------------------------------------------------

X = torch.arange(24.0).reshape(2, 3, 4)
M = torch.eye(3) * 2 + 0.1
SEQ_LENS = torch.tensor([2, 3, 1])
FLAT = torch.tensor([1, 5])
_NO_SYNC = {
    "strided_slice_neg": lambda: tf.strided_slice(X, [1, -1], [0, 0], [-1, -2]),
    "reverse": lambda: tf.reverse(X, [0, 2]),
    "slice": lambda: tf.slice(X, [0, 1, 1], [-1, 2, 2]),
    "roll": lambda: tf.roll(X, [1, -1], [0, 2]),
    "repeat_python": lambda: tf.repeat(X, [1, 2, 0], axis=1),
    "sort": lambda: tf.sort(X, axis=1, direction="DESCENDING"),
    "argsort": lambda: tf.argsort(X),
    "top_k": lambda: tf.math.top_k(X, 2),
    "searchsorted": lambda: tf.searchsorted(X, X),
    "broadcast_to": lambda: tf.broadcast_to(X[:1], [2, 3, 4]),
    "einsum": lambda: tf.einsum("bij,bjk->bik", X, X.transpose(1, 2)),
    "tensordot": lambda: tf.tensordot(X, X, [[1, 2], [1, 2]]),
    "tensor_scatter_nd_max": lambda: tf.tensor_scatter_nd_max(X, [[0]], X[:1]),
    "linspace": lambda: tf.linspace(X[0], X[1], 5, axis=-1),
    "inv": lambda: tf.linalg.inv(M),
    "solve": lambda: tf.linalg.solve(M, M),
    "norm": lambda: tf.norm(X, axis=[1, 2]),
    "band_part": lambda: tf.linalg.band_part(M, 1, 0),
    "diag": lambda: tf.linalg.diag(X[0, 0]),
    "reverse_sequence": lambda: tf.reverse_sequence(X, SEQ_LENS, seq_axis=2, batch_axis=1),
    "unravel_index": lambda: tf.unravel_index(FLAT, [3, 2]),
    "lu": lambda: tf.linalg.lu(M),
    "cross": lambda: tf.linalg.cross(M, M.flip(0)),
    "matrix_rank": lambda: tf.linalg.matrix_rank(M),
    "meshgrid": lambda: tf.meshgrid(X[0, 0], X[0, 1]),
    "sequence_mask_maxlen": lambda: tf.sequence_mask(SEQ_LENS, 4),
}


@pytest.mark.parametrize("name", sorted(_NO_SYNC))
def test_fixed_shape_ops_do_not_sync_under_the_accelerator_policy(name):
    with accelerator_policy():
        with host_syncs() as log:
            _NO_SYNC[name]()
    assert not list(log), f"{name} synced: {[str(s) for s in log][:3]}"


def test_inv_checks_singularity_on_cpu_only():
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.inv(singular)
    with accelerator_policy():
        out = tf.linalg.inv(singular)  # TF's GPU kernel does not stop the stream either
    assert not torch.isfinite(out).all()


# ---------------------------------------------------------------------------
# docs/differences.md "Negative-step slices" and "A tensor's device"
# ---------------------------------------------------------------------------

def test_bare_tensors_keep_torchs_getitem_and_tf_ops_take_negative_steps():
    t = torch.arange(5)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]  # torch's own __getitem__, never patched
    np.testing.assert_array_equal(tf.reverse(t, [0]).numpy(), np.arange(5)[::-1])
    np.testing.assert_array_equal(tf.strided_slice(t, [0], [0], [-1], begin_mask=1,
                                                   end_mask=1).numpy(), np.arange(5)[::-1])
    np.testing.assert_array_equal(tf.strided_slice(t, [3], [0], [-2]).numpy(), [3, 1])


def test_variable_slice_assign_takes_negative_steps():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    v[::-2].assign([10.0, 20.0])  # TF writes positions 3 and 1
    np.testing.assert_array_equal(v.numpy(), [1.0, 20.0, 3.0, 10.0])


def test_documented_device_name_spelling():
    from tfcompat.framework.device import canonicalize

    x = tf.constant([1.0])
    assert isinstance(x.device, torch.device)
    assert canonicalize(x.device) == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert canonicalize(x.device).endswith("CPU:0")
    assert tf.Variable(1.0).device.endswith("CPU:0")


@given(st.lists(st.sampled_from([-1.0, 0.0, 2.0, float("nan"), float("inf")]), min_size=1,
                max_size=40), st.data())
def test_top_k_large_path_agrees_with_the_stable_sort(values, data):
    # Past _SORT_ALL_BELOW columns top_k avoids a full sort; both paths must pick the same k.
    from tfcompat.ops import sort_ops

    k = data.draw(st.integers(1, len(values)))
    x = torch.tensor([values, values[::-1]])
    got_v, got_i = sort_ops._top_k_large(x, k)
    want = torch.sort(x, dim=-1, descending=True, stable=True)
    assert torch.equal(got_i, want.indices[..., :k])
    torch.testing.assert_close(got_v, want.values[..., :k], equal_nan=True)


def test_top_k_on_a_long_row_uses_tfs_tie_order():
    x = torch.zeros(5000)
    x[[7, 4000, 11]] = 3.0
    res = tf.math.top_k(x, 5)
    assert res.indices.tolist() == [7, 11, 4000, 0, 1]


LENS = torch.tensor([1, 3])
REPS = torch.tensor([1, 2, 0])
PARTS = torch.tensor([0, 1, 0], dtype=torch.int32)
STITCH = torch.tensor([0, 1], dtype=torch.int32)
_DATA_DEPENDENT = {
    "sequence_mask_no_maxlen": lambda: tf.sequence_mask(LENS),
    "repeat_tensor_repeats": lambda: tf.repeat(X, REPS, axis=1),
    "dynamic_partition": lambda: tf.dynamic_partition(X[0], PARTS, 2),
    "dynamic_stitch": lambda: tf.dynamic_stitch([STITCH], [X[0, :2]]),
    "unique_with_counts": lambda: tf.unique_with_counts(REPS),
}


@pytest.mark.parametrize("name", sorted(_DATA_DEPENDENT))
def test_data_dependent_shapes_read_the_host(name):
    # Their output shapes depend on the data, in TF as here: the host read is expected (inputs
    # are built outside the watched block, so the watch sees them as device data).
    with accelerator_policy():
        with host_syncs() as log:
            _DATA_DEPENDENT[name]()
    assert list(log), f"{name} should read its data on the host"


# ---------------------------------------------------------------------------
# accelerator stand-in: `meta` tensors have no data, so any host read fails loudly
# ---------------------------------------------------------------------------

META = torch.device("meta")
MX, MM = torch.empty(4, 5, device=META), torch.empty(3, 3, device=META)
MI = torch.empty(4, dtype=torch.int64, device=META)
_ON_META = {
    "strided_slice": lambda: tf.strided_slice(MX, [3, -1], [0, 0], [-1, -2]),
    "reverse": lambda: tf.reverse(MX, [0]),
    "slice": lambda: tf.slice(MX, [1, 1], [2, -1]),
    "roll": lambda: tf.roll(MX, 1, 0),
    "repeat": lambda: tf.repeat(MX, [1, 2, 0, 1], axis=0),
    "sort": lambda: tf.sort(MX),
    "argsort": lambda: tf.argsort(MX),
    "top_k": lambda: tf.math.top_k(MX, 2),
    "top_k_long": lambda: tf.math.top_k(torch.empty(3, 5000, device=META), 2),
    "searchsorted": lambda: tf.searchsorted(MX, MX),
    "broadcast_to": lambda: tf.broadcast_to(MX[:1], [4, 5]),
    "meshgrid": lambda: tf.meshgrid(MX[0], MX[1]),
    "einsum": lambda: tf.einsum("ij,kj->ik", MX, MX),
    "tensordot": lambda: tf.tensordot(MX, MX, [[1], [1]]),
    "linspace": lambda: tf.linspace(MX[0], MX[1], 3),
    "scatter_max": lambda: tf.tensor_scatter_nd_max(MX, [[0]], MX[:1]),
    "scatter_sub": lambda: tf.tensor_scatter_nd_sub(MX, [[0]], MX[:1]),
    "inv": lambda: tf.linalg.inv(MM),
    "solve": lambda: tf.linalg.solve(MM, MM),
    "det": lambda: tf.linalg.det(MM),
    "cholesky": lambda: tf.linalg.cholesky(MM),
    "qr": lambda: tf.linalg.qr(MX),
    "svd": lambda: tf.linalg.svd(MX),
    "eigh": lambda: tf.linalg.eigh(MM),
    "lstsq": lambda: tf.linalg.lstsq(MX.T, MX.T[:, :2]),
    "norm_2": lambda: tf.norm(MX, ord=2, axis=[0, 1]),
    "diag_band": lambda: tf.linalg.diag_part(MX, k=(-1, 1)),
    "band_part": lambda: tf.linalg.band_part(MX, 1, 0),
    "lu": lambda: tf.linalg.lu(MM),
    "reverse_sequence": lambda: tf.reverse_sequence(MX, MI, seq_axis=1, batch_axis=0),
    "unravel_index": lambda: tf.unravel_index(MI, [2, 3]),
    "expm": lambda: tf.linalg.expm(MM),
    "pinv": lambda: tf.linalg.pinv(MX),
    "sequence_mask": lambda: tf.sequence_mask(MI, 4),
}


@pytest.mark.parametrize("name", sorted(_ON_META))
def test_runs_where_its_inputs_are_without_reading_them(name):
    out = _ON_META[name]()
    outs = out if isinstance(out, (tuple, list)) else [out]
    assert {t.device for t in outs} == {META}


_F = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4) / 5 + np.eye(3, 4, dtype=np.float32) * 3
_UNARY = {
    "strided_slice": lambda x: tf.strided_slice(x, [2, 3], [0, 0], [-1, -2]),
    "reverse": lambda x: tf.reverse(x, [1]),
    "slice": lambda x: tf.slice(x, [1, 0], [-1, 2]),
    "roll": lambda x: tf.roll(x, 1, 1),
    "repeat": lambda x: tf.repeat(x, 2, axis=0),
    "sort": lambda x: tf.sort(x, direction="DESCENDING"),
    "argsort": lambda x: tf.argsort(x),
    "top_k": lambda x: tf.math.top_k(x, 2).values,
    "broadcast_to": lambda x: tf.broadcast_to(x, [2, 3, 4]),
    "einsum": lambda x: tf.einsum("ij,kj->ik", x, x),
    "tensordot": lambda x: tf.tensordot(x, x, [[1], [1]]),
    "norm": lambda x: tf.norm(x, axis=[0, 1]),
    "svd_values": lambda x: tf.linalg.svd(x, compute_uv=False),
    "inv": lambda x: tf.linalg.inv(tf.slice(x, [0, 0], [3, 3])),
    "det": lambda x: tf.linalg.det(tf.slice(x, [0, 0], [3, 3])),
    "diag_part": lambda x: tf.linalg.diag_part(x, k=(-1, 1)),
    "band_part": lambda x: tf.linalg.band_part(x, 0, 1),
    "scatter_max": lambda x: tf.tensor_scatter_nd_max(x, [[1]], [[9.0, 0.0, 9.0, 0.0]]),
    "ensure_shape": lambda x: tf.ensure_shape(x, [3, None]),
}


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_variables_numpy_and_tensors_give_the_same_result(name):
    fn = _UNARY[name]
    want = fn(torch.from_numpy(_F.copy()))
    for given_input in (tf.Variable(_F), _F, _F.tolist()):
        torch.testing.assert_close(fn(given_input), want, rtol=0, atol=0)
