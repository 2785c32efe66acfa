"""Guide-style TF 2 programs run under tfcompat with only the import changed, and give TF's results.

TF's results are recorded by `gen_programs.py`; each program's results are compared
entry by entry (values to a few ulps, dtypes and shapes exactly, error classes by name).
"""

from __future__ import annotations

import importlib
import json
import os

import pytest

import tfcompat
from tests.ops.golden import harness

HERE = os.path.dirname(os.path.abspath(__file__))
TOPICS = sorted(f[len("programs_"):-3] for f in os.listdir(HERE)
                if f.startswith("programs_") and f.endswith(".py"))


def _params():
    for topic in TOPICS:
        module = importlib.import_module(f"tests.programs.programs_{topic}")
        for name in module.PROGRAMS:
            yield pytest.param(topic, name, id=f"{topic}:{name}")


@pytest.mark.parametrize("topic,name", list(_params()))
def test_program_gives_tensorflows_results(topic, name):
    module = importlib.import_module(f"tests.programs.programs_{topic}")
    case = harness.as_case(module.PROGRAMS[name])
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
    harness.compare(got, want, case, name)
