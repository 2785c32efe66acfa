"""tf.distribute benchmarks: multi-worker steps against DDP, and the in-process strategy costs.

    python benchmarks/distribute.py [--threads 1] [--quick]

1. `MultiWorkerMirroredStrategy` on 2 gloo workers (this script starts them
   with torchrun) against `torch.nn.parallel.DistributedDataParallel` on the
   same model, data and process group layout: a 784-1024-1024-10 MLP, batch
   256 per worker, SGD. Each worker times a tfcompat step (`strategy.run`:
   forward under a tape, `tape.gradient`, `apply_gradients`, gradients
   all-reduced in buckets while backward runs) and a DDP step (forward,
   `backward()`, `opt.step()`) in alternation. Target: within 1.10x of DDP.
2. In one process: `MirroredStrategy` over 2 logical CPUs against one
   device on the same global batch (the strategy's overhead: threads,
   merge calls, per-replica reductions); one `merge_call` round trip, its
   time and the Python memory it allocates; `apply_gradients` over 100
   variables under the strategy and without it.

No timing is asserted anywhere; `--quick` shrinks everything (the test
suite runs it).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import List, Optional

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._cli import parse  # noqa: E402
from benchmarks._timing import interleaved_ms, interleaved_us  # noqa: E402


def _sizes(quick: bool) -> tuple:
    return ((784, 64, 10), 16) if quick else ((784, 1024, 1024, 10), 256)


def _init(layers: tuple, seed: int = 0) -> list:
    rs = np.random.RandomState(seed)
    params = []
    for fan_in, fan_out in zip(layers[:-1], layers[1:]):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        params += [rs.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32),
                   np.zeros(fan_out, np.float32)]
    return params


def _data(batch: int, features: int, seed: int) -> tuple:
    rs = np.random.RandomState(seed)
    return (torch.tensor(rs.randn(batch, features).astype(np.float32)),
            torch.tensor(rs.randint(0, 10, size=batch)))


def _tf_forward(tf, params, x):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = tf.nn.relu(tf.matmul(h, params[i]) + params[i + 1])
    return tf.matmul(h, params[-2]) + params[-1]


class _TorchMLP(torch.nn.Module):
    def __init__(self, init: list) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList()
        for i in range(0, len(init), 2):
            lin = torch.nn.Linear(*init[i].shape)
            with torch.no_grad():
                lin.weight.copy_(torch.tensor(init[i].T))
                lin.bias.copy_(torch.tensor(init[i + 1]))
            self.layers.append(lin)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for lin in self.layers[:-1]:
            x = torch.relu(lin(x))
        return self.layers[-1](x)


# -- 1. multi-worker, run inside each torchrun worker --------------------------------------------

def worker_main(args) -> None:
    import torch.distributed as dist
    import tfcompat as tf

    layers, batch = _sizes(args.quick)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank, world = strategy.cluster_resolver.task_id, strategy.num_replicas_in_sync
    init = _init(layers)
    device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() \
        else torch.device("cpu")  # the NCCL path where there are GPUs
    x, y = (t.to(device) for t in _data(batch, layers[0], seed=100 + rank))
    global_batch = batch * world

    with strategy.scope():
        params = [tf.Variable(a) for a in init]
        opt = tf.keras.optimizers.SGD(0.01)

    def tf_step():
        def replica_step():
            with tf.GradientTape() as tape:
                logits = _tf_forward(tf, params, x)
                loss = tf.nn.compute_average_loss(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
                    global_batch_size=global_batch)
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
        strategy.run(replica_step)

    model = torch.nn.parallel.DistributedDataParallel(_TorchMLP(init).to(device))
    torch_opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    ce = torch.nn.CrossEntropyLoss(reduction="sum")

    # DDP divides the summed gradients by the world size; scale its loss back so both compute
    # the gradient of the mean over the global batch.
    def ddp_step_scaled():
        torch_opt.zero_grad(set_to_none=True)
        loss = ce(model(x), y) * (world / global_batch)
        loss.backward()
        torch_opt.step()

    ms = interleaved_ms({"tfcompat": tf_step, "ddp": ddp_step_scaled}, repeat=args.repeat, warmup=3)
    for p, q in zip(params, model.parameters()):  # the same training on both sides
        ref = (q.detach().T if q.dim() == 2 else q.detach()).cpu()
        np.testing.assert_allclose(p.numpy(), ref.numpy(), rtol=1e-3, atol=1e-4)
    if rank == 0:
        print(json.dumps({"workers": world, "layers": list(layers), "batch_per_worker": batch,
                          "tfcompat_ms": ms["tfcompat"], "ddp_ms": ms["ddp"]}))
    dist.barrier()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def multi_worker(args) -> Optional[dict]:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--nnodes=1",
           "--master_addr=127.0.0.1", f"--master_port={_free_port()}", __file__, "--worker",
           "--repeat", str(args.repeat)] + (["--quick"] if args.quick else [])
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads or 1), PYTHONPATH=str(ROOT))
    for key in ("TF_CONFIG", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"the multi-worker benchmark failed:\n{done.stderr[-4000:]}")
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line)


# -- 2. in one process ---------------------------------------------------------------------------

def in_process(args) -> dict:
    import tfcompat as tf
    from tfcompat.framework import device as device_lib

    device_lib._reset_runtime()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    layers, batch = ((784, 64, 10), 16) if args.quick else ((784, 512, 512, 10), 256)
    init = _init(layers)
    x, y = _data(batch, layers[0], seed=5)
    mirrored = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    halves = (tf.distribute.PerReplica((x[: batch // 2], x[batch // 2:])),
              tf.distribute.PerReplica((y[: batch // 2], y[batch // 2:])))

    def build(strategy):
        with strategy.scope():
            params = [tf.Variable(a) for a in init]
            opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)

        def replica_step(xb, yb):
            with tf.GradientTape() as tape:
                logits = _tf_forward(tf, params, xb)
                loss = tf.nn.compute_average_loss(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits),
                    global_batch_size=batch)
            opt.apply_gradients(zip(tape.gradient(loss, params), params))
        return replica_step

    m_step, o_step = build(mirrored), build(one)
    step_ms = interleaved_ms({"mirrored": lambda: mirrored.run(m_step, args=halves),
                              "one_device": lambda: one.run(o_step, args=(x, y))},
                             repeat=args.repeat, warmup=3)

    def merge_round():
        mirrored.run(lambda: tf.distribute.get_replica_context().merge_call(lambda s: None))

    per_call = interleaved_us({"run + merge_call": merge_round,
                               "run": lambda: mirrored.run(lambda: None)}, repeat=7)
    tracemalloc.start()
    merge_round()
    snap0 = tracemalloc.take_snapshot()
    merge_round()
    snap1 = tracemalloc.take_snapshot()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    retained = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))

    n = 10 if args.quick else 100
    rs = np.random.RandomState(1)
    shapes = [(100,)] * n
    with mirrored.scope():
        mv = [tf.Variable(rs.randn(*s).astype(np.float32)) for s in shapes]
        mopt = tf.keras.optimizers.Adam(1e-3)
    pv = [tf.Variable(rs.randn(*s).astype(np.float32)) for s in shapes]
    popt = tf.keras.optimizers.Adam(1e-3)
    # one list per replica (the same tensor on both would be one value, which SUM refuses)
    grads = [[torch.tensor(rs.randn(*s).astype(np.float32)) for s in shapes] for _ in range(2)]

    def mirrored_apply():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group
        mopt.apply_gradients(zip(grads[i], mv))

    apply_ms = interleaved_ms({
        "mirrored": lambda: mirrored.run(mirrored_apply),
        "plain": lambda: popt.apply_gradients(zip(grads[0], pv))}, repeat=args.repeat, warmup=3)
    tracemalloc.start()
    mirrored.run(mirrored_apply)
    _, apply_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"layers": list(layers), "global_batch": batch, "step_ms": step_ms,
            "apply_peak_bytes": apply_peak,
            "merge_us": per_call, "merge_peak_bytes": peak, "merge_retained_bytes": retained,
            "apply_vars": n, "apply_ms": apply_ms}


def main(argv: Optional[List[str]] = None) -> None:
    def extra(parser):
        parser.add_argument("--worker", action="store_true", help=argparse_hidden())
        parser.add_argument("--skip-workers", action="store_true",
                            help="only the in-process figures")
    args = parse(__doc__.splitlines()[0], argv, repeat=15, quick_help="tiny sizes, to check "
                 "the script runs", extra=extra)
    if args.worker:
        worker_main(args)
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s)")
    if not args.skip_workers:
        mw = multi_worker(args)
        ratio = mw["tfcompat_ms"] / mw["ddp_ms"]
        print(f"\nMultiWorkerMirroredStrategy, {mw['workers']} gloo workers, MLP "
              f"{'-'.join(map(str, mw['layers']))}, batch {mw['batch_per_worker']} per worker")
        print(f"  {'tfcompat ms':>12} {'DDP ms':>8} {'/DDP':>6} {'target':>7}")
        print(f"  {mw['tfcompat_ms']:12.2f} {mw['ddp_ms']:8.2f} {ratio:6.2f} {'1.10x':>7}")
    ip = in_process(args)
    s = ip["step_ms"]
    print(f"\nMirroredStrategy over 2 logical CPUs vs one device, MLP "
          f"{'-'.join(map(str, ip['layers']))}, global batch {ip['global_batch']}, SGD-momentum")
    print(f"  {'mirrored ms':>12} {'one device ms':>14} {'ratio':>6}")
    print(f"  {s['mirrored']:12.2f} {s['one_device']:14.2f} {s['mirrored'] / s['one_device']:6.2f}")
    m = ip["merge_us"]
    print(f"\nmerge_call round trip (2 replicas): run+merge_call {m['run + merge_call']:.1f} us, "
          f"run alone {m['run']:.1f} us, merge_call {m['run + merge_call'] - m['run']:.1f} us; "
          f"peak Python memory {ip['merge_peak_bytes'] / 1024:.1f} KiB, retained "
          f"{ip['merge_retained_bytes']} bytes")
    a = ip["apply_ms"]
    print(f"\napply_gradients over {ip['apply_vars']} variables (Adam): under MirroredStrategy "
          f"(2 replicas, inside run) {a['mirrored']:.2f} ms, plain {a['plain']:.2f} ms, ratio "
          f"{a['mirrored'] / a['plain']:.2f}; peak Python memory of one step under the strategy "
          f"{ip['apply_peak_bytes'] / 1024:.1f} KiB")


def argparse_hidden() -> str:
    import argparse
    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
