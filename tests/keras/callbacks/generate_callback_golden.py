"""Record what tf_keras 2.21's callbacks do in each scenario of `callback_cases.py`.

Run under TensorFlow + tf-keras (from the repository root):
    TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/keras/callbacks/generate_callback_golden.py
It writes `fixtures/callback_golden.json` ({case name: record}), which
`test_callback_golden.py` compares against tfcompat running the same scenarios.
"""

import json
import os
import shutil
import sys
import tempfile
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository

import tensorflow as tf  # noqa: E402

from tests.keras.callbacks import callback_cases, callback_driver  # noqa: E402


def main() -> None:
    clock = [0.0]
    real_time = time.time
    out = {}
    time.time = lambda: clock[0]
    try:
        for name, case in callback_cases.all_cases().items():
            tmpdir = tempfile.mkdtemp()
            try:
                env = callback_driver.Env(
                    tf, tf.keras, clock, tmpdir,
                    warning_filter=lambda r: r.pathname.endswith("callbacks.py"),
                    loggers=["tensorflow"])
                clock[0] = 0.0
                out[name] = case(env)
            finally:
                shutil.rmtree(tmpdir, ignore_errors=True)
    finally:
        time.time = real_time
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    with open(os.path.join(HERE, "fixtures", "callback_golden.json"), "w") as f:
        json.dump({"tf_keras": "2.21", "cases": out}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
