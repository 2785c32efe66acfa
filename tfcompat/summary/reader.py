"""Reading event files back: `summary_iterator` (TF's `tf.compat.v1.train.summary_iterator`)."""

from __future__ import annotations

from typing import Any, Iterator

from .protos import Event
from .records import read_records

__all__ = ["summary_iterator"]


def summary_iterator(path: Any) -> Iterator[Event]:
    """Yields the `Event`s of an event file in order, the `file_version` record first.

    Framing CRCs are checked (a corrupt record raises
    `tf.errors.DataLossError`); a record cut short at the end of the file ends
    the iteration, so a file still being written reads up to its last
    complete record.
    """
    for record in read_records(path):
        yield Event.decode(record)
