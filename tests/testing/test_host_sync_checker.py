"""`tfcompat.testing.host_syncs` / `no_host_sync`: the operator-level host-sync check.

The check must catch what waits for the device (also when torch's C++ code
calls `item()`, where Python-level patching sees nothing), let sync-free code
pass, say where the sync happened, and change nothing the code computes.
CPU tensors stand in for device tensors (`count_cpu=True`); the copy rules,
which need two kinds of device, run with the device check faked (`cpu` plays
the accelerator and `meta` the host).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import (HostSyncError, accelerator_policy, host_sync, host_syncs,
                              no_host_sync)

# Inputs are made before the blocks: a tensor the block itself builds from host data without
# a device argument stays in host memory on every machine, and reading it is free.
X = torch.arange(6, dtype=torch.float32)
I0 = torch.tensor(2)
ONE = torch.tensor(1.0)
COUNTS = torch.tensor([1, 2])


# ---------------------------------------------------------------------------
# known syncs are caught
# ---------------------------------------------------------------------------

KNOWN_SYNCS = {
    "item": (lambda: X[1].item(), "aten::_local_scalar_dense"),
    "float": (lambda: float(X.sum()), "aten::_local_scalar_dense"),
    "int": (lambda: int(X[3]), "aten::_local_scalar_dense"),
    "bool": (lambda: bool(X[1] > 0), "aten::_local_scalar_dense"),
    "if": (lambda: 1 if (X > 2).any() else 0, "aten::_local_scalar_dense"),
    "index_with_0d_tensor": (lambda: X[I0], "aten::_local_scalar_dense"),
    "slice_bound_tensor": (lambda: X[:I0], "aten::_local_scalar_dense"),
    "list_index": (lambda: [1, 2, 3][I0], "aten::_local_scalar_dense"),
    # torch's argument parser turns a 0-d tensor into a Scalar with a C++ item()
    "foreach_scalar_from_tensor": (lambda: torch._foreach_add([X], ONE),
                                   "aten::_local_scalar_dense"),
    "narrow_with_tensor_start": (lambda: torch.narrow(X, 0, I0, 2), "aten::_local_scalar_dense"),
    "nonzero": (lambda: torch.nonzero(X), "aten::nonzero"),
    "where_one_argument": (lambda: torch.where(X > 2), "aten::nonzero"),
    "argwhere": (lambda: torch.argwhere(X), "aten::nonzero"),
    "masked_select": (lambda: torch.masked_select(X, X > 2), "aten::masked_select"),
    "bool_mask_index": (lambda: X[X > 2], "aten::index"),
    "bool_mask_assign": (lambda: X.clone().__setitem__(X > 2, 0.0), "aten::index_put_"),
    "unique": (lambda: torch.unique(X), "aten::_unique2"),
    "unique_dim": (lambda: torch.unique(X.reshape(3, 2), dim=0), "aten::unique_dim"),
    "unique_consecutive": (lambda: torch.unique_consecutive(X), "aten::unique_consecutive"),
    "bincount": (lambda: torch.bincount(COUNTS), "aten::bincount"),
    "repeat_interleave": (lambda: torch.repeat_interleave(COUNTS), "aten::repeat_interleave"),
    "equal": (lambda: torch.equal(X, X), "aten::equal"),
    "allclose": (lambda: torch.allclose(X, X), "aten::allclose"),
    "linalg_check_errors": (lambda: torch.linalg.cholesky(torch.eye(2)), "aten::_linalg_check_errors"),
    "tolist": (lambda: X.tolist(), "Tensor.tolist"),
    "numpy": (lambda: X.numpy(), "Tensor.numpy"),
    "np_asarray": (lambda: np.asarray(X), "Tensor.__array__"),
    "repr": (lambda: repr(X), "Tensor.__repr__"),
    "format": (lambda: f"{X.sum():.2f}", "Tensor.__format__"),
}


@pytest.mark.parametrize("name", list(KNOWN_SYNCS))
def test_a_known_sync_is_caught_once(name):
    fn, op = KNOWN_SYNCS[name]
    with host_syncs() as log:
        fn()
    assert log.ops == [op], log.report()


def test_syncs_inside_backward_are_caught():
    """The mode sees operators below autograd: a Python backward that reads a value is caught."""

    class Reads(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if float(g.sum()) > 1e30:  # a host read in backward
                return g
            return g * 2

    w = torch.ones(3, requires_grad=True)
    loss = Reads.apply(w).sum()
    with host_syncs() as log:
        loss.backward()
    assert log.ops == ["aten::_local_scalar_dense"], log.report()
    assert log[0].location.endswith("in backward")


def test_repeat_interleave_with_output_size_does_not_sync():
    with host_syncs() as log:
        torch.repeat_interleave(COUNTS, output_size=3)
    assert not log, log.report()


# ---------------------------------------------------------------------------
# sync-free code passes
# ---------------------------------------------------------------------------

def _mlp_step():
    gen = torch.Generator().manual_seed(0)
    w1 = torch.randn(4, 8, generator=gen, requires_grad=True)
    w2 = torch.randn(8, 3, generator=gen, requires_grad=True)
    x = torch.randn(5, 4, generator=gen)
    y = torch.tensor([0, 1, 2, 1, 0])
    return w1, w2, x, y


def _sync_free():
    w1, w2, x, y = _mlp_step()
    loss = torch.nn.functional.cross_entropy(torch.relu(x @ w1) @ w2, y)
    loss.backward()
    ys = torch._foreach_mul([w1.detach(), w2.detach()], 0.5)  # Python scalars: no read
    torch._foreach_add_(ys, [w1.grad, w2.grad], alpha=-0.1)
    z = X[1:4] * 2.0 + X[2]          # Python-int index and slices
    z = torch.where(z > 3, z, torch.zeros_like(z))  # three-argument where: no shape from data
    idx = torch.tensor([0, 2])        # (built before, from host data on CPU: not a device read)
    return loss.detach(), ys, z, X.index_select(0, idx), torch.cat([z, z]).sum(), X.to(torch.float64)


def test_sync_free_code_passes():
    with host_syncs() as log:
        _sync_free()
    assert not log, log.report()
    with no_host_sync():
        _sync_free()


# ---------------------------------------------------------------------------
# reports: operator, reason, location
# ---------------------------------------------------------------------------

def _reads_the_step(step):
    return int(step)  # the line the report must point at


def test_report_names_the_operator_the_reason_and_the_line():
    with host_syncs() as log:
        _reads_the_step(I0)
    (sync,) = log
    assert sync.op == "aten::_local_scalar_dense" and sync.device == "cpu"
    assert "item()" in sync.reason
    assert sync.location.startswith("tests/testing/test_host_sync_checker.py:")
    assert sync.location.endswith("in _reads_the_step")
    text = str(sync)
    assert "return int(step)  # the line the report must point at" in text
    assert "test_report_names_the_operator_the_reason_and_the_line" in text  # the caller too
    assert "_python_dispatch" not in text and "eval_frame" not in text  # not the machinery
    assert "1 host sync(s)" in log.report()


def test_a_sync_inside_torch_is_located_at_the_caller_outside_torch():
    with host_syncs() as log:
        torch.unique(X)  # torch/functional.py calls the operator
    (sync,) = log
    assert sync.location.startswith("tests/testing/test_host_sync_checker.py:")
    assert any(f.filename.endswith("functional.py") for f in sync.stack)


def test_clear_forgets_earlier_syncs():
    with host_syncs() as log:
        X[0].item()
        log.clear()
        X.sum()
    assert not log


# ---------------------------------------------------------------------------
# which tensors count
# ---------------------------------------------------------------------------

def test_count_cpu_false_ignores_host_tensors():
    with host_syncs(count_cpu=False) as log:
        X[0].item(), X.tolist(), torch.nonzero(X), X[X > 1]
    assert not log, log.report()


def test_meta_tensors_hold_no_data_and_never_count():
    m = torch.empty(3, device="meta")
    with host_syncs() as log:
        torch.empty(3, device="meta").copy_(X[:3])
        X[:3].to("meta")
        m * 2
    assert not log, log.report()


def test_new_host_tensors_are_reported_only_when_asked():
    data = np.ones(2)
    with host_syncs() as log:
        torch.tensor([1.0, 2.0], device="cpu"), torch.as_tensor(data, device="cpu"), torch.from_numpy(data)
    assert not log
    with host_syncs(new_host_tensors=True) as log:
        torch.tensor([1.0, 2.0], device="cpu"), torch.as_tensor(data, device="cpu"), torch.from_numpy(data)
    assert log.ops == ["aten::lift_fresh"] * 3, log.report()


def test_tensors_built_without_a_device_stay_in_host_memory():
    """`torch.tensor(shape)` is host memory on every machine: building and reading it are free;
    with a device argument it would follow the device, and reading it counts."""
    with host_syncs(new_host_tensors=True) as log:
        shape = torch.tensor([4, 3], dtype=torch.int32)
        int(shape[0]), shape.reshape(-1).tolist()
    assert not log, log.report()
    with host_syncs() as log:
        placed = torch.tensor([4, 3], device="cpu")
        int(placed[0])
        int(shape[1] * 2)  # made before the block, and a new tensor: counts
    assert log.ops == ["aten::_local_scalar_dense"] * 2, log.report()


def test_host_memory_names_tensors_made_before_the_block():
    dense_shape = torch.tensor([4, 3])
    with host_syncs(host_memory=[dense_shape]) as log:
        dense_shape.tolist(), int(dense_shape[1])
    assert not log, log.report()
    with host_syncs() as log:
        dense_shape.tolist()
    assert log.ops == ["Tensor.tolist"]


@pytest.fixture
def cpu_as_device(monkeypatch):
    """Fake the device check: `cpu` tensors play the accelerator's, `meta` the host's."""
    monkeypatch.setattr(host_sync, "_kind", lambda d: {"cpu": "device", "meta": "host"}.get(d.type, "none"))


def test_device_to_host_copies_are_caught(cpu_as_device):
    host = torch.empty(6, device="meta")
    with host_syncs(count_cpu=False) as log:
        X.to("meta")                         # _to_copy: device -> host
        host.copy_(X)                        # copy_: device source, host destination
        X.to("meta", non_blocking=True)      # queued, not waited for
        X.to(torch.float64)                  # stays on the device
    assert log.ops == ["aten::_to_copy", "aten::copy_"], log.report()
    assert all("to the host" in s.reason and s.device == "cpu" for s in log)


def test_blocking_host_to_device_copies_are_caught(cpu_as_device):
    host = torch.empty(6, device="meta")
    with host_syncs(count_cpu=False) as log:
        with pytest.raises(NotImplementedError):  # (torch cannot copy out of meta; caught first)
            X.clone().copy_(host)
        with pytest.raises(NotImplementedError):
            X.clone().copy_(host, non_blocking=True)
    assert log.ops == ["aten::copy_"], log.report()
    assert "host-to-device" in log[0].reason


def test_reads_and_new_tensors_on_a_device_count_without_count_cpu(cpu_as_device):
    with host_syncs(count_cpu=False) as log:
        X[0].item()
        X.tolist()
        torch.tensor([1.0], device="cpu")  # built on the "device" from host data: a blocking copy
    assert log.ops == ["aten::_local_scalar_dense", "Tensor.tolist", "aten::lift_fresh"], log.report()


def test_a_python_read_of_device_data_is_one_sync(cpu_as_device):
    """`tolist()` on a device copies to the host inside: reported once, as `tolist`."""
    with host_syncs(count_cpu=False) as log:
        X.tolist()
        repr(X)
    assert log.ops == ["Tensor.tolist", "Tensor.__repr__"], log.report()


def test_every_listed_operator_exists():
    for name in host_sync.SYNC_OPS:
        assert hasattr(torch.ops.aten, name), name


# ---------------------------------------------------------------------------
# no_host_sync: raising
# ---------------------------------------------------------------------------

def test_strict_raises_at_the_sync():
    reached = []
    with pytest.raises(HostSyncError, match="_local_scalar_dense") as info:
        with no_host_sync():
            X.sum() * 2
            X[0].item()
            reached.append(True)
    assert not reached
    assert "test_strict_raises_at_the_sync" in str(info.value)


def test_non_strict_finishes_the_block_and_lists_every_sync():
    reached = []
    with pytest.raises(HostSyncError) as info:
        with no_host_sync(strict=False):
            X[0].item()
            torch.nonzero(X)
            reached.append(True)
    assert reached
    assert "2 host sync(s)" in str(info.value) and "aten::nonzero" in str(info.value)


def test_a_swallowed_sync_error_still_fails_the_block():
    with pytest.raises(HostSyncError):
        with no_host_sync():
            try:
                X[0].item()
            except Exception:  # code under test that catches everything
                pass


def test_no_host_sync_passes_sync_free_code_and_yields_its_log():
    with no_host_sync() as log:
        X * 2
    assert len(log) == 0


def test_no_host_sync_combines_cuda_sync_debug_mode(monkeypatch):
    """With CUDA, torch's sync debug mode is on inside the block (and restored after), and only
    device tensors count; the operator watch still runs."""
    calls = []
    monkeypatch.setattr(host_sync, "_cuda_in_use", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: calls.append("synchronize"))
    monkeypatch.setattr(torch.cuda, "get_sync_debug_mode", lambda: 1)
    monkeypatch.setattr(torch.cuda, "set_sync_debug_mode", lambda mode: calls.append(mode))
    with no_host_sync():
        X[0].item()  # a host tensor: free on a CUDA machine
        assert calls == ["synchronize", "error"]
    assert calls == ["synchronize", "error", 1]
    monkeypatch.setattr(host_sync, "_kind", lambda d: {"cpu": "device", "meta": "host"}.get(d.type, "none"))
    with pytest.raises(HostSyncError):
        with no_host_sync():
            X[0].item()  # now "on the device"
    assert calls[-1] == 1  # restored after the error too


# ---------------------------------------------------------------------------
# transparency: the watch changes nothing
# ---------------------------------------------------------------------------

def _training_run(watch):
    results = []
    with (host_syncs() if watch else _null()):
        w1, w2, x, y = _mlp_step()
        opt = torch.optim.Adam([w1, w2], lr=0.1, foreach=True)
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(torch.relu(x @ w1) @ w2, y)
            loss.backward()
            opt.step()
            results.append(loss.detach().clone())
        base = torch.zeros(4)
        view = base[1:3]
        view.add_(1.0)                            # in place through a view
        version = base._version
        results += [w1.detach().clone(), w2.detach().clone(), base.clone()]
        facts = (view._base is base, version, view.data_ptr() - base.data_ptr(), loss.requires_grad,
                 type(loss.grad_fn).__name__, w1.grad is not None)
    return results, facts


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_results_are_identical_with_and_without_the_watch():
    plain, plain_facts = _training_run(False)
    watched, watched_facts = _training_run(True)
    assert watched_facts == plain_facts
    for a, b in zip(plain, watched):
        assert torch.equal(a, b)


def test_tfcompat_step_is_identical_with_and_without_the_watch():
    def run(watch):
        with (host_syncs() if watch else _null()):
            rs = np.random.RandomState(0)
            w = tf.Variable(rs.randn(4, 3).astype(np.float32))
            emb = tf.Variable(rs.randn(10, 4).astype(np.float32))
            opt = tf.keras.optimizers.Adam(0.1)
            ids = torch.tensor([1, 3, 3])
            losses = []
            for _ in range(3):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.matmul(tf.gather(emb, ids), w) ** 2)
                grads = tape.gradient(loss, [w, emb])
                opt.apply_gradients(zip(grads, [w, emb]))
                losses.append(loss.detach().clone())
            return losses + [w.value().clone(), emb.value().clone(), opt.iterations.value().clone()]

    for a, b in zip(run(False), run(True)):
        assert torch.equal(a, b)


def test_other_threads_are_not_watched():
    seen = []
    with host_syncs() as log:
        t = threading.Thread(target=lambda: seen.append(X[0].item()))
        t.start()
        t.join()
    assert seen == [0.0] and not log


def test_nested_watches_both_record():
    with host_syncs() as outer:
        with host_syncs() as inner:
            X[0].item()
    assert inner.ops == outer.ops == ["aten::_local_scalar_dense"]


# ---------------------------------------------------------------------------
# accelerator_policy: CPU tensors skip the data checks TF makes only on CPU
# ---------------------------------------------------------------------------

def test_accelerator_policy_skips_cpu_only_data_checks():
    from tfcompat.ops import _indices

    x = torch.arange(6.0)
    idx = torch.tensor([1, 4])
    with host_syncs() as log:
        tf.gather(x, idx)
    assert log, "tf.gather validates indices on CPU (TF's CPU kernel does): a host read"
    assert _indices.checks_on_host(x)
    with accelerator_policy():
        assert not _indices.checks_on_host(x)
        with host_syncs() as log:
            out = tf.gather(x, idx)
        assert not log, log.report()
    assert _indices.checks_on_host(x)
    np.testing.assert_array_equal(out.numpy(), [1.0, 4.0])
