"""`Model.save_weights` / `Model.load_weights` (tf_keras 2.21's legacy paths,
`saving/legacy/save.py`), as functions of the model.

The format follows the path: one ending in `.h5`, `.hdf5` or `.keras` is HDF5
(`hdf5_format.py`); anything else is TF's checkpoint format, written as tf_keras does: a
`tf.train.Checkpoint` whose root is the model itself (keys
`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, the optimizer's values under
`optimizer/...` and its slots under `.OPTIMIZER_SLOT/optimizer/...` when one is attached as
`model.optimizer`), `Checkpoint.write` (no save counter), then the directory's `checkpoint`
state file pointed at the prefix (relative), so `tf.train.latest_checkpoint` finds it.

Loading a TF checkpoint returns the `CheckpointLoadStatus` (`expect_partial()`,
`assert_consumed()`, ...) after `assert_nontrivial_match()`; values for variables that do
not exist yet (a subclassed model not built, optimizer slots) are restored when they are
created. `.weights.h5` files and `.keras` archives are Keras 3's formats: not supported.
"""

from __future__ import annotations

import os
import weakref
from typing import Any, Optional

from . import hdf5_format

__all__ = ["save_weights", "load_weights", "is_hdf5_filepath", "ask_to_proceed_with_overwrite"]


def is_hdf5_filepath(filepath: str) -> bool:
    """tf_keras's legacy rule: `.h5`, `.keras` and `.hdf5` paths are HDF5."""
    return filepath.endswith((".h5", ".keras", ".hdf5"))


def ask_to_proceed_with_overwrite(filepath: str) -> bool:
    """tf_keras's prompt before overwriting a file (`overwrite=False`)."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


def _path(filepath: Any) -> Any:
    return os.fspath(filepath) if isinstance(filepath, os.PathLike) else filepath


def _refuse_keras_v3(filepath: str) -> None:
    if filepath.endswith(".weights.h5"):
        raise NotImplementedError(
            f"`.weights.h5` files ({filepath}) are the Keras 3 weights format, which tfcompat "
            "does not support. Use a path ending in `.h5` (without `.weights`) for tf_keras's "
            "HDF5 weights, or a path without extension for the TF checkpoint format.")


def assert_weights_created(model: Any) -> None:
    """tf_keras's ValueError when a model with its own `build` has not been built."""
    if getattr(model, "dynamic", False):
        return
    from ..engine.training import Model
    if "build" in type(model).__dict__ and type(model) is not Model and not model.built:
        raise ValueError(
            f"Weights for model '{model.name}' have not yet been created. Weights are created "
            "when the model is first called on inputs or `build()` is called with an "
            "`input_shape`.")


def _checkpoint(model: Any) -> Any:
    """A `tf.train.Checkpoint` rooted at the model (held weakly, as tf_keras's
    `Model._checkpoint`). A fresh one per call: values waiting for variables not created yet
    wait in the model's objects, not in the checkpoint, so nothing is lost, and the model
    gains no attribute that tracking could pick up."""
    from ...train.checkpoint import Checkpoint
    return Checkpoint(root=weakref.ref(model))


def save_weights(model: Any, filepath: Any, overwrite: bool = True,
                 save_format: Optional[str] = None, options: Any = None) -> None:
    """`model.save_weights(filepath, overwrite=True, save_format=None, options=None)`."""
    assert_weights_created(model)
    filepath = _path(filepath)
    h5py_file = _is_h5py_file(filepath)
    if not h5py_file:
        _refuse_keras_v3(filepath)
    is_h5 = h5py_file or is_hdf5_filepath(filepath)
    if save_format is None:
        save_format = "h5" if is_h5 else "tf"
    else:
        requested = save_format.lower().strip()
        if requested in ("tensorflow", "tf"):
            save_format = "tf"
        elif requested in ("hdf5", "h5", "keras"):
            save_format = "h5"
        else:
            raise ValueError(f"Unknown format. Received: `save_format`={save_format}. Was "
                             'expecting one of {"tf", "h5"}.')
    if save_format == "tf" and is_h5:
        raise ValueError(
            'save_weights got save_format="tf"/"tensorflow", but the filepath '
            f'({filepath}) looks like an HDF5 file. Omit the ".h5"/".keras" when saving in '
            "TensorFlow format.")
    if save_format == "h5":
        h5py = hdf5_format.require_h5py("save_weights")
        if h5py_file:
            hdf5_format.save_weights_to_hdf5_group(filepath, model)
            return
    check = filepath + ".index" if save_format == "tf" else filepath
    if not overwrite and os.path.isfile(check) and not ask_to_proceed_with_overwrite(check):
        return
    if save_format == "h5":
        with h5py.File(filepath, "w") as f:
            hdf5_format.save_weights_to_hdf5_group(f, model)
        return
    from ...train.checkpoint_management import update_checkpoint_state
    _checkpoint(model).write(filepath, options=options)
    # as tf_keras: the state file names this prefix, so latest_checkpoint(dir) finds it
    update_checkpoint_state(save_dir=os.path.dirname(filepath), model_checkpoint_path=filepath,
                            all_model_checkpoint_paths=[filepath], save_relative_paths=True)


def _is_h5py_file(filepath: Any) -> bool:
    try:
        import h5py
    except ImportError:
        return False
    return isinstance(filepath, (h5py.File, h5py.Group))


def _is_tf_checkpoint(filepath: str) -> bool:
    from ...train.format.tensor_bundle import BundleReader
    if not os.path.isfile(filepath + ".index"):
        return False
    try:
        BundleReader(filepath)
    except Exception:  # an unreadable index is not a TF checkpoint (tf_keras: DataLossError)
        return False
    return True


def load_weights(model: Any, filepath: Any, skip_mismatch: bool = False, by_name: bool = False,
                 options: Any = None) -> Any:
    """`model.load_weights(filepath, skip_mismatch=False, by_name=False, options=None)`.

    Returns the checkpoint's load status for the TF format, None for HDF5.
    """
    if skip_mismatch and not by_name:
        raise ValueError("When calling model.load_weights, skip_mismatch can only be set to "
                         "True when by_name is True.")
    filepath = _path(filepath)
    h5py_file = _is_h5py_file(filepath)
    if not h5py_file:
        _refuse_keras_v3(filepath)
        if filepath.endswith(".keras") and _is_zip(filepath):
            raise NotImplementedError(
                f"{filepath} is a Keras 3 `.keras` archive, which tfcompat does not support; "
                "load `.h5` files or TF checkpoints.")
    if not h5py_file and not is_hdf5_filepath(filepath) and _is_tf_checkpoint(filepath):
        if by_name:  # (tf_keras reads first; tfcompat refuses before changing anything)
            raise NotImplementedError(
                "Weights may only be loaded based on topology into Models when loading "
                "TensorFlow-formatted weights (got by_name=True to load_weights).")
        status = _checkpoint(model).read(filepath, options)
        status.assert_nontrivial_match()
        _finalize_layers(model)
        return status
    if not h5py_file and os.path.isdir(filepath) and os.path.isfile(
            os.path.join(filepath, "saved_model.pb")):
        raise NotImplementedError(
            f"{filepath} is a SavedModel directory, which tfcompat does not read. Supported "
            "weights formats: HDF5 (`.h5`) and the TF checkpoint format of `save_weights`.")
    h5py = hdf5_format.require_h5py("load_weights")
    if not model._is_graph_network and not model.built:
        raise ValueError(
            "Unable to load weights saved in HDF5 format into a subclassed Model which has not "
            "created its variables yet. Call the Model first, then load the weights.")
    assert_weights_created(model)
    if h5py_file:
        _load_h5_group(filepath, model, by_name, skip_mismatch)
    else:
        if not os.path.exists(filepath):
            raise FileNotFoundError(
                f"Unable to open file (unable to open file: name = '{filepath}', errno = 2, "
                "error message = 'No such file or directory', flags = 0, o_flags = 0)")
        with h5py.File(filepath, "r") as f:
            _load_h5_group(f, model, by_name, skip_mismatch)
    return None


def _load_h5_group(f: Any, model: Any, by_name: bool, skip_mismatch: bool) -> None:
    if "layer_names" not in f.attrs and "model_weights" in f:
        f = f["model_weights"]  # a whole-model file
    if by_name:
        hdf5_format.load_weights_from_hdf5_group_by_name(f, model, skip_mismatch)
    else:
        hdf5_format.load_weights_from_hdf5_group(f, model)


def _finalize_layers(model: Any) -> None:
    for layer in model.layers:
        finalize = getattr(layer, "finalize_state", None)
        if finalize is not None:
            finalize()


def _is_zip(filepath: str) -> bool:
    import zipfile
    return os.path.isfile(filepath) and zipfile.is_zipfile(filepath)
