"""Keras config serialization: objects to JSON-able dicts and back (tf_keras 2.21's two formats).

tf_keras 2.21 writes the *new* format from `serialize_keras_object` (what
`Dense(3).get_config()["kernel_initializer"]` embeds)::

    {"module": "keras.initializers", "class_name": "GlorotUniform",
     "config": {"seed": None}, "registered_name": None}

and still reads the *legacy* format, `{"class_name": ..., "config": ...}` (no `"module"`
key), which `legacy_serialize_keras_object` writes and which `.h5` files and older JSON hold.
A built-in function serializes to its name's record (`"module": "builtins", "class_name":
"function"`); the `activations.serialize` of a built-in function is its plain name.

Names resolve in tf_keras's order: the active `custom_object_scope`s, the global registry
(`register_keras_serializable`, keys `"package>name"`), the caller's `custom_objects`, then
the module's own objects (`module_objects`). A class defined in tfcompat names its public
home with `keras_export("keras.initializers.GlorotUniform", ...)`, as tf_keras's
`keras_export`; the first name is the canonical one that serialization writes.
"""

from __future__ import annotations

import importlib
import inspect
import types
import warnings
from typing import Any, Callable, Dict, Optional

import numpy as np
import torch

from ...framework import dtypes as _dtypes
from ...framework import tensor_shape as _tensor_shape
from ...framework.tensor_conversion import constant as _constant
from . import object_registration

__all__ = [
    "keras_export", "serialize_keras_object", "deserialize_keras_object",
    "public_deserialize_keras_object",
    "legacy_serialize_keras_object", "legacy_deserialize_keras_object",
    "serialize_keras_class_and_config", "class_and_config_for_serialized_keras_object",
    "get_symbol_from_name",
]

# Canonical public name ("keras.initializers.GlorotUniform") of each exported object, and
# every exported name back to its object.
_PUBLIC_NAMES: Dict[Any, str] = {}
_PUBLIC_OBJECTS: Dict[str, Any] = {}

_PLAIN_TYPES = (str, int, float, bool)
# Where a `"module": "builtins"` function name is looked for (tf_keras's BUILTIN_MODULES).
_BUILTIN_MODULES = ("activations", "constraints", "initializers", "losses", "metrics",
                    "optimizers", "regularizers")


def keras_export(*names: str) -> Callable:
    """Decorator: record `obj`'s public tf.keras names (first = canonical), as tf_keras's."""

    def decorator(obj: Any) -> Any:
        _PUBLIC_NAMES.setdefault(obj, names[0])
        for name in names:
            _PUBLIC_OBJECTS[name] = obj
        return obj

    return decorator


def get_symbol_from_name(name: str) -> Any:
    """The object exported as `name` (`"keras.initializers.Zeros"`), or None.

    Modules that have not been imported yet are imported (`keras.X` lives in
    `tfcompat.keras.X`), so a name resolves before its module was ever used.
    """
    if name in _PUBLIC_OBJECTS:
        return _PUBLIC_OBJECTS[name]
    module_name, _, attr = name.rpartition(".")
    if not module_name.startswith("keras"):
        return None
    try:
        module = importlib.import_module("tfcompat." + module_name)
    except ImportError:
        return None
    return _PUBLIC_OBJECTS.get(name, getattr(module, attr, None))


def _public_record(cls: Any, inner_config: Any) -> Optional[dict]:
    name = _PUBLIC_NAMES.get(cls)
    if name is None:
        return None
    module, _, class_name = name.rpartition(".")
    return {"module": module, "class_name": class_name, "config": inner_config,
            "registered_name": None}


def _function_record(fn: Any, config: str, module_name: Optional[str] = None) -> dict:
    if module_name:
        return {"module": module_name, "class_name": "function", "config": config,
                "registered_name": config}
    name = _PUBLIC_NAMES.get(fn)
    if name is not None:
        return {"module": name.rpartition(".")[0], "class_name": "function", "config": config,
                "registered_name": config}
    return {"module": fn.__module__, "class_name": "function", "config": config,
            "registered_name": object_registration.get_registered_name(fn)}


def serialize_keras_object(obj: Any) -> Any:
    """tf_keras 2.21's `keras.saving.serialize_keras_object`: `obj` as a JSON-able config.

    Plain values, lists/tuples and dicts serialize element by element; tensors and NumPy
    arrays become `__tensor__`/`__numpy__` records, dtypes their names, `TensorShape` its
    list; a class instance becomes the `module`/`class_name`/`config`/`registered_name`
    record of its `get_config()`; a function the `"function"` record of its name.
    """
    if obj is None or isinstance(obj, _PLAIN_TYPES):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_keras_object(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return _serialize_dict(obj)
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, _tensor_shape.TensorShape):
        return obj.as_list() if obj.rank is not None else None
    if isinstance(obj, torch.Tensor):
        dtype = _dtypes.as_dtype(obj.dtype)
        return {"class_name": "__tensor__",
                "config": {"value": obj.detach().cpu().numpy().tolist(), "dtype": dtype.name}}
    if type(obj).__module__ == np.__name__:
        if isinstance(obj, np.ndarray) and obj.ndim > 0:
            return {"class_name": "__numpy__",
                    "config": {"value": obj.tolist(), "dtype": obj.dtype.name}}
        return obj.item()
    if isinstance(obj, (_dtypes.DType, torch.dtype)):
        return _dtypes.as_dtype(obj).name
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        raise ValueError(
            "tfcompat cannot serialize a `lambda` (tf_keras stores its bytecode, which does "
            "not load across Python versions); use a named function registered with "
            "`@keras.saving.register_keras_serializable()`.")
    inner = _class_or_function_config(obj)
    if isinstance(obj, types.FunctionType):
        # tf_keras describes every function by its class, `function` (from `builtins`), so
        # the record names the function only in `config` (its registered name).
        record = {"module": "builtins", "class_name": "function", "config": inner,
                  "registered_name": "function"}
    else:
        record = _public_record(type(obj), inner)
        if record is None:
            record = {"module": type(obj).__module__, "class_name": type(obj).__name__,
                      "config": inner,
                      "registered_name": object_registration.get_registered_name(type(obj))}
    _build_and_compile_config(obj, record)
    return _main_module_is_none(record)


def _main_module_is_none(record: dict) -> dict:
    if record["module"] == "__main__":
        record["module"] = None
    return record


def _build_and_compile_config(obj: Any, record: dict) -> None:
    get_build = getattr(obj, "get_build_config", None)
    if get_build is not None and not inspect.isclass(obj):
        build = get_build()
        if build is not None:
            record["build_config"] = _serialize_dict(build)
    get_compile = getattr(obj, "get_compile_config", None)
    if get_compile is not None and not inspect.isclass(obj):
        compiled = get_compile()
        if compiled is not None:
            record["compile_config"] = _serialize_dict(compiled)


def _class_or_function_config(obj: Any) -> Any:
    if isinstance(obj, types.FunctionType):
        return object_registration.get_registered_name(obj)
    if hasattr(obj, "get_config") and not inspect.isclass(obj):
        config = obj.get_config()
        if not isinstance(config, dict):
            raise TypeError(
                f"The `get_config()` method of {obj} should return a dict. It returned: {config}")
        return _serialize_dict(config)
    if hasattr(obj, "__name__"):
        return object_registration.get_registered_name(obj)
    raise TypeError(
        f"Cannot serialize object {obj} of type {type(obj)}. To be serializable, a class must "
        "implement the `get_config()` method.")


def _serialize_dict(obj: dict) -> dict:
    return {key: serialize_keras_object(value) for key, value in obj.items()}


def _all_custom_objects(custom_objects: Optional[dict]) -> dict:
    # tf_keras merges the caller's names, then the scopes', then the global registry's.
    return {**(custom_objects or {}), **object_registration.scoped_custom_objects(),
            **object_registration.get_custom_objects()}


def deserialize_keras_object(identifier: Any, module_objects: Optional[dict] = None,
                             custom_objects: Optional[dict] = None,
                             printable_module_name: str = "object",
                             safe_mode: bool = True) -> Any:
    """tf_keras 2.21's `keras.saving.deserialize_keras_object`: a config back to its object.

    Reads the new format; a dict without `"module"` (the legacy format) goes to
    `legacy_deserialize_keras_object` when `module_objects` is given, as the `get` functions
    of tf_keras's modules route it. With `module_objects`, a name that resolves nowhere is
    returned unchanged (tf_keras's behaviour; the callers decide whether that is an error).
    """
    if isinstance(identifier, dict) and "module" not in identifier and module_objects is not None \
            and "class_name" in identifier:
        return legacy_deserialize_keras_object(identifier, module_objects, custom_objects,
                                               printable_module_name)
    custom_objects = _all_custom_objects(custom_objects)
    return _deserialize(identifier, module_objects, custom_objects, safe_mode)


def public_deserialize_keras_object(config: Any, custom_objects: Optional[dict] = None,
                                   safe_mode: bool = True, **kwargs: Any) -> Any:
    """`tf.keras.saving.deserialize_keras_object` with tf_keras's public signature
    (`custom_objects` second; `module_objects` and `printable_module_name` by keyword)."""
    module_objects = kwargs.pop("module_objects", None)
    printable_module_name = kwargs.pop("printable_module_name", "object")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    return deserialize_keras_object(config, module_objects, custom_objects,
                                    printable_module_name, safe_mode)


def _deserialize(config: Any, module_objects: Optional[dict], custom_objects: dict,
                 safe_mode: bool) -> Any:
    if config is None:
        return None
    if isinstance(config, str) and custom_objects.get(config) is not None:
        return custom_objects[config]
    if isinstance(config, (list, tuple)):
        return [_deserialize(x, None, custom_objects, safe_mode) for x in config]
    if module_objects is not None:
        inner, fn_module, custom = None, None, False
        if isinstance(config, dict):
            inner = config.get("config")
            if "class_name" not in config:
                raise ValueError(f"Unknown `config` as a `dict`, config={config}")
            if (config["class_name"] in custom_objects
                    or config.get("registered_name") in custom_objects
                    or (isinstance(inner, str) and inner in custom_objects)):
                custom = True
            elif config["class_name"] == "function":
                fn_module = config["module"]
                config = config["config"] if fn_module == "builtins" else config["registered_name"]
            else:
                if config.get("module", "_") is None:
                    raise TypeError(
                        f"Cannot deserialize object of type `{config['class_name']}`. If "
                        f"`{config['class_name']}` is a custom class, please register it using "
                        "the `@keras.saving.register_keras_serializable()` decorator.")
                config = config["class_name"]
        if not custom:
            if not isinstance(config, str) or config not in module_objects:
                return config
            obj = module_objects[config]
            if isinstance(obj, types.FunctionType):
                return _deserialize(_function_record(obj, config, fn_module), None,
                                    custom_objects, safe_mode)
            if not inspect.isclass(obj):
                return obj  # (a callable object: nothing to build)
            record = _public_record(obj, inner)
            if record is None:  # a module class without a public name: build it here
                return _instantiate(obj, inner or {}, custom_objects)
            return _deserialize(record, None, custom_objects, safe_mode)
    if isinstance(config, _PLAIN_TYPES):
        return config
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {config}")
    if "class_name" not in config or "config" not in config:
        return {key: _deserialize(value, None, custom_objects, safe_mode)
                for key, value in config.items()}
    class_name = config["class_name"]
    inner = config["config"] or {}
    if class_name == "__tensor__":
        return _constant(inner["value"], dtype=inner["dtype"])
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=inner["dtype"])
    if class_name == "__bytes__":
        return inner["value"].encode("utf-8")
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `lambda` object. This carries a potential "
                "risk of arbitrary code execution and thus it is disallowed by default. If you "
                "trust the source of the saved model, you can pass `safe_mode=False` to the "
                "loading function in order to allow `lambda` loading.")
        raise ValueError("tfcompat cannot load a serialized `lambda` (TF's marshalled "
                         "bytecode); define the function by name instead.")
    module = config.get("module")
    registered_name = config.get("registered_name", class_name)
    if class_name == "function":
        return _retrieve(inner, registered_name, module, "function", config, custom_objects)
    cls = _retrieve(class_name, registered_name, module, "class", config, custom_objects)
    if isinstance(cls, types.FunctionType):
        return cls
    if not hasattr(cls, "from_config"):
        raise TypeError(
            f"Unable to reconstruct an instance of '{class_name}' because the class is missing "
            f"a `from_config()` method. Full object config: {config}")
    with object_registration.custom_object_scope(custom_objects):
        instance = cls.from_config(inner)
        build = config.get("build_config")
        if build:
            instance.build_from_config(build)
        compiled = config.get("compile_config")
        if compiled:
            instance.compile_from_config(compiled)
    return instance


def _instantiate(cls: Any, inner: Any, custom_objects: dict) -> Any:
    with object_registration.custom_object_scope(custom_objects):
        if hasattr(cls, "from_config"):
            return cls.from_config(inner)
        return cls(**inner)


def _retrieve(name: str, registered_name: Optional[str], module: Optional[str], obj_type: str,
              full_config: dict, custom_objects: dict) -> Any:
    key = name if obj_type == "function" else registered_name
    found = object_registration.get_registered_object(key, custom_objects=custom_objects)
    if found is not None:
        return found
    if module:
        if module in ("keras", "tf_keras") or module.startswith(("keras.", "tf_keras.")):
            public = module.replace("tf_keras", "keras", 1) if module.startswith("tf_keras") \
                else module
            if not public.startswith("keras.src") and not ".src." in public:
                found = get_symbol_from_name(public + "." + name)
                if found is not None:
                    return found
        if obj_type == "function" and module == "builtins":
            for sub in _BUILTIN_MODULES:
                found = get_symbol_from_name("keras." + sub + "." + name)
                if found is not None:
                    return found
        if module.startswith(("keras", "tf_keras")):
            # tf_keras's private modules ("tf_keras.src.activations") have public twins here.
            tail = module.split(".src.", 1)[-1] if ".src." in module else module.split(".", 1)[-1]
            found = get_symbol_from_name("keras." + tail + "." + name)
            if found is not None:
                return found
            raise TypeError(
                f"Could not locate {obj_type} '{name}'. Make sure custom classes are decorated "
                f"with `@keras.saving.register_keras_serializable()`. Full object config: "
                f"{full_config}")
        try:
            mod = importlib.import_module(module)
        except ImportError:
            raise TypeError(
                f"Could not deserialize {obj_type} '{name}' because its parent module {module} "
                f"cannot be imported. Full object config: {full_config}") from None
        found = vars(mod).get(name)
        if found is None and registered_name is not None:
            found = vars(mod).get(registered_name)
        if found is not None:
            return found
    raise TypeError(
        f"Could not locate {obj_type} '{name}'. Make sure custom classes are decorated with "
        f"`@keras.saving.register_keras_serializable()`. Full object config: {full_config}")


# -- the legacy format: {"class_name": ..., "config": ...} ------------------------------------

def serialize_keras_class_and_config(cls_name: str, cls_config: Any) -> dict:
    """The legacy record `{"class_name": cls_name, "config": cls_config}`."""
    return {"class_name": cls_name, "config": cls_config}


def legacy_serialize_keras_object(instance: Any) -> Any:
    """tf_keras's `keras.utils.legacy.serialize_keras_object`: the `{"class_name", "config"}`
    format; nested objects in the config are marked `"__passive_serialization__": True`."""
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not isinstance(instance, type):
        config = instance.get_config()
        out = {}
        for key, item in config.items():
            if isinstance(item, str):
                out[key] = item
                continue
            try:
                serialized = legacy_serialize_keras_object(item)
                if isinstance(serialized, dict) and not isinstance(item, dict):
                    serialized["__passive_serialization__"] = True
                out[key] = serialized
            except ValueError:
                out[key] = item
        return serialize_keras_class_and_config(
            object_registration.get_registered_name(type(instance)), out)
    if hasattr(instance, "__name__"):
        return object_registration.get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance} because it doesn't implement `get_config()`.")


def _unknown(printable_module_name: str, name: str) -> ValueError:
    return ValueError(
        f"Unknown {printable_module_name}: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
        "https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details.")


def class_and_config_for_serialized_keras_object(
        config: Any, module_objects: Optional[dict] = None,
        custom_objects: Optional[dict] = None,
        printable_module_name: str = "object") -> tuple:
    """The class a legacy record names and its config, nested passive objects deserialized."""
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(
            f"Improper config format for {config}. Expecting python dict contains `class_name` "
            "and `config` as keys")
    class_name = config["class_name"]
    cls = object_registration.get_registered_object(class_name, custom_objects, module_objects)
    if cls is None:
        raise _unknown(printable_module_name, class_name)
    cls_config = config["config"]
    if isinstance(cls_config, list):
        return cls, cls_config
    cls_config = dict(cls_config)  # never rewrite the caller's dict
    for key, item in list(cls_config.items()):
        if key == "name":
            continue
        if isinstance(item, dict) and "__passive_serialization__" in item:
            cls_config[key] = legacy_deserialize_keras_object(
                item, module_objects, custom_objects, "config_item")
        elif isinstance(item, str):
            fn = object_registration.get_registered_object(item, custom_objects)
            if inspect.isfunction(fn):
                cls_config[key] = fn
    return cls, cls_config


def legacy_deserialize_keras_object(identifier: Any, module_objects: Optional[dict] = None,
                                    custom_objects: Optional[dict] = None,
                                    printable_module_name: str = "object") -> Any:
    """tf_keras's `keras.utils.legacy.deserialize_keras_object`: a legacy record or a name."""
    if identifier is None:
        return None
    module_objects = module_objects or {}
    if isinstance(identifier, dict):
        cls, cls_config = class_and_config_for_serialized_keras_object(
            identifier, module_objects, custom_objects, printable_module_name)
        with object_registration.custom_object_scope(custom_objects or {}):
            if hasattr(cls, "from_config"):
                return cls.from_config(cls_config)
            return cls(**cls_config)
    if isinstance(identifier, str):
        scoped = object_registration.scoped_custom_objects()
        registry = object_registration.get_custom_objects()
        if custom_objects and identifier in custom_objects:
            obj = custom_objects[identifier]
        elif identifier in scoped:
            obj = scoped[identifier]
        elif identifier in registry:
            obj = registry[identifier]
        else:
            obj = module_objects.get(identifier)
            if obj is None:
                raise _unknown(printable_module_name, identifier)
        return obj() if inspect.isclass(obj) else obj
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")


def warn_if_not_instance(api: str, base: str, obj: Any, classes: tuple) -> None:
    """tf_keras's warning when `keras.<api>.serialize()` gets an object of a foreign type."""
    if not isinstance(obj, classes):
        warnings.warn(
            f"The `keras.{api}.serialize()` API should only be used for objects of type "
            f"`keras.{api}.{base}`. Found an instance of type {type(obj)}, which may lead to "
            "improper serialization.", stacklevel=3)
