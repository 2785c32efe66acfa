"""`tf.compat.v1.train.Saver` in eager mode: name-based checkpoints, TF1's way.

A name-based checkpoint keys each tensor by a variable name (`dense/kernel`,
`global_step`, the optimizer's `dense/kernel/Adam`), not by an object path. In
TF 2 eager mode the `Saver` needs an explicit `var_list`: a list of variables
(each saved under its name without the `:0` suffix) or a dict mapping
checkpoint names to variables. The dict is also the name map that lets a port
whose variables are named differently read a TF1 checkpoint.

`restore` is all or nothing: every name is looked up and checked (present,
same shape, same dtype) before any variable is assigned. A missing name raises
`NotFoundError` listing the closest names the checkpoint has; a wrong shape
raises `ValueError` and a wrong dtype `InvalidArgumentError`, the classes TF 2
eager raises for these.
"""

from __future__ import annotations

import difflib
import os
import re
import time
from typing import Any

from ..framework import errors
from ..framework import variable_protocol
from ..framework.dtypes import as_dtype
from . import checkpoint_management
from .format import tensor_bundle
from .graph_view import saveables_of
from .reader import OBJECT_GRAPH_KEY

_SUFFIX = re.compile(r":\d+$")


def variable_name(var: Any) -> str:
    """The name a `Saver` given a list saves `var` under: `var.name` without `:N`."""
    return _SUFFIX.sub("", var.name)


def _names_to_variables(var_list: Any) -> dict[str, Any]:
    if isinstance(var_list, dict):
        items = list(var_list.items())
    elif isinstance(var_list, (list, tuple, set, frozenset)):
        items = []
        seen: dict[str, Any] = {}
        for var in var_list:
            _check_variable(var)
            name = variable_name(var)
            if name in seen:
                if seen[name] is var:
                    continue  # the same variable twice is saved once, as in TF
                raise ValueError(
                    f"Two different ResourceVariable objects with the same shared_name '{name}' were passed "
                    "to the Saver. This likely means that they were created in different Graphs or isolated "
                    "contexts, and may not be checkpointed together. Pass a dict var_list "
                    "{checkpoint_name: variable} to give them distinct names.")
            seen[name] = var
            items.append((name, var))
    else:
        raise TypeError(f"var_list must be a list or a dict of variables, got {type(var_list).__name__}")
    mapping: dict[str, Any] = {}
    by_id: dict[int, str] = {}
    for name, var in items:
        if not isinstance(name, str):
            raise TypeError(f"var_list keys must be checkpoint names (str), got {name!r}")
        _check_variable(var)
        if id(var) in by_id and by_id[id(var)] != name:
            raise ValueError(f"The same saveable will be restored with two names: {name}")
        by_id[id(var)] = name
        mapping[name] = var
    return mapping


def _check_variable(var: Any) -> None:
    if not variable_protocol.is_variable(var):
        raise ValueError("Can only save/restore ResourceVariables when executing eagerly, got type: "
                         f"{type(var)}.")


def _saveable(var: Any) -> Any:
    """How a checkpoint reads and restores `var` (the same path `tf.train.Checkpoint` takes,
    so a distributed variable saves one value and restores every component, a SUM
    sync-on-read variable its total)."""
    return saveables_of(var)["VARIABLE_VALUE"]


def _not_found_message(missing: list[str], available: list[str]) -> str:
    lines = ["Restoring from checkpoint failed. This is most likely due to a Variable name or other graph key "
             "that is missing from the checkpoint."]
    for name in missing:
        near = difflib.get_close_matches(name, available, n=3, cutoff=0.5)
        hint = f"; nearest names in the checkpoint: {', '.join(near)}" if near else ""
        lines.append(f"Key {name} not found in checkpoint{hint}")
    lines.append("Check the names with tf.train.list_variables(path); to restore under other names, pass "
                 "a dict var_list {checkpoint_name: variable}.")
    return "\n".join(lines)


class Saver:
    """`tf.compat.v1.train.Saver` for eager variables (see the module docstring).

    `max_to_keep` (default 5; `None` or 0 keeps every checkpoint) bounds the
    checkpoints `save` keeps, as listed by `last_checkpoints`; with
    `keep_checkpoint_every_n_hours`, one checkpoint per that many hours survives the
    deletion. Graph-mode arguments (`sharded`, `saver_def`, `builder`, `defer_build`,
    `restore_sequentially`, `reshape`, `filename`, `name`) are accepted and have no
    effect; `write_version` must be V2 (2), the only format written here.
    """

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int | None = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: str | None = None, restore_sequentially: bool = False, saver_def: Any = None,
                 builder: Any = None, defer_build: bool = False, allow_empty: bool = False,
                 write_version: int = 2, pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: str | None = None) -> None:
        if var_list is None:
            raise RuntimeError("When eager execution is enabled, `var_list` must specify a list or dict of "
                               "variables to save")
        if write_version != 2:
            raise ValueError("only the V2 checkpoint format (write_version=2) is written by tfcompat")
        self._variables = _names_to_variables(var_list)
        self._is_empty = not self._variables
        if self._is_empty and not allow_empty:
            raise ValueError("No variables to save")
        self._max_to_keep = max_to_keep
        self._keep_every_seconds = keep_checkpoint_every_n_hours * 3600.0
        self._next_checkpoint_time = time.time() + self._keep_every_seconds
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []

    # -- last checkpoints (TF's bookkeeping, kept per Saver) -------------------------

    @property
    def last_checkpoints(self) -> list[str]:
        """The prefixes not yet deleted, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list[tuple[str, float]]) -> None:
        """Replaces the list of `(prefix, timestamp)` this saver manages."""
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list of (path, timestamp)")
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: list[str]) -> None:
        """After a restart: manage the given prefixes that still exist, timed by their index's mtime."""
        found = [(p, os.path.getmtime(p + ".index")) for p in checkpoint_paths if os.path.exists(p + ".index")]
        self.set_last_checkpoints_with_time(found)

    def _record_last_checkpoint(self, path: str) -> None:
        if not self._max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != path]
        self._last_checkpoints.append((path, time.time()))
        if len(self._last_checkpoints) > self._max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self) -> None:
        if not self._checkpoints_to_be_deleted:
            return
        path, timestamp = self._checkpoints_to_be_deleted.pop(0)
        if timestamp > self._next_checkpoint_time:  # one per keep_checkpoint_every_n_hours survives
            self._next_checkpoint_time += self._keep_every_seconds
            return
        checkpoint_management.remove_checkpoint(path)

    # -- save / restore ---------------------------------------------------------------

    def save(self, sess: Any, save_path: Any, global_step: Any = None, latest_filename: str | None = None,
             meta_graph_suffix: str = "meta", write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Writes every variable under its name to `save_path` (or `save_path-<global_step>`),
        records it in the directory's state file (`latest_filename`, default `checkpoint`)
        and deletes checkpoints past `max_to_keep`. Returns the prefix written.

        `sess` is ignored (eager mode). As in TF 2 eager, no meta graph is written whatever
        `write_meta_graph` says."""
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            step = checkpoint_management._as_step(global_step)
            checkpoint_file = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename:
                raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                                 f"'{save_path}'")
        if self._is_empty:
            return None
        parent = os.path.dirname(save_path)
        if parent and not os.path.isdir(parent):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        with tensor_bundle.BundleWriter(checkpoint_file) as writer:
            for name in sorted(self._variables):
                writer.add(name, _saveable(self._variables[name]).read())
        if write_state:
            self._record_last_checkpoint(checkpoint_file)
            checkpoint_management.update_checkpoint_state(
                parent, checkpoint_file, self.last_checkpoints, latest_filename=latest_filename,
                save_relative_paths=self._save_relative_paths)
            self._maybe_delete_old_checkpoints()
        return checkpoint_file

    def restore(self, sess: Any, save_path: Any) -> None:
        """Assigns every variable the value saved under its name, or none of them.

        Raises `ValueError` when `save_path` is `None` or names no checkpoint,
        `NotFoundError` when names are missing (all of them listed, each with the
        checkpoint's closest names), `ValueError` for a shape and
        `InvalidArgumentError` for a dtype that does not match. An object-based
        checkpoint (`tf.train.Checkpoint`'s) is read through its object graph, by each
        variable's name at save time, as TF's Saver falls back to."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = os.fspath(save_path)
        if not checkpoint_management.checkpoint_exists(prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: " + prefix)
        reader = tensor_bundle.BundleReader(prefix)
        try:
            keys = self._checkpoint_keys(reader)
            values = self._read_checked(reader, keys)
        finally:
            reader.close()
        for name, value in values.items():
            _saveable(self._variables[name]).restore(value)

    def _checkpoint_keys(self, reader: Any) -> dict[str, str]:
        """Our name -> the checkpoint's key (the name itself, or via the object graph)."""
        missing = [name for name in self._variables if not reader.has(name)]
        keys = {name: name for name in self._variables}
        if missing and reader.has(OBJECT_GRAPH_KEY):
            by_full_name = _object_graph_full_names(reader.read(OBJECT_GRAPH_KEY)[()])
            for name in missing:
                if name in by_full_name:
                    keys[name] = by_full_name[name]
            missing = [name for name in missing if name not in by_full_name]
        if missing:
            available = [k for k in reader.keys() if k != OBJECT_GRAPH_KEY]
            raise errors.NotFoundError(None, None, _not_found_message(sorted(missing), available))
        return keys

    def _read_checked(self, reader: Any, keys: dict[str, str]) -> dict[str, Any]:
        values = {}
        for name in sorted(self._variables):
            var, key = self._variables[name], keys[name]
            stored_shape = tuple(int(d) for d in reader.shape(key))
            var_shape = tuple(int(d) for d in var.shape)  # a variable's shape is fully known in eager
            if stored_shape != var_shape:
                raise ValueError(f"Received incompatible tensor with shape {stored_shape} when attempting to "
                                 f"restore variable with shape {var_shape} and name {name}.")
            stored_dtype = reader.dtype(key)
            if as_dtype(var.dtype) != stored_dtype:
                raise errors.InvalidArgumentError(
                    None, None,
                    "Restoring from checkpoint failed. This is most likely due to a mismatch between the "
                    f"current graph and the graph from the checkpoint. tensor_name = {key}; expected dtype "
                    f"{as_dtype(var.dtype).name} does not equal original dtype {stored_dtype.name}")
            values[name] = reader.read_torch(key)
        return values

    def as_saver_def(self) -> Any:
        raise NotImplementedError("SaverDef protos belong to graph mode, which tfcompat does not run")


def _object_graph_full_names(serialized: bytes) -> dict[str, str]:
    """`full_name` (the variable's name when saved) -> checkpoint key, from the object graph."""
    from .object_graph import TrackableObjectGraph

    graph = TrackableObjectGraph.decode(serialized)
    found: dict[str, str] = {}
    for node in graph.nodes:
        for attribute in node.attributes:
            if attribute.full_name and attribute.name == "VARIABLE_VALUE":
                found.setdefault(attribute.full_name, attribute.checkpoint_key)
    return found


__all__ = ["Saver", "variable_name"]
