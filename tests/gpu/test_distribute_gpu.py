"""tf.distribute on CUDA devices (skipped without them; see tests/gpu/test_cuda.py).

One GPU: MirroredStrategy's default device, variables and steps on it, no host sync in
a replica's step. Two GPUs: one replica per GPU, training equal to one device on the global
batch, reductions across the cards; MultiWorkerMirroredStrategy over NCCL with two torchrun
workers, one GPU each.
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf

GPUS = len(tf.config.list_physical_devices("GPU")) if torch.cuda.is_available() else 0
pytestmark = pytest.mark.skipif(
    GPUS == 0, reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")
two_gpus = pytest.mark.skipif(GPUS < 2, reason="needs two visible CUDA devices")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _train(strategy, replicas, steps=3):
    rs = np.random.RandomState(0)
    w0 = rs.randn(6, 3).astype(np.float32)
    x = rs.randn(8, 6).astype(np.float32)
    with strategy.scope():
        w = tf.Variable(w0)
        opt = tf.keras.optimizers.Adam(0.01)

    def step(xb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(xb, w))) / 8.0
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    if replicas > 1:
        parts = strategy.experimental_distribute_values_from_function(
            lambda ctx: torch.tensor(np.split(x, replicas)[ctx.replica_id_in_sync_group]))
    else:
        parts = torch.tensor(x)
    for _ in range(steps):
        strategy.run(step, args=(parts,))
    return w


def test_mirrored_strategy_defaults_to_the_gpus():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == GPUS
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    assert all(c.handle.device.type == "cuda" for c in v.values)


@two_gpus
def test_one_replica_per_gpu_trains_as_one_device():
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    w = _train(strategy, 2)
    assert [c.handle.device for c in w.values] == [torch.device("cuda", 0), torch.device("cuda", 1)]
    single = _train(tf.distribute.OneDeviceStrategy("/gpu:0"), 1)
    for c in w.values:
        np.testing.assert_allclose(c.numpy(), single.numpy(), rtol=1e-5, atol=1e-6)


@two_gpus
def test_all_reduce_across_two_gpus():
    strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])

    def fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.ones([3]) * (int(i) + 1))

    out = strategy.run(fn)
    assert [t.device for t in out.values] == [torch.device("cuda", 0), torch.device("cuda", 1)]
    assert all(t.tolist() == [3.0, 3.0, 3.0] for t in out.values)


@two_gpus
def test_multi_worker_over_nccl(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFCOMPAT_EXAMPLE_OUT=str(tmp_path / "out"))
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
                           f"--master_port={port}", "--master_addr=127.0.0.1",
                           str(ROOT / "examples" / "multi_worker_training.py")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    a, b = [json.loads((tmp_path / f"out.{i}.json").read_text()) for i in range(2)]
    assert a["kernel"] == b["kernel"] and a["steps"] == 20
