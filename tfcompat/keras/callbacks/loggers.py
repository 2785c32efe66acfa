"""Callbacks that report metrics: `ProgbarLogger` (the console bar `fit` shows),
`CSVLogger` (one row per epoch) and `BaseLogger` (epoch averages of batch logs), as in
tf_keras 2.21."""

from __future__ import annotations

import collections
import collections.abc
import copy
import csv
import os
from typing import Any, Iterable, Optional

import numpy as np

from ..utils.generic_utils import Progbar, print_msg
from .base import Callback, _to_python, sync_to_numpy_or_python_type

__all__ = ["BaseLogger", "CSVLogger", "ProgbarLogger"]


class ProgbarLogger(Callback):
    """`tf.keras.callbacks.ProgbarLogger`: prints a `Progbar` per epoch (and for
    `evaluate`/`predict` outside `fit`; validation inside `fit` is silent).

    `count_mode="steps"` counts batches (what `fit` adds), `"samples"` counts the `size`
    key of batch logs. The model's metrics (and `stateful_metrics`) are shown as given;
    other keys are averaged over the epoch. With `verbose=1` the bar updates every batch
    (reading the logs on the host only when it prints); with `verbose=2` one line is
    printed per epoch. `Epoch i/n` heads each epoch when there is more than one.
    """

    def __init__(self, count_mode: str = "samples",
                 stateful_metrics: Optional[Iterable[str]] = None) -> None:
        super().__init__()
        self._supports_tf_logs = True
        if count_mode == "samples":
            self.use_steps = False
        elif count_mode == "steps":
            self.use_steps = True
        else:
            raise ValueError(f"Unknown `count_mode`: {count_mode}. "
                             'Expected values are ["samples", "steps"]')
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self.seen = 0
        self.progbar: Optional[Progbar] = None
        self.target: Optional[int] = None
        self.verbose = 1
        self.epochs = 1
        self._train_step = self._test_step = self._predict_step = None
        self._call_batch_hooks = True
        self._called_in_fit = False

    def set_params(self, params: dict) -> None:
        self.verbose = params["verbose"]
        self.epochs = params["epochs"]
        if self.use_steps and "steps" in params:
            self.target = params["steps"]
        elif not self.use_steps and "samples" in params:
            self.target = params["samples"]
        else:
            self.target = None  # learnt at the end of the first epoch
        self._call_batch_hooks = self.verbose == 1
        if self.target is None:
            try:
                self._train_step = self.model._train_counter
                self._test_step = self.model._test_counter
                self._predict_step = self.model._predict_counter
            except AttributeError:
                self._call_batch_hooks = True

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._called_in_fit = True  # validation inside fit prints nothing

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._batch_update_progbar(batch, logs)

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._batch_update_progbar(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._batch_update_progbar(batch, None)  # predictions are not shown

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._finalize_progbar(logs, self._train_step)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        if not self._called_in_fit:
            self._finalize_progbar(logs, self._test_step)

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        self._finalize_progbar(logs, self._predict_step)

    def _implements_train_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    def _implements_test_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    def _implements_predict_batch_hooks(self) -> bool:
        return self._call_batch_hooks

    def _reset_progbar(self) -> None:
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self) -> None:
        self.stateful_metrics = set(self.stateful_metrics)
        if self.model:
            # The model's metrics are known only after its first step: look again.
            self.stateful_metrics |= {m.name for m in getattr(self.model, "metrics", ())}
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose,
                                   stateful_metrics=self.stateful_metrics,
                                   unit_name="step" if self.use_steps else "sample")
            # Logs are shown as tf_keras's sync_to_numpy_or_python_type gives them; the
            # bar reads a metric's tensor only when it prints a line.
            self.progbar._read_value = _to_python
        self.progbar._update_stateful_metrics(self.stateful_metrics)

    def _batch_update_progbar(self, batch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        self._maybe_init_progbar()
        if self.use_steps:
            self.seen = batch + 1  # one-based
        else:
            logs = copy.copy(logs)
            batch_size = _to_python(logs.pop("size", 0))
            num_steps = _to_python(logs.pop("num_steps", 1))
            logs.pop("batch", None)
            self.seen += num_steps * batch_size
        if self.verbose == 1:
            self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize_progbar(self, logs: Optional[dict], counter: Any) -> None:
        logs = sync_to_numpy_or_python_type(logs or {})
        if self.target is None:
            if counter is not None:
                counter = _to_python(counter.numpy() if hasattr(counter, "numpy") else counter)
                if not self.use_steps:
                    counter *= logs.get("size", 1)
            self.target = counter or self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(logs.items()), finalize=True)


class BaseLogger(Callback):
    """`tf.keras.callbacks.BaseLogger`: at epoch end, sets each of `params["metrics"]` in
    `logs` to its average over the epoch's batches (weighted by the batch logs' `size`),
    or to its last value for `stateful_metrics`. (TF 1's loop added it; `fit` does not.)
    """

    def __init__(self, stateful_metrics: Optional[Iterable[str]] = None) -> None:
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.seen = 0
        self.totals: dict = {}

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        batch_size = logs.get("size", 0)
        self.seen += batch_size * logs.get("num_steps", 1)
        for k, v in logs.items():
            if k in self.stateful_metrics:
                self.totals[k] = v
            elif k in self.totals:
                self.totals[k] += v * batch_size
            else:
                self.totals[k] = v * batch_size

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if logs is None:
            return
        for k in self.params["metrics"]:
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics else \
                    self.totals[k] / self.seen


def _csv_value(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (
            isinstance(value, np.ndarray) and value.ndim == 0):
        return f"\"[{', '.join(map(str, value))}]\""
    return value


class CSVLogger(Callback):
    """`tf.keras.callbacks.CSVLogger`: writes `epoch` and each log key (sorted) per epoch.

    The columns are fixed by the first epoch's keys; if none starts with `val_`, a `val_`
    twin of each is added (validation may start later) and absent values are written as
    `NA`. Sequences are written as `"[a, b]"`. `append=True` keeps an existing file and
    writes the header only if it is empty. Rows use the csv module's `excel` dialect with
    `separator` as the delimiter (so lines end in `\\r\\n`, as tf_keras's do).
    """

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        self.sep = separator
        self.filename = os.fspath(filename) if isinstance(filename, os.PathLike) else filename
        self.append = append
        self.writer: Any = None
        self.keys: Optional[list] = None
        self.append_header = True
        super().__init__()

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, "r", newline="") as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        # newline="": the csv writer's own `\r\n` reaches the file untranslated.
        self.csv_file = open(self.filename, mode, newline="")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if not any(key.startswith("val_") for key in self.keys):
                self.keys.extend(["val_" + k for k in self.keys])
        if not self.writer:
            dialect = type("CustomDialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, _csv_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        self.csv_file.close()
        self.writer = None
