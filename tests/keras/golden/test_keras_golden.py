"""Replay the Keras golden tables (`cases_*.py` here) against tfcompat; tf_keras's results
are the fixtures (regenerate with `gen_keras.py` under TensorFlow). Compared by the ops
harness's error model (`tests/ops/golden/harness.py`)."""

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
_FIXTURES: dict = {}


def fixture(area: str) -> dict:
    if area not in _FIXTURES:
        path = os.path.join(HERE, "fixtures", f"{area}.json")
        if not os.path.exists(path):
            pytest.fail(f"no fixture for {area}: run tests/keras/golden/gen_keras.py {area} "
                        "under TensorFlow")
        with open(path) as f:
            _FIXTURES[area] = json.load(f)
    return _FIXTURES[area]


def _table(area: str):
    return importlib.import_module(f"tests.keras.golden.cases_{area}")


def _params(kind: str):
    out = []
    for area in AREAS:
        for name in getattr(_table(area), kind, {}):
            out.append(pytest.param(area, name, id=f"{area}:{name}"))
    return out


@pytest.mark.parametrize("area", AREAS)
def test_fixture_covers_the_table(area):
    table, data = _table(area), fixture(area)
    for kind, key in (("CASES", "cases"), ("GRADIENTS", "gradients")):
        names, recorded = set(getattr(table, kind, {})), set(data[key])
        assert names == recorded, (
            f"{area}.{kind} and its fixture differ (missing {sorted(names - recorded)}, stale "
            f"{sorted(recorded - names)}): rerun tests/keras/golden/gen_keras.py {area}")


@pytest.mark.parametrize("area,name", _params("CASES"))
def test_case_matches_tf_keras(area, name):
    case = harness.as_case(_table(area).CASES[name])
    want = fixture(area)["cases"].get(name, "unrecorded")
    if want == "unrecorded":
        pytest.fail(f"{name} is not recorded: rerun gen_keras.py {area}")
    tfcompat.random.set_seed(0)
    try:
        got = harness.encode_tfcompat(case.fn(tfcompat))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        got = harness.encode_error(e)
    harness.compare(got, want, case, name)


@pytest.mark.parametrize("area,name", _params("GRADIENTS"))
def test_gradient_matches_tf_keras(area, name):
    grad = _table(area).GRADIENTS[name]
    want = fixture(area)["gradients"].get(name, "unrecorded")
    if want == "unrecorded":
        pytest.fail(f"{name} is not recorded: rerun gen_keras.py {area}")
    try:
        variables = [tfcompat.Variable(np.array(a)) for a in grad.inputs]
        with tfcompat.GradientTape() as tape:
            y = grad.fn(tfcompat, *variables)
        got = harness.encode_tfcompat(list(tape.gradient(y, variables)))
    except Exception as e:  # noqa: BLE001
        got = harness.encode_error(e)
    harness.compare(got, want, grad.as_case(), name)
