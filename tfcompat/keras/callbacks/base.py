"""`tf.keras.callbacks.Callback`, `CallbackList` and `History` (tf_keras 2.21).

`Model.fit`/`evaluate`/`predict` wrap the user's callbacks in a `CallbackList` and call its
hooks; the list forwards each hook to every callback. Batch `logs` may hold 0-d torch
tensors (the training step's results, still on the device): the list reads them on the host
(`sync_to_numpy_or_python_type`) only for callbacks that do not declare
`_supports_tf_logs`, and calls batch hooks at all only when some callback overrides them,
so a fit with only `History` and the progress bar does not wait for the device every batch.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Dict, Iterator, List, Optional

import numpy as np
import torch

from ...framework import nest
from ..utils.generic_utils import default, is_default, print_msg

__all__ = ["Callback", "CallbackList", "History", "LambdaCallback", "TerminateOnNaN",
           "sync_to_numpy_or_python_type"]

_logger = logging.getLogger("tfcompat.keras.callbacks")

_TRAIN, _TEST, _PREDICT = "train", "test", "predict"


def _to_python(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:
            return value.item()
        value = value.detach().cpu()
        value = (value.float() if value.dtype == torch.bfloat16 else value).numpy()
    elif hasattr(value, "numpy") and hasattr(value, "assign"):  # a tf.Variable: left as is,
        return value                                           # as tf_keras leaves one
    if not isinstance(value, (np.ndarray, np.generic)):
        return value
    return value.item() if np.ndim(value) == 0 else value


def sync_to_numpy_or_python_type(structure: Any) -> Any:
    """tf_keras's `sync_to_numpy_or_python_type`: each tensor in `structure` read on the
    host, 0-d ones (and NumPy scalars) as Python numbers, others as NumPy arrays; strings
    and other values as they are. Reading waits for the device."""
    if isinstance(structure, dict) and type(structure) is dict:
        return {k: (_to_python(v) if not nest.is_nested(v) else
                    nest.map_structure(_to_python, v)) for k, v in structure.items()}
    return nest.map_structure(_to_python, structure)


class Callback:
    """`tf.keras.callbacks.Callback`: the base class of objects that hook into `fit`,
    `evaluate` and `predict`.

    Override the `on_*` methods of interest. `self.model` is the model being run and
    `self.params` the loop's parameters (`verbose`, `epochs`, `steps`). Batch hooks that a
    subclass leaves alone are never called (the list checks `_implements_*_batch_hooks`);
    `on_train_batch_begin/end` default to calling the older `on_batch_begin/end`. A
    callback that sets `_supports_tf_logs = True` receives logs as the loop produced them
    (values may be tensors); others receive Python numbers and NumPy arrays.
    """

    def __init__(self) -> None:
        self.validation_data = None
        self.model: Any = None
        # Whether only the chief worker runs this callback in multi-worker training.
        self._chief_worker_only: Optional[bool] = None
        self._supports_tf_logs = False

    def set_params(self, params: Dict[str, Any]) -> None:
        """Receive the loop's parameters (`verbose`, `epochs`, `steps`)."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Receive the model the callbacks run with."""
        self.model = model

    @default
    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """The older name of `on_train_batch_begin`."""

    @default
    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """The older name of `on_train_batch_end`."""

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Start of training epoch `epoch` (0-based)."""

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """End of epoch `epoch`; `logs` holds the epoch's metric results and, when
        validation ran, the same keys prefixed with `val_`."""

    @default
    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Start of training batch `batch` (0-based within the epoch)."""
        self.on_batch_begin(batch, logs=logs)

    @default
    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """End of training batch `batch`; `logs` holds the metric results so far."""
        self.on_batch_end(batch, logs=logs)

    @default
    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Start of an `evaluate` (or validation) batch."""

    @default
    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """End of an `evaluate` (or validation) batch; `logs` holds the results so far."""

    @default
    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """Start of a `predict` batch."""

    @default
    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """End of a `predict` batch; `logs["outputs"]` holds the batch's outputs."""

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        """Start of `fit`."""

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        """End of `fit`; `logs` are the last epoch's."""

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        """Start of `evaluate` or of a validation pass."""

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        """End of `evaluate` or of a validation pass; `logs` are its results."""

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        """Start of `predict`."""

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        """End of `predict`."""

    def _implements_train_batch_hooks(self) -> bool:
        return not (is_default(self.on_batch_begin) and is_default(self.on_batch_end)
                    and is_default(self.on_train_batch_begin)
                    and is_default(self.on_train_batch_end))

    def _implements_test_batch_hooks(self) -> bool:
        return not (is_default(self.on_test_batch_begin) and is_default(self.on_test_batch_end))

    def _implements_predict_batch_hooks(self) -> bool:
        return not (is_default(self.on_predict_batch_begin)
                    and is_default(self.on_predict_batch_end))


class History(Callback):
    """`tf.keras.callbacks.History`: records each epoch's logs; `fit` returns it.

    `history` maps each log key to its per-epoch values, `epoch` lists the epochs seen
    (reset by each `on_train_begin`; `history` is not), `params` the loop's parameters.
    `model.history` is set to it after every epoch.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: Dict[str, list] = {}

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.epoch: List[int] = []

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


def _is_builtin(callback: Any) -> bool:
    return type(callback).__module__.startswith("tfcompat.keras.callbacks")


class CallbackList:
    """`tf.keras.callbacks.CallbackList`: calls every hook on each of its callbacks.

    `add_history` / `add_progbar` append a `History` / `ProgbarLogger(count_mode="steps")`
    unless one is already in `callbacks`; `model` and `params` are passed on with
    `set_model` / `set_params` (and `model.history` set to the History). Epoch and
    begin/end hooks hand every callback the same `logs` dict, read on the host once unless
    all callbacks support tensor logs (so a callback adding a key, as `ReduceLROnPlateau`
    adds `lr`, is seen by the ones after it). Batch hooks of a mode run only if some
    callback implements them; their logs are read on the host at most once, and only
    when a callback implementing them needs Python values. For user callbacks, a warning
    is logged (once) when a batch hook takes longer than the batch itself.
    """

    def __init__(self, callbacks: Any = None, add_history: bool = False,
                 add_progbar: bool = False, model: Any = None, **params: Any) -> None:
        self.callbacks: List[Callback] = nest.flatten(callbacks) if callbacks else []
        self._add_default_callbacks(add_history, add_progbar)
        if model:
            self.set_model(model)
        if params:
            self.set_params(params)
        self._refresh_flags()
        self._num_batches_for_timing_check = 5
        self._hook_times: Dict[str, list] = {}
        self._batch_start_time: Optional[float] = None
        self._batch_times: List[float] = []

    def _add_default_callbacks(self, add_history: bool, add_progbar: bool) -> None:
        from .loggers import ProgbarLogger
        self._progbar = None
        self._history = None
        for cb in self.callbacks:
            if isinstance(cb, ProgbarLogger):
                self._progbar = cb
            elif isinstance(cb, History):
                self._history = cb
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger(count_mode="steps")
            self.callbacks.append(self._progbar)

    def _refresh_flags(self) -> None:
        # Which hooks run and which need host values is decided once (tf_keras decides
        # in __init__); `append` refreshes it so an appended callback's hooks still run.
        cbs = self.callbacks
        self._supports_tf_logs = all(getattr(cb, "_supports_tf_logs", False) for cb in cbs)
        implements = {
            _TRAIN: [cb for cb in cbs if cb._implements_train_batch_hooks()],
            _TEST: [cb for cb in cbs if cb._implements_test_batch_hooks()],
            _PREDICT: [cb for cb in cbs if cb._implements_predict_batch_hooks()],
        }
        self._should_call_train_batch_hooks = bool(implements[_TRAIN])
        self._should_call_test_batch_hooks = bool(implements[_TEST])
        self._should_call_predict_batch_hooks = bool(implements[_PREDICT])
        # Per mode, the callbacks whose batch hooks want Python numbers: the only ones
        # batch logs are read on the host for (the rest, no-op defaults included, get them
        # as given).
        self._host_log_callbacks = {
            mode: {id(cb) for cb in group if not getattr(cb, "_supports_tf_logs", False)}
            for mode, group in implements.items()}
        self._check_timing = any(not _is_builtin(cb) for cb in cbs)

    def _process_logs(self, logs: Optional[dict]) -> dict:
        if logs is None:
            return {}
        if self._supports_tf_logs:
            return logs
        return sync_to_numpy_or_python_type(logs)

    def append(self, callback: Callback) -> None:
        """Add `callback` at the end (its model and params are not set here)."""
        self.callbacks.append(callback)
        self._refresh_flags()

    def set_params(self, params: Dict[str, Any]) -> None:
        """`set_params` on every callback."""
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model: Any) -> None:
        """`set_model` on every callback; `model.history` becomes the History callback."""
        self.model = model
        if self._history:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def __iter__(self) -> Iterator[Callback]:
        return iter(self.callbacks)

    # ------------------------------------------------------------------ batch hooks
    def _call_batch_hook(self, mode: str, hook: str, batch: int,
                         logs: Optional[dict] = None) -> None:
        if not self.callbacks:
            return
        if hook == "begin":
            self._call_batch_hook_helper(f"on_{mode}_batch_begin", mode, batch, logs)
            if self._check_timing:
                self._batch_start_time = time.time()
        elif hook == "end":
            if self._check_timing and batch >= 1 and self._batch_start_time is not None:
                self._batch_times.append(time.time() - self._batch_start_time)
            self._call_batch_hook_helper(f"on_{mode}_batch_end", mode, batch, logs)
            if len(self._batch_times) >= self._num_batches_for_timing_check:
                self._warn_if_slow(mode)
        else:
            raise ValueError(f"Unrecognized hook: {hook}. Expected values are "
                             '["begin", "end"]')

    def _call_batch_hook_helper(self, hook_name: str, mode: str, batch: int,
                                logs: Optional[dict]) -> None:
        start = time.time() if self._check_timing else 0.0
        raw = logs if logs is not None else {}
        wants_host = self._host_log_callbacks[mode] if raw else ()
        host = None
        for callback in self.callbacks:
            given = raw
            if id(callback) in wants_host:
                if host is None:  # read once, shared by the callbacks that need numbers
                    host = sync_to_numpy_or_python_type(raw)
                given = host
            getattr(callback, hook_name)(batch, given)
        if self._check_timing:
            self._hook_times.setdefault(hook_name, []).append(time.time() - start)

    def _warn_if_slow(self, mode: str) -> None:
        batch_time = sum(self._batch_times) / len(self._batch_times)
        for hook_name in (f"on_{mode}_batch_begin", f"on_{mode}_batch_end"):
            times = self._hook_times.get(hook_name)
            if times and sum(times) / len(times) > batch_time:
                _logger.warning(
                    "Callback method `%s` is slow compared to the batch time (batch time: "
                    "%.4fs vs `%s` time: %.4fs). Check your callbacks.", hook_name,
                    batch_time, hook_name, sum(times) / len(times))
        self._check_timing = False
        self._batch_start_time = None
        self._batch_times = []
        self._hook_times = {}

    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """The older name of `on_train_batch_begin`."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook(_TRAIN, "begin", batch, logs)

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """The older name of `on_train_batch_end`."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook(_TRAIN, "end", batch, logs)

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_train_batch_begin` on each callback (only if one implements the hook)."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook(_TRAIN, "begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_train_batch_end` on each callback (only if one implements the hook)."""
        if self._should_call_train_batch_hooks:
            self._call_batch_hook(_TRAIN, "end", batch, logs)

    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_test_batch_begin` on each callback (only if one implements the hook)."""
        if self._should_call_test_batch_hooks:
            self._call_batch_hook(_TEST, "begin", batch, logs)

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_test_batch_end` on each callback (only if one implements the hook)."""
        if self._should_call_test_batch_hooks:
            self._call_batch_hook(_TEST, "end", batch, logs)

    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_predict_batch_begin` on each callback (only if one implements the hook)."""
        if self._should_call_predict_batch_hooks:
            self._call_batch_hook(_PREDICT, "begin", batch, logs)

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`on_predict_batch_end` on each callback (only if one implements the hook)."""
        if self._should_call_predict_batch_hooks:
            self._call_batch_hook(_PREDICT, "end", batch, logs)

    # ------------------------------------------------------------------ epoch / loop hooks
    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        """`on_epoch_begin` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_begin(epoch, logs)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """`on_epoch_end` on each callback, all given the same `logs` dict."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        """`on_train_begin` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_train_begin(logs)

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        """`on_train_end` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_train_end(logs)

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        """`on_test_begin` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_test_begin(logs)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        """`on_test_end` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_test_end(logs)

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        """`on_predict_begin` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_begin(logs)

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        """`on_predict_end` on each callback."""
        logs = self._process_logs(logs)
        for callback in self.callbacks:
            callback.on_predict_end(logs)

    def _call_begin_hook(self, mode: str) -> None:
        {_TRAIN: self.on_train_begin, _TEST: self.on_test_begin}.get(
            mode, self.on_predict_begin)()

    def _call_end_hook(self, mode: str) -> None:
        {_TRAIN: self.on_train_end, _TEST: self.on_test_end}.get(mode, self.on_predict_end)()


class LambdaCallback(Callback):
    """`tf.keras.callbacks.LambdaCallback`: a callback from plain functions.

    `on_epoch_begin/end(epoch, logs)`, `on_batch_begin/end(batch, logs)` and
    `on_train_begin/end(logs)` replace the hooks they name; other keyword arguments become
    attributes (tf_keras allows e.g. `on_test_batch_end=fn` that way, as a hook override).
    """

    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None,
                 on_batch_begin: Any = None, on_batch_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None, **kwargs: Any) -> None:
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_batch_begin": on_batch_begin, "on_batch_end": on_batch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end}
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """`tf.keras.callbacks.TerminateOnNaN`: sets `model.stop_training` when a batch's
    `loss` is NaN or infinite, printing `Batch <n>: Invalid loss, terminating training`.
    (It reads the loss on the host every batch.)"""

    def __init__(self) -> None:
        super().__init__()
        self._supports_tf_logs = True

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = sync_to_numpy_or_python_type(loss)
        if np.isnan(loss) or np.isinf(loss):
            print_msg(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
