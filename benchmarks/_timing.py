"""Timing helpers shared by the benchmark scripts (not a test: no asserts).

Every measured thing is a *timer*: `run(number)` performs `number` calls
and returns the seconds they took, measured where they ran. `LocalTimer`
wraps a function of this process; `benchmarks._tf.RemoteTimer` asks the
TensorFlow worker process to time its own calls. `interleaved` takes turns
between timers, one run each per repetition (a, b, tf, a, b, tf, ...), so a
slow drift of the machine (frequency, memory bandwidth, neighbours) hits
every column alike and stays out of the ratios.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from typing import Callable, Dict, Mapping, Optional, Protocol, Union

import torch


def sync(device: Optional[torch.device] = None) -> None:
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)


class Timer(Protocol):
    def run(self, number: int) -> float:
        """Seconds taken by `number` calls."""


class LocalTimer:
    """`number` calls of `fn` in this process, the device synchronized at the end."""

    def __init__(self, fn: Callable[[], object], device: Optional[torch.device] = None,
                 warmup: int = 3) -> None:
        self.fn = fn
        self.device = device
        self.warmup = warmup
        self._ready = False

    def prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        for _ in range(self.warmup):
            self.fn()
        sync(self.device)

    def run(self, number: int) -> float:
        fn = self.fn
        start = time.perf_counter()
        for _ in range(number):
            fn()
        sync(self.device)
        return time.perf_counter() - start


TimerLike = Union[Timer, Callable[[], object]]


def _timers(fns: Mapping[str, TimerLike], device: Optional[torch.device], warmup: int) -> Dict[str, Timer]:
    out: Dict[str, Timer] = {}
    for name, fn in fns.items():
        timer = fn if hasattr(fn, "run") else LocalTimer(fn, device, warmup)
        if hasattr(timer, "prepare"):
            timer.prepare()
        out[name] = timer
    return out


def calibrate(timer: Timer, target_s: float, cap: int = 20000) -> int:
    """Calls per run so that one run of `timer` takes about `target_s`."""
    once = max(timer.run(1), 1e-7)
    return max(1, min(cap, int(target_s / once)))


def _orders(names: list, repeat: int) -> list:
    """One order of `names` per run, each timer following every other one about equally
    often: a library whose threads keep spinning after their run (TF's, a Keras 3 worker's)
    slows whichever timer comes next, and that must not always be the same one. (Rotating
    one order keeps every timer's predecessor fixed; permutations, cycled in a fixed
    shuffled order, do not.)"""
    perms = list(itertools.permutations(names))
    random.Random(0).shuffle(perms)
    return [perms[r % len(perms)] for r in range(repeat)]


def interleaved(fns: Mapping[str, TimerLike], repeat: int, numbers: Optional[Mapping[str, int]] = None,
                device: Optional[torch.device] = None, warmup: int = 3) -> Dict[str, float]:
    """Median seconds per call of each timer (or local function), measured in alternation.

    `numbers[name]` is that timer's calls per run (default 1: one call per
    run, for whole steps).
    """
    timers = _timers(fns, device, warmup)
    numbers = {name: (numbers or {}).get(name, 1) for name in timers}
    runs: Dict[str, list] = {name: [] for name in timers}
    names = list(timers)
    orders = _orders(names, repeat)
    for order in orders:
        for name in order:
            runs[name].append(timers[name].run(numbers[name]) / numbers[name])
    return {name: statistics.median(r) for name, r in runs.items()}


def interleaved_ms(fns: Mapping[str, TimerLike], repeat: int = 15, warmup: int = 3,
                   device: Optional[torch.device] = None, run_s: Optional[float] = None,
                   max_calls: int = 1) -> Dict[str, float]:
    """Median wall time (ms) of one call of each timer, measured in alternation.

    With `run_s`, every timer makes the same number of calls per run -- as many as take
    the first timer about `run_s`, at most `max_calls` -- so that what a switch between
    timers leaves behind (another process's threads still spinning, cold caches) is
    spread over several calls instead of landing on a single timed one, while every
    column still runs the same number of steps.
    """
    number = 1
    if run_s is not None and max_calls > 1:
        timers = _timers(fns, device, warmup)
        first = next(iter(timers.values()))
        number = min(max_calls, calibrate(first, run_s))
        fns, warmup = timers, 0
    numbers = {name: number for name in fns}
    return {k: v * 1e3 for k, v in interleaved(fns, repeat, numbers, device, warmup).items()}


def interleaved_us(fns: Mapping[str, TimerLike], repeat: int = 9, target_s: float = 0.01,
                   device: Optional[torch.device] = None) -> Dict[str, float]:
    """Per-call microseconds of each timer: median of `repeat` alternating runs, each timer
    making as many calls per run as take about `target_s` (calibrated on its own)."""
    timers = _timers(fns, device, warmup=3)
    numbers = {name: calibrate(timer, target_s) for name, timer in timers.items()}
    return {k: v * 1e6 for k, v in interleaved(timers, repeat, numbers, device, warmup=0).items()}
