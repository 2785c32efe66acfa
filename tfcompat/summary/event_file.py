"""The event file behind `tf.summary.create_file_writer`: naming, first record, queueing.

This follows TF 2.21's C++ `SummaryFileWriter` + `EventsWriter`:

* the file is `<logdir>/events.out.tfevents.<seconds>.<hostname>.<pid>.<n><suffix>`,
  `n` a per-process counter of writers and `suffix` the `filename_suffix`
  (".v2" by default, a "." put in front when missing); the directory is
  created if needed;
* the file is created, and its first event -- `file_version: "brain.Event:2"`
  with the writing library in `source_metadata` -- written and flushed, when
  the writer is created, so TensorBoard sees the run at once;
* later events wait in a queue that is written out and flushed when it holds
  more than `max_queue` events, when `flush_millis` have passed since the
  last flush (checked as each event arrives), on `flush()` and on `close()`.
  Dropping the last reference, or the interpreter exiting, flushes too (TF
  flushes when the resource is destroyed).
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
import weakref
from typing import Optional

from .protos import FILE_VERSION, Event, SourceMetadata
from .records import RecordSink

__all__ = ["EventFileWriter", "wall_time", "SOURCE_WRITER"]

# What tfcompat records as the writer in each file's first event (TF writes
# "tensorflow.core.util.events_writer").
SOURCE_WRITER = "tfcompat.summary"

_file_ids = itertools.count()
_file_ids_lock = threading.Lock()


def wall_time() -> float:
    """Seconds since the epoch at microsecond resolution, as TF stamps events."""
    return (time.time_ns() // 1000) / 1e6


class _State:
    """What the finalizer needs: everything but the writer object itself."""

    def __init__(self, sink: RecordSink) -> None:
        self.sink: Optional[RecordSink] = sink
        self.queue: list = []
        self.lock = threading.Lock()

    def flush(self) -> None:
        with self.lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self.sink is None:
            return
        for record in self.queue:
            self.sink.write(record)
        self.queue.clear()
        self.sink.flush()

    def close(self) -> None:
        with self.lock:
            if self.sink is None:
                return
            try:
                self._flush_locked()
            finally:
                self.sink.close()
                self.sink = None


class EventFileWriter:
    """Writes `Event`s to a new event file in `logdir`, queued as TF's writer does."""

    def __init__(self, logdir: str, max_queue: int = 10, flush_millis: int = 120_000,
                 filename_suffix: str = ".v2", use_tensorboard: Optional[bool] = None) -> None:
        os.makedirs(logdir, exist_ok=True)
        with _file_ids_lock:
            file_id = next(_file_ids)
        sep = "" if filename_suffix.startswith(".") else "."
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}"
                f".{os.getpid()}.{file_id}{sep}{filename_suffix}")
        self.path = os.path.join(logdir, name)
        self.logdir = logdir
        self._max_queue = int(max_queue)
        self._flush_micros = int(flush_millis) * 1000
        self._state = _State(RecordSink(open(self.path, "wb"), use_tensorboard))
        self._finalizer = weakref.finalize(self, self._state.close)
        first = Event(wall_time=wall_time(), file_version=FILE_VERSION,
                      source_metadata=SourceMetadata(writer=SOURCE_WRITER))
        self._state.sink.write(first.encode())
        self._state.sink.flush()
        self._last_flush = time.monotonic_ns() // 1000

    @property
    def closed(self) -> bool:
        """Whether `close()` has run."""
        return self._state.sink is None

    def add_event(self, event: Event) -> None:
        """Queues `event`; writes the queue out when it is full or stale (TF's policy)."""
        self.add_serialized(event.encode())

    def add_serialized(self, record: bytes) -> None:
        """Queues an already serialized `Event`."""
        state = self._state
        with state.lock:
            if state.sink is None:
                raise ValueError(f"the event file {self.path} is closed")
            state.queue.append(record)
            now = time.monotonic_ns() // 1000
            if len(state.queue) > self._max_queue or now - self._last_flush > self._flush_micros:
                state._flush_locked()
                self._last_flush = now

    def flush(self) -> None:
        """Writes the queued events and flushes the file."""
        self._state.flush()
        self._last_flush = time.monotonic_ns() // 1000

    def close(self) -> None:
        """Flushes and closes the file; later calls do nothing."""
        self._finalizer()

    def pending(self) -> int:
        """How many events wait in the queue (not yet in the file)."""
        return len(self._state.queue)

    def __repr__(self) -> str:
        return f"<EventFileWriter {self.path!r}{' (closed)' if self.closed else ''}>"
