"""Replay `cases_leaf.py` against tfcompat; tf_keras 2.21's results are `fixtures/leaf.json`.

Regenerate the fixture with `gen_leaf.py` (needs TensorFlow and tf_keras) after changing the
table. Floats are compared within the error model of `tests/ops/golden/harness.py`.
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import tfcompat
from tests.keras.golden_leaf import cases_leaf
from tests.ops.golden import harness

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "leaf.json")) as _f:
    FIXTURE = json.load(_f)


def test_fixture_covers_the_table():
    for table, key in ((cases_leaf.CASES, "cases"), (cases_leaf.GRADIENTS, "gradients")):
        names, recorded = set(table), set(FIXTURE[key])
        assert names == recorded, (
            f"missing {sorted(names - recorded)}, stale {sorted(recorded - names)}: rerun "
            "tests/keras/golden_leaf/gen_leaf.py under TensorFlow")


@pytest.mark.parametrize("name", sorted(cases_leaf.CASES))
def test_case_matches_tf_keras(name):
    case = harness.as_case(cases_leaf.CASES[name])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = harness.encode_tfcompat(case.fn(tfcompat))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        got = harness.encode_error(e)
    harness.compare(got, FIXTURE["cases"][name], case, name)


@pytest.mark.parametrize("name", sorted(cases_leaf.GRADIENTS))
def test_gradient_matches_tf_keras(name):
    grad = cases_leaf.GRADIENTS[name]
    try:
        variables = [tfcompat.Variable(np.array(a)) for a in grad.inputs]
        with tfcompat.GradientTape() as tape:
            y = grad.fn(tfcompat, *variables)
        got = harness.encode_tfcompat(list(tape.gradient(y, variables)))
    except Exception as e:  # noqa: BLE001
        got = harness.encode_error(e)
    harness.compare(got, FIXTURE["gradients"][name], grad.as_case(), name)
