"""Loader for the golden fixture files in ``tests/conformance/fixtures/``.

The fixtures are produced by generator scripts that run real TensorFlow (for
example ``gen_optimizers.py``); the test suite itself never imports TF and
only reads them through :func:`load_fixture`.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import ml_dtypes
import numpy as np

FIXTURE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

__all__ = ["FIXTURE_DIR", "fixture_path", "load_fixture", "as_numpy_prints", "summary",
           "compare_errors"]


def fixture_path(name: str) -> str:
    """Absolute path of fixture ``name`` (``"optimizers"`` or ``"optimizers.json"``)."""
    if not name.endswith(".json"):
        name = name + ".json"
    return os.path.join(FIXTURE_DIR, name)


@functools.lru_cache(maxsize=None)
def _load(path: str) -> Any:
    with open(path, "r", encoding="utf-8") as f:
        return json.load(f)


def load_fixture(name: str) -> Any:
    """Parsed JSON content of fixture ``name``.

    The result is cached and shared between callers: treat it as read-only
    (copy before mutating).
    """
    path = fixture_path(name)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"fixture {name!r} not found at {path}; regenerate it with the "
            "matching tests/conformance/gen_*.py script (needs TensorFlow)"
        )
    return _load(path)


# The ml_dtypes the fixtures were recorded with (TF 2.21's environment) spell
# their dtypes in numpy reprs as `dtype=bfloat16`; ml_dtypes 0.7 spells
# `dtype=dtype(bfloat16)`. TF prints a tensor's value with numpy's repr, so TF
# itself prints whichever spelling the installed ml_dtypes gives (TF 2.21 with
# ml_dtypes 0.7 prints `numpy=array([1.5], dtype=dtype(bfloat16))`).
_RECORDED_SPELLING = {name: f"dtype={name})" for name in ("bfloat16",)}


@functools.lru_cache(maxsize=None)
def _installed_spelling(name: str) -> str:
    text = repr(np.array([1.5], dtype=getattr(ml_dtypes, name)))
    return text[text.index("dtype="):]


def as_numpy_prints(expected: Any) -> Any:
    """TF's recorded result with each numpy repr of an ml_dtypes array spelled
    as the installed numpy and ml_dtypes print it (what TF would print here).
    Only the dtype's spelling changes; values and everything else stay TF's."""
    if isinstance(expected, str):
        for name, recorded in _RECORDED_SPELLING.items():
            if recorded in expected:
                expected = expected.replace(recorded, _installed_spelling(name))
        return expected
    if isinstance(expected, dict):
        return {k: as_numpy_prints(v) for k, v in expected.items()}
    if isinstance(expected, list):
        return [as_numpy_prints(v) for v in expected]
    return expected


def summary(enc: Any) -> str:
    """An encoded result as at most 300 characters of JSON (for failure messages)."""
    text = json.dumps(enc)
    return text if len(text) <= 300 else text[:300] + "..."


def compare_errors(expected: Any, actual: Any, path: str, problems: list) -> bool:
    """If either side is a recorded error, append what differs to `problems` and return True.

    Errors agree when the class is TF's and the message contains TF's key phrase.
    """
    exp_err = isinstance(expected, dict) and "error" in expected
    act_err = isinstance(actual, dict) and "error" in actual
    if not (exp_err or act_err):
        return False
    if not act_err:
        problems.append(f"{path}: TF raised {expected['error']}({expected['message']!r}); "
                        f"tfcompat returned {summary(actual)}")
    elif not exp_err:
        problems.append(f"{path}: TF returned {summary(expected)}; tfcompat raised "
                        f"{actual['error']}({actual['message']!r})")
    elif actual["error"] != expected["error"]:
        problems.append(f"{path}: TF raised {expected['error']}({expected['message']!r}); "
                        f"tfcompat raised {actual['error']}({actual['message']!r})")
    elif expected.get("key") and expected["key"] not in actual["message"]:
        problems.append(f"{path}: both raise {expected['error']}, but tfcompat's message "
                        f"lacks TF's key phrase {expected['key']!r}: {actual['message']!r}")
    return True
