"""`tf.keras.utils.Progbar`: tf_keras 2.21's exact text (goldens from
`generate_progbar_golden.py`), its averaging laws, and lazy reads of tensor values."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
import time

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.keras.utils import generic_utils
from tfcompat.keras.utils.generic_utils import Progbar

from tests.keras.callbacks import progbar_cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "progbar_golden.json")) as _f:
    GOLDEN = json.load(_f)["cases"]


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def _capture(fn, capsys) -> str:
    capsys.readouterr()
    fn()
    return capsys.readouterr().out


def test_every_case_has_a_golden():
    assert sorted(GOLDEN) == sorted(c["name"] for c in progbar_cases.CASES)


@pytest.mark.parametrize("case", progbar_cases.CASES, ids=lambda c: c["name"])
def test_text_matches_tf_keras_byte_for_byte(case, clock, capsys):
    out = _capture(lambda: progbar_cases.replay(
        case, Progbar, lambda x: torch.tensor(x, dtype=torch.float32), clock), capsys)
    assert out == GOLDEN[case["name"]]


def test_public_name():
    assert tf.keras.utils.Progbar is Progbar


def test_dynamic_display_follows_tf_keras_rule(clock):
    # On POSIX, tf_keras rewrites in place whatever stdout is ("posix" in sys.modules).
    assert Progbar(3)._dynamic_display is ("posix" in sys.modules or sys.stdout.isatty())


def _last_line(out: str) -> str:
    return re.split(r"[\r\n]", out.rstrip("\n"))[-1].lstrip("\b")


@given(st.lists(st.tuples(st.integers(1, 5), st.floats(-100, 100, allow_nan=False)),
                min_size=1, max_size=8))
def test_non_stateful_values_are_step_weighted_averages(steps):
    # Law: the shown value is sum(v_i * advance_i) / sum(advance_i).
    now = [0.0]
    real = time.time
    time.time = lambda: now[0]
    buffer, saved = io.StringIO(), sys.stdout
    try:
        sys.stdout = buffer
        target = sum(n for n, _ in steps)
        bar = Progbar(target, interval=0.0)
        for n, v in steps:
            now[0] += 0.5
            bar.add(n, [("x", v)])
    finally:
        sys.stdout, time.time = saved, real
    expected = sum(n * v for n, v in steps) / target
    shown = float(_last_line(buffer.getvalue()).split("x: ")[1].split()[0])
    assert shown == pytest.approx(expected, rel=1e-3, abs=1e-3)


@given(st.lists(st.floats(0.01, 10.0), min_size=1, max_size=6))
def test_stateful_values_show_the_last_value(values):
    now = [0.0]
    real = time.time
    time.time = lambda: now[0]
    buffer, saved = io.StringIO(), sys.stdout
    try:
        sys.stdout = buffer
        bar = Progbar(len(values), interval=0.0, stateful_metrics=["acc"])
        for i, v in enumerate(values):
            now[0] += 0.25
            bar.update(i + 1, [("acc", v)])
    finally:
        sys.stdout, time.time = saved, real
    assert _last_line(buffer.getvalue()).endswith(f"acc: {values[-1]:.4f}")


@given(st.integers(1, 500), st.integers(0, 500), st.integers(1, 60))
def test_bar_is_always_width_plus_brackets(target, current, width):
    current = min(current, target)
    now = [0.0]
    real = time.time
    time.time = lambda: now[0]
    buffer, saved = io.StringIO(), sys.stdout
    try:
        sys.stdout = buffer
        Progbar(target, width=width).update(current, finalize=True)
    finally:
        sys.stdout, time.time = saved, real
    bar = re.search(r"\[([=>.]*)\]", buffer.getvalue()).group(1)
    assert len(bar) == width
    filled = int(width * current / target)
    assert bar.count("=") + bar.count(">") == filled


def test_stateful_tensor_is_read_only_when_a_line_prints(clock, capsys):
    reads = []
    bar = Progbar(1000, interval=10.0, stateful_metrics=["loss"])
    original = bar._read_value
    bar._read_value = lambda v: reads.append(1) or original(v)
    for i in range(1, 200):
        clock[0] = 100.0 + i * 0.01  # 2 s in all: the first prints, the rest are inside the interval
        bar.update(i, [("loss", torch.tensor(0.5))])
    assert len(reads) == 1
    clock[0] = 130.0
    bar.update(1000, [("loss", torch.tensor(0.25))])
    assert len(reads) == 2
    assert capsys.readouterr().out.endswith("loss: 0.2500\n")


def test_non_stateful_tensor_is_read_at_each_update(clock, capsys):
    # Averaging needs every value: these are read as given (tf_keras does the same).
    reads = []
    bar = Progbar(10, interval=10.0)
    original = bar._read_value
    bar._read_value = lambda v: reads.append(1) or original(v)
    for i in range(1, 6):
        bar.update(i, [("loss", torch.tensor(float(i)))])
    assert len(reads) == 5


def test_verbose_zero_prints_nothing_but_keeps_state(clock, capsys):
    bar = Progbar(3, verbose=0)
    bar.update(2, [("loss", 1.0)])
    assert capsys.readouterr().out == ""
    assert bar._seen_so_far == 2 and bar._values["loss"] == [2.0, 2]


def test_interactive_logging_off_sends_text_to_the_logger(clock, capsys, caplog):
    generic_utils.disable_interactive_logging()
    try:
        with caplog.at_level(logging.INFO, logger="tfcompat.keras"):
            Progbar(2).update(2, [("loss", 1.0)])
    finally:
        generic_utils.enable_interactive_logging()
    assert capsys.readouterr().out == ""
    assert "2/2 [" in caplog.text and "loss: 1.0000" in caplog.text
    assert generic_utils.is_interactive_logging_enabled()


def test_numpy_array_values_are_averaged_to_a_scalar(clock, capsys):
    bar = Progbar(2, interval=0.0)
    bar.update(1, [("v", np.array([1.0, 3.0]))])
    bar.update(2, [("v", np.array([3.0, 5.0]))])
    assert capsys.readouterr().out.endswith("v: 3.0000\n")
