"""`tf.compat.v1.logging`: TF 1's logging calls, on Python's `logging` (the "tensorflow" logger).

TF routes these through absl to the same named logger; `set_verbosity(tf1.logging.INFO)`
and friends behave the same way here.
"""

from __future__ import annotations

import logging as _logging
import sys as _sys
from typing import Any

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "debug", "info", "warn", "warning",
           "error", "fatal", "log", "log_if", "log_every_n", "log_first_n", "vlog",
           "set_verbosity", "get_verbosity", "flush", "TaskLevelStatusMessage"]

DEBUG, INFO, WARN, ERROR, FATAL = (_logging.DEBUG, _logging.INFO, _logging.WARN,
                                   _logging.ERROR, _logging.FATAL)

_logger = _logging.getLogger("tensorflow")
if not _logger.handlers:  # as TF: its own stderr handler, not the root logger's
    _handler = _logging.StreamHandler(_sys.stderr)
    _handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    _logger.addHandler(_handler)
    _logger.propagate = False
_counts: dict = {}


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.fatal(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    _logger.log(level, msg, *args, **kwargs)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    if condition:
        _logger.log(level, msg, *args)


def _caller_key() -> tuple:
    frame = _sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the 1st, (n+1)th, (2n+1)th ... call from the same line, as TF's."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % n == 0:
        _logger.log(level, msg, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs only the first n calls from the same line, as TF's."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        _logger.log(level, msg, *args)


def set_verbosity(v: int) -> None:
    _logger.setLevel(v)


def get_verbosity() -> int:
    return _logger.getEffectiveLevel()


def flush() -> None:
    for h in _logger.handlers:
        h.flush()


def TaskLevelStatusMessage(msg: Any) -> None:  # noqa: N802 - TF's public spelling
    _logger.error(msg)
