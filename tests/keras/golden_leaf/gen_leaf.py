"""Record `cases_leaf.py` from real TensorFlow 2.21 + tf_keras 2.21 into `fixtures/leaf.json`.

Run under a Python with TensorFlow and tf_keras (never needed by the test suite):

    TF_USE_LEGACY_KERAS=1 /path/to/tf-venv/bin/python tests/keras/golden_leaf/gen_leaf.py
"""

from __future__ import annotations

import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.keras is tf_keras 2.x (Keras 2), not Keras 3
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import generator_env  # noqa: E402  (tests/conformance/generator_env.py)

generator_env.prepare()

import warnings  # noqa: E402

import tensorflow as tf  # noqa: E402

from tests.ops.golden import gen_ops, harness  # noqa: E402
from tests.keras.golden_leaf import cases_leaf  # noqa: E402


def main() -> None:
    assert tf.keras.__name__.startswith("tf_keras"), tf.keras.__name__
    warnings.simplefilter("ignore")
    tf.random.set_seed(0)
    data = {
        "tensorflow": tf.__version__,
        "cases": {name: gen_ops.record_case(harness.as_case(entry).fn)
                  for name, entry in cases_leaf.CASES.items()},
        "gradients": {name: gen_ops.record_gradient(g)
                      for name, g in cases_leaf.GRADIENTS.items()},
    }
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    n = generator_env.dump(os.path.join(HERE, "fixtures", "leaf.json"), data)
    print(f"leaf: {len(data['cases'])} cases, {len(data['gradients'])} gradients, {n} bytes")


if __name__ == "__main__":
    main()
