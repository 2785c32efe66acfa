"""Record `numpy_operand_cases.py` from real TensorFlow 2.21 into `fixtures/numpy_operands.json`.

Run under a Python with TensorFlow (never needed by the test suite):

    /path/to/tf-venv/bin/python tests/framework/gen_numpy_operands.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "conformance"))
import generator_env  # noqa: E402  (tests/conformance/generator_env.py)

generator_env.prepare()

import tensorflow as tf  # noqa: E402

from tests.framework import numpy_operand_cases as table  # noqa: E402
from tests.ops.golden import gen_ops  # noqa: E402  (TF's encoding of results and errors)


def record_gradient(case) -> object:
    try:
        v = tf.Variable(table.tensor(tf, case.dtype))
        with tf.GradientTape() as tape:
            y = case.grad_fn(tf, v)
        connected = tape.gradient(y, v)
        return {"result_dtype": y.dtype.name, "gradient": gen_ops._encode(connected)}
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return gen_ops.harness.encode_error(e)


def main() -> None:
    data = {
        "tensorflow": tf.__version__,
        "cases": {c.name: gen_ops.record_case(c.fn) for c in table.CASES},
        "gradients": {c.name: record_gradient(c) for c in table.GRADIENT_CASES},
    }
    n = generator_env.dump(os.path.join(HERE, "fixtures", "numpy_operands.json"), data)
    print(f"numpy_operands: {len(data['cases'])} cases, {len(data['gradients'])} gradients, "
          f"{n} bytes")


if __name__ == "__main__":
    main()
