"""Callbacks that watch a metric or the epoch count and act on training: `EarlyStopping`,
`ReduceLROnPlateau`, `LearningRateScheduler` (tf_keras 2.21's rules and messages)."""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional

import numpy as np
import torch

from .. import backend
from ..utils.generic_utils import print_msg
from .base import Callback

__all__ = ["EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau"]

_logger = logging.getLogger("tfcompat.keras.callbacks")


def _value(x: Any) -> Any:
    """`backend.get_value`, also for a tensor on an accelerator."""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return backend.get_value(x)


class EarlyStopping(Callback):
    """`tf.keras.callbacks.EarlyStopping`: stop training when `monitor` stops improving.

    An epoch improves when `monitor - min_delta` beats the best so far (`min_delta` signed
    by the direction: `mode="auto"` maximises names ending in `acc`, `accuracy` or `auc`
    and minimises the rest). `wait` counts the epochs since the last improvement that also
    beat `baseline` (when given); once it reaches `patience` (and not at epoch 0) it sets
    `model.stop_training` and `stopped_epoch`. Epochs before `start_from_epoch` are not
    looked at. With `restore_best_weights`, the best epoch's weights (or the first looked-at
    epoch's, if none improved) are put back at the end of training.
    """

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: Optional[float] = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights: Optional[list] = None
        self.start_from_epoch = start_from_epoch
        if mode not in ["auto", "min", "max"]:
            _logger.warning("EarlyStopping mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "min":
            self.monitor_op = np.less
        elif mode == "max":
            self.monitor_op = np.greater
        elif monitor.endswith(("acc", "accuracy", "auc")):
            self.monitor_op = np.greater
        else:
            self.monitor_op = np.less
        self.min_delta *= 1 if self.monitor_op == np.greater else -1

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        # A reused instance starts over.
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Something to restore even if no epoch ever improves.
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            # The count restarts only when the baseline is beaten too.
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg("Restoring model weights from the end of the best epoch: "
                          f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs: Optional[dict]) -> Any:
        """`logs[monitor]`, or None with a warning naming the keys there are."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            _logger.warning("Early stopping conditioned on metric `%s` which is not "
                            "available. Available metrics are: %s", self.monitor,
                            ",".join(list(logs.keys())))
        return value

    def _is_improvement(self, monitor_value: Any, reference_value: Any) -> bool:
        return self.monitor_op(monitor_value - self.min_delta, reference_value)


class ReduceLROnPlateau(Callback):
    """`tf.keras.callbacks.ReduceLROnPlateau`: multiply the learning rate by `factor` when
    `monitor` has not improved (by more than `min_delta`) for `patience` epochs.

    `mode="auto"` maximises names containing `acc`, minimises the rest. After a reduction,
    `cooldown` epochs pass before counting resumes; the rate never goes below `min_lr`
    (no reduction once it is not above `min_lr`). Every epoch end adds the current rate to
    `logs["lr"]` (before deciding). `factor >= 1` raises ValueError; `epsilon=` is the
    deprecated name of `min_delta`.
    """

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0, **kwargs: Any) -> None:
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            _logger.warning("`epsilon` argument is deprecated and will be removed, use "
                            "`min_delta` instead.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best: Any = 0
        self.mode = mode
        self.monitor_op: Optional[Callable[[Any, Any], Any]] = None
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ["auto", "min", "max"]:
            _logger.warning("Learning rate reduction mode %s is unknown, fallback to auto "
                            "mode.", self.mode)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._reset()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        logs["lr"] = _value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            _logger.warning("Learning rate reduction is conditioned on metric `%s` which is "
                            "not available. Available metrics are: %s", self.monitor,
                            ",".join(list(logs.keys())))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _value(self.model.optimizer.lr)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    backend.set_value(self.model.optimizer.lr, new_lr)
                    if self.verbose > 0:
                        print_msg(f"\nEpoch {epoch +1}: ReduceLROnPlateau reducing "
                                  f"learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0

    def in_cooldown(self) -> bool:
        """Whether a reduction happened less than `cooldown` epochs ago."""
        return self.cooldown_counter > 0


class LearningRateScheduler(Callback):
    """`tf.keras.callbacks.LearningRateScheduler`: at each epoch start, set the optimizer's
    learning rate to `schedule(epoch, lr)` (or `schedule(epoch)` when the two-argument
    call raises TypeError), `epoch` 0-based.

    The result must be a Python/NumPy float or a floating tensor (else ValueError). Each
    epoch end adds the rate to `logs["lr"]`. `verbose > 0` prints the new rate.
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if not hasattr(self.model.optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = float(_value(self.model.optimizer.lr))
            lr = self.schedule(epoch, lr)
        except TypeError:  # the older one-argument schedule
            lr = self.schedule(epoch)
        if not isinstance(lr, (torch.Tensor, float, np.float32, np.float64)):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        if isinstance(lr, torch.Tensor) and not lr.dtype.is_floating_point:
            from ...framework import dtypes
            raise ValueError("The dtype of `lr` Tensor should be float. Got: "
                             f"{dtypes.as_dtype(lr.dtype)}")
        backend.set_value(self.model.optimizer.lr, _value(lr))
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                      f"{lr}.")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        logs["lr"] = _value(self.model.optimizer.lr)
