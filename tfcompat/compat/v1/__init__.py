"""`tf.compat.v1`: TF 1's names, so `import tfcompat.compat.v1 as tf` never breaks a program.

Every public name of TensorFlow 2.21's `tf.compat.v1` (recorded in `_v1_api.py`)
resolves, at first use, to one of three things:

* the TF 2 object, for the names TF binds to the very same object in both namespaces
  (`tf.compat.v1.add is tf.add`, dtypes, `GradientTape`, ...) or under another TF 2 name
  (`tf.compat.v1.log is tf.math.log`, `random_normal is tf.random.normal`): semantically
  identical;
* a TF 1 adapter (`_v1_ops.py`) where only the signature differs (`keep_dims`,
  `reduction_indices`, `tf1.where` without broadcasting, `tf1.Variable`,
  `enable_eager_execution` as a no-op, `tf1.train.Saver`, `tf1.logging`);
* otherwise a `NotBuilt` placeholder: graph-mode APIs (`Session`, `placeholder`,
  `get_variable`, collections, the v1 optimizers) raise `NotImplementedError` naming the
  TF 2 replacement when used, never `AttributeError` and never at import time.

A name TF 2.21's `tf.compat.v1` does not have raises `AttributeError`, as in TF.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from . import _v1_nn, _v1_ops, logging
from ._not_built import NotBuilt


def _api() -> dict:
    """TF 2.21's recorded v1 names, loaded on the first v1 lookup (not at `import tfcompat`)."""
    from ._v1_api import API
    return API

# Namespaces TF has but the recording leaves out: every attribute is a NotBuilt.
_WHOLESALE = {"raw_ops", "keras", "layers", "lite", "mlir", "xla", "tpu", "estimator"}


def _tf2_namespace(path: str) -> Any:
    """tfcompat's TF 2 namespace module for a v1 path ("" -> tfcompat), or None."""
    tf = sys.modules["tfcompat"]
    if not path:
        return tf
    try:
        return importlib.import_module(f"tfcompat.{path}")
    except ImportError:
        return getattr(tf, path, None)


def _version_names() -> dict:
    """TF 1's top-level version constants (`tf.compat.v1.VERSION`, ...): `tf.version`'s values."""
    version = _tf2_namespace("version")
    names = {n: getattr(version, n) for n in version.__all__}
    names["CXX_VERSION"] = version._CXX_VERSION
    return names


#: The porting kit: v1 path -> modules of this package that each export `V1_NAMES`, a dict
#: of the names they build at that path (`tf1.get_variable`, `tf1.train.AdamOptimizer`, ...).
#: A module not yet present is skipped, so each piece lands on its own.
PORTING: dict = {
    "": ("variable_scopes", "template", "collections", "init_ops"),
    "initializers": ("init_ops",),
    "losses": ("collections",),
    "train": ("optimizers",),
    "layers": ("legacy_layers",),
    "keras.utils": ("tf1_shims",),
}


def _porting(path: str) -> dict:
    """The porting kit's names at a v1 path (see `PORTING`)."""
    out: dict = {}
    for module in PORTING.get(path, ()):
        full = f"{__name__}.{module}"
        try:
            mod = importlib.import_module(full)
        except ModuleNotFoundError as error:
            if error.name != full:
                raise
            continue
        out.update(mod.V1_NAMES.get(path, {}))
    return out


def _overrides(path: str) -> dict:
    if path == "":
        return {**_v1_ops.OVERRIDES, **_version_names()}
    if path == "train":
        out = _v1_ops.train_overrides()
        train = _tf2_namespace("train")
        if train is not None and hasattr(train, "Checkpoint"):
            out["Checkpoint"] = train.Checkpoint  # TF 1's CheckpointV1 behaves the same eagerly
        from ...summary.reader import summary_iterator
        out["summary_iterator"] = summary_iterator  # (the reader of tf.summary's event files)
        return out
    if path == "nn":
        return _v1_nn.OVERRIDES
    if path == "math":  # TF 1's reductions live here too, with their deprecated arguments
        math = {n: _v1_ops.OVERRIDES[n] for n in (*_v1_ops._REDUCTIONS, "argmax", "argmin")}
        return {**math, **{n: _v1_nn.OVERRIDES[n] for n in ("softmax", "log_softmax")
                           if n in _v1_nn.OVERRIDES}}
    if path == "logging":
        return {n: getattr(logging, n) for n in logging.__all__}
    return {}


def _keras(path: str, name: str) -> Any:
    """`tf.compat.v1.keras.<...>.<name>`: tf_keras binds its v1 Keras namespace to the same
    objects as `tf.keras` (layers, models, losses, regularizers, ...), so the name is
    `tfcompat.keras`'s (a submodule as a v1 namespace, for the porting kit's additions such as
    `tf1.keras.utils.track_tf1_style_variables`); None if tfcompat.keras lacks it."""
    obj = sys.modules["tfcompat"]
    for part in f"{path}.{name}".split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return _namespace(f"{path}.{name}") if isinstance(obj, types.ModuleType) else obj


def resolve(path: str, name: str) -> Any:
    """The object `tf.compat.v1.<path>.<name>` stands for (see the module docstring)."""
    full = f"{path}.{name}" if path else name
    porting = _porting(path)
    if name in porting:
        return porting[name]
    if full in PORTING and path in _WHOLESALE:  # e.g. tf1.keras.utils inside tf1.keras
        return _namespace(full)
    if path.split(".")[0] == "keras":
        found = _keras(path, name)
        if found is not None:
            return found
    if path in _WHOLESALE or path.split(".")[0] in _WHOLESALE:
        return NotBuilt(full)
    api = _api().get(path)
    if api is None:
        raise AttributeError(f"module 'tensorflow.compat.v1.{path}' is not recorded")
    overrides = _overrides(path)
    if name in overrides:
        return overrides[name]
    if name in api["modules"]:
        if path == "" and name == "compat":
            return sys.modules["tfcompat"].compat
        if path == "" and name == "logging":
            return logging
        return _namespace(full)
    if name in api["same"]:
        tf2 = _tf2_namespace(path)
        if tf2 is not None and hasattr(tf2, name):
            return getattr(tf2, name)
        return NotBuilt(full)
    if name in api.get("aliases", {}):  # TF binds it to a TF 2 object of another name
        ns, _, tf2_name = api["aliases"][name].rpartition(".")
        tf2 = _tf2_namespace(ns)
        if tf2 is not None and hasattr(tf2, tf2_name):
            return getattr(tf2, tf2_name)
        return NotBuilt(full)
    if name in api["names"]:
        return NotBuilt(full)
    where = f"tensorflow.compat.v1.{path}" if path else "tensorflow.compat.v1"
    raise AttributeError(f"module '{where}' has no attribute '{name}' (nor does TensorFlow 2.21's)")


class _V1Namespace(types.ModuleType):
    """A submodule of `tf.compat.v1` (`tf1.train`, `tf1.nn`, ...), resolved name by name."""

    def __init__(self, path: str) -> None:
        super().__init__(f"tfcompat.compat.v1.{path}")
        self._v1_path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = resolve(self._v1_path, name)
        setattr(self, name, value)
        return value

    def __dir__(self) -> list:
        api = _api().get(self._v1_path, {"names": (), "modules": ()})
        return sorted(set(api["names"]) | set(api["modules"]))


_namespaces: dict = {}


def _namespace(path: str) -> _V1Namespace:
    if path not in _namespaces:
        module = _namespaces[path] = _V1Namespace(path)
        sys.modules.setdefault(module.__name__, module)
    return _namespaces[path]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version_names()["VERSION"]
    if name.startswith("__"):
        raise AttributeError(name)
    value = resolve("", name)
    globals()[name] = value
    return value


def __dir__() -> list:
    api = _api()[""]
    return sorted(set(api["names"]) | set(api["modules"]))
