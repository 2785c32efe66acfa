"""MultiWorkerMirroredStrategy across real processes: 2 gloo workers on loopback.

Every test starts its workers as subprocesses (torchrun, or TF_CONFIG per
worker), on free ports, with bounded timeouts.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "multi_worker_training.py"
TIMEOUT = 180


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _env(**extra):
    env = dict(os.environ)
    for key in ("TF_CONFIG", "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    env.update({"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "TFCOMPAT_COLLECTIVE_TIMEOUT": "30"})
    env.update(extra)
    return env


def _torchrun(script, tmp_path, nproc=2, args=()):
    port = _free_ports(1)[0]
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={nproc}",
           "--nnodes=1", f"--master_port={port}", "--master_addr=127.0.0.1", str(script), *args]
    return subprocess.run(cmd, env=_env(TFCOMPAT_EXAMPLE_OUT=str(tmp_path / "out")),
                          capture_output=True, text=True, timeout=TIMEOUT)


def _results(tmp_path, n):
    return [json.loads((tmp_path / f"out.{i}.json").read_text()) for i in range(n)]


def _reference(initial_kernel, workers=2, steps=20, lr=0.05, momentum=0.9):
    """The example's training on one device over the global batch (TF's SGD formula), float64."""
    rng = np.random.RandomState(0)
    features = rng.randn(steps * 64, 10).astype(np.float32)
    targets = (features @ rng.randn(10, 1).astype(np.float32) + 0.5).astype(np.float32)
    batch = 32 * workers
    w = np.array(initial_kernel, np.float64).reshape(10, 1)
    b = np.zeros(1)
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    for i in range(0, steps * batch, batch):
        x, y = features[i:i + batch].astype(np.float64), targets[i:i + batch].astype(np.float64)
        r = x @ w + b - y
        gw, gb = 2 * x.T @ r / batch, 2 * r.sum(0) / batch
        mw, mb = mw * momentum + gw, mb * momentum + gb
        w, b = w - lr * mw, b - lr * mb
    return w.ravel(), b


def test_torchrun_workers_train_as_one_device_on_the_global_batch(tmp_path):
    done = _torchrun(EXAMPLE, tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    first, second = _results(tmp_path, 2)
    assert first["workers"] == 2 and first["steps"] == 20
    assert first["kernel"] == second["kernel"] and first["bias"] == second["bias"]  # in sync
    assert first["initial_kernel"] == second["initial_kernel"]  # broadcast from the chief
    w, b = _reference(first["initial_kernel"])
    np.testing.assert_allclose(first["kernel"], w, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(first["bias"], b, rtol=2e-4, atol=2e-5)
    assert first["task"] == ["worker", 0] and second["task"] == ["worker", 1]


def test_tf_config_start_up_gives_the_same_training(tmp_path):
    ports = _free_ports(2)
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    for i in range(2):
        tf_config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})
        procs.append(subprocess.Popen(
            [sys.executable, str(EXAMPLE)], env=_env(TF_CONFIG=tf_config,
                                                     TFCOMPAT_EXAMPLE_OUT=str(tmp_path / "out")),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=TIMEOUT) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-4000:]
    first, second = _results(tmp_path, 2)
    assert first["task"] == ["worker", 0] and second["task"] == ["worker", 1]
    assert first["kernel"] == second["kernel"]
    w, _ = _reference(first["initial_kernel"])
    np.testing.assert_allclose(first["kernel"], w, rtol=2e-4, atol=2e-5)


WORKER = textwrap.dedent("""
    import json, os, sys, time
    import numpy as np, torch
    import tfcompat as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    ext = strategy.extended
    out = {}
    # reduce and all_reduce across workers
    out["reduce"] = float(strategy.reduce("SUM", torch.tensor(float(rank + 1)), axis=None))
    out["mean"] = float(strategy.reduce("MEAN", torch.tensor(float(rank + 1)), axis=None))
    out["all_reduce"] = strategy.run(
        lambda: tf.distribute.get_replica_context().all_reduce("SUM", torch.ones(3) * rank)).tolist()
    out["gather"] = strategy.gather(torch.tensor([float(rank)] * (rank + 1)), axis=0).tolist()
    with strategy.scope():
        v = tf.Variable(torch.full((2,), float(rank)))   # chief's value wins
        opt = tf.keras.optimizers.SGD(1.0)
    out["initial"] = v.numpy().tolist()
    # DDP's overlap: tape.gradient starts the sums; apply_gradients takes them
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * float(rank + 1))
        grads = tape.gradient(loss, [v])
        out["pending_after_gradient"] = len(ext._pending)
        opt.apply_gradients(zip(grads, [v]))
        out["pending_after_apply"] = len(ext._pending)
    strategy.run(step)
    out["after_step"] = v.numpy().tolist()          # 0 - (1 + 2)
    if os.environ.get("DIE") and rank == 1:
        os._exit(3)
    if os.environ.get("DIE"):
        t0 = time.time()
        try:
            strategy.reduce("SUM", torch.tensor(1.0), axis=None)
            out["died"] = "no error"
        except Exception as e:
            out["died"] = [type(e).__name__, str(e)[:300], time.time() - t0]
    with open(os.environ["OUT"] + f".{rank}.json", "w") as f:
        json.dump(out, f)
""")


def test_reductions_variables_and_overlapped_gradients_across_workers(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    port = _free_ports(1)[0]
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--nnodes=1",
           f"--master_port={port}", "--master_addr=127.0.0.1", str(script)]
    done = subprocess.run(cmd, env=_env(OUT=str(tmp_path / "r")), capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-4000:]
    a, b = [json.loads((tmp_path / f"r.{i}.json").read_text()) for i in range(2)]
    for r in (a, b):
        assert r["reduce"] == 3.0 and r["mean"] == 1.5
        assert r["all_reduce"] == [1.0, 1.0, 1.0]
        assert r["gather"] == [0.0, 1.0, 1.0]
        assert r["initial"] == [0.0, 0.0]
        assert r["pending_after_gradient"] == 1 and r["pending_after_apply"] == 0
        assert r["after_step"] == [-3.0, -3.0]


def test_a_worker_that_dies_makes_the_others_fail_with_a_clear_error(tmp_path):
    # Started from TF_CONFIG (no torchrun agent to stop the survivor): the survivor itself
    # must notice and raise TF's error within the collective timeout.
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    ports = _free_ports(2)
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    procs = []
    t0 = time.time()
    for i in range(2):
        tf_config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})
        procs.append(subprocess.Popen(
            [sys.executable, str(script)],
            env=_env(TF_CONFIG=tf_config, OUT=str(tmp_path / "r"), DIE="1",
                     TFCOMPAT_COLLECTIVE_TIMEOUT="10"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=TIMEOUT) for p in procs]
    assert procs[1].returncode == 3
    assert procs[0].returncode == 0, outs[0][1][-3000:]
    died = json.loads((tmp_path / "r.0.json").read_text())["died"]
    assert died[0] in ("UnavailableError", "DeadlineExceededError"), died
    assert died[2] < 30 and time.time() - t0 < 120
