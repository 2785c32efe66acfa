"""`model.save` / `tf.keras.models.save_model` / `load_model` (tf_keras 2.21's entry points,
`saving/saving_api.py`), for the formats tfcompat supports: Keras 2's HDF5 model files.

`save_model(model, "m.h5")` writes the model's config and weights (`hdf5_format.py`);
`load_model("m.h5", custom_objects=, compile=)` rebuilds a Sequential or functional model
from the config through the Keras registry and loads the weights. The SavedModel format
(a path without `.h5`, the default for `save_format=None` in TF 2) and Keras 3's `.keras`
archives raise NotImplementedError naming what is supported.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from . import hdf5_format
from .weights_api import is_hdf5_filepath

__all__ = ["save_model", "load_model"]

_SUPPORTED = ("supported formats: HDF5 (a path ending in `.h5`, or save_format='h5') for "
              "`model.save` / `load_model`, and the TF checkpoint format of "
              "`model.save_weights` / `load_weights` for weights")


def _is_h5py_file(obj: Any) -> bool:
    try:
        import h5py
    except ImportError:
        return False
    return isinstance(obj, h5py.File)


def _save_format(filepath: Any, save_format: Optional[str]) -> str:
    if save_format:
        if save_format in ("h5", "hdf5"):
            return "h5"
        if save_format in ("tf", "tensorflow"):
            return "tf"
        if save_format in ("keras", "keras_v3"):
            return "keras"
        raise ValueError("Unknown `save_format` argument. Expected one of 'keras', 'tf', or "
                         f"'h5'. Received: save_format={save_format}")
    if _is_h5py_file(filepath) or str(filepath).endswith((".h5", ".hdf5")):
        return "h5"
    if str(filepath).endswith(".keras"):
        return "keras"
    return "tf"


def save_model(model: Any, filepath: Any, overwrite: bool = True, save_format: Optional[str] = None,
               include_optimizer: bool = True, **kwargs: Any) -> None:
    """Save `model` (config + weights) to an HDF5 file (`model.save("m.h5")`).

    `signatures`, `options` and `save_traces` are SavedModel arguments, accepted and unused
    (that format is not supported).
    """
    unknown = set(kwargs) - {"signatures", "options", "save_traces"}
    if unknown:
        raise TypeError(f"save_model() got unexpected keyword arguments: {sorted(unknown)}")
    if isinstance(filepath, os.PathLike):
        filepath = os.fspath(filepath)
    fmt = _save_format(filepath, save_format)
    if fmt == "keras":
        raise NotImplementedError(
            f"Saving in the Keras 3 `.keras` format ({filepath}) is not supported by tfcompat; "
            + _SUPPORTED + ".")
    if fmt == "tf":
        raise NotImplementedError(
            f"Saving a SavedModel ({filepath}) is not supported by tfcompat; " + _SUPPORTED +
            ". Use a path ending in `.h5`.")
    hdf5_format.save_model_to_hdf5(model, filepath, overwrite, include_optimizer)


def load_model(filepath: Any, custom_objects: Optional[dict] = None, compile: bool = True,
               safe_mode: bool = True, **kwargs: Any) -> Any:
    """The model saved in `filepath` (an HDF5 file written by tf_keras or tfcompat).

    Configs are deserialized only through the Keras registry and `custom_objects`; nothing
    in the file executes code (`safe_mode` is therefore always in effect).
    """
    unknown = set(kwargs) - {"options"}
    if unknown:
        raise TypeError(f"load_model() got unexpected keyword arguments: {sorted(unknown)}")
    if isinstance(filepath, os.PathLike):
        filepath = os.fspath(filepath)
    if _is_h5py_file(filepath):
        return hdf5_format.load_model_from_hdf5(filepath, custom_objects, compile)
    path = str(filepath)
    if path.endswith(".keras"):
        raise NotImplementedError(
            f"Loading a Keras 3 `.keras` archive ({path}) is not supported by tfcompat; "
            + _SUPPORTED + ".")
    if os.path.isdir(path):
        raise NotImplementedError(
            f"Loading a SavedModel ({path}) is not supported by tfcompat; " + _SUPPORTED + ".")
    if not os.path.exists(path):
        raise OSError(f"No file or directory found at {path}")
    if is_hdf5_filepath(path) or _is_hdf5_signature(path):
        return hdf5_format.load_model_from_hdf5(path, custom_objects, compile)
    raise NotImplementedError(
        f"{path} is neither an HDF5 model file nor a SavedModel; " + _SUPPORTED + ".")


def _is_hdf5_signature(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"
