"""Live cross-checks of the core golden fixture against a real TensorFlow.

Marked ``tf_oracle``: they run only where TensorFlow 2.21 is importable (the
``tf_oracle`` fixture skips otherwise) and check, for a deterministic sample
of ``fixtures/core.json`` (every gradient program plus about one case in
eight of the other sections):

* that TF still gives what the fixture recorded (the fixture is not stale
  for the TF installed), and
* that tfcompat gives what the live TF gives, by the same comparison as the
  replay (``test_core_golden.compare``).

Run them with ``-m tf_oracle`` in an environment that has both torch and
TensorFlow.
"""

from __future__ import annotations

import zlib

import pytest

import tfcompat
from tests.conformance import programs
from tests.conformance.test_core_golden import SECTIONS, compare

SAMPLE_EVERY = 16


def _sample() -> list:
    params = []
    for name, section in SECTIONS.items():
        for case in programs.expand(section):
            if name == "gradients" or zlib.crc32(case["id"].encode()) % SAMPLE_EVERY == 0:
                params.append(pytest.param(name, case, id=f"{name}:{case['id']}"))
    return params


def _with_fixture_keys(expected, live):
    """Live TF output, with the fixture's key phrases attached to its errors."""
    if isinstance(live, dict) and "error" in live:
        key = expected.get("key") if isinstance(expected, dict) else None
        return dict(live, key=key)
    if isinstance(live, dict) and isinstance(expected, dict):
        return {k: _with_fixture_keys(expected.get(k), v) for k, v in live.items()}
    if isinstance(live, list) and isinstance(expected, list) and len(live) == len(expected):
        return [_with_fixture_keys(e, v) for e, v in zip(expected, live)]
    return live


@pytest.mark.tf_oracle
@pytest.mark.parametrize("section,case", _sample())
def test_fixture_matches_live_tf_and_tfcompat(tf_oracle, section, case):
    runner = programs.RUNNERS[SECTIONS[section]["runner"]]
    live = runner(tf_oracle, case)
    problems: list = []
    compare(case["result"], live["result"], "fixture vs live TF: result", problems)
    if "after" in case:
        compare(case["after"], live.get("after"), "fixture vs live TF: value after", problems)
    if problems:
        pytest.fail("the fixture is stale; rerun gen_core.py:\n" + "\n".join(problems),
                    pytrace=False)

    missing = [op for op in case.get("requires", ()) if not hasattr(tfcompat, op)]
    if missing:
        pytest.skip(f"program needs tf.{', tf.'.join(missing)}, not in tfcompat yet")
    ours = runner(tfcompat, case)
    compare(_with_fixture_keys(case["result"], live["result"]), ours["result"],
            "live TF vs tfcompat: result", problems)
    if "after" in live:
        compare(live["after"], ours.get("after"), "live TF vs tfcompat: value after", problems)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
