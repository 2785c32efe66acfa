"""Record the loss golden table (`cases_losses.py`) from real tf_keras 2.21 into `fixtures/`.

Run under a Python with TensorFlow 2.21 and tf_keras (never needed by the test suite):

    TF_USE_LEGACY_KERAS=1 /path/to/tf-venv/bin/python tests/keras/losses/golden/gen_losses.py
"""

from __future__ import annotations

import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.keras is tf_keras (Keras 2), not Keras 3
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import generator_env  # noqa: E402  (tests/conformance/generator_env.py)

generator_env.prepare()

import warnings  # noqa: E402

import tensorflow as tf  # noqa: E402

from tests.keras.losses.golden import cases_losses  # noqa: E402
from tests.ops.golden import gen_ops, harness  # noqa: E402


def main() -> None:
    assert "tf_keras" in type(tf.keras.losses.Loss).__module__ or \
        tf.keras.losses.Loss.__module__.startswith("tf_keras"), "tf.keras is not tf_keras"
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = {
            "tensorflow": tf.__version__,
            "cases": {name: gen_ops.record_case(harness.as_case(entry).fn)
                      for name, entry in cases_losses.CASES.items()},
            "gradients": {name: gen_ops.record_gradient(g)
                          for name, g in cases_losses.GRADIENTS.items()},
        }
    n = generator_env.dump(os.path.join(HERE, "fixtures", "losses.json"), data)
    print(f"losses: {len(data['cases'])} cases, {len(data['gradients'])} gradients, {n} bytes")


if __name__ == "__main__":
    main()
