"""`tf.train.CheckpointOptions`: options of `Checkpoint.write/save/read/restore` (TF 2.21's).

tfcompat honours `experimental_write_callbacks` (called after a write,
with the path if they take one argument, then the state-file update of
`save`) and `experimental_skip_slot_variables` (slots are not restored; as TF they
are still written). Writing is synchronous, which is what an asynchronous
checkpoint looks like once `sync()` returns, so `enable_async` is
accepted; `experimental_io_device` and `experimental_sharding_callback`
are accepted and change nothing (one process writes one shard).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence

__all__ = ["CheckpointOptions", "execute_callbacks"]


class CheckpointOptions:
    """Options for a checkpoint write or read (`tf.train.CheckpointOptions`)."""

    def __init__(self, experimental_io_device: Optional[str] = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: Optional[Sequence[Callable]] = None,
                 enable_async: bool = False, experimental_skip_slot_variables: bool = False,
                 experimental_sharding_callback: Any = None) -> None:
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(experimental_enable_async_checkpoint or enable_async)
        self.experimental_enable_async_checkpoint = self.enable_async
        if experimental_write_callbacks is not None:
            for callback in experimental_write_callbacks:
                if len(inspect.signature(callback).parameters) > 1:
                    raise ValueError("Callback functions for checkpoint are required to have 0 "
                                     f"or 1 parameters, but this has "
                                     f"{len(inspect.signature(callback).parameters)} parameters: "
                                     f"{callback}")
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = bool(experimental_skip_slot_variables)

    def __copy__(self) -> "CheckpointOptions":
        out = CheckpointOptions.__new__(CheckpointOptions)
        out.__dict__.update(self.__dict__)
        return out


def execute_callbacks(callbacks: Optional[Sequence[Callable]], save_path: str) -> None:
    """Call each write callback, with `save_path` if it takes one argument (as TF)."""
    for callback in callbacks or ():
        if len(inspect.signature(callback).parameters) == 0:
            callback()
        else:
            callback(save_path)
