"""`tf.keras.utils.Progbar` and the console printing Keras's training loop uses.

The text is tf_keras 2.21's, byte for byte: the bar `12/50 [=====>.......]`, `ETA: 3s`
while running, then ` - 1s 9ms/step - loss: 0.3100` once finished, with `\\b`/`\\r`
in-place rewriting on a dynamic display and a newline per update elsewhere. Values may
be 0-d torch tensors: a stateful metric's value is kept as given and read on the host only
when a line is printed (at most once per `interval`), so a fit whose metrics are all
stateful does not synchronise with the device on every batch.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import torch

__all__ = [
    "Progbar", "default", "disable_interactive_logging", "enable_interactive_logging",
    "is_default", "is_interactive_logging_enabled", "print_msg",
]

_logger = logging.getLogger("tfcompat.keras")

_INTERACTIVE = threading.local()


def enable_interactive_logging() -> None:
    """`tf.keras.utils.enable_interactive_logging`: Keras messages go to stdout (the
    default)."""
    _INTERACTIVE.enable = True


def disable_interactive_logging() -> None:
    """`tf.keras.utils.disable_interactive_logging`: Keras messages go to the logger at
    INFO level instead of stdout (for jobs whose stdout is not watched)."""
    _INTERACTIVE.enable = False


def is_interactive_logging_enabled() -> bool:
    """Whether Keras messages go to stdout (per thread, as tf_keras's switch is)."""
    return getattr(_INTERACTIVE, "enable", True)


def print_msg(message: str, line_break: bool = True) -> None:
    """Write `message` to stdout (flushed) or, with interactive logging off, log it."""
    if is_interactive_logging_enabled():
        sys.stdout.write(message + "\n" if line_break else message)
        sys.stdout.flush()
    else:
        _logger.info(message)


def default(method: Callable) -> Callable:
    """Mark `method` as a base-class default, so an override in a subclass (or an
    instance attribute, as `LambdaCallback` sets) can be told apart by `is_default`."""
    method._is_default = True
    return method


def is_default(method: Any) -> bool:
    """Whether `method` is still the `@default`-marked base implementation."""
    return getattr(method, "_is_default", False)


def _tensor_to_numpy(value: Any) -> Any:
    # A torch tensor given to Progbar reads as NumPy, as an EagerTensor does in tf_keras's
    # NumPy arithmetic (so a float32 tensor stays float32: same rounding, same `%.4f`).
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return value


def _dynamic_display() -> bool:
    # tf_keras's test, kept as is: `posix` is in `sys.modules` on every POSIX system, so
    # there the bar always rewrites itself in place, TTY or not.
    return ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules or "posix" in sys.modules
            or "PYCHARM_HOSTED" in os.environ)


class Progbar:
    """`tf.keras.utils.Progbar`: a console progress bar with running metric averages.

    `target` is the number of steps (None: unknown, shown as `Unknown` until a later
    update gives one). `verbose=1` prints a bar at most every `interval` seconds (and on
    the final update); `verbose=2` prints one summary line when finished; 0 prints
    nothing. Metrics named in `stateful_metrics` are shown as given; others are averaged
    over the steps, weighted by how many steps each update advanced.
    """

    def __init__(self, target: Optional[int], width: int = 30, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics: Optional[Iterable[str]] = None,
                 unit_name: str = "step") -> None:
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self._dynamic_display = _dynamic_display()
        self._total_width = 0
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: List[str] = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_at_epoch_start = self._start
        self._time_at_epoch_end: Optional[float] = None
        self._time_after_first_step: Optional[float] = None
        # How a value given as a torch tensor is read; ProgbarLogger swaps in the
        # Python-number conversion tf_keras applies to callback logs.
        self._read_value: Callable[[Any], Any] = _tensor_to_numpy

    def update(self, current: int, values: Optional[Sequence[Tuple[str, Any]]] = None,
               finalize: Optional[bool] = None) -> None:
        """Move the bar to step `current` with `(name, value)` pairs for the last step(s).

        `finalize=None` means "finished once `current >= target`"; a finished bar prints
        the time per step instead of the ETA and ends its line.
        """
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k in self.stateful_metrics:
                self._values[k] = [v, 1]  # read only if a line is printed
                continue
            v = self._read_value(v)
            # At least 1: an epoch-end update repeating the last batch's step would
            # otherwise weigh the value by zero.
            base = max(current - self._seen_so_far, 1)
            if k not in self._values:
                self._values[k] = [v * base, base]
            else:
                self._values[k][0] += v * base
                self._values[k][1] += base
        self._seen_so_far = current

        now = time.time()
        elapsed = f" - {now - self._start:.0f}s"
        if current == self.target:
            self._time_at_epoch_end = now
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._print_bar(current, now, elapsed, finalize)
        elif self.verbose == 2 and finalize:
            self._print_summary(current, now, elapsed)
        self._last_update = now

    def add(self, n: int, values: Optional[Sequence[Tuple[str, Any]]] = None) -> None:
        """`update(seen_so_far + n, values)`."""
        self.update(self._seen_so_far + n, values)

    # ---------------------------------------------------------------- rendering
    def _average(self, name: str) -> Any:
        total, count = self._values[name]
        if name in self.stateful_metrics:
            total = self._read_value(total)
        return np.mean(total / max(1, count))

    def _print_bar(self, current: int, now: float, info: str, finalize: bool) -> None:
        previous_width = self._total_width
        message = "\b" * previous_width + "\r" if self._dynamic_display else "\n"
        if self.target is not None:
            digits = int(np.log10(self.target)) + 1
            bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
            filled = int(self.width * (float(current) / self.target))
            if filled > 0:
                bar += "=" * (filled - 1) + (">" if current < self.target else "=")
            bar += "." * (self.width - filled) + "]"
        else:
            bar = "%7d/Unknown" % current
        self._total_width = len(bar)
        message += bar

        time_per_unit = self._estimate_step_duration(current, now)
        if self.target is None or finalize:
            info += self._format_time(time_per_unit, self.unit_name)
        else:
            info = f" - ETA: {_format_eta(time_per_unit * (self.target - current))}"
        for k in self._values_order:
            avg = self._average(k)
            info += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"

        self._total_width += len(info)
        if previous_width > self._total_width:
            info += " " * (previous_width - self._total_width)  # blank the longer old line
        if finalize:
            info += "\n"
        print_msg(message + info, line_break=False)

    def _print_summary(self, current: int, now: float, info: str) -> None:
        digits = int(np.log10(self.target)) + 1
        info = ("%" + str(digits) + "d/%d") % (current, self.target) + info
        for k in self._values_order:
            avg = self._average(k)
            # tf_keras compares without abs() here: negative averages print as %.4e.
            info += f" - {k}: {avg:.4f}" if avg > 1e-3 else f" - {k}: {avg:.4e}"
        if self._time_at_epoch_end:
            per_epoch = self._time_at_epoch_end - self._time_at_epoch_start
            per_step = per_epoch / self.target
            self._time_at_epoch_start = now
            self._time_at_epoch_end = None
            info += " -" + self._format_time(per_epoch, "epoch")
            info += " -" + self._format_time(per_step, self.unit_name) + "\n"
        print_msg(info, line_break=False)

    def _format_time(self, time_per_unit: float, unit_name: str) -> str:
        """` 2s/step`, ` 9ms/step` or ` 850us/step` (0 prints as `0s`)."""
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1000.0:.0f}ms/{unit_name}"
        return f" {time_per_unit * 1000000.0:.0f}us/{unit_name}"

    def _estimate_step_duration(self, current: int, now: float) -> float:
        """Seconds per step; once past step 1, the first step (compilation, warm-up) is
        left out of the estimate."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit

    def _update_stateful_metrics(self, stateful_metrics: Iterable[str]) -> None:
        self.stateful_metrics = self.stateful_metrics.union(stateful_metrics)


def _format_eta(eta: float) -> str:
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta
