"""Record TF 2.21's results for the pipelines in cases.py into fixtures/data.json.

Run with the TensorFlow venv from the repository root:
    /work/tfenv/bin/python tests/data/gen_data.py
The test (test_data_golden.py) reads the JSON without TensorFlow. The encoding
(`encode`) is shared with the test through this module's pure-Python part.
"""

import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases import (CARDINALITY_CASES, CASES, DISTRIBUTE_CASES, ERROR_CASES,  # noqa: E402
                   FROM_FUNCTION_CASES, MULTI_WORKER_OFF_CASES, REDUCE_CASES)


def is_dataset(value) -> bool:
    return hasattr(value, "element_spec") and hasattr(value, "cardinality")


def encode(value):
    """A JSON form of an element: tensors with dtype and shape, tuples, dicts, datasets."""
    if is_dataset(value):
        return {"dataset": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {k: encode(value[k]) for k in sorted(value)}}
    if isinstance(value, tuple):
        kind = type(value).__name__ if hasattr(value, "_fields") else "tuple"
        return {kind: [encode(v) for v in value]}
    array = value.numpy()
    dtype = str(value.dtype).replace("torch.", "").replace("<dtype: '", "").replace("'>", "")
    dtype = dtype.replace("tf.", "")
    return {"dtype": dtype, "shape": list(array.shape), "value": array.tolist()}


def clean_message(message: str) -> str:
    """TF's error text without the kernel's function-node prefix and op suffix."""
    message = message.split("\nTraceback")[0]  # a Python error inside a py_func: its first line
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
    message = re.sub(r"\s*\[Op:[^\]]*\](\s*name:\s*)?$", "", message)
    return message.strip()


def record_dataset(ds):
    out = {"element_spec": repr(ds.element_spec), "cardinality": int(ds.cardinality())}
    try:
        out["len"] = len(ds)
    except TypeError as e:
        out["len_error"] = str(e)
    out["elements"] = [encode(e) for e in ds]
    return out


def record_distributed(dist):
    """A distributed dataset's element_spec and, per step, each replica's components."""
    steps = []
    for element in dist:
        steps.append(encode(unwrap(element)))
    return {"element_spec": repr(dist.element_spec), "steps": steps,
            "cardinality": int(dist.cardinality)}


def unwrap(element):
    """Each PerReplica (anything with `.values`) as a tuple of its components."""
    if isinstance(element, dict):
        return {k: unwrap(v) for k, v in element.items()}
    if isinstance(element, tuple) and not hasattr(element, "values"):
        return tuple(unwrap(v) for v in element)
    return tuple(element.values)


def record_unsharded_workers(tf, dataset, workers=2, local=2):
    """Each worker's steps (lists of its replicas' rows) for an unsharded dataset, built the
    way TF's input_lib rebatches it (`_make_rebatch_fn`)."""
    from tensorflow.python.data.experimental.ops import distribute as tf_distribute

    n = workers * local
    batch_size = int(tf_distribute.compute_batch_size(dataset))
    out = []
    for w in range(workers):
        if batch_size != -1:
            sizes = tf_distribute.batch_sizes_for_worker(batch_size, workers, local, w)
            pieces = dataset.rebatch(sizes)
        else:
            pieces = tf_distribute._LegacyRebatchDataset(dataset, n)  # noqa: SLF001 (TF's own)
        rows = [p.numpy().tolist() for p in pieces]
        out.append([rows[i:i + local] for i in range(0, len(rows), local)])
    return {"batch_size": batch_size, "workers": out}


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
    fixtures = {"cases": {}, "cardinality": {}, "errors": {}, "reduce": {}, "distribute": {},
                "from_function": {}}
    for name, build in CASES.items():
        fixtures["cases"][name] = record_dataset(build(tf))
    for name, build in CARDINALITY_CASES.items():
        ds = build(tf)
        fixtures["cardinality"][name] = {"cardinality": int(ds.cardinality()),
                                         "element_spec": repr(ds.element_spec)}
    for name, run in ERROR_CASES.items():
        try:
            run(tf)
        except Exception as e:  # noqa: BLE001  (recording what TF raises is the point)
            fixtures["errors"][name] = {"type": type(e).__name__,
                                        "message": clean_message(str(e))}
        else:
            raise SystemExit(f"error case {name} did not raise under TF")
    for name, run in REDUCE_CASES.items():
        fixtures["reduce"][name] = encode(run(tf))
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    for name, build in DISTRIBUTE_CASES.items():
        fixtures["distribute"][name] = record_distributed(
            strategy.experimental_distribute_dataset(build(tf)))
    for name, build in FROM_FUNCTION_CASES.items():
        fixtures["from_function"][name] = record_distributed(
            strategy.distribute_datasets_from_function(lambda ctx, build=build: build(tf)))
    fixtures["multi_worker_off"] = {name: record_unsharded_workers(tf, build(tf))
                                    for name, build in MULTI_WORKER_OFF_CASES.items()}
    path = HERE / "fixtures" / "data.json"
    path.write_text(json.dumps(fixtures, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
