"""One worker of the multi-process collective tests (run by `test_collectives.py`).

    python collective_worker.py SCENARIO RANK WORLD PORT OUT.json

Each worker builds its `TF_CONFIG` (worker 0 at 127.0.0.1:PORT), joins the
group through `process_group_settings` and `init_process_group`, runs the
scenario's checks in order and writes `{check: {"ok", "error", "value"}}`
to OUT.json after every check, so a hang or crash still leaves the results
so far. Every rank runs the same checks in the same order (collectives
must match); a check asserts locally, computing every rank's inputs from
seeds, so each rank knows the exact expected result.

Not collected by pytest (no `test_` prefix) and imports neither pytest nor
hypothesis, to keep worker start-up short.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
import traceback
import weakref

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import tfcompat as tf  # noqa: E402
from tfcompat.distribute import cluster_resolver, collectives  # noqa: E402
from tfcompat.distribute.gradient_reducer import BucketedGradientReducer  # noqa: E402
from tfcompat.testing import host_syncs  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64,
          torch.int16, torch.int8, torch.uint8, torch.complex64]


def _inputs(rank, seed=0):
    """Rank `rank`'s all_reduce inputs: mixed dtypes, 0-d, empty and non-contiguous tensors."""
    g = torch.Generator().manual_seed(1000 * seed + rank)
    out = []
    for i, dtype in enumerate(DTYPES * 3):
        shape = [(), (0,), (7,), (3, 5), (2, 3, 4), (300,)][i % 6]
        if dtype.is_floating_point or dtype.is_complex:
            t = (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
            if dtype.is_complex:
                t = t + 1j * torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
        else:
            info = torch.iinfo(dtype)
            t = torch.randint(max(info.min, -(1 << 30)), min(info.max, 1 << 30), shape,
                              generator=g, dtype=torch.int64).to(dtype)
        out.append(t)
    big = torch.randn(40, 30, generator=g).t()  # non-contiguous
    out.append(big)
    return out


def _equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def _expect_error(cls, fn, *words):
    try:
        fn()
    except cls as e:
        for w in words:
            assert w in str(e), (w, str(e))
        return str(e)
    raise AssertionError(f"{cls.__name__} not raised")


class _Counter:
    """Counts (and optionally logs) calls to torch.distributed functions."""

    def __init__(self, names, log=None):
        self.names, self.log, self.counts, self.saved = names, log, {}, {}

    def __enter__(self):
        for name in self.names:
            original = getattr(dist, name)
            self.saved[name] = original
            self.counts[name] = 0

            def wrapper(*args, _name=name, _original=original, **kwargs):
                self.counts[_name] += 1
                if self.log is not None:
                    self.log.append((_name, args[0].numel() if hasattr(args[0], "numel") else None))
                return _original(*args, **kwargs)
            setattr(dist, name, wrapper)
        return self

    def __exit__(self, *exc):
        for name, original in self.saved.items():
            setattr(dist, name, original)


# -- checks (each: (ops, rank, world) -> JSON-able value) ------------------------------

def check_settings(ops, rank, world):
    s = cluster_resolver.process_group_settings()
    assert (s.rank, s.world_size, s.task_type, s.task_id) == (rank, world, "worker", rank)
    assert s.is_chief == (rank == 0)
    assert collectives.init_process_group(s) is ops  # idempotent
    _expect_error(ValueError, lambda: collectives.init_process_group(
        dict(s.as_dict(), rank=(rank + 1) % world)), "already configured")
    return {"backend": dist.get_backend(), "init_method": s.init_method}


def check_all_reduce_sum_and_mean(ops, rank, world):
    mine = _inputs(rank)
    before = [t.clone() for t in mine]
    everyone = [_inputs(r) for r in range(world)]
    small = collectives.CollectiveOps(bucket_bytes=256)  # many buckets
    for reducer in (ops, small):
        summed = reducer.all_reduce(mine, "SUM")
        means = reducer.all_reduce(mine, tf.distribute.ReduceOp.MEAN)
        for i, (got, mean) in enumerate(zip(summed, means)):
            want = everyone[0][i].clone()
            for other in everyone[1:]:
                want = want + other[i]  # two workers: one rounding, as TF
            assert _equal(got, want), (i, got, want)
            if want.dtype.is_floating_point or want.dtype.is_complex:
                want_mean = want / world
            else:
                wide = torch.float32 if want.dtype in (torch.int8, torch.int16, torch.uint8) \
                    else torch.float64
                want_mean = want.to(wide) / world
            assert _equal(mean, want_mean), (i, mean, want_mean)
    assert all(_equal(a, b) for a, b in zip(mine, before)), "inputs were modified"
    summed[2].add_(1)  # results never alias the inputs
    assert _equal(mine[2], before[2])
    return {"tensors": len(mine)}


def check_buckets_one_collective_each(ops, rank, world):
    mine = [torch.ones(100) * rank, torch.ones(50, dtype=torch.float64), torch.ones(100),
            torch.ones(10, dtype=torch.int32)]
    custom = collectives.CollectiveOps(bucket_bytes=400)
    plan = collectives.plan_buckets(collectives._layout_of(mine), (400,))
    custom.all_reduce(mine)  # first sight: layout check
    with _Counter(["all_reduce", "all_gather", "all_gather_object"]) as c:
        out = custom.all_reduce(mine)
    assert c.counts == {"all_reduce": len(plan), "all_gather": 0, "all_gather_object": 0}, c.counts
    assert [b.slots for b in plan] == [(0,), (1,), (2,), (3,)]
    assert _equal(out[0], torch.full((100,), float(sum(range(world)))))
    return {"buckets": len(plan)}


def check_steady_state_has_no_host_sync(ops, rank, world):
    mine = [torch.randn(10, 10), torch.randn(3)]
    with host_syncs(count_cpu=True) as first:  # control: the first sight checks the layout
        ops.all_reduce(mine)
    assert [s.op for s in first] == ["Tensor.tolist"], first.report()
    with host_syncs(count_cpu=True) as log:
        ops.all_reduce(mine)
        ops.all_reduce(mine, "MEAN")
        pending = ops.all_reduce_async(mine)
        pending.wait()
    assert len(log) == 0, log.report()
    return {}


def check_async_handle(ops, rank, world):
    mine = [torch.full((1000,), float(rank + 1))]
    pending = ops.all_reduce_async(mine)
    out = pending.wait()
    assert pending.is_completed() and pending.wait() is out
    assert _equal(out[0], torch.full((1000,), float(sum(range(1, world + 1)))))
    return {}


def check_bool_cannot_be_summed(ops, rank, world):
    _expect_error(tf.errors.InvalidArgumentError,
                  lambda: ops.all_reduce([torch.ones(3, dtype=torch.bool)]), "bool", "tf.cast")
    return {}


def check_broadcast(ops, rank, world):
    mine = [t + rank for t in _inputs(rank)[:12] if not t.dtype.is_complex] + [
        torch.tensor([True, rank == 0]), torch.full((4,), rank, dtype=torch.uint16)]
    before = [t.clone() for t in mine]
    src = world - 1
    root = [t + src for t in _inputs(src)[:12] if not t.dtype.is_complex] + [
        torch.tensor([True, src == 0]), torch.full((4,), src, dtype=torch.uint16)]
    out = ops.broadcast(mine, src=src)
    assert all(_equal(a, b) for a, b in zip(out, root))
    assert all(_equal(a, b) for a, b in zip(mine, before)), "inputs were modified"
    _expect_error(ValueError, lambda: ops.broadcast(mine, src=world), "not a rank")
    return {}


def check_all_gather(ops, rank, world):
    same = torch.arange(6.0).reshape(2, 3) + 10 * rank
    got = ops.all_gather(same, axis=0)
    assert _equal(got, torch.cat([torch.arange(6.0).reshape(2, 3) + 10 * r for r in range(world)]))
    got = ops.all_gather(same, axis=-1)
    assert _equal(got, torch.cat([torch.arange(6.0).reshape(2, 3) + 10 * r
                                  for r in range(world)], dim=1))
    # TF pads to the longest and strips the padding: uneven sizes along `axis`
    uneven = torch.full((2, rank + 1, 3), rank, dtype=torch.int16)
    got = ops.all_gather(uneven, axis=1)
    assert _equal(got, torch.cat([torch.full((2, r + 1, 3), r, dtype=torch.int16)
                                  for r in range(world)], dim=1))
    empty_here = torch.ones(0 if rank == 0 else 2, 2)
    got = ops.all_gather(empty_here)
    assert got.shape == (2 * (world - 1), 2)
    _expect_error(tf.errors.InvalidArgumentError, lambda: ops.all_gather(torch.tensor(1.0)),
                  "rank >= 1")
    bad = torch.ones(2, 3 + rank)
    message = _expect_error(tf.errors.InvalidArgumentError, lambda: ops.all_gather(bad, axis=0),
                            "float32[2, 3]", "float32[2, 4]", f"this is rank {rank}")
    return {"message": message}


def check_mismatched_shapes_fail_on_both(ops, rank, world):
    shaped = [torch.ones(2), torch.ones(3 if rank == 0 else 5)]
    message = _expect_error(
        tf.errors.InvalidArgumentError, lambda: ops.all_reduce(shaped),
        "input #1", "rank 0 has float32[3] on cpu", "rank 1 has float32[5] on cpu")
    counted = [torch.ones(2)] * (2 + rank)
    _expect_error(tf.errors.InvalidArgumentError, lambda: ops.all_reduce(counted),
                  "rank 0 passed 2 tensors, rank 1 passed 3")
    typed = [torch.ones(2, dtype=torch.float32 if rank == 0 else torch.float64)]
    _expect_error(tf.errors.InvalidArgumentError, lambda: ops.broadcast(typed), "float64[2]")
    # the group is still usable: the check ran before any data moved
    assert _equal(ops.all_reduce([torch.ones(2)])[0], torch.full((2,), float(world)))
    return {"message": message}


# -- gradients ---------------------------------------------------------------------------

EVENTS = []


class _Layer(torch.autograd.Function):
    """y = tanh(x @ w), logging when its backward computes the weight's gradient."""

    @staticmethod
    def forward(ctx, x, w, name):
        ctx.name = name
        y = torch.tanh(x @ w)
        ctx.save_for_backward(x, w, y)
        return y

    @staticmethod
    def backward(ctx, gy):
        x, w, y = ctx.saved_tensors
        g = gy * (1 - y * y)
        EVENTS.append(("backward", ctx.name))
        return g @ w.t(), x.t() @ g, None


def _model(seed=0, widths=(8, 64, 64, 64, 4)):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(a, b, generator=g, dtype=torch.float64) / a ** 0.5
            for a, b in zip(widths[:-1], widths[1:])]


def _loss(weights, rank, unused=()):
    x = torch.randn(16, weights[0].shape[0], generator=torch.Generator().manual_seed(rank),
                    dtype=torch.float64)
    for i, w in enumerate(weights):
        if i not in unused:
            x = _Layer.apply(x, w, i)
    return (x * x).sum()


def _reads(weights):
    return [w.detach().requires_grad_() for w in weights]


def _per_worker_grads(rank, unused=(), widths=(8, 64, 64, 64, 4)):
    reads = _reads(_model(widths=widths))
    grads = torch.autograd.grad(_loss(reads, rank, unused), reads, allow_unused=True)
    return [torch.zeros_like(r) if g is None else g for r, g in zip(reads, grads)]


def _expected_sum(world, unused_on=lambda r: (), widths=(8, 64, 64, 64, 4)):
    per = [_per_worker_grads(r, unused_on(r), widths) for r in range(world)]
    return [sum(gs[1:], gs[0]) for gs in zip(*per)]


def check_reducer_overlaps_backward(ops, rank, world):
    weights = _model()
    # 64x64 float64 = 32 KiB: a 16 KiB first cap puts the last layer alone in bucket 0
    reducer = BucketedGradientReducer(_reads(weights), "SUM", ops,
                                      first_bucket_bytes=16 << 10, bucket_bytes=40 << 10)
    assert [b.slots for b in reducer.buckets] == [(3, 2), (1, 0)], reducer.buckets
    reads = _reads(weights)
    EVENTS.clear()
    step = reducer.watch(reads)
    with _Counter(["all_reduce"], log=EVENTS):
        grads = torch.autograd.grad(_loss(reads, rank), reads)
        launched_in_backward = step.launched
        EVENTS.append(("autograd.grad", "returned"))
        with _Counter(["all_reduce"]) as after:
            out = step.wait()
    first_launch = EVENTS.index(next(e for e in EVENTS if e[0] == "all_reduce"))
    assert first_launch < EVENTS.index(("backward", 1)), EVENTS
    assert EVENTS.index(("backward", 2)) < first_launch, EVENTS  # bucket 0 = layers 3, 2
    assert launched_in_backward == 2 and after.counts["all_reduce"] == 0
    want = _expected_sum(world)
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(out, want))
    # the hooks did not change what autograd.grad returned
    assert all(torch.equal(a, b) for a, b in zip(grads, _per_worker_grads(rank)))
    return {"events": [list(e) for e in EVENTS]}


def check_reducer_without_hooks(ops, rank, world):
    weights = _model()
    reducer = BucketedGradientReducer(_reads(weights), "MEAN", ops,
                                      first_bucket_bytes=16 << 10, bucket_bytes=40 << 10)
    grads = _per_worker_grads(rank)
    log = []
    with _Counter(["all_reduce"], log=log):
        out = reducer.reduce(grads)
    # launched in bucket (backward) order: layers 3+2, then 1+0
    assert [n for _, n in log] == [64 * 64 + 64 * 4, 8 * 64 + 64 * 64], log
    want = [g / world for g in _expected_sum(world)]
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(out, want))
    hooked = reducer.watch(reads := _reads(weights))
    torch.autograd.grad(_loss(reads, rank), reads)
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(hooked.wait(), out))
    return {}


def check_reducer_unused_reads(ops, rank, world):
    weights = _model(widths=(8, 8, 8, 8))
    reducer = BucketedGradientReducer(_reads(weights), "SUM", ops, first_bucket_bytes=1,
                                      bucket_bytes=1)  # one read per bucket
    # read 1 skipped everywhere; read 0 skipped on rank 1 only
    unused_on = (lambda r: (1,) if r == 0 else (0, 1))
    reads = _reads(weights)
    step = reducer.watch(reads)
    torch.autograd.grad(_loss(reads, rank, unused_on(rank)), reads, allow_unused=True)
    out = step.wait()
    want = _expected_sum(world, unused_on, widths=(8, 8, 8, 8))
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(out, want))
    assert torch.count_nonzero(out[1]) == 0
    assert step.locally_unused == tuple(sorted(unused_on(rank))), step.locally_unused
    # the hook-free path agrees, None standing for an unused read
    grads = list(torch.autograd.grad(_loss(r2 := _reads(weights), rank, unused_on(rank)), r2,
                                     allow_unused=True))
    again = reducer.reduce_async(grads)
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(again.wait(), want))
    assert again.locally_unused == step.locally_unused
    return {}


def check_reducer_sums_repeated_backward(ops, rank, world):
    weights = _model()
    reducer = BucketedGradientReducer(_reads(weights), "SUM", ops, first_bucket_bytes=16 << 10)
    reads = _reads(weights)
    step = reducer.watch(reads)
    loss = _loss(reads, rank)
    torch.autograd.grad(loss, reads, retain_graph=True)  # e.g. two tape.gradient calls
    torch.autograd.grad(2 * loss, reads)
    out = step.wait()
    want = [3 * g for g in _expected_sum(world)]
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(out, want))
    return {}


def check_reducer_leaves_nothing_behind(ops, rank, world):
    weights = _model()
    reducer = BucketedGradientReducer(_reads(weights), "SUM", ops)
    reads = _reads(weights)
    step = reducer.watch(reads)
    assert all(len(r._backward_hooks) == 1 for r in reads)
    torch.autograd.grad(_loss(reads, rank), reads)
    out = step.wait()
    assert all(not r._backward_hooks for r in reads), "hooks left on the reads"
    assert step.wait() is out
    # a later backward through the same reads changes nothing
    torch.autograd.grad(_loss(reads, rank), reads)
    assert all(torch.allclose(a, b, rtol=1e-12, atol=1e-12)
               for a, b in zip(out, _expected_sum(world)))
    ref = weakref.ref(step)
    del step, out
    gc.collect()
    assert ref() is None, gc.get_referrers(ref())
    # wait() with no backward at all: zeros, and the same collectives on every rank
    idle = reducer.watch(_reads(weights)).wait()
    assert all(torch.count_nonzero(t) == 0 for t in idle)
    return {}


def check_reducer_steady_state_has_no_host_sync(ops, rank, world):
    weights = _model()
    fresh = collectives.CollectiveOps()  # no layouts seen yet
    with host_syncs(count_cpu=True) as first:  # control: construction checks the layout
        reducer = BucketedGradientReducer(_reads(weights), "MEAN", fresh,
                                          first_bucket_bytes=16 << 10)
    assert len(first) == 1, first.report()
    for _ in range(2):
        reads = _reads(weights)
        loss = _loss(reads, rank)
        with host_syncs(count_cpu=True) as log:
            step = reducer.watch(reads)
            torch.autograd.grad(loss, reads)
            step.wait()
            reducer.reduce([torch.ones_like(r) for r in reads])
        assert len(log) == 0, log.report()
    return {}


def check_reducer_layout_mismatch(ops, rank, world):
    reads = [torch.ones(4, requires_grad=True), torch.ones(2 + rank, requires_grad=True)]
    message = _expect_error(tf.errors.InvalidArgumentError,
                            lambda: BucketedGradientReducer(reads, "SUM", ops),
                            "float32[2] on cpu", "float32[3] on cpu")
    good = BucketedGradientReducer(reads[:1], "SUM", ops)
    _expect_error(tf.errors.InvalidArgumentError, lambda: good.watch([torch.ones(5)]),
                  "tensor #0", "float32[5]", "float32[4]")
    return {"message": message}


def check_barrier(ops, rank, world):
    time.sleep(0.2 * rank)
    ops.barrier()
    return {}


MAIN = [check_settings, check_all_reduce_sum_and_mean, check_buckets_one_collective_each,
        check_steady_state_has_no_host_sync, check_async_handle, check_bool_cannot_be_summed,
        check_broadcast, check_all_gather, check_mismatched_shapes_fail_on_both,
        check_reducer_overlaps_backward, check_reducer_without_hooks, check_reducer_unused_reads,
        check_reducer_sums_repeated_backward, check_reducer_leaves_nothing_behind,
        check_reducer_steady_state_has_no_host_sync, check_reducer_layout_mismatch, check_barrier]


# -- failures ------------------------------------------------------------------------------

def _timed_failure(fn):
    start = time.monotonic()
    try:
        fn()
    except tf.errors.OpError as e:
        return {"class": type(e).__name__, "message": str(e), "seconds": time.monotonic() - start}
    raise AssertionError("no error")


def check_peer_dies_during_backward(ops, rank, world):
    reducer = BucketedGradientReducer(_reads(_model()), "SUM", ops)
    ops.barrier()
    if rank == 1:
        os._exit(3)
    reads = _reads(_model())

    def step():
        s = reducer.watch(reads)
        torch.autograd.grad(_loss(reads, rank), reads)
        s.wait()
    return _timed_failure(step)


def check_peer_hangs(ops, rank, world):
    ops.all_reduce([torch.ones(10)])  # the layout is known: the next call sends data at once
    ops.barrier()
    if rank == 1:  # alive, connected, silent; gone soon after rank 0 gives up
        time.sleep(float(os.environ["TFCOMPAT_COLLECTIVE_TIMEOUT"]) + 0.5)
        os._exit(0)
    return _timed_failure(lambda: ops.all_reduce([torch.ones(10)]))


SCENARIOS = {
    "main": MAIN,
    "peer_dies_during_backward": [check_peer_dies_during_backward],
    "peer_hangs": [check_peer_hangs],
}


def main(argv):
    scenario, rank, world, port, out_path = argv[0], int(argv[1]), int(argv[2]), int(argv[3]), argv[4]
    results = {}

    def save():
        with open(out_path + ".tmp", "w") as f:
            json.dump(results, f)
        os.replace(out_path + ".tmp", out_path)

    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": [f"127.0.0.1:{port}"] + [f"127.0.0.1:{port + 1 + i}"
                                                        for i in range(world - 1)]},
        "task": {"type": "worker", "index": rank}})
    start = time.monotonic()
    try:
        ops = collectives.init_process_group()
    except Exception as e:
        results["init"] = {"ok": False, "class": type(e).__name__, "error": str(e),
                           "seconds": time.monotonic() - start}
        save()
        return 0
    results["init"] = {"ok": True, "seconds": time.monotonic() - start}
    save()
    for check in SCENARIOS[scenario]:
        try:
            value = check(ops, rank, world)
            results[check.__name__] = {"ok": True, "value": value}
        except Exception:
            results[check.__name__] = {"ok": False, "error": traceback.format_exc()}
        save()
    if scenario == "main":
        collectives.shutdown_process_group()
    else:
        os._exit(0)  # the group is broken: skip torch's teardown
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
