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

FIXTURE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

__all__ = ["FIXTURE_DIR", "fixture_path", "load_fixture"]


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
