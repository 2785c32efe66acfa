"""`tf.train.CheckpointManager`, `tf.train.latest_checkpoint`, `tf.train.get_checkpoint_state`.

A directory of checkpoints is described by its `checkpoint` state file (a
`CheckpointState` text proto): the latest prefix, every kept prefix oldest
first, their timestamps, and the time of the last checkpoint kept for good by
`keep_checkpoint_every_n_hours`. Paths in it may be relative to the directory
(the manager writes them so, which keeps a directory relocatable); readers join
them to the directory, as TF does.

The order of a manager's save is what makes it safe to kill at any point: the
checkpoint's own files are written first (the bundle writer writes under temp
names and renames), then the state file names the new checkpoint (written
atomically), then old checkpoints are deleted (all their data shards, then the
index) and the state file is rewritten without them. A crash leaves the state
file naming a complete checkpoint.
"""

from __future__ import annotations

import collections
import glob
import logging
import os
import time
from typing import Any, Callable, Iterator

from .format import protos
from .format import state_file

_log = logging.getLogger("tfcompat.train")


def _checkpoint_state_path(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def get_checkpoint_state(checkpoint_dir: Any, latest_filename: str | None = None) -> protos.CheckpointState | None:
    """`tf.train.get_checkpoint_state`: the directory's `CheckpointState`, or `None`.

    Relative paths in the file come back joined to `checkpoint_dir`. A missing file
    gives `None`; so does an unreadable one (with a warning: TF logs one and ignores
    the file). A file without `model_checkpoint_path` raises `ValueError`, as in TF."""
    return state_file.read_state(os.fspath(checkpoint_dir), latest_filename=latest_filename or "checkpoint")


def checkpoint_exists(prefix: str) -> bool:
    """Whether a (V2) checkpoint exists at `prefix`: its `.index` file is there."""
    return os.path.exists(prefix + ".index")


def latest_checkpoint(checkpoint_dir: Any, latest_filename: str | None = None) -> str | None:
    """`tf.train.latest_checkpoint`: the prefix the state file names as latest, if that
    checkpoint's index exists; otherwise (no state file, or the files are gone) `None`."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    if checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def wait_for_new_checkpoint(checkpoint_dir: Any, last_checkpoint: str | None = None,
                            seconds_to_sleep: float = 1, timeout: float | None = None) -> str | None:
    """Polls `latest_checkpoint(checkpoint_dir)` every `seconds_to_sleep` until it is a
    checkpoint other than `last_checkpoint`; `None` once waiting longer would pass `timeout`."""
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir: Any, min_interval_secs: float = 0, timeout: float | None = None,
                         timeout_fn: Callable[[], bool] | None = None) -> Iterator[str]:
    """`tf.train.checkpoints_iterator`: yields each new latest checkpoint of `checkpoint_dir`
    as it appears (an evaluation loop beside a trainer), at most one per `min_interval_secs`.

    When `timeout` seconds pass without a new one, the iterator ends, or, with a
    `timeout_fn`, asks it (after every wait, as TF) whether to end."""
    checkpoint_path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_path:
            start = time.time()
            checkpoint_path = new_path
            yield checkpoint_path
            remaining = start + min_interval_secs - time.time()
            if remaining > 0:
                time.sleep(remaining)
        elif timeout_fn is None:
            return
        if timeout_fn is not None and timeout_fn():
            return


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str, all_model_checkpoint_paths: list[str],
                            all_model_checkpoint_timestamps: list[float] | None = None,
                            last_preserved_timestamp: float | None = None,
                            latest_filename: str | None = None, save_relative_paths: bool = False) -> None:
    """Writes the state file atomically (TF's `update_checkpoint_state_internal`).

    `model_checkpoint_path` is appended to the list when it is not already its last
    element; with `save_relative_paths`, absolute paths are written relative to
    `save_dir`. Raises `ValueError` if timestamps do not match the paths, and
    `RuntimeError` if the checkpoint path is the state file itself."""
    paths = list(all_model_checkpoint_paths)
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths "
                         f"(got paths {paths} and timestamps {timestamps})")
    if save_relative_paths:  # absolute paths become relative to save_dir
        model_checkpoint_path = _relative_if_absolute(model_checkpoint_path, save_dir)
        paths = [_relative_if_absolute(p, save_dir) for p in paths]
    if not os.path.isabs(save_dir):  # relative paths are written relative to a relative save_dir
        model_checkpoint_path = _relative_if_relative(model_checkpoint_path, save_dir)
        paths = [_relative_if_relative(p, save_dir) for p in paths]
    if _checkpoint_state_path(save_dir, latest_filename) == model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint "
                           "state.  Please use a different save path.")
    state = protos.CheckpointState(model_checkpoint_path=model_checkpoint_path,
                                   all_model_checkpoint_paths=paths,
                                   all_model_checkpoint_timestamps=timestamps,
                                   last_preserved_timestamp=last_preserved_timestamp or 0.0)
    state_file.write_state(save_dir, state, latest_filename=latest_filename or "checkpoint")


def _relative_if_absolute(path: str, start: str) -> str:
    return os.path.relpath(path, start) if os.path.isabs(path) else path


def _relative_if_relative(path: str, start: str) -> str:
    return path if os.path.isabs(path) else os.path.relpath(path, start or os.curdir)


def remove_checkpoint(prefix: str) -> None:
    """Deletes a checkpoint's files: every data shard first, then the index (so a
    half-deleted checkpoint never looks complete)."""
    for path in glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        _remove(path)
    _remove(prefix + ".index")


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        _log.warning("Hit NotFoundError when deleting '%s', possibly because another process/thread "
                     "is also deleting/moving the same file", path)


def _as_step(value: Any) -> int:
    """An integer step from an int, a numpy integer, a tensor or a variable."""
    if isinstance(value, bool):
        raise TypeError(f"a checkpoint number must be an integer, got {value!r}")
    try:
        import numpy as np

        return int(np.asarray(value).item())
    except (TypeError, ValueError) as error:
        raise TypeError(f"a checkpoint number must be an integer or an integer variable, got {value!r}") from error


class CheckpointManager:
    """`tf.train.CheckpointManager`: numbered saves of one `tf.train.Checkpoint` into a
    directory, keeping the newest `max_to_keep` (`None` keeps all).

    `keep_checkpoint_every_n_hours` additionally keeps, for good, one checkpoint per
    that many hours (it is never deleted and no longer listed in `checkpoints`).
    `checkpoint_interval` with `step_counter` makes `save()` skip unless the step moved
    on by at least that much since the last save. On construction the manager recovers
    the directory's state file: `latest_checkpoint`, the checkpoints it may still delete
    and the last-preserved time. `save()` returns the new prefix (or `None` when the
    interval skipped it).
    """

    def __init__(self, checkpoint: Any, directory: Any, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Callable[[], Any] | None = None, last_checkpoint_step: int | None = None) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()

        recovered = get_checkpoint_state(self._directory)
        now = time.time()
        if recovered is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = recovered.model_checkpoint_path
        self._last_preserved_timestamp = recovered.last_preserved_timestamp
        if now < self._last_preserved_timestamp:
            _log.warning("time.time() returned a value %f seconds behind the last preserved checkpoint "
                         "timestamp.", self._last_preserved_timestamp - now)
            self._last_preserved_timestamp = now
        paths = list(recovered.all_model_checkpoint_paths)
        timestamps = list(recovered.all_model_checkpoint_timestamps) or \
            [self._last_preserved_timestamp] * len(paths)
        for path, timestamp in zip(paths, timestamps):
            timestamp = min(timestamp, now)
            # Not newer than the last preserved one: kept for good by an earlier manager. A
            # state file without timestamps (TF1's Saver, old TF) gets the last-preserved time
            # for each, so none of its checkpoints is ever swept: `>`, never `>=` (pinned by
            # tests/train/test_checkpoint_management.py).
            if timestamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = timestamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint (saved or recovered), or `None`."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The prefixes this manager may still delete, oldest first."""
        return list(self._maybe_delete)

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, timestamp = self._maybe_delete.popitem(last=False)
            if (self._keep_checkpoint_every_n_hours
                    and timestamp - self._keep_checkpoint_every_n_hours * 3600.0 >= self._last_preserved_timestamp):
                self._last_preserved_timestamp = timestamp
                continue
            remove_checkpoint(path)

    def _record_state(self) -> None:
        update_checkpoint_state(self._directory, self._latest_checkpoint, list(self._maybe_delete),
                                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                                last_preserved_timestamp=self._last_preserved_timestamp,
                                save_relative_paths=True)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Writes `<directory>/<checkpoint_name>-<n>`, records it, deletes what falls out.

        `n` is `checkpoint_number` (an int or an integer variable such as a global step)
        or else the checkpoint's `save_counter` after its increment. With a
        `checkpoint_interval`, returns `None` without saving when the step has not
        advanced enough (or not at all; `check_interval=False` only skips the former).
        If writing fails, the error propagates and the save counter and the directory's
        state are as before."""
        if self._checkpoint_interval is not None:
            current_step = _as_step(self._step_counter)
            if self._last_checkpoint_step is not None:
                if current_step == self._last_checkpoint_step:
                    return None
                if check_interval and current_step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
        save_counter = self._checkpoint.save_counter
        previous_count = _as_step(save_counter)
        save_counter.assign_add(1)
        try:
            number = save_counter if checkpoint_number is None else checkpoint_number
            prefix = f"{self._checkpoint_prefix}-{_as_step(number)}"
            save_path = self._checkpoint.write(prefix, options=options) if options is not None \
                else self._checkpoint.write(prefix)
        except BaseException:
            save_counter.assign(previous_count)
            raise
        save_path = os.fspath(save_path)
        if self._checkpoint_interval is not None:
            self._last_checkpoint_step = current_step
        timestamp = time.time()
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = timestamp
        self._latest_checkpoint = save_path
        self._record_state()  # the new checkpoint is named before anything is deleted
        self._sweep()
        self._record_state()
        return save_path

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its prefix; with none, runs `init_fn`
        (if given) and returns `None`."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _as_step(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Waits for pending writes (saves here are synchronous: nothing to wait for)."""
        sync = getattr(self._checkpoint, "sync", None)
        if sync is not None:
            sync()


__all__ = ["CheckpointManager", "checkpoints_iterator", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state", "wait_for_new_checkpoint"]
