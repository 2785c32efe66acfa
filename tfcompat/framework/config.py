"""The parts of `tf.config` that are settings rather than devices."""

from __future__ import annotations

from typing import Any

__all__ = ["run_functions_eagerly", "functions_run_eagerly", "set_memory_growth",
           "get_memory_growth"]

_memory_growth: dict = {}


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Accepted for compatibility: `tf.function`s always run eagerly in tfcompat."""


def functions_run_eagerly() -> bool:
    """Always True: tfcompat executes `tf.function`s eagerly."""
    return True


def set_memory_growth(device: Any, enable: bool) -> None:
    """Recorded only: torch's caching allocator always grows on demand."""
    _memory_growth[getattr(device, "name", str(device))] = bool(enable)


def get_memory_growth(device: Any) -> bool:
    return _memory_growth.get(getattr(device, "name", str(device)), False)
