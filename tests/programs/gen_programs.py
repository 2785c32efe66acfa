"""Record the guide-style programs (`programs_*.py`) under TensorFlow 2.21 into `fixtures/`.

    /path/to/tf-venv/bin/python tests/programs/gen_programs.py [topic ...]
"""

from __future__ import annotations

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# `tf.keras` is tf_keras 2.21 (what tfcompat.keras follows), not Keras 3.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops", "golden"))
import gen_ops  # noqa: E402  (prepares the environment and imports TensorFlow)

from tests.ops.golden import harness  # noqa: E402

tf = gen_ops.tf


def topics() -> list:
    return sorted(f[len("programs_"):-3] for f in os.listdir(HERE)
                  if f.startswith("programs_") and f.endswith(".py"))


def main(argv) -> None:
    for topic in argv or topics():
        module = importlib.import_module(f"tests.programs.programs_{topic}")
        data = {"tensorflow": tf.__version__,
                "programs": {name: gen_ops.record_case(harness.as_case(p).fn)
                             for name, p in module.PROGRAMS.items()}}
        path = os.path.join(HERE, "fixtures", f"{topic}.json")
        n = gen_ops.generator_env.dump(path, data)
        print(f"{topic}: {len(data['programs'])} programs, {n} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
