"""Scenarios of TF 1 variable-store behaviour, run against real TF (by
`gen_v1_varscope.py`, writing `v1_varscope_golden.json`) and against tfcompat (by the
tests). Each takes `(tf, tf1, keras, tmpdir)` and returns JSON-able facts; a raised
exception is recorded as its class name and message. `GRAPH` scenarios run in a fresh TF 1
graph (tfcompat: after `reset_default_graph()`), `EAGER` ones eagerly.
"""

from __future__ import annotations

import os
from typing import Any, Callable

GRAPH: dict = {}
EAGER: dict = {}


def graph(fn: Callable) -> Callable:
    GRAPH[fn.__name__] = fn
    return fn


def eager(fn: Callable) -> Callable:
    EAGER[fn.__name__] = fn
    return fn


def run(fn: Callable, *args: Any) -> Any:
    try:
        return {"value": fn(*args)}
    except Exception as e:  # noqa: BLE001 - the error is the fact recorded
        return {"error": type(e).__name__, "message": str(e).split("\n\noriginally defined at:")[0]}


@graph
def already_exists(tf, tf1, keras, tmp):
    with tf1.variable_scope("d"):
        tf1.get_variable("w", [2])
        tf1.get_variable("w", [2])


@graph
def does_not_exist(tf, tf1, keras, tmp):
    with tf1.variable_scope("d", reuse=True):
        tf1.get_variable("x", [2])


@graph
def shape_mismatch(tf, tf1, keras, tmp):
    with tf1.variable_scope("d"):
        tf1.get_variable("w", [2, 3])
    with tf1.variable_scope("d", reuse=True):
        tf1.get_variable("w", [3])


@graph
def dtype_mismatch(tf, tf1, keras, tmp):
    with tf1.variable_scope("d"):
        tf1.get_variable("w", [2])
    with tf1.variable_scope("d", reuse=True):
        tf1.get_variable("w", [2], dtype=tf1.int32)


@graph
def constant_with_shape(tf, tf1, keras, tmp):
    tf1.get_variable("w", [2], initializer=tf1.constant([1.0, 2.0]))


@graph
def no_initializer_no_shape(tf, tf1, keras, tmp):
    tf1.get_variable("w")


@graph
def initializer_dtype_mismatch(tf, tf1, keras, tmp):
    tf1.get_variable("w", dtype=tf1.float64, initializer=tf1.constant([1.0, 2.0]))


@graph
def reuse_without_name(tf, tf1, keras, tmp):
    with tf1.variable_scope(None, default_name="x", reuse=True):
        pass


@graph
def reuse_invalid(tf, tf1, keras, tmp):
    tf1.variable_scope("x", reuse=1)


@graph
def no_name_no_default(tf, tf1, keras, tmp):
    tf1.variable_scope(None)


@graph
def name_not_string(tf, tf1, keras, tmp):
    with tf1.variable_scope(3):
        pass


@graph
def custom_getter_not_callable(tf, tf1, keras, tmp):
    tf1.get_variable("w", [1], custom_getter=3)


@graph
def auxiliary_not_bool(tf, tf1, keras, tmp):
    tf1.variable_scope("x", auxiliary_name_scope=1)


@graph
def uniquified_names(tf, tf1, keras, tmp):
    names = []
    for _ in range(3):
        with tf1.variable_scope(None, default_name="layer") as s:
            names.append(s.name)
            for _ in range(2):
                with tf1.variable_scope(None, default_name="sub") as t:
                    names.append(t.name)
    with tf1.variable_scope("layer"):
        with tf1.variable_scope(None, default_name="sub") as t:
            names.append(t.name)
    with tf1.variable_scope("layer_5"):
        pass
    for _ in range(3):
        with tf1.variable_scope(None, default_name="layer") as s:
            names.append(s.name)
    with tf1.variable_scope("outer"):
        with tf1.variable_scope(None, default_name="layer") as s:
            names.append(s.name)
    with tf1.variable_scope("outer"):
        with tf1.variable_scope(None, default_name="layer") as s:
            names.append(s.name)
    return names


@graph
def reuse_inheritance(tf, tf1, keras, tmp):
    out = [str(tf1.get_variable_scope().reuse)]
    with tf1.variable_scope("a") as a:
        out.append(str(a.reuse))
    with tf1.variable_scope("a", reuse=True) as a:
        out.append(str(a.reuse))
        with tf1.variable_scope("b") as b:
            out.append(str(b.reuse))
            with tf1.variable_scope("c", reuse=False) as c:
                out.append(str(c.reuse))
    with tf1.variable_scope("z", reuse=tf1.AUTO_REUSE) as z:
        out.append(str(z.reuse == tf1.AUTO_REUSE))
        with tf1.variable_scope("y") as y:
            out.append(str(y.reuse == tf1.AUTO_REUSE))
    return out


@graph
def reenter_scope_object(tf, tf1, keras, tmp):
    with tf1.variable_scope("outer") as o:
        w = tf1.get_variable("w", [1])
    out = []
    with tf1.variable_scope("other"):
        with tf1.variable_scope(o) as s:
            out.append(s.name)
            out.append(tf1.get_variable("v", [1]).name)
        with tf1.variable_scope(o, reuse=True) as s:
            out.append(tf1.get_variable("w", [1]) is w)
            with tf1.variable_scope("inner") as i:
                out.append(i.name)
    with tf1.variable_scope("outer", reuse=True):
        out.append(tf1.get_variable("v").name)
    return out


@graph
def reuse_variables_and_auto_reuse(tf, tf1, keras, tmp):
    with tf1.variable_scope("r") as s:
        w = tf1.get_variable("w", [2])
        s.reuse_variables()
        same = tf1.get_variable("w", [2]) is w
    out = [same]
    for _ in range(2):
        with tf1.variable_scope("auto", reuse=tf1.AUTO_REUSE):
            out.append(tf1.get_variable("w", [3]).name)
    return out


@graph
def names_ignore_name_scope(tf, tf1, keras, tmp):
    with tf1.name_scope("ns"):
        with tf1.variable_scope("v"):
            a = tf1.get_variable("w", [1]).name
            with tf1.name_scope("deeper"):
                b = tf1.get_variable("u", [1]).name
    return [a, b]


@graph
def custom_getter_nesting(tf, tf1, keras, tmp):
    calls = []

    def outer(getter, name, *args, **kwargs):
        calls.append(("outer", name))
        return getter(name + "_o", *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        calls.append(("inner", name))
        return getter(name + "_i", *args, **kwargs)

    with tf1.variable_scope("s", custom_getter=outer):
        with tf1.variable_scope("t", custom_getter=inner) as t:
            v = tf1.get_variable("w", [1])
            gotten = t.custom_getter is not None
    return [v.name, [list(c) for c in calls], gotten]


@graph
def collections_lists(tf, tf1, keras, tmp):
    with tf1.variable_scope("m"):
        tf1.get_variable("a", [1])
        tf1.get_variable("b", [1], trainable=False)
        tf1.get_local_variable("c", [1])
        tf1.get_variable("d", [1], collections=[tf1.GraphKeys.GLOBAL_VARIABLES,
                                                tf1.GraphKeys.MODEL_VARIABLES])
    with tf1.variable_scope("n"):
        tf1.get_variable("e", [1])
    names = lambda vs: [v.name for v in vs]  # noqa: E731
    return {
        "global": names(tf1.global_variables()),
        "trainable": names(tf1.trainable_variables()),
        "local": names(tf1.local_variables()),
        "model": names(tf1.model_variables()),
        "scoped": names(tf1.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES, scope="n")),
        "regex": names(tf1.trainable_variables(scope="m|n")),
        "scope_method": names(tf1.get_variable_scope().global_variables()),
    }


@graph
def default_initializers(tf, tf1, keras, tmp):
    i = tf1.get_variable("i", [2], dtype=tf1.int32)
    b = tf1.get_variable("b", [2], dtype=tf1.bool)
    return [i.dtype.name, b.dtype.name, str(i.shape)]


@graph
def local_variable_not_trainable(tf, tf1, keras, tmp):
    v = tf1.get_local_variable("l", [1], trainable=True)
    return [v.trainable, v.name]


# ------------------------------------------------------------------------------- eager
@eager
def shim_dense_layer(tf, tf1, keras, tmp):
    class DenseLayer(keras.layers.Layer):
        def __init__(self, units, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.units = units

        @tf1.keras.utils.track_tf1_style_variables
        def call(self, inputs):
            with tf1.variable_scope("dense"):
                kernel = tf1.get_variable("kernel", [inputs.shape[-1], self.units],
                                          regularizer=keras.regularizers.L2(),
                                          initializer=keras.initializers.GlorotNormal())
                bias = tf1.get_variable("bias", [self.units],
                                        initializer=keras.initializers.Zeros())
                return tf.linalg.matmul(inputs, kernel) + bias

    layer = DenseLayer(4)
    x = tf.ones([2, 3])
    layer(x)
    layer(x)
    path = tf.train.Checkpoint(l=layer).save(os.path.join(tmp, "shim"))
    return {"names": [v.name for v in layer.trainable_weights], "losses": len(layer.losses),
            "keys": sorted(k for k, _ in tf.train.list_variables(path))}


@eager
def shim_module(tf, tf1, keras, tmp):
    class M(tf.Module):
        @tf1.keras.utils.track_tf1_style_variables
        def __call__(self, x):
            with tf1.variable_scope("m"):
                w = tf1.get_variable("w", [3])
                same = tf1.get_variable("w", [3]) is w
            return x * w, same

    m = M()
    _, same = m(1.0)
    path = tf.train.Checkpoint(m=m).save(os.path.join(tmp, "mod"))
    return {"names": [v.name for v in m.variables], "same": same,
            "keys": sorted(k for k, _ in tf.train.list_variables(path))}


@eager
def shim_not_module(tf, tf1, keras, tmp):
    class Plain:
        @tf1.keras.utils.track_tf1_style_variables
        def __call__(self):
            return 1
    Plain()()


@eager
def template_names(tf, tf1, keras, tmp):
    def f(x):
        with tf1.variable_scope("inner"):
            v = tf1.get_variable("v", [2])
        return x * tf1.get_variable("w", [2]) + v

    t = tf1.make_template("tt", f)
    before = [len(t.variables), t.variable_scope_name]
    t(1.0)
    t(2.0)
    t2 = tf1.make_template("tt", f)
    t2(1.0)
    t3 = tf1.make_template("now", f, create_scope_now_=True)
    scope_now = t3.variable_scope_name
    path = tf.train.Checkpoint(t=t).save(os.path.join(tmp, "tmpl"))
    return {"before": before, "t": [v.name for v in t.variables],
            "t2": [v.name for v in t2.variables], "scope": [t.variable_scope_name, t.name,
                                                          t2.variable_scope_name, scope_now],
            "keys": sorted(k for k, _ in tf.train.list_variables(path))}


@eager
def template_new_variable_later(tf, tf1, keras, tmp):
    count = [0]

    def f(x):
        count[0] += 1
        return x * tf1.get_variable(f"w{count[0]}", [2])

    t = tf1.make_template("late", f)
    t(1.0)
    t(1.0)


@eager
def template_in_shim(tf, tf1, keras, tmp):
    class ScaleByY(keras.layers.Layer):  # (the guide's CompatV1TemplateScaleByY)
        def __init__(self, **kwargs):
            super().__init__(**kwargs)

            def my_op(x, scalar_name):
                var1 = tf1.get_variable(scalar_name, shape=[], regularizer=keras.regularizers.L2(),
                                        initializer=keras.initializers.Constant(1.5))
                return x * var1
            self.scale_by_y = tf1.make_template("scale_by_y", my_op, scalar_name="y")

        @tf1.keras.utils.track_tf1_style_variables
        def call(self, inputs):
            with tf1.variable_scope("layer"):
                return self.scale_by_y(inputs)

    layer = ScaleByY()
    layer(tf.ones([2, 3]))
    out = layer(tf.ones([2, 3]))
    path = tf.train.Checkpoint(l=layer).save(os.path.join(tmp, "tpl"))
    return {"weights": [[w.name, float(w.numpy())] for w in layer.weights],
            "losses": [round(float(x), 6) for x in layer.losses],
            "out": out.numpy().tolist(),
            "keys": sorted(k for k, _ in tf.train.list_variables(path))}


@eager
def nested_shims_keep_separate_stores(tf, tf1, keras, tmp):
    class Inner(keras.layers.Layer):
        @tf1.keras.utils.track_tf1_style_variables
        def call(self, inputs):
            with tf1.variable_scope("dense"):
                return inputs * tf1.get_variable("kernel", [], initializer=keras.initializers.Ones())

    class Outer(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = Inner()

        @tf1.keras.utils.track_tf1_style_variables
        def call(self, inputs):
            with tf1.variable_scope("outer"):
                with tf1.variable_scope("dense"):
                    own = tf1.get_variable("kernel", [], initializer=keras.initializers.Zeros())
                return self.inner(inputs) + own

    layer = Outer()
    layer(tf.ones([1]))
    layer(tf.ones([1]))
    return sorted(w.name for w in layer.trainable_weights)
