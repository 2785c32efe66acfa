"""Record TensorFlow 2.21's public names per namespace into `fixtures/tf_namespaces.json`.

`test_namespaces.py` checks every name tfcompat exports against them (no TF at test time).
Run under a Python with TensorFlow: `python tests/ops/gen_namespaces.py`.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "conformance"))
import generator_env  # noqa: E402

generator_env.prepare()

import tensorflow as tf  # noqa: E402

NAMESPACES = ["", "math", "nn", "random", "random.experimental", "linalg", "bitwise",
              "debugging", "data", "data.experimental", "train", "train.experimental",
              "compat", "compat.v1", "compat.v1.train", "compat.v1.nn", "compat.v1.math",
              "compat.v1.random", "compat.v1.linalg", "compat.v1.logging", "errors",
              "distribute", "distribute.experimental", "autodiff", "config", "dtypes",
              "nest", "keras", "keras.optimizers", "experimental", "sysconfig"]


def names(path: str) -> list:
    obj = tf
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def function_names(path: str) -> dict:
    """`__name__` of each public callable whose `__name__` is not its public name."""
    obj = tf
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    out = {}
    for n in names(path):
        fn_name = getattr(getattr(obj, n), "__name__", n)
        if callable(getattr(obj, n)) and fn_name != n:
            out[n] = fn_name
    return out


if __name__ == "__main__":
    data = {"tensorflow": tf.__version__, "namespaces": {ns: names(ns) for ns in NAMESPACES},
            "function_names": {ns: function_names(ns) for ns in NAMESPACES}}
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    n = generator_env.dump(os.path.join(HERE, "fixtures", "tf_namespaces.json"), data)
    print(f"{len(NAMESPACES)} namespaces, {n} bytes")
