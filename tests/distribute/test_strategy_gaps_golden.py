"""`strategy_gaps_programs.py` under tfcompat against TF 2.21's record (`fixtures/strategy_gaps.json`,
made by `gen_strategy_gaps.py`): which replicas, runs, restores and devices draw the same random
streams (generators and op seeds), the default strategy's devices, what cross-replica updates
return."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import tfcompat
from tfcompat.framework import device as device_lib
from tests.distribute import strategy_gaps_programs as sp

RECORD = json.loads((Path(__file__).resolve().parent / "fixtures" / "strategy_gaps.json")
                    .read_text())
EXPECTED = RECORD["programs"]


def _configure(cpus: int) -> None:
    device_lib._reset_runtime()
    if not os.environ.get("TFCOMPAT_TEST_GPU"):  # as tests/conftest.py
        tfcompat.config.set_visible_devices(tfcompat.config.list_physical_devices("CPU"))
    cpu = tfcompat.config.list_physical_devices("CPU")[0]
    tfcompat.config.set_logical_device_configuration(
        cpu, [tfcompat.config.LogicalDeviceConfiguration()] * cpus)


_RESULTS: dict = {}


def results(name: str) -> dict:
    if name not in _RESULTS:
        _configure(RECORD["cpus"])
        try:
            _RESULTS[name] = json.loads(json.dumps(sp.PROGRAMS[name](tfcompat)))
        finally:
            tfcompat.random.set_seed(None)
            device_lib._reset_runtime()
            if not os.environ.get("TFCOMPAT_TEST_GPU"):
                tfcompat.config.set_visible_devices(tfcompat.config.list_physical_devices("CPU"))
    return _RESULTS[name]


def _same(expected, actual) -> bool:
    """Equal, except that an error's message needs only to start with TF's (tfcompat's say
    what to do next)."""
    if isinstance(expected, dict) and "error" in expected and "message" in expected:
        return (isinstance(actual, dict) and actual.get("error") == expected["error"]
                and actual.get("message", "").startswith(expected["message"]))
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(
            _same(expected[k], actual[k]) for k in expected)
    return expected == actual


PARAMS = [(name, entry) for name in sorted(EXPECTED) for entry in sorted(EXPECTED[name])]


@pytest.mark.parametrize("name,entry", PARAMS, ids=[f"{n}/{e}" for n, e in PARAMS])
def test_strategy_gaps_golden(name, entry):
    got = results(name)
    assert entry in got, f"{name}: tfcompat recorded no {entry!r}"
    assert _same(EXPECTED[name][entry], got[entry]), \
        f"{name}/{entry}: TF {EXPECTED[name][entry]!r} != tfcompat {got[entry]!r}"


def test_fixture_covers_every_program():
    assert set(EXPECTED) == set(sp.PROGRAMS)
    assert RECORD["versions"]["tensorflow"] == "2.21.0"
