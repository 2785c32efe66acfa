"""Record the Keras golden tables (`cases_*.py` here) from tf_keras 2.21 into `fixtures/`.

Run under a Python with TensorFlow 2.21 and tf-keras 2.21 (never needed by the tests):

    /path/to/tf-venv/bin/python tests/keras/golden/gen_keras.py            # every area
    /path/to/tf-venv/bin/python tests/keras/golden/gen_keras.py core conv  # some areas

Each case is `fn(tf)` with `tf.keras` being tf_keras (`TF_USE_LEGACY_KERAS=1`), recorded and
replayed exactly as the op tables (`tests/ops/golden/gen_ops.py`).
"""

from __future__ import annotations

import importlib
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, ROOT)

from tests.ops.golden import gen_ops  # noqa: E402  (prepares the environment, imports TF)
from tests.ops.golden import harness  # noqa: E402

tf = gen_ops.tf
FIXTURES = os.path.join(HERE, "fixtures")


def areas() -> list:
    return sorted(f[len("cases_"):-3] for f in os.listdir(HERE)
                  if f.startswith("cases_") and f.endswith(".py"))


def main(argv) -> None:
    assert tf.keras.__name__.startswith("tf_keras") or "legacy" in tf.keras.__name__ or \
        tf.keras.__version__.startswith("2."), "tf.keras must be tf_keras 2.x"
    os.makedirs(FIXTURES, exist_ok=True)
    for area in argv or areas():
        module = importlib.import_module(f"tests.keras.golden.cases_{area}")
        tf.random.set_seed(0)
        data = {
            "tensorflow": tf.__version__,
            "cases": {name: gen_ops.record_case(harness.as_case(entry).fn)
                      for name, entry in module.CASES.items()},
            "gradients": {name: gen_ops.record_gradient(g)
                          for name, g in getattr(module, "GRADIENTS", {}).items()},
        }
        n = gen_ops.generator_env.dump(os.path.join(FIXTURES, f"{area}.json"), data)
        print(f"{area}: {len(data['cases'])} cases, {len(data['gradients'])} gradients, {n} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
