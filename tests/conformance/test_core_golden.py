"""Replay the core-runtime golden fixture (recorded from TF 2.21) against tfcompat.

``fixtures/core.json`` is written by ``gen_core.py`` with real TensorFlow;
every case is executed here by the *same code* (``programs.py``) with
``tfcompat`` as the module, and must give what TF gave, exactly:

* results: type (tensor / variable / IndexedSlices / Python value / ...),
  dtype name, shape and every value (floats bit-exact up to the sign of
  zero; NaN equals NaN);
* errors: the exception class name, and the key phrase of TF's message
  where the fixture records one (``"key"``; null means class only);
* for variable operations, the variable's value afterwards (a failed
  update must leave it untouched, as TF's kernels validate first).

No TensorFlow needed. A divergence fails its case: the fix belongs in
tfcompat (or, for a deliberate difference, in the fixture's generator with
a note), never in a weaker check here.
"""

from __future__ import annotations

from typing import Any

import pytest

import tfcompat
from tests.conformance import programs
from tests.conformance.fixtures import as_numpy_prints, compare_errors, load_fixture
from tests.conformance.fixtures import summary as _summary

DATA = load_fixture("core")
SECTIONS = DATA["sections"]


def _cases(name: str) -> list:
    return [pytest.param(case, id=case["id"]) for case in programs.expand(SECTIONS[name])]


def compare(expected: Any, actual: Any, path: str, problems: list) -> None:
    """Append a readable line to `problems` for every place `actual` differs from TF."""
    if compare_errors(expected, actual, path, problems):
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        if expected.get("type") != actual.get("type"):
            problems.append(f"{path}: TF gave {_summary(expected)}; "
                            f"tfcompat gave {_summary(actual)}")
            return
        for k in sorted(set(expected) | set(actual)):
            if k not in actual or k not in expected:
                side = "TF" if k in expected else "tfcompat"
                problems.append(f"{path}.{k}: present only in {side}")
            else:
                compare(expected[k], actual[k], f"{path}.{k}", problems)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual) \
            and any(isinstance(e, dict) for e in expected):
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{path}[{i}]", problems)
        return
    if not programs.same(expected, actual):
        problems.append(f"{path}: TF {_summary(expected)} != tfcompat {_summary(actual)}")


# Deliberate differences from TF (each listed in docs/differences.md). For these
# cases the replay checks tfcompat's documented behaviour instead of TF's; every
# other field of the case is still compared with TF.
_TF_OR_QUIRK = ("TF 2.21's `|` looks up `other.__ror__` on the instance after a conversion "
                "error and raises AttributeError (a quirk of Python >= 3.10 type unions); "
                "tfcompat raises the conversion's TypeError, as TF does for `&` and `^`.")
DELIBERATE = {
    **{f"{dt}/fwd:or/py_float": (_TF_OR_QUIRK, {"error": "TypeError", "key": "Cannot convert 2.5"})
       for dt in ("int8", "int16", "int32", "int64", "uint8", "bool")},
    "bool/fwd:or/py_list": (_TF_OR_QUIRK, {"error": "TypeError", "key": "Cannot convert [2, 3, 4]"}),
}


def _documented(expected: Any, override: dict) -> Any:
    """TF's recorded result with the fields of a deliberate difference replaced."""
    if "error" in override:
        return {"error": override["error"], "message": override["key"], "key": override["key"]}
    out = dict(expected)
    for key, value in override.items():
        out[key] = {**out[key], **value} if isinstance(value, dict) else value
    return out


def replay(section: str, case: dict) -> None:
    missing = [op for op in case.get("requires", ()) if not hasattr(tfcompat, op)]
    if missing:
        pytest.skip(f"program needs tf.{', tf.'.join(missing)}, not in tfcompat yet")
    runner = programs.RUNNERS[SECTIONS[section]["runner"]]
    out = runner(tfcompat, case)
    problems: list = []
    expected = as_numpy_prints(case["result"])
    if case["id"] in DELIBERATE:
        expected = _documented(expected, DELIBERATE[case["id"]][1])
    compare(expected, out["result"], "result", problems)
    if "after" in case:
        compare(as_numpy_prints(case["after"]), out.get("after"), "value after", problems)
    if problems:
        # The problems say everything; a traceback through the harness would not.
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.mark.parametrize("case", _cases("conversion"))
def test_conversion(case):
    replay("conversion", case)


@pytest.mark.parametrize("case", _cases("var_ops"))
def test_variable_operators(case):
    replay("var_ops", case)


@pytest.mark.parametrize("case", _cases("slicing"))
def test_slicing(case):
    replay("slicing", case)


@pytest.mark.parametrize("case", _cases("assign"))
def test_assign(case):
    replay("assign", case)


@pytest.mark.parametrize("case", _cases("scatter"))
def test_scatter_and_gather(case):
    replay("scatter", case)


@pytest.mark.parametrize("case", _cases("repr"))
def test_variable_repr(case):
    replay("repr", case)


@pytest.mark.parametrize("case", _cases("dtypes"))
def test_dtypes(case):
    replay("dtypes", case)


@pytest.mark.parametrize("case", _cases("tensor_shape"))
def test_tensor_shape(case):
    replay("tensor_shape", case)


@pytest.mark.parametrize("case", _cases("gradients"))
def test_gradient_programs(case):
    replay("gradients", case)


def test_fixture_is_complete():
    assert DATA["versions"]["tensorflow"].startswith("2.21")
    assert set(SECTIONS) == set(programs.RUNNERS)
    ids = {name: [c["id"] for c in programs.expand(s)] for name, s in SECTIONS.items()}
    for name, section_ids in ids.items():
        assert len(section_ids) == len(set(section_ids)), name
    # every gradient program in programs.py was recorded, and nothing else
    assert set(ids["gradients"]) == set(programs.PROGRAMS)
