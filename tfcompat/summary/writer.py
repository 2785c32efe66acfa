"""`tf.summary`'s writers and recording state: `create_file_writer`, `write`, `record_if`, ...

As in TF 2.21 (`summary_ops_v2.py`) the state is per thread: the default
writer (set by `writer.as_default()` / `set_as_default()`), the default step
(`tf.summary.experimental.set_step`, or `as_default(step=...)`), and the
recording condition (`record_if`). Every summary op goes through `write`,
which returns a bool scalar tensor: True when it wrote, False when there is
no default writer or recording is off. Under a distribution strategy only
replica 0 records, as TF's replica contexts arrange.
"""

from __future__ import annotations

import abc
import contextlib
import os
import re
import threading
from typing import Any, Iterator, Optional, Union

import numpy as np
import torch

from ..distribute import distribute_lib
from ..framework import dtypes, errors
from ..framework import name_scope as name_scope_lib
from ..framework.tensor_conversion import convert_to_tensor
from .event_file import EventFileWriter, wall_time
from .protos import Event, Summary, SummaryMetadata, tensor_proto

__all__ = [
    "SummaryWriter", "create_file_writer", "create_noop_writer", "write", "flush", "record_if",
    "should_record_summaries", "get_step", "set_step", "summary_scope", "has_default_writer",
]


class _SummaryState(threading.local):
    def __init__(self) -> None:
        self.is_recording: Any = None
        self.is_recording_distribution_strategy: Any = True
        self.writer: Optional["SummaryWriter"] = None
        self.step: Any = None


_state = _SummaryState()


# -- step ------------------------------------------------------------------------

def get_step() -> Any:
    """`tf.summary.experimental.get_step()`: this thread's default step, or None."""
    return _state.step


def set_step(step: Any) -> None:
    """`tf.summary.experimental.set_step(step)`: this thread's default step (None unsets it).

    The value may be a number, a tensor or an int64 `tf.Variable`; a variable
    is read each time a summary is written, so advancing it advances the step.
    """
    _state.step = step


def _step_value(step: Any) -> int:
    # TF's int64 conversion (and its errors: 1.5, an int32 tensor), then a one-element check.
    t = convert_to_tensor(step, dtype=dtypes.int64)
    if t.numel() != 1:
        raise ValueError("Argument `step` must be a scalar. "
                         f"Received step with shape {tuple(t.shape)}.")
    return int(t.reshape(()).item())


# -- recording condition -----------------------------------------------------------

def _resolve(condition: Any) -> Any:
    return condition() if callable(condition) else condition


def _should_record() -> bool:
    if _state.writer is None:
        return False
    replica = distribute_lib.get_replica_context()
    if replica is not None and getattr(replica, "_replica_id", 0) != 0:
        return False
    cond_distributed = _resolve(_state.is_recording_distribution_strategy)
    cond = _resolve(_state.is_recording)
    if cond is None:
        cond = True
    return bool(cond_distributed) and bool(cond)


def should_record_summaries() -> torch.Tensor:
    """`tf.summary.should_record_summaries()`: a bool scalar tensor, True when a summary
    written now would be recorded (a default writer is set, `record_if`'s condition holds,
    and this is not a non-zero replica of a distribution strategy)."""
    return torch.tensor(_should_record())


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """`tf.summary.record_if(condition)`: record summaries in the block only when `condition`
    holds. It may be a Python bool, a bool scalar tensor, or a callable returning one, called
    each time a summary is about to be written (so `lambda: step % 100 == 0` works). The
    previous condition comes back on exit."""
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def has_default_writer() -> bool:
    """Whether this thread has a default summary writer."""
    return _state.writer is not None


# -- writers -------------------------------------------------------------------------

class _SummaryContextManager:
    """What `SummaryWriter.as_default(step)` returns: sets the default writer (and step)."""

    def __init__(self, writer: "SummaryWriter", step: Any = None) -> None:
        self._writer = writer
        self._step = step
        self._old_writer: Optional[SummaryWriter] = None
        self._old_step: Any = None

    def __enter__(self) -> "SummaryWriter":
        self._old_writer = _state.writer
        _state.writer = self._writer
        if self._step is not None:
            self._old_step = _state.step
            _state.step = self._step
        return self._writer

    def __exit__(self, *exc: Any) -> bool:
        # TF flushes whichever writer is the default on the way out.
        if _state.writer is not None:
            _state.writer.flush()
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step
        return False


class SummaryWriter(metaclass=abc.ABCMeta):
    """`tf.summary.SummaryWriter`: the interface of a stateful summary writer.

    `as_default(step=None)` is a context manager making this the thread's
    default writer (and `step`, when given, the default step; both are
    restored on exit, and the writer is flushed). `set_as_default(step=None)`
    does the same for the rest of the thread. Subclasses implement `init`,
    `flush` and `close`.
    """

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the thread's default writer (and `step` the default step, if given)."""
        self.as_default(step).__enter__()

    def as_default(self, step: Any = None) -> Any:
        """A context manager making this the default writer (and `step` the default step)."""
        return _SummaryContextManager(self, step)

    def init(self) -> Any:
        """Initializes the writer."""
        raise NotImplementedError()

    def flush(self) -> Any:
        """Writes out buffered data."""
        raise NotImplementedError()

    def close(self) -> Any:
        """Flushes and closes the writer."""
        raise NotImplementedError()


class _FileSummaryWriter(SummaryWriter):
    """The writer `create_file_writer` returns: one event file, created at once."""

    def __init__(self, logdir: str, max_queue: int, flush_millis: int, filename_suffix: str,
                 trackable: bool = False) -> None:
        self._file = EventFileWriter(logdir, max_queue=max_queue, flush_millis=flush_millis,
                                     filename_suffix=filename_suffix)
        self._closed = False
        self._trackable = trackable

    @property
    def logdir(self) -> str:
        """The directory the event file is in."""
        return self._file.logdir

    @property
    def path(self) -> str:
        """The event file's path (tfcompat's addition: TF hides it in the resource)."""
        return self._file.path

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step: Any = None) -> None:
        """See `SummaryWriter.set_as_default`; a closed writer raises `RuntimeError`."""
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step: Any = None) -> Any:
        """See `SummaryWriter.as_default`; a closed writer raises `RuntimeError`."""
        self._check_open()
        return super().as_default(step)

    def init(self) -> None:
        """Nothing to do: the file was created with the writer (TF's eager init op). A closed
        writer raises `RuntimeError`."""
        self._check_open()

    def flush(self) -> None:
        """Writes the queued events to the file; does nothing once closed."""
        if not self._closed:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file; later calls do nothing."""
        if not self._closed:
            try:
                self._file.close()
            finally:
                self._closed = True

    def _write_value(self, step: int, value: Summary.Value) -> None:
        if self._closed:
            raise errors.NotFoundError(
                None, None,
                f"Resource {self!r} does not exist: the summary writer was closed. Create a new "
                "one with tf.summary.create_file_writer. [Op:WriteSummary]")
        event = Event(wall_time=wall_time(), step=step, summary=Summary(value=[value]))
        self._file.add_event(event)


class _NoopSummaryWriter(SummaryWriter):
    """`tf.summary.create_noop_writer()`: a writer that does nothing, never the default."""

    def set_as_default(self, step: Any = None) -> None:
        """Does nothing (the default writer stays as it was)."""

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[None]:
        """A context manager that does nothing."""
        yield

    def init(self) -> None:
        """Does nothing."""

    def flush(self) -> None:
        """Does nothing."""

    def close(self) -> None:
        """Does nothing."""


def _as_int(name: str, value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"create_file_writer's `{name}` must be an integer, got {value!r}") from None


def create_file_writer(logdir: Union[str, "os.PathLike[str]"], max_queue: Optional[int] = None,
                       flush_millis: Optional[int] = None, filename_suffix: Optional[str] = None,
                       name: Optional[str] = None,
                       experimental_trackable: bool = False) -> SummaryWriter:
    """`tf.summary.create_file_writer`: a writer of a new event file in `logdir`.

    The directory is created if needed, and the file
    (`events.out.tfevents.<time>.<host>.<pid>.<n>` + `filename_suffix`,
    ".v2" by default) is created with its `file_version` record at once.
    Events are queued and written when more than `max_queue` (10) wait, when
    `flush_millis` (120000) have passed since the last flush, on `flush()`,
    on leaving `as_default()`, and on `close()`. `name` is accepted for TF's
    signature (it names a graph op there); `experimental_trackable` too (it
    makes TF's writer a SavedModel resource; tfcompat's writer holds no
    checkpointable state either way).
    """
    del name
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if isinstance(logdir, bytes):
        logdir = logdir.decode("utf-8")
    logdir = os.fspath(logdir)
    max_queue = 10 if max_queue is None else _as_int("max_queue", max_queue)
    flush_millis = 120_000 if flush_millis is None else _as_int("flush_millis", flush_millis)
    if filename_suffix is None:
        filename_suffix = ".v2"
    elif isinstance(filename_suffix, bytes):
        filename_suffix = filename_suffix.decode("utf-8")
    return _FileSummaryWriter(logdir, max_queue, flush_millis, str(filename_suffix),
                              trackable=bool(experimental_trackable))


def create_noop_writer() -> SummaryWriter:
    """`tf.summary.create_noop_writer()`: a writer that does nothing (a placeholder)."""
    return _NoopSummaryWriter()


def flush(writer: Optional[SummaryWriter] = None, name: Optional[str] = None) -> None:
    """`tf.summary.flush(writer=None)`: flush `writer`, or the default writer (nothing when
    there is none). Anything but a `SummaryWriter` is a `ValueError`."""
    del name
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError("Invalid argument to flush(): %r" % (writer,))


# -- tags and values -------------------------------------------------------------------

_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(name: Optional[str], default_name: str = "summary",
                  values: Any = None) -> Iterator[tuple]:
    """`tf.summary.experimental.summary_scope`: yields `(tag, scope)` for a summary op.

    The tag is `name` (or `default_name` when empty) under the active name
    scopes, kept as given (any characters, not uniquified); the scope is the
    name scope entered for it, with characters TF's scope names refuse
    removed.
    """
    del values
    name = name or default_name
    tag = name_scope_lib.current_name_scope() + name
    scope_name = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    with name_scope_lib.name_scope(scope_name) as scope:
        yield tag, scope


def _is_strings(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OSU"
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype is torch.bfloat16:
        import ml_dtypes
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def as_array(value: Any) -> np.ndarray:
    """A summary's data as a NumPy array: strings as an object array (TF's `tf.string`),
    anything else through `convert_to_tensor`, so the dtype is the one TF infers (Python
    floats are float32, ints int32)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
        return value.astype(object) if value.dtype.kind != "O" else value
    if _is_strings(value):
        arr = np.array(value, dtype=object)
        for v in arr.reshape(-1):
            if isinstance(v, (list, tuple)):
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
            if not isinstance(v, (str, bytes)):
                raise TypeError(f"Failed to convert elements of {value!r} to Tensor: a string "
                                f"tensor holds only str or bytes, found {type(v).__name__}.")
        return arr
    return _to_numpy(convert_to_tensor(value))


def _serialize_metadata(metadata: Any) -> bytes:
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    return bytes(metadata)


def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None,
          name: Optional[str] = None) -> torch.Tensor:
    """`tf.summary.write`: write `tensor` under `tag` to the default writer.

    `tensor` may be a callable, called only when the summary is recorded.
    `step` defaults to `tf.summary.experimental.get_step()`; `metadata` is a
    `SummaryMetadata` (this package's, or protobuf's) or its serialized bytes.
    Returns a bool scalar tensor: True when written, False without a default
    writer or when recording is off. A `ValueError` when recording with no
    step at all, or with a non-scalar step.
    """
    del name
    if step is not None:
        _step_value(step)  # an explicit step is checked up front, even with no writer
    writer = _state.writer
    if writer is None:
        return torch.tensor(False)
    if step is None:
        step = get_step()
    serialized = _serialize_metadata(metadata)
    if not _should_record():
        return torch.tensor(False)
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tf.summary.experimental.set_step()")
    data = tensor() if callable(tensor) else tensor
    value = Summary.Value(tag=tag, tensor=tensor_proto(as_array(data)))
    if serialized:
        value.metadata = SummaryMetadata.decode(serialized)
    writer._write_value(_step_value(step), value)
    return torch.tensor(True)
