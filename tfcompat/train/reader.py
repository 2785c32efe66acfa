"""`tf.train.load_checkpoint`, `list_variables`, `load_variable`: reading a checkpoint by key.

TF's `CheckpointReader` is a view of one checkpoint's tensor bundle: keys are the
strings in the `.index` file (object-based keys such as
`model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE`, or TF1 variable names such as
`dense/kernel`), each with a dtype, a shape and a value. Like TF, the reader
lists every key, the serialized object graph `_CHECKPOINTABLE_OBJECT_GRAPH`
(a scalar string) included, and returns values as numpy: arrays, numpy
scalars for 0-d tensors, `bytes` for a 0-d string and object arrays of
`bytes` for string tensors.

A path names either a checkpoint prefix (`.../ckpt-3`, the part before
`.index`) or a directory, which resolves through its `checkpoint` state file
to the latest checkpoint (`tf.train.latest_checkpoint`).
"""

from __future__ import annotations

import os
from typing import Any


from ..framework import errors
from ..framework.dtypes import DType
from .format import protos
from .format import tensor_bundle

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

_DT_NAMES = {number: name for name, number in vars(protos.DataType).items() if name.startswith("DT_")}


def _resolve(ckpt_dir_or_file: Any) -> str:
    """A checkpoint prefix for a directory (its latest checkpoint) or a path (itself)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        from .checkpoint_management import latest_checkpoint

        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


class CheckpointReader:
    """TF's `CheckpointReader` (what `tf.train.load_checkpoint` returns) over one bundle.

    Opening reads the index only; each `get_tensor` reads and checks (CRC32C) that
    tensor's bytes from its data shard. A missing checkpoint raises `NotFoundError`
    with TF's message, a corrupt index `DataLossError`.
    """

    def __init__(self, prefix: Any) -> None:
        prefix = os.fspath(prefix)
        if prefix.endswith(".index") and not os.path.exists(prefix + ".index"):
            prefix = prefix[: -len(".index")]  # TF accepts the index file's own name too
        if not os.path.exists(prefix + ".index"):
            raise errors.NotFoundError(
                None, None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}")
        self._prefix = prefix
        self._bundle = tensor_bundle.BundleReader(prefix)
        self._keys = list(self._bundle.keys())

    @property
    def prefix(self) -> str:
        """The checkpoint prefix this reader reads."""
        return self._prefix

    def _check(self, name: str) -> str:
        name = _as_text(name)
        if not self._bundle.has(name):
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return name

    def has_tensor(self, name: str | bytes) -> bool:
        """Whether the checkpoint holds a tensor under exactly this key."""
        return self._bundle.has(_as_text(name))

    def get_tensor(self, name: str | bytes) -> Any:
        """The value stored under `name`, as TF returns it (numpy; see the module docstring).

        Raises `NotFoundError` ("Key ... not found in checkpoint") for an unknown key."""
        value = self._bundle.read(self._check(name))
        return value[()] if value.ndim == 0 else value  # a numpy scalar (or bytes), as TF

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Every key with its shape as a list of ints (TF's dict of lists)."""
        return {key: [int(d) for d in self._bundle.shape(key)] for key in self._keys}

    def get_variable_to_dtype_map(self) -> dict[str, DType]:
        """Every key with its dtype (tfcompat `DType`s; `string` for string tensors)."""
        return {key: self._bundle.dtype(key) for key in self._keys}

    def debug_string(self) -> bytes:
        """One line per key, `name (DT_FLOAT) [3,2]`, as TF's `debug_string()` (bytes)."""
        lines = []
        for key in self._keys:
            dtype = self._bundle.dtype(key)
            dims = ",".join(str(int(d)) for d in self._bundle.shape(key))
            lines.append(f"{key} ({_DT_NAMES.get(dtype.as_datatype_enum, dtype.name)}) [{dims}]\n")
        return "".join(lines).encode()

    def close(self) -> None:
        """Releases the data files (the reader keeps no file open between reads otherwise)."""
        self._bundle.close()

    def __enter__(self) -> CheckpointReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        bundle = getattr(self, "_bundle", None)
        if bundle is not None:
            try:
                bundle.close()
            except Exception:  # noqa: BLE001 - interpreter shutdown; nothing to report to
                pass


def _as_text(name: str | bytes) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)


def load_checkpoint(ckpt_dir_or_file: Any) -> CheckpointReader:
    """`tf.train.load_checkpoint`: a `CheckpointReader` for a prefix, or for a directory's
    latest checkpoint.

    Raises `ValueError` (TF's message) for a directory without a `checkpoint` state file
    or whose latest checkpoint is gone, `NotFoundError` for a prefix with no checkpoint."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file: Any, name: str) -> Any:
    """`tf.train.load_variable`: the value stored under `name` (a trailing `:0` is dropped)."""
    if name.endswith(":0"):
        name = name[:-2]
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        return reader.get_tensor(name)
    finally:
        reader.close()


def list_variables(ckpt_dir_or_file: Any) -> list[tuple[str, list[int]]]:
    """`tf.train.list_variables`: `(key, shape)` for every key, sorted, the object graph
    key included."""
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        shapes = reader.get_variable_to_shape_map()
    finally:
        reader.close()
    return [(name, shapes[name]) for name in sorted(shapes)]


__all__ = ["CheckpointReader", "OBJECT_GRAPH_KEY", "list_variables", "load_checkpoint", "load_variable"]
