"""Timing helpers shared by the benchmark scripts (not a test: no asserts)."""

from __future__ import annotations

import statistics
import time
from typing import Callable, Optional

import torch


def sync(device: Optional[torch.device] = None) -> None:
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)


def per_call_us(fn: Callable[[], object], repeat: int = 7, number: Optional[int] = None,
                device: Optional[torch.device] = None) -> float:
    """Median over `repeat` runs of the mean time of `number` calls, in microseconds."""
    for _ in range(3):
        fn()
    sync(device)
    if number is None:  # aim at ~20 ms per run
        start = time.perf_counter()
        fn()
        sync(device)
        number = max(1, min(20000, int(0.02 / max(time.perf_counter() - start, 1e-7))))
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync(device)
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs) * 1e6


def median_ms(fn: Callable[[], object], repeat: int = 15, warmup: int = 3,
              device: Optional[torch.device] = None) -> float:
    """Median wall time of one call, in milliseconds."""
    for _ in range(warmup):
        fn()
    sync(device)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync(device)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1e3


def tensorflow():
    """TensorFlow if it is importable (optional comparison), else None."""
    try:
        import os
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf_real
        return tf_real
    except Exception:
        return None


def interleaved_ms(fns: dict, repeat: int = 15, warmup: int = 3,
                   device: Optional[torch.device] = None) -> dict:
    """Median wall time (ms) of one call of each function, measured in alternation.

    Taking turns (a, b, c, a, b, c, ...) keeps slow drifts of the machine
    (memory bandwidth, frequency, neighbours) out of the ratios.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    sync(device)
    runs: dict = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            sync(device)
            runs[name].append(time.perf_counter() - start)
    return {name: statistics.median(r) * 1e3 for name, r in runs.items()}


def interleaved_us(fns: dict, repeat: int = 9, number: Optional[int] = None,
                   device: Optional[torch.device] = None) -> dict:
    """Per-call microseconds of each function: median of `repeat` alternating runs of `number` calls."""
    first = next(iter(fns.values()))
    for fn in fns.values():
        for _ in range(3):
            fn()
    sync(device)
    if number is None:  # aim at ~10 ms per run of the first function
        start = time.perf_counter()
        first()
        sync(device)
        number = max(1, min(20000, int(0.01 / max(time.perf_counter() - start, 1e-7))))
    runs: dict = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            sync(device)
            runs[name].append((time.perf_counter() - start) / number)
    return {name: statistics.median(r) * 1e6 for name, r in runs.items()}
