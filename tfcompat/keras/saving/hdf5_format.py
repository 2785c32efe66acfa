"""Keras 2's legacy HDF5 files: weights (`save_weights("w.h5")`) and whole models
(`model.save("m.h5")`), in tf_keras 2.21's layout (`saving/legacy/hdf5_format.py`).

Weights group (the file root for `save_weights`, `model_weights` in a model file):

* attrs `layer_names` (every layer of `model.layers`, in order, utf-8 bytes), `backend`
  (`b"tensorflow"`), `keras_version` (`b"2.21.0"`);
* one group per layer (named after it) with the attr `weight_names` and one dataset per
  weight, named after the weight (`dense/kernel:0`), trainable weights before
  non-trainable ones (tf_keras's legacy order, not `layer.weights`'s);
* `top_level_model_weights`: the model's own weights (not its layers').

An attribute list over HDF5's 64 KiB object-header limit is split in numbered chunks
(`layer_names0`, `layer_names1`, ...), as tf_keras does.

A model file adds the attrs `model_config` (JSON of `{"class_name", "config"}`),
`keras_version`, `backend`, and, for a compiled model, `training_config` and the
`optimizer_weights` group. Loading rebuilds the model from `model_config` only through the
Keras registry (`model_from_config`): nothing in a file is executed or unpickled.

Every load is all-or-nothing: the values are read and checked against the model (counts,
shapes) before the first variable is assigned, so a failed load leaves the model unchanged.
`h5py` is an optional dependency (`pip install tfcompat[h5]`).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "require_h5py", "save_weights_to_hdf5_group", "load_weights_from_hdf5_group",
    "load_weights_from_hdf5_group_by_name", "save_model_to_hdf5", "load_model_from_hdf5",
    "save_attributes_to_hdf5_group", "load_attributes_from_hdf5_group",
]

KERAS_VERSION = "2.21.0"  # the tf_keras release tfcompat.keras follows (written in the files)
BACKEND = "tensorflow"    # what tf_keras writes; tfcompat's files must look like its own
HDF5_OBJECT_HEADER_LIMIT = 64512

_logger = logging.getLogger("tfcompat.keras.saving")


def require_h5py(what: str) -> Any:
    """The `h5py` module, or an ImportError naming it and tfcompat's `h5` extra."""
    try:
        import h5py
    except ImportError:
        raise ImportError(
            f"`{what}` requires h5py when reading or writing HDF5 (.h5) files, but h5py is not "
            "available. Install it with `pip install h5py` (or `pip install tfcompat[h5]`)."
        ) from None
    return h5py


# -- attributes ---------------------------------------------------------------------------

def save_attributes_to_hdf5_group(group: Any, name: str, data: Sequence[bytes]) -> None:
    """Store the list `data` as the attr `name`, in numbered chunks past the header limit."""
    too_big = [x for x in data if len(x) > HDF5_OBJECT_HEADER_LIMIT]
    if too_big:
        raise RuntimeError(
            "The following attributes cannot be saved to HDF5 file because they are larger "
            f"than {HDF5_OBJECT_HEADER_LIMIT} bytes: {too_big}")
    array = np.asarray(data)
    chunks = 1
    split = np.array_split(array, chunks)
    while any(part.nbytes > HDF5_OBJECT_HEADER_LIMIT for part in split):
        chunks += 1
        split = np.array_split(array, chunks)
    if chunks > 1:
        for index, part in enumerate(split):
            group.attrs[f"{name}{index}"] = part
    else:
        group.attrs[name] = array


def load_attributes_from_hdf5_group(group: Any, name: str) -> List[str]:
    """The list stored by `save_attributes_to_hdf5_group` (decoded to str)."""
    def decode(values: Any) -> List[str]:
        return [v.decode("utf8") if hasattr(v, "decode") else v for v in values]

    if name in group.attrs:
        return decode(group.attrs[name])
    data: List[str] = []
    index = 0
    while f"{name}{index}" in group.attrs:
        data.extend(decode(group.attrs[f"{name}{index}"]))
        index += 1
    return data


def _attr_str(group: Any, name: str, default: Optional[str]) -> Optional[str]:
    value = group.attrs.get(name, default)
    return value.decode("utf8") if hasattr(value, "decode") else value


# -- weights ------------------------------------------------------------------------------

def legacy_weights(layer: Any) -> list:
    """`trainable_weights + non_trainable_weights`: the order tf_keras's .h5 files use."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _own_weights(model: Any) -> list:
    return list(getattr(model, "_trainable_weights", [])) + list(
        getattr(model, "_non_trainable_weights", []))


def _save_subset(group: Any, weights: list) -> None:
    names = [w.name.encode("utf8") for w in weights]
    save_attributes_to_hdf5_group(group, "weight_names", names)
    for name, weight in zip(names, weights):
        value = np.asarray(weight.numpy())
        dataset = group.create_dataset(name, value.shape, dtype=value.dtype)
        if value.shape:
            dataset[:] = value
        else:
            dataset[()] = value


def _load_subset(group: Any) -> List[np.ndarray]:
    return [np.asarray(group[name]) for name in load_attributes_from_hdf5_group(
        group, "weight_names")]


def save_weights_to_hdf5_group(f: Any, model: Any) -> None:
    """Write `model`'s weights into the HDF5 group `f` in tf_keras's layout."""
    layers = list(model.layers)
    save_attributes_to_hdf5_group(f, "layer_names", [layer.name.encode("utf8")
                                                     for layer in layers])
    f.attrs["backend"] = BACKEND.encode("utf8")
    f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in sorted(layers, key=lambda layer: layer.name):
        _save_subset(f.create_group(layer.name), legacy_weights(layer))
    _save_subset(f.create_group("top_level_model_weights"), _own_weights(model))


def _assign_all(pairs: List[Tuple[Any, np.ndarray]]) -> None:
    """Assign every `(variable, value)` pair, or none: all shapes are checked first."""
    prepared = []
    for variable, value in pairs:
        value = np.asarray(value)
        if tuple(value.shape) != tuple(variable.shape):
            # the variable's own assign raises TF's shape-mismatch ValueError (assigning
            # nothing); no earlier pair has been assigned yet
            variable.assign(value)
        prepared.append((variable, value.astype(variable.dtype.as_numpy_dtype, copy=False)))
    for variable, value in prepared:
        variable.assign(value)


def _finalize(model: Any) -> None:
    for layer in model._flatten_layers() if hasattr(model, "_flatten_layers") else ():
        finalize = getattr(layer, "finalize_state", None)
        if finalize is not None:
            finalize()


def load_weights_from_hdf5_group(f: Any, model: Any) -> None:
    """Topological loading: the i-th layer with weights in the file goes to the model's
    i-th layer with weights (layers without weights do not count)."""
    layers = [layer for layer in model.layers if legacy_weights(layer)]
    names = [name for name in load_attributes_from_hdf5_group(f, "layer_names")
             if load_attributes_from_hdf5_group(f[name], "weight_names")]
    if len(names) != len(layers):
        raise ValueError(
            "Layer count mismatch when loading weights from file. Model expected "
            f"{len(layers)} layers, found {len(names)} saved layers.")
    pairs: List[Tuple[Any, np.ndarray]] = []
    for k, name in enumerate(names):
        layer = layers[k]
        symbolic = legacy_weights(layer)
        values = _load_subset(f[name])
        if len(values) != len(symbolic):
            raise ValueError(
                f"Weight count mismatch for layer #{k} (named {layer.name} in the current "
                f"model, {name} in the save file). Layer expects {len(symbolic)} weight(s). "
                f"Received {len(values)} saved weight(s)")
        pairs.extend(zip(symbolic, values))
    if "top_level_model_weights" in f:
        symbolic = _own_weights(model)
        values = _load_subset(f["top_level_model_weights"])
        if len(values) != len(symbolic):
            raise ValueError(
                "Weight count mismatch for top-level weights when loading weights from file. "
                f"Model expects {len(symbolic)} top-level weight(s). Received {len(values)} "
                "saved top-level weight(s)")
        pairs.extend(zip(symbolic, values))
    _assign_all(pairs)
    _finalize(model)


def _shape(variable: Any) -> tuple:
    return tuple(variable.shape.as_list()) if hasattr(variable.shape, "as_list") else tuple(
        variable.shape)


def load_weights_from_hdf5_group_by_name(f: Any, model: Any, skip_mismatch: bool = False) -> None:
    """Name-based loading: each saved layer goes to the model's layers of that name; others
    are skipped. With `skip_mismatch`, a count or shape mismatch is a warning, not an error."""
    by_name: Dict[str, list] = {}
    for layer in model.layers:
        if layer.name:
            by_name.setdefault(layer.name, []).append(layer)
    pairs: List[Tuple[Any, np.ndarray]] = []
    for k, name in enumerate(load_attributes_from_hdf5_group(f, "layer_names")):
        values = _load_subset(f[name])
        for layer in by_name.get(name, []):
            symbolic = legacy_weights(layer)
            if len(values) != len(symbolic):
                if skip_mismatch:
                    _logger.warning(
                        f"Skipping loading of weights for layer #{k} (named {layer.name}) due "
                        f"to mismatch in number of weights. Layer expects {len(symbolic)} "
                        f"weight(s). Received {len(values)} saved weight(s)")
                    continue
                raise ValueError(
                    f"Weight count mismatch for layer #{k} (named {layer.name}). Layer expects "
                    f"{len(symbolic)} weight(s). Received {len(values)} saved weight(s)")
            for variable, value in zip(symbolic, values):
                if _shape(variable) != value.shape:
                    if skip_mismatch:
                        _logger.warning(
                            f"Skipping loading weights for layer #{k} (named {layer.name}) due "
                            f"to mismatch in shape for weight {variable.name}. Weight expects "
                            f"shape {_shape(variable)}. Received saved weight with shape "
                            f"{value.shape}")
                        continue
                    raise ValueError(
                        f"Shape mismatch in layer #{k} (named {layer.name}) for weight "
                        f"{variable.name}. Weight expects shape {_shape(variable)}. Received "
                        f"saved weight with shape {value.shape}")
                pairs.append((variable, value))
    if "top_level_model_weights" in f:
        pairs.extend(_top_level_by_name(f["top_level_model_weights"], model, skip_mismatch))
    _assign_all(pairs)
    _finalize(model)


def _top_level_by_name(group: Any, model: Any, skip_mismatch: bool) -> list:
    symbolic = _own_weights(model)
    values = _load_subset(group)
    if len(values) != len(symbolic):
        if skip_mismatch:
            _logger.warning(
                "Skipping loading top-level weights for model due to mismatch in number of "
                f"weights. Model expects {len(symbolic)} top-level weight(s). Received "
                f"{len(values)} saved top-level weight(s)")
            return []
        raise ValueError(
            f"Weight count mismatch for top-level weights of model. Model expects "
            f"{len(symbolic)} top-level weight(s). Received {len(values)} saved top-level "
            "weight(s)")
    pairs = []
    for variable, value in zip(symbolic, values):
        if _shape(variable) != value.shape:
            if skip_mismatch:
                _logger.warning(
                    "Skipping loading top-level weight for model due to mismatch in shape for "
                    f"weight {variable.name}. Weight expects shape {_shape(variable)}. "
                    f"Received saved weight with shape {value.shape}")
                continue
            raise ValueError(
                f"Shape mismatch in model for top-level weight {variable.name}. Weight expects "
                f"shape {_shape(variable)}. Received saved weight with shape {value.shape}")
        pairs.append((variable, value))
    return pairs


# -- JSON of configs ----------------------------------------------------------------------

def json_default(obj: Any) -> Any:
    """What tf_keras's JSON encoder writes for the non-JSON values configs hold."""
    from ...framework.tensor_shape import TensorShape
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, TensorShape):
        return obj.as_list()
    if isinstance(obj, type) or callable(obj):
        return obj.__name__
    name = getattr(obj, "name", None)  # a DType
    if isinstance(name, str):
        return name
    raise TypeError(f"Not JSON Serializable: {obj}")


def _decode_hook(obj: dict) -> Any:
    """tf_keras's JSON markers: TensorShapes and tuples; anything else stays a dict."""
    from ...framework.tensor_shape import TensorShape
    if obj.get("class_name") == "TensorShape" and "items" in obj:
        return TensorShape(obj["items"])
    if obj.get("class_name") == "__tuple__" and "items" in obj:
        return tuple(obj["items"])
    if obj.get("class_name") == "__ellipsis__":
        return Ellipsis
    return obj


def decode_json(text: Any) -> Any:
    if hasattr(text, "decode"):
        text = text.decode("utf-8")
    return json.loads(text, object_hook=_decode_hook)


# -- whole models -------------------------------------------------------------------------

def save_model_to_hdf5(model: Any, filepath: Any, overwrite: bool = True,
                       include_optimizer: bool = True) -> None:
    """`model.save("m.h5")`: model_config + weights (+ training config when compiled)."""
    h5py = require_h5py("save_model()")
    import os
    from .serialization import serialize_keras_object
    # the config first: a model that cannot be configured fails before the file is touched
    record = serialize_keras_object(model)
    metadata: Dict[str, Any] = {
        "keras_version": KERAS_VERSION, "backend": BACKEND,
        "model_config": {"class_name": type(model).__name__, "config": record["config"]},
    }
    optimizer = getattr(model, "optimizer", None) if include_optimizer else None
    training_config = _training_config(model) if optimizer is not None else None
    if training_config is not None:
        metadata["training_config"] = training_config
    if isinstance(filepath, h5py.File):
        f, opened = filepath, False
    else:
        if not overwrite and os.path.isfile(filepath):
            from .weights_api import ask_to_proceed_with_overwrite
            if not ask_to_proceed_with_overwrite(filepath):
                return
        directory = os.path.dirname(os.fspath(filepath))
        if directory:
            os.makedirs(directory, exist_ok=True)
        f, opened = h5py.File(filepath, mode="w"), True
    try:
        for key, value in metadata.items():
            if isinstance(value, (dict, list, tuple)):
                f.attrs[key] = json.dumps(value, default=json_default).encode("utf8")
            else:
                f.attrs[key] = value
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        if optimizer is not None:
            _save_optimizer_weights(f, optimizer)
        f.flush()
    finally:
        if opened:
            f.close()


def _training_config(model: Any) -> Optional[dict]:
    """The compile arguments tf_keras records (issue 15: only once `compile` exists)."""
    if not getattr(model, "_compile_was_called", False):
        return None
    get_args = getattr(model, "_get_compile_args", None)
    if get_args is None:
        return None
    config = dict(get_args(user_metrics=False))
    optimizer = config.pop("optimizer", None)
    from .serialization import serialize_keras_object
    config = {k: serialize_keras_object(v) if hasattr(v, "get_config") else v
              for k, v in config.items()}
    if optimizer is not None:
        config["optimizer_config"] = serialize_keras_object(optimizer)
    return config


def _save_optimizer_weights(f: Any, optimizer: Any) -> None:
    weights = list(getattr(optimizer, "weights", []) or [])
    if not weights:
        return
    group = f.create_group("optimizer_weights")
    _save_subset(group, weights)


def load_model_from_hdf5(filepath: Any, custom_objects: Optional[dict] = None,
                         compile: bool = True) -> Any:
    """The model in a `model.save("m.h5")` file (tf_keras's or tfcompat's).

    `compile=True` with a `training_config` in the file: compiling is not available yet
    (issue 15), so the model comes back uncompiled, with a warning saying so.
    """
    h5py = require_h5py("load_model()")
    from . import object_registration
    from ..models import model_from_config
    objects = dict(custom_objects or {})
    objects.update(object_registration.scoped_custom_objects())
    objects.update(object_registration.get_custom_objects())
    f = filepath if isinstance(filepath, h5py.File) else h5py.File(filepath, mode="r")
    try:
        config = f.attrs.get("model_config")
        if config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        model = model_from_config(decode_json(config), custom_objects=objects)
        load_weights_from_hdf5_group(f["model_weights"], model)
        if compile:
            if f.attrs.get("training_config") is None:
                _logger.warning("No training configuration found in the save file, so the "
                                "model was *not* compiled. Compile it manually.")
            else:
                _logger.warning(
                    "The save file has a training configuration, but tfcompat cannot compile "
                    "a model from it yet: the model was *not* compiled (and the saved "
                    "optimizer state was not loaded). Compile it manually.")
        return model
    finally:
        if f is not filepath:
            f.close()
