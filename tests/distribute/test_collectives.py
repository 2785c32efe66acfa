"""Cross-worker collectives and the bucketed gradient reducer, over real gloo processes.

Two worker processes (`collective_worker.py`) join a gloo group on loopback
through `TF_CONFIG` -> `process_group_settings` -> `init_process_group`.
The happy-path checks share one session (one process start-up per worker,
the dominant cost); each failure scenario gets its own, since it breaks the
group. Every session runs under a hard deadline: the workers are killed and
the test fails with their output instead of hanging.

Bucket planning, the layout digest, timeouts and single-process groups are
tested in this process.
"""

import ast
import datetime
import json
import os
import socket
import subprocess
import sys
import time

import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.distribute import collectives
from tfcompat.distribute.cluster_resolver import ProcessGroupSettings

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "collective_worker.py")
ROOT = os.path.dirname(os.path.dirname(HERE))
SESSION_DEADLINE_S = 60  # generous on a loaded 2-core machine; a session takes a few seconds


def _free_port() -> int:
    # The kernel picks a free port; a tiny window remains before rank 0 binds it.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_session(scenario, tmp_path, world=2, env=None, ranks=None):
    """Run `scenario` on `world` workers (only `ranks`, if given); return rank -> results."""
    port = _free_port()
    ranks = list(range(world)) if ranks is None else ranks
    child_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                     OMP_NUM_THREADS="1", **(env or {}))
    child_env.pop("TF_CONFIG", None)
    procs = {}
    for rank in ranks:
        out = tmp_path / f"{scenario}-{rank}.json"
        log = open(tmp_path / f"{scenario}-{rank}.log", "w")
        procs[rank] = (subprocess.Popen(
            [sys.executable, WORKER, scenario, str(rank), str(world), str(port), str(out)],
            env=child_env, stdout=log, stderr=subprocess.STDOUT), out, log)
    deadline = time.monotonic() + SESSION_DEADLINE_S
    hung = []
    for rank, (proc, _, log) in procs.items():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            hung.append(rank)
    for rank, (proc, _, log) in procs.items():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    results = {}
    for rank, (proc, out, _) in procs.items():
        results[rank] = json.loads(out.read_text()) if out.exists() else {}
    if hung:
        logs = {r: (tmp_path / f"{scenario}-{r}.log").read_text()[-3000:] for r in ranks}
        pytest.fail(f"workers {hung} of {scenario!r} still ran after {SESSION_DEADLINE_S} s; "
                    f"results so far: {results}; logs: {logs}")
    return results


@pytest.fixture(scope="module")
def main_session(tmp_path_factory):
    start = time.monotonic()
    results = _run_session("main", tmp_path_factory.mktemp("collectives"))
    results["seconds"] = time.monotonic() - start
    return results


def _check(session, name):
    for rank in (0, 1):
        assert session[rank].get("init", {}).get("ok"), session[rank].get("init")
        result = session[rank].get(name)
        assert result is not None, f"rank {rank} never reached {name}: {session[rank]}"
        assert result["ok"], f"rank {rank}:\n{result['error']}"
    return [session[r][name]["value"] for r in (0, 1)]


MAIN_CHECKS = [
    "check_settings", "check_all_reduce_sum_and_mean", "check_buckets_one_collective_each",
    "check_steady_state_has_no_host_sync", "check_async_handle", "check_bool_cannot_be_summed",
    "check_broadcast", "check_all_gather", "check_mismatched_shapes_fail_on_both",
    "check_reducer_overlaps_backward", "check_reducer_without_hooks",
    "check_reducer_unused_reads", "check_reducer_sums_repeated_backward",
    "check_reducer_leaves_nothing_behind", "check_reducer_steady_state_has_no_host_sync",
    "check_reducer_layout_mismatch", "check_barrier",
]


@pytest.mark.parametrize("name", MAIN_CHECKS)
def test_two_workers(main_session, name):
    _check(main_session, name)


def test_main_checks_are_all_listed():
    # read from the worker's source: importing it here would set up nothing, but costs time
    tree = ast.parse(open(WORKER).read())
    main = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                and getattr(node.targets[0], "id", None) == "MAIN")
    assert [elt.id for elt in main.elts] == MAIN_CHECKS


def test_gloo_group_from_tf_config(main_session):
    values = _check(main_session, "check_settings")
    assert values[0]["backend"] == "gloo" and values[0]["init_method"].startswith("tcp://127.0.0.1:")


def test_mismatch_errors_name_both_sides(main_session):
    for message in [v["message"] for v in _check(main_session, "check_mismatched_shapes_fail_on_both")]:
        assert "rank 0 has float32[3] on cpu, rank 1 has float32[5] on cpu" in message


def test_bucket_launch_precedes_first_layer_backward(main_session):
    events = _check(main_session, "check_reducer_overlaps_backward")[0]["events"]
    kinds = [tuple(e) for e in events]
    assert kinds.index(("backward", 3)) < kinds.index(("all_reduce", 64 * 64 + 64 * 4))
    assert kinds.index(("all_reduce", 64 * 64 + 64 * 4)) < kinds.index(("backward", 1))
    assert kinds.index(("all_reduce", 8 * 64 + 64 * 64)) < kinds.index(("autograd.grad", "returned"))


# -- failures ------------------------------------------------------------------------

FAST = {"TFCOMPAT_COLLECTIVE_TIMEOUT": "3"}


def test_a_dead_worker_makes_the_other_fail_fast(tmp_path):
    # rank 1 dies while rank 0's backward is sending gradient buckets
    results = _run_session("peer_dies_during_backward", tmp_path, env=FAST)
    check = "check_peer_dies_during_backward"
    result = results[0][check]
    assert result["ok"], result.get("error")
    failure = result["value"]
    assert failure["class"] in ("UnavailableError", "DeadlineExceededError"), failure
    assert "gradient all_reduce bucket" in failure["message"]
    assert "rank 0 of 2" in failure["message"] and "log" in failure["message"]
    assert failure["seconds"] < 3 + 2, failure
    assert check not in results[1]  # rank 1 really died


def test_a_silent_worker_hits_the_deadline(tmp_path):
    # rank 1 stays connected but never joins: rank 0's wait() hits the deadline
    results = _run_session("peer_hangs", tmp_path, env=FAST)
    failure = results[0]["check_peer_hangs"]
    assert failure["ok"], failure.get("error")
    failure = failure["value"]
    assert failure["class"] == "DeadlineExceededError", failure
    assert "all_reduce bucket 0" in failure["message"] and "within 3 s" in failure["message"]
    assert "TFCOMPAT_COLLECTIVE_TIMEOUT" in failure["message"]
    assert 2.5 < failure["seconds"] < 3 + 2, failure


def test_a_missing_chief_fails_the_rendezvous_in_time(tmp_path):
    results = _run_session("main", tmp_path, env={"TFCOMPAT_COLLECTIVE_TIMEOUT": "1"}, ranks=[1])
    init = results[1]["init"]
    assert not init["ok"]
    assert init["class"] in ("DeadlineExceededError", "UnavailableError"), init
    assert "init_process_group" in init["error"] and "chief (rank 0) is running" in init["error"]
    assert "sequence of collectives" not in init["error"]
    # torch's store client retries its connection once: about twice the timeout
    assert init["seconds"] < 2.5 * 1 + 2, init


# -- in this process -----------------------------------------------------------------

_DTYPES = [torch.float32, torch.float16, torch.float64, torch.int64]
DIGEST = -5856646733558697402  # blake2b-64 of the description, recorded once


@st.composite
def layouts(draw):
    n = draw(st.integers(0, 12))
    out = []
    for _ in range(n):
        dtype = draw(st.sampled_from(_DTYPES))
        shape = torch.Size(draw(st.lists(st.integers(0, 9), max_size=3)))
        out.append((dtype, torch.device("cpu"), shape))
    return out


@given(layouts(), st.lists(st.integers(1, 400), min_size=1, max_size=3), st.booleans())
def test_bucket_plan_laws(layout, caps, reverse):
    plan = collectives.plan_buckets(layout, caps, reverse)
    slots = [s for b in plan for s in b.slots]
    assert sorted(slots) == list(range(len(layout)))  # a partition of the tensors
    walk = list(range(len(layout)))[::-1] if reverse else list(range(len(layout)))
    position = {slot: i for i, slot in enumerate(walk)}
    assert [b.index for b in plan] == list(range(len(plan)))
    assert [position[b.slots[0]] for b in plan] == sorted(position[b.slots[0]] for b in plan)
    per_key = {}
    for b in plan:
        assert [position[s] for s in b.slots] == sorted(position[s] for s in b.slots)
        assert all(layout[s][0] == b.dtype for s in b.slots)
        assert b.offsets == tuple(sum(b.numels[:i]) for i in range(len(b.numels)))
        assert b.numel == sum(b.numels)
        k = per_key.setdefault(b.dtype, 0)
        cap = caps[min(k, len(caps) - 1)]
        # a bucket closes as soon as it reaches its cap: without its last tensor it was under
        last = b.slots[-1]
        assert b.nbytes - layout[last][2].numel() * b.dtype.itemsize < cap
        per_key[b.dtype] = k + 1


def test_ddp_default_caps_give_a_small_first_bucket():
    mib = 1 << 20
    layout = [(torch.float32, torch.device("cpu"), torch.Size([mib // 16]))] * 120  # 256 KiB each
    plan = collectives.plan_buckets(layout, (collectives.DEFAULT_FIRST_BUCKET_BYTES,
                                             collectives.DEFAULT_BUCKET_BYTES), reverse=True)
    assert [b.nbytes for b in plan] == [mib, 25 * mib, 4 * mib]  # 30 MiB in all
    assert plan[0].slots == (119, 118, 117, 116)


def test_buckets_separate_dtypes_and_keep_order():
    cpu = torch.device("cpu")
    layout = [(torch.float32, cpu, torch.Size([10])), (torch.float16, cpu, torch.Size([10])),
              (torch.float32, cpu, torch.Size([10]))]
    plan = collectives.plan_buckets(layout, (1 << 20,))
    assert [(b.dtype, b.slots) for b in plan] == [(torch.float32, (0, 2)), (torch.float16, (1,))]
    with pytest.raises(ValueError, match="positive"):
        collectives.plan_buckets(layout, (0,))


def test_layout_digest_is_the_same_in_every_process():
    # A constant, not hash(): Python salts str hashes per process (PYTHONHASHSEED).
    assert collectives._digest(("all_reduce", ["float32[3] on cpu"])) == DIGEST


def test_timeout_setting(monkeypatch):
    monkeypatch.delenv(collectives.TIMEOUT_ENV, raising=False)
    assert collectives.collective_timeout() == datetime.timedelta(seconds=60)
    monkeypatch.setenv(collectives.TIMEOUT_ENV, "2.5")
    assert collectives.collective_timeout() == datetime.timedelta(seconds=2.5)
    assert collectives.collective_timeout(7) == datetime.timedelta(seconds=7)
    monkeypatch.setenv(collectives.TIMEOUT_ENV, "soon")
    with pytest.raises(ValueError, match="TFCOMPAT_COLLECTIVE_TIMEOUT='soon'"):
        collectives.collective_timeout()
    with pytest.raises(ValueError, match="positive"):
        collectives.collective_timeout(0)


def test_no_group_is_a_failed_precondition():
    if torch.distributed.is_initialized():
        pytest.skip("a process group exists in this process")
    with pytest.raises(tf.errors.FailedPreconditionError, match="init_process_group"):
        collectives.default_collectives()


def test_single_process_group_needs_no_network():
    if torch.distributed.is_initialized():
        pytest.skip("a process group exists in this process")
    settings = ProcessGroupSettings(0, 1, 0, 1, None, None, None, None, None, True, "local")
    ops = collectives.init_process_group(settings, timeout=5)
    try:
        assert collectives.init_process_group(dict(settings)) is ops
        x = [torch.arange(4.0), torch.tensor([1, 2], dtype=torch.int32)]
        total, mean = ops.all_reduce(x), ops.all_reduce(x, "MEAN")
        assert torch.equal(total[0], x[0]) and total[0].data_ptr() != x[0].data_ptr()
        assert mean[1].dtype == torch.float64  # TF's true division of int32
        assert torch.equal(ops.broadcast(x)[1], x[1])
        assert torch.equal(ops.all_gather(x[0]), x[0])
        ops.barrier()
        from tfcompat.distribute.collectives import BucketedGradientReducer
        w = torch.ones(3, requires_grad=True)
        reducer = BucketedGradientReducer([w], "MEAN", ops)
        step = reducer.watch([w])
        torch.autograd.grad((w * w).sum(), [w])
        assert torch.equal(step.wait()[0], torch.full((3,), 2.0))
    finally:
        collectives.shutdown_process_group()
    assert not torch.distributed.is_initialized()
