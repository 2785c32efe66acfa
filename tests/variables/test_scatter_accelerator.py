"""Variable scatters under TF's GPU semantics (`accelerator_policy()`), on CPU.

TF's GPU scatter kernels check nothing: an out-of-range row is skipped and
duplicates are applied in no defined order (atomics). tfcompat follows them
on an accelerator, reading no index on the host (see
`tfcompat/variables/scatter.py` and docs/differences.md). These tests run the
accelerator code path on CPU tensors through `accelerator_policy()` and
check the laws:

* a scatter with out-of-range rows equals the CPU scatter of the in-range
  rows alone (for every kind, the `scatter_nd_*` family and
  `batch_scatter_update`); data are integer-valued (and divisors powers of
  two) so that every order of the duplicates gives the same exact result;
* a skipped row changes nothing, not even the sign of a zero;
* no scatter reads anything on the host (`no_host_sync()`);
* outside the policy, CPU tensors keep TF's CPU checks (the existing tests
  in test_scatter.py pin their values), and a variable keeps the policy it
  was created under.
"""

import threading

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.framework import errors
from tfcompat.ops import _indices
from tfcompat.testing import accelerator_policy, no_host_sync
from tfcompat.testing import reference as ref

IS = tf.IndexedSlices
KINDS = ref.SCATTER_KINDS  # update, add, sub, mul, div, min, max


def _make(initial, dtype=torch.float64):
    """A variable created under the policy (it keeps the policy: see the last tests)."""
    value = initial if isinstance(initial, torch.Tensor) else torch.from_numpy(np.asarray(initial))
    with accelerator_policy():
        return tf.Variable(value.to(dtype))


def _updates(data, kind, shape):
    """Integer-valued updates (divisors: powers of two), exact in any order of application."""
    if kind == "div":
        mags = data.draw(st.lists(st.sampled_from([1.0, 2.0, 4.0, 0.5]), min_size=int(np.prod(shape)),
                                  max_size=int(np.prod(shape))))
        signs = data.draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=len(mags), max_size=len(mags)))
        return (np.array(mags) * np.array(signs)).reshape(shape)
    lo, hi = (-2, 2) if kind == "mul" else (-9, 9)
    vals = data.draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(vals, dtype=np.float64).reshape(shape)


# ---------------------------------------------------------------------------
# the law: out-of-range rows are skipped
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
def test_out_of_range_rows_are_skipped(kind, data):
    rows = data.draw(st.integers(1, 5))
    tail = data.draw(st.sampled_from([(), (2,), (2, 3)]))
    initial = np.array(data.draw(st.lists(st.integers(-9, 9), min_size=rows * int(np.prod(tail)),
                                          max_size=rows * int(np.prod(tail)))),
                       dtype=np.float64).reshape((rows,) + tail)
    n = data.draw(st.integers(0, 7))
    idx = np.array(data.draw(st.lists(st.integers(-3, rows + 3), min_size=n, max_size=n)), dtype=np.int64)
    if kind == "update":  # (duplicates of scatter_update are unordered in TF: one writer per row)
        keep = np.array([i not in idx[:j] or not 0 <= i < rows for j, i in enumerate(idx)], bool)
        idx = idx[keep] if idx.size else idx
    upd = _updates(data, kind, idx.shape + tail)
    index_dtype = data.draw(st.sampled_from([torch.int32, torch.int64]))
    v = _make(initial)
    with accelerator_policy():
        getattr(v, f"scatter_{kind}")(IS(torch.from_numpy(upd), torch.from_numpy(idx).to(index_dtype)))
    inside = (idx >= 0) & (idx < rows)
    expected = ref.scatter_reference(kind, initial, idx[inside], upd[inside])
    np.testing.assert_array_equal(v.numpy(), expected)
    # and the CPU kernel (which validates) agrees on the in-range rows
    cpu = tf.Variable(initial)
    getattr(cpu, f"scatter_{kind}")(IS(torch.from_numpy(upd[inside]), torch.from_numpy(idx[inside])))
    np.testing.assert_array_equal(v.numpy(), cpu.numpy())


@pytest.mark.parametrize("kind", ref.SCATTER_ND_KINDS)
@given(data=st.data())
def test_scatter_nd_skips_out_of_range_index_rows(kind, data):
    shape = data.draw(st.sampled_from([(3,), (3, 2), (2, 3, 2)]))
    k = data.draw(st.integers(1, len(shape)))
    initial = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    n = data.draw(st.integers(0, 5))
    cols = [data.draw(st.lists(st.integers(-2, shape[j] + 1), min_size=n, max_size=n)) for j in range(k)]
    idx = np.array(cols, dtype=np.int64).T.reshape(n, k)
    inside = np.all((idx >= 0) & (idx < np.array(shape[:k])), axis=1) if n else np.zeros(0, bool)
    if kind == "update":
        seen, keep = set(), []
        for row, ok in zip(map(tuple, idx), inside):
            keep.append(not ok or row not in seen)
            seen.add(row)
        idx, inside = idx[np.array(keep, bool)] if n else idx, inside[np.array(keep, bool)] if n else inside
    upd = _updates(data, kind, (idx.shape[0],) + shape[k:])
    v = _make(initial)
    with accelerator_policy():
        getattr(v, f"scatter_nd_{kind}")(torch.from_numpy(idx), torch.from_numpy(upd))
    expected = ref.scatter_nd_reference(kind, initial, idx[inside].reshape(-1, k), upd[inside])
    np.testing.assert_array_equal(v.numpy(), expected)


def test_batch_scatter_update_skips_out_of_range_rows():
    v = _make(np.arange(8.0).reshape(2, 4))
    with accelerator_policy():
        v.batch_scatter_update(IS(torch.tensor([[10.0, 11.0], [12.0, 13.0]], dtype=torch.float64),
                                  torch.tensor([[1, 4], [-1, 3]])))
    np.testing.assert_array_equal(v.numpy(), [[0.0, 10.0, 2.0, 3.0], [4.0, 5.0, 6.0, 13.0]])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64])
def test_only_out_of_range_rows_change_nothing(kind, dtype):
    initial = torch.tensor([[3.0, -2.0], [5.0, 7.0]]).to(dtype)
    v = _make(initial, dtype)
    with accelerator_policy():
        getattr(v, f"scatter_{kind}")(IS(torch.full((3, 2), 2).to(dtype), torch.tensor([2, -1, 9])))
    assert torch.equal(v.value(), initial)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
def test_a_skipped_row_keeps_the_sign_of_zero(kind, dtype):
    """The neutral write into row 0 is -0.0 for add/sub: +0.0 would turn a -0.0 into +0.0."""
    initial = torch.tensor([[-0.0, 0.0], [-0.0, 1.0]], dtype=dtype)
    v = _make(initial, dtype)
    with accelerator_policy():
        getattr(v, f"scatter_{kind}")(IS(torch.full((2, 2), 3.0, dtype=dtype), torch.tensor([5, 1])))
    got = v.value()
    assert torch.equal(torch.signbit(got[0]), torch.signbit(initial[0])), (kind, got)
    with accelerator_policy():  # and scatter_nd's skipped rows
        if kind in ref.SCATTER_ND_KINDS:
            getattr(v, f"scatter_nd_{kind}")(torch.tensor([[7, 0]]), torch.tensor([4.0], dtype=dtype))
    assert torch.equal(torch.signbit(v.value()[0]), torch.signbit(initial[0]))


def test_a_valid_update_wins_over_skipped_positions_of_the_same_row():
    """The skipped positions of scatter_update repeat the first valid position's write."""
    v = _make(np.zeros((3, 2)))
    with accelerator_policy():
        v.scatter_update(IS(torch.tensor([[9.0, 9.0], [1.0, 2.0], [8.0, 8.0], [3.0, 4.0]], dtype=torch.float64),
                            torch.tensor([7, 0, -5, 2])))
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]])


def test_duplicates_of_scatter_update_write_one_of_their_values():
    v = _make(np.zeros(3))
    with accelerator_policy():
        v.scatter_update(IS(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), torch.tensor([1, 1, 1])))
    assert v.numpy()[1] in (1.0, 2.0, 3.0) and v.numpy()[0] == v.numpy()[2] == 0.0


def test_empty_indices_and_a_variable_without_rows_change_nothing():
    v = _make(np.ones((2, 3)))
    empty = _make(np.ones((0, 3)))
    with accelerator_policy():
        for kind in KINDS:
            getattr(v, f"scatter_{kind}")(IS(torch.ones(0, 3, dtype=torch.float64), torch.zeros(0, dtype=torch.int64)))
            getattr(empty, f"scatter_{kind}")(IS(torch.ones(2, 3, dtype=torch.float64), torch.tensor([0, 1])))
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3)))
    assert empty.numpy().shape == (0, 3)


# ---------------------------------------------------------------------------
# TF's GPU arithmetic: division by zero, duplicates in half precision
# ---------------------------------------------------------------------------

def test_scatter_div_by_zero_divides_on_an_accelerator():
    v = _make(np.array([[1.0, -1.0], [0.0, 2.0]]), torch.float32)
    with accelerator_policy():
        v.scatter_div(IS(torch.tensor([[0.0, 0.0], [0.0, 1.0]]), torch.tensor([0, 1])))
    got = v.numpy()
    assert got[0, 0] == np.inf and got[0, 1] == -np.inf and np.isnan(got[1, 0]) and got[1, 1] == 2.0


def test_scatter_div_divides_a_row_by_its_duplicates_in_turn_or_at_once():
    v = _make(np.array([[12.0, 7.0]]), torch.float32)
    with accelerator_policy():
        v.scatter_div(IS(torch.tensor([[2.0, 4.0], [3.0, -2.0]]), torch.tensor([0, 0])))
    np.testing.assert_array_equal(v.numpy(), [[2.0, -0.875]])


@pytest.mark.parametrize("tail", [(), (3,)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_duplicates_reduce_in_one_unordered_pass(tail, dtype):
    """float16 2048 + 1 + 1 + 1 + 1: TF's CPU kernel rounds after each add (2048); one reduction
    may round once (2052 in float16). Either is a possible TF GPU result; nothing else is."""
    big = 2048.0 if dtype is torch.float16 else 256.0
    v = _make(torch.full((2,) + tail, big), dtype)
    with accelerator_policy():
        v.scatter_add(IS(torch.ones((4,) + tail, dtype=dtype), torch.tensor([0, 0, 0, 0])))
    got = v.value()[0].float()
    sequential, once = big, float(torch.tensor(big + 4.0).to(dtype))
    assert torch.all((got == sequential) | (got == once)), got
    assert torch.all(v.value()[1].float() == big)


# ---------------------------------------------------------------------------
# no host reads
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_scatters_read_nothing_on_the_host(dtype, index_dtype):
    v = _make(torch.arange(12.0).reshape(4, 3), dtype)
    idx = torch.tensor([1, 7, 1, -2, 3], dtype=index_dtype)
    upd = torch.full((5, 3), 2).to(dtype)
    nd_idx = torch.tensor([[0, 1], [9, 9], [3, 2]], dtype=index_dtype)
    nd_upd = torch.ones(3).to(dtype)
    batch = IS(torch.ones(4, 2).to(dtype), torch.tensor([[0, 5], [1, 2], [2, -1], [0, 0]], dtype=index_dtype))
    with accelerator_policy():
        with no_host_sync(count_cpu=True, new_host_tensors=True):
            for kind in KINDS:
                getattr(v, f"scatter_{kind}")(IS(upd, idx))
            for kind in ref.SCATTER_ND_KINDS:
                getattr(v, f"scatter_nd_{kind}")(nd_idx, nd_upd)
            v.batch_scatter_update(batch)


def test_a_host_checking_scatter_does_read_on_the_host():
    """(The check above can fail: outside the policy a CPU scatter validates on the host.)"""
    from tfcompat.testing import HostSyncError

    v = tf.Variable(np.arange(6.0).reshape(2, 3))
    with pytest.raises(HostSyncError):
        with no_host_sync(count_cpu=True):
            v.scatter_add(IS(torch.ones(1, 3, dtype=torch.float64), torch.tensor([1])))


# ---------------------------------------------------------------------------
# the switch: per call for tensors, at creation for variables
# ---------------------------------------------------------------------------

def test_the_policy_switch_is_seen_by_every_caller_and_nests():
    x = torch.zeros(2)
    assert _indices.checks_on_host(x) and _indices.checks_on_host(x.device)
    seen = []
    with accelerator_policy():
        assert not _indices.checks_on_host(x)
        with accelerator_policy():
            assert not _indices.checks_on_host(x)
        assert not _indices.checks_on_host(x)
        t = threading.Thread(target=lambda: seen.append(_indices.checks_on_host(x)))
        t.start()
        t.join()
    assert seen == [False]
    assert _indices.checks_on_host(x)
    assert not _indices.checks_on_host(torch.device("meta"))


def test_a_variable_keeps_the_policy_it_was_created_under():
    inside = _make(np.zeros(2))
    outside = tf.Variable(np.zeros(2))
    inside.scatter_add(IS(torch.ones(2, dtype=torch.float64), torch.tensor([1, 5])))  # skipped, no error
    np.testing.assert_array_equal(inside.numpy(), [0.0, 1.0])
    with accelerator_policy():
        with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 2\)"):
            outside.scatter_add(IS(torch.ones(2, dtype=torch.float64), torch.tensor([1, 5])))
    np.testing.assert_array_equal(outside.numpy(), [0.0, 0.0])
