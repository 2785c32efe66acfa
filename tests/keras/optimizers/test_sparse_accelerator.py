"""Sparse gradients on an accelerator: the static-shape deduplication and every built-in rule.

On an accelerator `apply_gradients` reads nothing of a sparse gradient on
the host (test_host_sync.py checks that): it does not validate the indices
(TF's GPU kernels skip out-of-range rows) and the built-in optimizers sum
duplicate indices with `multi_tensor.deduplicate_padded` instead of
`torch.unique` (whose output size is read on the host). These tests state
what that path must compute, on CPU tensors under `accelerator_policy()`:

* `deduplicate_padded`: for n positions with u distinct indices, the first
  u entries are `torch.unique`'s indices with the sums `index_add_` gives,
  the other n - u are pads (index -1, zero rows), `real` marks the first u;
  in half precision a sum is the one TF's GPU atomics could give;
* every built-in sparse rule (every configuration of the table) gives the
  CPU path's bits, and with out-of-range rows added, the CPU path's bits
  for the gradient without them (TF's GPU kernels skip those rows);
* a custom `_resource_apply_sparse` still receives unique indices;
* the step touches O(rows of the gradient), never a temporary the size of
  the variable, except where Keras' own rule is dense (Adam and Nadam
  decay all of `m` and `v`, RMSprop without momentum all of `rms`/`mg`).

The deduplication's CPU form (`deduplicate`) sums from zero, as TF's
`unsorted_segment_sum`: a lone -0.0 gradient row arrives as +0.0.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

import tfcompat as tf
from tfcompat.keras.optimizers import multi_tensor
from tfcompat.testing import HostSyncError, accelerator_policy, no_host_sync

from optimizer_info import ALL_CONFIGS, build, config_id

IS = tf.IndexedSlices


# ---------------------------------------------------------------------------
# deduplicate_padded
# ---------------------------------------------------------------------------

def _unique_sums(values: torch.Tensor, indices: torch.Tensor) -> tuple:
    """The reference: torch.unique, then one index_add_ into zeros (position order)."""
    flat = indices.reshape(-1)
    unique, inverse = torch.unique(flat, return_inverse=True)
    summed = torch.zeros((unique.numel(),) + tuple(values.shape[1:]), dtype=values.dtype)
    summed.index_add_(0, inverse, values.reshape((flat.numel(),) + tuple(values.shape[1:])))
    return summed, unique


@st.composite
def _sparse(draw, dtype=torch.float64, lo=-3, hi=9, max_size=12):
    n = draw(st.integers(0, max_size))
    idx = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    tail = draw(st.sampled_from([(), (1,), (3,), (2, 2)]))
    size = n * int(np.prod(tail))
    vals = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=size, max_size=size))
    index_dtype = draw(st.sampled_from([torch.int32, torch.int64]))
    values = torch.tensor(vals, dtype=torch.float64).reshape((n,) + tail).to(dtype)
    return values, torch.tensor(idx, dtype=index_dtype)


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b) and torch.equal(
        torch.signbit(a), torch.signbit(b))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@given(data=st.data())
def test_deduplicate_padded_is_unique_then_index_add(dtype, data):
    values, indices = data.draw(_sparse(dtype))
    summed, padded, real = multi_tensor.deduplicate_padded(values, indices)
    n = indices.numel()
    want_sums, want_unique = _unique_sums(values, indices)
    u = want_unique.numel()
    assert summed.shape == values.shape and padded.shape == (n,) and real.shape == (n,)
    assert padded.dtype == indices.dtype and summed.dtype == values.dtype and real.dtype == torch.bool
    assert torch.equal(real, torch.arange(n) < u)  # exactly the first u entries are real
    assert torch.equal(padded[:u], want_unique.to(indices.dtype))
    assert _same_bits(summed[:u], want_sums)
    assert torch.all(padded[u:] == multi_tensor.PAD_INDEX)  # pads: out of range for every variable
    assert _same_bits(summed[u:], torch.zeros_like(summed[u:]))


@given(data=st.data())
def test_deduplicate_padded_does_not_depend_on_the_order_of_exact_sums(data):
    """Integer-valued rows sum exactly in any order: any permutation gives the same result."""
    values, indices = data.draw(_sparse(torch.float64))
    values = torch.round(values)
    perm = torch.from_numpy(np.asarray(data.draw(st.permutations(range(indices.numel()))), dtype=np.int64))
    first = multi_tensor.deduplicate_padded(values, indices)
    second = multi_tensor.deduplicate_padded(values[perm], indices[perm])
    for a, b in zip(first, second):
        assert torch.equal(a, b)


def test_deduplicate_padded_of_empty_and_single_inputs():
    for index_dtype in (torch.int32, torch.int64):
        summed, padded, real = multi_tensor.deduplicate_padded(torch.zeros(0, 3), torch.zeros(0, dtype=index_dtype))
        assert summed.shape == (0, 3) and padded.shape == (0,) and real.shape == (0,)
        assert padded.dtype == index_dtype
        summed, padded, real = multi_tensor.deduplicate_padded(torch.tensor([[-0.0, 2.0]]),
                                                               torch.tensor([4], dtype=index_dtype))
        assert padded.tolist() == [4] and real.tolist() == [True]
        assert summed.tolist() == [[0.0, 2.0]] and not torch.signbit(summed[0, 0])  # (0 + -0.0)


def test_deduplicate_padded_of_one_index_repeated():
    summed, padded, real = multi_tensor.deduplicate_padded(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([3, 3, 3]))
    assert summed.tolist() == [7.0, 0.0, 0.0] and padded.tolist() == [3, -1, -1]
    assert real.tolist() == [True, False, False]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@given(data=st.data())
def test_half_precision_sums_are_within_reordering_of_tf_cpu_order(dtype, data):
    """A sum of m half-precision rows: TF's CPU kernel rounds after each add (half an ulp of the
    running sum each), a single reduction rounds once: they differ by at most m / 2 ulps of the
    largest partial sum; two rows sum alike (0 + a is exact, a + b rounds once either way)."""
    values, indices = data.draw(_sparse(dtype, lo=0, hi=3))
    summed, padded, real = multi_tensor.deduplicate_padded(values, indices)
    u = int(real.sum())
    flat = values.reshape((indices.numel(), int(np.prod(values.shape[1:]))))
    for j in range(u):
        rows = flat[indices == padded[j]]
        running = torch.zeros(rows.shape[1], dtype=dtype)
        largest = torch.zeros(rows.shape[1], dtype=torch.float64)
        for r in rows:  # TF's CPU order, rounding after each add
            running = running + r
            largest = torch.maximum(largest, running.double().abs())
        got = summed[j].reshape(-1)
        finite = torch.isfinite(got) & torch.isfinite(running)
        ulp = torch.from_numpy(np.spacing(largest.numpy().astype(np.float32))).double() * 2.0 ** (
            24 - (11 if dtype is torch.float16 else 8))
        if rows.shape[0] <= 2:
            assert torch.equal(got, running), (rows, got, running)
        assert torch.all((got.double() - running.double()).abs()[finite] <= rows.shape[0] / 2 * ulp[finite])


def test_deduplicate_padded_reads_nothing_on_the_host():
    values, indices = torch.randn(6, 3), torch.tensor([4, 1, 4, 0, 1, 4])
    with no_host_sync(count_cpu=True, new_host_tensors=True):
        multi_tensor.deduplicate_padded(values, indices)
    with pytest.raises(HostSyncError):  # (the check can fail: torch.unique reads the count)
        with no_host_sync(count_cpu=True):
            multi_tensor.deduplicate(values, indices)


def test_deduplicate_sums_from_zero_as_tf():
    """TF's `unsorted_segment_sum` starts from zeros: 0 + -0.0 is +0.0, also without duplicates."""
    summed, unique = multi_tensor.deduplicate(torch.tensor([-0.0, 1.0]), torch.tensor([2, 0]))
    assert summed.tolist() == [0.0, 1.0] and not torch.signbit(summed[0])
    assert sorted(unique.tolist()) == [0, 2]


@pytest.mark.parametrize("accelerator", [False, True])
def test_a_negative_zero_gradient_row_moves_adagrad_as_in_tf(accelerator):
    """TF 2.21: Adagrad(0.1) on var [-0.0, 1.0] with sparse grad [-0.0] at 0 leaves -0.0 (the
    summed gradient is +0.0, and -0.0 - 0.1 * +0.0 / x = -0.0); with -0.0 it would be +0.0."""
    with accelerator_policy() if accelerator else contextlib.nullcontext():
        v = tf.Variable([-0.0, 1.0])
        tf.keras.optimizers.Adagrad(0.1).apply_gradients(
            [(IS(torch.tensor([-0.0]), torch.tensor([0]), torch.tensor([2])), v)])
    assert v.numpy().tolist() == [0.0, 1.0] and np.signbit(v.numpy()[0])


# ---------------------------------------------------------------------------
# every built-in rule: the accelerator path gives the CPU path's bits
# ---------------------------------------------------------------------------

SPARSE_CONFIGS = [p for p in ALL_CONFIGS if p[0].supports_sparse]
SHAPES = ((6,), (5, 3))


def _gradients(seed: int, dtype: torch.dtype, steps: int = 3, bad: bool = False) -> list:
    """Per step, one IndexedSlices per variable, with duplicates (and out-of-range rows if `bad`)."""
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(steps):
        grads = []
        for k, shape in enumerate(SHAPES):
            idx = rs.randint(0, shape[0], size=5)
            idx[-1] = idx[0]
            if bad:
                idx = np.concatenate([idx[:2], [-1, shape[0], shape[0] + 7], idx[2:]])
            values = rs.uniform(-1, 1, (idx.size,) + shape[1:])
            grads.append(IS(torch.from_numpy(values).to(dtype),
                            torch.from_numpy(idx).to(torch.int32 if k else torch.int64),
                            torch.tensor(shape)))
        out.append(grads)
    return out


def _in_range(g: IS, rows: int) -> IS:
    keep = (g.indices >= 0) & (g.indices < rows)
    return IS(g.values[keep], g.indices[keep], g.dense_shape)


def _run(info, cfg, steps: list, dtype: torch.dtype, accelerator: bool) -> tuple:
    rs = np.random.RandomState(7)
    with accelerator_policy() if accelerator else contextlib.nullcontext():
        variables = [tf.Variable(torch.from_numpy(rs.uniform(-1, 1, s)).to(dtype)) for s in SHAPES]
        opt = build(info, cfg.kwargs)
        for grads in steps:
            opt.apply_gradients(zip(grads, variables))
        slots = {name: [opt.get_slot(v, name).value().clone() for v in variables]
                 for name in opt.get_slot_names()}
    return [v.value().clone() for v in variables], slots


def _assert_same_run(got: tuple, want: tuple, what: str) -> None:
    for i, (a, b) in enumerate(zip(got[0], want[0])):
        assert _same_bits(a, b), f"{what}: var{i}\n{a}\n{b}"
    assert got[1].keys() == want[1].keys()
    for name in want[1]:
        for i, (a, b) in enumerate(zip(got[1][name], want[1][name])):
            assert _same_bits(a, b), f"{what}: slot {name} of var{i}\n{a}\n{b}"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("pair", SPARSE_CONFIGS, ids=[config_id(p) for p in SPARSE_CONFIGS])
def test_each_sparse_rule_under_the_policy_gives_the_cpu_bits(pair, dtype):
    info, cfg = pair
    steps = _gradients(3, dtype)
    _assert_same_run(_run(info, cfg, steps, dtype, True), _run(info, cfg, steps, dtype, False),
                     f"{config_id(pair)} under accelerator_policy vs CPU")


@pytest.mark.parametrize("pair", SPARSE_CONFIGS, ids=[config_id(p) for p in SPARSE_CONFIGS])
def test_each_sparse_rule_skips_out_of_range_rows_as_tf_gpu(pair):
    """TF's GPU kernels skip out-of-range rows: the result is the CPU result without them."""
    info, cfg = pair
    bad = _gradients(4, torch.float64, bad=True)
    good = [[_in_range(g, s[0]) for g, s in zip(grads, SHAPES)] for grads in bad]
    assert all(g.indices.numel() < b.indices.numel() for gs, bs in zip(good, bad) for g, b in zip(gs, bs))
    _assert_same_run(_run(info, cfg, bad, torch.float64, True), _run(info, cfg, good, torch.float64, False),
                     f"{config_id(pair)} with out-of-range rows")


def test_out_of_range_sparse_rows_are_still_an_error_on_cpu():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
        tf.keras.optimizers.Adagrad(0.1).apply_gradients([(IS(torch.tensor([1.0]), torch.tensor([2])), v)])
    assert v.numpy().tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------
# custom rules keep TF's promise of unique indices
# ---------------------------------------------------------------------------

class _Recording(tf.keras.optimizers.SGD):
    """A custom rule (it overrides `_resource_apply_sparse`)."""

    def __init__(self, **kwargs):
        super().__init__(momentum=0.5, **kwargs)
        self.seen = []

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        self.seen.append(indices.clone())
        return super()._resource_apply_sparse(grad, var, indices, apply_state)


class _OwnScatter(tf.keras.optimizers.Adam):
    """A custom scatter helper: also promised unique indices."""

    seen: list = []

    def _resource_scatter_add(self, x, i, v):
        type(self).seen.append(i.clone())
        return super()._resource_scatter_add(x, i, v)


class _OptsIn(_Recording):
    _SPARSE_RULE_TAKES_PADS = True


def test_which_classes_take_padded_indices():
    for cls in {p[0].cls for p in SPARSE_CONFIGS}:
        assert cls._sparse_rule_takes_pads(), cls
        assert type("Subclass", (cls,), {})._sparse_rule_takes_pads(), cls  # (nothing overridden)
    assert not _Recording._sparse_rule_takes_pads()
    assert not _OwnScatter._sparse_rule_takes_pads()
    assert _OptsIn._sparse_rule_takes_pads()


def _step_under_policy(opt):
    with accelerator_policy():
        v = tf.Variable(torch.zeros(6, 2))
        grad = IS(torch.ones(5, 2), torch.tensor([4, 1, 4, 9, 1]), torch.tensor([6, 2]))
        opt.apply_gradients([(grad, v)])
        return v


def test_a_custom_sparse_rule_gets_unique_indices_under_the_policy():
    opt = _Recording(learning_rate=0.5)
    v = _step_under_policy(opt)
    # TF's promise: unique indices (the out-of-range 9 among them: its rows are skipped)
    assert [t.tolist() for t in opt.seen] == [[1, 4, 9]]
    np.testing.assert_array_equal(v.numpy()[[1, 4]], [[-1.0, -1.0], [-1.0, -1.0]])
    OwnScatter = _OwnScatter
    OwnScatter.seen = []
    _step_under_policy(OwnScatter(0.1))
    assert [t.tolist() for t in OwnScatter.seen] == [[1, 4, 9], [1, 4, 9]]
    opt_in = _OptsIn(learning_rate=0.5)
    w = _step_under_policy(opt_in)
    assert [t.tolist() for t in opt_in.seen] == [[1, 4, 9, -1, -1]]  # the pads, by request
    np.testing.assert_array_equal(w.numpy(), v.numpy())


# ---------------------------------------------------------------------------
# cost: O(touched rows)
# ---------------------------------------------------------------------------

class _BigTemporaries(TorchDispatchMode):
    """Records operators that allocate a tensor of at least `limit` elements (not a view of or
    an in-place write to one of their inputs)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.seen: list = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        inputs = {a.untyped_storage().data_ptr() for a in torch.utils._pytree.tree_leaves((args, kwargs))
                  if isinstance(a, torch.Tensor)}
        for t in torch.utils._pytree.tree_leaves(out):
            if (isinstance(t, torch.Tensor) and t.numel() >= self.limit
                    and t.untyped_storage().data_ptr() not in inputs):
                self.seen.append(str(func))
        return out


# Keras' own sparse rules that update every row (as TF's): their slots decay densely.
DENSE_BY_RULE = {"Adam", "Nadam"}


@pytest.mark.parametrize("accelerator", [True, False])
@pytest.mark.parametrize("pair", SPARSE_CONFIGS, ids=[config_id(p) for p in SPARSE_CONFIGS])
def test_a_sparse_step_touches_only_the_gradient_rows(pair, accelerator):
    info, cfg = pair
    rows, width = 4096, 4
    with accelerator_policy() if accelerator else contextlib.nullcontext():
        v = tf.Variable(torch.zeros(rows, width))
        opt = build(info, cfg.kwargs)
        grads = [IS(torch.ones(3, width), torch.tensor([5, 9, 5]), torch.tensor([rows, width]))
                 for _ in range(2)]
        opt.apply_gradients([(grads[0], v)])  # (slot creation)
        with _BigTemporaries(rows * width // 2) as mode:
            opt.apply_gradients([(grads[1], v)])
    dense_rule = info.name in DENSE_BY_RULE or (info.name == "RMSprop" and not cfg.kwargs.get("momentum"))
    if dense_rule:
        assert mode.seen, "(the check sees the dense slot decay of Keras' rule)"
    else:
        assert not mode.seen, f"{config_id(pair)} made variable-sized temporaries: {mode.seen}"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tail", [(), (7,)])
def test_cpu_dedup_adds_duplicates_one_at_a_time_in_order(dtype, tail):
    # TF's unsorted_segment_sum order. `deduplicate` relies on torch's CPU index_add_ doing
    # exactly that except for half-precision rows (see multi_tensor._sequential_index_add):
    # if a torch release changes its kernel, this fails.
    gen = torch.Generator().manual_seed(3)
    idx = torch.randint(0, 4, (300,), generator=gen)
    scale = torch.logspace(-3, 3, 300).reshape((300,) + (1,) * len(tail))
    values = (torch.randn((300,) + tail, generator=gen) * scale).to(dtype)
    summed, unique = multi_tensor.deduplicate(values, idx)
    expected = torch.zeros((unique.numel(),) + tail, dtype=dtype)
    for i in range(300):
        row = int(torch.nonzero(unique == idx[i]))
        expected[row] = expected[row] + values[i]
    assert torch.equal(summed, expected)
    plain = torch.zeros_like(expected).index_add_(0, torch.searchsorted(unique, idx), values)
    assert torch.equal(plain, expected) == multi_tensor._sequential_index_add(expected)
