"""Record TF 2.21's input distribution rules into `fixtures/input_lib.json`.

Run with a Python that has TensorFlow (never needed by the tests):

    /work/tfenv/bin/python tests/distribute/gen_input_lib.py

Every dataset is `tf.data.Dataset.range(n)`-based, so a recorded value is
the element's index and the tests can rebuild the same input from torch.
Several logical CPUs stand for the replicas. Multi-worker cases run TF's own
`MultiWorkerMirroredStrategy` input path (`input_util.get_distributed_*`
with the worker's `InputContext`) in-process for each worker, and a real
two-process `MultiWorkerMirroredStrategy` on localhost checks that path
(recorded too; `--no-processes` skips it).
"""

from __future__ import annotations

import collections
import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
from tests.conformance.generator_env import dump, prepare  # noqa: E402

OUT = os.path.join(HERE, "fixtures", "input_lib.json")
NUM_CPUS = 4

# (local replicas, n, batch): uneven last batches, batches that do not divide, batch 1.
SPLIT_CASES = [(r, n, b) for r in (2, 3) for n, b in [
    (10, 4), (9, 4), (7, 7), (14, 7), (3, 1), (6, 6), (8, 6), (5, 5), (4, 3), (2, 2)]]
# (workers, local replicas, n, batch)
MULTI_WORKER_CASES = [(2, 1, 10, 4), (2, 1, 9, 4), (2, 1, 7, 7), (2, 1, 3, 1), (2, 1, 8, 3),
                      (2, 2, 10, 8), (2, 2, 13, 8), (2, 2, 7, 7), (2, 2, 5, 5), (3, 1, 10, 4),
                      (3, 2, 20, 7)]
# distribute_datasets_from_function: (local replicas, n, batch or None, drop_remainder, row shape)
DFF_CASES = [(2, 10, 2, False, []), (2, 10, 2, True, []), (3, 8, 2, False, []),
             (3, 8, 2, True, []), (2, 11, 2, False, []), (2, 5, None, False, []),
             (2, 5, 2, False, [2, 3]), (2, 5, None, False, [2, 3]), (3, 0, 2, False, [])]
# (workers, local replicas, n, batch): each worker's fn shards range(n) by its pipeline id.
MULTI_WORKER_DFF_CASES = [(2, 1, 7, 1), (2, 2, 7, 1), (2, 2, 11, 2), (2, 1, 5, 2)]


def _local(strategy, x):
    return [v.numpy().tolist() for v in strategy.experimental_local_results(x)]


def _mirrored(tf, replicas):
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(replicas)])


def _dff_dataset(tf, n, batch, drop, shape):
    ds = tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(n * max(1, _prod(shape))),
                                                       [n] + shape))
    return ds if batch is None else ds.batch(batch, drop_remainder=drop)


def _prod(shape):
    out = 1
    for d in shape:
        out *= d
    return out


def _worker_input(tf, strategy, workers, index, replicas):
    from tensorflow.python.distribute import distribute_lib
    input_workers = strategy.extended._input_workers_with_options(None)
    return input_workers, distribute_lib.InputContext(workers, index, workers * replicas)


def record_split(tf):
    cases = []
    for r, n, b in SPLIT_CASES:
        s = _mirrored(tf, r)
        steps = [_local(s, x) for x in s.experimental_distribute_dataset(
            tf.data.Dataset.range(n).batch(b))]
        cases.append({"workers": 1, "replicas": r, "n": n, "batch": b, "steps": [steps]})
    from tensorflow.python.distribute import input_util
    for w, r, n, b in MULTI_WORKER_CASES:
        s = _mirrored(tf, r)
        per_worker = []
        for i in range(w):
            input_workers, context = _worker_input(tf, s, w, i, r)
            d = input_util.get_distributed_dataset(
                tf.data.Dataset.range(n).batch(b), input_workers, s, num_replicas_in_sync=w * r,
                input_context=context)
            per_worker.append([_local(s, x) for x in d])
        cases.append({"workers": w, "replicas": r, "n": n, "batch": b, "steps": per_worker})
    return cases


def record_dff(tf):
    cases = []
    for r, n, b, drop, shape in DFF_CASES:
        s = _mirrored(tf, r)
        contexts = []

        def fn(ctx, n=n, b=b, drop=drop, shape=shape):
            contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id,
                             ctx.num_replicas_in_sync])
            return _dff_dataset(tf, n, b, drop, shape)

        d = s.distribute_datasets_from_function(fn)
        called_at_construction = len(contexts)
        steps = [_local(s, x) for x in d]
        again = [_local(s, x) for x in d]
        assert again == steps and len(contexts) == 1
        cases.append({"workers": 1, "replicas": r, "n": n, "batch": b, "drop_remainder": drop,
                      "shape": shape, "contexts": contexts,
                      "called_at_construction": called_at_construction, "steps": [steps]})
    from tensorflow.python.distribute import input_util
    for w, r, n, b in MULTI_WORKER_DFF_CASES:
        s = _mirrored(tf, r)
        per_worker, contexts = [], []
        for i in range(w):
            input_workers, context = _worker_input(tf, s, w, i, r)

            def fn(ctx, n=n, b=b):
                contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id,
                                 ctx.num_replicas_in_sync])
                return tf.data.Dataset.range(n).shard(ctx.num_input_pipelines,
                                                      ctx.input_pipeline_id).batch(b)

            d = input_util.get_distributed_datasets_from_function(fn, input_workers, [context], s)
            per_worker.append([_local(s, x) for x in d])
        # In-process, each worker stops with its own data; TF's multi-worker iterator
        # all-reduces "has data", so a worker that ran out first gets empty batches until every
        # worker has run out (the two-process run below shows it): pad here the same way.
        longest = max(len(p) for p in per_worker)
        for p in per_worker:
            p.extend([[[]] * r] * (longest - len(p)))
        cases.append({"workers": w, "replicas": r, "n": n, "batch": b, "contexts": contexts,
                      "steps": per_worker})
    return cases


def record_per_replica(tf):
    s = _mirrored(tf, 2)
    contexts = []

    def fn(ctx):
        contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync])
        start = 10 * ctx.input_pipeline_id
        return tf.data.Dataset.range(start, start + 3 + ctx.input_pipeline_id).batch(1)

    options = tf.distribute.InputOptions(
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA)
    steps = [_local(s, x) for x in s.distribute_datasets_from_function(fn, options)]
    return {"replicas": 2, "contexts": contexts, "steps": steps,
            "lengths": [3, 4], "starts": [0, 10]}


def record_nest(tf):
    s = _mirrored(tf, 2)
    Pt = collections.namedtuple("Pt", "a b")
    ds = tf.data.Dataset.from_tensor_slices({
        "x": tf.reshape(tf.range(10.0), [5, 2]),
        "y": (tf.range(5), Pt(tf.range(5) * 10, tf.range(5) * 100))}).batch(3)
    steps = []
    for x in s.experimental_distribute_dataset(ds):
        assert type(x) is dict and type(x["y"]) is tuple and type(x["y"][1]) is Pt
        steps.append(tf.nest.map_structure(lambda v: _local(s, v), x))
        dtypes = {"x": x["x"].values[0].dtype.name, "y0": x["y"][0].values[0].dtype.name}
    zipped = tf.data.Dataset.zip((tf.data.Dataset.range(8).batch(4),
                                  tf.data.Dataset.range(8).batch(2)))
    mixed = [[_local(s, v) for v in x] for x in s.experimental_distribute_dataset(zipped)]
    return {"steps": steps, "dtypes": dtypes, "types": ["dict", "tuple", "namedtuple"],
            "mixed_batch_sizes": {"batches": [4, 2], "n": 8, "steps": mixed}}


def record_numpy_dtypes(tf):
    import numpy as np
    s = _mirrored(tf, 2)
    ds = tf.data.Dataset.from_tensor_slices((np.arange(6.0), np.arange(6),
                                             np.arange(6, dtype=np.float32) > 2)).batch(3)
    x = next(iter(s.experimental_distribute_dataset(ds)))
    return [[v.dtype.name for v in leaf.values] for leaf in x]


def record_one_replica(tf):
    out = {}
    for name, s in [("mirrored_1", tf.distribute.MirroredStrategy(["/cpu:0"])),
                    ("one_device_cpu1", tf.distribute.OneDeviceStrategy("/cpu:1"))]:
        d = s.experimental_distribute_dataset(tf.data.Dataset.range(5).batch(2))
        x = next(iter(d))
        dff = next(iter(s.distribute_datasets_from_function(
            lambda ctx: tf.data.Dataset.range(5).batch(2))))
        out[name] = {"wrapped": not isinstance(x, tf.Tensor), "device": x.device,
                     "value": x.numpy().tolist(), "dff_wrapped": not isinstance(dff, tf.Tensor),
                     "scalars": [int(v) for v in s.experimental_distribute_dataset(
                         tf.data.Dataset.range(3))]}
    return out


def record_iterator(tf):
    s = _mirrored(tf, 2)
    d = s.experimental_distribute_dataset(tf.data.Dataset.range(3).batch(2))
    it = iter(d)
    it.get_next()
    it.get_next()
    out = {}
    try:
        it.get_next()
    except Exception as e:  # noqa: BLE001 - recording the class TF raises
        out["get_next_at_end"] = type(e).__name__
    try:
        next(it)
    except StopIteration:
        out["next_at_end"] = "StopIteration"
    it = iter(d)
    first = it.get_next_as_optional()
    out["optional_first"] = [bool(first.has_value()), _local(s, first.get_value())]
    it.get_next()
    empty = it.get_next_as_optional()
    out["optional_end_has_value"] = bool(empty.has_value())
    try:
        empty.get_value()
    except Exception as e:  # noqa: BLE001
        out["optional_end_get_value"] = [type(e).__name__,
                                         "The given optional does not have a value." in str(e)]
    out["epochs"] = [[_local(s, x) for x in d] for _ in range(2)]
    try:
        list(s.experimental_distribute_dataset(tf.data.Dataset.range(3)))
    except Exception as e:  # noqa: BLE001
        out["scalar_elements"] = type(e).__name__
    return out


def record_context_and_options(tf):
    c = tf.distribute.InputContext(2, 1, 4)
    out = {"per_replica_batch_size_8": c.get_per_replica_batch_size(8), "str": str(c),
           "defaults": [tf.distribute.InputContext().num_input_pipelines,
                        tf.distribute.InputContext().input_pipeline_id,
                        tf.distribute.InputContext().num_replicas_in_sync]}
    try:
        c.get_per_replica_batch_size(6)
    except ValueError as e:
        out["not_divisible"] = str(e)
    o = tf.distribute.InputOptions()
    out["options_defaults"] = [o.experimental_fetch_to_device, o.experimental_replication_mode.value,
                               o.experimental_place_dataset_on_device,
                               o.experimental_per_replica_buffer_size]
    mode = tf.distribute.InputReplicationMode
    s = _mirrored(tf, 2)
    errors = {}
    for key, opts, call in [
            ("dd_per_replica", tf.distribute.InputOptions(experimental_replication_mode=mode.PER_REPLICA),
             "dd"),
            ("dff_place_per_worker",
             tf.distribute.InputOptions(experimental_place_dataset_on_device=True), "dff"),
            ("dff_place_and_fetch", tf.distribute.InputOptions(
                experimental_place_dataset_on_device=True,
                experimental_replication_mode=mode.PER_REPLICA), "dff")]:
        try:
            if call == "dd":
                s.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2), opts)
            else:
                s.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(4), opts)
        except Exception as e:  # noqa: BLE001
            errors[key] = [type(e).__name__, str(e)]
    out["option_errors"] = errors
    devices = {}
    for fetch in (True, False):
        s = tf.distribute.MirroredStrategy(["/cpu:1", "/cpu:2"])
        o = tf.distribute.InputOptions(experimental_fetch_to_device=fetch)
        x = next(iter(s.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(4), o)))
        devices[str(fetch)] = [v.device for v in x.values]
    out["fetch_to_device_devices"] = devices
    return out


# -- a real two-process MultiWorkerMirroredStrategy --------------------------------

def _mwms_worker(index: int, ports: str) -> None:
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": [f"localhost:{p}" for p in ports.split(",")]},
        "task": {"type": "worker", "index": index}})
    import tensorflow as tf
    s = tf.distribute.MultiWorkerMirroredStrategy()
    out = {"num_replicas_in_sync": s.num_replicas_in_sync, "split": {}}
    for w, r, n, b in MULTI_WORKER_CASES:
        if (w, r) == (2, 1):
            d = s.experimental_distribute_dataset(tf.data.Dataset.range(n).batch(b))
            out["split"][f"{n},{b}"] = [_local(s, x) for x in d]
    out["dff"] = {}
    for w, r, n, b in MULTI_WORKER_DFF_CASES:
        if (w, r) == (2, 1):
            d = s.distribute_datasets_from_function(
                lambda ctx, n=n, b=b: tf.data.Dataset.range(n).shard(
                    ctx.num_input_pipelines, ctx.input_pipeline_id).batch(b))
            out["dff"][f"{n},{b}"] = [_local(s, x) for x in d]
    x = next(iter(s.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2))))
    out["wrapped_with_one_local_replica"] = not isinstance(x, tf.Tensor)
    print("RESULT " + json.dumps(out), flush=True)


def record_two_processes():
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("localhost", 0))
            ports.append(str(sock.getsockname()[1]))
    procs = [subprocess.Popen([sys.executable, __file__, "--mwms-worker", str(i), ",".join(ports)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for i in range(2)]
    results = []
    for p in procs:
        stdout, _ = p.communicate(timeout=300)
        line = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
        if p.returncode or not line:
            raise RuntimeError(f"a MultiWorkerMirroredStrategy worker failed (rc {p.returncode})")
        results.append(json.loads(line[0][len("RESULT "):]))
    return results


def main() -> None:
    if sys.argv[1:2] == ["--mwms-worker"]:
        _mwms_worker(int(sys.argv[2]), sys.argv[3])
        return
    import tensorflow as tf
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpus[0], [tf.config.LogicalDeviceConfiguration()] * NUM_CPUS)
    data = {"tf_version": tf.__version__, "split": record_split(tf), "dff": record_dff(tf),
            "per_replica": record_per_replica(tf), "nest": record_nest(tf),
            "numpy_dtypes": record_numpy_dtypes(tf), "one_replica": record_one_replica(tf),
            "iterator": record_iterator(tf), "context": record_context_and_options(tf)}
    if "--no-processes" not in sys.argv:
        workers = record_two_processes()
        data["two_processes"] = workers
        # The in-process multi-worker path must say what the real cluster does.
        for case in data["split"] + data["dff"][len(DFF_CASES):]:
            if (case["workers"], case["replicas"]) == (2, 1):
                key = f"{case['n']},{case['batch']}"
                kind = "split" if "contexts" not in case else "dff"
                real = [w[kind][key] for w in workers]
                assert real == case["steps"], (kind, key, real, case["steps"])
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    print(f"wrote {dump(OUT, data)} characters to {OUT}")


if __name__ == "__main__":
    prepare()
    main()
