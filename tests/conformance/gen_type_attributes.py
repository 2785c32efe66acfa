"""Generate the golden fixture for TF's attributes on torch's types, from real TensorFlow.

Run (needs TensorFlow 2.21, NOT the project venv)::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/bin/python tests/conformance/gen_type_attributes.py

It writes ``tests/conformance/fixtures/type_attributes.json``: what TF gives for the
cases of ``type_attribute_cases.py``, run on TF's own objects. The replay,
``tests/framework/test_type_attributes.py``, runs the same cases on torch's objects
(``torch.Size``, ``torch.dtype``, ``torch.device``) with ``import tfcompat``.

Schema::

    {"generator": ..., "versions": {"tensorflow": ..., "numpy": ...},
     "shapes": [{"id", "dims", "op", "args": [SPEC], "result": R}, ...],
     "dtypes": {NAME: {ATTRIBUTE: R}},
     "devices": {"cpu0": {"name": STR, "calls": {ID: R}},
                 "gpu1": {"name": STR, "calls": {ID: R}}}}

``SPEC`` and ``R`` are ``programs.build`` specs and ``programs.encode`` results
(``gen_core.py``'s docstring); an error's ``"key"`` is the part of TF's message
tfcompat must reproduce verbatim (null: class only). ``cpu0`` is the device of a
tensor TF placed on the CPU; ``gpu1`` is TF's name for ``GPU:1`` (TF names every
device ``/job:localhost/replica:0/task:0/device:<TYPE>:<N>`` in a local process;
recorded without a GPU, from that name).
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generator_env  # noqa: E402

generator_env.prepare()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tests.conformance import type_attribute_cases as cases  # noqa: E402

KEY_PATTERNS = [
    r"Shapes? \([\d, ]*\) must have rank( at least| at most)? \d+",
    r"Shapes \([\d, ]*\) and \([\d, ?]*\) are not compatible",
    r"are incompatible",
    r"must have the same rank",
    r"Cannot find (minimum|maximum) value of <dtype: '\w+'> with type <dtype: '\w+'>",
    r"<dtype: '\w+'> does not have defined limits",
]


def add_key(result: dict) -> dict:
    if isinstance(result, dict) and "error" in result:
        found = [m.group(0) for m in (re.search(p, result["message"]) for p in KEY_PATTERNS) if m]
        result["key"] = found[0] if found else None
    return result


def main() -> None:
    tf.get_logger().setLevel("ERROR")
    shapes = []
    for case in cases.shape_cases():
        result = add_key(cases.run_shape(tf, tf.TensorShape(case["dims"]), case))
        shapes.append(dict(case, result=result))
    attributes = list(cases.DTYPE_ATTRS) + [
        f"is_compatible_with:{k}" for k in cases.DTYPE_COMPATIBLE_ARGS]
    dtypes = {name: {a: add_key(cases.run_dtype(tf, getattr(tf, name), a)) for a in attributes}
              for name in cases.DTYPES}
    with tf.device("/CPU:0"):
        cpu_name = tf.ones([1]).device
    devices = {}
    for key, name in (("cpu0", cpu_name), ("gpu1", "/job:localhost/replica:0/task:0/device:GPU:1")):
        devices[key] = {"name": name, "calls": {
            i: cases.run_device(tf, name, method, args) for i, method, args in cases.DEVICE_CALLS}}
    data = {"generator": "tests/conformance/gen_type_attributes.py",
            "versions": {"tensorflow": tf.__version__, "numpy": np.__version__},
            "shapes": shapes, "dtypes": dtypes, "devices": devices}
    n = generator_env.dump(os.path.join(generator_env.FIXTURES, "type_attributes.json"), data)
    errors = [c["result"] for c in shapes if "error" in c["result"]] + [
        r for d in dtypes.values() for r in d.values() if "error" in r]
    print(f"shapes: {len(shapes)} cases; {len(errors)} errors "
          f"({sum(1 for r in errors if r['key'] is None)} without a key); "
          f"dtypes: {len(dtypes)} x {len(attributes)}; devices: {len(devices)} x "
          f"{len(cases.DEVICE_CALLS)}; type_attributes.json: {n} bytes")


if __name__ == "__main__":
    main()
