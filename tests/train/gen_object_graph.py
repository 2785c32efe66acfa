"""Record TF 2.21's checkpoint keys and object graphs for object_graph_programs.py, and tf.Module facts.

    /work/tfenv/bin/python tests/train/gen_object_graph.py

Writes tests/train/fixtures/object_graph/*.json (read by the tests without TF);
`gen_object_graph.py tied_restores` writes only tied_restores.json.
"""

import collections
import json
import os
import pathlib
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import object_graph_programs as programs  # noqa: E402

OUT = HERE / "fixtures" / "object_graph"


def record_program(name, fn):
    ckpt, how = fn(tf, tf_keras.optimizers.legacy)
    with tempfile.TemporaryDirectory() as d:
        path = getattr(ckpt, how)(os.path.join(d, "ckpt"))
        reader = tf.train.load_checkpoint(path)
        shapes = reader.get_variable_to_shape_map()
        dtypes = reader.get_variable_to_dtype_map()
        keys = {k: [list(shapes[k]), dtypes[k].name] for k in sorted(shapes)}
        graph = trackable_object_graph_pb2.TrackableObjectGraph()
        graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
        state = None
        if how == "save":
            state = open(os.path.join(d, "checkpoint")).read()
        values = {k: reader.get_tensor(k).tolist() for k in sorted(shapes)
                  if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    return {"path_suffix": os.path.basename(path), "keys": keys,
            "graph": programs.graph_to_json(graph), "state_file": state, "values": values}


def module_facts():
    facts, _ = programs.module_facts(tf)

    class MyModule(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.ones([x.shape[1], 3]))
            return tf.matmul(x, self.w)
    mm = MyModule()
    mm(tf.ones([1, 2]))
    facts["guide_variable_name"] = mm.w.name
    facts["guide_module_name"] = mm.name
    facts["camel_names"] = [type("HTTPServer2Thing", (tf.Module,), {})().name,
                            type("ABC", (tf.Module,), {})().name]
    try:
        tf.Module(name="a b")
    except ValueError as e:
        facts["bad_name_error"] = str(e)
    a, b, c = tf.Module(name="a"), tf.Module(name="b"), tf.Module(name="c")
    a.z = b
    a.y = c
    b.c = c
    c.v = tf.Variable(1.0, trainable=False)
    b.v = tf.Variable(2.0)
    facts["submodule_order"] = [s.name for s in a.submodules]
    facts["trainable"] = [float(v.numpy()) for v in a.trainable_variables]
    facts["non_trainable"] = [float(v.numpy()) for v in a.non_trainable_variables]
    return facts


def record_tied_restores():
    with tempfile.TemporaryDirectory() as d:
        tied = programs.tied_restores(tf, d)
    (OUT / "tied_restores.json").write_text(json.dumps(tied, indent=1, sort_keys=True) + "\n")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    record_tied_restores()
    if sys.argv[1:] == ["tied_restores"]:  # only this file (the others are unchanged)
        return
    recorded = {name: record_program(name, fn) for name, fn in programs.PROGRAMS.items()}
    (OUT / "programs.json").write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    with tempfile.TemporaryDirectory() as d:
        messages = programs.status_messages(tf, d)
    (OUT / "statuses.json").write_text(json.dumps(messages, indent=1, sort_keys=True) + "\n")
    (OUT / "module.json").write_text(json.dumps(module_facts(), indent=1, sort_keys=True) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
