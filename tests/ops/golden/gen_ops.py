"""Record the op golden tables (`cases_*.py`) from real TensorFlow 2.21 into `fixtures/`.

Run under a Python with TensorFlow (never needed by the test suite):

    /path/to/tf-venv/bin/python tests/ops/golden/gen_ops.py            # every area
    /path/to/tf-venv/bin/python tests/ops/golden/gen_ops.py math nn    # some areas
"""

from __future__ import annotations

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "conformance"))
import generator_env  # noqa: E402  (tests/conformance/generator_env.py)

generator_env.prepare()

import tensorflow as tf  # noqa: E402

from tests.ops.golden import harness  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")


def areas() -> list:
    return sorted(f[len("cases_"):-3] for f in os.listdir(HERE)
                  if f.startswith("cases_") and f.endswith(".py"))


def _dtype_name(x):
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return x.dtype.name
    return None


def _to_numpy(x):
    if isinstance(x, tf.IndexedSlices):
        x = tf.convert_to_tensor(x)
    return x.numpy()


def _encode(x):
    return harness.encode(x, _dtype_name, _to_numpy)


def record_case(fn):
    try:
        return _encode(fn(tf))
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return harness.encode_error(e)


def record_gradient(grad):
    try:
        variables = [tf.Variable(a) for a in grad.inputs]
        with tf.GradientTape() as tape:
            y = grad.fn(tf, *variables)
        return _encode(list(tape.gradient(y, variables)))
    except Exception as e:  # noqa: BLE001
        return harness.encode_error(e)


def main(argv) -> None:
    os.makedirs(FIXTURES, exist_ok=True)
    for area in argv or areas():
        module = importlib.import_module(f"tests.ops.golden.cases_{area}")
        tf.random.set_seed(0)
        data = {
            "tensorflow": tf.__version__,
            "cases": {name: record_case(harness.as_case(entry).fn)
                      for name, entry in module.CASES.items()},
            "gradients": {name: record_gradient(g)
                          for name, g in getattr(module, "GRADIENTS", {}).items()},
        }
        n = generator_env.dump(os.path.join(FIXTURES, f"{area}.json"), data)
        print(f"{area}: {len(data['cases'])} cases, {len(data['gradients'])} gradients, {n} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
