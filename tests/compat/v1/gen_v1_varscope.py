"""Record real TensorFlow's TF 1 variable-store behaviour into `v1_varscope_golden.json`.

Runs every scenario of `v1_varscope_scenarios.py`: the `GRAPH` ones in a fresh TF 1 graph
(`tf.Graph().as_default()`: the semantics tfcompat emulates), the `EAGER` ones (the
migration shim, `make_template`) eagerly with tf_keras. Run with a Python that has
TensorFlow 2.21 and tf_keras: `/work/tfenv/bin/python tests/compat/v1/gen_v1_varscope.py`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402

import v1_varscope_scenarios as scenarios  # noqa: E402

OUT = os.path.join(HERE, "v1_varscope_golden.json")
CKPT_DIR = os.path.join(HERE, "v1_varscope_ckpt")


def write_tf1_checkpoint(tf1) -> None:
    """A TF 1 Saver checkpoint (graph mode, `Session`) of a `get_variable` dense layer with
    known values: `dense/kernel` = arange(6)/10 as [3, 2], `dense/bias` = [1, 2]."""
    import numpy as np
    os.makedirs(CKPT_DIR, exist_ok=True)
    with tf.Graph().as_default():
        with tf1.variable_scope("dense"):
            tf1.get_variable("kernel", initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
            tf1.get_variable("bias", initializer=np.array([1.0, 2.0], np.float32))
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            saver.save(sess, os.path.join(CKPT_DIR, "model"), write_meta_graph=False)
    os.remove(os.path.join(CKPT_DIR, "checkpoint"))  # (it records absolute paths)


def main() -> None:
    tf1 = tf.compat.v1
    golden = {"tensorflow": tf.__version__, "graph": {}, "eager": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in scenarios.GRAPH.items():
            with tf.Graph().as_default():
                golden["graph"][name] = scenarios.run(fn, tf, tf1, tf_keras, tmp)
        for name, fn in scenarios.EAGER.items():
            golden["eager"][name] = scenarios.run(fn, tf, tf1, tf_keras, tmp)
    write_tf1_checkpoint(tf1)
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
