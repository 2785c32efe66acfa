"""Callbacks that write the model during training: `ModelCheckpoint` (weights or the whole
model, every epoch or every N batches, optionally only when a metric improves) and
`BackupAndRestore` (a backup of the training state that a rerun of `fit` resumes from),
as in tf_keras 2.21."""

from __future__ import annotations

import logging
import os
import re
import shutil
from typing import Any, Optional, Tuple

import numpy as np

from ...distribute import distribute_lib
from ...train.checkpoint import Checkpoint
from ...train.checkpoint_management import CheckpointManager, latest_checkpoint
from ...train.checkpoint_options import CheckpointOptions
from ..utils.generic_utils import print_msg
from .base import Callback, sync_to_numpy_or_python_type

__all__ = ["BackupAndRestore", "ModelCheckpoint"]

_logger = logging.getLogger("tfcompat.keras.callbacks")


# ---------------------------------------------------------------- multi-worker file paths
# Every worker must take part in a save (a sync-on-read variable is read collectively), but
# only the chief's files count: the others write into a `workertemp_<task id>` directory
# that is removed right after, as tf_keras's distributed_file_utils does.
def _strategy(model: Any) -> Any:
    return getattr(model, "distribute_strategy", None) or distribute_lib.get_strategy()


def _writes_to_temp(strategy: Any) -> bool:
    extended = getattr(strategy, "extended", None)
    in_multi_worker = getattr(extended, "_in_multi_worker_mode", lambda: False)()
    return bool(in_multi_worker) and not getattr(extended, "should_checkpoint", True)


def _temp_dir(dirpath: str, strategy: Any) -> str:
    extended = strategy.extended
    task_id = getattr(extended, "_task_id", None)
    if task_id is None:
        task_id = getattr(getattr(strategy, "cluster_resolver", None), "task_id", 0)
    base = f"workertemp_{task_id}"
    path = dirpath if dirpath.endswith(base) else os.path.join(dirpath, base)
    os.makedirs(path, exist_ok=True)
    return path


def _write_dirpath(dirpath: str, strategy: Any) -> str:
    return _temp_dir(dirpath, strategy) if _writes_to_temp(strategy) else dirpath


def _remove_temp_dirpath(dirpath: str, strategy: Any) -> None:
    if _writes_to_temp(strategy):
        shutil.rmtree(_temp_dir(dirpath, strategy), ignore_errors=True)


def _is_save_options(options: Any) -> bool:
    # tfcompat has no SavedModel writer, hence no tf.saved_model.SaveOptions class of its
    # own; one made elsewhere is accepted (and unused) by duck name.
    return type(options).__name__ == "SaveOptions"


class ModelCheckpoint(Callback):
    """`tf.keras.callbacks.ModelCheckpoint`: save the model or its weights during `fit`.

    `filepath` is formatted with `epoch` (1-based), `batch` (1-based, when saving every
    `save_freq` batches) and the logs' keys: `"w.{epoch:02d}-{val_loss:.2f}.h5"`. Saving
    goes through `model.save_weights` (`save_weights_only`: TF checkpoint format, or HDF5
    for `.h5`) or `model.save`. With `save_best_only`, a save happens only when `monitor`
    beats the best so far (`mode="auto"` maximises names containing `acc` or starting
    with `fmeasure`; `initial_value_threshold` seeds the best); a missing `monitor` logs
    a warning and skips. `verbose=1` prints tf_keras's `Epoch N: ...` lines.
    """

    def __init__(self, filepath: Any, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: Any = "epoch", options: Any = None,
                 initial_value_threshold: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__()
        self._supports_tf_logs = True
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = os.fspath(filepath) if isinstance(filepath, os.PathLike) else filepath
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.epochs_since_last_save = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1
        self._current_epoch = 0
        self.best = initial_value_threshold
        self._options = self._check_options(options, filepath)
        if "load_weights_on_restart" in kwargs:
            _logger.warning("`load_weights_on_restart` argument is deprecated. Please use "
                            "`model.load_weights()` for loading weights before the start of "
                            "`model.fit()`.")
        self.load_weights_on_restart = kwargs.get("load_weights_on_restart", False)
        if "period" in kwargs:
            _logger.warning("`period` argument is deprecated. Please use `save_freq` to "
                            "specify the frequency in number of batches seen.")
        self.period = kwargs.get("period", 1)
        if mode not in ["auto", "min", "max"]:
            _logger.warning("ModelCheckpoint mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "max" or (mode == "auto" and ("acc" in monitor
                                                 or monitor.startswith("fmeasure"))):
            self.monitor_op = np.greater
            if self.best is None:
                self.best = -np.inf
        else:
            self.monitor_op = np.less
            if self.best is None:
                self.best = np.inf
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}. "
                             'Expected save_freq are "epoch" or integer')
        # Only the chief writes, but every worker takes part in the save.
        self._chief_worker_only = False

    def _check_options(self, options: Any, filepath: Any) -> Any:
        if self.save_weights_only:
            if options is None or isinstance(options, CheckpointOptions):
                return options or CheckpointOptions()
            raise TypeError("If save_weights_only is True, then `options` must be either "
                            f"None or a tf.train.CheckpointOptions. Got {options}.")
        if filepath and str(filepath).endswith(".keras") and options is not None:
            raise ValueError("The native TF-Keras format does not support the `options` "
                             "argument. Please remove the `options` argument, or use the "
                             "SavedModel format by removing the `.keras` extension from the "
                             "model filepath.")
        if options is None or _is_save_options(options):
            return options
        raise TypeError("If save_weights_only is False, then `options` must be either None "
                        f"or a tf.saved_model.SaveOptions. Got {options}.")

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        if not self.load_weights_on_restart:
            return
        path = self._get_most_recently_modified_file_matching_pattern(self.filepath)
        if path is not None and self._checkpoint_exists(path):
            try:
                self.model.load_weights(path)
            except (IOError, ValueError) as e:
                raise ValueError(f"Error loading file from {path}. Reason: {e}") from e

    def _implements_train_batch_hooks(self) -> bool:
        return self.save_freq != "epoch"  # batch hooks only to save every N batches

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._current_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch began
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _save_model(self, epoch: int, batch: Optional[int], logs: Optional[dict]) -> None:
        logs = logs or {}
        if not (isinstance(self.save_freq, int) or self.epochs_since_last_save >= self.period):
            return
        logs = sync_to_numpy_or_python_type(logs)  # read on the host only when saving
        self.epochs_since_last_save = 0
        filepath = self._get_file_path(epoch, batch, logs)
        dirname = os.path.dirname(filepath)
        if dirname and not dirname.startswith("gs://") and not os.path.exists(dirname):
            os.makedirs(dirname, exist_ok=True)
        try:
            if self.save_best_only:
                current = logs.get(self.monitor)
                if current is None:
                    _logger.warning("Can save best model only with %s available, skipping.",
                                    self.monitor)
                elif self.monitor_op(current, self.best):
                    if self.verbose > 0:
                        print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from "
                                  f"{self.best:.5f} to {current:.5f}, saving model to "
                                  f"{filepath}")
                    self.best = current
                    self._save_handler(filepath)
                elif self.verbose > 0:
                    print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                              f"{self.best:.5f}")
            else:
                if self.verbose > 0:
                    print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
                self._save_handler(filepath)
            _remove_temp_dirpath(os.path.dirname(self._write_filepath),
                                 _strategy(self.model))
        except IsADirectoryError as e:
            raise IOError("Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}") from e

    def _save_handler(self, filepath: str) -> None:
        if self.save_weights_only:
            if filepath.endswith(".weights.h5"):
                self.model.save_weights(filepath, overwrite=True)
            else:
                self.model.save_weights(filepath, overwrite=True, options=self._options)
        elif filepath.endswith(".keras") or self._options is None:
            self.model.save(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True, options=self._options)

    def _get_file_path(self, epoch: int, batch: Optional[int], logs: dict) -> str:
        try:
            if batch is None or "batch" in logs:
                path = self.filepath.format(epoch=epoch + 1, **logs)
            else:
                path = self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}") from e
        strategy = _strategy(self.model)
        self._write_filepath = os.path.join(_write_dirpath(os.path.dirname(path), strategy),
                                            os.path.basename(path))
        return self._write_filepath

    def _checkpoint_exists(self, filepath: str) -> bool:
        if filepath.endswith(".h5"):
            return os.path.exists(filepath)
        return os.path.exists(filepath) or os.path.exists(filepath + ".index")

    def _get_most_recently_modified_file_matching_pattern(self, pattern: str
                                                           ) -> Optional[str]:
        """The newest file whose name matches `pattern` with each `{...}` as a wildcard:
        the directory's latest TF checkpoint if it matches, else by modification time
        (ties broken by the largest name)."""
        dir_name = os.path.dirname(pattern)
        base_regex = "^" + re.sub(r"{.*}", r".*", os.path.basename(pattern)) + "$"
        latest = latest_checkpoint(dir_name)
        if latest is not None and re.match(base_regex, os.path.basename(latest)):
            return latest
        latest_time, newest, n_newest, largest = 0.0, None, 0, None
        if os.path.exists(dir_name):
            for name in os.listdir(dir_name):
                if not re.match(base_regex, name):
                    continue
                path = os.path.join(dir_name, name)
                mtime = os.path.getmtime(path)
                if largest is None or path > largest:
                    largest = path
                if mtime > latest_time:
                    latest_time, newest, n_newest = mtime, path, 1
                elif mtime == latest_time:
                    n_newest += 1
        return newest if n_newest == 1 else largest


class _WorkerTrainingState:
    """The state `BackupAndRestore` backs up: the model (with its optimizer), the epoch and
    batch being run, and the model's train counter when it has one, in a
    `CheckpointManager` keeping one checkpoint under `<backup_dir>/chief`."""

    UNUSED = -1

    def __init__(self, model: Any, checkpoint_dir: str, save_freq: Any = "epoch") -> None:
        from ...framework import dtypes
        from ...variables import Variable
        self._model = model
        self._save_freq = save_freq
        # int64: the dtype TF keeps these counters in (and writes to the checkpoint).
        self._ckpt_saved_epoch = Variable(self.UNUSED, dtype=dtypes.int64,
                                          name="ckpt_saved_epoch", trainable=False)
        self._ckpt_saved_batch = Variable(self.UNUSED, dtype=dtypes.int64,
                                          name="ckpt_saved_batch", trainable=False)
        tracked = {"model": model, "ckpt_saved_epoch": self._ckpt_saved_epoch,
                   "ckpt_saved_batch": self._ckpt_saved_batch}
        if getattr(model, "_train_counter", None) is not None:
            tracked["train_counter"] = model._train_counter
        checkpoint = Checkpoint(**tracked)
        self._strategy = _strategy(model)
        self.read_checkpoint_manager = CheckpointManager(
            checkpoint, directory=os.path.join(checkpoint_dir, "chief"), max_to_keep=1)
        if _writes_to_temp(self._strategy):
            self.write_checkpoint_manager = CheckpointManager(
                checkpoint, directory=_write_dirpath(checkpoint_dir, self._strategy),
                max_to_keep=1)
        else:
            self.write_checkpoint_manager = self.read_checkpoint_manager

    def back_up(self, epoch: int, batch: int = 0) -> None:
        """Save the model and the epoch/batch counters (the counters were set by the
        callback's begin hooks)."""
        if self.write_checkpoint_manager.save():
            _remove_temp_dirpath(self.write_checkpoint_manager.directory, self._strategy)

    def backup_if_preempted(self) -> None:
        """A no-op: tfcompat has no preemption notices to react to."""

    def restore(self) -> None:
        """Load the newest backup, if any, into the model and the counters."""
        self.read_checkpoint_manager.restore_or_initialize()

    def delete_backup(self) -> None:
        """Remove the backup directory (the chief's only)."""
        if self.write_checkpoint_manager is self.read_checkpoint_manager:
            shutil.rmtree(self.write_checkpoint_manager.directory, ignore_errors=True)

    def maybe_load_initial_counters_from_ckpt(self, steps_per_epoch: Optional[int],
                                              initial_epoch: int, mode: str = "train"
                                              ) -> Tuple[int, int]:
        """`(epoch, step)` to start `fit` at: after a restored backup, the epoch after the
        backed-up one (epoch saving) or the step after the backed-up batch (batch saving;
        the next epoch's first step if that batch ended its epoch); else
        `(initial_epoch, 0)`."""
        initial_step = 0
        epoch = int(self._ckpt_saved_epoch.numpy())
        batch = int(self._ckpt_saved_batch.numpy())
        if mode != "train":
            return initial_epoch, initial_step
        if isinstance(self._save_freq, int):
            if batch >= 0:
                if steps_per_epoch is not None and batch == steps_per_epoch - 1:
                    initial_epoch, initial_step = epoch + 1, 0
                else:
                    initial_epoch, initial_step = epoch, batch + 1
        elif epoch >= 0:
            # The backup was made at the end of `epoch`: resume at the next one.
            initial_epoch = epoch + 1
        return initial_epoch, initial_step


class BackupAndRestore(Callback):
    """`tf.keras.callbacks.BackupAndRestore`: back up the training state so a `fit` that
    was interrupted resumes where it stopped when run again with the same `backup_dir`.

    `on_train_begin` restores the newest backup into the model (weights, optimizer state)
    and sets `model._training_state`, whose `maybe_load_initial_counters_from_ckpt` tells
    `fit` the epoch (and step) to start at. A backup is written at each epoch end, or
    every `save_freq` batches when it is an int. At `on_train_end` (a `fit` that finished)
    the backup is deleted unless `delete_checkpoint=False`. `save_before_preemption` is
    accepted; tfcompat receives no preemption notices, so it never triggers a save.
    """

    def __init__(self, backup_dir: Any, save_freq: Any = "epoch", delete_checkpoint: bool = True,
                 save_before_preemption: bool = False) -> None:
        super().__init__()
        self.backup_dir = os.fspath(backup_dir) if isinstance(backup_dir, os.PathLike) \
            else backup_dir
        self._supports_tf_logs = True
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.save_before_preemption = save_before_preemption
        self._batches_count = 0
        self._current_epoch = 0
        if not save_freq and not save_before_preemption:
            raise ValueError("Either `save_freq` or `save_before_preemption` must be set.")
        self._chief_worker_only = False  # every worker restores; the chief writes

    def _check_strategy(self) -> None:
        strategy = getattr(self.model, "_distribution_strategy", None)
        if strategy is None:
            return
        from ... import distribute
        supported = tuple(getattr(distribute, name) for name in (
            "MirroredStrategy", "MultiWorkerMirroredStrategy", "TPUStrategy")
            if hasattr(distribute, name))
        if not isinstance(strategy, supported):
            raise NotImplementedError(
                f"{type(strategy)} is not supported yet. Currently BackupAndRestore callback "
                "only supports empty strategy, MirroredStrategy, MultiWorkerMirroredStrategy "
                "and TPUStrategy.")

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._check_strategy()
        if self.model.built:
            optimizer = getattr(self.model, "optimizer", None)
            if (optimizer is not None and callable(getattr(optimizer, "build", None))
                    and not getattr(optimizer, "_built", False)):
                optimizer.build(self.model.trainable_variables)
        else:
            _logger.warning(
                "To use the BackupAndRestore callback, you model must be built before you "
                f"call `fit()`. Model {self.model} is unbuilt. You can build it beforehand "
                "by calling it on a batch of data.")
        self.model._training_state = _WorkerTrainingState(self.model, self.backup_dir,
                                                          self.save_freq)
        self._training_state = self.model._training_state
        self._training_state.restore()

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self._training_state._ckpt_saved_batch.assign(batch)

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._training_state.backup_if_preempted()
        if self.save_freq and self.save_freq != "epoch":
            self._batches_count += 1
            if self._batches_count >= self.save_freq:
                self._batches_count = 0
                self._backup(epoch=self._current_epoch, batch=batch)

    def _implements_train_batch_hooks(self) -> bool:
        return self.save_freq != "epoch"

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.delete_checkpoint:
            self._training_state.delete_backup()
        del self._training_state
        self.model._training_state = None

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._training_state._ckpt_saved_epoch.assign(epoch)
        self._current_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == "epoch":
            self._backup(epoch=epoch)

    def _backup(self, epoch: int, batch: int = 0) -> None:
        self._training_state.back_up(epoch=epoch, batch=batch)
