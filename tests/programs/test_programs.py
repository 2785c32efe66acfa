"""Guide-style TF 2 programs run under tfcompat with only the import changed, and give TF's results.

TF's results are recorded by `gen_programs.py`; each program's results are compared
entry by entry (dtypes and shapes exactly, error classes by name, floats within the error
model of `tests/ops/golden/harness.py`): a program's Case gives its elementwise ulps; a
program whose floats come out of chained reductions (a training loop) is bounded by
`ERROR_MODEL` below instead, whatever ulps its Case says.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os

import pytest

import tfcompat
from tests.ops.golden import harness

HERE = os.path.dirname(os.path.abspath(__file__))
TOPICS = sorted(f[len("programs_"):-3] for f in os.listdir(HERE)
                if f.startswith("programs_") and f.endswith(".py"))


#: Class 4 of the error model (tests/ops/golden/harness.py): ``topic:name -> (n, steps)``, the
#: roundings along one step's longest path (the reduction length plus the elementwise ops
#: around it) and the number of chained steps. Each value of the program may then differ
#: from TF's by ``DEFAULT_ULPS`` ulps + ``steps * 2 * gamma(n) * S``, ``S`` the largest
#: magnitude of that array (normwise: the sums inside a program are not visible here).
ERROR_MODEL = {
    # reduce_mean / reduce_std over 64 rows, a 3-wide matmul and the loss's mean over 64
    # rows per step; 20 gradient-descent steps
    "more:regression": (64 + 8, 20),
    # reduce_mean over 201 samples per step; 10 plain steps (5 with momentum after them)
    "basics:training_loop": (201 + 6, 10),
    # a 2-wide matmul, the mean over 2 rows and Adam's update per step; 5 steps, 1 after the
    # restore
    "more:checkpoints": (12, 6),
    # a 3-wide matvec and tanh per step, the sum of 12 squares; 4 steps forward, 4 back
    "advanced:rnn_loop": (12 + 4, 8),
    # moments over 4, a 4-wide matmul, softmax's sum of 4, a mean over 3: one pass
    "tf1:layer_norm_block": (16, 1),
}


def error_model_case(key: str, case: harness.Case) -> harness.Case:
    """The Case ``key``'s program is compared under: its own, or `ERROR_MODEL`'s bound."""
    if key not in ERROR_MODEL:
        return case
    n, steps = ERROR_MODEL[key]
    return dataclasses.replace(case, ulps=harness.DEFAULT_ULPS, n=n, steps=steps,
                               terms="normwise")


def _params():
    for topic in TOPICS:
        module = importlib.import_module(f"tests.programs.programs_{topic}")
        for name in module.PROGRAMS:
            yield pytest.param(topic, name, id=f"{topic}:{name}")


_RUNS: dict = {}


def replay(topic: str, name: str) -> tuple:
    """(tfcompat's record, TF's record, the Case compared under) of one program, run once."""
    if (topic, name) in _RUNS:
        return _RUNS[topic, name]
    module = importlib.import_module(f"tests.programs.programs_{topic}")
    case = error_model_case(f"{topic}:{name}", harness.as_case(module.PROGRAMS[name]))
    path = os.path.join(HERE, "fixtures", f"{topic}.json")
    if not os.path.exists(path):
        pytest.fail(f"no fixture: run tests/programs/gen_programs.py {topic} under TensorFlow")
    with open(path) as f:
        recorded = json.load(f)["programs"]
    if name not in recorded:
        pytest.fail(f"{name} is not recorded: rerun gen_programs.py {topic}")
    want = recorded[name]
    try:
        got = harness.encode_tfcompat(case.fn(tfcompat))
    except Exception as e:  # noqa: BLE001 - a raise where TF returned is reported by compare
        got = harness.encode_error(e)
    _RUNS[topic, name] = got, want, case
    return got, want, case


@pytest.mark.parametrize("topic,name", list(_params()))
def test_program_gives_tensorflows_results(topic, name):
    got, want, case = replay(topic, name)
    harness.compare(got, want, case, name)


def test_error_model_names_programs():
    names = {f"{topic}:{name}" for topic, name in (p.values for p in _params())}
    assert set(ERROR_MODEL) <= names, sorted(set(ERROR_MODEL) - names)


# Not loose: every program under ERROR_MODEL, and one with its Case's own ulps, fails once a
# float of its result is moved 3 ulps beyond its bound.
@pytest.mark.parametrize("key", sorted(ERROR_MODEL) + ["basics:sigmoid_gradient",
                                                       "basics:autodiff"])
def test_planted_error_fails(key):
    topic, name = key.split(":")
    got, want, case = replay(topic, name)
    harness.compare(got, want, case, name)
    planted = harness.plant(got, want, case, ulps=3)
    assert planted is not None, f"{key} records no float"
    with pytest.raises(AssertionError, match="beyond"):
        harness.compare(planted, want, case, name)


def test_program_bounds_stay_tight():
    # the regression's bound on its final loss (~0.07) stays a small relative error: a
    # loosened ERROR_MODEL fails here, although the planted-error test would still pass
    got, want, case = replay("more", "regression")
    loss = harness.decode_array(want["dict"]["losses"][-1])
    rel = harness.bound(loss, "float32", case) / abs(loss.astype("float64"))
    assert float(rel.max()) <= 2e-4
