"""Checkpointed programs run by both TF (gen_object_graph.py) and tfcompat (the tests).

Each program takes the `tf` module and its legacy Keras optimizers namespace
(`tf_keras.optimizers.legacy` for TF, `tf.keras.optimizers` for tfcompat),
builds objects, and returns `(checkpoint, how)` where `how` is "write" or
"save".
"""

import collections


def _dense(tf):
    class Dense(tf.Module):
        def __init__(self, i, o, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.reshape(tf.range(i * o, dtype=tf.float32), [i, o]) / 10.0,
                                 name="w")
            self.b = tf.Variable(tf.zeros([o]), name="b")

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b
    return Dense


def _model(tf):
    Dense = _dense(tf)

    class Seq(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.layers = [Dense(2, 3, name="d1"), Dense(3, 1)]

        @tf.Module.with_name_scope
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
    return Seq(name="seq")


def _step(tf, model, opt):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(model(tf.constant([[1.0, 2.0]])) ** 2)
    grads = tape.gradient(y, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))


def seq_adam(tf, optimizers):
    model = _model(tf)
    opt = optimizers.Adam(0.1)
    _step(tf, model, opt)
    return tf.train.Checkpoint(model=model, optimizer=opt), "write"


def step_optimizer_model(tf, optimizers):
    model = _model(tf)
    opt = optimizers.SGD(0.1, momentum=0.9)
    _step(tf, model, opt)
    return tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, model=model), "save"


def dict_children(tf, optimizers):
    Dense = _dense(tf)
    m = tf.Module(name="m")
    m.blocks = {"b": Dense(1, 2), "a": tf.Variable(3.0), "n": [tf.Variable(1), 7]}
    m.scale = tf.Variable(2.0, trainable=False)
    return tf.train.Checkpoint(net=m, extra={"x": tf.Variable([1.0, 2.0])}), "write"


def shared_variable(tf, optimizers):
    v = tf.Variable([1.0, 2.0], name="shared")
    m = tf.Module()
    m.a = v
    m.b = v
    m.l = [v, tf.Variable(5.0)]
    return tf.train.Checkpoint(m=m, v=v), "write"


def tuples(tf, optimizers):
    NT = collections.namedtuple("NT", "x y")
    m = tf.Module()
    m.t = (tf.Variable(1.0), 2, tf.Variable(3.0))
    m.nt = NT(tf.Variable(4.0), tf.Variable(5.0))
    return tf.train.Checkpoint(m=m), "write"


def root_module(tf, optimizers):
    model = _model(tf)
    opt = optimizers.Adam(0.01)
    _step(tf, model, opt)
    return tf.train.Checkpoint(model, optimizer=opt), "save"


def root_variable(tf, optimizers):
    return tf.train.Checkpoint(tf.Variable(4.0)), "write"


def escaped_names(tf, optimizers):
    m = tf.Module()
    m.l = {"a/b": tf.Variable(1.0), "c.d": tf.Variable(2.0)}
    return tf.train.Checkpoint(m=m), "write"


PROGRAMS = {f.__name__: f for f in (seq_adam, step_optimizer_model, dict_children,
                                    shared_variable, tuples, root_module, root_variable,
                                    escaped_names)}


def status_messages(tf, directory):
    """The AssertionError messages of load statuses in a few mismatches (`{case: message}`)."""
    import os
    out = {}
    m = tf.Module()
    m.a = tf.Variable(1.0)
    m.sub = tf.Module()
    m.sub.b = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(m=m).write(os.path.join(directory, "status"))

    def message(fn):
        try:
            fn()
        except AssertionError as e:
            return str(e)
        return None
    fresh = tf.Module()
    fresh.a = tf.Variable(0.0)
    st = tf.train.Checkpoint(m=fresh).read(path)
    out["unresolved"] = message(st.assert_consumed)
    out["existing_ok"] = message(st.assert_existing_objects_matched)
    extra = tf.Module()
    extra.a = tf.Variable(0.0)
    extra.sub = tf.Module()
    extra.sub.b = tf.Variable([0.0, 0.0])
    extra.zzz = tf.Variable(5.0)
    out["unmatched_python"] = message(tf.train.Checkpoint(m=extra).read(path)
                                      .assert_existing_objects_matched)
    out["none"] = message(tf.train.Checkpoint(m=extra).restore(None).assert_consumed)
    out["nothing_to_load"] = message(tf.train.Checkpoint(q=tf.Module()).read(path)
                                     .assert_nontrivial_match)
    return out


def graph_to_json(graph):
    """A checkpoint's object graph as plain data (works on TF's protos and tfcompat's messages)."""
    nodes = []
    for node in graph.nodes:
        nodes.append({
            "children": [[c.node_id, c.local_name] for c in node.children],
            "attributes": [[a.name, a.full_name, a.checkpoint_key] for a in node.attributes],
            "slot_variables": [[s.original_variable_node_id, s.slot_name, s.slot_variable_node_id]
                               for s in node.slot_variables],
            "has_checkpoint_values": bool(node.has_checkpoint_values.value)
            if node.has_checkpoint_values is not None else None,
        })
    return nodes


def module_facts(tf):
    """What a `tf.Module` reports about its attributes, lists, dicts, namedtuples and
    tuples, and the names of the `_model` program (`(facts, module)`); recorded from TF by
    gen_object_graph.py, compared by test_module.py."""
    facts = {}
    m = tf.Module()
    facts["fresh_vars"] = sorted(vars(m))
    m.v = tf.Variable(1.0)
    m.l = [tf.Variable(2.0), 3, {"b": tf.Variable(4.0), "a": tf.Variable(5.0)}]
    NT = collections.namedtuple("NT", "x y")
    m.nt = NT(tf.Variable(6.0), tf.Variable(7.0))
    m.t = (tf.Variable(8.0),)
    facts["vars_after"] = sorted(vars(m))
    facts["flatten_paths"] = [list(p) for p, _ in m._flatten(with_path=True)]
    facts["variables_values"] = [float(v.numpy()) for v in m.variables]
    facts["children"] = list(m._trackable_children())
    facts["list_children"] = list(m.l._trackable_children())
    facts["nt_children"] = list(m._lookup_dependency("nt")._trackable_children())
    model = _model(tf)
    facts["seq_variable_names"] = [v.name for v in model.variables]
    facts["seq_submodule_names"] = [s.name for s in model.submodules]
    facts["seq_scope_names"] = [model.name_scope.name, model.layers[0].name_scope.name]
    return facts, m


def tied_restores(tf, directory):
    """Restores into one variable (or module) reachable under several names of a checkpoint
    whose names held different values (`{case: [values..., assert results...]}`): TF keeps
    the value of the node its breadth-first walk of the file's graph reaches first, and
    every status assertion passes. Recorded from TF by gen_object_graph.py (tied_restores.json)."""
    import os
    out = {}
    values = {"embedding": [1.0, 1.0], "output_proj": [2.0, 2.0], "a": [3.0, 3.0]}

    def statuses(st):
        res = []
        for name in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"):
            try:
                getattr(st, name)()
                res.append("ok")
            except AssertionError as e:
                res.append(str(e))
        return res

    for order in (("embedding", "output_proj"), ("output_proj", "embedding"),
                  ("a", "output_proj", "embedding")):
        m = tf.Module()
        for name in order:
            setattr(m, name, tf.Variable(values[name]))
        path = tf.train.Checkpoint(m=m).write(os.path.join(directory, "tied_" + "_".join(order)))
        for restore_order in (order, tuple(reversed(order))):
            n = tf.Module()
            v = tf.Variable([0.0, 0.0])
            for name in restore_order:
                setattr(n, name, v)
            st = tf.train.Checkpoint(m=n).read(path)
            out["/".join(order) + " into " + "/".join(restore_order)] = \
                [v.numpy().tolist()] + statuses(st)
    # a shallower name wins over a deeper one, whatever the attribute order
    m = tf.Module()
    m.sub = tf.Module()
    m.sub.deep = tf.Variable([5.0, 5.0])
    m.z = tf.Variable([6.0, 6.0])
    path = tf.train.Checkpoint(m=m).write(os.path.join(directory, "depth"))
    n = tf.Module()
    n.sub = tf.Module()
    v = tf.Variable([0.0, 0.0])
    n.sub.deep = v
    n.z = v
    st = tf.train.Checkpoint(m=n).read(path)
    out["depth"] = [v.numpy().tolist()] + statuses(st)
    # Checkpoint's keyword arguments: the file's order, not the restoring call's
    path = tf.train.Checkpoint(a=tf.Variable([1.0, 1.0]), b=tf.Variable([2.0, 2.0])).write(
        os.path.join(directory, "kwargs"))
    v = tf.Variable([0.0, 0.0])
    st = tf.train.Checkpoint(b=v, a=v).read(path)
    out["kwargs"] = [v.numpy().tolist()] + statuses(st)
    # one module under two names: its variables come from the first name's subtree, a
    # variable only the second subtree has from there
    m = tf.Module()
    m.a = tf.Module()
    m.a.w = tf.Variable([1.0])
    m.b = tf.Module()
    m.b.w = tf.Variable([2.0])
    m.b.extra = tf.Variable([7.0])
    path = tf.train.Checkpoint(m=m).write(os.path.join(directory, "shared_module"))
    n = tf.Module()
    s = tf.Module()
    s.w = tf.Variable([0.0])
    s.extra = tf.Variable([0.0])
    n.b = s
    n.a = s
    st = tf.train.Checkpoint(m=n).read(path)
    out["shared_module"] = [s.w.numpy().tolist(), s.extra.numpy().tolist()] + statuses(st)
    # names that appear after the restore (deferred): the first restored keeps its value
    path = os.path.join(directory, "tied_embedding_output_proj")
    n = tf.Module()
    v = tf.Variable([0.0, 0.0])
    n.output_proj = v
    tf.train.Checkpoint(m=n).read(path)
    n.embedding = v
    out["late_name"] = [v.numpy().tolist()]
    n = tf.Module()
    tf.train.Checkpoint(m=n).read(path)
    v = tf.Variable([0.0, 0.0])
    n.output_proj = v
    n.embedding = v
    out["both_late"] = [v.numpy().tolist()]
    # a second restore call restores again
    n = tf.Module()
    v = tf.Variable([0.0, 0.0])
    n.embedding = v
    n.output_proj = v
    ck = tf.train.Checkpoint(m=n)
    ck.read(path)
    v.assign([9.0, 9.0])
    ck.read(path)
    out["second_call"] = [v.numpy().tolist()]
    return out
