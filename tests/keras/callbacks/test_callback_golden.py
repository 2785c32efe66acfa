"""tfcompat's callbacks against tf_keras 2.21 in the scenarios of `callback_cases.py`
(goldens recorded by `generate_callback_golden.py`): EarlyStopping's stopped epoch and
restored weights, ReduceLROnPlateau's learning-rate trace, LearningRateScheduler,
ModelCheckpoint's file names and messages, CSVLogger's file text, TerminateOnNaN, the
ProgbarLogger's console text (time patched), the hook order and the log types each
callback receives, BackupAndRestore's resume point and backup keys."""

from __future__ import annotations

import json
import math
import os
import time

import pytest

import tfcompat as tf

from tests.keras.callbacks import callback_cases, callback_driver

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "callback_golden.json")) as _f:
    GOLDEN = json.load(_f)["cases"]
CASES = callback_cases.all_cases()


def _env(tmp_path, clock):
    return callback_driver.Env(tf, tf.keras, clock, str(tmp_path), warning_filter=lambda r: True,
                              loggers=["tfcompat.keras.callbacks"])


def assert_matches(actual, expected, path="$"):
    """Structures equal; strings, ints and bools exactly, floats to float32 training noise."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), path
        assert sorted(actual) == sorted(expected), path
        for k in expected:
            assert_matches(actual[k], expected[k], f"{path}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), \
            f"{path}: {actual!r} vs {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_matches(a, e, f"{path}[{i}]")
    elif isinstance(expected, float) and not isinstance(expected, bool):
        assert isinstance(actual, (int, float)), f"{path}: {actual!r}"
        if math.isnan(expected):
            assert math.isnan(actual), path
        else:
            assert actual == pytest.approx(expected, rel=1e-5, abs=1e-6), path
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def test_every_case_has_a_golden():
    assert sorted(GOLDEN) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf_keras(name, tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    record = CASES[name](_env(tmp_path, clock))
    expected = GOLDEN[name]
    if name == "backup_and_restore/keys":
        # tf_keras also backs up `model._train_counter`; tfcompat's callback includes it
        # when the model has one (the training loop's counter).
        model = callback_driver.make_model(_env(tmp_path, clock))
        if getattr(model, "_train_counter", None) is None:
            expected = dict(expected, keys=[k for k in expected["keys"]
                                            if not k.startswith("train_counter/")])
    assert_matches(record, expected)
