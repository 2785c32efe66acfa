"""Record the `Model.fit` / `evaluate` / `predict` cases (`fit_cases.py`) from tf_keras 2.21.

Run under a Python with TensorFlow 2.21 and tf-keras 2.21 (never needed by the tests):

    TF_USE_LEGACY_KERAS=1 /path/to/tf-venv/bin/python tests/keras/training/generate_fit_golden.py
    ... generate_fit_golden.py mlp_regression_sgd class_weight     # some cases (merged in)

Each case runs twice: in float32 (the golden values tfcompat is compared with) and, unless
the case says otherwise, in float64 (`floatx` float64: the data, weights, optimizer and
metrics in float64), the reference the test's error model is checked against. Both land in
`fixtures/fit_golden.json`, values as their exact bytes.
"""

from __future__ import annotations

import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import generator_env  # noqa: E402  (re-execs with a fixed hash seed, hides GPUs, quiets TF)

generator_env.prepare()

import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402

from tests.keras.training import fit_cases  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "fit_golden.json")


def run_case(case: fit_cases.FitCase, floatx: str) -> object:
    """`case.fn(tf)` under `floatx`, in a fresh Keras session (stable layer names)."""
    tf.keras.backend.clear_session()
    tf.keras.backend.set_floatx(floatx)
    try:
        return fit_cases.encode(case.fn(tf))
    finally:
        tf.keras.backend.set_floatx("float32")


def main(argv: list) -> None:
    assert tf.keras.__name__.startswith("tf_keras"), (
        f"tf.keras is {tf.keras.__name__}, not tf_keras: set TF_USE_LEGACY_KERAS=1 with "
        "tf-keras 2.21 installed")
    names = argv or list(fit_cases.CASES)
    unknown = sorted(set(names) - set(fit_cases.CASES))
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; known: {sorted(fit_cases.CASES)}")
    data = {"tensorflow": tf.__version__, "tf_keras": tf_keras.__version__, "cases": {}}
    if argv and os.path.exists(FIXTURE):
        with open(FIXTURE) as f:
            data["cases"] = json.load(f)["cases"]
    for name in names:
        case = fit_cases.CASES[name]
        golden = run_case(case, "float32")
        if case.float64 and run_case(case, "float32") != golden:
            # a golden value must not depend on thread timing (e.g. a generator's read-ahead)
            raise SystemExit(f"{name}: two float32 runs differ; make the case deterministic")
        data["cases"][name] = {
            "float32": golden,
            "float64": run_case(case, "float64") if case.float64 else None,
        }
        print(f"{name}: recorded", flush=True)
    # the table's order, whatever order the cases were (re)recorded in
    data["cases"] = {n: data["cases"][n] for n in fit_cases.CASES if n in data["cases"]}
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    n = generator_env.dump(FIXTURE, data)
    print(f"{len(data['cases'])} cases, {n} bytes -> {os.path.relpath(FIXTURE, ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
