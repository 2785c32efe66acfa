"""Record TF 2.21's cluster-resolver behaviour as a golden fixture.

Run (needs TensorFlow, NOT the project venv)::

    /work/tfenv/bin/python tests/distribute/gen_cluster_resolver.py

It writes ``tests/distribute/fixtures/cluster_resolver.json``. Each case sets
``TF_CONFIG`` (or unsets it), builds ``TFConfigClusterResolver(**kwargs)``
and records, each as ``{"value": ...}`` or ``{"error": class, "message": str}``:

* the resolver's ``task_type``, ``task_id``, ``rpc_layer``, ``environment``,
  ``cluster_spec().as_dict()``, ``master()`` and ``num_accelerators()``
  (GPUs hidden, so this is TF's CPU answer);
* what MultiWorkerMirroredStrategy derives from it, in the order its
  ``_initialize_multi_worker`` does: ``"local"`` for an empty cluster, else
  ``id_in_cluster`` (the rank), ``worker_count`` (the world size) and
  ``is_chief`` from ``multi_worker_util``. The strategy itself is not built:
  it would start a gRPC server and wait for the cluster.

``as_dict()`` is encoded per job as ``{"list": [...]}`` (dense) or
``{"sparse": [[index, address], ...]}``, since JSON keys are strings.
The replay, ``test_cluster_resolver.py``, needs no TensorFlow.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures", "cluster_resolver.json")

_CW = {"chief": ["chief0:2222"], "worker": ["w0:2222", "w1:2222"]}
_W = {"worker": ["w0:2222", "w1:2222", "w2:2222"]}

#: name -> (TF_CONFIG: a JSON-able value, a raw string, or None for unset; constructor kwargs)
CASES = {
    "chief_and_workers_as_chief": ({"cluster": _CW, "task": {"type": "chief", "index": 0}}, {}),
    "chief_and_workers_as_worker0": ({"cluster": _CW, "task": {"type": "worker", "index": 0}}, {}),
    "chief_and_workers_as_worker1": ({"cluster": _CW, "task": {"type": "worker", "index": 1}}, {}),
    "workers_only_as_worker0": ({"cluster": _W, "task": {"type": "worker", "index": 0}}, {}),
    "workers_only_as_worker2": ({"cluster": _W, "task": {"type": "worker", "index": 2}}, {}),
    "same_host_workers": ({"cluster": {"worker": ["localhost:1", "localhost:2", "other:3"]},
                           "task": {"type": "worker", "index": 1}}, {}),
    "ipv6_workers": ({"cluster": {"worker": ["[::1]:2222", "[::1]:2223"]},
                      "task": {"type": "worker", "index": 1}}, {}),
    "single_worker": ({"cluster": {"worker": ["w0:2222"]}, "task": {"type": "worker", "index": 0}}, {}),
    "chief_only": ({"cluster": {"chief": ["c:2222"]}, "task": {"type": "chief", "index": 0}}, {}),
    "missing_task": ({"cluster": _W}, {}),
    "task_without_index": ({"cluster": _W, "task": {"type": "worker"}}, {}),
    "task_without_type": ({"cluster": _W, "task": {"index": 0}}, {}),
    "task_without_cluster": ({"task": {"type": "worker", "index": 1}}, {}),
    "empty_cluster": ({"cluster": {}, "task": {"type": "worker", "index": 0}}, {}),
    "evaluator_outside_cluster": ({"cluster": _CW, "task": {"type": "evaluator", "index": 0}}, {}),
    "evaluator_in_cluster": ({"cluster": dict(_CW, evaluator=["ev:2222"]),
                              "task": {"type": "evaluator", "index": 0}}, {}),
    "worker_next_to_evaluator": ({"cluster": dict(_CW, evaluator=["ev:2222"]),
                                  "task": {"type": "worker", "index": 1}}, {}),
    "rpc_layer_and_environment_in_tf_config": (
        {"cluster": _W, "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc",
         "environment": "cloud"}, {}),
    "session_master": ({"cluster": _W, "task": {"type": "worker", "index": 1},
                        "session_master": "grpc://elsewhere:1"}, {}),
    "unset": (None, {}),
    "empty_string": ("", {}),
    "malformed_json": ("{cluster: }", {}),
    "json_list": ([1, 2], {}),
    "task_not_an_object": ({"cluster": _W, "task": "worker"}, {}),
    "index_out_of_range": ({"cluster": _W, "task": {"type": "worker", "index": 5}}, {}),
    "chief_index_out_of_range": ({"cluster": _CW, "task": {"type": "chief", "index": 1}}, {}),
    "index_is_a_string": ({"cluster": _W, "task": {"type": "worker", "index": "1"}}, {}),
    "index_not_a_number": ({"cluster": _W, "task": {"type": "worker", "index": "one"}}, {}),
    "ps_task": ({"cluster": dict(_W, ps=["ps0:2222"]), "task": {"type": "ps", "index": 0}}, {}),
    "ps_not_in_cluster": ({"cluster": _W, "task": {"type": "ps", "index": 0}}, {}),
    "unknown_job": ({"cluster": {"trainer": ["t:1"], "worker": ["w:1"]},
                     "task": {"type": "worker", "index": 0}}, {}),
    "unknown_task_type": ({"cluster": _W, "task": {"type": "trainer", "index": 0}}, {}),
    "two_chiefs": ({"cluster": {"chief": ["c0:1", "c1:1"], "worker": ["w:1"]},
                    "task": {"type": "chief", "index": 0}}, {}),
    "sparse_workers": ({"cluster": {"worker": {"0": "w0:1", "3": "w3:1"}},
                        "task": {"type": "worker", "index": 3}}, {}),
    "tasks_not_a_list": ({"cluster": {"worker": "w0:1"}, "task": {"type": "worker", "index": 0}}, {}),
    "address_not_a_string": ({"cluster": {"worker": [1, 2]}, "task": {"type": "worker", "index": 0}}, {}),
    "address_without_port": ({"cluster": {"worker": ["w0", "w1"]},
                              "task": {"type": "worker", "index": 0}}, {}),
    "override_task": ({"cluster": _CW, "task": {"type": "worker", "index": 1}},
                      {"task_type": "chief", "task_id": 0}),
    "override_task_not_in_cluster": ({"cluster": _W, "task": {"type": "worker", "index": 1}},
                                     {"task_type": "chief", "task_id": 0}),
    "override_rpc_layer_and_environment": ({"cluster": _W, "task": {"type": "worker", "index": 1}},
                                           {"rpc_layer": "grpc", "environment": "google"}),
}


def _outcome(fn):
    try:
        return {"value": fn()}
    except Exception as e:  # the class and message are the golden values
        return {"error": type(e).__name__, "message": str(e)}


def _encode_spec(d):
    return {job: ({"list": list(tasks)} if isinstance(tasks, list)
                  else {"sparse": sorted([int(i), a] for i, a in tasks.items())})
            for job, tasks in d.items()}


def _strategy_view(tf_resolver, multi_worker_util):
    spec = tf_resolver.cluster_spec()
    if not spec.as_dict():
        return "local"
    task_type, task_id = tf_resolver.task_type, tf_resolver.task_id
    if task_type is None or task_id is None:
        raise ValueError("When `cluster_spec` is given, you must also specify `task_type` and "
                         "`task_id`.")
    rank = multi_worker_util.id_in_cluster(spec, task_type, task_id)
    world = multi_worker_util.worker_count(spec, task_type)
    if not world:
        raise ValueError("No `worker`, `chief` or `evaluator` tasks can be found in `cluster_spec`.")
    return {"rank": rank, "world_size": world,
            "is_chief": multi_worker_util.is_chief(spec, task_type, task_id)}


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import tensorflow as tf
    from tensorflow.python.distribute import multi_worker_util

    records = {}
    for name, (config, kwargs) in CASES.items():
        if config is None:
            os.environ.pop("TF_CONFIG", None)
        else:
            os.environ["TF_CONFIG"] = config if isinstance(config, str) else json.dumps(config)
        r = tf.distribute.cluster_resolver.TFConfigClusterResolver(**kwargs)
        records[name] = {
            "tf_config": config, "kwargs": kwargs,
            "task_type": _outcome(lambda: r.task_type),
            "task_id": _outcome(lambda: r.task_id),
            "rpc_layer": _outcome(lambda: r.rpc_layer),
            "environment": _outcome(lambda: r.environment),
            "cluster_spec": _outcome(lambda: _encode_spec(r.cluster_spec().as_dict())),
            "master": _outcome(lambda: r.master()),
            "num_accelerators": _outcome(lambda: dict(r.num_accelerators())),
            "strategy": _outcome(lambda: _strategy_view(r, multi_worker_util)),
        }
    os.environ.pop("TF_CONFIG", None)
    data = {"tensorflow": tf.__version__, "cases": records}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {len(records)} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
