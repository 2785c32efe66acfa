"""Progbar scenarios as data, replayed on tf_keras's Progbar (`generate_progbar_golden.py`,
under TensorFlow) and on tfcompat's (`test_progbar.py`), with `time.time` patched to a clock
the scenario sets. Pure Python: importable with or without TensorFlow.

A scenario is `{"name", "init": Progbar kwargs, "dynamic": None | bool, "ops": [...]}` with
ops `["t", seconds]` (set the clock), `["update", current, values, finalize]`,
`["add", n, values]` and `["target", n]` (assign `progbar.target`, as ProgbarLogger does
once an unknown target is known). A value is a number, `["f32", x]` (a NumPy float32) or
`["tensor", x]` (a float32 tensor of the framework under test). The clock is set before the
Progbar is made (`t0`).
"""

from __future__ import annotations

from typing import Any, Callable, List


def _steps(n: int, t0: float, dt: float, values: Callable[[int], list], finalize: Any = None,
           start: int = 1) -> list:
    ops: list = []
    for i in range(start, n + 1):
        ops.append(["t", round(t0 + dt * i, 6)])
        ops.append(["update", i, values(i), finalize])
    return ops


CASES: List[dict] = [
    {"name": "basic_verbose1", "t0": 100.0, "init": {"target": 10, "stateful_metrics": ["acc"]},
     "dynamic": None,
     "ops": _steps(10, 100.0, 0.031, lambda i: [["loss", 1.0 / i], ["acc", 0.05 * i]])},
    {"name": "interval_zero_every_step", "t0": 0.0,
     "init": {"target": 5, "interval": 0.0}, "dynamic": None,
     "ops": _steps(5, 0.0, 0.2, lambda i: [["loss", 0.5 - 0.1 * i]])},
    {"name": "non_dynamic_display", "t0": 10.0, "init": {"target": 4, "interval": 0.0},
     "dynamic": False,
     "ops": _steps(4, 10.0, 1.5, lambda i: [["loss", 2.0 * i], ["mae", 0.3]])},
    {"name": "eta_hours_minutes_seconds", "t0": 0.0, "init": {"target": 100000},
     "dynamic": None,
     "ops": [["t", 1.0], ["update", 1, [], None], ["t", 10.0], ["update", 2, [], None],
             ["t", 11.0], ["update", 90000, [], None], ["t", 12.0], ["update", 99990, [], None],
             ["t", 13.0], ["update", 100000, [], None]]},
    {"name": "eta_minutes", "t0": 0.0, "init": {"target": 50}, "dynamic": None,
     "ops": [["t", 2.0], ["update", 1, [], None], ["t", 5.0], ["update", 2, [], None],
             ["t", 6.0], ["update", 49, [], None], ["t", 8.0], ["update", 50, [], None]]},
    {"name": "unknown_target_then_known", "t0": 0.0, "init": {"target": None},
     "dynamic": None,
     "ops": _steps(3, 0.0, 0.4, lambda i: [["loss", 0.9 / i]], finalize=False)
     + [["target", 3], ["t", 1.3], ["update", 3, [["loss", 0.25]], True]]},
    {"name": "unknown_target_large_count", "t0": 0.0, "init": {"target": None},
     "dynamic": None,
     "ops": [["t", 0.5], ["update", 1234567, [["loss", 3.0]], False],
             ["t", 1.0], ["update", 12345678, [["loss", 1.0]], False]]},
    {"name": "small_negative_zero_values_verbose1", "t0": 0.0,
     "init": {"target": 2, "interval": 0.0}, "dynamic": None,
     "ops": [["t", 0.5], ["update", 1, [["tiny", 1e-4], ["neg", -0.5], ["negtiny", -1e-5],
                                        ["zero", 0.0], ["edge", 0.001], ["big", 12345.678]],
                          None],
             ["t", 1.0], ["update", 2, [["tiny", 2e-4], ["neg", -0.25], ["negtiny", 0.0],
                                        ["zero", 0.0], ["edge", 0.001], ["big", 1.0]], None]]},
    {"name": "small_negative_zero_values_verbose2", "t0": 0.0,
     "init": {"target": 2, "verbose": 2}, "dynamic": None,
     "ops": [["t", 0.5], ["update", 1, [["tiny", 1e-4], ["neg", -0.5], ["zero", 0.0],
                                        ["edge", 0.001]], None],
             ["t", 1.0], ["update", 2, [["tiny", 2e-4], ["neg", -0.25], ["zero", 0.0],
                                        ["edge", 0.001]], None]]},
    {"name": "verbose2_two_epochs_same_bar", "t0": 5.0,
     "init": {"target": 4, "verbose": 2, "stateful_metrics": ["acc"]}, "dynamic": None,
     "ops": _steps(4, 5.0, 0.003, lambda i: [["loss", 0.1 * i], ["acc", 0.2 * i]])
     + [["t", 9.0], ["update", 4, [["loss", 0.5]], True]]},
    {"name": "verbose2_seconds_per_step", "t0": 0.0, "init": {"target": 3, "verbose": 2},
     "dynamic": None, "ops": _steps(3, 0.0, 2.5, lambda i: [["loss", 1.5]])},
    {"name": "verbose0_silent", "t0": 0.0, "init": {"target": 3, "verbose": 0},
     "dynamic": None, "ops": _steps(3, 0.0, 1.0, lambda i: [["loss", 1.0]])},
    {"name": "microseconds_per_sample", "t0": 0.0,
     "init": {"target": 1000000, "unit_name": "sample", "width": 10}, "dynamic": None,
     "ops": [["t", 0.0001], ["update", 1, [], None], ["t", 0.5], ["update", 1000000, [], None]]},
    {"name": "milliseconds_per_step", "t0": 0.0, "init": {"target": 20, "width": 12},
     "dynamic": None, "ops": _steps(20, 0.0, 0.009, lambda i: [["loss", 0.01 * i]])},
    {"name": "zero_elapsed_time", "t0": 3.0, "init": {"target": 2}, "dynamic": None,
     "ops": [["update", 1, [["loss", 1.0]], None], ["update", 2, [["loss", 1.0]], None]]},
    {"name": "add_and_current_zero", "t0": 0.0, "init": {"target": 6, "interval": 0.0},
     "dynamic": None,
     "ops": [["t", 0.1], ["update", 0, [["loss", 5.0]], None], ["t", 0.2],
             ["add", 2, [["loss", 4.0]]], ["t", 0.3], ["add", 3, [["loss", 1.0]]],
             ["t", 0.9], ["add", 1, [["loss", 2.0], ["late", 7.0]]]]},
    {"name": "same_step_twice_finalize", "t0": 0.0,
     "init": {"target": 3, "stateful_metrics": ["acc"]}, "dynamic": None,
     "ops": _steps(3, 0.0, 0.3, lambda i: [["loss", 0.3 * i], ["acc", 0.1]])
     + [["t", 1.2], ["update", 3, [["loss", 0.6], ["acc", 0.9]], True]]},
    {"name": "float32_and_tensor_values", "t0": 0.0,
     "init": {"target": 3, "interval": 0.0, "stateful_metrics": ["lr", "st"]}, "dynamic": None,
     "ops": [["t", 0.1], ["update", 1, [["lr", ["f32", 0.001]], ["st", ["tensor", 0.001]],
                                        ["loss", ["tensor", 0.1]], ["m", ["f32", 0.7]]], None],
             ["t", 0.2], ["update", 2, [["lr", ["f32", 0.001]], ["st", ["tensor", 0.25]],
                                        ["loss", ["tensor", 0.2]], ["m", ["f32", 0.3]]], None],
             ["t", 0.3], ["update", 3, [["lr", ["f32", 0.5]], ["st", ["tensor", 1e-4]],
                                        ["loss", ["tensor", 0.35]], ["m", ["f32", 0.1]]], None]]},
    {"name": "finalize_false_at_target_then_true", "t0": 0.0,
     "init": {"target": 2, "interval": 0.0}, "dynamic": None,
     "ops": [["t", 0.5], ["update", 2, [["loss", 1.0]], False], ["t", 0.7],
             ["update", 2, [["loss", 3.0]], True]]},
]


def replay(case: dict, progbar_cls: Any, make_tensor: Callable[[float], Any],
           clock: List[float]) -> None:
    """Run `case`'s ops on a new `progbar_cls`, setting `clock[0]` (which the caller's
    patched `time.time` returns) as the ops say."""
    import numpy as np

    def value(v: Any) -> Any:
        if isinstance(v, list):
            kind, x = v
            return np.float32(x) if kind == "f32" else make_tensor(x)
        return v

    def values(pairs: list) -> list:
        return [(k, value(v)) for k, v in pairs]

    clock[0] = case["t0"]
    bar = progbar_cls(**case["init"])
    if case["dynamic"] is not None:
        bar._dynamic_display = case["dynamic"]
    for op in case["ops"]:
        if op[0] == "t":
            clock[0] = op[1]
        elif op[0] == "update":
            bar.update(op[1], values(op[2]), finalize=op[3])
        elif op[0] == "add":
            bar.add(op[1], values(op[2]))
        elif op[0] == "target":
            bar.target = op[1]
        else:
            raise ValueError(f"unknown op {op[0]!r}")
