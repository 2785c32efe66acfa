"""Record TensorFlow 2.21's `tf.compat.v1.layers` into `fixtures/v1_layers.json`.

Run under a Python with TensorFlow and tf_keras (`TF_USE_LEGACY_KERAS=1` is set here):
`/work/tfenv/bin/python tests/compat/v1/gen_v1_layers.py`.

Three parts:

* `graph`: naming and sharing scenarios run in a fresh TF 1 graph each -- the semantics
  tfcompat emulates eagerly (variable names, which calls create variables and which reuse
  them, the collections, the reuse errors' texts);
* `eager`: what TF 2 eager mode itself does with the same calls (outside any variable
  store every `get_variable` creates a new variable; the function forms warn);
* `math`: eager outputs of each layer with deterministic weights (a formula of the shape,
  shared with the tests), and the batch-norm moving statistics after a training call.
"""

from __future__ import annotations

import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import generator_env  # noqa: E402

generator_env.prepare()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
sys.path.insert(0, HERE)
import v1_layers_cases as cases  # noqa: E402

OUT = os.path.join(HERE, "fixtures", "v1_layers.json")


def created_names(fn):
    """Run `fn`, returning the names of the variables it created (in order) and its value."""
    names = []

    def creator(next_creator, **kwargs):
        v = next_creator(**kwargs)
        names.append(v.name)
        return v

    with tf.variable_creator_scope(creator):
        value = fn()
    return names, value


def graph_case(fn):
    """Run `fn` in a fresh TF 1 graph; what it created and the collections."""
    out = {}
    with tf.Graph().as_default():
        x = tf1.placeholder(tf.float32, [2, 4])
        img = tf1.placeholder(tf.float32, [2, 5, 5, 3])
        try:
            names, extra = created_names(lambda: fn(tf, tf1, x, img))
            out["created"] = names
            if extra is not None:
                out["extra"] = extra
        except ValueError as e:
            out["error"] = ["ValueError", str(e).split("\n")[0]]
        out["global"] = [v.name for v in tf1.global_variables()]
        out["trainable"] = [v.name for v in tf1.trainable_variables()]
        out["update_ops"] = len(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS))
        out["regularization_losses"] = len(
            tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES))
    return out


def eager_part() -> dict:
    """TF 2 eager with no variable store: every call creates; the function forms warn."""
    x = tf.ones([2, 4])
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names, _ = created_names(lambda: [
            tf1.layers.dense(x, 3, name="d", reuse=tf1.AUTO_REUSE),
            tf1.layers.dense(x, 3, name="d", reuse=tf1.AUTO_REUSE)])
        tf1.layers.batch_normalization(x)
        tf1.layers.max_pooling2d(tf.ones([1, 2, 2, 1]), 2, 2)
    out["auto_reuse_created"] = names
    out["warnings"] = sorted({str(w.message) for w in caught})
    bn = tf1.layers.BatchNormalization()
    bn(tf.constant(cases.pattern([4, 3])), training=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["bn_updates"] = len(bn.updates)
    out["bn_update_ops"] = len(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS))

    net = cases.ShimNet.build(tf, tf1)
    inputs = tf.constant(cases.pattern([2, 3]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first, y1 = created_names(lambda: net(inputs))
        second, _ = created_names(lambda: net(inputs))
    out["shim"] = {"first": first, "second": second,
                   "variables": [v.name for v in net.variables],
                   "output": y1.numpy().tolist()}
    return out


def _state(layer) -> dict:
    return {v.name.split("/")[-1].split(":")[0]: v.numpy().tolist() for v in layer.variables}


def math_part() -> dict:
    """Eager outputs with pattern weights; the inputs are `pattern(shape, 2.0)`."""
    out = {}

    def inp(shape):
        return tf.constant(cases.pattern(shape, 2.0))

    for name, (shape, _, fn) in cases.MATH_CASES.items():
        y = fn(tf, tf1, inp(shape))
        out[name] = {"output": y.numpy().tolist(), "output_shape": list(y.shape)}
    for name, (shape, _) in cases.BN_CASES.items():
        layer = cases.bn_layer(tf, tf1)
        y_train = layer(inp(shape), training=True)
        state = _state(layer)
        y_infer = layer(inp(shape))
        out[name] = {"train": y_train.numpy().tolist(), "state": state,
                     "infer": y_infer.numpy().tolist(), "names": [v.name for v in layer.variables]}
    reg = cases.regularized_dense(tf, tf1)
    reg(inp([2, 4]))
    out["regularizer_losses"] = [float(v) for v in reg.losses]
    return out


def main() -> None:
    data = {"tf_version": tf.__version__,
            "names": sorted(n for n in dir(tf1.layers) if not n.startswith("_")),
            "graph": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in cases.GRAPH_CASES.items():
            data["graph"][name] = graph_case(fn)
        data["math"] = math_part()
    data["eager"] = eager_part()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    size = generator_env.dump(OUT, data)
    print(f"wrote {OUT} ({size} bytes)")


if __name__ == "__main__":
    main()
