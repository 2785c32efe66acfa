"""Record TensorFlow 2.21's `tf.compat.v1` API into `tfcompat/compat/v1/_v1_api.py`.

For each v1 namespace (the top level and its direct submodules) it records every
public name and which of them TF itself binds to the very same function as TF 2's
namespace (`tf.compat.v1.add is tf.add`, or the same function under TF's dispatch
decorators: `inspect.unwrap(tf.compat.v1.math.exp) is inspect.unwrap(tf.math.exp)`):
those are semantically identical, so tfcompat's v1 namespace hands out its TF 2 object
for them. Run under a Python with
TensorFlow: `python tests/compat/gen_v1_api.py`.
"""

from __future__ import annotations

import os
import pprint
import inspect
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import generator_env  # noqa: E402

generator_env.prepare()

import tensorflow as tf  # noqa: E402

# Namespaces tfcompat stubs wholesale (every attribute raises NotImplementedError when
# used): raw ops are graph kernels, v1 Keras is its own project.
UNRECORDED = {"raw_ops", "keras", "layers", "lite", "mlir", "xla", "tpu", "estimator"}

OUT = os.path.join(ROOT, "tfcompat", "compat", "v1", "_v1_api.py")


def _public(obj) -> list:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


# TF 2 namespaces searched for a v1 object bound under another TF 2 name
# (`tf.compat.v1.log is tf.math.log`), in order of preference.
TF2_NAMESPACES = ["", "math", "nn", "linalg", "random", "bitwise", "debugging", "dtypes", "nest",
                  "train", "data", "data.experimental", "distribute", "errors", "config",
                  "autodiff", "random.experimental", "experimental"]


def _function(value):
    """The function under TF's decorators (dispatch, deprecation), for identity tests."""
    try:
        return inspect.unwrap(value)
    except ValueError:  # a cycle of __wrapped__
        return value


def _tf2_index() -> dict:
    """id(function) -> its TF 2 path ("math.log"), for every public callable."""
    index = {}
    for ns in TF2_NAMESPACES:
        obj = tf
        for part in filter(None, ns.split(".")):
            obj = getattr(obj, part)
        for n in _public(obj):
            value = getattr(obj, n)
            if callable(value) and not isinstance(value, types.ModuleType):
                index.setdefault(id(_function(value)), f"{ns}.{n}" if ns else n)
    return index


def record(v1, v2, index) -> dict:
    names, same, modules, aliases = [], [], [], {}
    for n in _public(v1):
        value = getattr(v1, n)
        if isinstance(value, types.ModuleType):
            modules.append(n)
            continue
        names.append(n)
        twin = getattr(v2, n, None) if v2 is not None else None
        if twin is value or (callable(value) and twin is not None
                             and _function(twin) is _function(value)):
            same.append(n)
        elif callable(value) and id(_function(value)) in index:
            aliases[n] = index[id(_function(value))]
    return {"names": names, "same": same, "modules": modules, "aliases": aliases}


def main() -> None:
    index = _tf2_index()
    api = {"": record(tf.compat.v1, tf, index)}
    for sub in api[""]["modules"]:
        if sub in UNRECORDED:
            continue
        try:
            api[sub] = record(getattr(tf.compat.v1, sub), getattr(tf, sub, None), index)
        except Exception as e:  # noqa: BLE001 - lazily loaded namespaces that fail to import
            print(f"skipped tf.compat.v1.{sub}: {type(e).__name__}: {e}")
    with open(OUT, "w") as f:
        f.write('"""TensorFlow 2.21\'s `tf.compat.v1` names, recorded by tests/compat/gen_v1_api.py.\n\n'
                "Per namespace: `names` (public non-module names), `same` (those TF binds to its\n"
                "TF 2 function of the same name, decorators aside), `aliases` (those TF binds\n"
                "to a TF 2 function of\n"
                "another name: v1 name -> TF 2 path), `modules` (submodules). Generated; do not\n"
                "edit.\n"
                '"""\n\n')
        f.write(f"TENSORFLOW_VERSION = {tf.__version__!r}\n\n")
        f.write("API = ")
        f.write(pprint.pformat({k: {kk: (vv if isinstance(vv, dict) else tuple(vv))
                                    for kk, vv in v.items()} for k, v in api.items()},
                               width=100, compact=True))
        f.write("\n")
    print(f"{len(api)} namespaces written to {OUT}")


if __name__ == "__main__":
    main()
