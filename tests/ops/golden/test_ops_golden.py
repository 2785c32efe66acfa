"""Replay the op golden tables (`cases_*.py`) against tfcompat; TF's results are the fixtures.

Regenerate a fixture with `gen_ops.py` (needs TensorFlow) after changing its table.
Floats are compared within the error model of `harness.py` (its module docstring).
"""

from __future__ import annotations

import importlib
import json
import os

import numpy as np
import pytest

import tfcompat
from tests.ops.golden import harness

HERE = os.path.dirname(os.path.abspath(__file__))
AREAS = sorted(f[len("cases_"):-3] for f in os.listdir(HERE)
               if f.startswith("cases_") and f.endswith(".py"))


def _fixture(area: str) -> dict:
    path = os.path.join(HERE, "fixtures", f"{area}.json")
    if not os.path.exists(path):
        pytest.fail(f"no fixture for {area}: run tests/ops/golden/gen_ops.py {area} under TensorFlow")
    with open(path) as f:
        return json.load(f)


_FIXTURES = {}


def fixture(area: str) -> dict:
    if area not in _FIXTURES:
        _FIXTURES[area] = _fixture(area)
    return _FIXTURES[area]


def _table(area: str):
    return importlib.import_module(f"tests.ops.golden.cases_{area}")


_encode = harness.encode_tfcompat


def _params(kind: str):
    out = []
    for area in AREAS:
        table = getattr(_table(area), kind, {})
        out.extend(pytest.param(area, name, id=f"{area}:{name}") for name in table)
    return out


@pytest.mark.parametrize("area", AREAS)
def test_fixture_covers_the_table(area):
    table, data = _table(area), fixture(area)
    for kind, key in (("CASES", "cases"), ("GRADIENTS", "gradients")):
        names = set(getattr(table, kind, {}))
        recorded = set(data[key])
        assert names == recorded, (
            f"{area}.{kind} and its fixture differ (missing {sorted(names - recorded)}, stale "
            f"{sorted(recorded - names)}): rerun tests/ops/golden/gen_ops.py {area} under TensorFlow")


@pytest.mark.parametrize("area,name", _params("CASES"))
def test_case_matches_tensorflow(area, name):
    case = harness.as_case(_table(area).CASES[name])
    if name not in fixture(area)["cases"]:
        pytest.fail(f"{name} is not recorded: rerun gen_ops.py {area}")
    want = fixture(area)["cases"][name]  # (None when TF returned None)
    try:
        got = _encode(case.fn(tfcompat))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        got = harness.encode_error(e)
    harness.compare(got, want, case, name)


@pytest.mark.parametrize("area,name", _params("GRADIENTS"))
def test_gradient_matches_tensorflow(area, name):
    grad = _table(area).GRADIENTS[name]
    if name not in fixture(area)["gradients"]:
        pytest.fail(f"{name} is not recorded: rerun gen_ops.py {area}")
    want = fixture(area)["gradients"][name]
    try:
        variables = [tfcompat.Variable(np.array(a)) for a in grad.inputs]
        with tfcompat.GradientTape() as tape:
            y = grad.fn(tfcompat, *variables)
        got = _encode(list(tape.gradient(y, variables)))
    except Exception as e:  # noqa: BLE001
        got = harness.encode_error(e)
    harness.compare(got, want, grad.as_case(), name)
