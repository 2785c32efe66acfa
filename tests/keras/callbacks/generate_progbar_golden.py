"""Record what tf_keras 2.21's `Progbar` prints for each scenario of `progbar_cases.py`.

Run under TensorFlow + tf-keras (from the repository root):
    TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/keras/callbacks/generate_progbar_golden.py
It writes `fixtures/progbar_golden.json` ({case name: the exact stdout text}), which
`test_progbar.py` compares byte for byte against tfcompat's Progbar.
"""

import contextlib
import io
import json
import os
import sys
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402
from tf_keras.src.utils.generic_utils import Progbar  # noqa: E402

import progbar_cases  # noqa: E402


def main() -> None:
    clock = [0.0]
    real_time = time.time
    out = {}
    time.time = lambda: clock[0]
    try:
        for case in progbar_cases.CASES:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                progbar_cases.replay(case, Progbar, lambda x: tf.constant(x, tf.float32), clock)
            out[case["name"]] = buffer.getvalue()
    finally:
        time.time = real_time
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    with open(os.path.join(HERE, "fixtures", "progbar_golden.json"), "w") as f:
        json.dump({"tf_keras": "2.21", "cases": out}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
